/**
 * Fixed-window rate limits on rate-limiter-flexible, behind a small interface so that the
 * in-memory store used by one process can be swapped for a shared store (MongoDB) without
 * touching the pipeline.
 *
 * rate-limiter-flexible rejects with a RateLimiterRes when a key is over its limit and with
 * an Error when its store fails. The two are kept apart: over the limit is a 429, a broken
 * store is logged and the request goes through, because refusing every partner while a
 * counter store is down would turn a small fault into an outage.
 */
import { RateLimiterMemory, RateLimiterRes, type RateLimiterAbstract } from 'rate-limiter-flexible';
import type { GatewayLogger } from './log.js';

/** A named quota per window, as the RateLimit-Policy header announces it. */
export interface RateLimitPolicy {
  /** Policy name in the headers, for example "per-key". */
  name: string;
  /** Requests allowed per window. */
  quota: number;
  /** Window length in seconds. */
  windowSeconds: number;
}

/** What a limiter says about one key right now. */
export type LimitDecision =
  /** Within the quota; `remaining` more are allowed before the window resets. */
  | { kind: 'allowed'; remaining: number; resetSeconds: number }
  /** Over the quota until the window resets. */
  | { kind: 'limited'; resetSeconds: number }
  /** The counter store failed; the request is let through and the failure logged. */
  | { kind: 'unknown' };

/** A quota per key. */
export interface Limiter {
  readonly policy: RateLimitPolicy;
  /** Counts one request for the key and says whether it is within the quota. */
  consume(key: string): Promise<LimitDecision>;
  /** Says whether the key has quota left, without counting anything. */
  peek(key: string): Promise<LimitDecision>;
}

/** Wraps any rate-limiter-flexible limiter whose points and duration match the policy. */
export function createLimiter(policy: RateLimitPolicy, backend: RateLimiterAbstract, log: GatewayLogger): Limiter {
  const storeFailed = (operation: string, error: unknown): LimitDecision => {
    log.error('rate_limit.store_failed', {
      policy: policy.name,
      operation,
      error: error instanceof Error ? error.message : String(error),
    });
    return { kind: 'unknown' };
  };

  return {
    policy,
    async consume(key) {
      try {
        const res = await backend.consume(key);
        return { kind: 'allowed', remaining: res.remainingPoints, resetSeconds: secondsFrom(res.msBeforeNext) };
      } catch (rejection) {
        if (rejection instanceof RateLimiterRes) return { kind: 'limited', resetSeconds: secondsFrom(rejection.msBeforeNext) };
        return storeFailed('consume', rejection);
      }
    },
    async peek(key) {
      try {
        const res = await backend.get(key);
        if (res === null) return { kind: 'allowed', remaining: policy.quota, resetSeconds: policy.windowSeconds };
        const resetSeconds = secondsFrom(res.msBeforeNext);
        if (res.consumedPoints >= policy.quota) return { kind: 'limited', resetSeconds };
        return { kind: 'allowed', remaining: policy.quota - res.consumedPoints, resetSeconds };
      } catch (error) {
        return storeFailed('peek', error);
      }
    },
  };
}

/** A limiter whose counters live in this process's memory. */
export function createMemoryLimiter(policy: RateLimitPolicy, log: GatewayLogger): Limiter {
  const backend = new RateLimiterMemory({
    keyPrefix: policy.name,
    points: policy.quota,
    duration: policy.windowSeconds,
  });
  return createLimiter(policy, backend, log);
}

/**
 * The IETF httpapi rate-limit headers in their structured-field form, for example
 * `RateLimit-Policy: "per-key";q=60;w=60` and `RateLimit: "per-key";r=59;t=60`, plus
 * Retry-After when the key is over its quota. A store failure announces the policy only:
 * there is no honest remaining count to give.
 */
export function rateLimitHeaders(policy: RateLimitPolicy, decision: LimitDecision): Record<string, string> {
  const name = JSON.stringify(policy.name);
  const headers: Record<string, string> = {
    'RateLimit-Policy': `${name};q=${policy.quota};w=${policy.windowSeconds}`,
  };
  if (decision.kind === 'allowed') headers['RateLimit'] = `${name};r=${decision.remaining};t=${decision.resetSeconds}`;
  if (decision.kind === 'limited') {
    headers['RateLimit'] = `${name};r=0;t=${decision.resetSeconds}`;
    headers['Retry-After'] = String(decision.resetSeconds);
  }
  return headers;
}

/** Whole seconds until a window resets, at least 1 so that nobody is told to retry at once. */
function secondsFrom(ms: number): number {
  return Math.max(1, Math.ceil(ms / 1000));
}
