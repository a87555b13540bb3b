/**
 * Row <-> record mapping for the SQLite adapter. Rows are what better-sqlite3 returns
 * (times as integer milliseconds, booleans as 0/1, nested values as JSON text); records
 * are the port's types. Nothing else in the adapter converts between the two.
 */
import type { KeyControls } from '../../domain/key-controls.js';
import type { Mode } from '../../domain/mode.js';
import { type Kobo, kobo } from '../../domain/money.js';
import type {
  DeliveryResult,
  PlanType,
  ProductName,
  PurchaseDetails,
  TransactionStatus,
} from '../../domain/products.js';
import type { RecipientControls } from '../../domain/recipient-controls.js';
import type {
  AccountRecord,
  ApiKeyRecord,
  CablePackageRecord,
  DiscountRule,
  LedgerEntryRecord,
  LedgerKind,
  PlanRecord,
  PriceRule,
  TierRecord,
  TransactionRecord,
} from '../../domain/records.js';
import { encodeLedgerCursor, encodeTransactionCursor } from '../paging.js';

/** A Date as stored: integer milliseconds since the epoch. An invalid Date is a bug. */
export function toMs(date: Date): number {
  const ms = date.getTime();
  if (!Number.isSafeInteger(ms)) throw new TypeError('store: invalid Date');
  return ms;
}

export function fromMs(ms: number): Date {
  return new Date(ms);
}

export function toFlag(value: boolean): 0 | 1 {
  return value ? 1 : 0;
}

export interface AccountRow {
  account_id: string;
  name: string;
  tier_id: string;
  balance_kobo: number;
  test_balance_kobo: number;
  created_at: number;
  /** Null (or absent before the schema step that added them) unless the account is suspended. */
  suspended_at?: number | null;
  suspended_by?: string | null;
  suspension_note?: string | null;
  /** RecipientControls as JSON; null (or absent before its schema step): none. */
  recipient_controls?: string | null;
  /** When the owner's email and phone were proven (schema step 38); null: not yet. */
  email_verified_at?: number | null;
  phone_verified_at?: number | null;
}

export function accountFromRow(row: AccountRow): AccountRecord {
  const account: AccountRecord = {
    accountId: row.account_id,
    name: row.name,
    tierId: row.tier_id,
    balanceKobo: kobo(row.balance_kobo),
    testBalanceKobo: kobo(row.test_balance_kobo),
    createdAt: fromMs(row.created_at),
    emailVerifiedAt: row.email_verified_at == null ? null : fromMs(row.email_verified_at),
    phoneVerifiedAt: row.phone_verified_at == null ? null : fromMs(row.phone_verified_at),
  };
  if (row.suspended_at != null)
    account.suspension = {
      at: fromMs(row.suspended_at),
      by: row.suspended_by ?? '',
      note: row.suspension_note ?? '',
    };
  if (row.recipient_controls != null)
    account.recipientControls = JSON.parse(row.recipient_controls) as RecipientControls;
  return account;
}

export interface ApiKeyRow {
  public_key: string;
  account_id: string;
  secret_hash: string;
  allowed_ips: string;
  revoked: number;
  mode: string;
  created_at: number;
  /** KeyControls as JSON; NULL: none. */
  controls: string | null;
  /** When a rolled pair stops working; NULL: never (until revoked). */
  expires_at: number | null;
  /** KeyFreeze as JSON (`at` in epoch ms); NULL: not frozen. */
  frozen: string | null;
}

export function apiKeyFromRow(row: ApiKeyRow): ApiKeyRecord {
  const key: ApiKeyRecord = {
    publicKey: row.public_key,
    accountId: row.account_id,
    secretHash: row.secret_hash,
    allowedIps: JSON.parse(row.allowed_ips) as string[],
    revoked: row.revoked === 1,
    mode: row.mode as Mode,
    createdAt: fromMs(row.created_at),
  };
  if (row.controls !== null) key.controls = JSON.parse(row.controls) as KeyControls;
  if (row.expires_at !== null) key.expiresAt = fromMs(row.expires_at);
  if (row.frozen !== null) {
    const frozen = JSON.parse(row.frozen) as { at: number; reason: string; by: string };
    key.frozen = { at: fromMs(frozen.at), reason: frozen.reason, by: frozen.by };
  }
  return key;
}

export interface TierRow {
  tier_id: string;
  name: string;
  api_access: number;
  discounts: string;
  price_rules: string;
}

export function tierFromRow(row: TierRow): TierRecord {
  return {
    tierId: row.tier_id,
    name: row.name,
    apiAccess: row.api_access === 1,
    discounts: JSON.parse(row.discounts) as DiscountRule[],
    // Rules kept before airtime, electricity and cable had rules are data rules.
    priceRules: (JSON.parse(row.price_rules) as Partial<PriceRule>[]).map(
      (r): PriceRule => ({ product: 'data', service: '', aboveFaceValue: false, ...r }) as PriceRule,
    ),
  };
}

export function tierToParams(tier: TierRecord) {
  return {
    tier_id: tier.tierId,
    name: tier.name,
    api_access: toFlag(tier.apiAccess),
    discounts: JSON.stringify(tier.discounts),
    price_rules: JSON.stringify(tier.priceRules),
  };
}

export interface PlanRow {
  plan_id: number;
  network: string;
  label: string;
  validity: string;
  face_value_kobo: number;
  tier_prices: string;
  active: number;
  provider_code: string;
  plan_type: string;
  size_mb: number;
  validity_days: number;
  costs: string;
}

export function planFromRow(row: PlanRow): PlanRecord {
  return {
    planId: row.plan_id,
    network: row.network,
    label: row.label,
    validity: row.validity,
    type: row.plan_type as PlanType,
    sizeMb: row.size_mb,
    validityDays: row.validity_days,
    faceValueKobo: kobo(row.face_value_kobo),
    tierPricesKobo: tierPricesFromJson(row.tier_prices),
    costsKobo: tierPricesFromJson(row.costs),
    active: row.active === 1,
    providerCode: row.provider_code,
  };
}

/** A plan's tier prices or costs as stored (JSON text of a name -> kobo), each checked to be whole kobo. */
function tierPricesFromJson(text: string): Record<string, Kobo> {
  const prices: Record<string, Kobo> = {};
  for (const [tierId, price] of Object.entries(JSON.parse(text) as Record<string, number>))
    prices[tierId] = kobo(price);
  return prices;
}

/** Parameters for the plan statements; plan_id null lets SQLite allocate the next id. */
export function planToParams(plan: PlanRecord) {
  return {
    plan_id: plan.planId === 0 ? null : plan.planId,
    network: plan.network,
    label: plan.label,
    validity: plan.validity,
    face_value_kobo: plan.faceValueKobo,
    tier_prices: JSON.stringify(plan.tierPricesKobo),
    active: toFlag(plan.active),
    provider_code: plan.providerCode,
    plan_type: plan.type,
    size_mb: plan.sizeMb,
    validity_days: plan.validityDays,
    costs: JSON.stringify(plan.costsKobo),
  };
}

export interface CablePackageRow {
  provider: string;
  package_code: string;
  name: string;
  price_kobo: number;
  active: number;
  provider_code: string;
}

export function cablePackageFromRow(row: CablePackageRow): CablePackageRecord {
  return {
    provider: row.provider,
    packageCode: row.package_code,
    name: row.name,
    priceKobo: kobo(row.price_kobo),
    active: row.active === 1,
    providerCode: row.provider_code,
  };
}

export function cablePackageToParams(pkg: CablePackageRecord) {
  return {
    provider: pkg.provider,
    package_code: pkg.packageCode,
    name: pkg.name,
    price_kobo: pkg.priceKobo,
    active: toFlag(pkg.active),
    provider_code: pkg.providerCode,
  };
}

export interface LedgerRow {
  entry_id: number;
  account_id: string;
  mode: string;
  amount_kobo: number;
  balance_after_kobo: number;
  kind: string;
  reference: string;
  memo: string;
  created_at: number;
}

export function ledgerFromRow(row: LedgerRow): LedgerEntryRecord {
  return {
    entryId: row.entry_id,
    accountId: row.account_id,
    mode: row.mode as Mode,
    amountKobo: kobo(row.amount_kobo),
    balanceAfterKobo: kobo(row.balance_after_kobo),
    kind: row.kind as LedgerKind,
    reference: row.reference,
    memo: row.memo,
    createdAt: fromMs(row.created_at),
  };
}

export interface TransactionRow {
  reference: string;
  account_id: string;
  mode: string;
  product: string;
  status: string;
  service: string;
  recipient: string;
  face_value_kobo: number;
  charged_kobo: number;
  balance_after_kobo: number;
  details: string;
  result: string | null;
  failure_reason: string | null;
  request_id: string | null;
  request_hash: string | null;
  attempts: number;
  next_attempt_at: number;
  needs_attention: number;
  created_at: number;
  updated_at: number;
}

/** Every column of a transaction row, in the order transactionFromJson reads them. */
export const TRANSACTION_COLUMNS =
  'reference, account_id, mode, product, status, service, recipient, ' +
  'face_value_kobo, charged_kobo, balance_after_kobo, details, result, ' +
  'failure_reason, request_id, request_hash, attempts, next_attempt_at, ' +
  'needs_attention, created_at, updated_at';

const JSON_VALUES = 'json(details), json(result)';

/** A transaction row as one JSON array (details and result as JSON values, not text), for transactionFromJson. */
export const TRANSACTION_JSON = `json_array(${TRANSACTION_COLUMNS.replace('details, result', JSON_VALUES)})`;

/**
 * TRANSACTION_JSON for the pages of an account's history: a bulk SMS's recipients are left
 * out and counted (`recipientCount`), as TransactionStore.listByAccount says.
 */
export const TRANSACTION_PAGE_JSON = `json_array(${TRANSACTION_COLUMNS.replace(
  'details, result',
  `CASE WHEN product = 'bulksms' THEN json_set(json_remove(details, '$.recipients'), '$.recipientCount',
     COALESCE(json_array_length(details, '$.recipients'), 0)) ELSE json(details) END, json(result)`,
)})`;

/**
 * A transaction from a row read as TRANSACTION_JSON: the reads of many rows (history pages,
 * the holder's search, the pending lists) take each row as one string that SQLite writes
 * and V8 parses in one go. Read column by column, better-sqlite3 makes each of the 20
 * values through its C++ API (and, as objects, turns rows into slow V8 dictionaries), and
 * details and result are parsed again after; for a 100-row page that was most of the
 * core's work. The array's order is TRANSACTION_COLUMNS'.
 */
export function transactionFromJson(text: string): TransactionRecord {
  const v = JSON.parse(text) as unknown[];
  return {
    reference: v[0] as string,
    accountId: v[1] as string,
    mode: v[2] as Mode,
    product: v[3] as ProductName,
    status: v[4] as TransactionStatus,
    service: v[5] as string,
    recipient: v[6] as string,
    faceValueKobo: kobo(v[7] as number),
    chargedKobo: kobo(v[8] as number),
    balanceAfterKobo: kobo(v[9] as number),
    details: v[10] as PurchaseDetails,
    result: v[11] as DeliveryResult | null,
    failureReason: v[12] as string | null,
    requestId: v[13] as string | null,
    requestHash: v[14] as string | null,
    attempts: v[15] as number,
    nextAttemptAt: fromMs(v[16] as number),
    needsAttention: v[17] === 1,
    createdAt: fromMs(v[18] as number),
    updatedAt: fromMs(v[19] as number),
  };
}

/** A transaction's page cursor, from the record (see core/store/paging.ts). */
export function transactionRecordCursor(tx: TransactionRecord): string {
  return encodeTransactionCursor(tx.createdAt, tx.reference);
}

export function transactionFromRow(row: TransactionRow): TransactionRecord {
  return {
    reference: row.reference,
    accountId: row.account_id,
    mode: row.mode as Mode,
    product: row.product as ProductName,
    status: row.status as TransactionStatus,
    service: row.service,
    recipient: row.recipient,
    faceValueKobo: kobo(row.face_value_kobo),
    chargedKobo: kobo(row.charged_kobo),
    balanceAfterKobo: kobo(row.balance_after_kobo),
    details: JSON.parse(row.details) as PurchaseDetails,
    result: row.result === null ? null : (JSON.parse(row.result) as DeliveryResult),
    failureReason: row.failure_reason,
    requestId: row.request_id,
    requestHash: row.request_hash,
    attempts: row.attempts,
    nextAttemptAt: fromMs(row.next_attempt_at),
    needsAttention: row.needs_attention === 1,
    createdAt: fromMs(row.created_at),
    updatedAt: fromMs(row.updated_at),
  };
}

/** A transaction row's page cursor (see core/store/paging.ts). */
export function transactionCursor(row: TransactionRow): string {
  return encodeTransactionCursor(fromMs(row.created_at), row.reference);
}

/** A ledger row's page cursor. */
export function ledgerCursor(row: LedgerRow): string {
  return encodeLedgerCursor(row.entry_id);
}
