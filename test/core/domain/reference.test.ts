import { suite } from '../../helpers/suite.js';
import * as assert from 'uvu/assert';
import { REFERENCE_PATTERN, lagosStamp, newReference } from '../../../core/domain/reference.js';

const references = suite('transaction references: Lagos minute stamp + 10 random characters');

references('a reference is 12 digits of Lagos time and 10 unambiguous upper-case letters or digits', () => {
  const reference = newReference(new Date('2026-11-21T05:15:00Z'));
  assert.is(reference.length, 22);
  assert.match(reference, REFERENCE_PATTERN);
  assert.is(reference.slice(0, 12), '202611210615');
  // No I, O, 0 or 1 in the random part: support staff read references aloud.
  assert.match(reference.slice(12), /^[A-HJ-NP-Z2-9]{10}$/);
});

const STAMPS: ReadonlyArray<readonly [string, string]> = [
  ['2026-01-01T00:00:00Z', '202601010100'],
  ['2026-01-31T23:30:00Z', '202602010030'],
  ['2026-12-31T23:59:59Z', '202701010059'],
  ['2028-02-28T23:05:00Z', '202802290005'],
  ['2026-07-01T12:00:00Z', '202607011300'],
];

for (const [utc, lagos] of STAMPS) {
  references(`${utc} is ${lagos} in Lagos (UTC+1, no daylight saving)`, () => {
    assert.is(lagosStamp(new Date(utc)), lagos);
  });
}

references('references made in the same minute differ', () => {
  const at = new Date('2026-11-21T05:15:00Z');
  const made = new Set(Array.from({ length: 10_000 }, () => newReference(at)));
  assert.is(made.size, 10_000);
});

references('the pattern refuses other shapes', () => {
  for (const bad of ['', '202611210615', '202611210615a7k2m9qx3b', '20261121061A7K2M9QX3B', '202611210615A7K2M9QX3B9']) {
    assert.not.match(bad, REFERENCE_PATTERN, bad);
  }
});

references.run();
