/**
 * What every limiter of the gateway is to its users (the pipeline, the callbacks, the clock
 * guard): a named policy, a decision per key, and the headers that announce both. The
 * limiters themselves (rate-limit.ts, sliding-window.ts) implement it; nothing here imports
 * them, so the pieces of the limiting code form no import circle.
 */

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
  /** Gives back one request counted for the key (one reserved but not spent). */
  reward(key: string): Promise<void>;
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
