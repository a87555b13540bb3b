/**
 * Field rules of the contract, 4 and 8 (docs/specification.md), plus our bounds where the spec is silent
 * (docs/api.md). Each check returns violations instead of throwing, so a request
 * with several bad fields is told about all of them at once.
 */
import type { FieldViolation } from './errors.js';
import { formatNaira, isKobo, type Kobo } from './money.js';

/** Exactly 11 digits starting with 0. The network is never inferred from the prefix: numbers are portable. */
export const PHONE_PATTERN = /^0\d{10}$/;

/** Meter numbers are 11 or 13 digits for most discos; postpaid account numbers can be shorter. */
export const METER_NUMBER_PATTERN = /^\d{6,20}$/;

/** DStv and GOtv smart cards / IUCs are 10 digits, StarTimes 11; we accept a margin either side. */
export const SMART_CARD_PATTERN = /^\d{8,20}$/;

/** Letters and digits only, as networks register alphanumeric sender IDs. */
export const SENDER_PATTERN = /^[A-Za-z0-9]{1,11}$/;

/** Idempotency keys: what partners can reasonably generate, bounded for the unique index. */
export const REQUEST_ID_PATTERN = /^[A-Za-z0-9_-]{1,64}$/;

/** C0 control characters and DEL: nothing a person types into a name, label or memo. */
// biome-ignore lint/suspicious/noControlCharactersInRegex: matching control characters is what this pattern is for.
const CONTROL_CHARACTERS = /[\u0000-\u001F\u007F]/;

/** Whether `value` holds a control character (tab and line breaks included), which a one-line text may not. */
export function hasControlCharacters(value: string): boolean {
  return CONTROL_CHARACTERS.test(value);
}

/** Control characters other than tab, line feed and carriage return have no place in an SMS. */
// biome-ignore lint/suspicious/noControlCharactersInRegex: matching control characters is what this pattern is for.
const FORBIDDEN_SMS_CHARACTERS = /[\u0000-\u0008\u000B\u000C\u000E-\u001F\u007F]/;

export function describeValue(value: string, max = 24): string {
  const shown = value.length > max ? `${value.slice(0, max)}…` : value;
  return JSON.stringify(shown);
}

export function checkPhone(field: string, value: string, violations: FieldViolation[]): void {
  if (value === '') violations.push({ field, description: `${field} is required.` });
  else if (!PHONE_PATTERN.test(value))
    violations.push({
      field,
      description:
        `${field} must be an 11-digit Nigerian number starting with 0, such as 08031234567; got ` +
        `${describeValue(value)}.`,
    });
}

export function checkOptionalPhone(field: string, value: string, violations: FieldViolation[]): void {
  if (value !== '') checkPhone(field, value, violations);
}

export function checkOneOf(
  field: string,
  value: string,
  allowed: readonly string[],
  violations: FieldViolation[],
): void {
  if (value === '') violations.push({ field, description: `${field} is required; one of ${allowed.join(', ')}.` });
  else if (!allowed.includes(value))
    violations.push({
      field,
      description: `${field} must be one of ${allowed.join(', ')}; got ${describeValue(value)}.`,
    });
}

export function checkMeterNumber(field: string, value: string, violations: FieldViolation[]): void {
  if (value === '') violations.push({ field, description: `${field} is required.` });
  else if (!METER_NUMBER_PATTERN.test(value))
    violations.push({ field, description: `${field} must be 6 to 20 digits; got ${describeValue(value)}.` });
}

export function checkSmartCard(field: string, value: string, violations: FieldViolation[]): void {
  if (value === '') violations.push({ field, description: `${field} is required.` });
  else if (!SMART_CARD_PATTERN.test(value))
    violations.push({ field, description: `${field} must be 8 to 20 digits; got ${describeValue(value)}.` });
}

/** Amount in whole kobo between the product's minimum and maximum, both inclusive. */
export function checkAmount(
  field: string,
  amountKobo: Kobo,
  bounds: { minKobo: Kobo; maxKobo: Kobo },
  violations: FieldViolation[],
): void {
  if (!isKobo(amountKobo) || amountKobo <= 0)
    violations.push({ field, description: `${field} is required and must be a positive amount.` });
  else if (amountKobo < bounds.minKobo)
    violations.push({ field, description: `${field} must be at least ${formatNaira(bounds.minKobo)} Naira.` });
  else if (amountKobo > bounds.maxKobo)
    violations.push({ field, description: `${field} must be at most ${formatNaira(bounds.maxKobo)} Naira.` });
}

export function checkSender(field: string, value: string, violations: FieldViolation[]): void {
  if (value === '') violations.push({ field, description: `${field} is required.` });
  else if (!SENDER_PATTERN.test(value))
    violations.push({ field, description: `${field} must be 1 to 11 letters or digits; got ${describeValue(value)}.` });
}

export function checkSmsText(field: string, value: string, maxCharacters: number, violations: FieldViolation[]): void {
  const length = smsLength(value);
  if (length === 0) violations.push({ field, description: `${field} is required.` });
  else if (length > maxCharacters)
    violations.push({ field, description: `${field} must be at most ${maxCharacters} characters; got ${length}.` });
  else if (FORBIDDEN_SMS_CHARACTERS.test(value))
    violations.push({ field, description: `${field} contains control characters.` });
  else checkWellFormed(field, value, violations);
}

/**
 * Refuses text holding half of a UTF-16 surrogate pair (JSON can write one, `"a\ud83d b"`).
 * The gateway applies it to every string it reads: on the way to the core such text would
 * become U+FFFD (protobuf strings are UTF-8), and the core could no longer see what was sent.
 */
export function checkWellFormed(field: string, value: string, violations: FieldViolation[]): void {
  if (LONE_SURROGATE.test(value)) {
    violations.push({
      field,
      description: `${field} contains a broken character (half of a UTF-16 pair); send valid Unicode text.`,
    });
  }
}

/** Half of a UTF-16 surrogate pair on its own: no character, and no network can send it. */
const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;

/** Characters as a person counts them: Unicode code points, so an emoji is one character. */
export function smsLength(text: string): number {
  let count = 0;
  for (const _ of text) count += 1;
  return count;
}
