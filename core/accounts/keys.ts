/**
 * API key pairs (the contract, 5, in docs/specification.md; docs/security.md). The public key names the pair; the
 * secret is 32 random bytes shown once and stored only as its SHA-256. Comparisons run in
 * constant time so that response timing reveals nothing about a secret.
 */
import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';
import { isIP } from 'node:net';
import type { Mode } from '../domain/mode.js';

export const PUBLIC_KEY_PREFIX = 'pk_';
export const SECRET_KEY_PREFIX = 'sk_';
/**
 * What a test pair's keys start with (pk_test_, sk_test_), so that a person reading a key in
 * a config file or a log knows it cannot move real money. Live keys keep the specification's
 * pk_ and sk_ shape. The stored mode, not the prefix, is what the key-pair check trusts.
 */
const KEY_PREFIXES: Readonly<Record<Mode, { public: string; secret: string }>> = {
  live: { public: PUBLIC_KEY_PREFIX, secret: SECRET_KEY_PREFIX },
  test: { public: `${PUBLIC_KEY_PREFIX}test_`, secret: `${SECRET_KEY_PREFIX}test_` },
};
/** pk_ + 24 hex characters (12 random bytes): unique, short enough to read over the phone. */
const PUBLIC_RANDOM_BYTES = 12;
/** sk_ + 32 random bytes in base64url (43 characters): 256 bits, beyond guessing. */
const SECRET_RANDOM_BYTES = 32;
/** Longest key accepted before any lookup, so a huge header costs nothing. */
export const MAX_KEY_LENGTH = 128;

export interface GeneratedKeyPair {
  publicKey: string;
  secretKey: string;
  secretHash: string;
}

export function hashSecret(secret: string): string {
  return createHash('sha256').update(secret, 'utf8').digest('hex');
}

export function generateKeyPair(mode: Mode = 'live'): GeneratedKeyPair {
  const prefixes = KEY_PREFIXES[mode];
  const publicKey = prefixes.public + randomBytes(PUBLIC_RANDOM_BYTES).toString('hex');
  const secretKey = prefixes.secret + randomBytes(SECRET_RANDOM_BYTES).toString('base64url');
  return { publicKey, secretKey, secretHash: hashSecret(secretKey) };
}

/** Constant-time comparison of two hex SHA-256 digests. */
export function sameHash(aHex: string, bHex: string): boolean {
  const a = Buffer.from(aHex, 'hex');
  const b = Buffer.from(bHex, 'hex');
  return a.length === b.length && a.length > 0 && timingSafeEqual(a, b);
}

/** A hash no secret has, compared against when the public key is unknown so timing stays the same. */
export const DUMMY_SECRET_HASH = hashSecret('no key has this secret');

/**
 * One spelling per address, so that a lock and a socket address compare equal however they
 * were written: IPv6 in its canonical compressed lower-case form (2001:0db8::0001 is
 * 2001:db8::1), and IPv4-mapped IPv6 (::ffff:1.2.3.4, which the URL parser spells
 * ::ffff:102:304) as the plain IPv4 address it is. Anything that is not an IP is returned
 * trimmed, for the caller's validation to refuse.
 */
export function normalizeIp(ip: string): string {
  const trimmed = ip.trim();
  if (isIP(trimmed) !== 6) return trimmed;
  let canonical: string;
  try {
    canonical = new URL(`http://[${trimmed}]`).hostname.slice(1, -1);
  } catch {
    return trimmed.toLowerCase();
  }
  const mapped = /^::ffff:([0-9a-f]{1,4}):([0-9a-f]{1,4})$/.exec(canonical);
  if (!mapped) return canonical;
  const high = parseInt(mapped[1]!, 16);
  const low = parseInt(mapped[2]!, 16);
  return `${high >> 8}.${high & 255}.${low >> 8}.${low & 255}`;
}
