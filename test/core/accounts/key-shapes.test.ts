/**
 * The key shapes docs/security.md gives secret scanners match every key the core issues, and
 * a live pattern never matches inside a test key (or the other way round).
 */
import { readFileSync } from 'node:fs';
import * as assert from 'uvu/assert';
import { generateKeyPair } from '../../../core/accounts/keys.js';
import { suite } from '../../helpers/suite.js';

const test = suite('key shapes for secret scanners');
const doc = readFileSync(new URL('../../../docs/security.md', import.meta.url), 'utf8');

/** The table's patterns, by the key they are for. */
function documentedPattern(row: string): RegExp {
  const line = doc.split('\n').find((l) => l.startsWith(`| ${row} |`));
  assert.ok(line, `docs/security.md has a row for ${row}`);
  const pattern = /`([^`]+)` \|$/.exec(line)![1]!;
  return new RegExp(`^${pattern.replace(/^\\b/, '').replace(/\\b$/, '')}$`);
}

test('every issued key matches its documented pattern and no other', () => {
  const rows = ['Live public key', 'Test public key', 'Live secret key', 'Test secret key'];
  const patterns = Object.fromEntries(rows.map((row) => [row, documentedPattern(row)]));
  for (let i = 0; i < 50; i += 1) {
    const live = generateKeyPair('live');
    const testPair = generateKeyPair('test');
    assert.ok(patterns['Live public key']!.test(live.publicKey), live.publicKey);
    assert.ok(patterns['Test public key']!.test(testPair.publicKey), testPair.publicKey);
    assert.ok(patterns['Live secret key']!.test(live.secretKey));
    assert.ok(patterns['Test secret key']!.test(testPair.secretKey));
    assert.not.ok(patterns['Live secret key']!.test(testPair.secretKey), 'a test secret is not a live one');
  }
});

test("GitHub's custom pattern matches a secret key in text", () => {
  const format = /secret format `([^`]+)`/.exec(doc.replace(/\n/g, ' '))![1]!;
  const secret = generateKeyPair('live').secretKey;
  assert.ok(new RegExp(`(?:^|[^A-Za-z0-9_-])${format}(?:$|[^A-Za-z0-9_-])`).test(`SK="${secret}"`));
});

test.run();
