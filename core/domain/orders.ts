/**
 * Turns a request into a validated, priced `PurchaseOrder`, one pure function per product.
 * The use cases fetch what these need from the catalog (tier, plan, packages, SMS rate) and
 * hand it in, so every rule here is testable without I/O and is the only place it lives:
 * the gateway and internal gRPC callers get exactly the same answers.
 */
import { DomainError, type FieldViolation, throwIfViolations } from './errors.js';
import { formatNaira, type Kobo, kobo } from './money.js';
import { faceValuePriceFor, planPriceFor, priceFor } from './pricing.js';
import {
  CABLE_MAX_MONTHS,
  CABLE_PROVIDERS,
  canonicalNetwork,
  DISCOS,
  METER_TYPES,
  type MeterType,
  NETWORK_NAMES,
  type PurchaseOrder,
  RENEWABLE_CABLE_PROVIDERS,
  SUBSCRIPTION_TYPES,
  type SubscriptionType,
} from './products.js';
import type { CablePackageRecord, CostRule, PlanRecord, TierRecord } from './records.js';
import { SMS_MAX_CHARACTERS, SMS_MAX_RECIPIENTS, smsChargeKobo, smsPages, uniqueRecipients } from './sms.js';
import {
  checkAmount,
  checkMeterNumber,
  checkOneOf,
  checkOptionalPhone,
  checkPhone,
  checkSender,
  checkSmartCard,
  checkSmsText,
  describeValue,
} from './validation.js';

/** The contract, 8 (docs/specification.md): airtime from 50 Naira. */
export const AIRTIME_MIN_KOBO: Kobo = kobo(50_00);
/** Our bound: networks refuse single recharges above 50,000 Naira. */
const AIRTIME_MAX_KOBO: Kobo = kobo(50_000_00);
/** The contract, 8 (docs/specification.md): electricity from 1,000 Naira. */
export const ELECTRICITY_MIN_KOBO: Kobo = kobo(1_000_00);
/** Our bound: the largest single vend discos accept through aggregators is around 500,000 Naira. */
const ELECTRICITY_MAX_KOBO: Kobo = kobo(500_000_00);

/**
 * The tier as pricing reads it; without price rules every product is priced by the tier's
 * discounts. The cost rules (the upstreams' commissions) are what airtime, electricity and
 * cable rules price over; none, and those products are priced by the discounts.
 */
type PricingTier = Pick<TierRecord, 'tierId' | 'discounts'> & Partial<Pick<TierRecord, 'priceRules'>>;

export interface AirtimeInput {
  network: string;
  phone: string;
  amountKobo: Kobo;
}

export function airtimeOrder(
  input: AirtimeInput,
  tier: PricingTier,
  costRules: readonly CostRule[] = [],
): PurchaseOrder {
  const violations: FieldViolation[] = [];
  checkOneOf('network', input.network, NETWORK_NAMES, violations);
  checkPhone('phone', input.phone, violations);
  checkAmount('amount', input.amountKobo, { minKobo: AIRTIME_MIN_KOBO, maxKobo: AIRTIME_MAX_KOBO }, violations);
  throwIfViolations(violations);
  return {
    product: 'airtime',
    // The name the caller used (t2 stays t2); prices and providers go by the canonical one.
    service: input.network,
    recipient: input.phone,
    faceValueKobo: input.amountKobo,
    chargedKobo: faceValuePriceFor(
      tier,
      { product: 'airtime', service: canonicalNetwork(input.network)!, faceValueKobo: input.amountKobo },
      costRules,
    ),
    details: {},
    asked: { network: input.network, phone: input.phone, amountKobo: input.amountKobo },
  };
}

export interface DataInput {
  planId: number;
  phone: string;
}

/** `plan` is the catalog's plan with that id, or null when there is none. */
export function dataOrder(input: DataInput, plan: PlanRecord | null, tier: PricingTier): PurchaseOrder {
  const violations: FieldViolation[] = [];
  if (!Number.isSafeInteger(input.planId) || input.planId <= 0) {
    violations.push({
      field: 'plan_id',
      description: 'plan_id is required and must be a positive integer from the plans catalog.',
    });
  } else if (plan === null || !plan.active) {
    violations.push({
      field: 'plan_id',
      description: `plan_id ${input.planId} is not an active plan; see action=plans.`,
    });
  }
  checkPhone('phone', input.phone, violations);
  throwIfViolations(violations);
  const active = plan!;
  return {
    product: 'data',
    service: active.network,
    recipient: input.phone,
    faceValueKobo: active.faceValueKobo,
    chargedKobo: planPriceFor(tier, active),
    details: { planId: active.planId, planLabel: `${active.label} (${active.validity})` },
    asked: { planId: input.planId, phone: input.phone },
  };
}

export interface ElectricityInput {
  disco: string;
  meterNumber: string;
  meterType: string;
  amountKobo: Kobo;
  /** Optional; receives the receipt SMS. Empty when absent. */
  phone: string;
}

export function electricityOrder(
  input: ElectricityInput,
  tier: PricingTier,
  costRules: readonly CostRule[] = [],
): PurchaseOrder {
  const violations: FieldViolation[] = [];
  checkOneOf('disco', input.disco, DISCOS, violations);
  checkMeterNumber('meter_number', input.meterNumber, violations);
  checkOneOf('meter_type', input.meterType, METER_TYPES, violations);
  checkAmount('amount', input.amountKobo, { minKobo: ELECTRICITY_MIN_KOBO, maxKobo: ELECTRICITY_MAX_KOBO }, violations);
  checkOptionalPhone('phone', input.phone, violations);
  throwIfViolations(violations);
  return {
    product: 'electricity',
    service: input.disco,
    recipient: input.meterNumber,
    faceValueKobo: input.amountKobo,
    chargedKobo: faceValuePriceFor(
      tier,
      { product: 'electricity', service: input.disco, faceValueKobo: input.amountKobo },
      costRules,
    ),
    details: {
      meterType: input.meterType as MeterType,
      ...(input.phone ? { customerPhone: input.phone } : {}),
    },
    asked: {
      disco: input.disco,
      meterNumber: input.meterNumber,
      meterType: input.meterType,
      amountKobo: input.amountKobo,
      phone: input.phone,
    },
  };
}

/** What the disco told about a meter at verify time; each fact only when it told it. */
export interface MeterFacts {
  minimumAmountKobo?: Kobo;
  arrearsKobo?: Kobo;
}

/**
 * The smallest amount a meter takes, when its disco told: the meter's own minimum vend, plus,
 * on a prepaid meter, the arrears a vend pays down first (what is left buys energy). The
 * spec's 1,000 Naira stays the floor whatever the disco says. Undefined when the disco told
 * neither fact, or when they ask no more than the floor.
 */
function meterMinimumKobo(meterType: string, facts: MeterFacts): Kobo | undefined {
  const arrears = meterType === 'prepaid' ? (facts.arrearsKobo ?? 0) : 0;
  if (facts.minimumAmountKobo === undefined && arrears === 0) return undefined;
  const required = (facts.minimumAmountKobo ?? 0) + arrears;
  return required > ELECTRICITY_MIN_KOBO ? kobo(required) : undefined;
}

/**
 * Refuses an electricity amount below the meter's own minimum (422, field `amount`), naming
 * the minimum in Naira in the message and in kobo in the metadata, so a partner can offer it.
 */
export function checkMeterMinimum(
  input: Pick<ElectricityInput, 'meterNumber' | 'meterType' | 'amountKobo'>,
  facts: MeterFacts,
): void {
  const minimum = meterMinimumKobo(input.meterType, facts);
  if (minimum === undefined || input.amountKobo >= minimum) return;
  const arrears = input.meterType === 'prepaid' ? (facts.arrearsKobo ?? 0) : 0;
  const why =
    arrears > 0
      ? ` (the disco's minimum vend ${formatNaira(kobo(facts.minimumAmountKobo ?? 0))} Naira plus ` +
        `${formatNaira(kobo(arrears))} Naira of arrears, which a vend pays first)`
      : '';
  const description = `amount must be at least ${formatNaira(minimum)} Naira for meter ${input.meterNumber}${why}.`;
  throw new DomainError('INVALID_PARAMETER', description, {
    violations: [{ field: 'amount', description }],
    metadata: { minimum_kobo: String(minimum), ...(arrears > 0 ? { arrears_kobo: String(arrears) } : {}) },
  });
}

export interface CableInput {
  provider: string;
  smartCard: string;
  packageCode: string;
  /** Optional customer phone. Empty when absent. */
  phone: string;
  /** "renew", "change", or empty for the default (renew when the package is the card's current bouquet). */
  subscriptionType?: string;
  /** Months to pay for, 1 to CABLE_MAX_MONTHS; 0 or absent means 1. */
  months?: number;
}

/** What the upstream told about a smart card at lookup time; each fact only when it told it. */
export interface CardFacts {
  currentBouquet?: string;
  currentBouquetCode?: string;
  renewalAmountKobo?: Kobo;
}

/**
 * Whether a package is the card's current bouquet: by code (ours or the upstream's) or by
 * name, ignoring case and surrounding spaces. False when the upstream told neither.
 */
function isCurrentBouquet(pkg: CablePackageRecord, card: CardFacts | null): boolean {
  if (card === null) return false;
  const same = (a: string | undefined, b: string) =>
    a !== undefined && b !== '' && a.trim().toLowerCase() === b.trim().toLowerCase();
  return (
    same(card.currentBouquetCode, pkg.packageCode) ||
    same(card.currentBouquetCode, pkg.providerCode) ||
    same(card.currentBouquet, pkg.name) ||
    same(card.currentBouquet, pkg.packageCode)
  );
}

/**
 * Matches the package code without regard to case or surrounding spaces, since partners
 * type "GOtv Max" as often as "GOTV MAX"; the stored code is what the provider receives.
 */
function findCablePackage(
  packages: readonly CablePackageRecord[],
  provider: string,
  packageCode: string,
): CablePackageRecord | null {
  const wanted = packageCode.trim().toLowerCase();
  return packages.find((p) => p.provider === provider && p.active && p.packageCode.toLowerCase() === wanted) ?? null;
}

/**
 * `packages` are the catalog's packages of the requested provider; `card` is what the
 * upstream told about the smart card (null when it told nothing usable). DStv and GOtv
 * payments renew or change: the default is renew when the package is the card's current
 * bouquet. A renewal is priced at the renewal amount the upstream told, else at the
 * package's price; either times the months.
 */
export function cableOrder(
  input: CableInput,
  packages: readonly CablePackageRecord[],
  tier: PricingTier,
  card: CardFacts | null = null,
  costRules: readonly CostRule[] = [],
): PurchaseOrder {
  const violations: FieldViolation[] = [];
  checkOneOf('provider', input.provider, CABLE_PROVIDERS, violations);
  checkSmartCard('smart_card', input.smartCard, violations);
  checkOptionalPhone('phone', input.phone, violations);
  const known = (CABLE_PROVIDERS as readonly string[]).includes(input.provider);
  const renewable = (RENEWABLE_CABLE_PROVIDERS as readonly string[]).includes(input.provider);
  const pkg = known ? findCablePackage(packages, input.provider, input.packageCode) : null;
  if (input.packageCode.trim() === '') {
    violations.push({ field: 'package_code', description: 'package_code is required.' });
  } else if (known && pkg === null) {
    const codes = packages.filter((p) => p.active).map((p) => p.packageCode);
    // A bouquet the upstream stopped selling is kept (old transactions name it) but withdrawn.
    const wanted = input.packageCode.trim().toLowerCase();
    const withdrawn = packages.find((p) => p.provider === input.provider && p.packageCode.toLowerCase() === wanted);
    violations.push({
      field: 'package_code',
      description:
        withdrawn === undefined
          ? `package_code ${describeValue(input.packageCode)} is not a ${input.provider} package; one of ` +
            `${codes.join(', ')}.`
          : `package_code ${describeValue(input.packageCode)} (${withdrawn.name}) is no longer sold by ` +
            `${input.provider}; one of ${codes.join(', ')}.`,
    });
  }
  const asked = input.subscriptionType ?? '';
  if (asked !== '') {
    checkOneOf('subscription_type', asked, SUBSCRIPTION_TYPES, violations);
    if (known && !renewable)
      violations.push({
        field: 'subscription_type',
        description: `${input.provider} payments have no subscription_type; leave it out.`,
      });
  }
  const months = input.months === undefined || input.months === 0 ? 1 : input.months;
  if (!Number.isSafeInteger(months) || months < 1 || months > CABLE_MAX_MONTHS) {
    violations.push({ field: 'months', description: `months must be a whole number from 1 to ${CABLE_MAX_MONTHS}.` });
  } else if (months > 1 && known && !renewable) {
    violations.push({
      field: 'months',
      description: `${input.provider} payments are for one month; leave months out.`,
    });
  }
  const current = pkg !== null && isCurrentBouquet(pkg, card);
  if (asked === 'renew' && pkg !== null && card?.currentBouquet !== undefined && !current) {
    violations.push({
      field: 'subscription_type',
      description:
        `renew keeps the card's current bouquet (${card.currentBouquet}), and package_code names ` +
        `${pkg.name}; send subscription_type "change" to move to it.`,
    });
  }
  throwIfViolations(violations);
  const chosen = pkg!;
  const subscriptionType: SubscriptionType | undefined = renewable
    ? ((asked || (current ? 'renew' : 'change')) as SubscriptionType)
    : undefined;
  const monthKobo =
    subscriptionType === 'renew' && current && card?.renewalAmountKobo !== undefined
      ? card.renewalAmountKobo
      : chosen.priceKobo;
  const faceValueKobo = kobo(monthKobo * months);
  return {
    product: 'cable',
    service: input.provider,
    recipient: input.smartCard,
    faceValueKobo,
    chargedKobo: faceValuePriceFor(tier, { product: 'cable', service: input.provider, faceValueKobo }, costRules),
    details: {
      packageCode: chosen.packageCode,
      planLabel: chosen.name,
      ...(subscriptionType ? { subscriptionType } : {}),
      months,
      ...(input.phone ? { customerPhone: input.phone } : {}),
    },
    // The code as matched (case and spaces do not make a different request). The new fields
    // only when given, so a request made before they existed hashes as it did.
    asked: {
      provider: input.provider,
      smartCard: input.smartCard,
      packageCode: input.packageCode.trim().toLowerCase(),
      phone: input.phone,
      ...(asked ? { subscriptionType: asked } : {}),
      ...(months !== 1 ? { months } : {}),
    },
  };
}

export interface BulkSmsInput {
  sender: string;
  recipients: readonly string[];
  message: string;
}

export function bulkSmsOrder(input: BulkSmsInput, ratePerPageKobo: Kobo, tier: PricingTier): PurchaseOrder {
  const violations: FieldViolation[] = [];
  checkSender('sender', input.sender, violations);
  checkSmsText('message', input.message, SMS_MAX_CHARACTERS, violations);
  if (input.recipients.length === 0) {
    violations.push({ field: 'recipients', description: 'recipients is required: a list of 11-digit numbers.' });
  } else if (input.recipients.length > SMS_MAX_RECIPIENTS) {
    violations.push({
      field: 'recipients',
      description: `recipients must list at most ${SMS_MAX_RECIPIENTS} numbers; got ${input.recipients.length}.`,
    });
  } else {
    // Report at most a handful of bad numbers: a list of 10,000 bad entries is one mistake, not 10,000.
    const MAX_REPORTED = 10;
    let reported = 0;
    input.recipients.forEach((phone, index) => {
      if (reported >= MAX_REPORTED) return;
      const before = violations.length;
      checkPhone(`recipients[${index}]`, phone, violations);
      if (violations.length > before) reported += 1;
    });
  }
  throwIfViolations(violations);
  const recipients = uniqueRecipients(input.recipients);
  const pages = smsPages(input.message);
  const faceValueKobo = smsChargeKobo(ratePerPageKobo, pages, recipients.length);
  return {
    product: 'bulksms',
    service: 'sms',
    recipient: '',
    faceValueKobo,
    chargedKobo: priceFor(tier, 'bulksms', '', faceValueKobo),
    details: { sender: input.sender, message: input.message, recipients, pages },
    asked: { sender: input.sender, recipients, message: input.message },
  };
}
