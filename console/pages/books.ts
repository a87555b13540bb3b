/**
 * The books (finance and admin; the core refuses support): the trial balance of each mode, live
 * and test apart, every account with its kind and its balance on the debit or the credit side,
 * and the totals, which are equal when the books balance. A date shows them at the end of that
 * Lagos day (docs/money.md, The books). Beside it the forms of the platform's own money: an
 * upstream's top-up and a funding provider's settlement, each always a four-eyes proposal a
 * colleague approves in the queue, never booked from here directly.
 */
import { formatNaira, type Kobo } from '../../core/domain/money.js';
import { modeWord } from '../../core/domain/words.js';
import type { TrialBalanceOfMode } from '../../gen/prepaid/v1/admin_pb.js';
import { html, type SafeHtml } from '../../web/html.js';
import { refusalOf } from '../../web/refusal.js';
import { csrfField, page, type StaffViewer } from '../layout.js';
import type { Answer, Route, SignedInContext } from '../route.js';
import { change, doneNotice, errorSummary, field, nairaField, pageAnswer, session } from './forms.js';

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

/** The two entries of our own money proposed from the Books page. */
const OWN_FORMS = {
  'top-up': {
    kind: 'upstream_topup',
    title: 'Propose an upstream top-up',
    intro:
      'Money paid from our bank into an upstream’s float. It is booked (the float up, the bank down) only when a ' +
      'different finance or admin member approves it in the queue, within 24 hours; once per bank reference.',
    target: 'Upstream (its name in UPSTREAMS, such as vtpass)',
    button: 'Propose the top-up',
  },
  settlement: {
    kind: 'provider_settlement',
    title: 'Propose a provider settlement',
    intro:
      'Money a funding provider paid out to our bank of what it received for us, less the fee it kept. It is ' +
      'booked only when a different finance or admin member approves it in the queue, within 24 hours; once per ' +
      'bank reference.',
    target: 'Funding provider (sandbox, paystack or monnify)',
    button: 'Propose the settlement',
  },
} as const;
type OwnForm = keyof typeof OWN_FORMS;

function ownFormPage(viewer: StaffViewer, which: OwnForm, problem = '', values?: URLSearchParams): Answer {
  const form = OWN_FORMS[which];
  const value = (name: string) => (values?.get(name) ?? '').slice(0, 200);
  const body = html`<h1>${form.title}</h1><p>${form.intro}</p>${errorSummary(problem)}
<form method="post" action="/books/${which}">${csrfField(viewer)}
<label for="target">${form.target}</label><input id="target" name="target" value="${value('target')}" required>
<label for="amount">Amount in Naira</label><input id="amount" name="amount" inputmode="decimal" value="${value('amount')}" required>
${
  which === 'settlement'
    ? html`<label for="fee">Fee the provider kept, in Naira (0 when none)</label><input id="fee" name="fee" inputmode="decimal" value="${value('fee')}">`
    : ''
}
<label for="reference">Bank reference</label><input id="reference" name="reference" value="${value('reference')}" required>
<label for="note">Why (required)</label><textarea id="note" name="note" rows="3" required>${value('note')}</textarea>
<button type="submit">${form.button}</button>
</form>`;
  return pageAnswer(page(form.title, body, viewer), problem);
}

/** Proposes a top-up or a settlement; a bad amount is refused here, everything else by the core, shown on the form. */
async function proposeOwn(ctx: SignedInContext, which: OwnForm): Promise<Answer> {
  const amount = nairaField(field(ctx, 'amount'));
  const fee = which === 'settlement' ? nairaField(field(ctx, 'fee')) : 0n;
  const again = (problem: string) => Promise.resolve(ownFormPage(ctx.viewer, which, problem, ctx.form));
  if (amount === undefined || amount <= 0n) return again('Enter the amount in Naira, such as 50000 or 50000.50.');
  if (fee === undefined) return again('Enter the fee in Naira, such as 150, or 0 when the provider kept none.');
  return change('/books', again, async () => {
    const { proposal } = await ctx.core.proposeMoneyMove({
      ...session(ctx),
      kind: OWN_FORMS[which].kind,
      target: field(ctx, 'target'),
      amountKobo: amount,
      feeKobo: fee,
      reference: field(ctx, 'reference'),
      note: ctx.form.get('note') ?? '',
    });
    const id = proposal?.proposalId ?? '';
    return `${which} proposed as ${id}${proposal?.status === 'pending' ? '' : ` (${proposal?.status})`}; a colleague must approve it in the queue`;
  });
}

const ownLinks = html`<p><a href="/books/top-up">Propose an upstream top-up</a> · <a href="/books/settlement">Propose a provider settlement</a> (a colleague approves it in the queue).</p>`;

export const booksRoutes: Route[] = [
  ...(Object.keys(OWN_FORMS) as OwnForm[]).flatMap((which): Route[] => [
    {
      method: 'GET',
      path: `/books/${which}`,
      name: `books_${which}`,
      signedIn: true,
      handler: async (ctx) => ownFormPage(ctx.viewer, which),
    },
    {
      method: 'POST',
      path: `/books/${which}`,
      name: `propose_${which}`,
      signedIn: true,
      handler: (ctx) => proposeOwn(ctx, which),
    },
  ]),
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
          body: page(
            'Books',
            html`${intro}${doneNotice(ctx)}${ownLinks}${dateForm(at, null)}${when}${books.modes.map(modeSection)}`,
            ctx.viewer,
          ),
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
