/**
 * Key-pair authentication through the core's AuthService, with a short positive cache so
 * that a busy partner costs the core one verification every few seconds instead of one per
 * request.
 *
 * The cache key is a SHA-256 of the public key, the secret key and the client IP together:
 * a wrong secret or another IP never matches a cached success, and no secret is kept in
 * memory in the clear. Only successes are cached, for `ttlMs`: a key that is revoked, locked
 * to other IPs or whose account loses API access keeps working from this gateway for at
 * most that long (5 seconds by default).
 */
import { createHash } from 'node:crypto';
import type { Client } from '@connectrpc/connect';
import type { AuthService } from '../gen/prepaid/v1/auth_pb.js';

/** The account a verified key pair acts for. */
export interface Caller {
  accountId: string;
  tierId: string;
  /** The key the rate limit counts against. */
  publicKey: string;
}

/** Verifies key pairs; failures are thrown as the core's errors (INVALID_API_KEY, IP_NOT_ALLOWED). */
export interface KeyAuthenticator {
  authenticate(publicKey: string, secretKey: string, clientIp: string): Promise<Caller>;
}

/**
 * At most this many verified key pairs are remembered. Each entry is about 200 bytes, so the
 * cache stays under a few MB even when it is full of distinct keys and IPs.
 */
export const AUTH_CACHE_MAX_ENTRIES = 10_000;

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

  return {
    async authenticate(publicKey, secretKey, clientIp) {
      const cacheKey = createHash('sha256').update(`${publicKey}\n${secretKey}\n${clientIp}`).digest('base64');
      const cached = cache.get(cacheKey);
      if (cached !== undefined) {
        if (cached.expiresAtMs > now()) return cached.caller;
        cache.delete(cacheKey);
      }

      const verified = await auth.verifyKeyPair({ publicKey, secretKey, clientIp });
      const caller: Caller = { accountId: verified.accountId, tierId: verified.tierId, publicKey };
      if (ttlMs > 0) {
        while (cache.size >= maxEntries) {
          const oldest = cache.keys().next();
          if (oldest.done) break;
          cache.delete(oldest.value);
        }
        cache.set(cacheKey, { caller, expiresAtMs: now() + ttlMs });
      }
      return caller;
    },
  };
}
