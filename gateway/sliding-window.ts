/**
 * The per-key request limit, exact: "60 requests a minute" means at most 60 in ANY 60
 * seconds. A fixed window (what rate-limiter-flexible counts) lets 60 through at the end of
 * one minute and 60 more at the start of the next: 119 within a few seconds. Here each key
 * keeps the times of the requests it was allowed within the last window (at most `quota` of
 * them), and a request is allowed only while fewer than `quota` are younger than the window.
 *
 * The RateLimit headers stay truthful for this rule: `r` is how many more requests the window
 * holds right now, and `t` (and Retry-After when limited) the seconds until the oldest counted
 * request leaves the window and frees a place.
 *
 * Two stores: this process's memory, and (with MONGODB_URI) one document per key updated
 * atomically by an aggregation-pipeline update, timed by the server's own clock ($$NOW) so
 * that gateways with skewed clocks still count one window. A time later than the server's
 * now (counted by a primary whose clock ran ahead, before a failover) is taken as now, so a
 * skewed primary can hold a key back for at most one window. Past EXACT_WINDOW_MAX_QUOTA
 * the shared store counts by an approximation, and refusals are answered from memory until
 * they expire (sliding-window-counter.ts).
 */
import type { Collection, Document } from 'mongodb';
import type { LimitDecision, Limiter, RateLimitPolicy } from './limiter.js';
import {
  counterDecision,
  EXACT_WINDOW_MAX_QUOTA,
  RefusalCache,
  secondsFrom,
  type WindowCounterDoc,
  windowCounterUpdate,
} from './sliding-window-counter.js';

/** The decision for a key with `count` counted times, the oldest `oldestMs`, at `nowMs`. */
function decide(
  policy: RateLimitPolicy,
  count: number,
  oldestMs: number | undefined,
  nowMs: number,
  counted: boolean,
): LimitDecision {
  const windowMs = policy.windowSeconds * 1000;
  const resetSeconds = oldestMs === undefined ? policy.windowSeconds : secondsFrom(oldestMs + windowMs - nowMs);
  if (!counted && count >= policy.quota) return { kind: 'limited', resetSeconds };
  return { kind: 'allowed', remaining: Math.max(0, policy.quota - count), resetSeconds };
}

/**
 * One key's allowed requests within the window, oldest first: `times` from `head` on. The
 * times that leave the window are stepped over and dropped in one go once they are the
 * larger part, instead of shifting the whole list at every request: with a quota of tens of
 * thousands a minute (a big reseller's), shifting cost tens of microseconds per request.
 */
interface KeyLog {
  times: number[];
  head: number;
}

/** Dropped times are cut off the list once there are this many and they are half of it. */
const COMPACT_AFTER = 64;

/** The exact limit in this process's memory. */
export function createSlidingWindowLimiter(
  policy: RateLimitPolicy,
  now: () => number = Date.now,
): Limiter & { keys(): number } {
  const windowMs = policy.windowSeconds * 1000;
  /** Per key, the times of its allowed requests within the window. */
  const logs = new Map<string, KeyLog>();
  let lastSweepMs = now();

  /** The key's log without the times that left the window; a key never counted gets a new, unkept one. */
  const current = (key: string, nowMs: number): KeyLog => {
    const log = logs.get(key);
    if (log === undefined) return { times: [], head: 0 };
    const { times } = log;
    while (log.head < times.length && times[log.head]! <= nowMs - windowMs) log.head += 1;
    if (log.head >= COMPACT_AFTER && log.head * 2 >= times.length) {
      times.splice(0, log.head);
      log.head = 0;
    }
    return log;
  };
  const count = (log: KeyLog) => log.times.length - log.head;
  const decision = (log: KeyLog, nowMs: number, counted: boolean) =>
    decide(policy, count(log), count(log) === 0 ? undefined : log.times[log.head], nowMs, counted);
  // Keys that made no request for a whole window are forgotten, once a window, so memory
  // holds only the keys active in the last minute.
  const sweep = (nowMs: number) => {
    if (nowMs - lastSweepMs < windowMs) return;
    lastSweepMs = nowMs;
    for (const [key, { times, head }] of logs)
      if (times.length === head || times[times.length - 1]! <= nowMs - windowMs) logs.delete(key);
  };

  return {
    policy,
    async consume(key) {
      const nowMs = now();
      sweep(nowMs);
      const log = current(key, nowMs);
      if (count(log) >= policy.quota) return decision(log, nowMs, false);
      log.times.push(nowMs);
      logs.set(key, log);
      return decision(log, nowMs, true);
    },
    async peek(key) {
      const nowMs = now();
      const log = current(key, nowMs);
      return decision(log, nowMs, count(log) < policy.quota);
    },
    async reward(key) {
      // Gives back the most recent place (a request counted but not served, for example).
      const log = logs.get(key);
      if (log !== undefined && count(log) > 0) log.times.pop();
    },
    keys: () => logs.size,
  };
}

/** One key's counter document in the shared collection. */
export interface SlidingWindowDoc {
  _id: string;
  /** Times of the allowed requests within the window, oldest first. */
  t: Date[];
  /** Whether the last update counted its request. */
  ok: boolean;
  /** The server's time of the last update. */
  now: Date;
  /** When the document may be removed (a TTL index): one window after its last request. */
  expire: Date;
}

/**
 * The atomic update that counts one request for a key on MongoDB: drop the times older than
 * the window, count the request if fewer than `quota` remain, and keep the document until a
 * window after its newest time. Exported for its unit test (no MongoDB server runs here).
 */
export function slidingWindowUpdate(policy: RateLimitPolicy): Document[] {
  const windowMs = policy.windowSeconds * 1000;
  const since = { $subtract: ['$$NOW', windowMs] };
  return [
    {
      $set: {
        t: {
          $map: {
            input: { $filter: { input: { $ifNull: ['$t', []] }, as: 'at', cond: { $gt: ['$$at', since] } } },
            as: 'at',
            in: { $min: ['$$at', '$$NOW'] },
          },
        },
      },
    },
    { $set: { ok: { $lt: [{ $size: '$t' }, policy.quota] }, now: '$$NOW' } },
    {
      $set: {
        t: { $cond: ['$ok', { $concatArrays: ['$t', ['$$NOW']] }, '$t'] },
        expire: { $add: ['$$NOW', windowMs] },
      },
    },
  ];
}

/** The decision a counter document stands for, as the update above left it. */
export function decisionOf(policy: RateLimitPolicy, doc: Pick<SlidingWindowDoc, 't' | 'ok' | 'now'>): LimitDecision {
  return decide(policy, doc.t.length, doc.t[0]?.getTime(), doc.now.getTime(), doc.ok);
}

/**
 * What the shared store returns of a key's document: how many times it counts, the oldest, and the verdict, never the
 * list itself.
 */
export interface WindowSummary {
  n: number;
  first: Date | null;
  ok: boolean;
  now: Date;
}

/** The projection that makes the server return a WindowSummary instead of the document. */
export const WINDOW_SUMMARY_PROJECTION = {
  _id: 0,
  n: { $size: '$t' },
  first: { $first: '$t' },
  ok: 1,
  now: 1,
} as const;

/** The decision a summary stands for (as decisionOf, from the count and the oldest time alone). */
export function summaryDecision(policy: RateLimitPolicy, doc: WindowSummary): LimitDecision {
  const windowMs = policy.windowSeconds * 1000;
  const resetSeconds =
    doc.n === 0 || doc.first === null
      ? policy.windowSeconds
      : secondsFrom(doc.first.getTime() + windowMs - doc.now.getTime());
  if (!doc.ok && doc.n >= policy.quota) return { kind: 'limited', resetSeconds };
  return { kind: 'allowed', remaining: Math.max(0, policy.quota - doc.n), resetSeconds };
}

/** How one policy is counted in the shared store: its update, its projection, and how to read the answer. */
export interface SharedCounting {
  exact: boolean;
  update: Document[];
  projection: Document;
  decision(doc: Document): LimitDecision;
}

/** The exact window up to EXACT_WINDOW_MAX_QUOTA, the approximation past it. */
export function sharedCounting(policy: RateLimitPolicy): SharedCounting {
  if (policy.quota <= EXACT_WINDOW_MAX_QUOTA) {
    return {
      exact: true,
      update: slidingWindowUpdate(policy),
      projection: WINDOW_SUMMARY_PROJECTION,
      decision: (doc) => summaryDecision(policy, doc as WindowSummary),
    };
  }
  return {
    exact: false,
    update: windowCounterUpdate(policy),
    projection: { _id: 0, w: 1, p: 1, c: 1, ok: 1, now: 1 },
    decision: (doc) => counterDecision(policy, doc as WindowCounterDoc),
  };
}

/** The shared store did not answer a counter operation within its deadline. */
export class CounterDeadlineError extends Error {
  constructor(readonly deadlineMs: number) {
    super(`the shared counter store did not answer within ${deadlineMs} ms`);
    this.name = 'CounterDeadlineError';
  }
}

/**
 * The operation's result, or a CounterDeadlineError once `deadlineMs` has passed, whichever
 * comes first. The driver's own timeouts do not bound one call as a whole (a stalled server
 * can hold a reply until the socket timeout, a full pool queues, and `timeoutMS` does
 * nothing in driver 7), so each counter call is bounded here. An operation that answers
 * after its deadline is ignored; at worst it counts a request the insurance counted too,
 * which errs on the strict side.
 */
export function withinDeadline<T>(operation: Promise<T>, deadlineMs: number): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const deadline = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new CounterDeadlineError(deadlineMs)), deadlineMs);
  });
  // A late rejection of the abandoned operation must not become an unhandled rejection.
  operation.catch(() => undefined);
  return Promise.race([operation, deadline]).finally(() => clearTimeout(timer));
}

/**
 * The limit shared by every gateway through one collection. A failing MongoDB, or one that
 * does not answer within `deadlineMs`, hands the request to `insurance`, an in-memory limiter
 * with the same policy, and `onFallback` is told; the limit then holds per process. Each call
 * also carries maxTimeMS, so the server gives up on it when this gateway has.
 */
export function createSharedSlidingWindowLimiter(
  policy: RateLimitPolicy,
  counters: Collection<SlidingWindowDoc>,
  insurance: Limiter,
  onFallback: (error: unknown) => void,
  deadlineMs: number,
  refusals: RefusalCache = new RefusalCache(),
): Limiter {
  const counting = sharedCounting(policy);
  const raw = counters as unknown as Collection<{ _id: string; [field: string]: unknown }>;
  return {
    policy,
    async consume(key) {
      const remembered = refusals.get(key);
      if (remembered !== null) return remembered;
      try {
        const doc = await withinDeadline(
          raw.findOneAndUpdate({ _id: key }, counting.update, {
            upsert: true,
            returnDocument: 'after',
            projection: counting.projection,
            maxTimeMS: deadlineMs,
          }),
          deadlineMs,
        );
        if (doc === null) throw new Error('the counter update returned no document');
        const decision = counting.decision(doc);
        refusals.remember(key, decision);
        return decision;
      } catch (error) {
        onFallback(error);
        return insurance.consume(key);
      }
    },
    async peek(key) {
      const remembered = refusals.get(key);
      if (remembered !== null) return remembered;
      try {
        const [doc] = await withinDeadline(
          raw
            .aggregate([{ $match: { _id: key } }, ...counting.update.slice(0, 2), { $project: counting.projection }], {
              maxTimeMS: deadlineMs,
            })
            .toArray(),
          deadlineMs,
        );
        if (doc === undefined) return { kind: 'allowed', remaining: policy.quota, resetSeconds: policy.windowSeconds };
        return counting.decision(doc);
      } catch (error) {
        onFallback(error);
        return insurance.peek(key);
      }
    },
    async reward(key) {
      try {
        // Gives back the most recent place: the newest time, or one of the current window's count.
        const giveBack: Document = counting.exact ? { $pop: { t: 1 } } : { $inc: { c: -1 } };
        await withinDeadline(
          raw.updateOne(counting.exact ? { _id: key } : { _id: key, c: { $gt: 0 } }, giveBack, {
            maxTimeMS: deadlineMs,
          }),
          deadlineMs,
        );
      } catch (error) {
        onFallback(error);
        await insurance.reward(key);
      }
    },
  };
}
