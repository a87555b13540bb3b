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
 *
 * What a stalled MongoDB costs, chosen on purpose: each shared counter call is bounded to
 * SHARED_COUNTER_TIMEOUT_MS. When the bound is hit the request is counted in this gateway's
 * memory instead, as for any other MongoDB failure: the limit then holds per process,
 * neither open (everything through) nor closed (every partner refused while a counter
 * store is down). Only if the in-memory count failed too would the request go through.
 */
import {
  type Collection,
  type IndexDescription,
  MongoClient,
  type MongoClientOptions,
  ReadConcern,
  ReadPreference,
  WriteConcern,
} from 'mongodb';
import {
  type RateLimiterAbstract,
  RateLimiterMemory,
  RateLimiterMongo,
  RateLimiterRes,
  RLWrapperTimeouts,
} from 'rate-limiter-flexible';
import { helloTime } from '../runtime/clock-skew.js';
import { createClockWatch, skewGuarded } from './clock-skew.js';
import type { LimitDecision, Limiter, RateLimitPolicy } from './limiter.js';
import type { GatewayLogger } from './log.js';
import {
  createSharedSlidingWindowLimiter,
  createSlidingWindowLimiter,
  type SlidingWindowDoc,
  withinDeadline,
} from './sliding-window.js';

/** Both gateway limits count per minute, as the spec states its limit. */
const RATE_LIMIT_WINDOW_SECONDS = 60;

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
    authFailures: {
      name: 'auth-failures',
      quota: config.authFailuresPerMinute,
      windowSeconds: RATE_LIMIT_WINDOW_SECONDS,
    },
  };
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
        if (rejection instanceof RateLimiterRes)
          return { kind: 'limited', resetSeconds: secondsFrom(rejection.msBeforeNext) };
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
 * How long one counter call may wait for MongoDB, all included (server selection, a
 * connection from the pool, the reply), before the insurance limiter answers instead. It
 * is added to a request only while MongoDB is unreachable or stalled, so it is short.
 * Each call is bounded by a timer of its own (RLWrapperTimeouts, `withinDeadline`): the
 * driver's timeouts bound the parts, not the whole call.
 */
const SHARED_COUNTER_TIMEOUT_MS = 1_000;

/**
 * The connection timeout is also the driver's heartbeat timeout: at one second, a primary
 * slow to answer a heartbeat would be marked unknown and its pool cleared. Calls are bounded
 * by SHARED_COUNTER_TIMEOUT_MS anyway, so connecting (and a reply on an open socket) may
 * take longer before the driver gives the connection up.
 */
const SHARED_CONNECT_TIMEOUT_MS = 5_000;

/** How often the counters' indexes are retried after MongoDB was unreachable at start. */
const INDEX_RETRY_MS = 30_000;

/**
 * The counters' indexes, by collection: a unique index on the counter key, and TTL indexes
 * that remove expired windows. rate-limiter-flexible would create the first two itself, under
 * its default names (`key_1`, `expire_-1`); a database where it did (an older gateway, or
 * one started with its index creation on) already has them under those names.
 */
export const SHARED_INDEXES: Readonly<Record<string, readonly IndexDescription[]>> = {
  [SHARED_COUNTERS_COLLECTION]: [
    { name: 'rate_limits_key', key: { key: 1 }, unique: true },
    { name: 'rate_limits_expire', key: { expire: -1 }, expireAfterSeconds: 0 },
  ],
  [SHARED_WINDOWS_COLLECTION]: [{ name: 'rate_limit_windows_expire', key: { expire: 1 }, expireAfterSeconds: 0 }],
};

/**
 * Server codes for an index that exists already under another name or with other options:
 * IndexOptionsConflict (85: same keys, another name or options) and IndexKeySpecsConflict
 * (86: same name, other keys).
 */
const INDEX_CLASH_CODES: ReadonlySet<number> = new Set([85, 86]);

/** Whether creating an index failed because one like it exists (see INDEX_CLASH_CODES). */
export function isIndexClash(error: unknown): boolean {
  const code =
    typeof error === 'object' && error !== null && 'code' in error ? (error as { code: unknown }).code : undefined;
  return typeof code === 'number' && INDEX_CLASH_CODES.has(code);
}

/** An index as listIndexes describes it; only what decides equivalence is read. */
export interface ExistingIndex {
  name?: string;
  key: Record<string, unknown>;
  unique?: boolean;
  expireAfterSeconds?: number;
  partialFilterExpression?: Record<string, unknown>;
}

/**
 * Whether an existing index does the job of a wanted one, whatever its name: the same keys
 * in the same order and directions, unique alike, the same TTL and the same partial filter.
 * An index with the same keys but, say, no unique constraint does not: that clash is a real
 * fault, and stays one.
 */
function isEquivalentIndex(wanted: IndexDescription, existing: ExistingIndex): boolean {
  const keys = (key: unknown) =>
    JSON.stringify(
      Object.entries((key ?? {}) as Record<string, unknown>).map(([field, direction]) => [field, Number(direction)]),
    );
  return (
    keys(wanted.key) === keys(existing.key) &&
    (wanted.unique ?? false) === (existing.unique ?? false) &&
    wanted.expireAfterSeconds === existing.expireAfterSeconds &&
    JSON.stringify(wanted.partialFilterExpression ?? null) === JSON.stringify(existing.partialFilterExpression ?? null)
  );
}

/** The wanted indexes that no existing index does the job of, so still to be created. */
export function indexesToCreate(
  wanted: readonly IndexDescription[],
  existing: readonly ExistingIndex[],
): IndexDescription[] {
  return wanted.filter((index) => !existing.some((found) => isEquivalentIndex(index, found)));
}

/**
 * Creates the wanted indexes. When the server answers that one like them exists (under
 * rate-limiter-flexible's default name, say), the existing indexes are read and every
 * equivalent one counts as created: only the rest are created again, and a clash with an
 * index that is not equivalent is still an error.
 */
async function ensureIndexes(collection: Collection, wanted: readonly IndexDescription[]): Promise<void> {
  try {
    await collection.createIndexes([...wanted]);
  } catch (error) {
    if (!isIndexClash(error)) throw error;
    const missing = indexesToCreate(wanted, (await collection.listIndexes().toArray()) as ExistingIndex[]);
    if (missing.length > 0) await collection.createIndexes(missing);
  }
}

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
  deadlineMs: number = SHARED_COUNTER_TIMEOUT_MS,
): SharedLimiters {
  const client = new MongoClient(mongo.uri, {
    appName: 'prepaid-gateway',
    // Calls that cannot reach a server, or wait for a pooled connection, give up as soon as
    // the call's own bound does, instead of queueing behind it (the driver waits 30 s for a
    // server and forever for a connection by default).
    serverSelectionTimeoutMS: SHARED_COUNTER_TIMEOUT_MS,
    waitQueueTimeoutMS: SHARED_COUNTER_TIMEOUT_MS,
    connectTimeoutMS: SHARED_CONNECT_TIMEOUT_MS,
    socketTimeoutMS: SHARED_CONNECT_TIMEOUT_MS,
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
      // The same two indexes rate-limiter-flexible would create, made here so that a failure
      // is logged through the gateway's log and retried instead of printed once and forgotten.
      const db = client.db(mongo.dbName);
      Promise.all(
        Object.entries(SHARED_INDEXES).map(([collection, wanted]) => ensureIndexes(db.collection(collection), wanted)),
      ).then(
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
    const counters = new RateLimiterMongo({
      ...options,
      storeClient: client,
      dbName: mongo.dbName,
      tableName: SHARED_COUNTERS_COLLECTION,
      disableIndexesCreation: true,
      // Once a key is over its quota, this gateway answers 429 from memory until the
      // window ends instead of asking MongoDB again: a flood from one key costs the
      // shared store one write per gateway, not one per request.
      inMemoryBlockOnConsumed: policy.quota + 1,
    });
    const insurance = new ReportingMemoryLimiter(options, fallbackReporter(policy, log));
    return createLimiter(policy, boundedCounters(counters, insurance, deadlineMs), log);
  };

  const perKeyReport = fallbackReporter(policies.perKey, log);
  const perKey = createSharedSlidingWindowLimiter(
    policies.perKey,
    client.db(mongo.dbName).collection<SlidingWindowDoc>(SHARED_WINDOWS_COLLECTION),
    createSlidingWindowLimiter(policies.perKey),
    perKeyReport,
    deadlineMs,
  );

  // Failed authentications are stamped with this gateway's clock: counted in memory while it
  // is proven too far from the primary's (clock-skew.ts).
  const clock = createClockWatch(
    async () => {
      return helloTime(await withinDeadline(client.db('admin').command({ hello: 1 }), deadlineMs));
    },
    (skewed, sample) => {
      const fields = {
        policy: policies.authFailures.name,
        offset_ms: Math.round(sample.offsetMs),
        uncertainty_ms: Math.round(sample.uncertaintyMs),
      };
      if (skewed)
        log.error('rate_limit.clock_skewed', {
          ...fields,
          detail: 'counting failed authentications in this gateway only',
        });
      else log.info('rate_limit.clock_within_bound', fields);
    },
  );
  const authFailures = skewGuarded(
    limiter(policies.authFailures),
    createMemoryLimiter(policies.authFailures, log),
    clock,
  );

  return {
    perKey,
    authFailures,
    ready,
    async close() {
      clock.stop();
      closed = true;
      if (retry !== undefined) clearTimeout(retry);
      settleReady();
      await client.close();
    },
  };
}

/**
 * A store-backed limiter whose every call is bounded to `deadlineMs`; past it, or on any
 * store error, `insurance` answers (the inner limiter has no insurance of its own, so a
 * call that times out and later fails is not counted in memory twice). Over-the-limit
 * rejections (RateLimiterRes) pass through untouched.
 */
export function boundedCounters(
  counters: RateLimiterAbstract,
  insurance: RateLimiterAbstract,
  deadlineMs: number,
): RateLimiterAbstract {
  return new RLWrapperTimeouts({ limiter: counters, timeoutMs: deadlineMs, insuranceLimiter: insurance });
}

/** An in-memory limiter that says each time it is used: it only is when MongoDB failed. */
class ReportingMemoryLimiter extends RateLimiterMemory {
  constructor(
    options: ConstructorParameters<typeof RateLimiterMemory>[0],
    private readonly report: () => void,
  ) {
    super(options);
  }

  override consume(
    key: string | number,
    points?: number,
    options?: { [key: string]: unknown },
  ): Promise<RateLimiterRes> {
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
    log.error('rate_limit.shared_store_failed', {
      policy: policy.name,
      fallback: 'memory',
      unreported_since_last: unreported,
    });
    lastReportMs = now;
    unreported = 0;
  };
}

function errorText(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

/** Whole seconds until a window resets, at least 1 so that nobody is told to retry at once. */
function secondsFrom(ms: number): number {
  return Math.max(1, Math.ceil(ms / 1000));
}
