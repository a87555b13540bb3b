/** Bulk SMS rules: pages, recipients and the charge (spec section 4.8). */
import { kobo, type Kobo } from './money.js';
import { smsLength } from './validation.js';

/** Spec: 160 characters are one page, 161 are two. */
export const SMS_PAGE_CHARACTERS = 160;

/** Our bound: ten pages, the longest concatenated SMS most handsets reassemble. */
export const SMS_MAX_CHARACTERS = 1_600;

/** Our bound per request, so one request cannot hold a provider batch open for minutes. */
export const SMS_MAX_RECIPIENTS = 10_000;

export function smsPages(message: string): number {
  return Math.max(1, Math.ceil(smsLength(message) / SMS_PAGE_CHARACTERS));
}

/** Unique recipients in the order first given; a number listed twice is sent and charged once. */
export function uniqueRecipients(recipients: readonly string[]): string[] {
  return [...new Set(recipients)];
}

/** Spec rule 1: page rate x pages x recipients. */
export function smsChargeKobo(ratePerPageKobo: Kobo, pages: number, recipientCount: number): Kobo {
  return kobo(ratePerPageKobo * pages * recipientCount);
}
