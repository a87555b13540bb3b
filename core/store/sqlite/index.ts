/**
 * The embedded store: the store port on one SQLite file through better-sqlite3.
 *
 * better-sqlite3 is synchronous, so every port operation runs to completion inside one
 * SQLite transaction before its promise settles; within a process, operations never
 * interleave. Writing transactions start IMMEDIATE (they take the write lock up front)
 * so that another process on the same file makes them wait out the busy timeout instead
 * of failing half-way with a stale snapshot.
 */
import Database from 'better-sqlite3';
import type { Kobo } from '../../domain/money.js';
import type { DeliveryResult } from '../../domain/products.js';
import type {
  AccountStore,
  ApiKeyRecord,
  CablePackageRecord,
  CatalogSeed,
  CatalogStore,
  KeyStore,
  LedgerAudit,
  AuditViolation,
  NewTransaction,
  Page,
  PlanRecord,
  ReserveResult,
  Store,
  TierRecord,
  TransactionStore,
  WalletStore,
} from '../port.js';
import { requireAmount, requireLimit } from '../bounds.js';
import { MAX_AUDIT_VIOLATIONS } from '../port.js';
import { createGroupCommit } from './group-commit.js';
import { migrate } from './schema.js';
import {
  type AccountRow,
  type ApiKeyRow,
  type CablePackageRow,
  type LedgerRow,
  type PlanRow,
  type TierRow,
  type TransactionRow,
  accountFromRow,
  apiKeyFromRow,
  cablePackageFromRow,
  cablePackageToParams,
  ledgerCursor,
  ledgerFromRow,
  parseLedgerCursor,
  parseTransactionCursor,
  planFromRow,
  planToParams,
  tierFromRow,
  tierToParams,
  toFlag,
  toMs,
  fromMs,
  transactionCursor,
  transactionFromRow,
} from './rows.js';

/**
 * How long a statement waits for another process's write lock before failing. Writes
 * here are a few row changes and finish in well under a millisecond, so five seconds is
 * only ever reached when something is badly wrong.
 */
const BUSY_TIMEOUT_MS = 5_000;

export { MAX_PAGE_LIMIT } from '../bounds.js';

/** The settings row that holds the price of one SMS page. */
const SMS_RATE_KEY = 'sms_rate_kobo';

/** Where the SQLite file lives. */
export interface SqliteStoreOptions {
  /** Path of the database file; it is created with its schema when missing. */
  filename: string;
}

/**
 * Opens (creating or migrating as needed) the SQLite store at `options.filename`. The
 * open is synchronous; a file that cannot be opened or migrated throws here.
 */
export function openSqliteStore(options: SqliteStoreOptions): Store {
  const db = new Database(options.filename, { timeout: BUSY_TIMEOUT_MS });
  try {
    configure(db);
    migrate(db);
    return buildStore(db);
  } catch (error) {
    db.close();
    throw error;
  }
}

function configure(db: Database.Database): void {
  db.pragma(`busy_timeout = ${BUSY_TIMEOUT_MS}`);
  // WAL lets readers (history, balance) proceed while a purchase commits.
  db.pragma('journal_mode = WAL');
  // FULL syncs the WAL on every commit. With NORMAL, a purchase we already answered 2xx
  // could vanish on power loss while the provider delivered it; that is money we cannot
  // reconcile, so we pay the fsync.
  db.pragma('synchronous = FULL');
  db.pragma('foreign_keys = ON');
}

function buildStore(db: Database.Database): Store {
  const sql = prepareStatements(db);
  // Money operations share commits (see group-commit.ts); the rare admin writes commit alone.
  const commit = createGroupCommit(db);

  const accounts: AccountStore = {
    async create(account) {
      const row = sql.insertAccount.get({
        account_id: account.accountId,
        name: account.name,
        tier_id: account.tierId,
        created_at: toMs(account.createdAt),
      });
      return accountFromRow(row!);
    },
    async get(accountId) {
      const row = sql.getAccount.get(accountId);
      return row ? accountFromRow(row) : null;
    },
    async setTier(accountId, tierId) {
      const row = sql.setAccountTier.get({ account_id: accountId, tier_id: tierId });
      return row ? accountFromRow(row) : null;
    },
  };

  const keys: KeyStore = {
    async insert(key: ApiKeyRecord) {
      sql.insertKey.run({
        public_key: key.publicKey,
        account_id: key.accountId,
        secret_hash: key.secretHash,
        allowed_ips: JSON.stringify(key.allowedIps),
        revoked: toFlag(key.revoked),
        created_at: toMs(key.createdAt),
      });
    },
    async find(publicKey) {
      const row = sql.getKey.get(publicKey);
      return row ? apiKeyFromRow(row) : null;
    },
    async listByAccount(accountId) {
      return sql.listKeys.all(accountId).map(apiKeyFromRow);
    },
    async revoke(publicKey) {
      const row = sql.revokeKey.get(publicKey);
      return row ? apiKeyFromRow(row) : null;
    },
    async setAllowedIps(publicKey, ips) {
      const row = sql.setKeyIps.get({ public_key: publicKey, allowed_ips: JSON.stringify(ips) });
      return row ? apiKeyFromRow(row) : null;
    },
  };

  function writeTier(tier: TierRecord): TierRecord {
    return tierFromRow(sql.upsertTier.get(tierToParams(tier))!);
  }

  function writePlan(plan: PlanRecord): PlanRecord {
    requireAmount('planId', plan.planId, 0);
    requireAmount('faceValueKobo', plan.faceValueKobo, 0);
    for (const [tierId, priceKobo] of Object.entries(plan.tierPricesKobo)) {
      requireAmount(`tierPricesKobo.${tierId}`, priceKobo, 0);
    }
    return planFromRow(sql.upsertPlan.get(planToParams(plan))!);
  }

  function writeCablePackage(pkg: CablePackageRecord): CablePackageRecord {
    requireAmount('priceKobo', pkg.priceKobo, 0);
    return cablePackageFromRow(sql.upsertCablePackage.get(cablePackageToParams(pkg))!);
  }

  function writeSmsRate(kobo: Kobo): void {
    requireAmount('smsRateKobo', kobo, 0);
    sql.setSetting.run({ key: SMS_RATE_KEY, value: kobo });
  }

  const seedTx = db.transaction((seed: CatalogSeed): boolean => {
    // The tiers table is the marker: a catalog without tiers has never been set up,
    // while an operator's later edits (even removing every plan) must survive restarts.
    if (sql.countTiers.get()!.n > 0) return false;
    seed.tiers.forEach(writeTier);
    seed.plans.forEach(writePlan);
    seed.cablePackages.forEach(writeCablePackage);
    writeSmsRate(seed.smsRateKobo);
    return true;
  });

  const catalog: CatalogStore = {
    async listTiers() {
      return sql.listTiers.all().map(tierFromRow);
    },
    async getTier(tierId) {
      const row = sql.getTier.get(tierId);
      return row ? tierFromRow(row) : null;
    },
    async upsertTier(tier) {
      return writeTier(tier);
    },
    async listPlans(filter = {}) {
      return sql.listPlans
        .all({ network: filter.network ?? null, active_only: toFlag(filter.activeOnly ?? false) })
        .map(planFromRow);
    },
    async getPlan(planId) {
      const row = sql.getPlan.get(planId);
      return row ? planFromRow(row) : null;
    },
    async upsertPlan(plan) {
      return writePlan(plan);
    },
    async listCablePackages(filter = {}) {
      return sql.listCablePackages.all({ provider: filter.provider ?? null }).map(cablePackageFromRow);
    },
    async getCablePackage(provider, packageCode) {
      const row = sql.getCablePackage.get({ provider, package_code: packageCode });
      return row ? cablePackageFromRow(row) : null;
    },
    async upsertCablePackage(pkg) {
      return writeCablePackage(pkg);
    },
    async getSmsRateKobo() {
      const row = sql.getSetting.get(SMS_RATE_KEY);
      // Selling SMS at a made-up price is worse than failing the request: the catalog is
      // seeded on first start, so a missing rate means a broken setup.
      if (row === undefined) throw new Error('store: the SMS rate is not set; seed the catalog first');
      return row.value as Kobo;
    },
    async setSmsRateKobo(kobo) {
      writeSmsRate(kobo);
    },
    async seedIfEmpty(seed) {
      return seedTx.immediate(seed);
    },
  };

  // The money operations below are plain functions: they only ever run inside the group
  // commit (group-commit.ts), which makes each one atomic.
  const creditTx = (input: { accountId: string; amountKobo: Kobo; reference: string; memo: string; at: Date }) => {
    const balance = sql.addToBalance.get({ account_id: input.accountId, amount_kobo: input.amountKobo });
    if (balance === undefined) return null;
    if (!Number.isSafeInteger(balance.balance_kobo)) {
      // Throwing rolls the credit back; such a balance could not be read back exactly.
      throw new RangeError('store: the credit would take the balance beyond the safe integer range');
    }
    const entry = sql.insertLedger.get({
      account_id: input.accountId,
      amount_kobo: input.amountKobo,
      balance_after_kobo: balance.balance_kobo,
      kind: 'credit',
      reference: input.reference,
      memo: input.memo,
      created_at: toMs(input.at),
    })!;
    return { balanceKobo: balance.balance_kobo, entry: ledgerFromRow(entry) };
  };

  const reserveTx = (tx: NewTransaction): ReserveResult => {
    if (tx.requestId !== null) {
      const existing = sql.getTransactionByRequestId.get({ account_id: tx.accountId, request_id: tx.requestId });
      if (existing) return { outcome: 'duplicate', transaction: transactionFromRow(existing) };
    }
    // The conditional debit is the guard; only when it refuses is the account read, to
    // tell a missing account from a short balance.
    const debited = sql.debitBalance.get({ account_id: tx.accountId, amount_kobo: tx.chargedKobo });
    if (debited === undefined) {
      const account = sql.getAccount.get(tx.accountId);
      return account ? { outcome: 'insufficient', balanceKobo: account.balance_kobo } : { outcome: 'no_account' };
    }
    const createdAt = toMs(tx.createdAt);
    sql.insertLedger.run({
      account_id: tx.accountId,
      amount_kobo: -tx.chargedKobo,
      balance_after_kobo: debited.balance_kobo,
      kind: 'debit',
      reference: tx.reference,
      memo: purchaseMemo(tx),
      created_at: createdAt,
    });
    const row: TransactionRow = {
      reference: tx.reference,
      account_id: tx.accountId,
      product: tx.product,
      status: 'pending',
      service: tx.service,
      recipient: tx.recipient,
      face_value_kobo: tx.faceValueKobo,
      charged_kobo: tx.chargedKobo,
      balance_after_kobo: debited.balance_kobo,
      details: JSON.stringify(tx.details),
      result: null,
      failure_reason: null,
      request_id: tx.requestId,
      request_hash: tx.requestHash,
      attempts: 0,
      next_attempt_at: toMs(tx.nextAttemptAt),
      needs_attention: 0,
      created_at: createdAt,
      updated_at: createdAt,
    };
    sql.insertTransaction.run(row);
    return { outcome: 'reserved', transaction: transactionFromRow(row) };
  };

  /**
   * One conditional UPDATE is the whole settlement; only when it matched nothing is the
   * row read, to tell "already final" from "missing".
   */
  function settleOne(reference: string, result: DeliveryResult, at: Date) {
    const settled = sql.markSuccess.get({ reference, result: JSON.stringify(result), updated_at: toMs(at) });
    if (settled) return { transaction: transactionFromRow(settled), changed: true };
    const row = sql.getTransaction.get(reference);
    return row ? { transaction: transactionFromRow(row), changed: false } : null;
  }

  /**
   * Puts a purchase's whole charge back in its wallet with a refund entry; the caller has
   * just moved the purchase out of the state that allowed it, in the same transaction. The
   * status change is conditional and the ledger's unique (reference, kind) index refuses a
   * second refund entry, so the money goes back at most once even if a check were bypassed.
   */
  function giveBackCharge(row: TransactionRow, memo: string, atMs: number): void {
    const balance = sql.addToBalance.get({ account_id: row.account_id, amount_kobo: row.charged_kobo })!;
    sql.insertLedger.run({
      account_id: row.account_id,
      amount_kobo: row.charged_kobo,
      balance_after_kobo: balance.balance_kobo,
      kind: 'refund',
      reference: row.reference,
      memo,
      created_at: atMs,
    });
  }

  const refundTx = (reference: string, reason: string, at: Date) => {
    const row = sql.getTransaction.get(reference);
    if (!row) return null;
    if (row.status !== 'pending') return { transaction: transactionFromRow(row), changed: false };
    const atMs = toMs(at);
    const failed = sql.markFailed.get({ reference, failure_reason: reason, updated_at: atMs })!;
    giveBackCharge(row, `refund: ${reason}`, atMs);
    return { transaction: transactionFromRow(failed), changed: true };
  };

  const reverseTx = (reference: string, reason: string, at: Date) => {
    const row = sql.getTransaction.get(reference);
    if (!row) return null;
    if (row.status !== 'success') return { transaction: transactionFromRow(row), changed: false };
    const atMs = toMs(at);
    const reversed = sql.markReversed.get({ reference, failure_reason: reason, updated_at: atMs })!;
    giveBackCharge(row, `reversal: ${reason}`, atMs);
    return { transaction: transactionFromRow(reversed), changed: true };
  };

  const wallet: WalletStore = {
    async credit(input) {
      requireAmount('amountKobo', input.amountKobo, 1);
      return commit.run(() => creditTx(input));
    },
    async reserve(tx) {
      requireAmount('chargedKobo', tx.chargedKobo, 1);
      requireAmount('faceValueKobo', tx.faceValueKobo, 0);
      return commit.run(
        () => reserveTx(tx),
        (error): ReserveResult => {
          // The unique index on (account_id, request_id) is the real idempotency guard; the
          // read inside the transaction only makes the common case cheap.
          if (tx.requestId !== null && isUniqueViolation(error)) {
            const existing = sql.getTransactionByRequestId.get({ account_id: tx.accountId, request_id: tx.requestId });
            if (existing) return { outcome: 'duplicate', transaction: transactionFromRow(existing) };
          }
          throw error;
        },
      );
    },
    async settle(reference, result, at) {
      return commit.run(() => settleOne(reference, result, at));
    },
    async refund(reference, reason, at) {
      return commit.run(() => refundTx(reference, reason, at));
    },
    async reverse(reference, reason, at) {
      return commit.run(() => reverseTx(reference, reason, at));
    },
    async recordAttempt(reference, next) {
      if (!Number.isSafeInteger(next.attempts) || next.attempts < 0) {
        throw new RangeError('store: attempts must be a non-negative integer');
      }
      await commit.run(() =>
        sql.recordAttempt.run({
          reference,
          attempts: next.attempts,
          next_attempt_at: toMs(next.nextAttemptAt),
          needs_attention: toFlag(next.needsAttention),
          updated_at: toMs(next.at),
        }),
      );
    },
    async audit() {
      // One read transaction, so every check sees the same snapshot of the money.
      return db.transaction(() => auditLedger(sql))();
    },
    async listLedger(accountId, page) {
      const limit = requireLimit(page.limit);
      const before = page.after === undefined ? Number.MAX_SAFE_INTEGER : parseLedgerCursor(page.after);
      const rows = sql.listLedger.all({ account_id: accountId, before, limit: limit + 1 });
      return toPage(rows, limit, ledgerFromRow, ledgerCursor);
    },
  };

  const transactions: TransactionStore = {
    async get(reference) {
      const row = sql.getTransaction.get(reference);
      return row ? transactionFromRow(row) : null;
    },
    async listByAccount(accountId, page) {
      const limit = requireLimit(page.limit);
      const rows =
        page.after === undefined
          ? sql.listTransactionsFirst.all({ account_id: accountId, limit: limit + 1 })
          : sql.listTransactionsAfter.all({
              account_id: accountId,
              ...cursorParams(parseTransactionCursor(page.after)),
              limit: limit + 1,
            });
      return toPage(rows, limit, transactionFromRow, transactionCursor);
    },
    async listDuePending(now, limit) {
      requireLimit(limit);
      return sql.listDuePending.all({ now: toMs(now), limit }).map(transactionFromRow);
    },
    async listPending(filter, page) {
      const limit = requireLimit(page.limit);
      const after = page.after === undefined ? { created_at: -1, reference: '' } : cursorParams(parseTransactionCursor(page.after));
      const rows = sql.listPending.all({ ...after, attention_only: toFlag(filter.needsAttentionOnly), limit: limit + 1 });
      return toPage(rows, limit, transactionFromRow, transactionCursor);
    },
    async pendingSummary() {
      const row = sql.pendingSummary.get()!;
      return { count: row.count, needsAttentionCount: row.attention, oldestCreatedAt: row.oldest === null ? null : fromMs(row.oldest) };
    },
  };

  return {
    accounts,
    keys,
    catalog,
    wallet,
    transactions,
    async close() {
      if (db.open) db.close();
    },
  };
}

/** Every statement, prepared once when the store opens: they are the hot path. */
function prepareStatements(db: Database.Database) {
  return {
    insertAccount: db.prepare<{ account_id: string; name: string; tier_id: string; created_at: number }, AccountRow>(
      `INSERT INTO accounts (account_id, name, tier_id, balance_kobo, created_at)
       VALUES (@account_id, @name, @tier_id, 0, @created_at) RETURNING *`,
    ),
    getAccount: db.prepare<[string], AccountRow>('SELECT * FROM accounts WHERE account_id = ?'),
    setAccountTier: db.prepare<{ account_id: string; tier_id: string }, AccountRow>(
      'UPDATE accounts SET tier_id = @tier_id WHERE account_id = @account_id RETURNING *',
    ),
    debitBalance: db.prepare<{ account_id: string; amount_kobo: number }, { balance_kobo: number }>(
      `UPDATE accounts SET balance_kobo = balance_kobo - @amount_kobo
       WHERE account_id = @account_id AND balance_kobo >= @amount_kobo RETURNING balance_kobo`,
    ),
    addToBalance: db.prepare<{ account_id: string; amount_kobo: number }, { balance_kobo: number }>(
      `UPDATE accounts SET balance_kobo = balance_kobo + @amount_kobo
       WHERE account_id = @account_id RETURNING balance_kobo`,
    ),

    insertKey: db.prepare<ApiKeyRow>(
      `INSERT INTO api_keys (public_key, account_id, secret_hash, allowed_ips, revoked, created_at)
       VALUES (@public_key, @account_id, @secret_hash, @allowed_ips, @revoked, @created_at)`,
    ),
    getKey: db.prepare<[string], ApiKeyRow>('SELECT * FROM api_keys WHERE public_key = ?'),
    listKeys: db.prepare<[string], ApiKeyRow>(
      'SELECT * FROM api_keys WHERE account_id = ? ORDER BY created_at DESC, public_key DESC',
    ),
    revokeKey: db.prepare<[string], ApiKeyRow>('UPDATE api_keys SET revoked = 1 WHERE public_key = ? RETURNING *'),
    setKeyIps: db.prepare<{ public_key: string; allowed_ips: string }, ApiKeyRow>(
      'UPDATE api_keys SET allowed_ips = @allowed_ips WHERE public_key = @public_key RETURNING *',
    ),

    countTiers: db.prepare<[], { n: number }>('SELECT count(*) AS n FROM tiers'),
    listTiers: db.prepare<[], TierRow>('SELECT * FROM tiers ORDER BY tier_id'),
    getTier: db.prepare<[string], TierRow>('SELECT * FROM tiers WHERE tier_id = ?'),
    upsertTier: db.prepare<TierRow, TierRow>(
      `INSERT INTO tiers (tier_id, name, api_access, discounts) VALUES (@tier_id, @name, @api_access, @discounts)
       ON CONFLICT (tier_id) DO UPDATE SET
         name = excluded.name, api_access = excluded.api_access, discounts = excluded.discounts
       RETURNING *`,
    ),
    listPlans: db.prepare<{ network: string | null; active_only: number }, PlanRow>(
      `SELECT * FROM plans
       WHERE (@network IS NULL OR network = @network) AND (@active_only = 0 OR active = 1)
       ORDER BY network, plan_id`,
    ),
    getPlan: db.prepare<[number], PlanRow>('SELECT * FROM plans WHERE plan_id = ?'),
    // A null plan_id makes SQLite allocate one past the largest id ever used.
    upsertPlan: db.prepare<Omit<PlanRow, 'plan_id'> & { plan_id: number | null }, PlanRow>(
      `INSERT INTO plans (plan_id, network, label, validity, face_value_kobo, tier_prices, active, provider_code)
       VALUES (@plan_id, @network, @label, @validity, @face_value_kobo, @tier_prices, @active, @provider_code)
       ON CONFLICT (plan_id) DO UPDATE SET
         network = excluded.network, label = excluded.label, validity = excluded.validity,
         face_value_kobo = excluded.face_value_kobo, tier_prices = excluded.tier_prices,
         active = excluded.active, provider_code = excluded.provider_code
       RETURNING *`,
    ),
    listCablePackages: db.prepare<{ provider: string | null }, CablePackageRow>(
      `SELECT * FROM cable_packages WHERE (@provider IS NULL OR provider = @provider)
       ORDER BY provider, package_code`,
    ),
    getCablePackage: db.prepare<{ provider: string; package_code: string }, CablePackageRow>(
      'SELECT * FROM cable_packages WHERE provider = @provider AND package_code = @package_code',
    ),
    upsertCablePackage: db.prepare<CablePackageRow, CablePackageRow>(
      `INSERT INTO cable_packages (provider, package_code, name, price_kobo, active, provider_code)
       VALUES (@provider, @package_code, @name, @price_kobo, @active, @provider_code)
       ON CONFLICT (provider, package_code) DO UPDATE SET
         name = excluded.name, price_kobo = excluded.price_kobo, active = excluded.active,
         provider_code = excluded.provider_code
       RETURNING *`,
    ),
    getSetting: db.prepare<[string], { value: unknown }>('SELECT value FROM settings WHERE key = ?'),
    setSetting: db.prepare<{ key: string; value: number }>(
      'INSERT INTO settings (key, value) VALUES (@key, @value) ON CONFLICT (key) DO UPDATE SET value = excluded.value',
    ),

    insertLedger: db.prepare<Omit<LedgerRow, 'entry_id'>, LedgerRow>(
      `INSERT INTO ledger_entries (account_id, amount_kobo, balance_after_kobo, kind, reference, memo, created_at)
       VALUES (@account_id, @amount_kobo, @balance_after_kobo, @kind, @reference, @memo, @created_at)
       RETURNING *`,
    ),
    listLedger: db.prepare<{ account_id: string; before: number; limit: number }, LedgerRow>(
      `SELECT * FROM ledger_entries WHERE account_id = @account_id AND entry_id < @before
       ORDER BY entry_id DESC LIMIT @limit`,
    ),

    // The whole row comes from the caller, so the record returned is exactly what was written.
    insertTransaction: db.prepare<TransactionRow>(
      `INSERT INTO transactions (reference, account_id, product, status, service, recipient, face_value_kobo,
         charged_kobo, balance_after_kobo, details, result, failure_reason, request_id, request_hash, attempts,
         next_attempt_at, needs_attention, created_at, updated_at)
       VALUES (@reference, @account_id, @product, @status, @service, @recipient, @face_value_kobo,
         @charged_kobo, @balance_after_kobo, @details, @result, @failure_reason, @request_id, @request_hash, @attempts,
         @next_attempt_at, @needs_attention, @created_at, @updated_at)`,
    ),
    getTransaction: db.prepare<[string], TransactionRow>('SELECT * FROM transactions WHERE reference = ?'),
    getTransactionByRequestId: db.prepare<{ account_id: string; request_id: string }, TransactionRow>(
      'SELECT * FROM transactions WHERE account_id = @account_id AND request_id = @request_id',
    ),
    markSuccess: db.prepare<{ reference: string; result: string; updated_at: number }, TransactionRow>(
      `UPDATE transactions SET status = 'success', result = @result, updated_at = @updated_at
       WHERE reference = @reference AND status = 'pending' RETURNING *`,
    ),
    markReversed: db.prepare<{ reference: string; failure_reason: string; updated_at: number }, TransactionRow>(
      `UPDATE transactions SET status = 'reversed', failure_reason = @failure_reason, updated_at = @updated_at
       WHERE reference = @reference AND status = 'success' RETURNING *`,
    ),
    markFailed: db.prepare<{ reference: string; failure_reason: string; updated_at: number }, TransactionRow>(
      `UPDATE transactions SET status = 'failed', failure_reason = @failure_reason, updated_at = @updated_at
       WHERE reference = @reference AND status = 'pending' RETURNING *`,
    ),
    recordAttempt: db.prepare<{
      reference: string;
      attempts: number;
      next_attempt_at: number;
      needs_attention: number;
      updated_at: number;
    }>(
      `UPDATE transactions SET attempts = @attempts, next_attempt_at = @next_attempt_at,
         needs_attention = @needs_attention, updated_at = @updated_at
       WHERE reference = @reference AND status = 'pending'`,
    ),
    listTransactionsFirst: db.prepare<{ account_id: string; limit: number }, TransactionRow>(
      `SELECT * FROM transactions WHERE account_id = @account_id
       ORDER BY created_at DESC, reference DESC LIMIT @limit`,
    ),
    listTransactionsAfter: db.prepare<
      { account_id: string; created_at: number; reference: string; limit: number },
      TransactionRow
    >(
      `SELECT * FROM transactions
       WHERE account_id = @account_id
         AND (created_at < @created_at OR (created_at = @created_at AND reference < @reference))
       ORDER BY created_at DESC, reference DESC LIMIT @limit`,
    ),
    // The literal status matches the partial index transactions_due.
    listPending: db.prepare<{ created_at: number; reference: string; attention_only: number; limit: number }, TransactionRow>(
      `SELECT * FROM transactions
       WHERE status = 'pending' AND (@attention_only = 0 OR needs_attention = 1)
         AND (created_at, reference) > (@created_at, @reference)
       ORDER BY created_at, reference LIMIT @limit`,
    ),
    // The literal status matches the partial index transactions_pending_by_age.
    pendingSummary: db.prepare<[], { count: number; attention: number; oldest: number | null }>(
      `SELECT COUNT(*) AS count, COALESCE(SUM(needs_attention), 0) AS attention, MIN(created_at) AS oldest
       FROM transactions WHERE status = 'pending'`,
    ),
    auditCounts: db.prepare<[], { accounts: number; transactions: number; entries: number; pending: number; attention: number }>(
      `SELECT (SELECT COUNT(*) FROM accounts) AS accounts, (SELECT COUNT(*) FROM transactions) AS transactions,
              (SELECT COUNT(*) FROM ledger_entries) AS entries,
              (SELECT COUNT(*) FROM transactions WHERE status = 'pending') AS pending,
              (SELECT COUNT(*) FROM transactions WHERE status = 'pending' AND needs_attention = 1) AS attention`,
    ),
    auditBalances: db.prepare<[], { account_id: string; balance_kobo: number; entries_kobo: number }>(
      `SELECT a.account_id, a.balance_kobo, COALESCE(SUM(l.amount_kobo), 0) AS entries_kobo
       FROM accounts a LEFT JOIN ledger_entries l ON l.account_id = a.account_id
       GROUP BY a.account_id
       HAVING a.balance_kobo <> entries_kobo OR a.balance_kobo < 0`,
    ),
    auditRunning: db.prepare<[], { account_id: string; entry_id: number; reference: string; balance_after_kobo: number; running_kobo: number }>(
      `SELECT account_id, entry_id, reference, balance_after_kobo, running_kobo FROM (
         SELECT account_id, entry_id, reference, balance_after_kobo,
                SUM(amount_kobo) OVER (PARTITION BY account_id ORDER BY entry_id) AS running_kobo
         FROM ledger_entries)
       WHERE balance_after_kobo <> running_kobo OR running_kobo < 0`,
    ),
    auditPurchases: db.prepare<[], { reference: string; account_id: string; status: string; charged_kobo: number; debits: number; debit_kobo: number; refunds: number; refund_kobo: number }>(
      `SELECT t.reference, t.account_id, t.status, t.charged_kobo,
              COUNT(CASE WHEN l.kind = 'debit' THEN 1 END) AS debits,
              COALESCE(-SUM(CASE WHEN l.kind = 'debit' THEN l.amount_kobo END), 0) AS debit_kobo,
              COUNT(CASE WHEN l.kind = 'refund' THEN 1 END) AS refunds,
              COALESCE(SUM(CASE WHEN l.kind = 'refund' THEN l.amount_kobo END), 0) AS refund_kobo
       FROM transactions t
       LEFT JOIN ledger_entries l ON l.reference = t.reference AND l.kind IN ('debit', 'refund')
       GROUP BY t.reference
       HAVING debits <> 1 OR debit_kobo <> t.charged_kobo
           OR (t.status IN ('failed', 'reversed') AND (refunds <> 1 OR refund_kobo <> t.charged_kobo))
           OR (t.status NOT IN ('failed', 'reversed') AND refunds <> 0)`,
    ),
    auditOrphans: db.prepare<[], { account_id: string; reference: string; kind: string }>(
      `SELECT l.account_id, l.reference, l.kind FROM ledger_entries l
       LEFT JOIN transactions t ON t.reference = l.reference
       WHERE l.kind IN ('debit', 'refund') AND (t.reference IS NULL OR t.account_id <> l.account_id)`,
    ),
    listDuePending: db.prepare<{ now: number; limit: number }, TransactionRow>(
      `SELECT * FROM transactions WHERE status = 'pending' AND next_attempt_at <= @now
       ORDER BY next_attempt_at, created_at, reference LIMIT @limit`,
    ),
  };
}

/** The ledger checker's queries, turned into violations; the first MAX_AUDIT_VIOLATIONS are kept. */
function auditLedger(sql: ReturnType<typeof prepareStatements>): LedgerAudit {
  const counts = sql.auditCounts.get()!;
  const violations: AuditViolation[] = [];
  let violationCount = 0;
  const found = (violation: AuditViolation) => {
    violationCount += 1;
    if (violations.length < MAX_AUDIT_VIOLATIONS) violations.push(violation);
  };
  for (const row of sql.auditBalances.iterate()) {
    found({
      kind: row.balance_kobo < 0 ? 'negative_balance' : 'balance_mismatch',
      accountId: row.account_id,
      reference: '',
      detail: `balance is ${row.balance_kobo} kobo but the ledger entries add up to ${row.entries_kobo} kobo`,
    });
  }
  for (const row of sql.auditRunning.iterate()) {
    found({
      kind: row.running_kobo < 0 ? 'negative_balance' : 'running_balance_mismatch',
      accountId: row.account_id,
      reference: row.reference,
      detail: `entry ${row.entry_id} records a balance of ${row.balance_after_kobo} kobo; the entries up to it add up to ${row.running_kobo} kobo`,
    });
  }
  for (const row of sql.auditPurchases.iterate()) {
    let kind: AuditViolation['kind'];
    if (row.debits !== 1 || row.debit_kobo !== row.charged_kobo) kind = 'debit_missing_or_wrong';
    else if (row.status === 'failed' || row.status === 'reversed') kind = 'not_refunded_once';
    else kind = 'refund_without_failure';
    found({
      kind,
      accountId: row.account_id,
      reference: row.reference,
      detail: `${row.status} purchase charged ${row.charged_kobo} kobo has ${row.debits} debit(s) of ${row.debit_kobo} kobo and ${row.refunds} refund(s) of ${row.refund_kobo} kobo`,
    });
  }
  for (const row of sql.auditOrphans.iterate()) {
    found({ kind: 'orphan_entry', accountId: row.account_id, reference: row.reference, detail: `${row.kind} entry with no purchase of this account` });
  }
  return {
    accountsChecked: counts.accounts,
    transactionsChecked: counts.transactions,
    entriesChecked: counts.entries,
    pendingCount: counts.pending,
    needsAttentionCount: counts.attention,
    violations,
    violationCount,
  };
}

function cursorParams(cursor: { createdAt: number; reference: string }) {
  return { created_at: cursor.createdAt, reference: cursor.reference };
}

/** Rows were fetched with limit + 1: the extra row only proves there is a next page. */
function toPage<R, T>(rows: R[], limit: number, map: (row: R) => T, cursor: (row: R) => string): Page<T> {
  const more = rows.length > limit;
  const kept = more ? rows.slice(0, limit) : rows;
  const page: Page<T> = { items: kept.map(map) };
  if (more) page.next = cursor(kept[kept.length - 1]!);
  return page;
}


/** The ledger memo of a purchase's debit, for people reading a statement. */
function purchaseMemo(tx: NewTransaction): string {
  return [tx.product, tx.service, tx.recipient].filter((part) => part !== '').join(' ');
}

function isUniqueViolation(error: unknown): boolean {
  return error instanceof Database.SqliteError && error.code === 'SQLITE_CONSTRAINT_UNIQUE';
}
