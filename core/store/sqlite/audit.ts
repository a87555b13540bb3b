/**
 * The ledger check on SQLite: two streaming merges over indexes, read in one transaction so
 * that every check sees the same snapshot of the money. What each finding means is decided
 * once for both stores, in core/store/audit.ts.
 *
 * Why merges and not GROUP BY joins: a join probes an index for every row, at random places
 * in the file, so the check grew faster than the ledger and took seconds per million rows.
 * Here SQLite merges two index scans into one ordered stream (EXPLAIN QUERY PLAN says
 * `MERGE (UNION ALL)`, no temporary sort), and this file walks that stream once, keeping only
 * the current account or purchase in memory: time linear in the ledger, memory bounded by
 * one group of rows.
 *
 * The check runs on a connection of its own (see audit-runner.ts): on the store's
 * connection it would hold the core's event loop, and every purchase with it, for as long as
 * it reads.
 */
import type Database from 'better-sqlite3';
import type { AuditProgress, LedgerAudit } from '../../domain/audit.js';
import type { Mode } from '../../domain/mode.js';
import { isRefunded } from '../../domain/transactions.js';
import { AuditCollector, type AuditCounts, emptyModeCounts } from '../audit.js';

/** How many rows pass between two progress reports; reading this many takes well under a second. */
const AUDIT_PROGRESS_EVERY_ROWS = 200_000;

interface Counts {
  accounts: number;
  transactions: number;
  entries: number;
  purchaseEntries: number;
}

/**
 * One row of the wallets stream: an account (src 0; a = its live balance, b = its test
 * balance) or one of its ledger entries (src > 0, the entry id; a = amount, b = balance after,
 * m = the entry's mode).
 */
interface WalletRow {
  k: string;
  src: number;
  a: number;
  b: number;
  m: string;
}

/** One row of the purchases stream: a transaction (src 0) or a debit or refund entry (src 1). */
interface PurchaseRow {
  k: string;
  src: 0 | 1;
  account_id: string;
  mode: string;
  what: string;
  amount: number;
}

function prepareAuditStatements(db: Database.Database) {
  return {
    counts: db.prepare<[], Counts>(
      `SELECT (SELECT COUNT(*) FROM accounts) AS accounts, (SELECT COUNT(*) FROM transactions) AS transactions,
              (SELECT COUNT(*) FROM ledger_entries) AS entries,
              (SELECT COUNT(*) FROM ledger_entries WHERE kind IN ('debit', 'refund')) AS purchaseEntries`,
    ),
    // The literal status matches the partial index transactions_pending_by_age: only pending rows are read.
    pendingByMode: db.prepare<[], { mode: string; pending: number; attention: number }>(
      `SELECT mode, COUNT(*) AS pending, COALESCE(SUM(needs_attention), 0) AS attention
       FROM transactions WHERE status = 'pending' GROUP BY mode`,
    ),
    // Every account beside its entries: the ledger side is read from the covering index
    // ledger_by_account (account_id, mode, entry_id, amount_kobo, balance_after_kobo), so an
    // account's entries come one wallet after the other, each in entry order.
    wallets: db.prepare<[], WalletRow>(
      `SELECT account_id AS k, 0 AS src, balance_kobo AS a, test_balance_kobo AS b, '' AS m FROM accounts
       UNION ALL
       SELECT account_id, entry_id, amount_kobo, balance_after_kobo, mode FROM ledger_entries
       ORDER BY 1`,
    ),
    // Every purchase beside its debit and refund entries (ledger_once_per_purchase's order).
    purchases: db.prepare<[], PurchaseRow>(
      `SELECT reference AS k, 0 AS src, account_id, mode, status AS what, charged_kobo AS amount FROM transactions
       UNION ALL
       SELECT reference, 1, account_id, mode, kind, amount_kobo FROM ledger_entries WHERE kind IN ('debit', 'refund')
       ORDER BY 1`,
    ),
    entryReference: db.prepare<[number], { reference: string }>(
      'SELECT reference FROM ledger_entries WHERE entry_id = ?',
    ),
    ...prepareBooksProofs(db),
  };
}

/** The books' proofs (docs/money.md, The books), each a read of the same snapshot. */
function prepareBooksProofs(db: Database.Database) {
  return {
    trialBalance: db.prepare<[], { mode: string; sum_kobo: number }>(
      'SELECT mode, SUM(amount_kobo) AS sum_kobo FROM postings GROUP BY mode',
    ),
    // The store's trigger keeps every entry balanced; a posting with no journal row (an entry
    // never closed) is the one way an unbalanced set could sit in the file, so both are read.
    unbalancedEntries: db.prepare<[], { entry_id: number; mode: string; reference: string; sum_kobo: number }>(
      `SELECT p.entry_id, MIN(p.mode) AS mode, COALESCE(MIN(j.reference), '(no journal row)') AS reference,
              SUM(p.amount_kobo) AS sum_kobo
       FROM postings p LEFT JOIN journal j ON j.entry_id = p.entry_id
       GROUP BY p.entry_id HAVING SUM(p.amount_kobo) <> 0 OR MIN(j.entry_id) IS NULL`,
    ),
    // postings_by_account (account, mode, amount_kobo) covers each wallet's sum.
    walletBooks: db.prepare<[], { account_id: string; mode: string; balance_kobo: number; postings_kobo: number }>(
      `SELECT a.account_id, m.mode,
              CASE m.mode WHEN 'test' THEN a.test_balance_kobo ELSE a.balance_kobo END AS balance_kobo,
              -COALESCE((SELECT SUM(p.amount_kobo) FROM postings p
                         WHERE p.account = 'wallet:' || a.account_id AND p.mode = m.mode), 0) AS postings_kobo
       FROM accounts a CROSS JOIN (SELECT 'live' AS mode UNION ALL SELECT 'test') m`,
    ),
    purchaseBooks: db.prepare<
      [],
      {
        reference: string;
        account_id: string;
        mode: string;
        status: string;
        reserves: number;
        settles: number;
        refunds: number;
        reverses: number;
      }
    >(
      `SELECT t.reference, t.account_id, t.mode, t.status,
              (SELECT COUNT(*) FROM journal j WHERE j.reference = t.reference AND j.kind = 'reserve') AS reserves,
              (SELECT COUNT(*) FROM journal j WHERE j.reference = t.reference AND j.kind = 'settle') AS settles,
              (SELECT COUNT(*) FROM journal j WHERE j.reference = t.reference AND j.kind = 'refund') AS refunds,
              (SELECT COUNT(*) FROM journal j WHERE j.reference = t.reference AND j.kind = 'reverse') AS reverses
       FROM transactions t`,
    ),
    // What each proposal kind's move books (core/staff/desk.ts applies them), under which reference.
    proposalBooks: db.prepare<
      [],
      { proposal_id: string; account_id: string; kind: string; booked: number; audited: number }
    >(
      `SELECT p.proposal_id, p.account_id, p.kind,
              EXISTS (SELECT 1 FROM journal j WHERE
                (p.kind = 'credit' AND j.kind = 'credit' AND j.reference = COALESCE(NULLIF(p.reference, ''), p.proposal_id))
                OR (p.kind = 'debit' AND j.kind = 'debit' AND j.reference = COALESCE(NULLIF(p.reference, ''), p.proposal_id))
                OR (p.kind = 'refund' AND j.kind = 'reverse' AND j.reference = p.target)
                OR (p.kind = 'pending_failed' AND j.kind = 'refund' AND j.reference = p.target)
                OR (p.kind = 'upstream_topup' AND j.kind = 'upstream_funded' AND j.reference = p.reference)
                OR (p.kind = 'provider_settlement' AND j.kind = 'provider_settled' AND j.reference = p.reference)
                OR (p.kind = 'hold_return' AND j.kind = 'inflow_returned' AND j.reference = p.target || ':returned')
                OR (p.kind = 'inflow_assign' AND j.kind = 'inflow_credited'
                    AND j.reference = (SELECT i.credit_reference FROM inflows i WHERE i.inflow_id = p.target))
              ) AS booked,
              EXISTS (SELECT 1 FROM audit_log a WHERE a.action IN ('proposal.approve', 'proposal.finish')
                        AND a.target = p.proposal_id)
                AS audited
       FROM proposals p WHERE p.applied_at IS NOT NULL`,
    ),
  };
}

/** Every proof of the books, into the collector. */
function proveBooks(sql: Statements, collector: AuditCollector): void {
  for (const row of sql.trialBalance.all())
    collector.unbalanced({ mode: modeOf(row), entryId: null, reference: '', sumKobo: row.sum_kobo });
  for (const row of sql.unbalancedEntries.all())
    collector.unbalanced({
      mode: modeOf(row),
      entryId: String(row.entry_id),
      reference: row.reference,
      sumKobo: row.sum_kobo,
      // An entry with no journal row is reported even when its postings happen to sum to zero.
      unclosed: row.reference === '(no journal row)',
    });
  for (const row of sql.walletBooks.iterate())
    collector.walletBooks({
      accountId: row.account_id,
      mode: modeOf(row),
      balanceKobo: row.balance_kobo,
      postingsKobo: row.postings_kobo,
    });
  for (const row of sql.purchaseBooks.iterate())
    collector.purchaseBooks({ ...row, accountId: row.account_id, mode: modeOf(row) });
  for (const row of sql.proposalBooks.all())
    collector.proposalBooks({
      proposalId: row.proposal_id,
      accountId: row.account_id,
      kind: row.kind,
      booked: row.booked === 1,
      audited: row.audited === 1,
    });
}

type Statements = ReturnType<typeof prepareAuditStatements>;

/** Counts rows read and reports every AUDIT_PROGRESS_EVERY_ROWS of them. */
class ProgressMeter {
  private rowsRead = 0;
  private nextReportAt = AUDIT_PROGRESS_EVERY_ROWS;

  constructor(
    private readonly rowsTotal: number,
    private readonly report: ((progress: AuditProgress) => void) | undefined,
  ) {}

  row(): void {
    this.rowsRead += 1;
    if (this.rowsRead >= this.nextReportAt) {
      this.nextReportAt += AUDIT_PROGRESS_EVERY_ROWS;
      this.report?.({ rowsRead: this.rowsRead, rowsTotal: this.rowsTotal });
    }
  }
}

/**
 * Rows of one key arrive together, but whether the account or purchase row comes before or
 * after its entries is SQLite's choice; a key that goes backwards would mean the stream is not
 * in the order this walk relies on, so it stops rather than misreport.
 */
function checkOrder(previous: string | null, key: string): void {
  if (previous !== null && key < previous) {
    throw new Error(`ledger check: rows out of order (${key} after ${previous}); the audit cannot trust this stream`);
  }
}

/** One wallet's figures while its account's rows stream past. */
interface WalletSums {
  balanceKobo: number | null;
  runningKobo: number;
}

/**
 * Balance = sum of entries, every recorded running balance right, nothing negative: for each
 * account's live and test wallet apart. Counts each mode's entries into `modes`.
 */
function walkWallets(
  sql: Statements,
  collector: AuditCollector,
  meter: ProgressMeter,
  modes: AuditCounts['modes'],
): void {
  let accountId: string | null = null;
  let wallets: Record<Mode, WalletSums> = {
    live: { balanceKobo: null, runningKobo: 0 },
    test: { balanceKobo: null, runningKobo: 0 },
  };
  const closeAccount = () => {
    if (accountId === null) return;
    for (const mode of ['live', 'test'] as const) {
      const { balanceKobo, runningKobo } = wallets[mode];
      if (balanceKobo === null) continue;
      if (balanceKobo !== runningKobo || balanceKobo < 0)
        collector.balance({ accountId, mode, balanceKobo, entriesKobo: runningKobo });
    }
  };
  for (const row of sql.wallets.iterate()) {
    meter.row();
    if (row.k !== accountId) {
      checkOrder(accountId, row.k);
      closeAccount();
      accountId = row.k;
      wallets = { live: { balanceKobo: null, runningKobo: 0 }, test: { balanceKobo: null, runningKobo: 0 } };
    }
    if (row.src === 0) {
      wallets.live.balanceKobo = row.a;
      wallets.test.balanceKobo = row.b;
      continue;
    }
    const mode: Mode = row.m === 'test' ? 'test' : 'live';
    modes[mode].entriesChecked += 1;
    const wallet = wallets[mode];
    wallet.runningKobo += row.a;
    if (row.b !== wallet.runningKobo || wallet.runningKobo < 0) {
      const reference = sql.entryReference.get(row.src)?.reference ?? '';
      collector.runningBalance({
        accountId: row.k,
        mode,
        entryId: row.src,
        reference,
        balanceAfterKobo: row.b,
        runningKobo: wallet.runningKobo,
      });
    }
  }
  closeAccount();
}

/** What one reference's rows add up to in the purchases stream. */
class PurchaseGroup {
  transaction: PurchaseRow | null = null;
  entries: PurchaseRow[] = [];

  constructor(readonly reference: string) {}

  report(collector: AuditCollector): void {
    const tx = this.transaction;
    const orphan = (entry: PurchaseRow) =>
      collector.orphan({
        accountId: entry.account_id,
        mode: modeOf(entry),
        reference: this.reference,
        kind: entry.what,
      });
    if (tx === null) {
      for (const entry of this.entries) orphan(entry);
      return;
    }
    // An entry counts for the purchase only in the purchase's own wallet (account and mode).
    const isMine = (entry: PurchaseRow) => entry.account_id === tx.account_id && entry.mode === tx.mode;
    const mine = this.entries.filter(isMine);
    for (const entry of this.entries) {
      if (!isMine(entry)) orphan(entry);
    }
    const debits = mine.filter((entry) => entry.what === 'debit');
    const refunds = mine.filter((entry) => entry.what === 'refund');
    const debitKobo = -debits.reduce((sum, entry) => sum + entry.amount, 0);
    const refundKobo = refunds.reduce((sum, entry) => sum + entry.amount, 0);
    const refundable = isRefunded(tx.what);
    const wrong =
      debits.length !== 1 ||
      debitKobo !== tx.amount ||
      (refundable ? refunds.length !== 1 || refundKobo !== tx.amount : refunds.length !== 0);
    if (!wrong) return;
    collector.purchase({
      accountId: tx.account_id,
      mode: modeOf(tx),
      reference: this.reference,
      status: tx.what,
      chargedKobo: tx.amount,
      debits: debits.length,
      debitKobo,
      refunds: refunds.length,
      refundKobo,
    });
  }
}

function modeOf(row: { mode: string }): Mode {
  return row.mode === 'test' ? 'test' : 'live';
}

/**
 * One debit of the charge per purchase, one refund of it exactly when the purchase failed or
 * was reversed, and no debit or refund without a purchase of the same account and mode. A
 * group holds one purchase and its few entries (at most one debit and one refund: a unique
 * index). Counts each mode's purchases into `modes`.
 */
function walkPurchases(
  sql: Statements,
  collector: AuditCollector,
  meter: ProgressMeter,
  modes: AuditCounts['modes'],
): void {
  let group: PurchaseGroup | null = null;
  for (const row of sql.purchases.iterate()) {
    meter.row();
    if (group === null || row.k !== group.reference) {
      checkOrder(group?.reference ?? null, row.k);
      group?.report(collector);
      group = new PurchaseGroup(row.k);
    }
    if (row.src === 0) {
      group.transaction = row;
      modes[modeOf(row)].transactionsChecked += 1;
    } else group.entries.push(row);
  }
  group?.report(collector);
}

/** What a caller hears from a running check. */
export interface AuditHooks {
  /** Every AUDIT_PROGRESS_EVERY_ROWS rows. */
  onProgress?: (progress: AuditProgress) => void;
  /** Once the snapshot is taken (the first read done), before the long reads. */
  onSnapshot?: () => void;
}

/**
 * The whole check, in one read transaction on `db`: exact for the snapshot its first read
 * sees, whatever is written meanwhile.
 */
export function runLedgerAudit(db: Database.Database, hooks: AuditHooks = {}): LedgerAudit {
  const sql = prepareAuditStatements(db);
  return db.transaction((): LedgerAudit => {
    const counts = sql.counts.get()!;
    hooks.onSnapshot?.();
    const modes = emptyModeCounts();
    for (const row of sql.pendingByMode.all()) {
      modes[modeOf(row)].pendingCount += row.pending;
      modes[modeOf(row)].needsAttentionCount += row.attention;
    }
    const meter = new ProgressMeter(
      counts.accounts + counts.entries + counts.transactions + counts.purchaseEntries,
      hooks.onProgress,
    );
    const collector = new AuditCollector();
    walkWallets(sql, collector, meter, modes);
    walkPurchases(sql, collector, meter, modes);
    proveBooks(sql, collector);
    return collector.result({
      accountsChecked: counts.accounts,
      transactionsChecked: counts.transactions,
      entriesChecked: counts.entries,
      pendingCount: modes.live.pendingCount + modes.test.pendingCount,
      needsAttentionCount: modes.live.needsAttentionCount + modes.test.needsAttentionCount,
      modes,
    });
  })();
}
