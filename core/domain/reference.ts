/**
 * Transaction references: 12 digits of Lagos time (YYYYMMDDHHmm), then 10 unambiguous
 * upper-case letters and digits, for example 202611210615A7K2M9QX3B. The shape is what
 * VTpass requires of a request id, so the reference can be sent upstream unchanged and
 * re-queried by it.
 *
 * The 10 characters are 3 that count two-millisecond steps within the minute, then 7
 * random ones. Time-ordered references keep the store's inserts at the end of its
 * reference indexes: with all 10 random, every purchase wrote to a random page of two
 * B-trees, and each commit carried dozens of such pages to disk (the store ceiling went
 * from 10.9k to 15k purchases a second with ordered ones). The random part still makes
 * references unguessable enough to be meaningless to anyone else, and unlikely to meet
 * another process's: two references collide only if they fall in the same two
 * milliseconds and draw the same 35 random bits, which one process never lets happen to
 * itself (see `newReference`). Should two processes ever meet, the store's unique index
 * refuses the second purchase before any money moves.
 */
import { randomChars } from './random.js';

/**
 * 32 characters: no I, O, 0 or 1, since support staff read references aloud. In ASCII
 * order, so that a later time part also sorts later.
 */
const ALPHABET = '23456789ABCDEFGHJKLMNPQRSTUVWXYZ';
/** The step of the time part: 30,000 steps a minute fit in three characters (32^3). */
const STEP_MS = 2;
const TIME_LENGTH = 3;
const RANDOM_LENGTH = 7;
/** Lagos is UTC+1 all year (no daylight saving). */
const LAGOS_OFFSET_MS = 60 * 60 * 1000;

export function lagosStamp(at: Date): string {
  const t = new Date(at.getTime() + LAGOS_OFFSET_MS);
  const two = (n: number) => String(n).padStart(2, '0');
  return `${t.getUTCFullYear()}${two(
    t.getUTCMonth() + 1,
  )}${two(t.getUTCDate())}${two(t.getUTCHours())}${two(t.getUTCMinutes())}`;
}

/** The references this process gave out in the current step, so it never repeats one. */
let currentStep = '';
const givenThisStep = new Set<string>();
/** The last minute's stamp, so most references do not rebuild it. */
let stampMinute = Number.NaN;
let stamp = '';

export function newReference(at: Date): string {
  const ms = at.getTime();
  const minute = Math.floor(ms / 60_000);
  if (minute !== stampMinute) {
    stampMinute = minute;
    stamp = lagosStamp(at);
  }
  const step = Math.floor((ms - minute * 60_000) / STEP_MS);
  let prefix = stamp;
  for (let i = TIME_LENGTH - 1; i >= 0; i -= 1) prefix += ALPHABET[(step >> (5 * i)) & 31];
  if (prefix !== currentStep) {
    currentStep = prefix;
    givenThisStep.clear();
  }
  for (;;) {
    const reference = prefix + randomChars(ALPHABET, RANDOM_LENGTH);
    if (!givenThisStep.has(reference)) {
      givenThisStep.add(reference);
      return reference;
    }
  }
}

export const REFERENCE_PATTERN = /^\d{12}[A-Z0-9]{10}$/;

/** The minute a reference was made (its Lagos stamp read back), or null for a text without one. */
export function referenceMinute(reference: string): Date | null {
  const m = /^(\d{4})(\d{2})(\d{2})(\d{2})(\d{2})/.exec(reference);
  if (m === null) return null;
  const [, y, mo, d, h, mi] = m.map(Number) as [number, number, number, number, number, number];
  const ms = Date.UTC(y, mo - 1, d, h, mi) - LAGOS_OFFSET_MS;
  return Number.isFinite(ms) ? new Date(ms) : null;
}
