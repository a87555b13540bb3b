/**
 * What an account allows to one recipient (docs/security.md, Recipient controls): numbers
 * the platform or the account has blocked, at most so many purchases and so much money per
 * recipient per Africa/Lagos day, and a guard against the same purchase sent twice. Pure
 * rules: the stores check them in the reserve's transaction, only for an account that has
 * such controls, so a purchase of an account without them reads nothing more.
 */
import { DomainError, invalid } from './errors.js';
import { formatNaira, isKobo, type Kobo, MAX_AMOUNT_KOBO } from './money.js';
import type { ProductName } from './products.js';
import { hasControlCharacters } from './validation.js';

/** The products whose recipient is one number (a phone, a meter or a smart card) the controls apply to. */
const CONTROLLED_PRODUCTS: readonly ProductName[] = ['airtime', 'data', 'electricity', 'cable'];

export function recipientControlled(product: ProductName): boolean {
  return CONTROLLED_PRODUCTS.includes(product);
}

/** An account's recipient controls; absent on an account: none. */
export interface RecipientControls {
  /** The account has blocked recipients of its own (the reserve then looks the recipient up). */
  blocklist: boolean;
  /** At most this many purchases per recipient per Lagos day; 0: no limit. */
  perDayCount: number;
  /** At most this much charged per recipient per Lagos day; 0: no limit. */
  perDayKobo: Kobo;
  /** Refuse the same product, recipient and amount again within the duplicate window without a request_id. */
  duplicateGuard: boolean;
}

export const NO_RECIPIENT_CONTROLS: Readonly<RecipientControls> = Object.freeze({
  blocklist: false,
  perDayCount: 0,
  perDayKobo: 0 as Kobo,
  duplicateGuard: false,
});

/** The most purchases a per-recipient count limit may allow a day. */
const MAX_PER_DAY_COUNT = 10_000;
/** A blocked value: a phone, meter or smart-card number, digits only, as purchases carry them. */
const BLOCKED_VALUE = /^[0-9]{6,20}$/;
const MAX_REASON_LENGTH = 200;

/** Whether the controls ask anything of a reserve. */
export function hasRecipientChecks(controls: RecipientControls | undefined): controls is RecipientControls {
  return (
    controls !== undefined &&
    (controls.blocklist || controls.perDayCount > 0 || controls.perDayKobo > 0 || controls.duplicateGuard)
  );
}

export function checkPerDayCount(count: number): number {
  if (!Number.isSafeInteger(count) || count < 0 || count > MAX_PER_DAY_COUNT) {
    throw invalid('per_day_count', `per_day_count must be 0 (no limit) or a whole number up to ${MAX_PER_DAY_COUNT}.`);
  }
  return count;
}

export function checkPerDayKobo(amountKobo: number): Kobo {
  if (!isKobo(amountKobo) || amountKobo < 0 || amountKobo > MAX_AMOUNT_KOBO) {
    throw invalid('per_day_naira', 'per_day_naira must be 0 (no limit) or a positive amount.');
  }
  return amountKobo;
}

/** A value to block: its digits, as a purchase names the recipient. */
export function blockedValue(value: string): string {
  const trimmed = value.trim();
  if (!BLOCKED_VALUE.test(trimmed)) {
    throw invalid('value', 'value must be a phone, meter or smart-card number: 6 to 20 digits.');
  }
  return trimmed;
}

export function blockReason(reason: string): string {
  const trimmed = reason.trim();
  if (trimmed.length > MAX_REASON_LENGTH || hasControlCharacters(trimmed)) {
    throw invalid('reason', `reason must be at most ${MAX_REASON_LENGTH} printable characters.`);
  }
  return trimmed;
}

/** What a reserve found against a recipient; nothing was written. */
export type RecipientRefusal =
  | { kind: 'blocked' }
  | { kind: 'count'; limit: number }
  | { kind: 'naira'; limitKobo: Kobo; spentTodayKobo: Kobo }
  | { kind: 'duplicate'; reference: string };

/** What a recipient's day holds when the reserve looks. */
export interface RecipientDay {
  count: number;
  kobo: Kobo;
}

/** Whether the per-recipient limits refuse one more purchase of `chargeKobo` today. */
export function recipientLimitRefusal(
  controls: RecipientControls,
  day: RecipientDay,
  chargeKobo: Kobo,
): RecipientRefusal | null {
  if (controls.perDayCount > 0 && day.count + 1 > controls.perDayCount)
    return { kind: 'count', limit: controls.perDayCount };
  if (controls.perDayKobo > 0 && day.kobo + chargeKobo > controls.perDayKobo) {
    return { kind: 'naira', limitKobo: controls.perDayKobo, spentTodayKobo: day.kobo };
  }
  return null;
}

/**
 * The refusal as the caller sees it. A blocked recipient is not told who blocked it or why
 * (a partner's customer must not learn the platform's or the reseller's reasons).
 */
export function recipientRefused(refusal: RecipientRefusal, windowS: number): DomainError {
  switch (refusal.kind) {
    case 'blocked':
      return new DomainError('RECIPIENT_BLOCKED', 'Purchases to this recipient are not allowed; nothing was charged.');
    case 'count':
      return new DomainError(
        'RECIPIENT_LIMIT',
        `This recipient has had the most purchases the account allows in one day (${refusal.limit}, ` +
          'Africa/Lagos); nothing was charged.',
        { metadata: { limit: 'per_day_count', per_day_count: String(refusal.limit) } },
      );
    case 'naira':
      return new DomainError(
        'RECIPIENT_LIMIT',
        `This purchase would take the recipient past the account's ${formatNaira(refusal.limitKobo)} Naira a day ` +
          `(Africa/Lagos): ${formatNaira(Math.max(0, refusal.limitKobo - refusal.spentTodayKobo) as Kobo)} Naira ` +
          'is left today; nothing was charged.',
        { metadata: { limit: 'per_day_kobo', per_day_kobo: String(refusal.limitKobo) } },
      );
    case 'duplicate':
      return new DomainError(
        'DUPLICATE_PURCHASE',
        `The same purchase (product, recipient and amount) was made ${windowS} seconds ago or less, as ` +
          `${refusal.reference}; nothing was charged. To buy it again on purpose, send a new request_id.`,
        { metadata: { reference: refusal.reference } },
      );
  }
}
