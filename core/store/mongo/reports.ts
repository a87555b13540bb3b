/**
 * The reports' sums on MongoDB: one aggregation pipeline each, run by the server. The first
 * stage is a range on created_at (the reports_* indexes of schema step 20), so a period reads
 * its own documents only. A purchase's last attempt comes from a $lookup on the attempts'
 * (reference, seq) index, sorted and cut to one inside the join (MongoDB 5.0 and later accept
 * localField/foreignField together with a pipeline; the store needs 6.0). A purchase written
 * before test mode has no `mode` and is live, hence `$ne: 'test'` rather than `'live'`.
 */
import type { Document } from 'mongodb';
import type { FundingDayRow, ReportGroup, SalesDayRow } from '../../domain/reports.js';
import { REFUNDED_STATUSES } from '../../domain/transactions.js';
import type { ReportStore, ReportWindow } from '../port.js';
import { COLLECTIONS, FUNDING_COLLECTIONS, SUPPLY_COLLECTIONS } from './collections.js';
import type { MongoContext } from './context.js';
import { readInteger, readKobo } from './documents.js';

const DAY_MS = 86_400_000;

/**
 * The longest a report may run on the server: a year of a busy platform is well inside it;
 * past it the server stops the query and the staff member sees an error, not a hung page.
 */
const REPORT_MAX_TIME_MS = 30_000;

/** Whole days since the epoch of created_at moved by the window's offset. */
function dayOf(offsetMs: number): Document {
  return { $floor: { $divide: [{ $add: [{ $toLong: '$created_at' }, offsetMs] }, DAY_MS] } };
}

/** 1 when `condition` holds, else 0; and `value` when it holds, else 0: the terms of each $sum. */
const countIf = (condition: Document): Document => ({ $cond: [condition, 1, 0] });
const sumIf = (condition: Document, value: unknown): Document => ({ $cond: [condition, value, 0] });

const REFUNDED: Document = { $in: ['$status', [...REFUNDED_STATUSES]] };
const PENDING: Document = { $eq: ['$status', 'pending'] };
const SUCCESS: Document = { $eq: ['$status', 'success'] };
/**
 * A delivered purchase of known cost: its last attempt delivered it and said what it cost.
 * `$ifNull` makes a missing attempt (or a missing or null cost) a null, which `$ne` tells apart.
 */
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
        from: SUPPLY_COLLECTIONS.attempts,
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
    // No attempt leaves `last` missing, which the expressions read as null.
    { $unwind: { path: '$last', preserveNullAndEmptyArrays: true } },
    ...(group === 'tier'
      ? [
          {
            $lookup: {
              from: COLLECTIONS.accounts,
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

export function createReportStore(ctx: MongoContext): ReportStore {
  const options = { maxTimeMS: REPORT_MAX_TIME_MS };
  return {
    async salesByDay(window, group) {
      const rows = await ctx.live().transactions.aggregate<Document>(salesPipeline(window, group), options).toArray();
      return rows.map(
        (row): SalesDayRow => ({
          day: readInteger(row._id.day, 'day'),
          key: String(row._id.key ?? ''),
          salesCount: readInteger(row.sales_count, 'sales_count'),
          chargedKobo: readKobo(row.charged_kobo, 'charged_kobo'),
          refundCount: readInteger(row.refund_count, 'refund_count'),
          refundedKobo: readKobo(row.refunded_kobo, 'refunded_kobo'),
          pendingCount: readInteger(row.pending_count, 'pending_count'),
          pendingKobo: readKobo(row.pending_kobo, 'pending_kobo'),
          costedCount: readInteger(row.costed_count, 'costed_count'),
          costKobo: readKobo(row.cost_kobo, 'cost_kobo'),
          costUnknownCount: readInteger(row.cost_unknown_count, 'cost_unknown_count'),
          costUnknownChargedKobo: readKobo(row.cost_unknown_charged_kobo, 'cost_unknown_charged_kobo'),
        }),
      );
    },
    async fundingByDay(window) {
      ctx.live();
      const rows = await ctx.db
        .collection(FUNDING_COLLECTIONS.inflows)
        .aggregate<Document>(fundingPipeline(window), options)
        .toArray();
      return rows.map(
        (row): FundingDayRow => ({
          day: readInteger(row._id.day, 'day'),
          provider: String(row._id.provider),
          count: readInteger(row.count, 'count'),
          amountPaidKobo: readKobo(row.amount_paid_kobo, 'amount_paid_kobo'),
          creditedCount: readInteger(row.credited_count, 'credited_count'),
          feeKobo: readKobo(row.fee_kobo, 'fee_kobo'),
          creditedKobo: readKobo(row.credited_kobo, 'credited_kobo'),
          unmatchedCount: readInteger(row.unmatched_count, 'unmatched_count'),
          unmatchedKobo: readKobo(row.unmatched_kobo, 'unmatched_kobo'),
        }),
      );
    },
  };
}
