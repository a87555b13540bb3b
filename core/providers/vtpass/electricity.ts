/**
 * Electricity results from VTpass. Discos answer in two shapes (VTpass's documentation): most send
 * `token` and `units` (and `purchased_code` reading "Token : 4216 1234 ..."); Eko (EKEDC)
 * sends `mainToken` and `mainTokenUnits`. Both become our `token` (20 digits shown
 * 4-4-4-4-4) and `units` ("<n> kWh"). Fields may sit at the top of the answer or inside
 * `content`. A token that cannot be read exactly is left out rather than guessed, and a
 * prepaid vend left without one stays pending (goodsMissing, core/domain/products.ts).
 *
 * Key-change tokens come as `kct1` and `kct2` (VTpass's documentation). VTpass's documentation does not say how their
 * values are written (unsure): they are read like the main token, as a string of 20 digits
 * in any grouping. Bonus (free basic electricity) tokens come as Eko's `bonusToken`, or in
 * `purchased_code` after "Bonus Token :" (VTpass's documentation); the same token seen in both places is
 * kept once.
 */
import type { DeliveryResult } from '../../domain/products.js';
import { asObject } from './codes.js';

/** An STS token (IEC 62055-41) has 20 digits. */
const TOKEN_DIGITS = 20;
/** Longest text looked at for a token or units; real ones are a few dozen characters. */
const MAX_FIELD_LENGTH = 500;
/** Units as a decimal number, at most 7 digits and 3 decimals (0.1 kWh is the real resolution). */
const UNITS_NUMBER = /(\d{1,7}(?:\.\d{1,3})?)/;

/** Where a token may be, most specific first. */
const TOKEN_FIELDS = ['mainToken', 'token', 'Token', 'purchased_code'] as const;
/** Where units may be, most specific first. */
const UNITS_FIELDS = ['mainTokenUnits', 'units', 'Units'] as const;
/** The key-change token fields, in the order a meter takes them (VTpass's documentation: `kct1`/`kct2`). */
const KCT_FIELDS = ['kct1', 'kct2'] as const;
/** Where a bonus token may be on its own (VTpass's documentation: Eko's `bonusToken`). */
const BONUS_FIELDS = ['bonusToken'] as const;
/** "Bonus Token : 1111 2222 ..." inside purchased_code: the digits, spaces and dashes after the label. */
const BONUS_IN_TEXT = /bonus\s*token\s*:?\s*([0-9][0-9 -]*[0-9])/gi;
/** A vend carries at most a handful of extra tokens; more is not a real answer. */
const MAX_EXTRA_TOKENS = 4;

/** What a delivered electricity payment shows the customer. */
export type ElectricityFields = Pick<DeliveryResult, 'token' | 'units' | 'kctTokens' | 'bonusTokens'>;

/**
 * The token and units of a delivered electricity payment. A postpaid payment settles a bill
 * and has neither, whatever the answer carries.
 */
export function electricityResult(body: Record<string, unknown>, meterType: string | undefined): ElectricityFields {
  if (meterType === 'postpaid') return {};
  const places = [body, asObject(body['content'])].filter((o): o is Record<string, unknown> => o !== undefined);
  const result: ElectricityFields = {};
  const token = firstOf(places, TOKEN_FIELDS, stsToken);
  if (token !== undefined) result.token = token;
  const units = firstOf(places, UNITS_FIELDS, kwh);
  if (units !== undefined) result.units = units;
  const kcts = distinct(KCT_FIELDS.map((field) => firstOf(places, [field], stsToken)));
  if (kcts.length > 0) result.kctTokens = kcts;
  const bonus = distinct([
    ...BONUS_FIELDS.map((field) => firstOf(places, [field], stsToken)),
    ...places.flatMap((place) => bonusTokensIn(place['purchased_code'])),
  ]);
  if (bonus.length > 0) result.bonusTokens = bonus;
  return result;
}

/** The tokens read, each once, in the order first seen, at most MAX_EXTRA_TOKENS. */
function distinct(tokens: readonly (string | undefined)[]): string[] {
  const seen: string[] = [];
  for (const token of tokens)
    if (token !== undefined && !seen.includes(token) && seen.length < MAX_EXTRA_TOKENS) seen.push(token);
  return seen;
}

/** The bonus tokens written after "Bonus Token :" in a purchased_code text. */
function bonusTokensIn(value: unknown): string[] {
  if (typeof value !== 'string' || value.length > MAX_FIELD_LENGTH) return [];
  const found: string[] = [];
  for (const match of value.matchAll(BONUS_IN_TEXT)) {
    const token = stsToken(match[1]);
    if (token !== undefined) found.push(token);
  }
  return found;
}

function firstOf(
  places: Record<string, unknown>[],
  fields: readonly string[],
  read: (value: unknown) => string | undefined,
): string | undefined {
  for (const field of fields) {
    for (const place of places) {
      const value = read(place[field]);
      if (value !== undefined) return value;
    }
  }
  return undefined;
}

/**
 * The main token of a text such as "Token : 4216 1234 5678 9012 3456 Bonus Token : ...",
 * "42161234567890123456" or "4216-1234-5678-9012-3456", shown 4-4-4-4-4. Only a string is
 * read: a 20-digit JSON number has already lost digits to floating point. A bonus or
 * key-change token after the main one is not part of it.
 */
export function stsToken(value: unknown): string | undefined {
  if (typeof value !== 'string' || value.length > MAX_FIELD_LENGTH) return undefined;
  const main = value.split(/bonus|kct|key\s*change|reset/i)[0] ?? '';
  const digits = main.replace(/[^0-9]/g, '');
  if (digits.length !== TOKEN_DIGITS) return undefined;
  return digits.match(/\d{4}/g)!.join('-');
}

/** Units as "<n> kWh" from 16.9, "16.9", "16.9 kWh" or "16.9kwh"; the number is kept as written. */
export function kwh(value: unknown): string | undefined {
  let text: string;
  if (typeof value === 'number') {
    if (!Number.isFinite(value) || value < 0) return undefined;
    text = String(value);
  } else if (typeof value === 'string' && value.length <= MAX_FIELD_LENGTH) {
    text = value;
  } else {
    return undefined;
  }
  const match = UNITS_NUMBER.exec(text);
  return match ? `${match[1]} kWh` : undefined;
}
