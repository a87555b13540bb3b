/**
 * Formatting shared by every command: money in Naira for people and as Naira plus kobo in
 * JSON, timestamps, enum names and aligned columns. Money stays integer kobo until the last
 * step; the Naira number in JSON is only ever derived from kobo, never computed with.
 */
import { type Timestamp, timestampDate } from '@bufbuild/protobuf/wkt';
import { isMode } from '../core/domain/mode.js';
import { formatNaira, isKobo, type Kobo, koboToNaira, parseNaira } from '../core/domain/money.js';
import { modeOfWord, modeWord, productWord } from '../core/domain/words.js';
import type { Mode, Product } from '../gen/prepaid/v1/types_pb.js';
import { type OptionSpec, UsageError } from './command.js';

/** "NGN 1,234.50": Naira with two decimals, for text output. */
export function nairaText(kobo: Kobo): string {
  return `NGN ${formatNaira(kobo)}`;
}

/**
 * An int64 kobo field from the core as a Kobo number. Every amount the core sends is far
 * below 2^53 (MAX_AMOUNT_KOBO bounds them), so a value outside the safe range is a broken
 * core, not something to round.
 */
export function kobo(value: bigint): Kobo {
  const n = Number(value);
  if (!isKobo(n)) throw new Error(`the core sent an amount out of range: ${value}`);
  return n;
}

/**
 * A money field for JSON as the pair `{ name: Naira, name_kobo: kobo }`, so a script can
 * take the exact integer and a person the familiar number.
 */
export function moneyFields(name: string, value: bigint): Record<string, number> {
  const k = kobo(value);
  return { [name]: koboToNaira(k), [`${name}_kobo`]: k };
}

/** A protobuf timestamp as ISO 8601 text; null when the core left it unset. */
export function isoTime(ts: Timestamp | undefined): string | null {
  return ts ? timestampDate(ts).toISOString() : null;
}

/** A product enum value as the public API names it (core/domain/words.ts): "airtime", "bulksms", ... */
export function productName(product: Product): string {
  return productWord(product) ?? String(product);
}

/** Basis points as a percentage for people: 300 -> "3%", 250 -> "2.5%". */
export function percentText(basisPoints: number): string {
  return `${Number((basisPoints / 100).toFixed(2))}%`;
}

/**
 * Parses a Naira argument with the platform's one parser (at most two decimals, never
 * rounded) and insists on a positive amount; anything else is a usage error, so it never
 * reaches the core.
 */
export function nairaArgument(name: string, text: string): Kobo {
  const parsed = parseNaira(text);
  if (!parsed.ok) throw new UsageError(`${name} ${parsed.reason}; got ${JSON.stringify(text)}.`);
  if (parsed.kobo <= 0) throw new UsageError(`${name} must be more than zero; got ${JSON.stringify(text)}.`);
  return parsed.kobo;
}

/** The `--mode` option of the commands that act on one of an account's two worlds. */
/**
 * --limit as a whole number from 1 to `max` (the core's page bound, so that the core never
 * has to refuse it), or `fallback` when it was not given.
 */
export function limitOption<T extends number | undefined>(
  text: string | undefined,
  fallback: T,
  max: number,
): number | T {
  if (text === undefined) return fallback;
  const limit = Number(text);
  if (!/^\d+$/.test(text) || limit < 1 || limit > max) {
    throw new UsageError(`--limit must be a whole number from 1 to ${max}; got ${JSON.stringify(text)}.`);
  }
  return limit;
}

export const MODE_OPTION: OptionSpec = {
  placeholder: 'live|test',
  summary:
    'live (the default): the real wallet and keys; test: the test wallet and test keys, served only by the sandbox.',
};

/** --mode as the admin service takes it; absent is live. */
export function modeArgument(text: string | undefined): Mode {
  if (text === undefined) return modeOfWord('live');
  if (isMode(text)) return modeOfWord(text);
  throw new UsageError(`--mode must be live or test; got ${JSON.stringify(text)}.`);
}

/** A mode as people and JSON name it: "live" or "test" (unset is live, as the core reads it). */
export function modeName(mode: Mode): 'live' | 'test' {
  return modeWord(mode);
}

/** Left-aligned columns separated by two spaces, for lists in text output. */
export function columns(rows: readonly (readonly string[])[]): string[] {
  const widths: number[] = [];
  for (const row of rows) {
    row.forEach((cell, i) => {
      widths[i] = Math.max(widths[i] ?? 0, cell.length);
    });
  }
  return rows.map((row) =>
    row
      .map((cell, i) => (i === row.length - 1 ? cell : cell.padEnd(widths[i] ?? 0)))
      .join('  ')
      .trimEnd(),
  );
}

/** The stderr line printed whenever a secret key is shown. */
export const SECRET_SHOWN_ONCE_WARNING =
  'warning: the secret key is shown only this once and cannot be retrieved later; store it now.';

/**
 * A message field the core always sets. Proto3 makes every message field optional in the
 * types; a missing one here is a broken core, which is a bug to surface, not to paper over.
 */
export function present<T>(value: T | undefined, field: string): T {
  if (value === undefined) throw new Error(`the core answered without ${field}`);
  return value;
}
