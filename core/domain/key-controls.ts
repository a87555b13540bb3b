/**
 * What one key pair may do (docs/security.md, Key controls): the scopes it may call and the
 * caps on what it may spend. Pure rules, read by the core (which stores and enforces them)
 * and by the gateway (which refuses an action outside the key's scopes before it calls
 * anything). A key with no controls, the default, may do everything its account can, as the
 * specification describes.
 */
import { DomainError, invalid } from './errors.js';
import { formatNaira, isKobo, type Kobo, kobo, MAX_AMOUNT_KOBO } from './money.js';
import { PRODUCTS, type ProductName } from './products.js';

/** The scope that allows everything: a key created without scopes has it. */
export const ALL_SCOPE = 'all';

/** A purchase of one product family: `purchase:airtime`, ... */
export function purchaseScope(product: ProductName): string {
  return `purchase:${product}`;
}

/**
 * Every scope a key may hold. `read` covers plans, packages, history, one transaction and
 * the events feed; `balance` the wallet's balance and its funding accounts; `verify` a
 * meter's or smart card's owner.
 */
export const KEY_SCOPES: readonly string[] = [ALL_SCOPE, 'balance', 'read', 'verify', ...PRODUCTS.map(purchaseScope)];

/** The most scopes one key can list: every one there is. */
const MAX_SCOPES = KEY_SCOPES.length;

/** What a key pair may do; an uncontrolled key is `ALL_SCOPE` with no caps. */
export interface KeyControls {
  /** Sorted and unique; `['all']` for everything. */
  scopes: string[];
  /** The most one purchase may charge; 0: no cap. */
  capPerPurchaseKobo: Kobo;
  /** The most the key's purchases may charge in one Africa/Lagos day (refunds given back); 0: no cap. */
  capPerDayKobo: Kobo;
}

export const NO_KEY_CONTROLS: Readonly<KeyControls> = Object.freeze({
  scopes: [ALL_SCOPE],
  capPerPurchaseKobo: kobo(0),
  capPerDayKobo: kobo(0),
});

/** The scopes as given (a list, or one comma-separated text), checked, unique and sorted; none is `all`. */
export function parseScopes(given: readonly string[] | string): string[] {
  const items = (typeof given === 'string' ? given.split(',') : given).map((s) => s.trim()).filter((s) => s !== '');
  if (items.length === 0) return [ALL_SCOPE];
  if (items.length > MAX_SCOPES) throw invalid('scopes', `scopes may list at most ${MAX_SCOPES} scopes.`);
  const unknown = items.find((s) => !KEY_SCOPES.includes(s));
  if (unknown !== undefined) {
    throw invalid(
      'scopes',
      `${JSON.stringify(unknown.slice(0, 40))} is not a scope; scopes are ${KEY_SCOPES.join(', ')}.`,
    );
  }
  // `all` with anything else is just `all`: listing more cannot narrow it.
  if (items.includes(ALL_SCOPE)) return [ALL_SCOPE];
  return [...new Set(items)].sort();
}

/** A cap in kobo: 0 for none, else a positive amount up to the largest the platform takes. */
export function checkCap(field: string, capKobo: number): Kobo {
  if (!isKobo(capKobo) || capKobo < 0 || capKobo > MAX_AMOUNT_KOBO) {
    throw invalid(
      field,
      `${field} must be 0 (no cap) or a positive amount of at most ${formatNaira(MAX_AMOUNT_KOBO)}.`,
    );
  }
  return capKobo;
}

export function allowsScope(scopes: readonly string[], needed: string): boolean {
  return scopes.includes(ALL_SCOPE) || scopes.includes(needed);
}

/** Whether a key has any cap on its spending (the reserve then checks it in its transaction). */
export function hasSpendCaps(controls: Pick<KeyControls, 'capPerPurchaseKobo' | 'capPerDayKobo'>): boolean {
  return controls.capPerPurchaseKobo > 0 || controls.capPerDayKobo > 0;
}

/** Whether a key has no control at all: every scope and no cap (it then needs no record of them). */
export function isUncontrolled(controls: KeyControls): boolean {
  return !hasSpendCaps(controls) && controls.scopes.length === 1 && controls.scopes[0] === ALL_SCOPE;
}

/** The refusal of a call outside the key's scopes; nothing was reserved. */
export function scopeDenied(needed: string): DomainError {
  return new DomainError(
    'KEY_SCOPE_DENIED',
    `This API key may not do this: it needs the scope ${needed}, which the key does not have. ` +
      "The account's owner can add it on the developer area's API keys page.",
    { metadata: { scope: needed } },
  );
}

/** Why a key's cap refused a purchase, as the reserve found it in its transaction. */
export type CapRefusal =
  | { cap: 'per_purchase'; capKobo: Kobo }
  | { cap: 'per_day'; capKobo: Kobo; spentTodayKobo: Kobo };

/**
 * Whether a key's caps refuse a charge, given what the key's purchases charged today (the
 * store reads that only when the key has a day's cap). Both stores apply this one rule in
 * their reserve's transaction.
 */
export function capRefusalOf(controls: KeyControls, chargeKobo: Kobo, spentTodayKobo: () => Kobo): CapRefusal | null {
  if (controls.capPerPurchaseKobo > 0 && chargeKobo > controls.capPerPurchaseKobo) {
    return { cap: 'per_purchase', capKobo: controls.capPerPurchaseKobo };
  }
  if (controls.capPerDayKobo > 0) {
    const spent = spentTodayKobo();
    if (spent + chargeKobo > controls.capPerDayKobo) {
      return { cap: 'per_day', capKobo: controls.capPerDayKobo, spentTodayKobo: spent };
    }
  }
  return null;
}

/** The refusal of a purchase over a key's cap; nothing was debited. */
export function capExceeded(refusal: CapRefusal, chargeKobo: Kobo): DomainError {
  const charge = formatNaira(chargeKobo);
  if (refusal.cap === 'per_purchase') {
    return new DomainError(
      'KEY_CAP_EXCEEDED',
      `The charge of ${charge} Naira is over this API key's cap of ${formatNaira(refusal.capKobo)} Naira ` +
        'per purchase; nothing was charged.',
      { metadata: { cap: 'per_purchase', cap_kobo: String(refusal.capKobo), charge_kobo: String(chargeKobo) } },
    );
  }
  const left = kobo(Math.max(0, refusal.capKobo - refusal.spentTodayKobo));
  return new DomainError(
    'KEY_CAP_EXCEEDED',
    `The charge of ${charge} Naira is over this API key's cap of ${formatNaira(refusal.capKobo)} Naira a day: ` +
      `${formatNaira(left)} Naira is left today (Africa/Lagos); nothing was charged.`,
    {
      metadata: {
        cap: 'per_day',
        cap_kobo: String(refusal.capKobo),
        left_today_kobo: String(left),
        charge_kobo: String(chargeKobo),
      },
    },
  );
}
