/**
 * The closed sets of the spec (sections 4 and 8) and the internal shapes of a purchase.
 * Anything that names a network, disco, meter type or cable provider checks it here.
 */
import type { Kobo } from './money.js';

export const NETWORKS = ['mtn', 'glo', 'airtel', '9mobile'] as const;
export type Network = (typeof NETWORKS)[number];

/**
 * Other names of a network. 9mobile has traded as T2 since 2025; both names are accepted
 * wherever a network is named, and an answer keeps the name the caller used. Plans, prices
 * and discounts are kept under the canonical name.
 */
const NETWORK_ALIASES: Readonly<Record<string, Network>> = { t2: '9mobile' };
/**
 * The order resellers list networks in: MTN, Airtel, Glo, 9mobile/T2 (by market share), the
 * order of every price list shown to people.
 */
const NETWORK_DISPLAY_ORDER: readonly Network[] = ['mtn', 'airtel', 'glo', '9mobile'];

/** Orders priced plans by NETWORK_DISPLAY_ORDER, then by price, then by plan id. */
export function byNetworkThenPrice<T extends { plan: { network: string; planId: number }; priceKobo: number }>(
  a: T,
  b: T,
): number {
  const rank = (network: string) => {
    const i = NETWORK_DISPLAY_ORDER.indexOf(canonicalNetwork(network) ?? ('' as Network));
    return i === -1 ? NETWORK_DISPLAY_ORDER.length : i;
  };
  return rank(a.plan.network) - rank(b.plan.network) || a.priceKobo - b.priceKobo || a.plan.planId - b.plan.planId;
}

/**
 * How a data plan is sold in the Nigerian market: SME and SME2 (bulk data shared from SIMs
 * registered to a business), CG (corporate gifting), gifting (the network's own gifting
 * channel), awoof (promotional bundles) and direct (the network's retail plans). Types
 * differ in price, validity and reliability, and a network may block one for a while, so
 * resellers enable or disable a whole type per network.
 */
export const PLAN_TYPES = ['sme', 'sme2', 'cg', 'gifting', 'awoof', 'direct'] as const;
export type PlanType = (typeof PLAN_TYPES)[number];

/**
 * Whether a plan (or a network and type) is off sale because its type is switched off on its
 * network: the one reading of the operator's switches, for sales, lists and the switch itself.
 */
export function planTypeIsOff(
  off: readonly { network: string; type: string }[],
  plan: { network: string; type: string },
): boolean {
  return off.some((o) => o.network === plan.network && o.type === plan.type);
}

/** Every name a caller may give a network: the spec's four and their aliases. */
export const NETWORK_NAMES: readonly string[] = [...NETWORKS, ...Object.keys(NETWORK_ALIASES)];

/** The canonical network of a name a caller may use, or undefined for an unknown name. */
export function canonicalNetwork(name: string): Network | undefined {
  if ((NETWORKS as readonly string[]).includes(name)) return name as Network;
  return Object.hasOwn(NETWORK_ALIASES, name) ? NETWORK_ALIASES[name] : undefined;
}

/** Every name of a canonical network, the canonical one first ("9mobile", "t2"). */
export function networkNames(network: string): string[] {
  return [network, ...Object.keys(NETWORK_ALIASES).filter((alias) => NETWORK_ALIASES[alias] === network)];
}

/**
 * The spec's nine discos, then the three more VTpass sells: Kaduna (kaedc), Jos (jed) and
 * Aba (aba). Their serviceIDs are not in VTpass's documentation (unsure; docs/products.md).
 */
export const DISCOS = [
  'ekedc',
  'ikedc',
  'aedc',
  'phed',
  'eedc',
  'kedco',
  'ibedc',
  'bedc',
  'yedc',
  'kaedc',
  'jed',
  'aba',
] as const;
export type Disco = (typeof DISCOS)[number];

export const METER_TYPES = ['prepaid', 'postpaid'] as const;
export type MeterType = (typeof METER_TYPES)[number];

export const CABLE_PROVIDERS = ['dstv', 'gotv', 'startimes'] as const;
export type CableProvider = (typeof CABLE_PROVIDERS)[number];

/** How a DStv or GOtv payment treats the card's bouquet (VTpass's `subscription_type`). */
export const SUBSCRIPTION_TYPES = ['renew', 'change'] as const;
export type SubscriptionType = (typeof SUBSCRIPTION_TYPES)[number];
/** Cable providers whose payments say renew or change; StarTimes' do not (VTpass's documentation). */
export const RENEWABLE_CABLE_PROVIDERS: readonly CableProvider[] = ['dstv', 'gotv'];
/** The most months one cable payment may buy. */
export const CABLE_MAX_MONTHS = 12;

export const PRODUCTS = ['airtime', 'data', 'electricity', 'cable', 'bulksms'] as const;
export type ProductName = (typeof PRODUCTS)[number];

/** The services a product is sold on; a discount names one of these or none. */
export const SERVICES_BY_PRODUCT: Readonly<Record<ProductName, readonly string[]>> = {
  airtime: NETWORKS,
  data: NETWORKS,
  electricity: DISCOS,
  cable: CABLE_PROVIDERS,
  bulksms: [],
};

export function isOneOf<T extends string>(set: readonly T[], value: unknown): value is T {
  return typeof value === 'string' && (set as readonly string[]).includes(value);
}

/**
 * pending: debited, outcome unknown. success: delivered. failed: not delivered, refunded.
 * reversed: delivered, then undone by the provider (a reversal), refunded. The last three
 * are final; reversed can only follow success.
 */
export type TransactionStatus = 'pending' | 'success' | 'failed' | 'reversed';

/**
 * Product-specific facts of a purchase, kept with the transaction so that the provider can
 * be re-queried and the response rebuilt long after the request.
 */
export interface PurchaseDetails {
  planId?: number;
  /** Data plan label or cable package name. */
  planLabel?: string;
  packageCode?: string;
  meterType?: MeterType;
  /** DStv and GOtv: whether the purchase renews the card's current bouquet or changes it. */
  subscriptionType?: SubscriptionType;
  /** Cable: months paid for (1 when absent). */
  months?: number;
  /** Optional phone of an electricity or cable purchase (receipt SMS for electricity). */
  customerPhone?: string;
  /**
   * The customer's name the provider told when the core checked the meter or smart card just
   * before the purchase (electricity, DStv, GOtv), for the developer area's receipt.
   */
  customerName?: string;
  sender?: string;
  message?: string;
  /** Unique recipients of a bulk SMS, in the order first given. */
  recipients?: string[];
  /**
   * How many recipients a bulk SMS had, in place of `recipients` on the pages of an account's
   * history (TransactionStore.listByAccount), which show the count and never the numbers.
   */
  recipientCount?: number;
  pages?: number;
}

/** What the provider delivered. */
export interface DeliveryResult {
  /** Electricity token shown 4-4-4-4-4 (prepaid only). */
  token?: string;
  /** Energy units with suffix, for example "31.5 kWh". */
  units?: string;
  /**
   * Key-change tokens (KCT) that came with a prepaid vend, each shown 4-4-4-4-4, in the
   * order they must be entered. Since the 2024 token-identifier rollover a meter may refuse
   * the energy token until its KCTs are entered, so they are kept and shown with it.
   * Absent when the upstream sent none.
   */
  kctTokens?: string[];
  /** Bonus (free basic electricity) tokens of the vend, each shown 4-4-4-4-4; absent when none. */
  bonusTokens?: string[];
  /** Number of SMS recipients accepted. */
  sent?: number;
  /** The provider's own reference, for support. */
  providerReference?: string;
}

/**
 * Why a delivery an upstream reports is not yet the goods, or null when it is. A prepaid
 * vend is its token: without it the customer has nothing to enter into the meter, so the
 * purchase is not a success, whatever the upstream's status word says. It stays pending and
 * is re-queried for the token (every upstream kind may send it later: ClubKonnect's
 * `metertoken` is empty until the order completes, a VTpass requery repeats the vend's
 * fields, a ported-number record is read again), and a person is asked past the deadline.
 */
export function goodsMissing(
  purchase: { product: ProductName; details: Pick<PurchaseDetails, 'meterType'> },
  result: Pick<DeliveryResult, 'token'>,
): string | null {
  if (purchase.product !== 'electricity' || purchase.details.meterType !== 'prepaid') return null;
  return result.token === undefined || result.token === ''
    ? 'the provider reports the prepaid vend as delivered without its token'
    : null;
}

/**
 * A validated, priced purchase that has not touched the wallet yet: everything the
 * two-phase flow needs to reserve, call the provider and answer.
 */
export interface PurchaseOrder {
  product: ProductName;
  /** Network, disco or cable provider; "sms" for bulk SMS. */
  service: string;
  /** Phone, meter or smart card number; empty for bulk SMS. */
  recipient: string;
  faceValueKobo: Kobo;
  chargedKobo: Kobo;
  details: PurchaseDetails;
  /**
   * What the caller asked for, as sent (after the rules accepted it), and nothing the
   * catalog supplied: the fingerprint an idempotency key is bound to, so a retry is still
   * the same request after a price, label or SMS rate changed in between.
   */
  asked: Readonly<Record<string, string | number | readonly string[]>>;
}
