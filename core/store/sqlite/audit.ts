/**
 * The ledger check on SQLite: five queries, each returning only violations, read in one
 * transaction so that every check sees the same snapshot of the money. What each finding
 * means is decided once for both stores, in core/store/audit.ts.
 */
import type Database from 'better-sqlite3';
import type { LedgerAudit } from '../../domain/audit.js';
import { AuditCollector } from '../audit.js';

function prepareAuditStatements(db: Database.Database) {
  return {
    counts: db.prepare<[], { accounts: number; transactions: number; entries: number; pending: number; attention: number }>(
      `SELECT (SELECT COUNT(*) FROM accounts) AS accounts, (SELECT COUNT(*) FROM transactions) AS transactions,
              (SELECT COUNT(*) FROM ledger_entries) AS entries,
              (SELECT COUNT(*) FROM transactions WHERE status = 'pending') AS pending,
              (SELECT COUNT(*) FROM transactions WHERE status = 'pending' AND needs_attention = 1) AS attention`,
    ),
    balances: db.prepare<[], { account_id: string; balance_kobo: number; entries_kobo: number }>(
      `SELECT a.account_id, a.balance_kobo, COALESCE(SUM(l.amount_kobo), 0) AS entries_kobo
       FROM accounts a LEFT JOIN ledger_entries l ON l.account_id = a.account_id
       GROUP BY a.account_id
       HAVING a.balance_kobo <> entries_kobo OR a.balance_kobo < 0`,
    ),
    running: db.prepare<[], { account_id: string; entry_id: number; reference: string; balance_after_kobo: number; running_kobo: number }>(
      `SELECT account_id, entry_id, reference, balance_after_kobo, running_kobo FROM (
         SELECT account_id, entry_id, reference, balance_after_kobo,
                SUM(amount_kobo) OVER (PARTITION BY account_id ORDER BY entry_id) AS running_kobo
         FROM ledger_entries)
       WHERE balance_after_kobo <> running_kobo OR running_kobo < 0`,
    ),
    purchases: db.prepare<[], { reference: string; account_id: string; status: string; charged_kobo: number; debits: number; debit_kobo: number; refunds: number; refund_kobo: number }>(
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
    orphans: db.prepare<[], { account_id: string; reference: string; kind: string }>(
      `SELECT l.account_id, l.reference, l.kind FROM ledger_entries l
       LEFT JOIN transactions t ON t.reference = l.reference
       WHERE l.kind IN ('debit', 'refund') AND (t.reference IS NULL OR t.account_id <> l.account_id)`,
    ),
  };
}

/** The audit, as one read transaction over the statements above. */
export function createLedgerAudit(db: Database.Database): () => LedgerAudit {
  const sql = prepareAuditStatements(db);
  return db.transaction((): LedgerAudit => {
    const counts = sql.counts.get()!;
    const collector = new AuditCollector();
    for (const row of sql.balances.iterate()) {
      collector.balance({ accountId: row.account_id, balanceKobo: row.balance_kobo, entriesKobo: row.entries_kobo });
    }
    for (const row of sql.running.iterate()) {
      collector.runningBalance({
        accountId: row.account_id,
        entryId: row.entry_id,
        reference: row.reference,
        balanceAfterKobo: row.balance_after_kobo,
        runningKobo: row.running_kobo,
      });
    }
    for (const row of sql.purchases.iterate()) {
      collector.purchase({
        accountId: row.account_id,
        reference: row.reference,
        status: row.status,
        chargedKobo: row.charged_kobo,
        debits: row.debits,
        debitKobo: row.debit_kobo,
        refunds: row.refunds,
        refundKobo: row.refund_kobo,
      });
    }
    for (const row of sql.orphans.iterate()) {
      collector.orphan({ accountId: row.account_id, reference: row.reference, kind: row.kind });
    }
    return collector.result({
      accountsChecked: counts.accounts,
      transactionsChecked: counts.transactions,
      entriesChecked: counts.entries,
      pendingCount: counts.pending,
      needsAttentionCount: counts.attention,
    });
  });
}
