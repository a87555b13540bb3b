/**
 * The operator's reports: sales, refunds, cost and margin
 * of live purchases by product, upstream or tier, and money in by funding provider, per
 * Africa/Lagos day or month. Pure rules: the period a form or a command line names and its
 * bounds, the figures the store sums per day, how days add up into months, and the margin.
 * Every figure is integer kobo or a count; nothing is ever divided or rounded.
 */
import { invalid } from './errors.js';
import type { Kobo } from './money.js';
import { lagosDate, lagosDayStart, lagosMonthStart, parseLagosDate } from './people.js';

/** What the rows of a sales report are keyed by. */
const REPORT_GROUPS = ['product', 'upstream', 'tier'] as const;
export type ReportGroup = (typeof REPORT_GROUPS)[number];

/** The length of each row's period: a Lagos calendar day or a Lagos calendar month. */
const REPORT_BUCKETS = ['day', 'month'] as const;
export type ReportBucket = (typeof REPORT_BUCKETS)[number];

/**
 * A report by day covers at most a year (a leap year's 366 days), by month at most five years:
 * the answer stays a few thousand rows, and one store query never scans more than that period.
 */
export const MAX_REPORT_DAYS = 366;
export const MAX_REPORT_MONTHS = 60;

/** The whole Lagos days a report covers, `fromDay` to `toDay` inclusive, and its bucket. */
export interface ReportPeriod {
  fromDay: number;
  toDay: number;
  by: ReportBucket;
}

function oneOf<T extends string>(field: string, text: string, values: readonly T[], fallback: T): T {
  const value = text.trim().toLowerCase();
  if (value === '') return fallback;
  if ((values as readonly string[]).includes(value)) return value as T;
  throw invalid(field, `${field} must be ${values.join(' or ')}.`);
}

export function reportGroup(text: string): ReportGroup {
  return oneOf('group', text, REPORT_GROUPS, 'product');
}

/** Months from the month of `fromDay` to the month of `toDay`, both counted. */
function monthsSpanned(fromDay: number, toDay: number): number {
  const from = new Date(lagosMonthStart(fromDay) * 86_400_000);
  const to = new Date(lagosMonthStart(toDay) * 86_400_000);
  return (to.getUTCFullYear() - from.getUTCFullYear()) * 12 + (to.getUTCMonth() - from.getUTCMonth()) + 1;
}

/**
 * The period of `from` to `to` (YYYY-MM-DD, Lagos calendar days, both included) by `by` ("" is
 * day), or an INVALID_PARAMETER naming the field: a date that is not one, `to` before `from`,
 * or a period longer than its bucket allows.
 */
export function reportPeriod(from: string, to: string, by: string): ReportPeriod {
  const bucket = oneOf('by', by, REPORT_BUCKETS, 'day');
  const fromDay = parseLagosDate('from', from);
  const toDay = parseLagosDate('to', to);
  if (toDay < fromDay) throw invalid('to', 'to must be the same day as from or later.');
  if (bucket === 'day' && toDay - fromDay + 1 > MAX_REPORT_DAYS)
    throw invalid('to', `A report by day covers at most ${MAX_REPORT_DAYS} days; choose by month for longer.`);
  if (bucket === 'month' && monthsSpanned(fromDay, toDay) > MAX_REPORT_MONTHS)
    throw invalid('to', `A report by month covers at most ${MAX_REPORT_MONTHS} months.`);
  return { fromDay, toDay, by: bucket };
}

/** The instants the store reads: createdAt in [from, until). */
export function periodInstants(period: ReportPeriod): { from: Date; until: Date } {
  return { from: lagosDayStart(period.fromDay), until: lagosDayStart(period.toDay + 1) };
}

/** The label of the bucket a Lagos day falls in: 2026-11-26 by day, 2026-11 by month. */
function bucketLabel(day: number, by: ReportBucket): string {
  return by === 'day' ? lagosDate(day) : lagosDate(lagosMonthStart(day)).slice(0, 7);
}

/**
 * What live purchases made in a period add up to. A purchase counts in the period it was made
 * in, whatever happened to it later: failed and reversed ones are refunds, pending ones are
 * apart (their end is not known yet), and a delivered one has a cost when its delivering
 * upstream said what it charged us, or counts among those of unknown cost (never as zero cost).
 */
export interface SalesFigures {
  salesCount: number;
  chargedKobo: Kobo;
  refundCount: number;
  refundedKobo: Kobo;
  pendingCount: number;
  pendingKobo: Kobo;
  /** Delivered purchases whose cost is known, and the sum of those costs. */
  costedCount: number;
  costKobo: Kobo;
  /** Delivered purchases of unknown cost, and what they were charged. */
  costUnknownCount: number;
  costUnknownChargedKobo: Kobo;
}

/** One store row: a Lagos day (whole days since 1970-01-01 Lagos) and a group key. */
export interface SalesDayRow extends SalesFigures {
  day: number;
  /** The product, the upstream that got the purchase last ("" when none was called) or the account's tier. */
  key: string;
}

/**
 * The margin: what delivered purchases of known cost were charged, less that cost. The same as
 * charged less refunds less known cost, with the pending charges and the charges of unknown
 * cost kept out, since neither has a cost to set against it yet.
 */
export function marginKobo(f: SalesFigures): Kobo {
  return (f.chargedKobo - f.refundedKobo - f.pendingKobo - f.costUnknownChargedKobo - f.costKobo) as Kobo;
}

/** Money in from one funding provider: every inflow recorded, and what became of it. */
export interface FundingFigures {
  count: number;
  amountPaidKobo: Kobo;
  /** Fees and credits of the credited inflows. */
  creditedCount: number;
  feeKobo: Kobo;
  creditedKobo: Kobo;
  /** Inflows waiting for a person (nobody could match them) and their amount paid. */
  unmatchedCount: number;
  unmatchedKobo: Kobo;
}

/**
 * The operator's manual moves of live wallets in a period: credits (money taken in by hand, a
 * cash deposit, a correction) and debits, each an entry against adjustments:manual, whether
 * booked at once (the CLI) or on a colleague's approval. They are nobody's sales and no
 * provider's inflow, so they are their own lines of the money-in report.
 */
export interface ManualFigures {
  creditCount: number;
  creditedKobo: Kobo;
  debitCount: number;
  debitedKobo: Kobo;
}

export interface ManualDayRow extends ManualFigures {
  day: number;
}

export function zeroManual(): ManualFigures {
  return { creditCount: 0, creditedKobo: 0 as Kobo, debitCount: 0, debitedKobo: 0 as Kobo };
}

export function manualFiguresOf(row: ManualDayRow): ManualFigures {
  const { day: _day, ...figures } = row;
  return figures;
}

export interface FundingDayRow extends FundingFigures {
  day: number;
  provider: string;
}

/** A report's row: its period's label, its key, its figures. */
export interface ReportRow<F> {
  period: string;
  key: string;
  figures: F;
}

function addFigures<F extends object>(into: F, from: F): void {
  const target = into as Record<string, number>;
  for (const [name, value] of Object.entries(from as Record<string, number>))
    target[name] = (target[name] ?? 0) + value;
}

/**
 * Day rows into report rows of the period's bucket, ordered by period then key, and their
 * total. `figuresOf` picks a row's figures apart from its day and key.
 */
export function rollUp<R extends { day: number }, F extends object>(
  rows: readonly R[],
  by: ReportBucket,
  keyOf: (row: R) => string,
  figuresOf: (row: R) => F,
  zero: () => F,
): { rows: ReportRow<F>[]; total: F } {
  const buckets = new Map<string, ReportRow<F>>();
  const total = zero();
  for (const row of rows) {
    const period = bucketLabel(row.day, by);
    const key = keyOf(row);
    const id = `${period}\u0000${key}`;
    let bucket = buckets.get(id);
    if (bucket === undefined) {
      bucket = { period, key, figures: zero() };
      buckets.set(id, bucket);
    }
    const figures = figuresOf(row);
    addFigures(bucket.figures, figures);
    addFigures(total, figures);
  }
  const ordered = [...buckets.values()].sort((a, b) =>
    a.period === b.period ? (a.key < b.key ? -1 : a.key > b.key ? 1 : 0) : a.period < b.period ? -1 : 1,
  );
  return { rows: ordered, total };
}

export function zeroSales(): SalesFigures {
  return {
    salesCount: 0,
    chargedKobo: 0 as Kobo,
    refundCount: 0,
    refundedKobo: 0 as Kobo,
    pendingCount: 0,
    pendingKobo: 0 as Kobo,
    costedCount: 0,
    costKobo: 0 as Kobo,
    costUnknownCount: 0,
    costUnknownChargedKobo: 0 as Kobo,
  };
}

export function zeroFunding(): FundingFigures {
  return {
    count: 0,
    amountPaidKobo: 0 as Kobo,
    creditedCount: 0,
    feeKobo: 0 as Kobo,
    creditedKobo: 0 as Kobo,
    unmatchedCount: 0,
    unmatchedKobo: 0 as Kobo,
  };
}

/** The figures of a store row without its day and key. */
export function salesFiguresOf(row: SalesDayRow): SalesFigures {
  const { day: _day, key: _key, ...figures } = row;
  return figures;
}

export function fundingFiguresOf(row: FundingDayRow): FundingFigures {
  const { day: _day, provider: _provider, ...figures } = row;
  return figures;
}
