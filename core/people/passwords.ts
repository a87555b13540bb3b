/**
 * Password hashing with scrypt (node:crypto), a memory-hard function: N = 2^15, r = 8,
 * p = 1 (32 MiB and roughly 50-100 ms per hash on one core), a 16-byte random salt and a
 * 32-byte key, stored as `scrypt$15$8$1$<salt>$<key>` (base64url) so that the parameters
 * can be raised later and old hashes still verify. Keys are compared in constant time.
 * scrypt runs on libuv's thread pool, so a sign-in does not block the event loop.
 */
import { randomBytes, type ScryptOptions, scrypt, timingSafeEqual } from 'node:crypto';

const SCRYPT_LOG2_N = 15;
const SCRYPT_R = 8;
const SCRYPT_P = 1;
const SALT_BYTES = 16;
const KEY_BYTES = 32;
/** Beyond these a stored hash is refused rather than allowed to make a sign-in cost seconds or gigabytes. */
const MAX_LOG2_N = 20;
const MAX_R = 16;
const MAX_P = 4;

function derive(
  password: string,
  salt: Buffer,
  log2N: number,
  r: number,
  p: number,
  keyBytes: number,
): Promise<Buffer> {
  const N = 2 ** log2N;
  // 128 * N * r bytes are needed; twice that leaves room for the rest.
  const options: ScryptOptions = { N, r, p, maxmem: 256 * N * r + 1024 * 1024 };
  return new Promise((resolve, reject) => {
    scrypt(password.normalize('NFC'), salt, keyBytes, options, (error, key) => (error ? reject(error) : resolve(key)));
  });
}

export async function hashPassword(password: string): Promise<string> {
  const salt = randomBytes(SALT_BYTES);
  const key = await derive(password, salt, SCRYPT_LOG2_N, SCRYPT_R, SCRYPT_P, KEY_BYTES);
  return ['scrypt', SCRYPT_LOG2_N, SCRYPT_R, SCRYPT_P, salt.toString('base64url'), key.toString('base64url')].join('$');
}

/** Whether `password` is the one `stored` was made from. A stored value that does not parse never matches. */
export async function verifyPassword(password: string, stored: string): Promise<boolean> {
  const parts = stored.split('$');
  if (parts.length !== 6 || parts[0] !== 'scrypt') return false;
  const [log2N, r, p] = parts.slice(1, 4).map(Number) as [number, number, number];
  if (
    ![log2N, r, p].every(Number.isInteger) ||
    log2N < 10 ||
    log2N > MAX_LOG2_N ||
    r < 1 ||
    r > MAX_R ||
    p < 1 ||
    p > MAX_P
  )
    return false;
  const salt = Buffer.from(parts[4]!, 'base64url');
  const expected = Buffer.from(parts[5]!, 'base64url');
  if (salt.length === 0 || expected.length < 16) return false;
  const key = await derive(password, salt, log2N, r, p, expected.length);
  return timingSafeEqual(key, expected);
}

/**
 * A hash of a password nobody has, verified against when the email is unknown (or the user
 * disabled), so that the answer takes as long as for a real user and timing does not tell
 * which emails have accounts.
 */
let dummy: Promise<string> | undefined;
export function dummyHash(): Promise<string> {
  dummy ??= hashPassword(randomBytes(16).toString('hex'));
  return dummy;
}
