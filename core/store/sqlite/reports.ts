/**
 * The reports' sums on SQLite: one grouped SELECT each, over the partial indexes of live
 * purchases and inflows by creation time (schema step "reports"), which hold every column the
 * sums read, so a period is one range of one index and never a scan of the table. A purchase's
 * last attempt is found through the attempts' primary key (reference, seq).
 */
import type Database from 'better-sqlite3';
import { kobo } from '../../domain/money.js';
import type { FundingDayRow, ReportGroup, SalesDayRow } from '../../domain/reports.js';
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

function salesSql(group: ReportGroup): string {
  // A delivered purchase's cost is its delivered attempt's; failover stops at a delivery, so
  // that attempt is the last one. `IS` rather than `=`: a purchase without attempts has a NULL
  // outcome, and the test must still be false, not NULL. Sums over no row are NULL in SQL, so each is written as a
  // SUM of CASE ... ELSE 0 over at least one row (a GROUP BY never yields an empty group).
  const costKnown = "t.status = 'success' AND a.outcome IS 'delivered' AND a.cost_kobo IS NOT NULL";
  return `
    SELECT (t.created_at + @offset) / ${DAY_MS} AS day,
           ${GROUP_KEY[group]} AS key,
           COUNT(*) AS sales_count,
           SUM(t.charged_kobo) AS charged_kobo,
           SUM(CASE WHEN t.status IN ('failed', 'reversed') THEN 1 ELSE 0 END) AS refund_count,
           SUM(CASE WHEN t.status IN ('failed', 'reversed') THEN t.charged_kobo ELSE 0 END) AS refunded_kobo,
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
      ${group === 'tier' ? 'JOIN accounts AS acc ON acc.account_id = t.account_id' : ''}
     WHERE t.mode = 'live' AND t.created_at >= @from AND t.created_at < @until
     GROUP BY day, key
     ORDER BY day, key`;
}

const FUNDING_SQL = `
  SELECT (created_at + @offset) / ${DAY_MS} AS day,
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

export function createReportStore(db: Database.Database): ReportStore {
  const sales = new Map(
    (['product', 'upstream', 'tier'] as const).map((group) => [
      group,
      db.prepare<ReturnType<typeof params>, SalesRow>(salesSql(group)),
    ]),
  );
  const funding = db.prepare<ReturnType<typeof params>, FundingRow>(FUNDING_SQL);
  return {
    async salesByDay(window, group) {
      return sales
        .get(group)!
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
    },
    async fundingByDay(window) {
      return funding.all(params(window)).map(
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
    },
  };
}
