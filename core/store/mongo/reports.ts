/**
 * The reports' sums on MongoDB, sums of the books' postings (docs/money.md, The books): one
 * aggregation pipeline each, run by the server. The first stage is a range on created_at (the
 * reports_* indexes of schema step 20), so a period reads its own purchases or inflows only,
 * which give each its Lagos day and the dimension a row is keyed by. Each one's entries come
 * from a $lookup on the journal's (reference, kind) index, their postings summed per account
 * inside the join, so one document per purchase or inflow leaves it; those sums are then summed
 * per day and key (MongoDB 5.0 and later accept localField/foreignField together with a
 * pipeline; the store needs 6.0). A purchase written before test mode has no `mode` and is
 * live, hence `$ne: 'test'` rather than `'live'`.
 */
import type { Document } from 'mongodb';
import type { FundingDayRow, ManualDayRow, ReportGroup, SalesDayRow } from '../../domain/reports.js';
import type { ReportStore, ReportWindow } from '../port.js';
import { COLLECTIONS, FUNDING_COLLECTIONS, JOURNAL_COLLECTION, SUPPLY_COLLECTIONS } from './collections.js';
import type { MongoContext } from './context.js';
import { readInteger, readKobo } from './documents.js';

const DAY_MS = 86_400_000;

/**
 * The longest a report may run on the server: a year of a busy platform is well inside it;
 * past it the server stops the query and the staff member sees an error, not a hung page.
 */
const REPORT_MAX_TIME_MS = 30_000;

/** The entry kinds a purchase's and an inflow's reference are booked under (core/domain/books.ts). */
const PURCHASE_KINDS = ['reserve', 'settle', 'refund', 'reverse', 'cost_known'];
const INFLOW_KINDS = ['inflow_received', 'inflow_credited', 'inflow_returned'];

/** Whole days since the epoch of created_at moved by the window's offset. */
function dayOf(offsetMs: number): Document {
  return { $floor: { $divide: [{ $add: [{ $toLong: '$created_at' }, offsetMs] }, DAY_MS] } };
}

/** Inside the journal's join, after `$unwind: '$postings'`: whether a line is of an account, and of an entry kind. */
const isAccount = (account: string): Document => ({ $eq: ['$postings.account', account] });
const accountLike = (pattern: string): Document => ({ $regexMatch: { input: '$postings.account', regex: pattern } });
const ofKind = (kind: string, line: Document): Document => ({ $and: [{ $eq: ['$kind', kind] }, line] });
/** A line's amount where `line` holds, else 0: as posted (debit positive), or as a credit balance (negated). */
const debitIf = (line: Document): Document => ({ $sum: { $cond: [line, '$postings.amountKobo', 0] } });
const creditIf = (line: Document): Document => ({
  $sum: { $cond: [line, { $subtract: [0, '$postings.amountKobo'] }, 0] },
});
/** 1 for a purchase or inflow whose sum `field` is not zero (a missing one is zero). */
const countNonZero = (field: string): Document => ({ $sum: { $cond: [{ $ne: [{ $ifNull: [field, 0] }, 0] }, 1, 0] } });

/** The journal's entries of a reference, their postings summed per account into one document, as `books`. */
function booksOf(kinds: readonly string[], sums: Document): Document {
  return {
    $lookup: {
      from: JOURNAL_COLLECTION,
      localField: '_id',
      foreignField: 'reference',
      pipeline: [
        { $match: { kind: { $in: kinds } } },
        { $project: { _id: 0, kind: 1, postings: 1 } },
        { $unwind: '$postings' },
        { $group: { _id: null, ...sums } },
      ],
      as: 'books',
    },
  };
}

/**
 * Per purchase: its charge (the reserve's credit to held:purchases), what went back to its
 * wallet (a refund's or a reversal's line), what is still held, its revenue of known cost, the
 * cost its upstream's cost account took, and its revenue of unknown cost. A reversal takes back
 * what the settle booked, so a reversed purchase holds no revenue and no cost.
 */
const PURCHASE_SUMS: Document = {
  charged: creditIf(ofKind('reserve', isAccount('held:purchases'))),
  refunded: creditIf({
    $and: [{ $in: ['$kind', ['refund', 'reverse']] }, accountLike('^wallet:')],
  }),
  pending: creditIf(isAccount('held:purchases')),
  sold: creditIf(isAccount('revenue:sales')),
  cost: debitIf(accountLike('^upstream:.*:cost$')),
  unknown: creditIf(isAccount('revenue:sales_cost_unknown')),
};

/** The dimension a group needs beyond the purchase's own document. */
function groupStages(group: ReportGroup): Document[] {
  // The upstream called last: failover stops at a delivery, so a delivered purchase's is the
  // one whose cost account its settle booked. No attempt leaves `last` missing: "".
  if (group === 'upstream')
    return [
      {
        $lookup: {
          from: SUPPLY_COLLECTIONS.attempts,
          localField: '_id',
          foreignField: 'reference',
          pipeline: [{ $sort: { seq: -1 } }, { $limit: 1 }, { $project: { _id: 0, upstream: 1 } }],
          as: 'last',
        },
      },
      { $unwind: { path: '$last', preserveNullAndEmptyArrays: true } },
    ];
  if (group === 'tier')
    return [
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
    ];
  return [];
}

function salesPipeline(window: ReportWindow, group: ReportGroup): Document[] {
  const key =
    group === 'product' ? '$product' : group === 'upstream' ? { $ifNull: ['$last.upstream', ''] } : '$account.tier_id';
  return [
    { $match: { created_at: { $gte: window.from, $lt: window.until }, mode: { $ne: 'test' } } },
    { $project: { account_id: 1, product: 1, created_at: 1 } },
    ...groupStages(group),
    booksOf(PURCHASE_KINDS, PURCHASE_SUMS),
    // A purchase the books hold nothing of is not in them, nor in the report.
    { $unwind: '$books' },
    {
      $group: {
        _id: { day: dayOf(window.offsetMs), key },
        sales_count: { $sum: 1 },
        charged_kobo: { $sum: '$books.charged' },
        refund_count: countNonZero('$books.refunded'),
        refunded_kobo: { $sum: '$books.refunded' },
        pending_count: countNonZero('$books.pending'),
        pending_kobo: { $sum: '$books.pending' },
        costed_count: countNonZero('$books.sold'),
        cost_kobo: { $sum: '$books.cost' },
        cost_unknown_count: countNonZero('$books.unknown'),
        cost_unknown_charged_kobo: { $sum: '$books.unknown' },
      },
    },
    { $sort: { '_id.day': 1, '_id.key': 1 } },
  ];
}

/**
 * Per inflow: what its receipt put in the provider's clearing, what its credit put in the
 * wallet and in revenue:funding_fees, and what held:inflows still holds for it (unmatched only
 * while it waits for a person: a verified one is about to be credited). A transfer rejected
 * before the books began has no entry (the history booked only money that became, or waits to
 * become, the platform's) and counts with the amount it recorded.
 */
const INFLOW_SUMS: Document = {
  received: debitIf(ofKind('inflow_received', accountLike('^funding:.*:clearing$'))),
  credited: creditIf(ofKind('inflow_credited', accountLike('^wallet:'))),
  fee: creditIf(ofKind('inflow_credited', isAccount('revenue:funding_fees'))),
  waiting: creditIf(isAccount('held:inflows')),
};

/**
 * The manual credits and debits of live wallets: their entries on the journal_by_kind index
 * (kind, mode, at), each by its adjustments:manual line (debit positive: a wallet's credit is
 * that account's debit), summed per Lagos day of the entry.
 */
function manualPipeline(window: ReportWindow): Document[] {
  const day = { $floor: { $divide: [{ $add: [{ $toLong: '$at' }, window.offsetMs] }, DAY_MS] } };
  const isCredit = { $eq: ['$kind', 'credit'] };
  return [
    { $match: { kind: { $in: ['credit', 'debit'] }, mode: 'live', at: { $gte: window.from, $lt: window.until } } },
    { $unwind: '$postings' },
    { $match: { 'postings.account': 'adjustments:manual' } },
    {
      $group: {
        _id: day,
        credit_count: { $sum: { $cond: [isCredit, 1, 0] } },
        credited_kobo: { $sum: { $cond: [isCredit, '$postings.amountKobo', 0] } },
        debit_count: { $sum: { $cond: [isCredit, 0, 1] } },
        debited_kobo: { $sum: { $cond: [isCredit, 0, { $subtract: [0, '$postings.amountKobo'] }] } },
      },
    },
    { $sort: { _id: 1 } },
  ];
}

function fundingPipeline(window: ReportWindow): Document[] {
  const unmatched: Document = { $eq: ['$status', 'unmatched'] };
  return [
    { $match: { created_at: { $gte: window.from, $lt: window.until }, mode: 'live' } },
    { $project: { provider: 1, status: 1, amount_paid_kobo: 1, created_at: 1 } },
    booksOf(INFLOW_KINDS, INFLOW_SUMS),
    { $unwind: { path: '$books', preserveNullAndEmptyArrays: true } },
    {
      $group: {
        _id: { day: dayOf(window.offsetMs), provider: '$provider' },
        count: { $sum: 1 },
        amount_paid_kobo: { $sum: { $ifNull: ['$books.received', '$amount_paid_kobo'] } },
        credited_count: countNonZero('$books.credited'),
        fee_kobo: { $sum: '$books.fee' },
        credited_kobo: { $sum: '$books.credited' },
        unmatched_count: {
          $sum: { $cond: [{ $and: [unmatched, { $ne: [{ $ifNull: ['$books.waiting', 0] }, 0] }] }, 1, 0] },
        },
        unmatched_kobo: { $sum: { $cond: [unmatched, { $ifNull: ['$books.waiting', 0] }, 0] } },
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
    async manualByDay(window) {
      ctx.live();
      const rows = await ctx.db
        .collection(JOURNAL_COLLECTION)
        .aggregate<Document>(manualPipeline(window), options)
        .toArray();
      return rows.map(
        (row): ManualDayRow => ({
          day: readInteger(row._id, 'day'),
          creditCount: readInteger(row.credit_count, 'credit_count'),
          creditedKobo: readKobo(row.credited_kobo, 'credited_kobo'),
          debitCount: readInteger(row.debit_count, 'debit_count'),
          debitedKobo: readKobo(row.debited_kobo, 'debited_kobo'),
        }),
      );
    },
  };
}
