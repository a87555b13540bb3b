/** Store records to prepaid.v1 messages (init shapes). The only place that knows both. */
import type { MessageInitShape } from '@bufbuild/protobuf';
import { type TimestampSchema, timestampFromDate } from '@bufbuild/protobuf/wkt';
import type {
  AccountSchema,
  ApiKeySchema,
  CablePackageSchema,
  CatalogPlanSchema,
  KeyLimitsSchema,
  LedgerEntrySchema,
  TierSchema,
} from '../../gen/prepaid/v1/admin_pb.js';
import {
  Product,
  Mode as ProtoMode,
  type TransactionSchema,
  TransactionStatus,
} from '../../gen/prepaid/v1/types_pb.js';
import { invalid } from '../domain/errors.js';
import { type KeyControls, NO_KEY_CONTROLS } from '../domain/key-controls.js';
import type { Mode } from '../domain/mode.js';
import { type Kobo, kobo } from '../domain/money.js';
import type { ProductName, TransactionStatus as Status } from '../domain/products.js';
import type {
  AccountRecord,
  ApiKeyRecord,
  CablePackageRecord,
  DiscountRule,
  LedgerEntryRecord,
  PlanRecord,
  TierRecord,
  TransactionRecord,
} from '../domain/records.js';
import type { PricedCablePackage, PricedPlan } from '../purchases/service.js';

export const PRODUCT_TO_PROTO: Readonly<Record<ProductName, Product>> = {
  airtime: Product.AIRTIME,
  data: Product.DATA,
  electricity: Product.ELECTRICITY,
  cable: Product.CABLE,
  bulksms: Product.BULK_SMS,
};

export const STATUS_TO_PROTO: Readonly<Record<Status, TransactionStatus>> = {
  pending: TransactionStatus.PENDING,
  success: TransactionStatus.SUCCESS,
  failed: TransactionStatus.FAILED,
  reversed: TransactionStatus.REVERSED,
};

export const MODE_TO_PROTO: Readonly<Record<Mode, ProtoMode>> = {
  live: ProtoMode.LIVE,
  test: ProtoMode.TEST,
};

/**
 * A request's mode. Unset is live, so that every caller written before test mode (and every
 * caller that does not care) stays live; a value this core does not know is refused rather
 * than guessed, since guessing live could spend real money.
 */
export function modeIn(value: ProtoMode): Mode {
  switch (value) {
    case ProtoMode.UNSPECIFIED:
    case ProtoMode.LIVE:
      return 'live';
    case ProtoMode.TEST:
      return 'test';
    default:
      throw invalid('mode', `mode ${String(value)} is not one of MODE_LIVE (or unset) and MODE_TEST.`);
  }
}

/**
 * int64 from the wire into the safe-integer kobo and ids used inside. A value beyond the
 * safe range cannot be a real amount or id; it is reported against the field it came in.
 */
export function int64In(value: bigint, field: string): number {
  if (value > BigInt(Number.MAX_SAFE_INTEGER) || value < BigInt(Number.MIN_SAFE_INTEGER)) {
    throw invalid(field, `${field} is out of range.`);
  }
  return Number(value);
}

/** An int64 kobo field from the wire, as Kobo; out of range is reported against the field. */
export function koboIn(value: bigint, field: string): Kobo {
  return kobo(int64In(value, field));
}

export function productFromProto(product: Product): ProductName | null {
  const entry = Object.entries(PRODUCT_TO_PROTO).find(([, value]) => value === product);
  return entry ? (entry[0] as ProductName) : null;
}

/**
 * A Timestamp as timestampFromDate makes it, as an init shape: for the rows of a page (two
 * per transaction) without building each message through protobuf-es's reflection, since
 * the codec writes an init shape as it is.
 */
export function timestampInit(date: Date): MessageInitShape<typeof TimestampSchema> {
  const ms = date.getTime();
  const seconds = Math.floor(ms / 1000);
  return { seconds: BigInt(seconds), nanos: (ms - seconds * 1000) * 1_000_000 };
}

export function transactionMessage(tx: TransactionRecord): MessageInitShape<typeof TransactionSchema> {
  return {
    reference: tx.reference,
    accountId: tx.accountId,
    product: PRODUCT_TO_PROTO[tx.product],
    status: STATUS_TO_PROTO[tx.status],
    service: tx.service,
    recipient: tx.recipient,
    faceValueKobo: BigInt(tx.faceValueKobo),
    chargedKobo: BigInt(tx.chargedKobo),
    balanceAfterKobo: BigInt(tx.balanceAfterKobo),
    planId: BigInt(tx.details.planId ?? 0),
    planLabel: tx.details.planLabel ?? '',
    packageCode: tx.details.packageCode ?? '',
    meterType: tx.details.meterType ?? '',
    token: tx.result?.token ?? '',
    units: tx.result?.units ?? '',
    kctTokens: tx.result?.kctTokens ?? [],
    bonusTokens: tx.result?.bonusTokens ?? [],
    subscriptionType: tx.details.subscriptionType ?? '',
    months: tx.product === 'cable' ? (tx.details.months ?? 1) : 0,
    smsSent:
      tx.product === 'bulksms'
        ? (tx.result?.sent ?? tx.details.recipients?.length ?? tx.details.recipientCount ?? 0)
        : 0,
    smsPages: tx.details.pages ?? 0,
    failureReason: tx.failureReason ?? '',
    requestId: tx.requestId ?? '',
    needsAttention: tx.needsAttention,
    createdAt: timestampInit(tx.createdAt),
    updatedAt: timestampInit(tx.updatedAt),
    customerPhone: tx.details.customerPhone ?? '',
    livemode: tx.mode === 'live',
  };
}

export function accountMessage(account: AccountRecord): MessageInitShape<typeof AccountSchema> {
  return {
    accountId: account.accountId,
    name: account.name,
    tierId: account.tierId,
    balanceKobo: BigInt(account.balanceKobo),
    createdAt: timestampFromDate(account.createdAt),
    testBalanceKobo: BigInt(account.testBalanceKobo),
    ...(account.suspension
      ? {
          suspension: {
            suspendedAt: timestampFromDate(account.suspension.at),
            suspendedBy: account.suspension.by,
            note: account.suspension.note,
          },
        }
      : {}),
  };
}

/** A key as the admin sees it; `lastUsedAt` only where the key was listed with it. */
export function apiKeyMessage(
  key: ApiKeyRecord & { lastUsedAt?: Date | null; spentTodayKobo?: Kobo },
): MessageInitShape<typeof ApiKeySchema> {
  return {
    publicKey: key.publicKey,
    accountId: key.accountId,
    allowedIps: key.allowedIps,
    revoked: key.revoked,
    createdAt: timestampFromDate(key.createdAt),
    mode: MODE_TO_PROTO[key.mode],
    ...(key.lastUsedAt ? { lastUsedAt: timestampFromDate(key.lastUsedAt) } : {}),
    limits: keyLimitsMessage(key.controls ?? NO_KEY_CONTROLS),
    spentTodayKobo: BigInt(key.spentTodayKobo ?? 0),
    ...(key.expiresAt ? { expiresAt: timestampFromDate(key.expiresAt) } : {}),
    ...(key.frozen
      ? { frozenAt: timestampFromDate(key.frozen.at), frozenReason: key.frozen.reason, frozenBy: key.frozen.by }
      : {}),
  };
}

/** A key's controls as the contract's KeyLimits. */
export function keyLimitsMessage(controls: KeyControls): MessageInitShape<typeof KeyLimitsSchema> {
  return {
    scopes: [...controls.scopes],
    capPerPurchaseKobo: BigInt(controls.capPerPurchaseKobo),
    capPerDayKobo: BigInt(controls.capPerDayKobo),
  };
}

/** KeyLimits from a request: unset is everything, no caps. */
export function keyLimitsIn(
  limits: { scopes: string[]; capPerPurchaseKobo: bigint; capPerDayKobo: bigint } | undefined,
): { scopes: string[]; capPerPurchaseKobo: number; capPerDayKobo: number } {
  if (limits === undefined) return { scopes: [], capPerPurchaseKobo: 0, capPerDayKobo: 0 };
  return {
    scopes: limits.scopes,
    capPerPurchaseKobo: koboCapIn(limits.capPerPurchaseKobo),
    capPerDayKobo: koboCapIn(limits.capPerDayKobo),
  };
}

/** A cap from the wire; one outside the safe range becomes -1, which the cap check refuses against its field. */
export function koboCapIn(value: bigint): number {
  return value > BigInt(Number.MAX_SAFE_INTEGER) || value < 0n ? -1 : Number(value);
}

export function ledgerEntryMessage(entry: LedgerEntryRecord): MessageInitShape<typeof LedgerEntrySchema> {
  return {
    entryId: BigInt(entry.entryId),
    accountId: entry.accountId,
    amountKobo: BigInt(entry.amountKobo),
    balanceAfterKobo: BigInt(entry.balanceAfterKobo),
    kind: entry.kind,
    reference: entry.reference,
    memo: entry.memo,
    createdAt: timestampInit(entry.createdAt),
    mode: MODE_TO_PROTO[entry.mode],
  };
}

export function tierMessage(tier: TierRecord): MessageInitShape<typeof TierSchema> {
  return {
    tierId: tier.tierId,
    name: tier.name,
    apiAccess: tier.apiAccess,
    discounts: tier.discounts.map((d: DiscountRule) => ({
      product: PRODUCT_TO_PROTO[d.product],
      service: d.service,
      basisPoints: d.basisPoints,
    })),
    priceRules: tier.priceRules.map((r) => ({
      network: r.network,
      planType: r.planType,
      marginBasisPoints: r.marginBasisPoints,
      marginKobo: BigInt(r.marginKobo),
      floorKobo: BigInt(r.floorKobo),
      ceilingKobo: BigInt(r.ceilingKobo),
      product: r.product,
      service: r.service,
      aboveFaceValue: r.aboveFaceValue,
    })),
  };
}

/** What the catalog's and the priced messages of a data plan say alike. */
function planFacts(plan: PlanRecord) {
  return {
    planId: BigInt(plan.planId),
    network: plan.network,
    label: plan.label,
    validity: plan.validity,
    faceValueKobo: BigInt(plan.faceValueKobo),
    type: plan.type,
    sizeMb: plan.sizeMb,
    validityDays: plan.validityDays,
  };
}

/** A plan as the catalog keeps it; `typeEnabled` is false when its type is switched off on its network. */
export function catalogPlanMessage(plan: PlanRecord, typeEnabled = true): MessageInitShape<typeof CatalogPlanSchema> {
  return {
    ...planFacts(plan),
    tierPrices: Object.entries(plan.tierPricesKobo).map(([tierId, priceKobo]) => ({
      tierId,
      priceKobo: BigInt(priceKobo),
    })),
    active: plan.active,
    providerCode: plan.providerCode,
    costs: Object.entries(plan.costsKobo).map(([upstream, costKobo]) => ({ upstream, costKobo: BigInt(costKobo) })),
    typeEnabled,
  };
}

export function cablePackageMessage(pkg: CablePackageRecord): MessageInitShape<typeof CablePackageSchema> {
  return {
    provider: pkg.provider,
    packageCode: pkg.packageCode,
    name: pkg.name,
    priceKobo: BigInt(pkg.priceKobo),
    active: pkg.active,
    providerCode: pkg.providerCode,
  };
}

/** A data plan at this account's price, as PurchaseService.ListPlans and the holder's prices show it. */
export function pricedPlanMessage({ plan, priceKobo }: PricedPlan) {
  return { ...planFacts(plan), priceKobo: BigInt(priceKobo) };
}

/** A cable package at this account's price, as PurchaseService.ListPackages and the holder's prices show it. */
export function pricedPackageMessage({ pkg, priceKobo }: PricedCablePackage) {
  return {
    provider: pkg.provider,
    packageCode: pkg.packageCode,
    name: pkg.name,
    faceValueKobo: BigInt(pkg.priceKobo),
    priceKobo: BigInt(priceKobo),
  };
}
