/**
 * Money in on SQLite: virtual accounts, inflows and low-balance thresholds. Crediting an
 * inflow is one group-commit operation: the conditional status change of the inflow, the
 * wallet's credit and its ledger entry and `wallet.credited` event (wallet.ts), so either all
 * of it is written or none. The UNIQUE (provider, provider_reference) of the inflows table is
 * the exactly-once key; the conditional status change is what makes a second credit of the
 * same row impossible.
 */
import Database from 'better-sqlite3';
import { inflowCreditedPostings, inflowReceivedPostings, inflowReturnedPostings } from '../../domain/books.js';
import {
  creditNowTo,
  type FundingOpeningRecord,
  type FundingProviderName,
  type InflowRecord,
  type InflowStatus,
  type KycKind,
  type NewFundingOpening,
  type NewInflow,
  type VirtualAccountRecord,
} from '../../domain/funding.js';
import type { Mode } from '../../domain/mode.js';
import { type Kobo, kobo } from '../../domain/money.js';
import { requireAmount, requireLimit } from '../bounds.js';
import type { CreditInflowResult, FundingMoney, FundingStore } from '../port.js';
import type { GroupCommit } from './group-commit.js';
import { keepSplit, splitCredit } from './levels.js';
import { fromMs, toMs } from './rows.js';
import type { moneyOperations } from './wallet.js';

interface VirtualAccountRow {
  provider: string;
  account_number: string;
  account_id: string;
  mode: string;
  bank_name: string;
  bank_code: string;
  account_name: string;
  provider_customer_ref: string;
  status: string;
  kyc_kind: string;
  kyc_last4: string;
  kyc_hash: string;
  created_at: number;
}

interface InflowRow {
  inflow_id: string;
  provider: string;
  provider_reference: string;
  account_number: string;
  account_id: string | null;
  mode: string;
  amount_paid_kobo: number;
  fee_kobo: number;
  credited_kobo: number;
  payer_name: string;
  status: string;
  reason: string;
  raw: string;
  credit_reference: string;
  created_at: number;
  updated_at: number;
}

function virtualAccountFromRow(row: VirtualAccountRow): VirtualAccountRecord {
  return {
    provider: row.provider as FundingProviderName,
    accountNumber: row.account_number,
    accountId: row.account_id,
    mode: row.mode as Mode,
    bankName: row.bank_name,
    bankCode: row.bank_code,
    accountName: row.account_name,
    providerCustomerRef: row.provider_customer_ref,
    status: row.status as 'active' | 'closed',
    kycKind: row.kyc_kind as KycKind,
    kycLast4: row.kyc_last4,
    kycHash: row.kyc_hash,
    createdAt: fromMs(row.created_at),
  };
}

interface OpeningRow {
  provider: string;
  customer_ref: string;
  account_id: string;
  mode: string;
  kyc_kind: string;
  kyc_last4: string;
  kyc_hash: string;
  status: string;
  claimed_at: number | null;
  created_at: number;
  updated_at: number;
}

function openingFromRow(row: OpeningRow): FundingOpeningRecord {
  return {
    provider: row.provider as FundingProviderName,
    customerRef: row.customer_ref,
    accountId: row.account_id,
    mode: row.mode as Mode,
    kycKind: row.kyc_kind as KycKind,
    kycLast4: row.kyc_last4,
    kycHash: row.kyc_hash,
    status: row.status as FundingOpeningRecord['status'],
    claimedAt: row.claimed_at === null ? null : fromMs(row.claimed_at),
    createdAt: fromMs(row.created_at),
    updatedAt: fromMs(row.updated_at),
  };
}

function inflowFromRow(row: InflowRow): InflowRecord {
  return {
    inflowId: row.inflow_id,
    provider: row.provider as FundingProviderName,
    providerReference: row.provider_reference,
    accountNumber: row.account_number,
    accountId: row.account_id,
    mode: row.mode as Mode,
    amountPaidKobo: kobo(row.amount_paid_kobo),
    feeKobo: kobo(row.fee_kobo),
    creditedKobo: kobo(row.credited_kobo),
    payerName: row.payer_name,
    status: row.status as InflowStatus,
    reason: row.reason,
    raw: row.raw,
    creditReference: row.credit_reference,
    createdAt: fromMs(row.created_at),
    updatedAt: fromMs(row.updated_at),
  };
}

function prepareFundingStatements(db: Database.Database) {
  return {
    saveAccount: db.prepare<VirtualAccountRow>(
      `INSERT INTO virtual_accounts (provider, account_number, account_id, mode, bank_name, bank_code, account_name,
         provider_customer_ref, status, kyc_kind, kyc_last4, kyc_hash, created_at)
       VALUES (@provider, @account_number, @account_id, @mode, @bank_name, @bank_code, @account_name,
         @provider_customer_ref, @status, @kyc_kind, @kyc_last4, @kyc_hash, @created_at)
       ON CONFLICT (provider, account_number) DO UPDATE SET account_id = excluded.account_id, mode = excluded.mode,
         bank_name = excluded.bank_name, bank_code = excluded.bank_code, account_name = excluded.account_name,
         provider_customer_ref = excluded.provider_customer_ref, status = excluded.status, kyc_kind = excluded.kyc_kind,
         kyc_last4 = excluded.kyc_last4, kyc_hash = excluded.kyc_hash`,
    ),
    listAccounts: db.prepare<{ account_id: string; mode: string }, VirtualAccountRow>(
      `SELECT * FROM virtual_accounts WHERE account_id = @account_id AND mode = @mode
       ORDER BY created_at, provider, account_number`,
    ),
    listActive: db.prepare<{ limit: number }, VirtualAccountRow>(
      `SELECT * FROM virtual_accounts WHERE status = 'active'
       ORDER BY created_at, provider, account_number LIMIT @limit`,
    ),
    findAccount: db.prepare<{ provider: string; account_number: string }, VirtualAccountRow>(
      'SELECT * FROM virtual_accounts WHERE provider = @provider AND account_number = @account_number',
    ),
    closeAccount: db.prepare<{ provider: string; account_number: string }, VirtualAccountRow>(
      `UPDATE virtual_accounts SET status = 'closed'
       WHERE provider = @provider AND account_number = @account_number RETURNING *`,
    ),
    insertInflow: db.prepare<InflowRow>(
      `INSERT INTO inflows (inflow_id, provider, provider_reference, account_number, account_id, mode, amount_paid_kobo,
         fee_kobo, credited_kobo, payer_name, status, reason, raw, credit_reference, created_at, updated_at)
       VALUES (@inflow_id, @provider, @provider_reference, @account_number, @account_id, @mode, @amount_paid_kobo,
         @fee_kobo, @credited_kobo, @payer_name, @status, @reason, @raw, @credit_reference, @created_at, @updated_at)
       ON CONFLICT (provider, provider_reference) DO NOTHING`,
    ),
    getInflow: db.prepare<[string], InflowRow>('SELECT * FROM inflows WHERE inflow_id = ?'),
    findInflow: db.prepare<{ provider: string; provider_reference: string }, InflowRow>(
      'SELECT * FROM inflows WHERE provider = @provider AND provider_reference = @provider_reference',
    ),
    markCredited: db.prepare<
      { inflow_id: string; from: string; account_id: string; mode: string; fee_kobo: number; updated_at: number },
      InflowRow
    >(
      `UPDATE inflows SET status = 'credited', account_id = @account_id, mode = @mode, fee_kobo = @fee_kobo,
         credited_kobo = amount_paid_kobo - @fee_kobo, credit_reference = inflow_id, reason = '',
         updated_at = @updated_at
       WHERE inflow_id = @inflow_id AND status = @from AND amount_paid_kobo > @fee_kobo RETURNING *`,
    ),
    reject: db.prepare<{ inflow_id: string; reason: string; updated_at: number }, InflowRow>(
      `UPDATE inflows SET status = 'rejected', reason = @reason, updated_at = @updated_at
       WHERE inflow_id = @inflow_id AND status IN ('verified', 'unmatched') RETURNING *`,
    ),
    reconsider: db.prepare<{ inflow_id: string; reason: string; updated_at: number }, InflowRow>(
      `UPDATE inflows SET reason = @reason, updated_at = @updated_at
       WHERE inflow_id = @inflow_id AND status = 'unmatched' RETURNING *`,
    ),
    listByStatus: db.prepare<{ status: string; limit: number }, InflowRow>(
      'SELECT * FROM inflows WHERE status = @status ORDER BY created_at, inflow_id LIMIT @limit',
    ),
    listByAccount: db.prepare<{ account_id: string; mode: string; limit: number }, InflowRow>(
      `SELECT * FROM inflows WHERE account_id = @account_id AND mode = @mode
       ORDER BY created_at DESC, inflow_id DESC LIMIT @limit`,
    ),
    // A claim in progress is never replaced: its claimer may be creating the account right now.
    saveOpening: db.prepare<OpeningRow>(
      `INSERT INTO funding_openings (provider, customer_ref, account_id, mode, kyc_kind, kyc_last4, kyc_hash, status,
         claimed_at, created_at, updated_at)
       VALUES (@provider, @customer_ref, @account_id, @mode, @kyc_kind, @kyc_last4, @kyc_hash, 'pending', NULL,
         @created_at, @updated_at)
       ON CONFLICT (provider, customer_ref) DO UPDATE SET account_id = excluded.account_id, mode = excluded.mode,
         kyc_kind = excluded.kyc_kind, kyc_last4 = excluded.kyc_last4, kyc_hash = excluded.kyc_hash, status = 'pending',
         claimed_at = NULL, updated_at = excluded.updated_at
       WHERE funding_openings.status <> 'opening'`,
    ),
    insertOpening: db.prepare<OpeningRow>(
      `INSERT INTO funding_openings (provider, customer_ref, account_id, mode, kyc_kind, kyc_last4, kyc_hash, status,
         claimed_at, created_at, updated_at)
       VALUES (@provider, @customer_ref, @account_id, @mode, @kyc_kind, @kyc_last4, @kyc_hash, 'pending', NULL,
         @created_at, @updated_at)
       ON CONFLICT (provider, customer_ref) DO NOTHING`,
    ),
    getOpening: db.prepare<{ provider: string; customer_ref: string }, OpeningRow>(
      'SELECT * FROM funding_openings WHERE provider = @provider AND customer_ref = @customer_ref',
    ),
    claimOpening: db.prepare<{ provider: string; customer_ref: string; at: number; stale_before: number }, OpeningRow>(
      `UPDATE funding_openings SET status = 'opening', claimed_at = @at, updated_at = @at
       WHERE provider = @provider AND customer_ref = @customer_ref
         AND (status = 'pending' OR (status = 'opening' AND claimed_at < @stale_before))
       RETURNING *`,
    ),
    finishOpening: db.prepare<{ provider: string; customer_ref: string; status: string; at: number }>(
      `UPDATE funding_openings SET status = @status, claimed_at = NULL, updated_at = @at
       WHERE provider = @provider AND customer_ref = @customer_ref AND status = 'opening'`,
    ),
    setLive: db.prepare<{ account_id: string; threshold: number | null }>(
      'UPDATE accounts SET low_balance_kobo = @threshold WHERE account_id = @account_id',
    ),
    setTest: db.prepare<{ account_id: string; threshold: number | null }>(
      'UPDATE accounts SET test_low_balance_kobo = @threshold WHERE account_id = @account_id',
    ),
    thresholds: db.prepare<[string], { low_balance_kobo: number | null; test_low_balance_kobo: number | null }>(
      'SELECT low_balance_kobo, test_low_balance_kobo FROM accounts WHERE account_id = ?',
    ),
  };
}

type FundingStatements = ReturnType<typeof prepareFundingStatements>;
type MoneyOperations = ReturnType<typeof moneyOperations>;

function openingRow(opening: NewFundingOpening, at: number): OpeningRow {
  return {
    provider: opening.provider,
    customer_ref: opening.customerRef,
    account_id: opening.accountId,
    mode: opening.mode,
    kyc_kind: opening.kycKind,
    kyc_last4: opening.kycLast4,
    kyc_hash: opening.kycHash,
    status: 'pending',
    claimed_at: null,
    created_at: toMs(opening.createdAt),
    updated_at: at,
  };
}

function isMissingAccount(error: unknown): boolean {
  return (
    error instanceof MissingAccount ||
    (error instanceof Database.SqliteError && error.code === 'SQLITE_CONSTRAINT_FOREIGNKEY')
  );
}

/**
 * The conditional status change of an inflow and its wallet credit, inside one transaction; a
 * missing account throws, so the status change rolls back with it.
 */
function creditInflow(
  sql: FundingStatements,
  money: MoneyOperations,
  inflowId: string,
  credit: { accountId: string; mode: Mode; feeKobo: Kobo; at: Date },
  from: string,
): CreditInflowResult {
  const at = toMs(credit.at);
  const row = sql.markCredited.get({
    inflow_id: inflowId,
    from,
    account_id: credit.accountId,
    mode: credit.mode,
    fee_kobo: credit.feeKobo,
    updated_at: at,
  });
  if (row === undefined) {
    const current = sql.getInflow.get(inflowId);
    if (current === undefined) return { outcome: 'not_found' };
    const inflow = inflowFromRow(current);
    return inflow.status === 'credited' ? { outcome: 'already_credited', inflow } : { outcome: 'wrong_status', inflow };
  }
  const inflow = inflowFromRow(row);
  // A live wallet takes what its identity level allows; the rest is held (docs/kyc.md).
  const split =
    credit.mode === 'live'
      ? splitCredit(money.levels, credit.accountId, inflow.creditedKobo)
      : { creditKobo: inflow.creditedKobo, heldKobo: 0 };
  if (split === null) throw new MissingAccount();
  const heldKobo = kobo(split.heldKobo);
  // Only the live wallet's inflow counts against its level; the test world is never limited.
  if (credit.mode === 'live')
    keepSplit(money.levels, { inflowId, accountId: credit.accountId, provider: inflow.provider, at: credit.at }, split);
  if (split.creditKobo === 0) {
    // Nothing reaches the wallet: the whole credit is held, no wallet entry and no event.
    money.book(
      'inflow_credited',
      credit.mode,
      inflow.creditReference,
      credit.at,
      inflowCreditedPostings(credit.accountId, inflow.amountPaidKobo, inflow.feeKobo, heldKobo),
    );
    const balanceKobo = kobo(money.levels.standing.get(credit.accountId)?.balance_kobo ?? 0);
    return { outcome: 'credited', inflow, balanceKobo, heldKobo };
  }
  const credited = money.credit({
    accountId: credit.accountId,
    mode: credit.mode,
    amountKobo: kobo(split.creditKobo),
    heldKobo,
    reference: inflow.creditReference,
    memo: `Bank transfer via ${inflow.provider} (${inflow.providerReference})`,
    at: credit.at,
    funding: {
      provider: inflow.provider,
      providerReference: inflow.providerReference,
      amountPaidKobo: inflow.amountPaidKobo,
      feeKobo: inflow.feeKobo,
      payerName: inflow.payerName,
    },
  });
  // Thrown, not returned: it rolls the status change back with it.
  if (credited === null) throw new MissingAccount();
  if (credited.replayed) throw new Error(`store: inflow ${inflowId} found its credit reference used already`);
  return { outcome: 'credited', inflow, balanceKobo: credited.balanceKobo, heldKobo };
}

/** An inflow's row, written once per (provider, provider reference); a copy finds the first. */
function recordIn(
  sql: FundingStatements,
  money: MoneyOperations,
  inflow: NewInflow,
): { inflow: InflowRecord; created: boolean } {
  const at = toMs(inflow.createdAt);
  const inserted = sql.insertInflow.run({
    inflow_id: inflow.inflowId,
    provider: inflow.provider,
    provider_reference: inflow.providerReference,
    account_number: inflow.accountNumber,
    account_id: inflow.accountId,
    mode: inflow.mode,
    amount_paid_kobo: inflow.amountPaidKobo,
    fee_kobo: 0,
    credited_kobo: 0,
    payer_name: inflow.payerName,
    status: inflow.status,
    reason: inflow.reason,
    raw: inflow.raw,
    credit_reference: '',
    created_at: at,
    updated_at: at,
  });
  const row = sql.findInflow.get({ provider: inflow.provider, provider_reference: inflow.providerReference })!;
  // A confirmed transfer is at its provider for us from now on, in no wallet yet.
  if (inserted.changes === 1)
    money.book(
      'inflow_received',
      inflow.mode,
      inflow.inflowId,
      inflow.createdAt,
      inflowReceivedPostings(inflow.provider, inflow.amountPaidKobo),
    );
  return { inflow: inflowFromRow(row), created: inserted.changes === 1 };
}

/** The virtual accounts a provider opened for an account, kept as the provider answered. */
function virtualAccountStore(
  sql: FundingStatements,
): Pick<
  FundingStore,
  | 'saveVirtualAccount'
  | 'listVirtualAccounts'
  | 'listActiveVirtualAccounts'
  | 'findVirtualAccount'
  | 'closeVirtualAccount'
> {
  return {
    async saveVirtualAccount(account) {
      sql.saveAccount.run({
        provider: account.provider,
        account_number: account.accountNumber,
        account_id: account.accountId,
        mode: account.mode,
        bank_name: account.bankName,
        bank_code: account.bankCode,
        account_name: account.accountName,
        provider_customer_ref: account.providerCustomerRef,
        status: account.status,
        kyc_kind: account.kycKind,
        kyc_last4: account.kycLast4,
        kyc_hash: account.kycHash,
        created_at: toMs(account.createdAt),
      });
    },
    async listVirtualAccounts(accountId, mode) {
      return sql.listAccounts.all({ account_id: accountId, mode }).map(virtualAccountFromRow);
    },
    async listActiveVirtualAccounts(limit) {
      return sql.listActive.all({ limit: requireLimit(limit) }).map(virtualAccountFromRow);
    },
    async findVirtualAccount(provider, accountNumber) {
      const row = sql.findAccount.get({ provider, account_number: accountNumber });
      return row === undefined ? null : virtualAccountFromRow(row);
    },
    async closeVirtualAccount(provider, accountNumber) {
      const row = sql.closeAccount.get({ provider, account_number: accountNumber });
      return row === undefined ? null : virtualAccountFromRow(row);
    },
  };
}

/** Inflows: recorded once, credited once, in one group-commit operation with the wallet's credit. */
function inflowStore(
  db: Database.Database,
  commit: GroupCommit,
  sql: FundingStatements,
  money: MoneyOperations,
): Pick<
  FundingStore & FundingMoney,
  | 'recordInflow'
  | 'recordAndCreditInflow'
  | 'getInflow'
  | 'findInflow'
  | 'creditInflow'
  | 'rejectInflow'
  | 'reconsiderInflow'
  | 'listInflows'
  | 'listAccountInflows'
> {
  return {
    async recordInflow(inflow) {
      requireAmount('amountPaidKobo', inflow.amountPaidKobo, 1);
      return commit.run(() => recordIn(sql, money, inflow));
    },
    async recordAndCreditInflow(inflow, credit) {
      requireAmount('amountPaidKobo', inflow.amountPaidKobo, 1);
      requireAmount('feeKobo', credit.feeKobo, 0);
      return commit.run(() => {
        const recorded = recordIn(sql, money, inflow);
        const accountId = creditNowTo(recorded);
        if (accountId === null) return { ...recorded, credit: null };
        const to = { accountId, mode: recorded.inflow.mode, ...credit };
        try {
          // Nested in the batch, a transaction function is a savepoint: a failed credit leaves the row.
          return {
            ...recorded,
            credit: db.transaction(() => creditInflow(sql, money, recorded.inflow.inflowId, to, 'verified'))(),
          };
        } catch (error) {
          if (isMissingAccount(error)) return { ...recorded, credit: { outcome: 'no_account' as const } };
          // Anything else: the row stays verified and the caller credits it on its own (and meets the error there).
          return { ...recorded, credit: null };
        }
      });
    },
    async getInflow(inflowId) {
      const row = sql.getInflow.get(inflowId);
      return row === undefined ? null : inflowFromRow(row);
    },
    async findInflow(provider, providerReference) {
      const row = sql.findInflow.get({ provider, provider_reference: providerReference });
      return row === undefined ? null : inflowFromRow(row);
    },
    async creditInflow(inflowId, credit, from) {
      requireAmount('feeKobo', credit.feeKobo, 0);
      return commit.run(
        () => creditInflow(sql, money, inflowId, credit, from),
        (error) => {
          // The inflow's account_id is a foreign key, so a missing account usually fails there.
          if (isMissingAccount(error)) return { outcome: 'no_account' };
          throw error;
        },
      );
    },
    async rejectInflow(inflowId, reason, at) {
      return commit.run(() => {
        const rejected = sql.reject.get({ inflow_id: inflowId, reason, updated_at: toMs(at) });
        // Not ours: what was received for it leaves the books as it came.
        if (rejected !== undefined)
          money.book(
            'inflow_returned',
            rejected.mode as Mode,
            inflowId,
            at,
            inflowReturnedPostings(rejected.provider, kobo(rejected.amount_paid_kobo)),
          );
        const row = rejected ?? sql.getInflow.get(inflowId);
        return row === undefined ? null : inflowFromRow(row);
      });
    },
    async reconsiderInflow(inflowId, reason, at) {
      return commit.run(() => {
        const row =
          sql.reconsider.get({ inflow_id: inflowId, reason, updated_at: toMs(at) }) ?? sql.getInflow.get(inflowId);
        return row === undefined ? null : inflowFromRow(row);
      });
    },
    async listInflows(status, limit) {
      return sql.listByStatus.all({ status, limit: requireLimit(limit) }).map(inflowFromRow);
    },
    async listAccountInflows(accountId, mode, limit) {
      return sql.listByAccount.all({ account_id: accountId, mode, limit: requireLimit(limit) }).map(inflowFromRow);
    },
  };
}

/** Openings of virtual accounts: saved, claimed by one caller at a time, finished. */
function openingStore(
  commit: GroupCommit,
  sql: FundingStatements,
): Pick<FundingStore, 'saveOpening' | 'getOpening' | 'claimOpening' | 'finishOpening'> {
  return {
    async saveOpening(opening) {
      const at = toMs(opening.createdAt);
      sql.saveOpening.run(openingRow(opening, at));
    },
    async getOpening(provider, customerRef) {
      const row = sql.getOpening.get({ provider, customer_ref: customerRef });
      return row === undefined ? null : openingFromRow(row);
    },
    async claimOpening(fallback, at, staleBefore) {
      // One operation: the insert of a missing opening and the conditional claim commit together.
      return commit.run(() => {
        sql.insertOpening.run(openingRow(fallback, toMs(at)));
        const row = sql.claimOpening.get({
          provider: fallback.provider,
          customer_ref: fallback.customerRef,
          at: toMs(at),
          stale_before: toMs(staleBefore),
        });
        return row === undefined ? null : openingFromRow(row);
      });
    },
    async finishOpening(provider, customerRef, status, at) {
      sql.finishOpening.run({ provider, customer_ref: customerRef, status, at: toMs(at) });
    },
  };
}

/** The low-balance thresholds of an account's two wallets. */
function thresholdStore(
  commit: GroupCommit,
  sql: FundingStatements,
): Pick<FundingStore, 'setLowBalanceThreshold' | 'getLowBalanceThreshold'> {
  return {
    async setLowBalanceThreshold(accountId, mode, thresholdKobo) {
      if (thresholdKobo !== null) requireAmount('thresholdKobo', thresholdKobo, 1);
      const statement = mode === 'test' ? sql.setTest : sql.setLive;
      return commit.run(() => statement.run({ account_id: accountId, threshold: thresholdKobo }).changes === 1);
    },
    async getLowBalanceThreshold(accountId, mode) {
      const row = sql.thresholds.get(accountId);
      if (row === undefined) return null;
      const value = mode === 'test' ? row.test_low_balance_kobo : row.low_balance_kobo;
      return value === null ? null : kobo(value);
    },
  };
}

export function createFundingStore(
  db: Database.Database,
  commit: GroupCommit,
  money: MoneyOperations,
): FundingStore & FundingMoney & { creditNow: CreditNow } {
  const sql = prepareFundingStatements(db);
  return {
    // Inside another operation (a staff approval): a savepoint, a missing account answered, not thrown.
    creditNow(inflowId, credit, from) {
      try {
        return db.transaction(() => creditInflow(sql, money, inflowId, credit, from))();
      } catch (error) {
        if (isMissingAccount(error)) return { outcome: 'no_account' };
        throw error;
      }
    },
    ...virtualAccountStore(sql),
    ...inflowStore(db, commit, sql, money),
    ...openingStore(commit, sql),
    ...thresholdStore(commit, sql),
  };
}

/** An inflow's credit made inside an operation that is already running in the commit. */
type CreditNow = (
  inflowId: string,
  credit: { accountId: string; mode: Mode; feeKobo: Kobo; at: Date },
  from: 'verified' | 'unmatched',
) => CreditInflowResult;

/** The account an inflow was to be credited to does not exist; thrown to roll the credit back. */
class MissingAccount extends Error {
  constructor() {
    super('store: the account to credit does not exist');
  }
}
