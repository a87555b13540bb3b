/**
 * What keeps the shared per-key limiter's MongoDB document small and its traffic low
 * (sliding-window.ts uses both):
 *
 * - Past EXACT_WINDOW_MAX_QUOTA requests a window, a key is counted by the sliding-window
 *   counter approximation instead of a list of times: the count of the current fixed window
 *   and of the previous one, the previous weighted by how much of it the sliding window still
 *   covers. The document is a few numbers whatever the quota (an exact list at the allowed
 *   maximum of 1,000,000 a minute would be 15.9 MB, 95% of MongoDB's 16 MiB document limit).
 *   The estimate assumes the previous window's requests were spread evenly, so a key can be
 *   allowed or refused a little early or late at a window's edge; below the threshold the
 *   limit stays exact.
 * - A refusal is remembered in this gateway's memory until it expires, so a key over its quota
 *   costs MongoDB nothing until a place frees (refused requests are not counted anyway).
 */
import type { Document } from 'mongodb';
import type { LimitDecision, RateLimitPolicy } from './limiter.js';

/**
 * The largest quota counted exactly: at most this many times in a key's document, about
 * 14 KB of BSON (the unit test measures it). Every real partner quota (60 a minute by
 * default) is far below it.
 */
export const EXACT_WINDOW_MAX_QUOTA = 1_000;

/** Whole seconds until `ms` from now, at least 1 so that nobody is told to retry at once. */
export function secondsFrom(ms: number): number {
  return Math.max(1, Math.ceil(ms / 1000));
}

/** One key's approximate counter, as the update below leaves it. */
export interface WindowCounterDoc {
  _id: string;
  /** The start of the current fixed window (server time). */
  w: Date;
  /** Requests counted in the previous fixed window. */
  p: number;
  /** Requests counted in the current fixed window, this one included when `ok`. */
  c: number;
  ok: boolean;
  now: Date;
  expire: Date;
}

/**
 * The atomic update that counts one request by the approximation, timed by the server's clock
 * ($$NOW). A window start later than now (written by a primary whose clock ran ahead, before
 * a failover) is taken as the current window, so a skewed clock can hold a key back for at
 * most the window it was counted in.
 */
export function windowCounterUpdate(policy: RateLimitPolicy): Document[] {
  const windowMs = policy.windowSeconds * 1000;
  const start = { $subtract: ['$$NOW', { $mod: [{ $toLong: '$$NOW' }, windowMs] }] };
  const sameWindow = { $gte: [{ $ifNull: ['$w', new Date(0)] }, start] };
  const previousWindow = { $eq: ['$w', { $subtract: [start, windowMs] }] };
  const estimate = {
    $add: [
      { $multiply: ['$p', { $divide: [{ $subtract: [windowMs, { $subtract: ['$$NOW', '$w'] }] }, windowMs] }] },
      '$c',
    ],
  };
  return [
    {
      $set: {
        p: { $cond: [sameWindow, { $ifNull: ['$p', 0] }, { $cond: [previousWindow, '$c', 0] }] },
        c: { $cond: [sameWindow, { $ifNull: ['$c', 0] }, 0] },
        w: { $cond: [sameWindow, '$w', start] },
      },
    },
    { $set: { ok: { $lt: [estimate, policy.quota] }, now: '$$NOW' } },
    { $set: { c: { $cond: ['$ok', { $add: ['$c', 1] }, '$c'] }, expire: { $add: ['$w', 2 * windowMs] } } },
  ];
}

/** The decision an approximate counter stands for. */
export function counterDecision(
  policy: RateLimitPolicy,
  doc: Pick<WindowCounterDoc, 'w' | 'p' | 'c' | 'ok' | 'now'>,
): LimitDecision {
  const windowMs = policy.windowSeconds * 1000;
  const elapsed = Math.min(windowMs, Math.max(0, doc.now.getTime() - doc.w.getTime()));
  const estimate = doc.p * ((windowMs - elapsed) / windowMs) + doc.c;
  const untilNextWindow = windowMs - elapsed;
  if (doc.ok)
    return {
      kind: 'allowed',
      remaining: Math.max(0, Math.floor(policy.quota - estimate)),
      resetSeconds: secondsFrom(untilNextWindow),
    };
  // When the estimate falls below the quota: within this window as the previous one's weight
  // shrinks, or, if this window alone is full, once the next window has shrunk this one enough.
  let waitMs: number;
  if (doc.c < policy.quota && doc.p > 0) waitMs = windowMs * (1 - (policy.quota - doc.c) / doc.p) - elapsed;
  else waitMs = untilNextWindow + windowMs * (1 - policy.quota / Math.max(doc.c, policy.quota));
  return { kind: 'limited', resetSeconds: secondsFrom(waitMs) };
}

/** How many refusals a gateway remembers at most; the oldest are forgotten first. */
export const MAX_REMEMBERED_REFUSALS = 100_000;

/**
 * Refusals remembered until they expire, by key. Times are this process's monotonic clock
 * (durations from the server's answer), so the gateway's wall clock does not matter.
 */
export class RefusalCache {
  private readonly until = new Map<string, number>();

  constructor(
    private readonly now: () => number = () => performance.now(),
    private readonly capacity: number = MAX_REMEMBERED_REFUSALS,
  ) {}

  /** The refusal still in force for `key`, if any. */
  get(key: string): LimitDecision | null {
    const until = this.until.get(key);
    if (until === undefined) return null;
    const left = until - this.now();
    if (left <= 0) {
      this.until.delete(key);
      return null;
    }
    return { kind: 'limited', resetSeconds: secondsFrom(left) };
  }

  /** Remembers a refusal for its resetSeconds. */
  remember(key: string, decision: LimitDecision): void {
    if (decision.kind !== 'limited') return;
    if (this.until.size >= this.capacity) {
      const nowMs = this.now();
      for (const [k, until] of this.until) if (until <= nowMs) this.until.delete(k);
      if (this.until.size >= this.capacity) this.until.delete(this.until.keys().next().value!);
    }
    this.until.delete(key);
    this.until.set(key, this.now() + decision.resetSeconds * 1000);
  }

  size(): number {
    return this.until.size;
  }
}
