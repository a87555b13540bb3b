/**
 * Money is integer kobo everywhere inside the platform (100 kobo = 1 Naira). `Kobo` is a
 * safe integer branded by the type system, so that a count, a plan id or a Naira amount
 * cannot be passed where kobo are expected without going through `kobo()` (which checks)
 * or a parser that produces kobo. Every amount the platform handles is bounded far below
 * 2^53, and the bounds below are checked wherever an amount enters. At run time a Kobo is
 * a plain number: JSON, SQLite and the arithmetic operators see no difference.
 */
declare const KOBO: unique symbol;
export type Kobo = number & { readonly [KOBO]: true };

/**
 * An integer number of kobo. Anything else (a fraction, NaN, beyond 2^53) is a bug where it
 * was computed, so it throws rather than round.
 */
export function kobo(value: number): Kobo {
  if (!Number.isSafeInteger(value)) throw new RangeError(`not a whole number of kobo: ${String(value)}`);
  return value as Kobo;
}

/** The same amount with the opposite sign (a debit entry's amount). */
export function negateKobo(amount: Kobo): Kobo {
  return kobo(-amount);
}

/** No money: the balance of a new wallet. */
export const ZERO_KOBO = kobo(0);

export const KOBO_PER_NAIRA = 100;

/**
 * The largest single amount the platform accepts anywhere (a purchase, a credit):
 * 100 million Naira. It keeps every sum of amounts far inside the safe integer range.
 */
export const MAX_AMOUNT_KOBO: Kobo = kobo(100_000_000 * KOBO_PER_NAIRA);

export function isKobo(value: unknown): value is Kobo {
  return typeof value === 'number' && Number.isSafeInteger(value);
}

/** Naira as the public API shows it: a JSON number with at most two decimals. */
export function koboToNaira(kobo: Kobo): number {
  return Math.round(kobo) / KOBO_PER_NAIRA;
}

/** "1,234.50" style text for people (receipts, CLI). */
export function formatNaira(kobo: Kobo): string {
  const sign = kobo < 0 ? '-' : '';
  const abs = Math.abs(kobo);
  const naira = Math.floor(abs / KOBO_PER_NAIRA).toLocaleString('en-NG');
  const rest = String(abs % KOBO_PER_NAIRA).padStart(2, '0');
  return `${sign}${naira}.${rest}`;
}

export type NairaParse = { ok: true; kobo: Kobo } | { ok: false; reason: string };

const NAIRA_TEXT = /^(\d{1,15})(?:\.(\d{1,2}))?$/;

/**
 * Parses a Naira amount as partners send it: a JSON number, or a numeric string ("100",
 * "100.50") because many PHP-era clients send strings. More than two decimals, negative
 * numbers, exponents and anything beyond MAX_AMOUNT_KOBO are refused, never rounded.
 * Parsing goes through the decimal text so that 0.1 + 0.2 style float noise cannot
 * change an amount.
 */
export function parseNaira(value: unknown): NairaParse {
  let text: string;
  if (typeof value === 'number') {
    if (!Number.isFinite(value)) return { ok: false, reason: 'must be a finite number' };
    if (value < 0) return { ok: false, reason: 'must not be negative' };
    // Shortest round-trip text of the double, which is what the client wrote for any
    // amount with at most 15 significant digits.
    text = String(value);
    // Doubles print in exponent form only below 1e-6 or from 1e21 up.
    if (/e-/i.test(text)) return { ok: false, reason: 'must have at most two decimals' };
    if (/e/i.test(text)) return { ok: false, reason: 'is out of range' };
  } else if (typeof value === 'string') {
    text = value.trim();
    if (text.length === 0) return { ok: false, reason: 'must not be empty' };
  } else {
    return { ok: false, reason: 'must be a number in Naira' };
  }
  if (text.startsWith('-')) return { ok: false, reason: 'must not be negative' };
  // One rule for numbers and strings: zeros after the second decimal change nothing, so
  // "100.100" is 100.10 as the number 100.100 is (JSON reads it as 100.1).
  if (/^\d+\.\d{3,}$/.test(text)) text = text.replace(/(\.\d\d\d*?)0+$/, '$1');
  const match = NAIRA_TEXT.exec(text);
  if (!match) {
    if (/^\d+\.\d{3,}$/.test(text)) return { ok: false, reason: 'must have at most two decimals' };
    return { ok: false, reason: 'must be a number in Naira, for example 100 or 100.50' };
  }
  const whole = Number(match[1]);
  const fraction = Number((match[2] ?? '').padEnd(2, '0'));
  const amount = whole * KOBO_PER_NAIRA + fraction;
  if (!Number.isSafeInteger(amount) || amount > MAX_AMOUNT_KOBO) return { ok: false, reason: 'is out of range' };
  return { ok: true, kobo: kobo(amount) };
}
