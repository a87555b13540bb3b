/**
 * `prepaid report margin`, `prepaid report funding` and `prepaid report manual`: the console's reports from a terminal
 * (docs/cli.md). Live money only, Lagos calendar days; a table for people, `--json` for scripts
 * (exact kobo), `--csv` for a spreadsheet (the console's columns, cells guarded against formulas).
 */
import { DomainError } from '../core/domain/errors.js';
import { MAX_REPORT_DAYS, MAX_REPORT_MONTHS, reportGroup, reportPeriod } from '../core/domain/reports.js';
import {
  type FundingFigures,
  type FundingReport,
  type ManualFigures,
  type ReportQuery,
  type SalesFigures,
  StaffAdminService,
} from '../gen/prepaid/v1/console_pb.js';
import { csvDocument } from '../runtime/csv.js';
import { fundingTable, manualTable, type ReportTable, salesTable } from '../runtime/report-tables.js';
import { type CommandGroup, type CommandResult, type CommandSpec, type OptionSpec, UsageError } from './command.js';
import { columns, kobo, present } from './format.js';

const PERIOD_OPTIONS: Readonly<Record<string, OptionSpec>> = {
  from: { placeholder: 'YYYY-MM-DD', summary: 'First day (Lagos calendar day).', required: true },
  to: { placeholder: 'YYYY-MM-DD', summary: 'Last day, included.', required: true },
  by: {
    placeholder: 'day|month',
    summary: `One row per day (at most ${MAX_REPORT_DAYS} days) or per month (${MAX_REPORT_MONTHS}); default day.`,
  },
  csv: { placeholder: '', summary: 'Print CSV instead of a table (--json wins when both are given).', flag: true },
};

/** The query, checked here with the core's own rule, so a wrong date never reaches the core. */
function queryOf(options: Record<string, string | undefined>, group: string): ReportQuery {
  const query = { from: options['from'] ?? '', to: options['to'] ?? '', by: options['by'] ?? '', group };
  try {
    reportPeriod(query.from, query.to, query.by);
    if (group !== '') reportGroup(group);
  } catch (error) {
    const field = error instanceof DomainError ? error.violations[0]?.field : undefined;
    if (field !== undefined) throw new UsageError(`--${field}: ${(error as Error).message}`);
    throw error;
  }
  return query as ReportQuery;
}

/** Every figure as JSON: counts as numbers, money as exact kobo. */
function figuresJson(figures: SalesFigures | FundingFigures | ManualFigures | undefined): Record<string, number> {
  const out: Record<string, number> = {};
  for (const [name, value] of Object.entries(figures ?? {})) {
    if (typeof value !== 'bigint') continue;
    const snake = name.replace(/[A-Z]/g, (c) => `_${c.toLowerCase()}`);
    out[snake] = snake.endsWith('_kobo') ? kobo(value) : Number(value);
  }
  return out;
}

function shown(table: ReportTable, csv: boolean): string[] {
  // Each line keeps its CR: main.ts ends lines with LF, so the file is CR LF as RFC 4180 has it.
  if (csv) return csvDocument(table.columns, table.rows).replace(/\n$/, '').split('\n');
  return columns([table.columns, ...table.rows]);
}

/** A command over the money-in report: its period asked once, one part of the answer shown as JSON and as a table. */
function moneyIn(
  part: (report: FundingReport) => {
    rows: Record<string, unknown>[];
    total: Record<string, number>;
    table: ReportTable;
  },
): CommandSpec['run'] {
  return async ({ options }, _core, clients): Promise<CommandResult> => {
    const query = queryOf(options, '');
    const report = present((await clients(StaffAdminService).reportFunding({ query })).report, 'report');
    const { rows, total, table } = part(report);
    return {
      json: { from: report.from, to: report.to, by: report.by, rows, total },
      text: shown(table, options['csv'] === 'yes'),
    };
  };
}

export const reportsGroup: CommandGroup = {
  name: 'report',
  summary: 'Reports of live money: sales, refunds, cost and margin; money in by funding provider; manual moves.',
  commands: [
    {
      name: 'margin',
      summary: 'Sales, charged, refunds, pending, cost (known and unknown) and margin, by product, upstream or tier.',
      args: [],
      options: {
        ...PERIOD_OPTIONS,
        group: { placeholder: 'product|upstream|tier', summary: 'What each row is of; default product.' },
      },
      async run({ options }, _core, clients): Promise<CommandResult> {
        const query = queryOf(options, options['group'] ?? '');
        const report = present((await clients(StaffAdminService).reportSales({ query })).report, 'report');
        return {
          json: {
            from: report.from,
            to: report.to,
            by: report.by,
            group: report.group,
            rows: report.rows.map((row) => ({ period: row.period, key: row.key, ...figuresJson(row.figures) })),
            total: figuresJson(report.total),
          },
          text: shown(salesTable(report), options['csv'] === 'yes'),
        };
      },
    },
    {
      name: 'funding',
      summary: 'Money in by funding provider: inflows, amount paid, fees, credited, unmatched.',
      args: [],
      options: PERIOD_OPTIONS,
      run: moneyIn((report) => ({
        rows: report.rows.map((row) => ({ period: row.period, provider: row.provider, ...figuresJson(row.figures) })),
        total: figuresJson(report.total),
        table: fundingTable(report),
      })),
    },
    {
      name: 'manual',
      summary: "The operator's manual credits and debits of live wallets, per day or month, and their net.",
      args: [],
      options: PERIOD_OPTIONS,
      run: moneyIn((report) => ({
        rows: report.manualRows.map((row) => ({ period: row.period, ...figuresJson(row.figures) })),
        total: figuresJson(report.manualTotal),
        table: manualTable(report),
      })),
    },
  ],
};
