/**
 * A Nigerian number as people type it: `+234 803 123 4567`, `2348031234567`, `00234...`,
 * `0803-123-4567`, `(0803) 123.4567`. The platform keeps and sends one form, 11 digits from 0
 * (validation.ts); this is the one reading of the usual typed forms into it, used by the
 * holder's search by recipient (recipient-search.ts) and by what the developer area's Buy
 * pages send (core/rpc/shop.ts).
 */

/** Spaces, dashes, dots and brackets people put in numbers. */
export const NUMBER_PUNCTUATION = /[\s().-]/g;

/**
 * The 11-digit 0... form of a whole Nigerian number typed in any usual form, or undefined when
 * the text is not one (too short, letters, a meter number): the caller then keeps what was
 * typed, so the validation's own message says what is wrong with it.
 */
export function phoneAsStored(typed: string): string | undefined {
  const digits = typed.replace(NUMBER_PUNCTUATION, '');
  const international = /^(?:\+|00)?234(\d{10})$/.exec(digits);
  if (international) return `0${international[1]}`;
  if (/^0\d{10}$/.test(digits)) return digits;
  return undefined;
}
