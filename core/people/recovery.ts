/**
 * Recovery codes: ten single-use codes given once when two-step sign-in is turned on, each
 * usable instead of an authenticator code (at sign-in and for a step-up), so that a lost
 * phone does not lock its owner out. Each is 10 characters of base32 (50 random bits),
 * written "abcde-fghij"; only their SHA-256 is stored, and a candidate is compared with every
 * stored hash in constant time before the store removes the one it matched (atomically, so a
 * code works once).
 */
import { randomBytes, timingSafeEqual } from 'node:crypto';
import { hashSecret } from '../accounts/keys.js';

const RECOVERY_CODE_COUNT = 10;
const ALPHABET = 'abcdefghijklmnopqrstuvwxyz234567';
const CODE_CHARS = 10;

/** Ten fresh codes, as the person will see and type them. */
export function newRecoveryCodes(): string[] {
  return Array.from({ length: RECOVERY_CODE_COUNT }, () => {
    const bytes = randomBytes(CODE_CHARS);
    // 256 is a multiple of 32, so taking each byte modulo 32 favours no character.
    const text = Array.from(bytes, (byte) => ALPHABET[byte % ALPHABET.length]).join('');
    return `${text.slice(0, 5)}-${text.slice(5)}`;
  });
}

/** The stored form of a code, or null when the text cannot be a recovery code at all. */
export function recoveryCodeHash(code: string): string | null {
  const plain = code.toLowerCase().replace(/[\s-]/g, '');
  return plain.length === CODE_CHARS && [...plain].every((c) => ALPHABET.includes(c)) ? hashSecret(plain) : null;
}

/** The stored hash that `candidateHash` equals, compared with each in constant time; null when none. */
export function matchingRecoveryHash(stored: readonly string[], candidateHash: string): string | null {
  const candidate = Buffer.from(candidateHash, 'utf8');
  let found: string | null = null;
  for (const hash of stored) {
    const other = Buffer.from(hash, 'utf8');
    // Every stored hash is compared, whichever matches, so the time says nothing about which.
    if (other.length === candidate.length && timingSafeEqual(other, candidate)) found = hash;
  }
  return found;
}
