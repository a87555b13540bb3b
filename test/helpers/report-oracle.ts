/**
 * The reports as they were computed before they were sums of the books' postings: from each
 * purchase's status and last attempt, and each inflow's status and amounts. Kept here only as
 * the oracle the books' reports are compared with (test/core/reports/books-reports.test.ts);
 * production has one path, core/store/{sqlite,mongo}/reports.ts.
 */
import type Database from 'better-sqlite3';
import type { Db, Document } from 'mongodb';
import { kobo } from '../../core/domain/money.js';
import type { FundingDayRow, ReportGroup, SalesDayRow } from '../../core/domain/reports.js';
import type { ReportWindow } from '../../core/store/port.js';

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

const GROUP_KEY: Readonly<Record<ReportGroup, string>> = {
  product: 't.product',
  upstream: "COALESCE(a.upstream, '')",
  tier: 'acc.tier_id',
};

function salesSql(group: ReportGroup): string {
  const costKnown = "t.status = 'success' AND a.outcome IS 'delivered' AND a.cost_kobo IS NOT NULL";
  return `
    SELECT (t.created_at + CAST(@offset AS INTEGER)) / ${DAY_MS} AS day,
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
  return { from: window.from.getTime(), until: window.until.getTime(), offset: window.offsetMs };
}

function salesRowOf(row: SalesRow): SalesDayRow {
  return {
    day: Number(row.day),
    key: String(row.key ?? ''),
    salesCount: Number(row.sales_count),
    chargedKobo: kobo(Number(row.charged_kobo)),
    refundCount: Number(row.refund_count),
    refundedKobo: kobo(Number(row.refunded_kobo)),
    pendingCount: Number(row.pending_count),
    pendingKobo: kobo(Number(row.pending_kobo)),
    costedCount: Number(row.costed_count),
    costKobo: kobo(Number(row.cost_kobo)),
    costUnknownCount: Number(row.cost_unknown_count),
    costUnknownChargedKobo: kobo(Number(row.cost_unknown_charged_kobo)),
  };
}

function fundingRowOf(row: FundingRow): FundingDayRow {
  return {
    day: Number(row.day),
    provider: String(row.provider),
    count: Number(row.count),
    amountPaidKobo: kobo(Number(row.amount_paid_kobo)),
    creditedCount: Number(row.credited_count),
    feeKobo: kobo(Number(row.fee_kobo)),
    creditedKobo: kobo(Number(row.credited_kobo)),
    unmatchedCount: Number(row.unmatched_count),
    unmatchedKobo: kobo(Number(row.unmatched_kobo)),
  };
}

/** The old sums on a SQLite connection to the store's file. */
export const sqliteOracle = {
  sales: (db: Database.Database, window: ReportWindow, group: ReportGroup): SalesDayRow[] =>
    db.prepare<ReturnType<typeof params>, SalesRow>(salesSql(group)).all(params(window)).map(salesRowOf),
  funding: (db: Database.Database, window: ReportWindow): FundingDayRow[] =>
    db.prepare<ReturnType<typeof params>, FundingRow>(FUNDING_SQL).all(params(window)).map(fundingRowOf),
};

function dayOf(offsetMs: number): Document {
  return { $floor: { $divide: [{ $add: [{ $toLong: '$created_at' }, offsetMs] }, DAY_MS] } };
}

const countIf = (condition: Document): Document => ({ $cond: [condition, 1, 0] });
const sumIf = (condition: Document, value: unknown): Document => ({ $cond: [condition, value, 0] });

const REFUNDED: Document = { $in: ['$status', ['failed', 'reversed']] };
const PENDING: Document = { $eq: ['$status', 'pending'] };
const SUCCESS: Document = { $eq: ['$status', 'success'] };
const COST_KNOWN: Document = {
  $and: [SUCCESS, { $eq: ['$last.outcome', 'delivered'] }, { $ne: [{ $ifNull: ['$last.cost_kobo', null] }, null] }],
};
const COST_UNKNOWN: Document = { $and: [SUCCESS, { $not: [COST_KNOWN] }] };

function salesPipeline(window: ReportWindow, group: ReportGroup): Document[] {
  const key =
    group === 'product' ? '$product' : group === 'upstream' ? { $ifNull: ['$last.upstream', ''] } : '$account.tier_id';
  return [
    { $match: { created_at: { $gte: window.from, $lt: window.until }, mode: { $ne: 'test' } } },
    { $project: { account_id: 1, product: 1, status: 1, charged_kobo: 1, created_at: 1 } },
    {
      $lookup: {
        from: 'upstream_attempts',
        localField: '_id',
        foreignField: 'reference',
        pipeline: [
          { $sort: { seq: -1 } },
          { $limit: 1 },
          { $project: { _id: 0, upstream: 1, outcome: 1, cost_kobo: 1 } },
        ],
        as: 'last',
      },
    },
    { $unwind: { path: '$last', preserveNullAndEmptyArrays: true } },
    ...(group === 'tier'
      ? [
          {
            $lookup: {
              from: 'accounts',
              localField: 'account_id',
              foreignField: '_id',
              pipeline: [{ $project: { _id: 0, tier_id: 1 } }],
              as: 'account',
            },
          },
          { $unwind: '$account' },
        ]
      : []),
    {
      $group: {
        _id: { day: dayOf(window.offsetMs), key },
        sales_count: { $sum: 1 },
        charged_kobo: { $sum: '$charged_kobo' },
        refund_count: { $sum: countIf(REFUNDED) },
        refunded_kobo: { $sum: sumIf(REFUNDED, '$charged_kobo') },
        pending_count: { $sum: countIf(PENDING) },
        pending_kobo: { $sum: sumIf(PENDING, '$charged_kobo') },
        costed_count: { $sum: countIf(COST_KNOWN) },
        cost_kobo: { $sum: sumIf(COST_KNOWN, '$last.cost_kobo') },
        cost_unknown_count: { $sum: countIf(COST_UNKNOWN) },
        cost_unknown_charged_kobo: { $sum: sumIf(COST_UNKNOWN, '$charged_kobo') },
      },
    },
    { $sort: { '_id.day': 1, '_id.key': 1 } },
  ];
}

function fundingPipeline(window: ReportWindow): Document[] {
  const credited: Document = { $eq: ['$status', 'credited'] };
  const unmatched: Document = { $eq: ['$status', 'unmatched'] };
  return [
    { $match: { created_at: { $gte: window.from, $lt: window.until }, mode: 'live' } },
    {
      $group: {
        _id: { day: dayOf(window.offsetMs), provider: '$provider' },
        count: { $sum: 1 },
        amount_paid_kobo: { $sum: '$amount_paid_kobo' },
        credited_count: { $sum: countIf(credited) },
        fee_kobo: { $sum: sumIf(credited, '$fee_kobo') },
        credited_kobo: { $sum: sumIf(credited, '$credited_kobo') },
        unmatched_count: { $sum: countIf(unmatched) },
        unmatched_kobo: { $sum: sumIf(unmatched, '$amount_paid_kobo') },
      },
    },
    { $sort: { '_id.day': 1, '_id.provider': 1 } },
  ];
}

/** A group's _id (day and key or provider) flattened beside its sums, as the SQL rows come. */
const flat = (row: Document): Document => ({ ...row, ...row._id });

/** The old sums on the store's MongoDB database. */
export const mongoOracle = {
  async sales(db: Db, window: ReportWindow, group: ReportGroup): Promise<SalesDayRow[]> {
    const rows = await db.collection('transactions').aggregate(salesPipeline(window, group)).toArray();
    return rows.map((row) => salesRowOf(flat(row) as SalesRow));
  },
  async funding(db: Db, window: ReportWindow): Promise<FundingDayRow[]> {
    const rows = await db.collection('inflows').aggregate(fundingPipeline(window)).toArray();
    return rows.map((row) => fundingRowOf(flat(row) as FundingRow));
  },
};
