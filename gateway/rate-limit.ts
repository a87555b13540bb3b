/**
 * The gateway's two limits behind one small interface, so that the in-memory store used by
 * one process and the MongoDB store shared by every gateway (below, when MONGODB_URI is set)
 * are the same to the pipeline: requests per key, an exact sliding window (sliding-window.ts:
 * 60 a minute means 60 in any 60 seconds), and failed authentications per client address, a
 * fixed window on rate-limiter-flexible (a failure budget, where a burst at a window's edge
 * costs nobody anything).
 *
 * rate-limiter-flexible rejects with a RateLimiterRes when a key is over its limit and with
 * an Error when its store fails. The two are kept apart: over the limit is a 429, a broken
 * store is logged and the request goes through, because refusing every partner while a
 * counter store is down would turn a small fault into an outage. (The MongoDB limiters
 * first fall back to counting in memory, so only a failure of both lets requests through.)
 */
import { MongoClient, type MongoClientOptions, ReadConcern, ReadPreference, WriteConcern } from 'mongodb';
import { type RateLimiterAbstract, RateLimiterMemory, RateLimiterMongo, RateLimiterRes } from 'rate-limiter-flexible';
import type { GatewayLogger } from './log.js';
import { createSharedSlidingWindowLimiter, createSlidingWindowLimiter, type SlidingWindowDoc } from './sliding-window.js';

/** A named quota per window, as the RateLimit-Policy header announces it. */
export interface RateLimitPolicy {
  /** Policy name in the headers, for example "per-key". */
  name: string;
  /** Requests allowed per window. */
  quota: number;
  /** Window length in seconds. */
  windowSeconds: number;
}

/** Both gateway limits count per minute, as the spec states its limit. */
export const RATE_LIMIT_WINDOW_SECONDS = 60;

/**
 * The gateway's two policies: requests per key, and failed authentications per client IP.
 * (server.ts builds the same two for its in-memory default.)
 */
export function gatewayPolicies(config: { rateLimitPerMinute: number; authFailuresPerMinute: number }): {
  perKey: RateLimitPolicy;
  authFailures: RateLimitPolicy;
} {
  return {
    perKey: { name: 'per-key', quota: config.rateLimitPerMinute, windowSeconds: RATE_LIMIT_WINDOW_SECONDS },
    authFailures: { name: 'auth-failures', quota: config.authFailuresPerMinute, windowSeconds: RATE_LIMIT_WINDOW_SECONDS },
  };
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
    async reward(key) {
      try {
        await backend.reward(key, 1);
      } catch (error) {
        storeFailed('reward', error);
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

/*
 * Shared counters on MongoDB. With several gateway processes, per-process counters would
 * let a key make 60 requests a minute per process; RateLimiterMongo keeps one counter per
 * key and window in a collection all gateways update (one atomic findOneAndUpdate per
 * request), so the limit holds for the fleet.
 *
 * When MongoDB cannot be reached, rate-limiter-flexible hands the request to the
 * "insurance" limiter: an in-memory one with the same policy, so the limit still holds per
 * process instead of disappearing. Each fallback is reported (at most once a minute per
 * policy), because a fleet quietly counting per process is a fault to look at.
 *
 * The counters need no transaction, so a standalone mongod serves as well as a replica
 * set. A counter write is acknowledged by the primary alone (w: 1): it is on every
 * request's path, and a failover that loses the last few increments only gives a key a
 * few extra requests in one window.
 */

/** The collection of shared counters, in MONGODB_DB next to the core's collections. */
export const SHARED_COUNTERS_COLLECTION = 'rate_limits';
/** The per-key sliding windows (sliding-window.ts), one document per key. */
export const SHARED_WINDOWS_COLLECTION = 'rate_limit_windows';

/**
 * How long a counter update may wait for MongoDB (server selection, connect, reply)
 * before the insurance limiter answers instead. It is added to a request only while
 * MongoDB is unreachable, so it is short.
 */
export const SHARED_COUNTER_TIMEOUT_MS = 1_000;

/** How often the counters' indexes are retried after MongoDB was unreachable at start. */
const INDEX_RETRY_MS = 30_000;

/** At most one "falling back to memory" report per policy per interval. */
const FALLBACK_REPORT_INTERVAL_MS = 60_000;

/** Limiters whose counters live in MongoDB, and the connection behind them. */
export interface SharedLimiters {
  perKey: Limiter;
  authFailures: Limiter;
  /**
   * Settles once the counters' indexes exist (a unique index on the counter key, and a
   * TTL index that removes expired windows). Never rejects: while MongoDB is unreachable
   * the attempt is retried in the background and the insurance limiters count. It also
   * settles on close.
   */
  ready: Promise<void>;
  /** Stops the index retries and closes the connection. */
  close(): Promise<void>;
}

/**
 * Opens the shared counters for the two gateway policies. Nothing here waits for MongoDB:
 * the driver connects on first use, and until it can, the insurance limiters answer.
 */
export function openSharedLimiters(
  mongo: { uri: string; dbName: string },
  policies: { perKey: RateLimitPolicy; authFailures: RateLimitPolicy },
  log: GatewayLogger,
  clientOptions: MongoClientOptions = {},
): SharedLimiters {
  const client = new MongoClient(mongo.uri, {
    appName: 'prepaid-gateway',
    serverSelectionTimeoutMS: SHARED_COUNTER_TIMEOUT_MS,
    connectTimeoutMS: SHARED_COUNTER_TIMEOUT_MS,
    socketTimeoutMS: SHARED_COUNTER_TIMEOUT_MS,
    ...clientOptions,
    readPreference: ReadPreference.primary,
    readConcern: new ReadConcern('local'),
    writeConcern: new WriteConcern(1),
  });
  let closed = false;
  let retry: NodeJS.Timeout | undefined;
  let settleReady = () => {};

  const ready = new Promise<void>((resolve) => {
    settleReady = resolve;
    const attempt = () => {
      if (closed) return resolve();
      const counters = client.db(mongo.dbName).collection(SHARED_COUNTERS_COLLECTION);
      // The same two indexes rate-limiter-flexible would create, made here so that a failure
      // is logged through the gateway's log and retried instead of printed once and forgotten.
      const windows = client.db(mongo.dbName).collection(SHARED_WINDOWS_COLLECTION);
      Promise.all([
        counters.createIndexes([
          { name: 'rate_limits_key', key: { key: 1 }, unique: true },
          { name: 'rate_limits_expire', key: { expire: -1 }, expireAfterSeconds: 0 },
        ]),
        windows.createIndexes([{ name: 'rate_limit_windows_expire', key: { expire: 1 }, expireAfterSeconds: 0 }]),
      ]).then(
        () => resolve(),
        (error: unknown) => {
          if (closed) return resolve();
          log.error('rate_limit.shared_store_setup_failed', { error: errorText(error), retry_in_ms: INDEX_RETRY_MS });
          retry = setTimeout(attempt, INDEX_RETRY_MS);
          retry.unref();
        },
      );
    };
    attempt();
  });

  const limiter = (policy: RateLimitPolicy): Limiter => {
    const options = { keyPrefix: policy.name, points: policy.quota, duration: policy.windowSeconds };
    const backend = new RateLimiterMongo({
      ...options,
      storeClient: client,
      dbName: mongo.dbName,
      tableName: SHARED_COUNTERS_COLLECTION,
      disableIndexesCreation: true,
      // Once a key is over its quota, this gateway answers 429 from memory until the
      // window ends instead of asking MongoDB again: a flood from one key costs the
      // shared store one write per gateway, not one per request.
      inMemoryBlockOnConsumed: policy.quota + 1,
      insuranceLimiter: new ReportingMemoryLimiter(options, fallbackReporter(policy, log)),
    });
    return createLimiter(policy, backend, log);
  };

  const perKeyReport = fallbackReporter(policies.perKey, log);
  const perKey = createSharedSlidingWindowLimiter(
    policies.perKey,
    client.db(mongo.dbName).collection<SlidingWindowDoc>(SHARED_WINDOWS_COLLECTION),
    createSlidingWindowLimiter(policies.perKey),
    perKeyReport,
  );

  return {
    perKey,
    authFailures: limiter(policies.authFailures),
    ready,
    async close() {
      closed = true;
      if (retry !== undefined) clearTimeout(retry);
      settleReady();
      await client.close();
    },
  };
}

/** An in-memory limiter that says each time it is used: it only is when MongoDB failed. */
class ReportingMemoryLimiter extends RateLimiterMemory {
  constructor(
    options: ConstructorParameters<typeof RateLimiterMemory>[0],
    private readonly report: () => void,
  ) {
    super(options);
  }

  override consume(key: string | number, points?: number, options?: { [key: string]: unknown }): Promise<RateLimiterRes> {
    this.report();
    return super.consume(key, points, options);
  }

  override get(key: string | number, options?: { [key: string]: unknown }): Promise<RateLimiterRes | null> {
    this.report();
    return super.get(key, options);
  }
}

/** Logs the first fallback, then at most one line per interval with how many were not logged. */
function fallbackReporter(policy: RateLimitPolicy, log: GatewayLogger): () => void {
  let lastReportMs = Number.NEGATIVE_INFINITY;
  let unreported = 0;
  return () => {
    const now = Date.now();
    if (now - lastReportMs < FALLBACK_REPORT_INTERVAL_MS) {
      unreported += 1;
      return;
    }
    log.error('rate_limit.shared_store_failed', { policy: policy.name, fallback: 'memory', unreported_since_last: unreported });
    lastReportMs = now;
    unreported = 0;
  };
}

function errorText(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
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
