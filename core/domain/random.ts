/**
 * Random characters for identifiers (purchase references, event ids), drawn from one pool
 * of random bytes refilled a few thousand at a time: a call to the system's generator per
 * identifier cost more than the rest of making it (about 3% of the core's time per purchase
 * when each event id drew its own bytes).
 */
import { randomFillSync } from 'node:crypto';

const pool = Buffer.alloc(4096);
let used = pool.length;

/**
 * `length` characters of `alphabet`, each uniform: the alphabet's size must be a power of
 * two of at most 256, so the low bits of a random byte pick a character without bias.
 */
export function randomChars(alphabet: string, length: number): string {
  const mask = alphabet.length - 1;
  if (alphabet.length > 256 || (alphabet.length & mask) !== 0)
    throw new Error('randomChars needs an alphabet of 2, 4, ... or 256 characters');
  if (length > pool.length) throw new Error(`randomChars gives at most ${pool.length} characters at once`);
  if (used + length > pool.length) {
    randomFillSync(pool);
    used = 0;
  }
  let out = '';
  for (let i = 0; i < length; i += 1) out += alphabet[pool[used + i]! & mask];
  used += length;
  return out;
}
