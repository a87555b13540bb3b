/**
 * The slow-upstream scenario's p99 by slice of its window (bench/stats.ts `sliceP99s`): each
 * answer counts in the slice it arrived in, slices without answers say 0, and answers outside
 * the window count nowhere.
 */
import * as assert from 'uvu/assert';
import { sliceP99s } from '../../bench/stats.js';
import { suite } from '../helpers/suite.js';

const test = suite('bench: p99 by slice of a window');

test('each answer counts in the slice it arrived in', () => {
  const answers = [
    // Before the window (it opens at 1,000 ms): counted nowhere.
    { atMs: 999, latencyMs: 9_999 },
    // The first slice [1000, 3000): a hundred answers, the slowest 3,100 ms.
    ...Array.from({ length: 100 }, (_, i) => ({ atMs: 1_000 + i, latencyMs: i === 99 ? 3_100 : 2_000 + i })),
    // The third slice [5000, 7000): one answer.
    { atMs: 6_500, latencyMs: 2_050 },
    // After the window's three slices: counted nowhere.
    { atMs: 7_000, latencyMs: 9_999 },
  ];
  assert.equal(sliceP99s(answers, 1_000, 2_000, 3), [3_100, 0, 2_050]);
});

test('the p99 of a slice is its 99th percentile, not its maximum', () => {
  const answers = Array.from({ length: 200 }, (_, i) => ({ atMs: i, latencyMs: i + 1 }));
  assert.equal(sliceP99s(answers, 0, 1_000, 1), [199]);
});

test.run();
