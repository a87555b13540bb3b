/**
 * The examples of a Markdown document, read out of it so that tests follow the document as it
 * changes: every `curl -s "$BASE?..."` (continuation lines joined) with the answer shown under
 * it as `# {...}` comment lines, and a comparison of a shown answer with a real one.
 *
 * What a shown answer may leave out: `{...}` stands for any object, `, ...}` for the rest of an
 * object's keys, `, ...]` for the rest of an array, a string `"..."` for any string and a
 * string ending in `...` for any string that starts the same. What is compared by shape only,
 * because it is the reader's own: references, event ids, ISO times and dates, electricity
 * tokens (each inside any string), and `next_cursor`. Everything else (amounts, charges,
 * balances, names, states, messages, the order of keys) must be equal.
 */
import { readFileSync } from 'node:fs';

interface DocExample {
  /** 1-based line of the `curl` in the file. */
  line: number;
  query: URLSearchParams;
  headers: Record<string, string>;
  /** The body as written after `-d`, or undefined for a GET. */
  body: string | undefined;
  /** The answer shown under the request, parsed with its elisions as markers; undefined when none is shown. */
  answer: unknown;
}

const MORE = '...';

interface DocCommand {
  /** 1-based line of the command in the file. */
  line: number;
  /** The arguments after `npx prepaid`, as a shell splits them. */
  args: string[];
  /** The output shown under it (`# ` lines), one string a line; empty when none is shown. */
  output: string[];
}

/** One step of a document's walk-through, in the order of the file. */
export type DocStep =
  | { kind: 'cli'; command: DocCommand }
  | { kind: 'curl'; example: DocExample }
  | { kind: 'export'; line: number; name: string; value: string };

/**
 * The steps of a Markdown file's code blocks, in order: every `npx prepaid ...` with the
 * output shown under it as `# ` lines, every `export NAME=value`, and every
 * `curl -s "$BASE?..."` (continuation lines joined) with the answer shown under it.
 */
export function docSteps(file: URL): DocStep[] {
  const lines = readFileSync(file, 'utf8').split('\n');
  const steps: DocStep[] = [];
  for (let i = 0; i < lines.length; i++) {
    const line = i + 1;
    const cli = /^npx prepaid (.+)$/.exec(lines[i]!);
    if (cli) {
      const output: string[] = [];
      while (lines[i + 1]?.startsWith('# ')) output.push(lines[++i]!.slice(2));
      const args = [...cli[1]!.replace(/\s+#.*$/, '').matchAll(/"([^"]*)"|(\S+)/g)].map((m) => m[1] ?? m[2]!);
      steps.push({ kind: 'cli', command: { line, args, output } });
      continue;
    }
    const exported = /^export ([A-Z_]+)=(\S+)/.exec(lines[i]!);
    if (exported) {
      steps.push({ kind: 'export', line, name: exported[1]!, value: exported[2]! });
      continue;
    }
    if (!/^curl -s "\$BASE\?/.test(lines[i]!)) continue;
    let command = lines[i]!;
    while (command.endsWith('\\')) command = command.slice(0, -1) + lines[++i]!;
    let shown = '';
    if (lines[i + 1]?.startsWith('# {')) {
      while (lines[i + 1]?.startsWith('#')) shown += lines[++i]!.replace(/^#\s*/, '');
    }
    const url = /"\$BASE\?([^"]*)"/.exec(command)![1]!;
    const headers = Object.fromEntries([...command.matchAll(/-H "([^:]+): ([^"]*)"/g)].map((m) => [m[1]!, m[2]!]));
    steps.push({
      kind: 'curl',
      example: {
        line,
        query: new URLSearchParams(url),
        headers,
        body: /-d '([^']*)'/.exec(command)?.[1],
        answer: shown === '' ? undefined : parseShown(shown, line),
      },
    });
  }
  return steps;
}

/** A shown answer as JSON, its elisions turned into markers compare() understands. */
function parseShown(text: string, line: number): unknown {
  const marked = text
    .replace(/\{\s*\.\.\.\s*\}/g, `{"${MORE}":true}`)
    .replace(/,\s*\.\.\.\s*\}/g, `,"${MORE}":true}`)
    .replace(/,\s*\.\.\.\s*\]/g, `,"${MORE}"]`);
  try {
    return JSON.parse(marked);
  } catch (error) {
    throw new Error(
      `the answer shown under line ${line} is not JSON once its elisions are marked: ` +
        `${(error as Error).message}\n${marked}`,
    );
  }
}

/** What the reader's own values were in the document and in the real run, learned while comparing. */
export class Substitutions {
  readonly values = new Map<string, string>();

  /** A query with every value the document showed replaced by the real one. */
  query(query: URLSearchParams): Record<string, string> {
    return Object.fromEntries([...query].map(([name, value]) => [name, this.values.get(value) ?? value]));
  }

  /** A value the document showed, as it really is (the value itself when nothing was learned for it). */
  real(value: string): string {
    return this.values.get(value) ?? value;
  }
}

/** The reader's own values inside a string: each matches by shape (the longer shapes first). */
const SHAPES: [RegExp, string][] = [
  [/\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z/y, '\\d{4}-\\d{2}-\\d{2}T\\d{2}:\\d{2}:\\d{2}\\.\\d{3}Z'],
  [/\d{12}[0-9A-Z]{10}/y, '\\d{12}[0-9A-Z]{10}'],
  [/evt_[0-9a-f]{24}/y, 'evt_[0-9a-f]{24}'],
  [/acc_[0-9a-f]{16}/y, 'acc_[0-9a-f]{16}'],
  [/pk_(?:test_)?[0-9a-f]{24}/y, 'pk_(?:test_)?[0-9a-f]{24}'],
  [/sk_(?:test_)?[A-Za-z0-9_-]{43}/y, 'sk_(?:test_)?[A-Za-z0-9_-]{43}'],
  [/(?<=\/invite\/)[A-Za-z0-9_-]{43}/y, '[A-Za-z0-9_-]{43}'],
  [/\d{4}-\d{4}-\d{4}-\d{4}-\d{4}/y, '\\d{4}-\\d{4}-\\d{4}-\\d{4}-\\d{4}'],
  [/\d{4}-\d{2}-\d{2}/y, '\\d{4}-\\d{2}-\\d{2}'],
];

/** A shown string as a pattern: its own values by shape (each a capture group), a trailing `...` as anything. */
function stringPattern(shown: string): { pattern: RegExp; values: string[] } {
  let pattern = '';
  const values: string[] = [];
  let i = 0;
  const text = shown.endsWith(MORE) ? shown.slice(0, -MORE.length) : shown;
  outer: while (i < text.length) {
    for (const [shape, replacement] of SHAPES) {
      shape.lastIndex = i;
      const found = shape.exec(text);
      if (found) {
        pattern += `(${replacement})`;
        values.push(found[0]);
        i += found[0].length;
        continue outer;
      }
    }
    pattern += text[i]!.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
    i++;
  }
  return { pattern: new RegExp(`^${pattern}${shown.endsWith(MORE) ? '[\\s\\S]*' : ''}$`), values };
}

/** Whether `actual` is what `shown` shows; learns the reader's own values of the document that it stands for. */
export function matchesShown(shown: string, actual: string, learned: Substitutions): boolean {
  const { pattern, values } = stringPattern(shown);
  const found = pattern.exec(actual);
  if (!found) return false;
  for (const [index, value] of values.entries()) learned.values.set(value, found[index + 1]!);
  return true;
}

/**
 * The differences between a shown answer and a real one, each naming its path; empty when the
 * real answer is what the document shows. Learns the document's references and cursors.
 */
export function compare(shown: unknown, actual: unknown, learned: Substitutions, path = '$'): string[] {
  if (typeof shown === 'string') {
    if (typeof actual !== 'string') return [`${path}: shown ${JSON.stringify(shown)}, got ${JSON.stringify(actual)}`];
    if (path.endsWith('.next_cursor')) {
      learned.values.set(shown, actual);
      return /^[A-Za-z0-9_-]+$/.test(actual) ? [] : [`${path}: ${JSON.stringify(actual)} is not a cursor`];
    }
    if (shown === MORE) return [];
    return matchesShown(shown, actual, learned)
      ? []
      : [`${path}: shown ${JSON.stringify(shown)}, got ${JSON.stringify(actual)}`];
  }
  if (Array.isArray(shown)) {
    if (!Array.isArray(actual)) return [`${path}: shown an array, got ${JSON.stringify(actual)}`];
    const open = shown[shown.length - 1] === MORE;
    const items = open ? shown.slice(0, -1) : shown;
    if (open ? actual.length < items.length : actual.length !== items.length) {
      return [`${path}: shown ${items.length}${open ? ' or more' : ''} items, got ${actual.length}`];
    }
    return items.flatMap((item, index) => compare(item, actual[index], learned, `${path}[${index}]`));
  }
  if (shown !== null && typeof shown === 'object') {
    if (actual === null || typeof actual !== 'object' || Array.isArray(actual))
      return [`${path}: shown an object, got ${JSON.stringify(actual)}`];
    const open = MORE in shown;
    const keys = Object.keys(shown).filter((key) => key !== MORE);
    const problems: string[] = [];
    if (!open) {
      const actualKeys = Object.keys(actual);
      if (actualKeys.join(',') !== keys.join(','))
        problems.push(`${path}: shown the keys ${keys.join(',')}, got ${actualKeys.join(',')}`);
    }
    for (const key of keys) {
      if (!(key in actual)) problems.push(`${path}.${key}: shown, but not in the answer`);
      else
        problems.push(
          ...compare(
            (shown as Record<string, unknown>)[key],
            (actual as Record<string, unknown>)[key],
            learned,
            `${path}.${key}`,
          ),
        );
    }
    return problems;
  }
  return Object.is(shown, actual) ? [] : [`${path}: shown ${JSON.stringify(shown)}, got ${JSON.stringify(actual)}`];
}
