/**
 * The shared per-key limiter's MongoDB side, without a server: the size
 * of a key's document at the largest quota, the approximation past the exact threshold, the
 * refusals answered from memory, and the options every call carries. The limiter against a
 * real replica set is in rate-limit-mongo.test.ts.
 */
import { BSON, type Collection, type Document } from 'mongodb';
import * as assert from 'uvu/assert';
import {
  createSharedSlidingWindowLimiter,
  createSlidingWindowLimiter,
  type SlidingWindowDoc,
  sharedCounting,
  slidingWindowUpdate,
  summaryDecision,
  WINDOW_SUMMARY_PROJECTION,
} from '../../gateway/sliding-window.js';
import {
  counterDecision,
  EXACT_WINDOW_MAX_QUOTA,
  MAX_REMEMBERED_REFUSALS,
  RefusalCache,
  windowCounterUpdate,
} from '../../gateway/sliding-window-counter.js';
import { suite } from '../helpers/suite.js';

/** The largest quota the gateway's configuration accepts (RATE_LIMIT_PER_MINUTE). */
const MAX_CONFIGURED_QUOTA = 1_000_000;
const MONGODB_DOCUMENT_LIMIT = 16 * 1024 * 1024;

const size = suite('shared limiter: document size');

size(
  'at the exact threshold a key document stays under 16 KB; past it the counter is a few numbers whatever the quota',
  () => {
    const at = new Date(Date.UTC(2026, 0, 1));
    const exact: SlidingWindowDoc = {
      _id: `pk_${'x'.repeat(40)}`,
      t: Array.from({ length: EXACT_WINDOW_MAX_QUOTA }, (_, i) => new Date(at.getTime() + i)),
      ok: false,
      now: at,
      expire: at,
    };
    const exactBytes = BSON.calculateObjectSize(exact);
    assert.ok(exactBytes < 16 * 1024, `exact at ${EXACT_WINDOW_MAX_QUOTA}: ${exactBytes} bytes`);
    const counter = {
      _id: exact._id,
      w: at,
      p: MAX_CONFIGURED_QUOTA,
      c: MAX_CONFIGURED_QUOTA,
      ok: false,
      now: at,
      expire: at,
    };
    const counterBytes = BSON.calculateObjectSize(counter);
    assert.ok(counterBytes < 200, `approximate at ${MAX_CONFIGURED_QUOTA}: ${counterBytes} bytes`);
    assert.ok(counterBytes * 1000 < MONGODB_DOCUMENT_LIMIT);
    const policy = (quota: number) => ({ name: 'per-key', quota, windowSeconds: 60 });
    assert.is(sharedCounting(policy(60)).exact, true);
    assert.is(sharedCounting(policy(EXACT_WINDOW_MAX_QUOTA)).exact, true);
    assert.is(sharedCounting(policy(EXACT_WINDOW_MAX_QUOTA + 1)).exact, false);
    assert.is(sharedCounting(policy(MAX_CONFIGURED_QUOTA)).exact, false);
  },
);

size(
  'the exact update returns a summary (count, oldest, verdict), never the list, ' +
    'and takes a time ahead of the server as now',
  () => {
    assert.equal(WINDOW_SUMMARY_PROJECTION, { _id: 0, n: { $size: '$t' }, first: { $first: '$t' }, ok: 1, now: 1 });
    const update = slidingWindowUpdate({ name: 'per-key', quota: 60, windowSeconds: 60 });
    assert.equal(update[0]!['$set'].t.$map.in, { $min: ['$$at', '$$NOW'] });
    const policy = { name: 'per-key', quota: 2, windowSeconds: 60 };
    const at = (ms: number) => new Date(ms);
    assert.equal(summaryDecision(policy, { n: 1, first: at(10_000), ok: true, now: at(10_000) }), {
      kind: 'allowed',
      remaining: 1,
      resetSeconds: 60,
    });
    assert.equal(summaryDecision(policy, { n: 2, first: at(10_000), ok: false, now: at(40_000) }), {
      kind: 'limited',
      resetSeconds: 30,
    });
  },
);

size.run();

const approx = suite('shared limiter: the sliding-window counter past the exact threshold');
const policy = { name: 'per-key', quota: 100_000, windowSeconds: 60 };
const w = new Date(Date.UTC(2026, 0, 1, 12, 0, 0));
const after = (ms: number) => new Date(w.getTime() + ms);

approx('the previous window counts by the part the sliding window still covers', () => {
  // Half-way through: 100,000 last window weigh 50,000; 40,000 here; one more is allowed.
  assert.equal(counterDecision(policy, { w, p: 100_000, c: 40_001, ok: true, now: after(30_000) }), {
    kind: 'allowed',
    remaining: 9_999,
    resetSeconds: 30,
  });
  // 60,000 here: the estimate reaches the quota; refused until the old window weighs 40,000, 6 s on.
  assert.equal(counterDecision(policy, { w, p: 100_000, c: 60_000, ok: false, now: after(30_000) }), {
    kind: 'limited',
    resetSeconds: 6,
  });
  // This window alone full: refused into the next window.
  assert.equal(counterDecision(policy, { w, p: 0, c: 100_000, ok: false, now: after(50_000) }), {
    kind: 'limited',
    resetSeconds: 10,
  });
});

approx(
  'the update is timed by the server, rolls windows over, and holds a start from a ' +
    'clock that ran ahead to the current window',
  () => {
    const update = windowCounterUpdate(policy);
    assert.is(update.length, 3);
    const roll = update[0]!['$set'];
    assert.equal(roll.w.$cond[0], {
      $gte: [{ $ifNull: ['$w', new Date(0)] }, { $subtract: ['$$NOW', { $mod: [{ $toLong: '$$NOW' }, 60_000] }] }],
    });
    assert.equal(update[1]!['$set'].now, '$$NOW');
    assert.equal(update[2]!['$set'].c, { $cond: ['$ok', { $add: ['$c', 1] }, '$c'] });
    assert.equal(update[2]!['$set'].expire, { $add: ['$w', 120_000] });
  },
);

approx.run();

const memory = suite('shared limiter: refusals from memory, bounded calls');

/** A counters collection that answers every update with `answer` and records what it was sent. */
function fakeCounters(answer: Document) {
  const calls: { update: unknown; options: Document }[] = [];
  const collection = {
    async findOneAndUpdate(_filter: Document, update: unknown, options: Document) {
      calls.push({ update, options });
      return answer;
    },
  } as unknown as Collection<SlidingWindowDoc>;
  return { calls, collection };
}

memory('a refused key is answered from memory until its refusal expires, without asking MongoDB', async () => {
  const perKey = { name: 'per-key', quota: 2, windowSeconds: 60 };
  let nowMs = 0;
  const refusals = new RefusalCache(() => nowMs);
  const { calls, collection } = fakeCounters({ n: 2, first: new Date(0), ok: false, now: new Date(50_000) });
  const limiter = createSharedSlidingWindowLimiter(
    perKey,
    collection,
    createSlidingWindowLimiter(perKey),
    () => assert.unreachable('no fallback'),
    1_000,
    refusals,
  );
  assert.equal(await limiter.consume('pk_a'), { kind: 'limited', resetSeconds: 10 });
  assert.is(calls.length, 1);
  nowMs = 4_000;
  assert.equal(await limiter.consume('pk_a'), { kind: 'limited', resetSeconds: 6 });
  assert.equal(await limiter.peek('pk_a'), { kind: 'limited', resetSeconds: 6 });
  assert.is(calls.length, 1, 'the refusal came from memory');
  nowMs = 10_000;
  await limiter.consume('pk_a');
  assert.is(calls.length, 2, 'asked again once the refusal expired');
  // Every call is bounded on the server too, and returns only the summary.
  assert.is(calls[0]!.options['maxTimeMS'], 1_000);
  assert.equal(calls[0]!.options['projection'], WINDOW_SUMMARY_PROJECTION);
  assert.is(calls[0]!.options['upsert'], true);
});

memory('the refusal memory is bounded: expired ones go first, then the oldest', () => {
  let nowMs = 0;
  const cache = new RefusalCache(() => nowMs, 3);
  cache.remember('a', { kind: 'limited', resetSeconds: 1 });
  cache.remember('b', { kind: 'limited', resetSeconds: 60 });
  cache.remember('c', { kind: 'limited', resetSeconds: 60 });
  nowMs = 2_000;
  cache.remember('d', { kind: 'limited', resetSeconds: 60 });
  assert.is(cache.size(), 3);
  assert.is(cache.get('a'), null, 'expired, dropped first');
  cache.remember('e', { kind: 'limited', resetSeconds: 60 });
  assert.is(cache.size(), 3);
  assert.is(cache.get('b'), null, 'the oldest went');
  assert.ok(cache.get('e'));
  cache.remember('f', { kind: 'allowed', remaining: 1, resetSeconds: 1 });
  assert.is(cache.get('f'), null, 'only refusals are remembered');
  assert.ok(MAX_REMEMBERED_REFUSALS >= 10_000);
});

memory.run();
