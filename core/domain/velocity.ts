/**
 * The velocity brake's rules (docs/security.md, The velocity brake): how much a live key pair
 * may spend, and to how many recipients it has not sent to before, in one window before it is
 * frozen, and what a frozen key answers. Pure rules; the counting is core/accounts/velocity.ts,
 * the history each key's Lagos days in the store.
 */
import { DomainError, invalid } from './errors.js';
import { formatNaira, type Kobo, kobo } from './money.js';
import { hasControlCharacters } from './validation.js';

/**
 * What a key with too little history to judge by may do in one window by default: ₦20,000 of
 * reserves (VELOCITY_NEW_KEY_NAIRA) and 10 recipients it had not sent to. Deliberately low: a leaked new key drains at most
 * about this much before it stops; a partner that starts bigger asks the owner to unfreeze it
 * once, and the days it then spends raise its own limits. History never lowers a key's
 * limits below these either: a key that spends little is not frozen for one ordinary sale.
 */
export const NEW_KEY_WINDOW_KOBO = kobo(2_000_000);
const NEW_KEY_NEW_RECIPIENTS = 10;
/** How many trailing Africa/Lagos days (today not among them) a key's history is read from. */
export const HISTORY_DAYS = 14;
/** Fewer days with spending than this in the trailing days is "no history": the new key's limits. */
const MIN_HISTORY_DAYS = 3;
/** The longest reason a freeze keeps, as the audit log's notes. */
export const MAX_FREEZE_REASON_CHARS = 200;
const MINUTES_A_DAY = 1_440;

/** One Lagos day of a key's spending, as the store keeps it for the brake. */
export interface VelocityDay {
  /** lagosDay(...) of the day. */
  day: number;
  /** What the key's reserves charged that day (refunds not given back: an attempt is spending). */
  spentKobo: Kobo;
  /** The most recipients new to the key in any one window of that day. */
  peakNewRecipients: number;
}

/** What the brake allows a key in one window before it freezes it. */
export interface VelocityLimits {
  windowKobo: Kobo;
  newRecipients: number;
  /** Whether the key's own days set them, or the new key's defaults did. */
  basis: 'history' | 'new_key';
}

/** The brake's settings (VELOCITY_BRAKE, VELOCITY_WINDOW_MIN, VELOCITY_FACTOR, VELOCITY_NEW_KEY_NAIRA). */
export interface VelocitySettings {
  enabled: boolean;
  windowMin: number;
  factor: number;
  /** A new key's allowance per window, and every key's floor; NEW_KEY_WINDOW_KOBO by default. */
  newKeyWindowKobo: Kobo;
}

/** Who froze a key, and when and why; on the key's record while it is frozen. */
export interface KeyFreeze {
  at: Date;
  /** The reason as the owner's mail and the console show it. */
  reason: string;
  /** `velocity` (the brake), `cli` (the operator), `staff:<email>`. */
  by: string;
}

/** Who unfroze a key: `cli`, `staff:<email>`, `owner:<email>`. */
export interface KeyUnfreeze {
  at: Date;
  by: string;
}

function median(values: readonly number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = sorted.length >> 1;
  return sorted.length % 2 === 1 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2;
}

/**
 * A key's limits for one window from its trailing days: `factor` times the median of its
 * days' spending spread over the day's windows, and the most new recipients it reached in one
 * window on any of those days; never below the new key's limits. Days without spending are
 * not among them: a key used on weekdays is judged by its weekdays.
 */
export function velocityLimits(days: readonly VelocityDay[], settings: VelocitySettings): VelocityLimits {
  const spent = days.filter((d) => d.spentKobo > 0);
  if (spent.length < MIN_HISTORY_DAYS) {
    return { windowKobo: settings.newKeyWindowKobo, newRecipients: NEW_KEY_NEW_RECIPIENTS, basis: 'new_key' };
  }
  const perWindow = (median(spent.map((d) => d.spentKobo)) * settings.windowMin) / MINUTES_A_DAY;
  const peak = Math.max(...spent.map((d) => d.peakNewRecipients));
  return {
    windowKobo: kobo(Math.max(settings.newKeyWindowKobo, Math.ceil(perWindow * settings.factor))),
    newRecipients: Math.max(NEW_KEY_NEW_RECIPIENTS, peak),
    basis: 'history',
  };
}

/** Why a window trips the brake, in words for the owner's mail and the console; null: it does not. */
export function velocityTrip(
  window: { spentKobo: number; newRecipients: number },
  limits: VelocityLimits,
  windowMin: number,
): string | null {
  const judged = limits.basis === 'history' ? 'its history allows' : 'a new key is allowed';
  if (window.spentKobo > limits.windowKobo) {
    return (
      `${formatNaira(kobo(window.spentKobo))} Naira spent in ${windowMin} minutes, over the ` +
      `${formatNaira(limits.windowKobo)} Naira ${judged}`
    );
  }
  if (window.newRecipients > limits.newRecipients) {
    return `${window.newRecipients} new recipients in ${windowMin} minutes, over the ${limits.newRecipients} ${judged}`;
  }
  return null;
}

/** A reason given by hand (the CLI's --reason): one printable line. */
export function checkFreezeReason(reason: string): string {
  const trimmed = reason.trim();
  if (trimmed === '' || trimmed.length > MAX_FREEZE_REASON_CHARS || hasControlCharacters(trimmed)) {
    throw invalid('reason', `reason is required: 1 to ${MAX_FREEZE_REASON_CHARS} printable characters.`);
  }
  return trimmed;
}

/** The refusal of every call of a frozen key; nothing was read or charged. */
export function keyFrozen(frozenAt: Date): DomainError {
  return new DomainError(
    'KEY_FROZEN',
    `This API key has been frozen since ${frozenAt.toISOString()}; nothing was charged. ` +
      "The account's owner can unfreeze it on the developer area's API keys page.",
    { metadata: { frozen_at: frozenAt.toISOString() } },
  );
}
