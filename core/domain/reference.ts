/**
 * Transaction references: 12 digits of Lagos time (YYYYMMDDHHmm) and 10 random upper-case
 * letters and digits, for example 202611210615A7K2M9QX3B. The shape is what VTpass requires
 * of a request id, so the reference can be sent upstream unchanged and re-queried by it.
 */
import { randomInt } from 'node:crypto';

const ALPHABET = 'ABCDEFGHJKLMNPQRSTUVWXYZ23456789';
const RANDOM_LENGTH = 10;
/** Lagos is UTC+1 all year (no daylight saving). */
const LAGOS_OFFSET_MS = 60 * 60 * 1000;

export function lagosStamp(at: Date): string {
  const t = new Date(at.getTime() + LAGOS_OFFSET_MS);
  const two = (n: number) => String(n).padStart(2, '0');
  return `${t.getUTCFullYear()}${two(t.getUTCMonth() + 1)}${two(t.getUTCDate())}${two(t.getUTCHours())}${two(t.getUTCMinutes())}`;
}

export function newReference(at: Date): string {
  let suffix = '';
  for (let i = 0; i < RANDOM_LENGTH; i += 1) suffix += ALPHABET[randomInt(ALPHABET.length)];
  return lagosStamp(at) + suffix;
}

export const REFERENCE_PATTERN = /^\d{12}[A-Z0-9]{10}$/;
