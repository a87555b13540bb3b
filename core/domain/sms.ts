/** Bulk SMS rules: pages, recipients and the charge (the contract, 4.8, in docs/specification.md). */
import { type Kobo, kobo } from './money.js';

/** Spec: 160 characters are one page, 161 are two. This is the figure for GSM-7 text. */
const SMS_PAGE_CHARACTERS = 160;

/**
 * A message with any character outside the GSM-7 alphabet travels as UCS-2, where a page
 * holds 70 UTF-16 code units (an emoji takes two). The networks split long UCS-2 messages
 * into parts of 67 units; like the specification's 160 for GSM-7 text, we count whole pages
 * of 70, the single-message figure, so that one rule is charged, answered and documented.
 */
const SMS_UCS2_PAGE_UNITS = 70;

/** GSM 03.38's basic alphabet: one 7-bit unit each. */
const GSM7_BASIC = new Set(
  '@£$¥èéùìòÇ\nØø\rÅåΔ_ΦΓΛΩΠΨΣΘΞÆæßÉ ' +
    '!"#¤%&\'()*+,-./0123456789:;<=>?¡ABCDEFGHIJKLMNOPQRSTUVWXYZÄÖÑÜ§¿abcdefghijklmnopqrstuvwxyzäöñüà',
);
/** Its extension table: an escape plus the character, two units each. */
const GSM7_EXTENDED = new Set('^{}\\[~]|€\f');

/** How a message travels and how many units of its encoding it takes. */
function smsEncoding(message: string): { encoding: 'gsm7' | 'ucs2'; units: number } {
  let units = 0;
  for (const character of message) {
    if (GSM7_BASIC.has(character)) units += 1;
    else if (GSM7_EXTENDED.has(character)) units += 2;
    else return { encoding: 'ucs2', units: message.length };
  }
  return { encoding: 'gsm7', units };
}

/** Our bound: ten pages, the longest concatenated SMS most handsets reassemble. */
export const SMS_MAX_CHARACTERS = 1_600;

/** Our bound per request, so one request cannot hold a provider batch open for minutes. */
export const SMS_MAX_RECIPIENTS = 10_000;

/**
 * Pages of a message: GSM-7 text by the specification's rule (160 units a page, an extended
 * character taking two), anything else as UCS-2 at 70 UTF-16 units a page; at least one.
 */
export function smsPages(message: string): number {
  const { encoding, units } = smsEncoding(message);
  return Math.max(1, Math.ceil(units / (encoding === 'gsm7' ? SMS_PAGE_CHARACTERS : SMS_UCS2_PAGE_UNITS)));
}

/** Unique recipients in the order first given; a number listed twice is sent and charged once. */
export function uniqueRecipients(recipients: readonly string[]): string[] {
  return [...new Set(recipients)];
}

/** Spec rule 1: page rate x pages x recipients. */
export function smsChargeKobo(ratePerPageKobo: Kobo, pages: number, recipientCount: number): Kobo {
  return kobo(ratePerPageKobo * pages * recipientCount);
}
