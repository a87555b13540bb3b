/**
 * Reports (finance and admin; the core refuses support): for a period of Lagos days, by day or
 * month, live sales, refunds, cost and margin by product, upstream or tier, and money in by
 * funding provider. Each report is a chart, its table and a Download CSV link that carries the
 * same period; the table and the CSV are the same cells (runtime/report-tables.ts).
 */
import { lagosDate, lagosDay, lagosMonthStart } from '../../core/domain/people.js';
import type {
  FundingReport,
  GetSignUpReportResponse,
  SalesReport,
  SignUpDay,
} from '../../gen/prepaid/v1/console_pb.js';
import { csvDocument } from '../../runtime/csv.js';
import { fundingTable, manualTable, type ReportTable, salesTable } from '../../runtime/report-tables.js';
import { html, type SafeHtml } from '../../web/html.js';
import { refusalOf } from '../../web/refusal.js';
import { page } from '../layout.js';
import type { PageContext, Route } from '../route.js';
import { barChart } from './chart.js';

/** The longest value a period field may carry to the core (a date is 10 characters). */
const MAX_FIELD_CHARS = 20;

interface Ask {
  from: string;
  to: string;
  by: string;
  group: string;
}

/** The period asked for; without one, this Lagos month so far, by day, by product. */
function askOf(url: URL, now: Date): Ask {
  const q = (name: string) => (url.searchParams.get(name) ?? '').slice(0, MAX_FIELD_CHARS).trim();
  const today = lagosDay(now);
  return {
    from: q('from') || lagosDate(lagosMonthStart(today)),
    to: q('to') || lagosDate(today),
    by: q('by') || 'day',
    group: q('group') || 'product',
  };
}

function queryString(ask: Ask): string {
  return new URLSearchParams({ from: ask.from, to: ask.to, by: ask.by, group: ask.group }).toString();
}

function session(ctx: PageContext) {
  return { sessionToken: ctx.sessionToken, clientAddress: ctx.clientAddress };
}

/** Sign-ups per day and how far they came (docs/sign-up.md); the first column is the day, the rest are counts. */
function signUpSection(report: GetSignUpReportResponse): SafeHtml {
  const counts = (row: SignUpDay) =>
    [row.signedUp, row.emailVerified, row.phoneVerified, row.funded, row.purchased, row.level2, row.apiTier].map(
      String,
    );
  const table: ReportTable = {
    columns: [
      'Day',
      '',
      'Signed up',
      'Email verified',
      'Phone verified',
      'Funded',
      'First purchase',
      'Level 2',
      'API tier',
    ],
    rows: [
      ...report.days.map((row) => [row.date, '', ...counts(row)]),
      ...(report.total ? [['Total', '', ...counts(report.total)]] : []),
    ],
  };
  return html`<section aria-labelledby="sign-ups-heading">
<h2 id="sign-ups-heading">Sign-ups</h2>
<p>Accounts signed up in the developer area, by the day they signed up, and how many of them have verified their \
email, their phone, been funded, bought live, reached identity level 2 and the API tier since.</p>
${tableHtml(`Sign-ups, ${report.from} to ${report.to}`, table)}
<p>Requests for a higher identity level waiting for a decision now: <strong>${String(report.pendingReviews)}</strong> \
(<a href="/kyc">Identity levels</a>).</p>
</section>`;
}

function tableHtml(caption: string, table: ReportTable): SafeHtml {
  // Columns after the first two are figures: right-aligned so the digits line up.
  const cell = (text: string, i: number) => (i < 2 ? html`<td>${text}</td>` : html`<td class="number">${text}</td>`);
  // The table scrolls sideways at phone width; focusable, a keyboard can scroll it too.
  return html`<table class="report" tabindex="0"><caption>${caption}</caption>
<thead><tr>${table.columns.map((c, i) =>
    i < 2
      ? html`<th scope="col">${c}</th>`
      : html`<th scope="col" \
class="number">${c}</th>`,
  )}</tr></thead>
<tbody>${table.rows.map((row) => html`<tr>${row.map(cell)}</tr>`)}</tbody></table>`;
}

/** Sums per period across the groups, in period order, for the chart. */
function perPeriod<R extends { period: string }>(rows: readonly R[], values: (row: R) => number[]) {
  const sums = new Map<string, number[]>();
  for (const row of rows) {
    const add = values(row);
    const sum = sums.get(row.period) ?? add.map(() => 0);
    sums.set(
      row.period,
      sum.map((v, i) => v + (add[i] ?? 0)),
    );
  }
  return [...sums.entries()].map(([label, vals]) => ({ label, values: vals }));
}

function salesSection(report: SalesReport, ask: Ask): SafeHtml {
  const groups = perPeriod(report.rows, (row) => [
    Number((row.figures?.chargedKobo ?? 0n) - (row.figures?.refundedKobo ?? 0n)) / 100,
    Number(row.figures?.marginKobo ?? 0n) / 100,
  ]);
  return html`<section aria-labelledby="sales-heading">
<h2 id="sales-heading">Sales, cost and margin</h2>
<p>Purchases count on the Lagos day they were made. Margin is what delivered purchases of known cost were charged less
their cost; pending purchases and those of unknown cost are shown apart, never as zero cost.</p>
${
  report.rows.length === 0
    ? html`<p>No live purchases were made in this period.</p>`
    : barChart(
        'sales-chart',
        `Charged less refunds, and margin, per ${report.by}`,
        `Bars per ${report.by} from ${report.from} to ${report.to}, in Naira: charged less refunds, then margin. The \
table below has every figure.`,
        [
          { label: 'Charged less refunds (NGN)', className: 'series-a' },
          { label: 'Margin (NGN)', className: 'series-b' },
        ],
        groups,
      )
}
${tableHtml(`Sales by ${report.group}, ${report.from} to ${report.to}`, salesTable(report))}
<p><a href="/reports/sales.csv?${queryString(ask)}" download>Download CSV of sales</a></p>
</section>`;
}

function fundingSection(report: FundingReport, ask: Ask): SafeHtml {
  const groups = perPeriod(report.rows, (row) => [
    Number(row.figures?.amountPaidKobo ?? 0n) / 100,
    Number(row.figures?.creditedKobo ?? 0n) / 100,
  ]);
  return html`<section aria-labelledby="funding-heading">
<h2 id="funding-heading">Money in</h2>
${
  report.rows.length === 0
    ? html`<p>No transfers came in during this period.</p>`
    : barChart(
        'funding-chart',
        `Paid in and credited, per ${report.by}`,
        `Bars per ${report.by} from ${report.from} to ${report.to}, in Naira: amount paid by transfer, then what was \
credited to wallets. The table below has every figure.`,
        [
          { label: 'Paid (NGN)', className: 'series-a' },
          { label: 'Credited (NGN)', className: 'series-b' },
        ],
        groups,
      )
}
${tableHtml(`Money in by provider, ${report.from} to ${report.to}`, fundingTable(report))}
<p><a href="/reports/funding.csv?${queryString(ask)}" download>Download CSV of money in</a></p>
<h3 id="manual-heading">Manual credits and debits</h3>
${
  report.manualRows.length === 0
    ? html`<p>No wallet was credited or debited by hand during this period.</p>`
    : tableHtml(`Manual credits and debits, ${report.from} to ${report.to}`, manualTable(report))
}
<p><a href="/reports/manual.csv?${queryString(ask)}" download>Download CSV of manual moves</a></p>
</section>`;
}

function periodForm(ask: Ask, errors: Map<string, string>): SafeHtml {
  const error = (field: string) => {
    const message = errors.get(field);
    return message === undefined ? '' : html`<p class="field-error" id="${field}-error">${message}</p>`;
  };
  const described = (field: string) => (errors.has(field) ? `${field}-error` : undefined);
  const option = (value: string, label: string, current: string) =>
    html`<option value="${value}"${current === value ? html` selected` : ''}>${label}</option>`;
  return html`${
    errors.size > 0
      ? html`<div class="error-summary" role="alert"><h2>There is a problem</h2><ul>${[...errors.entries()].map(
          ([field, message]) => html`<li><a href="#${field}">${message}</a></li>`,
        )}</ul></div>`
      : ''
  }
<form method="get" action="/reports" class="period-form">
<div><label for="from">From (Lagos day)</label>${error('from')}<input id="from" name="from" type="date" \
value="${ask.from}" aria-describedby="${described('from')}"></div>
<div><label for="to">To, included</label>${error('to')}<input id="to" name="to" type="date" value="${ask.to}" \
aria-describedby="${described('to')}"></div>
<div><label for="by">Rows per</label>${error('by')}<select id="by" \
name="by">${option('day', 'Day', ask.by)}${option('month', 'Month', ask.by)}</select></div>
<div><label for="group">Sales by</label>${error('group')}<select id="group" \
name="group">${option('product', 'Product', ask.group)}\
${option('upstream', 'Upstream', ask.group)}${option('tier', 'Tier', ask.group)}</select></div>
<div><button type="submit">Show reports</button></div>
</form>`;
}

/** The core's INVALID_PARAMETER as form errors; every other refusal goes to the server's pages. */
function invalidFields(error: unknown): Map<string, string> | null {
  const refusal = refusalOf(error);
  if (refusal.kind !== 'invalid') throw error;
  return refusal.fields.size > 0 ? refusal.fields : new Map([['from', refusal.message]]);
}

async function csvDownload(
  ctx: PageContext,
  name: string,
  read: (ask: Ask) => Promise<ReportTable>,
): Promise<{ kind: 'download'; filename: string; contentType: string; body: string }> {
  const ask = askOf(ctx.url, new Date());
  const table = await read(ask);
  return {
    kind: 'download',
    // Built from checked dates only (the core accepted them), so nothing typed reaches the header.
    filename: `${name}-${ask.from}-to-${ask.to}-by-${ask.by}.csv`.replace(/[^A-Za-z0-9_.-]/g, '_'),
    contentType: 'text/csv; charset=utf-8',
    body: csvDocument(table.columns, table.rows),
  };
}

export const reportRoutes: Route[] = [
  {
    method: 'GET',
    path: '/reports',
    name: 'reports',
    signedIn: true,
    async handler(ctx) {
      const ask = askOf(ctx.url, new Date());
      let body: SafeHtml;
      try {
        const [sales, funding, signUps] = await Promise.all([
          ctx.core.getSalesReport({ ...session(ctx), query: ask }),
          ctx.core.getFundingReport({ ...session(ctx), query: ask }),
          ctx.core.getSignUpReport({ ...session(ctx), query: ask }),
        ]);
        body = html`${periodForm(ask, new Map())}
${sales.report ? salesSection(sales.report, ask) : ''}
${funding.report ? fundingSection(funding.report, ask) : ''}
${signUpSection(signUps)}`;
      } catch (error) {
        const fields = invalidFields(error);
        if (fields === null) throw error;
        return {
          kind: 'page',
          status: 400,
          body: page('Error: Reports', html`<h1>Reports</h1>${periodForm(ask, fields)}`, ctx.viewer),
        };
      }
      return { kind: 'page', body: page('Reports', html`<h1>Reports</h1>${body}`, ctx.viewer) };
    },
  },
  {
    method: 'GET',
    path: '/reports/sales.csv',
    name: 'reports_sales_csv',
    signedIn: true,
    handler: (ctx) =>
      csvDownload(ctx, 'sales', async (ask) => {
        const { report } = await ctx.core.getSalesReport({ ...session(ctx), query: ask });
        if (report === undefined) throw new Error('the core answered without a report');
        return salesTable(report);
      }),
  },
  {
    method: 'GET',
    path: '/reports/funding.csv',
    name: 'reports_funding_csv',
    signedIn: true,
    handler: (ctx) =>
      csvDownload(ctx, 'money-in', async (ask) => {
        const { report } = await ctx.core.getFundingReport({ ...session(ctx), query: ask });
        if (report === undefined) throw new Error('the core answered without a report');
        return fundingTable(report);
      }),
  },
  {
    method: 'GET',
    path: '/reports/manual.csv',
    name: 'reports_manual_csv',
    signedIn: true,
    handler: (ctx) =>
      csvDownload(ctx, 'manual-moves', async (ask) => {
        const { report } = await ctx.core.getFundingReport({ ...session(ctx), query: ask });
        if (report === undefined) throw new Error('the core answered without a report');
        return manualTable(report);
      }),
  },
];
