/**
 * Document <-> record mapping for the MongoDB adapter. Documents are what the collections
 * hold (snake_case fields, BSON dates, money as 64-bit integers); records are the port's
 * types. Nothing else in the adapter converts between the two.
 *
 * Money is written as BSON int64 (`Long`), never as a double. A JS number is serialized
 * as int32 or double depending on its size, so a balance could silently change type the
 * first time it passed 2^31 kobo; with int64 on every write the server does exact integer
 * arithmetic in `$inc` and `$sum`, and the collection validators (schema.ts) can insist on
 * the type. The driver hands int64 values back as JS numbers when they fit in 2^53, which
 * every amount the platform allows does (core/domain/money.ts); `readKobo` refuses
 * anything else rather than round it.
 */
import { Long, type ObjectId } from 'mongodb';
import type { KeyControls } from '../../domain/key-controls.js';
import { isMode, type Mode } from '../../domain/mode.js';
import { type Kobo, kobo } from '../../domain/money.js';
import type {
  DeliveryResult,
  PlanType,
  ProductName,
  PurchaseDetails,
  TransactionStatus,
} from '../../domain/products.js';
import type {
  AccountRecord,
  ApiKeyRecord,
  CablePackageRecord,
  DiscountRule,
  LedgerEntryRecord,
  LedgerKind,
  NewTransaction,
  PlanRecord,
  PriceRule,
  TierRecord,
  TransactionRecord,
} from '../../domain/records.js';
import type { KeyFreeze } from '../../domain/velocity.js';

/** An int64 as written (`Long`) or as the driver reads it back (a number when it fits in 2^53). */
export type StoredInteger = Long | number;

/** Writes a safe integer as BSON int64. A value that is not one is a bug, so it throws. */
export function toLong(value: number, field: string): Long {
  if (!Number.isSafeInteger(value))
    throw new RangeError(`store: ${field} must be a safe integer, got ${String(value)}`);
  return Long.fromNumber(value);
}

/**
 * Reads a stored integer back as a JS number. int32, int64 and integral doubles (a value
 * typed by hand in mongosh is a double) are accepted; a fraction, a value beyond 2^53 or
 * anything that is not a number means the document was damaged outside the adapter, and
 * guessing would move money, so it throws.
 */
export function readInteger(value: unknown, field: string): number {
  if (typeof value === 'number' && Number.isSafeInteger(value)) return value;
  if (Long.isLong(value)) {
    if (
      value.lessThanOrEqual(Long.fromNumber(Number.MAX_SAFE_INTEGER)) &&
      value.greaterThanOrEqual(Long.fromNumber(Number.MIN_SAFE_INTEGER))
    ) {
      return value.toNumber();
    }
  }
  throw new RangeError(`store: ${field} is not a safe integer in the database (${String(value)})`);
}

/** `readInteger` for money, named for what it holds. */
export function readKobo(value: unknown, field: string): Kobo {
  return kobo(readInteger(value, field));
}

/** A Date as stored. An invalid Date is a bug: BSON would store it as NaN milliseconds. */
export function toDate(date: Date, field: string): Date {
  if (!(date instanceof Date) || !Number.isSafeInteger(date.getTime()))
    throw new TypeError(`store: ${field} is not a valid Date`);
  return new Date(date.getTime());
}

export interface AccountDoc {
  /** The account id. */
  _id: string;
  name: string;
  tier_id: string;
  /** The live wallet's balance. */
  balance_kobo: StoredInteger;
  /** The test wallet's balance; absent on an account written before test mode (read as 0). */
  test_balance_kobo?: StoredInteger;
  /**
   * How many ledger entries the account has; the next entry's entry_id is this plus one.
   * It lives on the account so that a debit, its entry id and its balance come from one
   * atomic update of one document (see index.ts, "Ledger entry ids").
   */
  ledger_seq: StoredInteger;
  created_at: Date;
  /** The wallets' low-balance thresholds (core/domain/funding.ts); absent or null: none. */
  low_balance_kobo?: StoredInteger | null;
  test_low_balance_kobo?: StoredInteger | null;
  /** Present while the platform's staff have the account suspended. */
  suspension?: { at: Date; by: string; note: string } | null;
  /** What the account allows to one recipient; absent: no controls. */
  recipient_controls?: {
    blocklist: boolean;
    per_day_count: number;
    per_day_kobo: StoredInteger;
    duplicate_guard: boolean;
  };
  /** When the owner's email and phone were proven (schema step 32); null: not yet. */
  email_verified_at?: Date | null;
  phone_verified_at?: Date | null;
  /** The identity level (schema step 35, docs/kyc.md); absent: 3, as every account the operator made. */
  kyc_level?: number;
  /** What the funding providers credited to the live wallet in all; absent: 0. */
  kyc_inflow_kobo?: StoredInteger;
}

/** The operator's account: its owner's email and phone count as proven when it is made. */
export function accountToDoc(
  account: Omit<AccountRecord, 'balanceKobo' | 'testBalanceKobo' | 'emailVerifiedAt' | 'phoneVerifiedAt'>,
): AccountDoc {
  return {
    _id: account.accountId,
    name: account.name,
    tier_id: account.tierId,
    balance_kobo: Long.ZERO,
    test_balance_kobo: Long.ZERO,
    ledger_seq: Long.ZERO,
    created_at: toDate(account.createdAt, 'createdAt'),
    email_verified_at: toDate(account.createdAt, 'createdAt'),
    phone_verified_at: toDate(account.createdAt, 'createdAt'),
  };
}

export function accountFromDoc(doc: AccountDoc): AccountRecord {
  return {
    accountId: doc._id,
    name: doc.name,
    tierId: doc.tier_id,
    balanceKobo: readKobo(doc.balance_kobo, 'accounts.balance_kobo'),
    testBalanceKobo: readKobo(doc.test_balance_kobo ?? 0, 'accounts.test_balance_kobo'),
    createdAt: doc.created_at,
    emailVerifiedAt: doc.email_verified_at ?? null,
    phoneVerifiedAt: doc.phone_verified_at ?? null,
    ...(doc.suspension ? { suspension: { ...doc.suspension } } : {}),
    ...(doc.recipient_controls
      ? {
          recipientControls: {
            blocklist: doc.recipient_controls.blocklist === true,
            perDayCount: readInteger(doc.recipient_controls.per_day_count ?? 0, 'accounts.recipient_controls'),
            perDayKobo: readKobo(doc.recipient_controls.per_day_kobo ?? 0, 'accounts.recipient_controls'),
            duplicateGuard: doc.recipient_controls.duplicate_guard === true,
          },
        }
      : {}),
  };
}

/** The field of the account document that holds one wallet's balance. */
export function balanceField(mode: Mode): 'balance_kobo' | 'test_balance_kobo' {
  return mode === 'test' ? 'test_balance_kobo' : 'balance_kobo';
}

/**
 * A stored mode. Documents written before test mode have none (the schema step fills it in,
 * but a read during a rolling upgrade may still meet one): they are live.
 */
export function readMode(value: unknown, field: string): Mode {
  if (value === undefined || value === null) return 'live';
  if (isMode(value)) return value;
  throw new RangeError(`store: ${field} is not a mode in the database (${String(value)})`);
}

export interface ApiKeyDoc {
  /** The public key. */
  _id: string;
  account_id: string;
  secret_hash: string;
  allowed_ips: string[];
  revoked: boolean;
  /** Absent on keys written before test mode: live. */
  mode?: Mode;
  created_at: Date;
  /** What the pair may do; absent: everything, no caps. */
  controls?: KeyControlsDoc;
  /** When a rolled pair stops working; absent: never (until revoked). */
  expires_at?: Date;
  /** The pair's freeze (core/domain/velocity.ts); absent: not frozen. */
  frozen?: { at: Date; reason: string; by: string };
}

/** KeyControls as stored, the caps as int64 kobo. */
export interface KeyControlsDoc {
  scopes: string[];
  cap_per_purchase_kobo: StoredInteger;
  cap_per_day_kobo: StoredInteger;
}

export function keyControlsToDoc(controls: KeyControls): KeyControlsDoc {
  return {
    scopes: [...controls.scopes],
    cap_per_purchase_kobo: toLong(controls.capPerPurchaseKobo, 'capPerPurchaseKobo'),
    cap_per_day_kobo: toLong(controls.capPerDayKobo, 'capPerDayKobo'),
  };
}

export function keyControlsFromDoc(doc: KeyControlsDoc): KeyControls {
  return {
    scopes: [...doc.scopes],
    capPerPurchaseKobo: readKobo(doc.cap_per_purchase_kobo, 'api_keys.controls.cap_per_purchase_kobo'),
    capPerDayKobo: readKobo(doc.cap_per_day_kobo, 'api_keys.controls.cap_per_day_kobo'),
  };
}

export function apiKeyToDoc(key: ApiKeyRecord): ApiKeyDoc {
  const doc: ApiKeyDoc = {
    _id: key.publicKey,
    account_id: key.accountId,
    secret_hash: key.secretHash,
    allowed_ips: [...key.allowedIps],
    revoked: key.revoked,
    mode: key.mode,
    created_at: toDate(key.createdAt, 'createdAt'),
  };
  if (key.controls !== undefined) doc.controls = keyControlsToDoc(key.controls);
  if (key.expiresAt !== undefined) doc.expires_at = toDate(key.expiresAt, 'expiresAt');
  if (key.frozen !== undefined) doc.frozen = keyFreezeToDoc(key.frozen);
  return doc;
}

export function apiKeyFromDoc(doc: ApiKeyDoc): ApiKeyRecord {
  const key: ApiKeyRecord = {
    publicKey: doc._id,
    accountId: doc.account_id,
    secretHash: doc.secret_hash,
    allowedIps: doc.allowed_ips,
    revoked: doc.revoked,
    mode: readMode(doc.mode, 'api_keys.mode'),
    createdAt: doc.created_at,
  };
  if (doc.controls !== undefined) key.controls = keyControlsFromDoc(doc.controls);
  if (doc.expires_at !== undefined) key.expiresAt = doc.expires_at;
  if (doc.frozen !== undefined) key.frozen = { at: doc.frozen.at, reason: doc.frozen.reason, by: doc.frozen.by };
  return key;
}

export function keyFreezeToDoc(freeze: KeyFreeze): NonNullable<ApiKeyDoc['frozen']> {
  return { at: toDate(freeze.at, 'frozen.at'), reason: freeze.reason, by: freeze.by };
}

interface DiscountDoc {
  product: ProductName;
  service: string;
  basis_points: number;
}

export interface TierDoc {
  /** The tier id. */
  _id: string;
  name: string;
  api_access: boolean;
  discounts: DiscountDoc[];
  /** Absent on tiers written before price rules existed: none. */
  price_rules?: PriceRuleDoc[];
}

interface PriceRuleDoc {
  /** Absent on rules written before airtime, electricity and cable had rules: data. */
  product?: PriceRule['product'];
  service?: string;
  above_face_value?: boolean;
  network: string;
  plan_type: string;
  margin_basis_points: number;
  margin_kobo: StoredInteger;
  floor_kobo: StoredInteger;
  ceiling_kobo: StoredInteger;
}

export function tierToDoc(tier: TierRecord): TierDoc {
  return {
    _id: tier.tierId,
    name: tier.name,
    api_access: tier.apiAccess,
    discounts: tier.discounts.map((d) => ({ product: d.product, service: d.service, basis_points: d.basisPoints })),
    price_rules: tier.priceRules.map((r) => ({
      product: r.product,
      service: r.service,
      above_face_value: r.aboveFaceValue,
      network: r.network,
      plan_type: r.planType,
      margin_basis_points: r.marginBasisPoints,
      margin_kobo: toLong(r.marginKobo, 'priceRules.marginKobo'),
      floor_kobo: toLong(r.floorKobo, 'priceRules.floorKobo'),
      ceiling_kobo: toLong(r.ceilingKobo, 'priceRules.ceilingKobo'),
    })),
  };
}

export function tierFromDoc(doc: TierDoc): TierRecord {
  return {
    tierId: doc._id,
    name: doc.name,
    apiAccess: doc.api_access,
    discounts: doc.discounts.map(
      (d): DiscountRule => ({ product: d.product, service: d.service, basisPoints: d.basis_points }),
    ),
    priceRules: (doc.price_rules ?? []).map(
      (r): PriceRule => ({
        product: r.product ?? 'data',
        service: r.service ?? '',
        aboveFaceValue: r.above_face_value ?? false,
        network: r.network,
        planType: r.plan_type,
        marginBasisPoints: r.margin_basis_points,
        marginKobo: readKobo(r.margin_kobo, 'tiers.price_rules.margin_kobo'),
        floorKobo: readKobo(r.floor_kobo, 'tiers.price_rules.floor_kobo'),
        ceilingKobo: readKobo(r.ceiling_kobo, 'tiers.price_rules.ceiling_kobo'),
      }),
    ),
  };
}

/**
 * Tier prices are a list of pairs rather than an object keyed by tier id: a field name
 * comes from an operator's input here, and MongoDB gives `.` and `$` in field names
 * special meanings.
 */
interface TierPriceDoc {
  tier_id: string;
  price_kobo: StoredInteger;
}

export interface PlanDoc {
  /** The plan id partners send; small positive integers. */
  _id: number;
  network: string;
  label: string;
  validity: string;
  face_value_kobo: StoredInteger;
  tier_prices: TierPriceDoc[];
  active: boolean;
  provider_code: string;
  /** Absent on plans written before plan types existed: direct, size and validity days unknown (0). */
  plan_type?: string;
  size_mb?: number;
  validity_days?: number;
  /** What each upstream charges; a list of pairs for the reason tier_prices is one. */
  costs?: UpstreamCostDoc[];
}

interface UpstreamCostDoc {
  upstream: string;
  cost_kobo: StoredInteger;
}

/** Every field but the id, for an upsert's $set. */
export function planFields(plan: PlanRecord): Omit<PlanDoc, '_id'> {
  return {
    network: plan.network,
    label: plan.label,
    validity: plan.validity,
    face_value_kobo: toLong(plan.faceValueKobo, 'faceValueKobo'),
    tier_prices: Object.entries(plan.tierPricesKobo).map(([tierId, priceKobo]) => ({
      tier_id: tierId,
      price_kobo: toLong(priceKobo, `tierPricesKobo.${tierId}`),
    })),
    active: plan.active,
    provider_code: plan.providerCode,
    plan_type: plan.type,
    size_mb: plan.sizeMb,
    validity_days: plan.validityDays,
    costs: Object.entries(plan.costsKobo).map(([upstream, costKobo]) => ({
      upstream,
      cost_kobo: toLong(costKobo, `costsKobo.${upstream}`),
    })),
  };
}

export function planFromDoc(doc: PlanDoc): PlanRecord {
  const tierPricesKobo: Record<string, Kobo> = {};
  for (const price of doc.tier_prices)
    tierPricesKobo[price.tier_id] = readKobo(price.price_kobo, 'plans.tier_prices.price_kobo');
  const costsKobo: Record<string, Kobo> = {};
  for (const cost of doc.costs ?? []) costsKobo[cost.upstream] = readKobo(cost.cost_kobo, 'plans.costs.cost_kobo');
  return {
    planId: readInteger(doc._id, 'plans._id'),
    network: doc.network,
    label: doc.label,
    validity: doc.validity,
    type: (doc.plan_type ?? 'direct') as PlanType,
    sizeMb: doc.size_mb ?? 0,
    validityDays: doc.validity_days ?? 0,
    faceValueKobo: readKobo(doc.face_value_kobo, 'plans.face_value_kobo'),
    tierPricesKobo,
    costsKobo,
    active: doc.active,
    providerCode: doc.provider_code,
  };
}

export interface CablePackageDoc {
  /** Allocated by the server on the first upsert; (provider, package_code) is the real key. */
  _id: ObjectId;
  provider: string;
  package_code: string;
  name: string;
  price_kobo: StoredInteger;
  active: boolean;
  provider_code: string;
}

/** Every field the upsert sets; the key fields are in its filter. */
export function cablePackageFields(
  pkg: CablePackageRecord,
): Pick<CablePackageDoc, 'name' | 'price_kobo' | 'active' | 'provider_code'> {
  return {
    name: pkg.name,
    price_kobo: toLong(pkg.priceKobo, 'priceKobo'),
    active: pkg.active,
    provider_code: pkg.providerCode,
  };
}

export function cablePackageFromDoc(doc: CablePackageDoc): CablePackageRecord {
  return {
    provider: doc.provider,
    packageCode: doc.package_code,
    name: doc.name,
    priceKobo: readKobo(doc.price_kobo, 'cable_packages.price_kobo'),
    active: doc.active,
    providerCode: doc.provider_code,
  };
}

/** A named value: the SMS rate. */
export interface SettingDoc {
  _id: string;
  value: StoredInteger;
}

/** A named sequence: the largest plan id ever allocated or written. */
export interface CounterDoc {
  _id: string;
  value: StoredInteger;
}

export interface LedgerEntryDoc {
  /** Chosen before the write transaction starts, so a retried transaction writes the same entry. */
  _id: ObjectId;
  account_id: string;
  /** The wallet (with account_id); absent on entries written before test mode: live. */
  mode?: Mode;
  /** Per account (both wallets share the sequence), from accounts.ledger_seq; (account_id, entry_id) is unique. */
  entry_id: StoredInteger;
  amount_kobo: StoredInteger;
  balance_after_kobo: StoredInteger;
  kind: LedgerKind;
  reference: string;
  memo: string;
  created_at: Date;
}

export function ledgerEntryToDoc(entry: LedgerEntryRecord, id: ObjectId): LedgerEntryDoc {
  return {
    _id: id,
    account_id: entry.accountId,
    mode: entry.mode,
    entry_id: toLong(entry.entryId, 'entryId'),
    amount_kobo: toLong(entry.amountKobo, 'amountKobo'),
    balance_after_kobo: toLong(entry.balanceAfterKobo, 'balanceAfterKobo'),
    kind: entry.kind,
    reference: entry.reference,
    memo: entry.memo,
    created_at: toDate(entry.createdAt, 'createdAt'),
  };
}

export function ledgerEntryFromDoc(doc: LedgerEntryDoc): LedgerEntryRecord {
  return {
    entryId: readInteger(doc.entry_id, 'ledger_entries.entry_id'),
    accountId: doc.account_id,
    mode: readMode(doc.mode, 'ledger_entries.mode'),
    amountKobo: readKobo(doc.amount_kobo, 'ledger_entries.amount_kobo'),
    balanceAfterKobo: readKobo(doc.balance_after_kobo, 'ledger_entries.balance_after_kobo'),
    kind: doc.kind,
    reference: doc.reference,
    memo: doc.memo,
    createdAt: doc.created_at,
  };
}

export interface TransactionDoc {
  /** The transaction reference. */
  _id: string;
  account_id: string;
  /** Absent on purchases written before test mode: live. */
  mode?: Mode;
  product: ProductName;
  status: TransactionStatus;
  service: string;
  recipient: string;
  face_value_kobo: StoredInteger;
  charged_kobo: StoredInteger;
  balance_after_kobo: StoredInteger;
  details: PurchaseDetails;
  result: DeliveryResult | null;
  failure_reason: string | null;
  request_id: string | null;
  request_hash: string | null;
  attempts: number;
  next_attempt_at: Date;
  needs_attention: boolean;
  created_at: Date;
  updated_at: Date;
  /** The capped key the charge was counted against (spend.ts); absent for every other purchase. */
  spend_key?: string;
  /** The Lagos day the purchase was counted on for its recipient's limits (recipients.ts); absent otherwise. */
  recipient_day?: number;
  /** True when the account's duplicate guard marked the purchase (recipients.ts); absent otherwise. */
  recipient_guarded?: boolean;
}

/** The pending transaction a reserve writes, once the debit gave its balance. */
export function newTransactionToDoc(tx: NewTransaction, balanceAfterKobo: Kobo): TransactionDoc {
  const createdAt = toDate(tx.createdAt, 'createdAt');
  return {
    _id: tx.reference,
    account_id: tx.accountId,
    mode: tx.mode,
    product: tx.product,
    status: 'pending',
    service: tx.service,
    recipient: tx.recipient,
    face_value_kobo: toLong(tx.faceValueKobo, 'faceValueKobo'),
    charged_kobo: toLong(tx.chargedKobo, 'chargedKobo'),
    balance_after_kobo: toLong(balanceAfterKobo, 'balanceAfterKobo'),
    details: withoutUndefined(tx.details),
    result: null,
    failure_reason: null,
    request_id: tx.requestId,
    request_hash: tx.requestHash,
    attempts: 0,
    next_attempt_at: toDate(tx.nextAttemptAt, 'nextAttemptAt'),
    needs_attention: false,
    created_at: createdAt,
    updated_at: createdAt,
  };
}

export function transactionFromDoc(doc: TransactionDoc): TransactionRecord {
  return {
    reference: doc._id,
    accountId: doc.account_id,
    mode: readMode(doc.mode, 'transactions.mode'),
    product: doc.product,
    status: doc.status,
    service: doc.service,
    recipient: doc.recipient,
    faceValueKobo: readKobo(doc.face_value_kobo, 'transactions.face_value_kobo'),
    chargedKobo: readKobo(doc.charged_kobo, 'transactions.charged_kobo'),
    balanceAfterKobo: readKobo(doc.balance_after_kobo, 'transactions.balance_after_kobo'),
    details: doc.details,
    result: doc.result,
    failureReason: doc.failure_reason,
    requestId: doc.request_id,
    requestHash: doc.request_hash,
    attempts: readInteger(doc.attempts, 'transactions.attempts'),
    nextAttemptAt: doc.next_attempt_at,
    needsAttention: doc.needs_attention,
    createdAt: doc.created_at,
    updatedAt: doc.updated_at,
  };
}

/**
 * A copy without the keys whose value is undefined. BSON would store them as null and they
 * would read back as null; the SQLite adapter (through JSON) drops them, and so does this one.
 */
export function withoutUndefined<T extends PurchaseDetails | DeliveryResult>(value: T): T {
  return Object.fromEntries(Object.entries(value).filter(([, v]) => v !== undefined)) as T;
}
