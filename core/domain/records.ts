/**
 * The records the platform keeps: accounts, keys, the catalog, the ledger and purchases.
 * They are the domain's shapes, plain data with money in integer kobo; the store port
 * (core/store/port.ts) reads and writes them, and every adapter maps its rows or
 * documents to exactly these types.
 */
import type { Mode } from './mode.js';
import type { Kobo } from './money.js';
import type { DeliveryResult, ProductName, PurchaseDetails, TransactionStatus } from './products.js';

export interface AccountRecord {
  accountId: string;
  name: string;
  tierId: string;
  /** The live wallet's balance. */
  balanceKobo: Kobo;
  /** The test wallet's balance: test money only, moved only by test keys and test credits. */
  testBalanceKobo: Kobo;
  createdAt: Date;
}

/** A wallet's balance: the account's live or test one. */
export function balanceOf(account: Pick<AccountRecord, 'balanceKobo' | 'testBalanceKobo'>, mode: Mode): Kobo {
  return mode === 'test' ? account.testBalanceKobo : account.balanceKobo;
}

export interface ApiKeyRecord {
  publicKey: string;
  accountId: string;
  /** SHA-256 of the secret key, hex. The secret itself is never stored. */
  secretHash: string;
  allowedIps: string[];
  revoked: boolean;
  /** Which wallet and world the pair acts in: pk_test_ pairs are 'test'. */
  mode: Mode;
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
  /** The wallet the entry belongs to: the account's live or test one. */
  mode: Mode;
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
  /** The world the purchase was made in: its wallet, its idempotency scope, its provider (test: the sandbox). */
  mode: Mode;
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
  /** The caller's idempotency key, unique per account and mode. */
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
export type NewTransaction = Omit<TransactionRecord, 'status' | 'balanceAfterKobo' | 'result' | 'failureReason' | 'attempts' | 'needsAttention' | 'updatedAt'>;

export type ReserveResult =
  /** Debited, ledger entry and pending transaction written together. */
  | { outcome: 'reserved'; transaction: TransactionRecord }
  /** The balance does not cover the charge; nothing was written. */
  | { outcome: 'insufficient'; balanceKobo: Kobo }
  /** The account's idempotency key exists already; nothing was written. */
  | { outcome: 'duplicate'; transaction: TransactionRecord }
  | { outcome: 'no_account' };

/** The catalog a store starts with the first time it opens empty (see CatalogStore.seedIfEmpty). */
export interface CatalogSeed {
  tiers: TierRecord[];
  plans: PlanRecord[];
  cablePackages: CablePackageRecord[];
  smsRateKobo: Kobo;
}

/** The pending transactions in brief. */
export interface PendingSummary {
  count: number;
  /** Those among them flagged for a person (past the recovery deadline). */
  needsAttentionCount: number;
  /** createdAt of the oldest pending transaction; null when none is pending. */
  oldestCreatedAt: Date | null;
}
