/**
 * The operator's reports (docs/console.md, Reports): the period is checked and bounded here,
 * the store sums the books' postings of live purchases and inflows per Lagos day where the data
 * is, and the days add up into the period's days or months. Who may read them is the caller's check (finance and admin in the
 * console, the admin token in the CLI).
 */
import { LAGOS_OFFSET_MS } from '../domain/people.js';
import {
  type FundingFigures,
  fundingFiguresOf,
  type ManualFigures,
  manualFiguresOf,
  periodInstants,
  type ReportGroup,
  type ReportPeriod,
  type ReportRow,
  reportGroup,
  reportPeriod,
  rollUp,
  type SalesFigures,
  salesFiguresOf,
  zeroFunding,
  zeroManual,
  zeroSales,
} from '../domain/reports.js';
import type { SignUpDayRow, Store } from '../store/port.js';

/** What a staff member or the CLI asks for, as typed: dates YYYY-MM-DD, by day or month, a group. */
export interface ReportAsk {
  from: string;
  to: string;
  by: string;
  group: string;
}

export interface SalesReport {
  period: ReportPeriod;
  group: ReportGroup;
  rows: ReportRow<SalesFigures>[];
  total: SalesFigures;
}

export interface FundingReport {
  period: ReportPeriod;
  rows: ReportRow<FundingFigures>[];
  total: FundingFigures;
  /** The operator's manual credits and debits, per period (their key is ''). */
  manual: { rows: ReportRow<ManualFigures>[]; total: ManualFigures };
}

/** Sign-ups per Lagos day of the period and how far each day's have come (docs/sign-up.md): the funnel. */
export interface SignUpReport {
  period: ReportPeriod;
  days: SignUpDayRow[];
  total: Omit<SignUpDayRow, 'day'>;
  /** Level requests waiting for staff now (at most MAX_PENDING_REVIEWS counted). */
  pendingReviews: number;
}

export interface Reports {
  sales(ask: ReportAsk): Promise<SalesReport>;
  funding(ask: ReportAsk): Promise<FundingReport>;
  signUps(ask: ReportAsk): Promise<SignUpReport>;
}

/** The most waiting level requests a report counts (the console's queue lists them all). */
const MAX_PENDING_REVIEWS = 1_000;

export function createReports(store: Pick<Store, 'reports' | 'signUps' | 'kyc'>): Reports {
  const windowOf = (period: ReportPeriod) => ({ ...periodInstants(period), offsetMs: LAGOS_OFFSET_MS });
  return {
    async sales(ask) {
      const period = reportPeriod(ask.from, ask.to, ask.by);
      const group = reportGroup(ask.group);
      const days = await store.reports.salesByDay(windowOf(period), group);
      return { period, group, ...rollUp(days, period.by, (row) => row.key, salesFiguresOf, zeroSales) };
    },
    async funding(ask) {
      const period = reportPeriod(ask.from, ask.to, ask.by);
      const [days, manualDays] = await Promise.all([
        store.reports.fundingByDay(windowOf(period)),
        store.reports.manualByDay(windowOf(period)),
      ]);
      return {
        period,
        ...rollUp(days, period.by, (row) => row.provider, fundingFiguresOf, zeroFunding),
        manual: rollUp(manualDays, period.by, () => '', manualFiguresOf, zeroManual),
      };
    },
    async signUps(ask) {
      const period = reportPeriod(ask.from, ask.to, 'day');
      const days = await store.signUps.funnel(period.fromDay, period.toDay);
      const total = {
        signedUp: 0,
        emailVerified: 0,
        phoneVerified: 0,
        funded: 0,
        purchased: 0,
        level2: 0,
        apiTier: 0,
      };
      for (const day of days) for (const key of Object.keys(total) as (keyof typeof total)[]) total[key] += day[key];
      const pendingReviews = (await store.kyc.pendingRequests(MAX_PENDING_REVIEWS)).length;
      return { period, days, total, pendingReviews };
    },
  };
}
