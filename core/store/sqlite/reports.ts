/**
 * The reports' sums on SQLite: one grouped SELECT each, over the partial indexes of live
 * purchases and inflows by creation time (schema step "reports"), which hold every column the
 * sums read, so a period is one range of one index and never a scan of the table. A purchase's
 * last attempt is found through the attempts' primary key (reference, seq).
 */
import { Worker } from 'node:worker_threads';
import type Database from 'better-sqlite3';
import { kobo } from '../../domain/money.js';
import type { FundingDayRow, ReportGroup, SalesDayRow } from '../../domain/reports.js';
import { REFUNDED_STATUSES } from '../../domain/transactions.js';
import type { ReportStore, ReportWindow } from '../port.js';
import { toMs } from './rows.js';

const DAY_MS = 86_400_000;
/** The refunded states as a SQL list: fixed words of the domain, never input. */
const REFUNDED_IN = REFUNDED_STATUSES.map((status) => `'${status}'`).join(', ');

interface SalesRow {
  day: number;
  key: string;
  sales_count: number;
  charged_kobo: number;
  refund_count: number;
  refunded_kobo: number;
  pending_count: number;
  pending_kobo: number;
  costed_count: number;
  cost_kobo: number;
  cost_unknown_count: number;
  cost_unknown_charged_kobo: number;
}

interface FundingRow {
  day: number;
  provider: string;
  count: number;
  amount_paid_kobo: number;
  credited_count: number;
  fee_kobo: number;
  credited_kobo: number;
  unmatched_count: number;
  unmatched_kobo: number;
}

/** The expression each group is keyed by; `a` is the purchase's last attempt, `acc` its account. */
const GROUP_KEY: Readonly<Record<ReportGroup, string>> = {
  product: 't.product',
  upstream: "COALESCE(a.upstream, '')",
  tier: 'acc.tier_id',
};

function salesSql(group: ReportGroup): string {
  // CROSS JOIN keeps the purchases the outer loop (SQLite never reorders it): left to itself the
  // planner may scan the accounts and read the period's range once per account.
  // A delivered purchase's cost is its delivered attempt's; failover stops at a delivery, so
  // that attempt is the last one. `IS` rather than `=`: a purchase without attempts has a NULL
  // outcome, and the test must still be false, not NULL. Sums over no row are NULL in SQL, so each is written as a
  // SUM of CASE ... ELSE 0 over at least one row (a GROUP BY never yields an empty group).
  const costKnown = "t.status = 'success' AND a.outcome IS 'delivered' AND a.cost_kobo IS NOT NULL";
  return `
    SELECT (t.created_at + CAST(@offset AS INTEGER)) / ${DAY_MS} AS day,
           ${GROUP_KEY[group]} AS key,
           COUNT(*) AS sales_count,
           SUM(t.charged_kobo) AS charged_kobo,
           SUM(CASE WHEN t.status IN (${REFUNDED_IN}) THEN 1 ELSE 0 END) AS refund_count,
           SUM(CASE WHEN t.status IN (${REFUNDED_IN}) THEN t.charged_kobo ELSE 0 END) AS refunded_kobo,
           SUM(CASE WHEN t.status = 'pending' THEN 1 ELSE 0 END) AS pending_count,
           SUM(CASE WHEN t.status = 'pending' THEN t.charged_kobo ELSE 0 END) AS pending_kobo,
           SUM(CASE WHEN ${costKnown} THEN 1 ELSE 0 END) AS costed_count,
           SUM(CASE WHEN ${costKnown} THEN a.cost_kobo ELSE 0 END) AS cost_kobo,
           SUM(CASE WHEN t.status = 'success' AND NOT (${costKnown}) THEN 1 ELSE 0 END) AS cost_unknown_count,
           SUM(CASE WHEN t.status = 'success' AND NOT (${costKnown}) THEN t.charged_kobo ELSE 0 END)
             AS cost_unknown_charged_kobo
      FROM transactions AS t INDEXED BY transactions_live_by_time
      LEFT JOIN upstream_attempts AS a
        ON a.reference = t.reference
       AND a.seq = (SELECT MAX(x.seq) FROM upstream_attempts AS x WHERE x.reference = t.reference)
      ${group === 'tier' ? 'CROSS JOIN accounts AS acc ON acc.account_id = t.account_id' : ''}
     WHERE t.mode = 'live' AND t.created_at >= @from AND t.created_at < @until
     GROUP BY day, key
     ORDER BY day, key`;
}

const FUNDING_SQL = `
  SELECT (created_at + CAST(@offset AS INTEGER)) / ${DAY_MS} AS day,
         provider,
         COUNT(*) AS count,
         SUM(amount_paid_kobo) AS amount_paid_kobo,
         SUM(CASE WHEN status = 'credited' THEN 1 ELSE 0 END) AS credited_count,
         SUM(CASE WHEN status = 'credited' THEN fee_kobo ELSE 0 END) AS fee_kobo,
         SUM(CASE WHEN status = 'credited' THEN credited_kobo ELSE 0 END) AS credited_kobo,
         SUM(CASE WHEN status = 'unmatched' THEN 1 ELSE 0 END) AS unmatched_count,
         SUM(CASE WHEN status = 'unmatched' THEN amount_paid_kobo ELSE 0 END) AS unmatched_kobo
    FROM inflows INDEXED BY inflows_live_by_time
   WHERE mode = 'live' AND created_at >= @from AND created_at < @until
   GROUP BY day, provider
   ORDER BY day, provider`;

function params(window: ReportWindow) {
  return { from: toMs(window.from), until: toMs(window.until), offset: window.offsetMs };
}

/** The sales sums on a connection; the thread (report-thread.ts) and an in-memory store run it. */
export function salesOn(db: Database.Database, window: ReportWindow, group: ReportGroup): SalesDayRow[] {
  return db
    .prepare<ReturnType<typeof params>, SalesRow>(salesSql(group))
    .all(params(window))
    .map(
      (row): SalesDayRow => ({
        day: row.day,
        key: row.key,
        salesCount: row.sales_count,
        chargedKobo: kobo(row.charged_kobo),
        refundCount: row.refund_count,
        refundedKobo: kobo(row.refunded_kobo),
        pendingCount: row.pending_count,
        pendingKobo: kobo(row.pending_kobo),
        costedCount: row.costed_count,
        costKobo: kobo(row.cost_kobo),
        costUnknownCount: row.cost_unknown_count,
        costUnknownChargedKobo: kobo(row.cost_unknown_charged_kobo),
      }),
    );
}

export function fundingOn(db: Database.Database, window: ReportWindow): FundingDayRow[] {
  return db
    .prepare<ReturnType<typeof params>, FundingRow>(FUNDING_SQL)
    .all(params(window))
    .map(
      (row): FundingDayRow => ({
        day: row.day,
        provider: row.provider,
        count: row.count,
        amountPaidKobo: kobo(row.amount_paid_kobo),
        creditedCount: row.credited_count,
        feeKobo: kobo(row.fee_kobo),
        creditedKobo: kobo(row.credited_kobo),
        unmatchedCount: row.unmatched_count,
        unmatchedKobo: kobo(row.unmatched_kobo),
      }),
    );
}

/**
 * A year of a busy platform is a few hundred thousand rows to sum: on the store's connection
 * that would hold the event loop, and every purchase with it, for a second or more. So a file
 * store sums on a worker thread with its own read-only connection (report-thread.ts); WAL lets
 * it read its snapshot while purchases commit. An in-memory store (tests) has no file to share.
 */
export function createReportStore(db: Database.Database): ReportStore {
  return {
    async salesByDay(window, group) {
      if (db.memory) return salesOn(db, window, group);
      return reportOffThread<SalesDayRow[]>({ filename: db.name, kind: 'sales', window, group });
    },
    async fundingByDay(window) {
      if (db.memory) return fundingOn(db, window);
      return reportOffThread<FundingDayRow[]>({ filename: db.name, kind: 'funding', window, group: 'product' });
    },
  };
}

/** What the thread is given: dates travel as Dates (structured clone keeps them). */
export interface ReportThreadData {
  filename: string;
  kind: 'sales' | 'funding';
  window: ReportWindow;
  group: ReportGroup;
}

/** As the ledger check's thread (audit-runner.ts): the built file under dist/, the source under tsx. */
function startThread(data: ReportThreadData): Worker {
  if (!import.meta.url.endsWith('.ts'))
    return new Worker(new URL('./report-thread.js', import.meta.url), { workerData: data });
  const entry = new URL('./report-thread.ts', import.meta.url).href;
  const load = `import(${JSON.stringify(entry)})`;
  const boot = `import('tsx/esm/api').then(({ register }) => { register(); return ${load}; });`;
  return new Worker(boot, { eval: true, workerData: data });
}

function reportOffThread<T>(data: ReportThreadData): Promise<T> {
  const worker = startThread(data);
  return new Promise<T>((resolve, reject) => {
    let settled = false;
    const finish = (outcome: () => void) => {
      if (settled) return;
      settled = true;
      outcome();
    };
    worker.on('message', (rows: T) => finish(() => resolve(rows)));
    worker.on('error', (error) => finish(() => reject(error)));
    worker.on('exit', (code) =>
      finish(() => reject(new Error(`the report's thread stopped (exit code ${code}) before it answered`))),
    );
  });
}
