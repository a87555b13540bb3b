/**
 * Naira amounts as the newer upstreams write them: strings such as "3651.449", "₦239.0",
 * "N200" or "20176.49999999992" (float noise), or plain numbers. Read leniently, to whole
 * kobo rounded down (a balance is never overstated); undefined when it is not an amount.
 */
import { type Kobo, kobo, MAX_AMOUNT_KOBO } from '../domain/money.js';

const NAIRA_TEXT = /^\s*(?:₦|N|NGN)?\s*(\d{1,12})(?:\.(\d+))?\s*$/;

export function nairaTextToKobo(value: unknown): Kobo | undefined {
  const text = typeof value === 'number' && Number.isFinite(value) && value >= 0 ? value.toFixed(6) : value;
  if (typeof text !== 'string') return undefined;
  const m = NAIRA_TEXT.exec(text);
  if (!m) return undefined;
  const fraction = `${m[2] ?? ''}00`.slice(0, 2);
  return kobo(Number(m[1]) * 100 + Number(fraction));
}

/**
 * A cost an upstream states in naira (a string or a number), to the nearest kobo: float noise
 * such as "96.49999999992" is 9650, not 9649. Undefined when it is not an amount, or beyond
 * MAX_AMOUNT_KOBO (no single purchase costs more; such a figure is a misreading).
 */
export function nairaCostToKobo(value: unknown): Kobo | undefined {
  const amount = nearestKobo(value);
  return amount !== undefined && amount <= MAX_AMOUNT_KOBO ? amount : undefined;
}

/**
 * A balance an upstream reports beside one purchase (`balance_before`, `walletbalance`), to the
 * nearest kobo like a cost, so that "20175.49999999992" meets the 2017550 our books expect
 * (reconciliation compares the two); unlike a cost, not bounded by one purchase's limit.
 */
export function nairaBalanceToKobo(value: unknown): Kobo | undefined {
  return nearestKobo(value);
}

function nearestKobo(value: unknown): Kobo | undefined {
  const text = typeof value === 'number' ? String(value) : value;
  if (typeof text !== 'string') return undefined;
  const m = NAIRA_TEXT.exec(text);
  if (!m) return undefined;
  const amount = Math.round(Number(`${m[1]}.${m[2] ?? '0'}`) * 100);
  return Number.isSafeInteger(amount) ? kobo(amount) : undefined;
}
