/**
 * The benchmark's rounds in turn (bench/harness.ts, bench/stats.ts), which the performance
 * targets of docs/performance.md are judged on: each round runs the two sides in the other order, an error
 * fails the run, and the verdict is the median of the rounds.
 */
import * as assert from 'uvu/assert';
import { inTurn, PAIRED_ROUNDS } from '../../bench/harness.js';
import { type Figures, median, percents } from '../../bench/stats.js';
import { suite } from '../helpers/suite.js';

const test = suite('bench: rounds in turn');

const figures = (requestsPerSecond: number, errors = 0): Figures => ({
  requestsPerSecond,
  p50Ms: 1,
  p99Ms: 2,
  errors,
  requests: requestsPerSecond,
});

test('median: the middle value, the mean of the middle two for an even count; none of nothing', () => {
  assert.is(median([3, 1, 2]), 2);
  assert.is(median([0.4, 0.1, 0.3, 0.2]), 0.25);
  assert.is(median([7]), 7);
  assert.throws(() => median([]), /nothing/);
});

test('percents: whole percent, with a sign when asked', () => {
  assert.is(percents([0.444, 0.48]), '44%, 48%');
  assert.is(percents([0.29, -0.031], { signed: true }), '+29%, -3%');
});

test('inTurn: PAIRED_ROUNDS rounds, each in the other order, each round as [a, b]', async () => {
  const order: string[] = [];
  let n = 0;
  const side = (name: string) => async () => {
    order.push(name);
    n += 1;
    return figures(n);
  };
  const rounds = await inTurn('test', side('a'), side('b'));
  assert.is(rounds.length, PAIRED_ROUNDS);
  assert.equal(order.slice(0, 4), ['a', 'b', 'b', 'a']);
  // Round 2 ran b (3rd call) before a (4th): the pair is still [a, b].
  assert.equal(
    rounds[1]!.map((f) => f.requestsPerSecond),
    [4, 3],
  );
});

test('inTurn: an error on either side fails the run, naming the round', async () => {
  let calls = 0;
  const failing = async () => {
    calls += 1;
    return figures(10, calls === 3 ? 1 : 0);
  };
  const outcome = await inTurn('webhooks', failing, async () => figures(10)).then(
    () => 'resolved',
    (error: unknown) => String(error),
  );
  assert.match(outcome, /webhooks, round 3 in turn: errors 1 and 0/);
  assert.is(calls, 3, 'no round after the failed one');
});

test.run();
