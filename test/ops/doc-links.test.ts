/**
 * Links between the documents keep working: every relative link of README.md,
 * ARCHITECTURE.md and docs/*.md (images included) names a file that exists, and a `#anchor`
 * names a heading of that file, by GitHub's rule for heading anchors (lower case, punctuation
 * dropped, spaces as dashes, a repeated heading numbered -1, -2, ...). The code and the
 * documents cite only what a newcomer has: files of the repository and public addresses, and
 * every docs page or contract section they name exists.
 */
import { execFileSync } from 'node:child_process';
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

/** The source folders whose files are scanned for citations. */
const SOURCE_FOLDERS = [
  'core',
  'gateway',
  'dashboard',
  'console',
  'cli',
  'runtime',
  'web',
  'bin',
  'bench',
  'test',
  'proto',
  'docs',
];

/** The tracked .ts, .js and .proto files of the source folders (never gen/ or node_modules). */
function sources(): string[] {
  const tracked = execFileSync('git', ['ls-files', '-z', '--', ...SOURCE_FOLDERS], { cwd: ROOT, encoding: 'utf8' });
  return tracked
    .split('\0')
    .filter((file) => /\.(ts|js|proto)$/.test(file) && !file.startsWith('gen/') && !file.includes('node_modules/'));
}

/** This file spells the patterns it looks for, so it is left out of its own scan. */
const THIS_FILE = 'test/ops/doc-links.test.ts';

/** What a newcomer cannot follow: notes outside the repository and numbered issues. */
const PRIVATE_CITATIONS: { name: string; pattern: RegExp }[] = [
  { name: 'DESIGN.md', pattern: /DESIGN\.md/ },
  { name: '../shared', pattern: /\.\.\/shared/ },
  { name: 'a facts file', pattern: /\bfacts[' ]* files?\b/i },
  { name: 'an issue number', pattern: /\bissues? #?\d+/i },
  { name: 'the spec by section', pattern: /\bspec(ification)?('s)? sections? \d|\bspec \d/i },
];

/** Each line of a file that cites something private, public addresses left out. */
function privateCitations(file: string): string[] {
  const found: string[] = [];
  const lines = readFileSync(path.join(ROOT, file), 'utf8').split('\n');
  lines.forEach((line, index) => {
    const withoutAddresses = line.replace(/https?:\/\/[^\s)>\]'"`]+/g, '');
    for (const { name, pattern } of PRIVATE_CITATIONS) {
      if (pattern.test(withoutAddresses)) found.push(`${file}:${index + 1}: ${name}: ${line.trim()}`);
    }
  });
  return found;
}

test('the code and the documents cite nothing a newcomer lacks (notes outside the repository, issue numbers)', () => {
  const files = [...new Set([...sources(), ...documents()])].filter((file) => file !== THIS_FILE);
  assert.ok(files.length >= 300, `${files.length} files scanned`);
  const problems = files.flatMap(privateCitations);
  assert.equal(problems, [], problems.join('\n'));
});

test('a citation in a public address is not one: the scan looks past URLs', () => {
  const line = 'see https://github.com/nodejs/node/issues/65446 and issue 12';
  const withoutAddresses = line.replace(/https?:\/\/[^\s)>\]'"`]+/g, '');
  assert.ok(!withoutAddresses.includes('65446'));
  assert.ok(PRIVATE_CITATIONS.some(({ pattern }) => pattern.test(withoutAddresses)));
});

/** The section numbers of docs/specification.md's headings ("4.8", "5", ...). */
function specificationSections(): Set<string> {
  const text = readFileSync(path.join(ROOT, 'docs/specification.md'), 'utf8');
  return new Set([...text.matchAll(/^#{1,6}\s+(\d+(?:\.\d+)*)\.?\s/gm)].map((match) => match[1]!));
}

test('every docs page, anchor and contract section the code and the documents name exists', () => {
  const sections = specificationSections();
  assert.ok(sections.has('4.8') && sections.has('5'), 'the contract numbers its sections');
  const problems: string[] = [];
  let pages = 0;
  let numbers = 0;
  const files = [...new Set([...sources(), ...documents()])].filter((file) => file !== THIS_FILE);
  for (const file of files) {
    const text = readFileSync(path.join(ROOT, file), 'utf8');
    if (!file.endsWith('.md')) {
      for (const match of text.matchAll(/(?<![\w/.-])docs\/([\w-]+\.md)(?:#([\w-]+))?/g)) {
        pages++;
        const [page, anchor] = [`docs/${match[1]!}`, match[2]];
        if (!existsSync(path.join(ROOT, page))) problems.push(`${file}: ${match[0]}: no such page`);
        else if (anchor !== undefined && !anchorsOf(readFileSync(path.join(ROOT, page), 'utf8')).has(anchor)) {
          problems.push(`${file}: ${match[0]}: no heading with that anchor`);
        }
      }
    }
    for (const match of text.matchAll(/(?:docs\/specification\.md,|the contract,)\s+(\d+(?:\.\d+)*)/g)) {
      numbers++;
      if (!sections.has(match[1]!)) problems.push(`${file}: ${match[0]}: no such section in docs/specification.md`);
    }
  }
  assert.ok(pages >= 50, `${pages} docs pages named in the code`);
  assert.ok(numbers >= 10, `${numbers} contract sections named`);
  assert.equal(problems, [], problems.join('\n'));
});

test.run();
