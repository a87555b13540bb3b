/** The public views' own formatting: times as Date.prototype.toISOString writes them. */
import * as assert from 'uvu/assert';
import { isoString } from '../../gateway/actions/views.js';
import { suite } from '../helpers/suite.js';

const test = suite('gateway: views');

test('times are written exactly as toISOString writes them, across days, years and the edges of its range', () => {
  const day = 86_400_000;
  const samples = [
    0,
    1,
    999,
    1000,
    day - 1,
    day,
    Date.UTC(2026, 10, 24, 14, 5, 9, 7),
    Date.UTC(2024, 1, 29, 23, 59, 59, 999),
    Date.UTC(9999, 11, 31, 23, 59, 59, 999),
  ];
  // Beyond years 0 to 9999 (and before 1970) the fast path steps aside for the Date's own form.
  samples.push(-1, -day, Date.UTC(10_000, 0, 1), 8.64e15);
  let at = Date.UTC(2026, 0, 1);
  for (let i = 0; i < 2000; i += 1) {
    at += 1 + ((i * 7_919_317) % (3 * day));
    samples.push(at);
  }
  for (const ms of samples) assert.is(isoString(ms), new Date(ms).toISOString(), String(ms));
});

test.run();
