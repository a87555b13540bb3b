/**
 * The books (finance and admin; the core refuses support): the trial balance of each mode, live
 * and test apart, every account with its kind and its balance on the debit or the credit side,
 * and the totals, which are equal when the books balance. A date shows them at the end of that
 * Lagos day (docs/money.md, The books).
 */
import { formatNaira, type Kobo } from '../../core/domain/money.js';
import { modeWord } from '../../core/domain/words.js';
import type { TrialBalanceOfMode } from '../../gen/prepaid/v1/admin_pb.js';
import { html, type SafeHtml } from '../../web/html.js';
import { refusalOf } from '../../web/refusal.js';
import { page } from '../layout.js';
import type { Route } from '../route.js';

/** The longest value the date field may carry to the core (a date is 10 characters). */
const MAX_FIELD_CHARS = 20;

const naira = (value: bigint): string => (value === 0n ? '' : formatNaira(Number(value) as Kobo));

function modeSection(of: TrialBalanceOfMode): SafeHtml {
  const mode = modeWord(of.mode);
  const title = mode === 'live' ? 'Live books' : 'Test books';
  const balanced = of.debitTotalKobo === of.creditTotalKobo;
  return html`<section aria-labelledby="${mode}-books-heading">
<h2 id="${mode}-books-heading">${title}</h2>
${
  of.lines.length === 0
    ? html`<p>Nothing is booked in the ${mode} books${mode === 'live' ? '' : ' yet'}.</p>`
    : html`<table class="report" tabindex="0"><caption>${title}: every account's balance, in Naira</caption>
<thead><tr><th scope="col">Account</th><th scope="col">Kind</th><th scope="col" class="number">Debit</th>\
<th scope="col" class="number">Credit</th></tr></thead>
<tbody>${of.lines.map(
        (line) => html`<tr><td>${line.account}</td><td>${line.kind}</td>\
<td class="number">${naira(line.debitKobo)}</td><td class="number">${naira(line.creditKobo)}</td></tr>`,
      )}</tbody>
<tfoot><tr><th scope="row" colspan="2">Totals</th><td class="number">${formatNaira(Number(of.debitTotalKobo) as Kobo)}</td>\
<td class="number">${formatNaira(Number(of.creditTotalKobo) as Kobo)}</td></tr></tfoot></table>
<p>${balanced ? 'Debits equal credits.' : html`<strong>Debits and credits differ: the books do not balance.</strong>`}</p>`
}
</section>`;
}

function dateForm(at: string, error: string | null): SafeHtml {
  return html`${
    error === null
      ? ''
      : html`<div class="error-summary" role="alert"><h2>There is a problem</h2><ul><li><a href="#at">${error}</a></li>\
</ul></div>`
  }
<form method="get" action="/books" class="period-form">
<div><label for="at">At the end of (Lagos day; empty: now)</label>\
${error === null ? '' : html`<p class="field-error" id="at-error">${error}</p>`}\
<input id="at" name="at" type="date" value="${at}"${error === null ? '' : html` aria-describedby="at-error"`}></div>
<div><button type="submit">Show the books</button></div>
</form>`;
}

export const booksRoutes: Route[] = [
  {
    method: 'GET',
    path: '/books',
    name: 'books',
    signedIn: true,
    async handler(ctx) {
      const at = (ctx.url.searchParams.get('at') ?? '').slice(0, MAX_FIELD_CHARS).trim();
      const intro = html`<h1>Books</h1><p>The trial balance: every account of the platform's books with its balance. \
Assets and expenses stand on the debit side, what we owe and what we earned on the credit side.</p>`;
      try {
        const books = await ctx.core.getBooks({
          sessionToken: ctx.sessionToken,
          clientAddress: ctx.clientAddress,
          atDate: at,
        });
        const when = at === '' ? html`<p>As booked now.</p>` : html`<p>As booked at the end of ${at} (Lagos time).</p>`;
        return {
          kind: 'page',
          body: page('Books', html`${intro}${dateForm(at, null)}${when}${books.modes.map(modeSection)}`, ctx.viewer),
        };
      } catch (error) {
        const refusal = refusalOf(error);
        if (refusal.kind !== 'invalid') throw error;
        return {
          kind: 'page',
          status: 400,
          body: page(
            'Error: Books',
            html`${intro}${dateForm(at, refusal.fields.get('at_date') ?? refusal.message)}`,
            ctx.viewer,
          ),
        };
      }
    },
  },
];
