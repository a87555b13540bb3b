/**
 * Statement: the account's ledger entries, newest first, each with the balance right after it
 * (the running balance the core stores), in pages; and the whole statement as a streamed CSV.
 * Under /test, the test wallet's entries (test funds, test purchases, their refunds).
 */

import { HOLDER_PAGES } from '../../core/domain/paging.js';
import type { LedgerEntry } from '../../gen/prepaid/v1/admin_pb.js';
import { html, type SafeHtml } from '../../web/html.js';
import { coreMode } from '../core-client.js';
import { isoTime, lagosIso, lagosTime, naira, signedNaira } from '../format.js';
import { empty, page } from '../layout.js';
import type { Answer, Route, SignedInContext } from '../route.js';
import { streamCsv } from './csv.js';

/** Rows on one page of the statement: more than the history's, each row is one line. */
const PAGE_SIZE = 100;
/** Rows per call while exporting: the core's largest page. */
const EXPORT_PAGE_SIZE = HOLDER_PAGES.maxSize;

/** The ledger's kinds in words; an unknown kind is shown as it is. */
const KIND_LABELS: Readonly<Record<string, string>> = {
  credit: 'Wallet funded',
  debit: 'Purchase',
  refund: 'Refund',
  manual_debit: 'Debited by the operator',
};

function row(ctx: SignedInContext, entry: LedgerEntry): SafeHtml {
  const reference = entry.reference;
  // A debit or a refund names the purchase it belongs to; a credit names the operator's credit.
  const isPurchase = entry.kind === 'debit' || entry.kind === 'refund';
  return html`<tr>
<td data-label="Time"><time datetime="${isoTime(entry.createdAt)}">${lagosTime(entry.createdAt)}</time></td>
<td data-label="What">${KIND_LABELS[entry.kind] ?? entry.kind}${
    entry.memo ? html`<br><span class="secondary">${entry.memo}</span>` : ''
  }</td>
<td data-label="Reference">${
    isPurchase
      ? html`<a \
href="${ctx.link(`/transactions/${encodeURIComponent(reference)}`)}"><code>${reference}</code></a>`
      : html`<code>${reference}</code>`
  }</td>
<td class="num${entry.amountKobo < 0n ? ' negative' : ''}" data-label="Amount">${signedNaira(entry.amountKobo)}</td>
<td class="num" data-label="Balance after">${naira(entry.balanceAfterKobo)}</td>
</tr>`;
}

async function statementPage(ctx: SignedInContext): Promise<Answer> {
  const after = ctx.url.searchParams.get('after') ?? '';
  const { entries, nextPageToken } = await ctx.core.holder.listStatement({
    sessionToken: ctx.sessionToken,
    mode: coreMode(ctx.mode),
    pageSize: PAGE_SIZE,
    pageToken: after,
  });
  const test = ctx.mode === 'test';
  const body = html`<h1>${test ? 'Test statement' : 'Statement'}</h1>
<p>Every change to the ${test ? 'test wallet' : 'wallet'}, newest first, with the balance right after it.</p>
<p class="toolbar"><a href="${ctx.link('/statement.csv')}" class="button button--secondary" download>Download \
the statement as CSV</a></p>
${
  entries.length === 0
    ? empty('No money has moved on this account yet.')
    : html`<div class="table-wrap" role="region" aria-label="Statement" tabindex="0"><table class="table table--cards">
<caption class="visually-hidden">Ledger entries, newest first</caption>
<thead><tr><th scope="col">Time</th><th scope="col">What</th><th scope="col">Reference</th><th scope="col" \
class="num">Amount</th><th scope="col" class="num">Balance after</th></tr></thead>
<tbody>${entries.map((entry) => row(ctx, entry))}</tbody>
</table></div>`
}
<nav class="pagination" aria-label="Pages">
${after !== '' ? html`<a href="${ctx.link('/statement')}">First page</a>` : ''}
${
  nextPageToken !== ''
    ? html`<a href="${ctx.link(`/statement?after=${encodeURIComponent(nextPageToken)}`)}" \
rel="next">Next page</a>`
    : ''
}
</nav>`;
  return {
    kind: 'page',
    body: page({ title: test ? 'Test statement' : 'Statement', current: '/statement', viewer: ctx.viewer }, body),
  };
}

async function exportCsv(ctx: SignedInContext): Promise<Answer> {
  const mode = coreMode(ctx.mode);
  const first = await ctx.core.holder.listStatement({
    sessionToken: ctx.sessionToken,
    mode,
    pageSize: EXPORT_PAGE_SIZE,
    pageToken: '',
  });
  return streamCsv(
    ctx,
    ctx.mode === 'test' ? 'test-statement.csv' : 'statement.csv',
    ['entry_id', 'created_at', 'kind', 'reference', 'memo', 'amount', 'balance_after'],
    async function* () {
      let answer = first;
      for (;;) {
        for (const e of answer.entries)
          yield [
            String(e.entryId),
            lagosIso(e.createdAt),
            e.kind,
            e.reference,
            e.memo,
            (Number(e.amountKobo) / 100).toFixed(2),
            (Number(e.balanceAfterKobo) / 100).toFixed(2),
          ];
        if (answer.nextPageToken === '') return;
        answer = await ctx.core.holder.listStatement({
          sessionToken: ctx.sessionToken,
          mode,
          pageSize: EXPORT_PAGE_SIZE,
          pageToken: answer.nextPageToken,
        });
      }
    },
  );
}

export const statementRoutes: Route[] = [
  { method: 'GET', path: '/statement', name: 'statement', signedIn: true, testMode: true, handler: statementPage },
  { method: 'GET', path: '/statement.csv', name: 'statement_csv', signedIn: true, testMode: true, handler: exportCsv },
];
