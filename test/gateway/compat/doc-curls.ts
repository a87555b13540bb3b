/**
 * The curls of one section of docs/compat.md, read out of the page so that its tests follow it:
 * each `curl` of the section (continuation lines joined) with the answer shown for it, the line
 * of the ```json block after its code block in the same order (a block of two curls has two
 * answer lines; a code block with no json block after it shows no answer). Its path, method
 * (`-X`, else POST with `-d`, else GET), headers (`-H`, and `-u` as Basic) and body as written.
 */
import { readFileSync } from 'node:fs';
import * as assert from 'uvu/assert';

export interface DocCurl {
  /** 1-based line of the curl in docs/compat.md. */
  line: number;
  method: 'GET' | 'POST';
  /** The path and query after the example host, `/api/...`. */
  path: string;
  headers: Record<string, string>;
  body: string | undefined;
  /** The answer shown, its elisions as test/helpers/doc-examples.ts's compare() reads them; undefined when none. */
  shown: unknown;
}

/** A shown answer's text with `...` elisions as compare() reads them. */
function shownAnswer(text: string): unknown {
  return JSON.parse(
    text
      .replace(/\{\s*\.\.\.\s*\}/g, '{"...":true}')
      .replace(/\[\s*\.\.\.\s*\]/g, '["..."]')
      .replace(/,\s*\.\.\.\s*\}/g, ',"...":true}')
      .replace(/,\s*\.\.\.\s*\]/g, ',"..."]'),
  );
}

function parseCurl(command: string, host: string, line: number): Omit<DocCurl, 'shown'> {
  const url = new RegExp(`https://${host.replaceAll('.', '\\.')}(/api/[^\\s'"]*)`).exec(command);
  assert.ok(url, `docs/compat.md line ${line}: a curl to https://${host}/api/...`);
  const headers: Record<string, string> = Object.fromEntries(
    [...command.matchAll(/-H ["']([^:]+): ([^"']*)["']/g)].map((m) => [m[1]!.toLowerCase(), m[2]!]),
  );
  const basic = /-u ["']([^"']*)["']/.exec(command)?.[1];
  if (basic !== undefined) headers['authorization'] = `Basic ${basic}`;
  const body = /-d '([^']*)'/.exec(command)?.[1];
  const explicit = /-X (GET|POST)/.exec(command)?.[1] as 'GET' | 'POST' | undefined;
  return { line, method: explicit ?? (body === undefined ? 'GET' : 'POST'), path: url![1]!, headers, body };
}

/** Every curl of the section of docs/compat.md headed `## heading`, to `https://host/api/...`. */
export function sectionCurls(heading: string, host: string): DocCurl[] {
  const lines = readFileSync(new URL('../../../docs/compat.md', import.meta.url), 'utf8').split('\n');
  const start = lines.indexOf(`## ${heading}`);
  assert.ok(start >= 0, `docs/compat.md has a section ${heading}`);
  const found: DocCurl[] = [];
  let i = start + 1;
  while (i < lines.length && !lines[i]!.startsWith('## ')) {
    if (lines[i] !== '```') {
      i++;
      continue;
    }
    // A plain code block: its curls, then the json block right after it, if any.
    const curls: Omit<DocCurl, 'shown'>[] = [];
    for (i++; i < lines.length && lines[i] !== '```'; i++) {
      if (!lines[i]!.startsWith('curl ')) continue;
      const line = i + 1;
      let command = lines[i]!;
      while (command.endsWith('\\')) command = `${command.slice(0, -1)} ${lines[++i]!.trim()}`;
      curls.push(parseCurl(command, host, line));
    }
    i++;
    const answers: string[] = [];
    if (lines[i] === '```json') {
      for (i++; i < lines.length && lines[i] !== '```'; i++) answers.push(lines[i]!);
      i++;
    }
    for (const [index, curl] of curls.entries()) {
      const text = answers[index];
      found.push({ ...curl, shown: text === undefined ? undefined : shownAnswer(text) });
    }
  }
  return found;
}
