/**
 * Transactions: the account's purchases, newest first, filtered by product, status, Lagos
 * dates, recipient, reference or request id (all checked by the core), in pages of 50 with a
 * "next page" link that carries the core's cursor; a detail page per reference with token and
 * units; and a CSV export of the current filter, streamed page after page as the core hands
 * them over, so a year of a big reseller's history never sits in memory.
 * Under /test the same pages show the test purchases only (and a live reference is not found there).
 */
import type { MessageInitShape } from '@bufbuild/protobuf';
import { HOLDER_PAGES } from '../../core/domain/paging.js';
import { productOfWord, statusOfWord } from '../../core/domain/words.js';
import type { TransactionFilterSchema } from '../../gen/prepaid/v1/holder_pb.js';
import { type Product, type Transaction, TransactionStatus } from '../../gen/prepaid/v1/types_pb.js';
import { asText, type TextCell } from '../../runtime/csv.js';
import { html, type SafeHtml } from '../../web/html.js';
import { formStatus } from '../../web/http.js';
import { refusalOf } from '../../web/refusal.js';
import { coreMode } from '../core-client.js';
import { dateOf, isoTime, lagosIso, lagosTime, naira } from '../format.js';
import { empty, type FieldError, field, page, select } from '../layout.js';
import type { Answer, Route, SignedInContext } from '../route.js';
import { streamCsv } from './csv.js';
import { PRODUCT_LABELS, PRODUCT_WORDS, STATUS_LABELS, STATUS_WORDS, statusTag } from './labels.js';
import { receiptPage } from './receipt.js';
import { lagosWallTime, nairaNumber, streamXlsx, type XlsxCell, type XlsxColumn } from './xlsx.js';

/** Rows on one page of the list: the core's default. */
const PAGE_SIZE = HOLDER_PAGES.defaultSize;
/** Rows per call while exporting: the core's largest page. */
const EXPORT_PAGE_SIZE = HOLDER_PAGES.maxSize;

/** The filter fields as they stand in the address (and in the form). */
const FILTER_FIELDS = ['product', 'status', 'from', 'to', 'recipient', 'reference', 'request_id'] as const;

function filterOf(params: URLSearchParams): MessageInitShape<typeof TransactionFilterSchema> {
  const text = (name: string) => (params.get(name) ?? '').trim();
  return {
    product: productOfWord(params.get('product')),
    status: statusOfWord(params.get('status')),
    fromDate: text('from'),
    toDate: text('to'),
    recipient: text('recipient'),
    reference: text('reference'),
    requestId: text('request_id'),
  };
}

/** The filter's part of an address, for links to the next page and to the export. */
function filterQuery(params: URLSearchParams): URLSearchParams {
  const query = new URLSearchParams();
  for (const name of FILTER_FIELDS) {
    const value = (params.get(name) ?? '').trim();
    if (value !== '') query.set(name, value);
  }
  return query;
}

/** The core's field names in its BadRequest, mapped to this form's fields. */
const CORE_FIELDS: Readonly<Record<string, string>> = {
  'filter.from_date': 'from',
  'filter.to_date': 'to',
  'filter.recipient': 'recipient',
  'filter.reference': 'reference',
  'filter.request_id': 'request_id',
  from_date: 'from',
  to_date: 'to',
  page_token: 'from',
};

function filterForm(ctx: SignedInContext, params: URLSearchParams, errors: FieldError[]): SafeHtml {
  const value = (name: string) => params.get(name) ?? '';
  return html`<form method="get" action="${ctx.link('/transactions')}" class="filters" novalidate>
<fieldset class="fieldset">
<legend class="fieldset__legend">Filter</legend>
<div class="filters__grid">
${select({
  name: 'product',
  label: 'Product',
  value: value('product'),
  options: Object.entries(PRODUCT_WORDS).map(([k, word]) => [word, PRODUCT_LABELS[Number(k) as Product]] as const),
  errors,
})}
${select({
  name: 'status',
  label: 'Status',
  value: value('status'),
  options: Object.entries(STATUS_WORDS).map(
    ([k, word]) => [word, STATUS_LABELS[Number(k) as TransactionStatus]] as const,
  ),
  errors,
})}
${field({ name: 'from', label: 'From (date)', type: 'date', value: value('from'), errors })}
${field({ name: 'to', label: 'To (date)', type: 'date', value: value('to'), errors })}
${field({
  name: 'recipient',
  label: 'Recipient',
  hint: 'A phone, meter or smart card number, or its start: ' + '0803123, +234 803 123 4567',
  value: value('recipient'),
  errors,
})}
${field({ name: 'reference', label: 'Reference', value: value('reference'), errors })}
${field({ name: 'request_id', label: 'Request ID', value: value('request_id'), errors })}
</div>
<div class="button-group">
<button type="submit" class="button">Apply filter</button>
<a href="${ctx.link('/transactions')}" class="link-button">Clear filter</a>
</div>
</fieldset>
</form>`;
}

/** What was bought, in a few words. */
function itemOf(t: Transaction): string {
  const detail =
    t.planLabel ||
    t.packageCode ||
    (t.smsPages > 0 ? `${t.smsSent} recipients, ${t.smsPages} page${t.smsPages === 1 ? '' : 's'}` : '');
  return [t.service.toUpperCase(), detail].filter((part) => part !== '').join(' · ');
}

function row(ctx: SignedInContext, t: Transaction): SafeHtml {
  // Each cell names its column (data-label): on a phone the rows become cards, so the status
  // and the money are never off-screen.
  return html`<tr>
<th scope="row" data-label="Reference"><a \
href="${ctx.link(`/transactions/${encodeURIComponent(t.reference)}`)}"><code>${t.reference}</code></a></th>
<td data-label="Status">${statusTag(t.status)}</td>
<td class="num" data-label="Amount">${naira(t.faceValueKobo)}</td>
<td class="num" data-label="Charged">${naira(t.chargedKobo)}</td>
<td data-label="Time"><time datetime="${isoTime(t.createdAt)}">${lagosTime(t.createdAt)}</time></td>
<td data-label="Product">${PRODUCT_LABELS[t.product]}<br><span class="secondary">${itemOf(t)}</span></td>
<td data-label="Recipient">${t.recipient}</td>
</tr>`;
}

async function listPage(ctx: SignedInContext): Promise<Answer> {
  const viewer = ctx.viewer;
  const params = ctx.url.searchParams;
  const query = filterQuery(params);
  let errors: FieldError[] = [];
  let transactions: Transaction[] = [];
  let next = '';
  try {
    const answer = await ctx.core.holder.listTransactions({
      sessionToken: ctx.sessionToken,
      mode: coreMode(ctx.mode),
      filter: filterOf(params),
      pageSize: PAGE_SIZE,
      pageToken: params.get('after') ?? '',
    });
    transactions = answer.transactions;
    next = answer.nextPageToken;
  } catch (error) {
    const refusal = refusalOf(error);
    if (refusal.kind !== 'invalid') throw error;
    errors =
      refusal.fields.size === 0
        ? [{ field: 'from', message: refusal.message }]
        : [...refusal.fields].map(([name, message]) => ({
            field: CORE_FIELDS[name] ?? name.replace(/^filter\./, ''),
            message,
          }));
  }
  const exportQuery = query.toString();
  const nextQuery = new URLSearchParams(query);
  nextQuery.set('after', next);
  const test = ctx.mode === 'test';
  const body = html`<h1>${test ? 'Test transactions' : 'Transactions'}</h1>
${filterForm(ctx, params, errors)}
<p class="toolbar"><a href="${ctx.link(
    `/transactions.csv${exportQuery ? `?${exportQuery}` : ''}`,
  )}" class="button button--secondary" download>Download CSV of this filter</a>
<a href="${ctx.link(
    `/transactions.xlsx${exportQuery ? `?${exportQuery}` : ''}`,
  )}" class="button button--secondary" download>Download Excel file (.xlsx)</a></p>
${
  transactions.length === 0
    ? empty(errors.length > 0 ? 'Correct the filter to see transactions.' : 'No transactions match this filter.')
    : html`<div class="table-wrap" role="region" aria-label="Transactions" tabindex="0"><table class="table \
table--cards">
<caption class="visually-hidden">Transactions, newest first</caption>
<thead><tr><th scope="col">Reference</th><th scope="col">Status</th><th scope="col" class="num">Amount</th><th \
scope="col" class="num">Charged</th><th scope="col">Time</th><th scope="col">Product</th><th \
scope="col">Recipient</th></tr></thead>
<tbody>${transactions.map((t) => row(ctx, t))}</tbody>
</table></div>`
}
<nav class="pagination" aria-label="Pages">
${
  params.has('after')
    ? html`<a href="${ctx.link(`/transactions${exportQuery ? `?${exportQuery}` : ''}`)}">First page</a>`
    : ''
}
${next !== '' ? html`<a href="${ctx.link(`/transactions?${nextQuery.toString()}`)}" rel="next">Next page</a>` : ''}
</nav>`;
  return {
    kind: 'page',
    status: formStatus(errors),
    body: page({ title: test ? 'Test transactions' : 'Transactions', current: '/transactions', viewer, errors }, body),
  };
}

const CSV_COLUMNS = [
  'reference',
  'created_at',
  'updated_at',
  'product',
  'service',
  'recipient',
  'status',
  'amount',
  'charged',
  'refunded',
  'balance_after',
  'plan',
  'package_code',
  'meter_type',
  'token',
  'units',
  'sms_sent',
  'sms_pages',
  'failure_reason',
  'request_id',
  // Added after the first columns, so spreadsheets that read by position keep working.
  'kct_tokens',
  'bonus_tokens',
];

/** Naira as the API writes them in JSON: 97 or 995.5; a CSV is for spreadsheets, so no symbol. */
function plainNaira(amountKobo: bigint): string {
  return (Number(amountKobo) / 100).toFixed(2);
}

/**
 * What the row really cost: a failed or reversed purchase was refunded its whole charge (the
 * core's rule; its ledger check holds exactly one refund of the charge for each), so its
 * `charged` is 0.00 and `refunded` says how much came back; the column then sums to the spend.
 */
function refundedKobo(t: Transaction): bigint {
  return t.status === TransactionStatus.FAILED || t.status === TransactionStatus.REVERSED ? t.chargedKobo : 0n;
}

function csvRow(t: Transaction): Array<string | TextCell> {
  const refunded = refundedKobo(t);
  return [
    t.reference,
    lagosIso(t.createdAt),
    lagosIso(t.updatedAt),
    PRODUCT_WORDS[t.product],
    t.service,
    asText(t.recipient),
    STATUS_WORDS[t.status],
    plainNaira(t.faceValueKobo),
    plainNaira(t.chargedKobo - refunded),
    plainNaira(refunded),
    plainNaira(t.balanceAfterKobo),
    t.planLabel,
    t.packageCode,
    t.meterType,
    t.token,
    t.units,
    t.smsPages > 0 ? String(t.smsSent) : '',
    t.smsPages > 0 ? String(t.smsPages) : '',
    t.failureReason,
    t.requestId,
    t.kctTokens.join(' '),
    t.bonusTokens.join(' '),
  ];
}

async function exportCsv(ctx: SignedInContext): Promise<Answer> {
  const filter = filterOf(ctx.url.searchParams);
  const mode = coreMode(ctx.mode);
  // The first page is asked before anything is sent, so a bad filter is still a page with the error.
  const first = await ctx.core.holder.listTransactions({
    sessionToken: ctx.sessionToken,
    mode,
    filter,
    pageSize: EXPORT_PAGE_SIZE,
    pageToken: '',
  });
  return streamCsv(
    ctx,
    ctx.mode === 'test' ? 'test-transactions.csv' : 'transactions.csv',
    CSV_COLUMNS,
    async function* () {
      let answer = first;
      for (;;) {
        for (const t of answer.transactions) yield csvRow(t);
        if (answer.nextPageToken === '') return;
        answer = await ctx.core.holder.listTransactions({
          sessionToken: ctx.sessionToken,
          mode,
          filter,
          pageSize: EXPORT_PAGE_SIZE,
          pageToken: answer.nextPageToken,
        });
      }
    },
  );
}

/** The spreadsheet's columns: the CSV's, each with its cell type. */
const XLSX_COLUMNS: readonly XlsxColumn[] = CSV_COLUMNS.map((header): XlsxColumn => {
  if (header === 'created_at' || header === 'updated_at') return { header, type: 'date' };
  if (header === 'amount' || header === 'charged' || header === 'refunded' || header === 'balance_after')
    return { header, type: 'money' };
  if (header === 'sms_sent' || header === 'sms_pages') return { header, type: 'count' };
  return { header, type: 'text', ...(header === 'reference' ? { width: 30 } : {}) };
});

function xlsxRow(t: Transaction): XlsxCell[] {
  const refunded = refundedKobo(t);
  return [
    t.reference,
    lagosWallTime(dateOf(t.createdAt)),
    lagosWallTime(dateOf(t.updatedAt)),
    PRODUCT_WORDS[t.product],
    t.service,
    t.recipient,
    STATUS_WORDS[t.status],
    nairaNumber(t.faceValueKobo),
    nairaNumber(t.chargedKobo - refunded),
    nairaNumber(refunded),
    nairaNumber(t.balanceAfterKobo),
    t.planLabel,
    t.packageCode,
    t.meterType,
    t.token,
    t.units,
    t.smsPages > 0 ? t.smsSent : null,
    t.smsPages > 0 ? t.smsPages : null,
    t.failureReason,
    t.requestId,
  ];
}

/** Every page of the filtered history, one transaction at a time; the first page asked before anything is sent. */
async function exportRows(
  ctx: SignedInContext,
  write: (rows: () => AsyncGenerator<Transaction>) => Promise<Answer>,
): Promise<Answer> {
  const filter = filterOf(ctx.url.searchParams);
  const mode = coreMode(ctx.mode);
  const first = await ctx.core.holder.listTransactions({
    sessionToken: ctx.sessionToken,
    mode,
    filter,
    pageSize: EXPORT_PAGE_SIZE,
    pageToken: '',
  });
  return write(async function* () {
    let answer = first;
    for (;;) {
      yield* answer.transactions;
      if (answer.nextPageToken === '') return;
      answer = await ctx.core.holder.listTransactions({
        sessionToken: ctx.sessionToken,
        mode,
        filter,
        pageSize: EXPORT_PAGE_SIZE,
        pageToken: answer.nextPageToken,
      });
    }
  });
}

function exportXlsx(ctx: SignedInContext): Promise<Answer> {
  return exportRows(ctx, (transactions) =>
    streamXlsx(
      ctx,
      ctx.mode === 'test' ? 'test-transactions.xlsx' : 'transactions.xlsx',
      'Transactions',
      XLSX_COLUMNS,
      async function* () {
        for await (const t of transactions()) yield xlsxRow(t);
      },
    ),
  );
}

export const transactionRoutes: Route[] = [
  {
    method: 'GET',
    path: '/transactions.xlsx',
    name: 'transactions_xlsx',
    signedIn: true,
    testMode: true,
    handler: exportXlsx,
  },
  { method: 'GET', path: '/transactions', name: 'transactions', signedIn: true, testMode: true, handler: listPage },
  {
    method: 'GET',
    path: '/transactions.csv',
    name: 'transactions_csv',
    signedIn: true,
    testMode: true,
    handler: exportCsv,
  },
  {
    method: 'GET',
    path: /^\/transactions\/([A-Za-z0-9_-]{1,64})$/,
    name: 'transaction',
    signedIn: true,
    testMode: true,
    handler: receiptPage,
  },
];
