/**
 * Links between the documents keep working (issue 32): every relative link of README.md,
 * ARCHITECTURE.md and docs/*.md (images included) names a file that exists, and a `#anchor`
 * names a heading of that file, by GitHub's rule for heading anchors (lower case, punctuation
 * dropped, spaces as dashes, a repeated heading numbered -1, -2, ...).
 */
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import * as assert from 'uvu/assert';
import { suite } from '../helpers/suite.js';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const test = suite('ops: links between the documents');

/** The documents whose links are checked, relative to the repository's root. */
function documents(): string[] {
  const docs = readdirSync(path.join(ROOT, 'docs'))
    .filter((name) => name.endsWith('.md'))
    .map((name) => `docs/${name}`);
  return ['README.md', 'ARCHITECTURE.md', ...docs];
}

/** The text outside fenced code blocks and inline code, where Markdown links live. */
function prose(text: string): string {
  return text.replace(/^```[\s\S]*?^```/gm, '').replace(/`[^`\n]*`/g, '');
}

/** GitHub's anchors of a Markdown file's headings. */
function anchorsOf(text: string): Set<string> {
  const anchors = new Set<string>();
  const seen = new Map<string, number>();
  for (const line of text.replace(/^```[\s\S]*?^```/gm, '').split('\n')) {
    const heading = /^#{1,6}\s+(.+?)\s*#*\s*$/.exec(line);
    if (!heading) continue;
    const base = heading[1]!
      .toLowerCase()
      .replace(/[^\p{L}\p{N}\s_-]/gu, '')
      .replace(/\s/g, '-');
    const count = seen.get(base) ?? 0;
    seen.set(base, count + 1);
    anchors.add(count === 0 ? base : `${base}-${count}`);
  }
  return anchors;
}

test('anchors follow GitHub: punctuation dropped, spaces as dashes, repeats numbered', () => {
  assert.equal(
    [...anchorsOf('# The admin CLI: `prepaid`\n## Stopping\n## Stopping\n## Pending purchases (202)')],
    ['the-admin-cli-prepaid', 'stopping', 'stopping-1', 'pending-purchases-202'],
  );
});

test('every relative link of the documents names an existing file and heading', () => {
  const problems: string[] = [];
  let checked = 0;
  for (const document of documents()) {
    const text = readFileSync(path.join(ROOT, document), 'utf8');
    for (const link of prose(text).matchAll(/!?\[[^\]]*\]\(([^)\s]+)\)/g)) {
      const target = link[1]!;
      if (/^[a-z][a-z0-9+.-]*:/i.test(target)) continue;
      checked++;
      const [file, anchor] = target.split('#') as [string, string | undefined];
      const resolved =
        file === '' ? path.join(ROOT, document) : path.resolve(path.dirname(path.join(ROOT, document)), file);
      if (!existsSync(resolved)) {
        problems.push(`${document}: ${target}: no such file`);
        continue;
      }
      if (anchor !== undefined && !anchorsOf(readFileSync(resolved, 'utf8')).has(anchor)) {
        problems.push(`${document}: ${target}: no heading with that anchor in ${path.relative(ROOT, resolved)}`);
      }
    }
  }
  assert.ok(checked >= 40, `${checked} relative links checked`);
  assert.equal(problems, [], problems.join('\n'));
});

test('the README stays short, and ARCHITECTURE.md is the only folder map', () => {
  const readme = readFileSync(path.join(ROOT, 'README.md'), 'utf8');
  const lines = readme.split('\n').length;
  assert.ok(lines <= 250, `README.md has ${lines} lines; move detail into docs/ (at most about 250)`);
  assert.ok(readme.includes('](ARCHITECTURE.md)'), 'the README links ARCHITECTURE.md');
  // A folder map lists the folders one a line, in a table or a code block: core/domain/ first.
  const maps = documents().filter(
    (document) =>
      document !== 'ARCHITECTURE.md' &&
      /^(\| )?`?core\/domain\/`?\s/m.test(readFileSync(path.join(ROOT, document), 'utf8')),
  );
  assert.equal(maps, [], `a second folder map in ${maps.join(', ')}: link ARCHITECTURE.md instead`);
});

test.run();
