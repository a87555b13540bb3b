/**
 * Compatible tokens checked through the core's AuthService.VerifyCompatToken, with the same
 * short positive cache as key pairs (auth.ts): the cache key is a SHA-256 of the dialect, the
 * token and the client IP together, so no token is kept in the clear and another address never
 * matches a cached success. A revoked token or key keeps working here for at most `ttlMs`.
 */
import { createHash } from 'node:crypto';
import type { Client } from '@connectrpc/connect';
import { IN_FLIGHT_WORDS, type InFlightWord } from '../../core/domain/compat.js';
import { ALL_SCOPE } from '../../core/domain/key-controls.js';
import { modeWord } from '../../core/domain/words.js';
import type { AuthService } from '../../gen/prepaid/v1/auth_pb.js';
import type { CompatCaller } from './dialect.js';

/** At most this many verified tokens are remembered (about 300 bytes each, plus their aliases). */
const MAX_ENTRIES = 10_000;
/** How long a verified token counts as known good; a revoked one is forgotten at its next refusal. */
const KNOWN_GOOD_TTL_MS = 24 * 3_600_000;

export interface CompatTokenCheck {
  cached(dialect: string, token: string, clientIp: string): CompatCaller | undefined;
  /**
   * Whether this token was verified (from any address) within a day, or is being verified from
   * this address right now: such a check skips the address's failure budget, as a known good or
   * joined key pair does (pipeline.ts), so strangers guessing behind the same NAT cannot lock a
   * working client out, and a burst of one client's first requests is one check.
   */
  passes(dialect: string, token: string, clientIp: string): boolean;
  verify(dialect: string, token: string, clientIp: string): Promise<CompatCaller>;
}

export function createCompatTokenCheck(options: {
  auth: Client<typeof AuthService>;
  ttlMs: number;
  now?: () => number;
}): CompatTokenCheck {
  const { auth, ttlMs } = options;
  const now = options.now ?? Date.now;
  const cache = new Map<string, { caller: CompatCaller; expiresAtMs: number }>();
  const inflight = new Map<string, Promise<CompatCaller>>();
  /** Tokens seen verified, by a hash of dialect and token, until when. */
  const good = new Map<string, number>();
  const goodKeyOf = (dialect: string, token: string) =>
    createHash('sha256').update(`${dialect}\n${token}`).digest('base64');
  const keyOf = (dialect: string, token: string, clientIp: string) =>
    createHash('sha256').update(`${dialect}\n${token}\n${clientIp}`).digest('base64');
  const hit = (cacheKey: string) => {
    const entry = cache.get(cacheKey);
    if (entry === undefined) return undefined;
    if (entry.expiresAtMs > now()) return entry.caller;
    cache.delete(cacheKey);
    return undefined;
  };
  const ask = async (dialect: string, token: string, clientIp: string, cacheKey: string): Promise<CompatCaller> => {
    let verified: Awaited<ReturnType<typeof auth.verifyCompatToken>>;
    try {
      verified = await auth.verifyCompatToken({ dialect, token, clientIp });
    } catch (error) {
      good.delete(goodKeyOf(dialect, token));
      throw error;
    }
    good.delete(goodKeyOf(dialect, token));
    while (good.size >= MAX_ENTRIES) good.delete(good.keys().next().value!);
    good.set(goodKeyOf(dialect, token), now() + KNOWN_GOOD_TTL_MS);
    const key = verified.key;
    if (key === undefined) throw new Error('the core verified a token without its key pair');
    const caller: CompatCaller = {
      accountId: key.accountId,
      tierId: key.tierId,
      mode: modeWord(key.mode),
      publicKey: verified.publicKey,
      scopes: key.scopes.length === 0 ? [ALL_SCOPE] : [...key.scopes],
      spendCapped: key.spendCapped,
      inFlight: (IN_FLIGHT_WORDS as readonly string[]).includes(verified.inFlight)
        ? (verified.inFlight as InFlightWord)
        : 'pending',
      planAliases: new Map(Object.entries(verified.planAliases).map(([alias, planId]) => [alias, Number(planId)])),
    };
    if (ttlMs > 0) {
      cache.delete(cacheKey);
      while (cache.size >= MAX_ENTRIES) cache.delete(cache.keys().next().value!);
      cache.set(cacheKey, { caller, expiresAtMs: now() + ttlMs });
    }
    return caller;
  };
  return {
    cached: (dialect, token, clientIp) => hit(keyOf(dialect, token, clientIp)),
    passes(dialect, token, clientIp) {
      if (inflight.has(keyOf(dialect, token, clientIp))) return true;
      const until = good.get(goodKeyOf(dialect, token));
      return until !== undefined && until > now();
    },
    verify(dialect, token, clientIp) {
      const cacheKey = keyOf(dialect, token, clientIp);
      const found = hit(cacheKey);
      if (found !== undefined) return Promise.resolve(found);
      let call = inflight.get(cacheKey);
      if (call === undefined) {
        call = ask(dialect, token, clientIp, cacheKey).finally(() => inflight.delete(cacheKey));
        inflight.set(cacheKey, call);
      }
      return call;
    },
  };
}
