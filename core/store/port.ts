/**
 * The store port: the few intention-revealing operations the use cases need. Each
 * operation is atomic on its own; the transaction boundary belongs to the adapter.
 * Every adapter must pass the shared conformance suite in test/core/store/.
 */
import type { Kobo } from '../domain/money.js';
import type {
  DeliveryResult,
  ProductName,
  PurchaseDetails,
  TransactionStatus,
} from '../domain/products.js';

export interface AccountRecord {
  accountId: string;
  name: string;
  tierId: string;
  balanceKobo: Kobo;
  createdAt: Date;
}

export interface ApiKeyRecord {
  publicKey: string;
  accountId: string;
  /** SHA-256 of the secret key, hex. The secret itself is never stored. */
  secretHash: string;
  allowedIps: string[];
  revoked: boolean;
  createdAt: Date;
}

export interface DiscountRule {
  product: ProductName;
  /** A service of the product, or "" for every service of it. */
  service: string;
  basisPoints: number;
}

export interface TierRecord {
  tierId: string;
  name: string;
  apiAccess: boolean;
  discounts: DiscountRule[];
}

export interface PlanRecord {
  planId: number;
  network: string;
  label: string;
  validity: string;
  faceValueKobo: Kobo;
  /** tierId -> price in kobo. */
  tierPricesKobo: Record<string, Kobo>;
  active: boolean;
  /** The upstream's code for this plan (VTpass variation_code); "" when none is known yet. */
  providerCode: string;
}

export interface CablePackageRecord {
  provider: string;
  packageCode: string;
  name: string;
  priceKobo: Kobo;
  active: boolean;
  /** The upstream's code for this package (VTpass variation_code); "" means the package code itself. */
  providerCode: string;
}

export type LedgerKind = 'credit' | 'debit' | 'refund';

export interface LedgerEntryRecord {
  entryId: number;
  accountId: string;
  /** Signed: negative for debits. */
  amountKobo: Kobo;
  balanceAfterKobo: Kobo;
  kind: LedgerKind;
  reference: string;
  memo: string;
  createdAt: Date;
}

export interface TransactionRecord {
  reference: string;
  accountId: string;
  product: ProductName;
  status: TransactionStatus;
  service: string;
  recipient: string;
  faceValueKobo: Kobo;
  chargedKobo: Kobo;
  /** Balance right after this purchase's debit. */
  balanceAfterKobo: Kobo;
  details: PurchaseDetails;
  result: DeliveryResult | null;
  failureReason: string | null;
  /** The caller's idempotency key, unique per account. */
  requestId: string | null;
  /** Hash of the request the idempotency key was first used with. */
  requestHash: string | null;
  /** Provider re-queries made by the recovery worker. */
  attempts: number;
  /** When the recovery worker may next look at a pending transaction. */
  nextAttemptAt: Date;
  /** A pending transaction past the recovery deadline, waiting for a person. */
  needsAttention: boolean;
  createdAt: Date;
  updatedAt: Date;
}

/** A purchase about to be reserved; the store fills balanceAfterKobo. */
export type NewTransaction = Omit<
  TransactionRecord,
  'status' | 'balanceAfterKobo' | 'result' | 'failureReason' | 'attempts' | 'needsAttention' | 'updatedAt'
>;

export type ReserveResult =
  /** Debited, ledger entry and pending transaction written together. */
  | { outcome: 'reserved'; transaction: TransactionRecord }
  /** The balance does not cover the charge; nothing was written. */
  | { outcome: 'insufficient'; balanceKobo: Kobo }
  /** The account's idempotency key exists already; nothing was written. */
  | { outcome: 'duplicate'; transaction: TransactionRecord }
  | { outcome: 'no_account' };

/** A page cursor: items strictly older than this one. */
export interface PageRequest {
  limit: number;
  /** Opaque adapter-independent cursor: the last item's sort key from the previous page. */
  after?: string;
}

/** Thrown by an adapter for a page cursor it did not issue or cannot decode. */
export class InvalidCursorError extends Error {
  constructor() {
    super('invalid page cursor');
    this.name = 'InvalidCursorError';
  }
}

export interface Page<T> {
  items: T[];
  /** Cursor for the next page, absent on the last page. */
  next?: string;
}

export interface AccountStore {
  create(account: Omit<AccountRecord, 'balanceKobo'>): Promise<AccountRecord>;
  get(accountId: string): Promise<AccountRecord | null>;
  /** Returns null when the account does not exist. */
  setTier(accountId: string, tierId: string): Promise<AccountRecord | null>;
}

export interface KeyStore {
  insert(key: ApiKeyRecord): Promise<void>;
  find(publicKey: string): Promise<ApiKeyRecord | null>;
  /** Newest first, revoked ones included. */
  listByAccount(accountId: string): Promise<ApiKeyRecord[]>;
  /** Returns null when the key does not exist. */
  revoke(publicKey: string): Promise<ApiKeyRecord | null>;
  /** Returns null when the key does not exist. */
  setAllowedIps(publicKey: string, ips: string[]): Promise<ApiKeyRecord | null>;
}

export interface CatalogStore {
  listTiers(): Promise<TierRecord[]>;
  getTier(tierId: string): Promise<TierRecord | null>;
  upsertTier(tier: TierRecord): Promise<TierRecord>;
  /** Ordered by network, then planId. */
  listPlans(filter?: { network?: string; activeOnly?: boolean }): Promise<PlanRecord[]>;
  getPlan(planId: number): Promise<PlanRecord | null>;
  /** planId 0 allocates the next free id. */
  upsertPlan(plan: PlanRecord): Promise<PlanRecord>;
  listCablePackages(filter?: { provider?: string }): Promise<CablePackageRecord[]>;
  getCablePackage(provider: string, packageCode: string): Promise<CablePackageRecord | null>;
  upsertCablePackage(pkg: CablePackageRecord): Promise<CablePackageRecord>;
  getSmsRateKobo(): Promise<Kobo>;
  setSmsRateKobo(kobo: Kobo): Promise<void>;
  /** Writes the default catalog once, the first time the store starts empty. Returns true if it seeded. */
  seedIfEmpty(seed: CatalogSeed): Promise<boolean>;
}

export interface CatalogSeed {
  tiers: TierRecord[];
  plans: PlanRecord[];
  cablePackages: CablePackageRecord[];
  smsRateKobo: Kobo;
}

export interface WalletStore {
  /** Adds money and writes a credit entry atomically. Null when the account does not exist. */
  credit(input: {
    accountId: string;
    amountKobo: Kobo;
    reference: string;
    memo: string;
    at: Date;
  }): Promise<{ balanceKobo: Kobo; entry: LedgerEntryRecord } | null>;
  /**
   * Phase one of a purchase, atomically: if the idempotency key is new and the balance
   * covers the charge, debit it, write the debit entry and the pending transaction.
   */
  reserve(tx: NewTransaction): Promise<ReserveResult>;
  /** pending -> success with the provider's result. A transaction not pending is returned unchanged. */
  settle(reference: string, result: DeliveryResult, at: Date): Promise<{ transaction: TransactionRecord; changed: boolean } | null>;
  /**
   * pending -> failed and a refund entry of the full charge, exactly once, atomically.
   * A transaction not pending is returned unchanged (changed = false).
   */
  refund(reference: string, reason: string, at: Date): Promise<{ transaction: TransactionRecord; changed: boolean } | null>;
  /**
   * success -> reversed and a refund entry of the full charge, exactly once, atomically: the
   * provider undid a delivered purchase. Any other state is returned unchanged (changed = false).
   */
  reverse(reference: string, reason: string, at: Date): Promise<{ transaction: TransactionRecord; changed: boolean } | null>;
  /** Records a recovery attempt on a pending transaction; no effect on other states. */
  recordAttempt(reference: string, next: { attempts: number; nextAttemptAt: Date; needsAttention: boolean; at: Date }): Promise<void>;
  /** Newest first. */
  listLedger(accountId: string, page: PageRequest): Promise<Page<LedgerEntryRecord>>;
  /**
   * Checks every wallet against its ledger: balance = sum of entries, running balances,
   * nothing negative, one debit of the charge per purchase, exactly one refund of the charge
   * for every failed or reversed purchase and none for any other. Reads only.
   */
  audit(): Promise<LedgerAudit>;
}

/** One way the money does not add up, as found by `WalletStore.audit`. */
export interface AuditViolation {
  kind:
    | 'balance_mismatch'
    | 'negative_balance'
    | 'running_balance_mismatch'
    | 'debit_missing_or_wrong'
    | 'not_refunded_once'
    | 'refund_without_failure'
    | 'orphan_entry';
  accountId: string;
  /** The transaction or ledger reference concerned, when there is one. */
  reference: string;
  /** What was found, a human sentence. */
  detail: string;
}

export interface LedgerAudit {
  accountsChecked: number;
  transactionsChecked: number;
  entriesChecked: number;
  /** Transactions not final yet, and those among them flagged for a person. */
  pendingCount: number;
  needsAttentionCount: number;
  /** At most MAX_AUDIT_VIOLATIONS; `violationCount` tells how many there were in all. */
  violations: AuditViolation[];
  violationCount: number;
}

/** A checker that finds a million broken rows should still answer in one message. */
export const MAX_AUDIT_VIOLATIONS = 1_000;

export interface TransactionStore {
  get(reference: string): Promise<TransactionRecord | null>;
  /** Newest first. */
  listByAccount(accountId: string, page: PageRequest): Promise<Page<TransactionRecord>>;
  /** Pending transactions whose nextAttemptAt <= now, oldest first, at most `limit`. */
  listDuePending(now: Date, limit: number): Promise<TransactionRecord[]>;
  /** Every pending transaction (or only those flagged for a person), oldest first. */
  listPending(filter: { needsAttentionOnly: boolean }, page: PageRequest): Promise<Page<TransactionRecord>>;
  /**
   * How many transactions are pending and when the oldest was made, in one cheap read
   * (served by the pending-by-age index), for the metrics a scrape collects.
   */
  pendingSummary(): Promise<PendingSummary>;
}

/** The pending transactions in brief. */
export interface PendingSummary {
  count: number;
  /** Those among them flagged for a person (past the recovery deadline). */
  needsAttentionCount: number;
  /** createdAt of the oldest pending transaction; null when none is pending. */
  oldestCreatedAt: Date | null;
}

export interface Store {
  readonly accounts: AccountStore;
  readonly keys: KeyStore;
  readonly catalog: CatalogStore;
  readonly wallet: WalletStore;
  readonly transactions: TransactionStore;
  close(): Promise<void>;
}
