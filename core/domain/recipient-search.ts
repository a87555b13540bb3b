/**
 * The holder's search by recipient: which stored recipients a typed text finds. Purchases store
 * a phone number in one form, 11 digits from 0 (validation.ts), and meter and smart card
 * numbers as digits; a person types +234 803 123 4567, 2348031234567, 0803-123-4567, or only
 * the start of a number ("0803123"). Both stores answer a prefix with an index range
 * (`prefixRange`), so a prefix search reads only the matching rows of the account's index.
 * A whole number is read by phone-numbers.ts, as the Buy pages' numbers are.
 */

import { NUMBER_PUNCTUATION, phoneAsStored } from './phone-numbers.js';

/** A search by recipient: one stored value, or every stored value starting with a prefix. */
export type RecipientSearch = { exact: string } | { prefix: string };

/**
 * A prefix shorter than this finds too much to be a search ("0" or "08" is every phone): such a
 * text is matched exactly, which finds nothing, rather than listing the whole history.
 */
const MIN_RECIPIENT_PREFIX_DIGITS = 4;

/**
 * What a typed recipient searches for:
 * - a whole Nigerian number in any usual form (+234..., 234..., 00234..., 0..., spaced or
 *   dashed) is the stored 0... form, exactly;
 * - the start of one (`0803123`, `+234803123`, `234 803`) is a prefix of the 0... form;
 * - other digits (a meter or smart card number, whole or its start) are a prefix as typed;
 * - anything else (letters, too few digits) is matched exactly as typed.
 */
export function recipientSearch(typed: string): RecipientSearch {
  const whole = phoneAsStored(typed);
  if (whole !== undefined) return { exact: whole };
  const digits = typed.replace(NUMBER_PUNCTUATION, '');
  // A partial international number names its country: only with + or 00, since a bare 234... may be a meter.
  const partial = /^(?:\+|00)234(\d{1,9})$/.exec(digits);
  const prefix = partial ? `0${partial[1]}` : /^\d+$/.test(digits) ? digits : undefined;
  if (prefix !== undefined && prefix.length >= MIN_RECIPIENT_PREFIX_DIGITS) return { prefix };
  return { exact: typed };
}

/**
 * The half-open range [from, until) of every string that starts with `prefix`, in the binary
 * order both stores compare strings in (SQLite's BINARY collation, MongoDB's simple one):
 * `until` is the prefix with its last code unit raised by one. A range, unlike LIKE or a
 * regular expression, needs no escaping and walks an index on the column directly.
 */
export function prefixRange(prefix: string): { from: string; until: string } {
  const last = prefix.charCodeAt(prefix.length - 1);
  // Programmer errors: the search only ever makes prefixes of digits.
  if (prefix === '' || last >= 0xd800) throw new Error(`prefixRange needs a non-empty prefix of plain characters`);
  return { from: prefix, until: `${prefix.slice(0, -1)}${String.fromCharCode(last + 1)}` };
}
