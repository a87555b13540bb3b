/**
 * The bound on how far a gateway's clock may stray from MongoDB's before its shared
 * auth-failure counters stop trusting it.
 *
 * The auth-failure limit is a fixed window on rate-limiter-flexible, which stamps a window's
 * expiry with the gateway's own clock (Date.now() + the window). A gateway whose clock runs
 * ahead by S writes windows that every gateway keeps for S longer, so one skewed gateway
 * could block a client address fleet-wide for as long as its skew. Each gateway therefore
 * compares its clock with the primary's (`hello`'s localTime, halfway through the round
 * trip) at start and every CLOCK_CHECK_INTERVAL_MS; while the difference is proven larger
 * than MAX_CLOCK_SKEW_MS it counts failed authentications in its own memory instead (the
 * limit then holds per process, as when MongoDB is unreachable) and logs why. A window in the
 * shared store is thus never more than MAX_CLOCK_SKEW_MS longer than it should be.
 *
 * The per-key limit needs no such check: it is timed by the server ($$NOW), and a time
 * later than the server's now (from a primary whose clock ran ahead, before a failover) is
 * taken as now, so it holds a key back for at most one window (sliding-window.ts).
 */
import { beyondBound as beyondAny, type ClockSample, clockSample } from '../runtime/clock-skew.js';
import type { Limiter } from './limiter.js';

export { type ClockSample, clockSample };

/** The largest clock difference with MongoDB's primary a gateway may have and still stamp shared windows. */
export const MAX_CLOCK_SKEW_MS = 5_000;

/** How often a gateway compares its clock with the primary's. */
const CLOCK_CHECK_INTERVAL_MS = 60_000;

/** Whether the sample proves a skew beyond MAX_CLOCK_SKEW_MS (a slow round trip proves nothing). */
export function beyondBound(sample: ClockSample, boundMs: number = MAX_CLOCK_SKEW_MS): boolean {
  return beyondAny(sample, boundMs);
}

/** The latest verdict on this gateway's clock, kept up to date in the background. */
export interface ClockWatch {
  skewed(): boolean;
  /** Compares once now; a failed comparison keeps the previous verdict. */
  check(): Promise<void>;
  stop(): void;
}

export function createClockWatch(
  serverTime: () => Promise<Date>,
  onChange: (skewed: boolean, sample: ClockSample) => void,
  now: () => number = Date.now,
  intervalMs: number = CLOCK_CHECK_INTERVAL_MS,
): ClockWatch {
  let skewed = false;
  const check = async () => {
    const sent = now();
    const server = await serverTime().catch(() => null);
    if (server === null) return;
    const sample = clockSample(sent, now(), server.getTime());
    const verdict = beyondBound(sample);
    if (verdict !== skewed) {
      skewed = verdict;
      onChange(skewed, sample);
    }
  };
  const timer = setInterval(() => void check(), intervalMs);
  timer.unref();
  void check();
  return { skewed: () => skewed, check, stop: () => clearInterval(timer) };
}

/** A limiter that uses `shared` while the clock is within the bound, and `local` while it is not. */
export function skewGuarded(shared: Limiter, local: Limiter, watch: Pick<ClockWatch, 'skewed'>): Limiter {
  const pick = () => (watch.skewed() ? local : shared);
  return {
    policy: shared.policy,
    consume: (key) => pick().consume(key),
    peek: (key) => pick().peek(key),
    reward: (key) => pick().reward(key),
  };
}
