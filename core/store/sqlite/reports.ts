/**
 * The reports' sums on SQLite, sums of the books' postings (docs/money.md, The books): each
 * live purchase or inflow made in the period is found on the partial index of live rows by
 * creation time (schema step "reports"), which gives its Lagos day and the dimension a row is
 * keyed by; its entries are found by reference (journal_by_reference) and their postings by
 * entry. Each purchase's or inflow's postings are summed per account first, then those sums
 * per day and key: a purchase counts among the pending when held:purchases still holds its
 * charge, among those of known cost when revenue:sales has it, and so on.
 */
import { Worker } from 'node:worker_threads';
import type Database from 'better-sqlite3';
import { kobo } from '../../domain/money.js';
import type { FundingDayRow, ManualDayRow, ReportGroup, SalesDayRow } from '../../domain/reports.js';
import type { ReportStore, ReportWindow } from '../port.js';
import { toMs } from './rows.js';

const DAY_MS = 86_400_000;

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

/** The dimension a group needs beyond the purchase's own row, joined before its entries. */
const GROUP_JOIN: Readonly<Record<ReportGroup, string>> = {
  product: '',
  // The upstream called last: failover stops at a delivery, so a delivered purchase's is the
  // one whose cost account its settle booked; "" for a purchase that called none.
  upstream: `LEFT JOIN upstream_attempts AS a
        ON a.reference = t.reference
       AND a.seq = (SELECT MAX(x.seq) FROM upstream_attempts AS x WHERE x.reference = t.reference)`,
  // The account's tier now; CROSS JOIN keeps the purchases the outer loop (SQLite never
  // reorders it): left to itself the planner may scan the accounts and read the period once per account.
  tier: 'CROSS JOIN accounts AS acc ON acc.account_id = t.account_id',
};

/**
 * The entry kinds a purchase's reference is booked under (core/domain/books.ts). The join reads
 * a reference's few entries in one range of journal_by_reference and filters their kinds (the
 * unary `+` keeps the planner from searching the index once per kind, twice the work).
 */
const PURCHASE_KINDS = "('reserve', 'settle', 'refund', 'reverse', 'cost_known')";
const INFLOW_KINDS = "('inflow_received', 'inflow_credited', 'inflow_returned')";

/** A posting's amount as the account holds it: liabilities and revenue are credits, so negated. */
const held = (account: string, kinds?: string) =>
  `SUM(CASE WHEN ${kinds === undefined ? '' : `j.kind IN ${kinds} AND `}p.account ${account} THEN -p.amount_kobo ELSE 0 END)`;

function salesSql(group: ReportGroup): string {
  // Per purchase: its charge (the reserve's credit to held:purchases), what went back to its
  // wallet (a refund's or a reversal's line), what is still held, its revenue of known cost,
  // the cost its upstream's cost account took, and its revenue of unknown cost. A reversal
  // takes back what the settle booked, so a reversed purchase holds no revenue and no cost.
  return `
    WITH purchases AS (
      SELECT (t.created_at + CAST(@offset AS INTEGER)) / ${DAY_MS} AS day,
             ${GROUP_KEY[group]} AS key,
             ${held("= 'held:purchases'", "('reserve')")} AS charged,
             ${held("GLOB 'wallet:*'", "('refund', 'reverse')")} AS refunded,
             ${held("= 'held:purchases'")} AS pending,
             ${held("= 'revenue:sales'")} AS sold,
             SUM(CASE WHEN p.account GLOB 'upstream:*:cost' THEN p.amount_kobo ELSE 0 END) AS cost,
             ${held("= 'revenue:sales_cost_unknown'")} AS unknown
        FROM transactions AS t INDEXED BY transactions_live_by_time
        ${GROUP_JOIN[group]}
        CROSS JOIN journal AS j ON j.reference = t.reference AND +j.kind IN ${PURCHASE_KINDS}
        CROSS JOIN postings AS p ON p.entry_id = j.entry_id
       WHERE t.mode = 'live' AND t.created_at >= @from AND t.created_at < @until
       -- One group per purchase; named as the index orders its rows, so they come grouped and
       -- SQLite sums them as they come instead of sorting every posting of the period first.
       GROUP BY t.created_at, t.product, t.status, t.charged_kobo, t.account_id, t.reference
    )
    SELECT day, key,
           COUNT(*) AS sales_count,
           SUM(charged) AS charged_kobo,
           SUM(refunded <> 0) AS refund_count,
           SUM(refunded) AS refunded_kobo,
           SUM(pending <> 0) AS pending_count,
           SUM(pending) AS pending_kobo,
           SUM(sold <> 0) AS costed_count,
           SUM(cost) AS cost_kobo,
           SUM(unknown <> 0) AS cost_unknown_count,
           SUM(unknown) AS cost_unknown_charged_kobo
      FROM purchases
     GROUP BY day, key
     ORDER BY day, key`;
}

/**
 * Per inflow: what its receipt put in the provider's clearing, what its credit put in the
 * wallet and in revenue:funding_fees, and what held:inflows still holds for it (counted as
 * unmatched only while it waits for a person: a verified one is about to be credited). A
 * transfer rejected before the books began has no entry (the history booked only money that
 * became, or waits to become, the platform's) and counts with the amount it recorded.
 */
const FUNDING_SQL = `
  WITH inflow_sums AS (
    SELECT (i.created_at + CAST(@offset AS INTEGER)) / ${DAY_MS} AS day,
           i.provider AS provider,
           i.status AS status,
           i.amount_paid_kobo AS recorded,
           COUNT(j.entry_id) AS lines,
           SUM(CASE WHEN j.kind = 'inflow_received' AND p.account GLOB 'funding:*:clearing'
                    THEN p.amount_kobo ELSE 0 END) AS received,
           ${held("GLOB 'wallet:*'", "('inflow_credited')")} AS credited,
           ${held("= 'revenue:funding_fees'", "('inflow_credited')")} AS fee,
           ${held("= 'held:inflows'")} AS waiting
      FROM inflows AS i INDEXED BY inflows_live_by_time
      LEFT JOIN journal AS j ON j.reference = i.inflow_id AND +j.kind IN ${INFLOW_KINDS}
      LEFT JOIN postings AS p ON p.entry_id = j.entry_id
     WHERE i.mode = 'live' AND i.created_at >= @from AND i.created_at < @until
     GROUP BY i.inflow_id
  )
  SELECT day, provider,
         COUNT(*) AS count,
         SUM(CASE WHEN lines = 0 THEN recorded ELSE received END) AS amount_paid_kobo,
         SUM(credited <> 0) AS credited_count,
         SUM(fee) AS fee_kobo,
         SUM(credited) AS credited_kobo,
         SUM(status = 'unmatched' AND waiting <> 0) AS unmatched_count,
         SUM(CASE WHEN status = 'unmatched' THEN waiting ELSE 0 END) AS unmatched_kobo
    FROM inflow_sums
   GROUP BY day, provider
   ORDER BY day, provider`;

/**
 * The manual credits and debits of live wallets: their entries on the journal's kind index
 * (kind, mode, at), each summed by its adjustments:manual line (debit positive: a credit of a
 * wallet is a debit of adjustments:manual, a debit of a wallet its credit).
 */
const MANUAL_SQL = `
  SELECT (j.at + CAST(@offset AS INTEGER)) / ${DAY_MS} AS day,
         SUM(j.kind = 'credit') AS credit_count,
         SUM(CASE WHEN j.kind = 'credit' THEN p.amount_kobo ELSE 0 END) AS credited_kobo,
         SUM(j.kind = 'debit') AS debit_count,
         SUM(CASE WHEN j.kind = 'debit' THEN -p.amount_kobo ELSE 0 END) AS debited_kobo
    FROM journal AS j INDEXED BY journal_by_kind
    JOIN postings AS p ON p.entry_id = j.entry_id AND p.account = 'adjustments:manual'
   WHERE j.kind IN ('credit', 'debit') AND j.mode = 'live' AND j.at >= @from AND j.at < @until
   GROUP BY day
   ORDER BY day`;

interface ManualRow {
  day: number;
  credit_count: number;
  credited_kobo: number;
  debit_count: number;
  debited_kobo: number;
}

function manualOn(db: Database.Database, window: ReportWindow): ManualDayRow[] {
  return db
    .prepare<ReturnType<typeof params>, ManualRow>(MANUAL_SQL)
    .all(params(window))
    .map(
      (row): ManualDayRow => ({
        day: row.day,
        creditCount: row.credit_count,
        creditedKobo: kobo(row.credited_kobo),
        debitCount: row.debit_count,
        debitedKobo: kobo(row.debited_kobo),
      }),
    );
}

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
    async manualByDay(window) {
      // A short read (manual moves are few, found on their kind's index): on the store's own connection.
      return manualOn(db, window);
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
