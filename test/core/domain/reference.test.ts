import * as assert from 'uvu/assert';
import { lagosStamp, newReference, REFERENCE_PATTERN, referenceMinute } from '../../../core/domain/reference.js';
import { suite } from '../../helpers/suite.js';

const references = suite('transaction references: Lagos minute stamp, 3 time-ordered and 7 random characters');

references('a reference is 12 digits of Lagos time and 10 unambiguous upper-case letters or digits', () => {
  const reference = newReference(new Date('2026-11-21T05:15:00Z'));
  assert.is(reference.length, 22);
  assert.match(reference, REFERENCE_PATTERN);
  assert.is(reference.slice(0, 12), '202611210615');
  // No I, O, 0 or 1 anywhere after the stamp: support staff read references aloud.
  assert.match(reference.slice(12), /^[A-HJ-NP-Z2-9]{10}$/);
});

references(
  'within a minute, later references sort after earlier ones (2 ms steps), so store inserts stay together',
  () => {
    const minute = Date.parse('2026-11-21T05:15:00Z');
    const offsets = [0, 1, 2, 3, 500, 30_001, 59_998, 59_999];
    const made = offsets.map((offset) => newReference(new Date(minute + offset)));
    const timePart = made.map((reference) => reference.slice(12, 15));
    assert.equal(timePart.slice(0, 2), ['222', '222'], 'the same 2 ms step');
    assert.is(timePart[2], '223');
    assert.equal([...timePart].sort(), timePart, 'in time order');
    assert.is(timePart[7], timePart[6], 'the last step of the minute');
    assert.ok(made.every((reference) => reference.startsWith('202611210615')));
    // The next minute starts again at the first step, under the next stamp.
    assert.is(newReference(new Date(minute + 60_000)).slice(0, 15), '202611210616222');
  },
);

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

references('references made in the same instant differ, and their random parts vary', () => {
  const at = new Date('2026-11-21T05:15:00Z');
  const made = Array.from({ length: 10_000 }, () => newReference(at));
  assert.is(new Set(made).size, 10_000);
  // Every random position takes many values: nothing is stuck.
  for (let i = 15; i < 22; i++) assert.ok(new Set(made.map((r) => r[i])).size > 24, `position ${i}`);
});

references('the pattern refuses other shapes', () => {
  for (const bad of [
    '',
    '202611210615',
    '202611210615a7k2m9qx3b',
    '20261121061A7K2M9QX3B',
    '202611210615A7K2M9QX3B9',
  ]) {
    assert.not.match(bad, REFERENCE_PATTERN, bad);
  }
});

references('the minute a reference was made reads back from its Lagos stamp', () => {
  assert.equal(referenceMinute(newReference(new Date('2026-11-21T05:15:42Z'))), new Date('2026-11-21T05:15:00Z'));
  assert.is(referenceMinute('not-a-reference'), null);
});

references.run();
