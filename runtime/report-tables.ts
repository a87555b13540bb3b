/**
 * The reports' tables as every client shows them (the console's pages and CSV downloads, the
 * CLI's table and `--csv`): one list of columns and one row per report row, so a column is
 * named and ordered once. Money is Naira with two decimals from integer kobo; counts are counts.
 */
import type {
  FundingFigures,
  FundingReport,
  ManualFigures,
  SalesFigures,
  SalesReport,
} from '../gen/prepaid/v1/console_pb.js';
import { csvNaira } from './csv.js';

/** A table: its header and its rows of text cells, the total last. */
export interface ReportTable {
  columns: string[];
  rows: string[][];
}

const SALES_COLUMNS = [
  'Sales',
  'Charged (NGN)',
  'Refunds',
  'Refunded (NGN)',
  'Pending',
  'Pending (NGN)',
  'Costed',
  'Cost (NGN)',
  'Cost unknown',
  'Charged, cost unknown (NGN)',
  'Margin (NGN)',
];

function salesCells(f: SalesFigures | undefined): string[] {
  if (f === undefined) return SALES_COLUMNS.map(() => '');
  return [
    String(f.salesCount),
    csvNaira(f.chargedKobo),
    String(f.refundCount),
    csvNaira(f.refundedKobo),
    String(f.pendingCount),
    csvNaira(f.pendingKobo),
    String(f.costedCount),
    csvNaira(f.costKobo),
    String(f.costUnknownCount),
    csvNaira(f.costUnknownChargedKobo),
    csvNaira(f.marginKobo),
  ];
}

/** The group's column heading: Product, Upstream or Tier. */
function groupHeading(group: string): string {
  return group === 'upstream' ? 'Upstream' : group === 'tier' ? 'Tier' : 'Product';
}

/** The sales report as a table; "(none)" names purchases no upstream was called for. */
export function salesTable(report: SalesReport): ReportTable {
  return {
    columns: ['Period', groupHeading(report.group), ...SALES_COLUMNS],
    rows: [
      ...report.rows.map((row) => [row.period, row.key === '' ? '(none)' : row.key, ...salesCells(row.figures)]),
      ['Total', '', ...salesCells(report.total)],
    ],
  };
}

const FUNDING_COLUMNS = [
  'Inflows',
  'Paid (NGN)',
  'Credited',
  'Fees (NGN)',
  'Credited (NGN)',
  'Unmatched',
  'Unmatched (NGN)',
];

function fundingCells(f: FundingFigures | undefined): string[] {
  if (f === undefined) return FUNDING_COLUMNS.map(() => '');
  return [
    String(f.count),
    csvNaira(f.amountPaidKobo),
    String(f.creditedCount),
    csvNaira(f.feeKobo),
    csvNaira(f.creditedKobo),
    String(f.unmatchedCount),
    csvNaira(f.unmatchedKobo),
  ];
}

export function fundingTable(report: FundingReport): ReportTable {
  return {
    columns: ['Period', 'Provider', ...FUNDING_COLUMNS],
    rows: [
      ...report.rows.map((row) => [row.period, row.provider, ...fundingCells(row.figures)]),
      ['Total', '', ...fundingCells(report.total)],
    ],
  };
}

const MANUAL_COLUMNS = ['Credits', 'Credited (NGN)', 'Debits', 'Debited (NGN)', 'Net (NGN)'];

function manualCells(f: ManualFigures | undefined): string[] {
  if (f === undefined) return MANUAL_COLUMNS.map(() => '');
  return [
    String(f.creditCount),
    csvNaira(f.creditedKobo),
    String(f.debitCount),
    csvNaira(f.debitedKobo),
    csvNaira(f.creditedKobo - f.debitedKobo),
  ];
}

/** The operator's manual credits and debits of the money-in report, per period. */
export function manualTable(report: FundingReport): ReportTable {
  return {
    columns: ['Period', ...MANUAL_COLUMNS],
    rows: [
      ...report.manualRows.map((row) => [row.period, ...manualCells(row.figures)]),
      ['Total', ...manualCells(report.manualTotal)],
    ],
  };
}
