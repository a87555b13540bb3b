/**
 * Key-pair authentication through the core's AuthService, with a short positive cache so
 * that a busy partner costs the core one verification every few seconds instead of one per
 * request.
 *
 * The cache key is a SHA-256 of the public key, the secret key and the client IP together:
 * a wrong secret or another IP never matches a cached success, and no secret is kept in
 * memory in the clear. Only successes are cached, for `ttlMs`: a key that is revoked, locked
 * to other IPs or whose account loses API access keeps working from this gateway for at
 * most that long (5 seconds by default); so does a change of its scopes or caps.
 *
 * It also remembers, for a day and hashed, which key pairs it has seen verified ("known
 * good"): the pipeline lets those past the failed-authentication limit of their address, so
 * that strangers guessing from behind the same NAT or proxy cannot lock a working partner out.
 * Knowing a pair is good takes its secret, so nobody can borrow that pass.
 */
import { createHash } from 'node:crypto';
import type { Client } from '@connectrpc/connect';
import { ALL_SCOPE } from '../core/domain/key-controls.js';
import type { Mode } from '../core/domain/mode.js';
import { modeWord } from '../core/domain/words.js';
import type { AuthService } from '../gen/prepaid/v1/auth_pb.js';
import type { Mode as ProtoMode } from '../gen/prepaid/v1/types_pb.js';

/** The account a verified key pair acts for, and in which mode. */
export interface Caller {
  accountId: string;
  tierId: string;
  /** The pair's mode (pk_test_ pairs are test): every core call for this request acts in it. */
  mode: Mode;
  /** The key the rate limit counts against. */
  publicKey: string;
  /** What the key may call (core/domain/key-controls.ts); the pipeline refuses the rest. */
  scopes: readonly string[];
  /** The key has a spend cap: its purchases name it, so that the core's reserve checks the caps. */
  spendCapped: boolean;
}

/** Verifies key pairs; failures are thrown as the core's errors (INVALID_API_KEY, IP_NOT_ALLOWED). */
export interface KeyAuthenticator {
  /** The caller of a pair verified from this address within the cache's time, without asking the core. */
  cached(publicKey: string, secretKey: string, clientIp: string): Caller | undefined;
  /** Whether this pair was verified (from any address) within KNOWN_GOOD_TTL_MS. */
  knownGood(publicKey: string, secretKey: string): boolean;
  /** Whether the core is being asked about this pair from this address right now (authenticate joins that call). */
  inFlight(publicKey: string, secretKey: string, clientIp: string): boolean;
  authenticate(publicKey: string, secretKey: string, clientIp: string): Promise<Caller>;
}

/** How long a verified pair counts as known good; a revoked one is forgotten at its next 401. */
const KNOWN_GOOD_TTL_MS = 24 * 3_600_000;

/**
 * At most this many verified key pairs are remembered. Each entry is about 200 bytes, so the
 * cache stays under a few MB even when it is full of distinct keys and IPs.
 */
const AUTH_CACHE_MAX_ENTRIES = 10_000;

interface CacheEntry {
  caller: Caller;
  expiresAtMs: number;
}

/** Builds an authenticator over the core's AuthService with a positive cache of `ttlMs`. */
export function createKeyAuthenticator(options: {
  auth: Client<typeof AuthService>;
  ttlMs: number;
  maxEntries?: number;
  now?: () => number;
}): KeyAuthenticator {
  const { auth, ttlMs } = options;
  const maxEntries = options.maxEntries ?? AUTH_CACHE_MAX_ENTRIES;
  const now = options.now ?? Date.now;
  // A Map iterates in insertion order, so its first key is the oldest entry.
  const cache = new Map<string, CacheEntry>();
  const good = new Map<string, number>();
  const cacheKeyOf = (publicKey: string, secretKey: string, clientIp: string) =>
    createHash('sha256').update(`${publicKey}\n${secretKey}\n${clientIp}`).digest('base64');
  const pairKeyOf = (publicKey: string, secretKey: string) =>
    createHash('sha256').update(`${publicKey}\n${secretKey}`).digest('base64');

  // Concurrent requests of one pair from one address share one call to the core.
  const inflight = new Map<string, Promise<Caller>>();

  const cached = (cacheKey: string): Caller | undefined => {
    const entry = cache.get(cacheKey);
    if (entry === undefined) return undefined;
    if (entry.expiresAtMs > now()) return entry.caller;
    cache.delete(cacheKey);
    return undefined;
  };

  const verify = async (publicKey: string, secretKey: string, clientIp: string, cacheKey: string): Promise<Caller> => {
    const pairKey = pairKeyOf(publicKey, secretKey);
    let verified: Awaited<ReturnType<typeof auth.verifyKeyPair>>;
    try {
      verified = await auth.verifyKeyPair({ publicKey, secretKey, clientIp });
    } catch (error) {
      // A pair that stopped working (revoked, locked elsewhere) is no longer known good.
      good.delete(pairKey);
      throw error;
    }
    const caller: Caller = {
      accountId: verified.accountId,
      tierId: verified.tierId,
      mode: modeOf(verified.mode),
      publicKey,
      // A core that predates scopes sends none: everything, as before.
      scopes: verified.scopes.length === 0 ? [ALL_SCOPE] : [...verified.scopes],
      spendCapped: verified.spendCapped,
    };
    remember(good, pairKey, now() + KNOWN_GOOD_TTL_MS, maxEntries);
    if (ttlMs > 0) remember(cache, cacheKey, { caller, expiresAtMs: now() + ttlMs }, maxEntries);
    return caller;
  };

  return {
    cached: (publicKey, secretKey, clientIp) => cached(cacheKeyOf(publicKey, secretKey, clientIp)),

    knownGood(publicKey, secretKey) {
      const pairKey = pairKeyOf(publicKey, secretKey);
      const until = good.get(pairKey);
      if (until === undefined) return false;
      if (until > now()) return true;
      good.delete(pairKey);
      return false;
    },

    inFlight: (publicKey, secretKey, clientIp) => inflight.has(cacheKeyOf(publicKey, secretKey, clientIp)),

    authenticate(publicKey, secretKey, clientIp) {
      const cacheKey = cacheKeyOf(publicKey, secretKey, clientIp);
      const hit = cached(cacheKey);
      if (hit !== undefined) return Promise.resolve(hit);
      let call = inflight.get(cacheKey);
      if (call === undefined) {
        call = verify(publicKey, secretKey, clientIp, cacheKey).finally(() => inflight.delete(cacheKey));
        inflight.set(cacheKey, call);
      }
      return call;
    },
  };
}

/** Sets `key` in a bounded map, dropping the oldest entries first. */
function remember<V>(map: Map<string, V>, key: string, value: V, maxEntries: number): void {
  map.delete(key);
  while (map.size >= maxEntries) {
    const oldest = map.keys().next();
    if (oldest.done) break;
    map.delete(oldest.value);
  }
  map.set(key, value);
}

/**
 * The mode the core verified the pair in. Only an explicit test answer is test; a core that
 * predates test mode answers nothing, which is live, as every pair it knows is.
 */
function modeOf(mode: ProtoMode): Mode {
  return modeWord(mode);
}
