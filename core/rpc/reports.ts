/** The reports (core/reports/) as messages: the console's and the admin token's RPCs answer the same. */
import type { MessageInitShape } from '@bufbuild/protobuf';
import type {
  FundingReportSchema,
  GetSignUpReportResponseSchema,
  ReportQuery,
  SalesReportSchema,
} from '../../gen/prepaid/v1/console_pb.js';
import { lagosDate } from '../domain/people.js';
import {
  type FundingFigures,
  type ManualFigures,
  marginKobo,
  type ReportPeriod,
  type SalesFigures,
} from '../domain/reports.js';
import type { FundingReport, ReportAsk, SalesReport, SignUpReport } from '../reports/service.js';
import type { SignUpDayRow } from '../store/port.js';

export function reportAsk(query: ReportQuery | undefined): ReportAsk {
  return { from: query?.from ?? '', to: query?.to ?? '', by: query?.by ?? '', group: query?.group ?? '' };
}

function periodFields(period: ReportPeriod) {
  return { from: lagosDate(period.fromDay), to: lagosDate(period.toDay), by: period.by };
}

function salesFigures(f: SalesFigures) {
  return {
    salesCount: BigInt(f.salesCount),
    chargedKobo: BigInt(f.chargedKobo),
    refundCount: BigInt(f.refundCount),
    refundedKobo: BigInt(f.refundedKobo),
    pendingCount: BigInt(f.pendingCount),
    pendingKobo: BigInt(f.pendingKobo),
    costedCount: BigInt(f.costedCount),
    costKobo: BigInt(f.costKobo),
    costUnknownCount: BigInt(f.costUnknownCount),
    costUnknownChargedKobo: BigInt(f.costUnknownChargedKobo),
    marginKobo: BigInt(marginKobo(f)),
  };
}

function fundingFigures(f: FundingFigures) {
  return {
    count: BigInt(f.count),
    amountPaidKobo: BigInt(f.amountPaidKobo),
    creditedCount: BigInt(f.creditedCount),
    feeKobo: BigInt(f.feeKobo),
    creditedKobo: BigInt(f.creditedKobo),
    unmatchedCount: BigInt(f.unmatchedCount),
    unmatchedKobo: BigInt(f.unmatchedKobo),
  };
}

export function salesReportMessage(report: SalesReport): MessageInitShape<typeof SalesReportSchema> {
  return {
    ...periodFields(report.period),
    group: report.group,
    rows: report.rows.map((row) => ({ period: row.period, key: row.key, figures: salesFigures(row.figures) })),
    total: salesFigures(report.total),
  };
}

function manualFigures(f: ManualFigures) {
  return {
    creditCount: BigInt(f.creditCount),
    creditedKobo: BigInt(f.creditedKobo),
    debitCount: BigInt(f.debitCount),
    debitedKobo: BigInt(f.debitedKobo),
  };
}

export function fundingReportMessage(report: FundingReport): MessageInitShape<typeof FundingReportSchema> {
  return {
    ...periodFields(report.period),
    rows: report.rows.map((row) => ({ period: row.period, provider: row.key, figures: fundingFigures(row.figures) })),
    total: fundingFigures(report.total),
    manualRows: report.manual.rows.map((row) => ({ period: row.period, figures: manualFigures(row.figures) })),
    manualTotal: manualFigures(report.manual.total),
  };
}

function signUpDay(date: string, row: Omit<SignUpDayRow, 'day'>) {
  return {
    date,
    signedUp: BigInt(row.signedUp),
    emailVerified: BigInt(row.emailVerified),
    phoneVerified: BigInt(row.phoneVerified),
    funded: BigInt(row.funded),
    purchased: BigInt(row.purchased),
    level2: BigInt(row.level2),
    apiTier: BigInt(row.apiTier),
  };
}

/** The sign-up funnel as the console's RPC answers it. */
export function signUpReportMessage(report: SignUpReport): MessageInitShape<typeof GetSignUpReportResponseSchema> {
  return {
    from: lagosDate(report.period.fromDay),
    to: lagosDate(report.period.toDay),
    days: report.days.map((row) => signUpDay(lagosDate(row.day), row)),
    total: signUpDay('', report.total),
    pendingReviews: BigInt(report.pendingReviews),
  };
}
