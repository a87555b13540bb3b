/**
 * Secrets shown once, held by the dashboard between a POST and the page it redirects to
 * (post/redirect/get): a new key pair is issued by a POST, held here under a random handle
 * bound to the session that made it, and the redirect's page takes it out, so a reload of
 * that page neither shows the secret again nor makes another key. The handle in the address
 * is not the secret and opens nothing for another session; an unclaimed secret is dropped
 * after a few minutes, and the box is bounded.
 *
 * Held in this process's memory: behind several dashboard processes, the load balancer must
 * send a browser back to the same process (sticky sessions), or the page says the key was
 * made and lists it without its secret, which is then revoked and made again.
 */
import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';

/** Long enough for a slow redirect; short enough that a secret does not linger unseen. */
const HOLD_MS = 5 * 60_000;
/** More than any number of people creating keys at the same moment; the oldest go first. */
const MAX_HELD = 1_000;

interface Held<T> {
  sessionHash: Buffer;
  value: T;
  expiresAt: number;
}

export class OnceBox<T> {
  readonly #held = new Map<string, Held<T>>();
  readonly #now: () => number;

  constructor(now: () => number = Date.now) {
    this.#now = now;
  }

  /** Holds a value for one showing to `sessionToken`; returns the handle for the redirect's address. */
  put(sessionToken: string, value: T): string {
    const now = this.#now();
    for (const [handle, held] of this.#held) if (held.expiresAt <= now) this.#held.delete(handle);
    while (this.#held.size >= MAX_HELD) {
      const oldest = this.#held.keys().next().value;
      if (oldest === undefined) break;
      this.#held.delete(oldest);
    }
    const handle = randomBytes(16).toString('base64url');
    this.#held.set(handle, { sessionHash: hashOf(sessionToken), value, expiresAt: now + HOLD_MS });
    return handle;
  }

  /** The value, once, to the session that put it; undefined after that, for anyone else, or once expired. */
  take(sessionToken: string, handle: string): T | undefined {
    const held = this.#held.get(handle);
    if (held === undefined || !timingSafeEqual(held.sessionHash, hashOf(sessionToken))) return undefined;
    this.#held.delete(handle);
    return held.expiresAt > this.#now() ? held.value : undefined;
  }
}

function hashOf(token: string): Buffer {
  return createHash('sha256').update(token).digest();
}

/** The new key pairs waiting for their one showing, for this dashboard process. */
export const newKeyPairs = new OnceBox<{ publicKey: string; secretKey: string }>();
