/**
 * Naira amounts as the newer upstreams write them: strings such as "3651.449", "₦239.0",
 * "N200" or "20176.49999999992" (float noise), or plain numbers. Read leniently, to whole
 * kobo rounded down (a balance is never overstated); undefined when it is not an amount.
 */
import { type Kobo, kobo } from '../domain/money.js';

const NAIRA_TEXT = /^\s*(?:₦|N|NGN)?\s*(\d{1,12})(?:\.(\d+))?\s*$/;

export function nairaTextToKobo(value: unknown): Kobo | undefined {
  const text = typeof value === 'number' && Number.isFinite(value) && value >= 0 ? value.toFixed(6) : value;
  if (typeof text !== 'string') return undefined;
  const m = NAIRA_TEXT.exec(text);
  if (!m) return undefined;
  const fraction = `${m[2] ?? ''}00`.slice(0, 2);
  return kobo(Number(m[1]) * 100 + Number(fraction));
}
