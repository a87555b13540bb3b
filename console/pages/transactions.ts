/**
 * The transactions desk: live purchases found by reference, recipient, account, product,
 * status, upstream and a time range (at most 31 days, Lagos time; the last day by default), a
 * bounded page at a time; and a purchase's page with its evidence (the upstreams called, what
 * they answered, the events about it and their webhook deliveries, its open proposals) and its
 * actions wherever it is, not only from the queue: re-query, resolve as delivered, propose it
 * failed (pending) or a refund (delivered). The core decides who may do each.
 */
import { timestampFromDate } from '@bufbuild/protobuf/wkt';
import { PRODUCT_WORDS, productOfWord, STATUS_WORDS, statusOfWord } from '../../core/domain/words.js';
import type { Transaction } from '../../gen/prepaid/v1/types_pb.js';
import { TransactionStatus } from '../../gen/prepaid/v1/types_pb.js';
import { html, type SafeHtml } from '../../web/html.js';
import { refusalOf } from '../../web/refusal.js';
import { csrfField, page, type StaffViewer } from '../layout.js';
import type { Answer, Route, SignedInContext } from '../route.js';
import { accountLink, lagosInput, lagosInputValue, when } from '../time.js';
import { doneNotice, errorSummary, naira, pageAnswer, select, session } from './forms.js';
import { proposalItem } from './queue.js';
import { answersList, attemptsTable } from './queue-more.js';

const MAX_CHARS = 96;
const FIELDS = ['reference', 'recipient', 'account', 'product', 'status', 'upstream', 'from', 'to'] as const;
const DAY_MS = 86_400_000;
const PRODUCTS = Object.values(PRODUCT_WORDS).filter((w): w is NonNullable<typeof w> => w !== null);
const STATUSES = Object.values(STATUS_WORDS).filter((w): w is NonNullable<typeof w> => w !== null);
const txPath = (reference: string) => `/transactions/${encodeURIComponent(reference)}`;
const statusText = (status: TransactionStatus) =>
  status === TransactionStatus.SUCCESS ? 'delivered' : (STATUS_WORDS[status] ?? 'unknown');

function searchForm(q: (name: string) => string, from: string, to: string): SafeHtml {
  const input = (name: string, label: string, value = q(name), type = 'text') =>
    html`<div><label for="${name}">${label}</label><input id="${name}" name="${name}" type="${type}" value="${value}"></div>`;
  return html`<form method="get" action="/transactions" class="filters">
${input('reference', 'Reference (alone: any time)')}${input('recipient', 'Recipient (phone, meter or card)')}
${input('account', 'Account id')}
<div><label for="product">Product</label>${select('product', 'product', PRODUCTS, q('product'), 'any')}</div>
<div><label for="status">Status</label>${select('status', 'status', STATUSES, q('status'), 'any')}</div>
${input('upstream', 'Upstream')}
${input('from', 'Made from (Lagos time)', from, 'datetime-local')}${input('to', 'Made before (Lagos time)', to, 'datetime-local')}
<div><button type="submit">Search</button></div></form>`;
}

function resultsTable(list: readonly Transaction[], names: Readonly<Record<string, string>>): SafeHtml {
  return html`<table class="desk"><thead><tr><th>Reference</th><th>Account</th><th>Service</th><th>Recipient</th>\
<th class="number">Charged</th><th>Status</th><th>Made</th></tr></thead><tbody>${list.map(
    (t) => html`<tr data-reference="${t.reference}"><td><a href="${txPath(t.reference)}">${t.reference}</a></td>\
<td>${accountLink(t.accountId, names)}</td><td>${t.service}</td><td>${t.recipient}</td>\
<td class="number">${naira(t.chargedKobo)}</td><td>${statusText(t.status)}</td><td>${when(t.createdAt)}</td></tr>`,
  )}</tbody></table>`;
}

async function deskPage(ctx: SignedInContext): Promise<Answer> {
  const q = (name: string) => (ctx.url.searchParams.get(name) ?? '').trim().slice(0, MAX_CHARS);
  // The last day (and any purchase since) by default: the first page reads two days at most.
  const now = new Date();
  const from = q('from') || lagosInputValue(new Date(now.getTime() - DAY_MS));
  const to = q('to') || lagosInputValue(new Date(now.getTime() + DAY_MS));
  const fromAt = lagosInput(from);
  const toAt = lagosInput(to);
  let problem = fromAt === undefined || toAt === undefined ? 'The time range must be two Lagos times.' : '';
  let found: { transactions: Transaction[]; nextPageToken: string; accountNames: Record<string, string> } = {
    transactions: [],
    nextPageToken: '',
    accountNames: {},
  };
  if (problem === '') {
    try {
      found = await ctx.core.searchTransactions({
        ...session(ctx),
        reference: q('reference'),
        recipient: q('recipient'),
        accountId: q('account'),
        product: productOfWord(q('product')),
        status: statusOfWord(q('status')),
        upstream: q('upstream'),
        createdFrom: timestampFromDate(fromAt!),
        createdBefore: timestampFromDate(toAt!),
        pageToken: q('after'),
      });
    } catch (error) {
      const refusal = refusalOf(error);
      if (refusal.kind !== 'invalid') throw error;
      problem = [...new Set(refusal.fields.values())].join(' ') || refusal.message;
    }
  }
  const next = new URLSearchParams(FIELDS.map((name) => [name, q(name)]));
  next.set('from', from);
  next.set('to', to);
  next.set('after', found.nextPageToken);
  const body = html`<h1>Transactions</h1>${errorSummary(problem)}
${searchForm(q, from, to)}
${resultsTable(found.transactions, found.accountNames)}
${problem === '' && found.transactions.length === 0 ? html`<p>No purchase matches.</p>` : ''}
${found.nextPageToken === '' ? '' : html`<p class="pager"><a href="/transactions?${next.toString()}">Next page</a></p>`}`;
  return pageAnswer(page('Transactions', body, ctx.viewer), problem);
}

function actionForm(viewer: StaffViewer, reference: string, what: string, label: string, note?: string): SafeHtml {
  const id = `n-${what}`;
  return html`<form method="post" action="${txPath(reference)}/${what}">${csrfField(viewer)}${
    note === undefined
      ? ''
      : html`<label for="${id}">${note}</label><textarea id="${id}" name="note" rows="2" required></textarea>`
  }<button type="submit">${label}</button></form>`;
}

function actions(viewer: StaffViewer, t: Transaction): SafeHtml {
  if (t.status === TransactionStatus.PENDING) {
    return html`${actionForm(viewer, t.reference, 'requery', 'Re-query the upstream now')}
${actionForm(viewer, t.reference, 'delivered', 'Resolve as delivered', 'Evidence of delivery (required)')}
${actionForm(viewer, t.reference, 'failed', 'Propose as failed (a refund someone else approves)', 'Why it failed (required)')}`;
  }
  if (t.status === TransactionStatus.SUCCESS) {
    return html`${actionForm(viewer, t.reference, 'requery', 'Re-query the upstream now')}
${actionForm(viewer, t.reference, 'refund', 'Propose a refund (someone else approves)', 'Why it is refunded (required)')}`;
  }
  return html`<p>It is ${statusText(t.status)}: nothing is left to do.</p>`;
}

async function transactionPage(ctx: SignedInContext): Promise<Answer> {
  const d = await ctx.core.getTransactionDetail({ ...session(ctx), reference: ctx.params[0]! });
  const t = d.transaction!;
  const body = html`<h1>Purchase ${t.reference}</h1>${doneNotice(ctx)}
<dl><dt>Account</dt><dd>${accountLink(t.accountId, {}, d.accountName)}</dd><dt>Service</dt><dd>${t.service}</dd>
<dt>Recipient</dt><dd>${t.recipient}</dd><dt>Charged</dt><dd>${naira(t.chargedKobo)}</dd>
<dt>Status</dt><dd data-status>${statusText(t.status)}</dd>${
    t.failureReason === '' ? '' : html`<dt>Why it failed</dt><dd>${t.failureReason}</dd>`
  }
<dt>Made</dt><dd>${when(t.createdAt)}</dd><dt>Last changed</dt><dd>${when(t.updatedAt)}</dd></dl>
<section><h2>Actions</h2>${actions(ctx.viewer, t)}</section>
<section><h2>Evidence</h2>${attemptsTable(d.upstreamAttempts)}${answersList(d.upstreamAnswers)}</section>
<section><h2>Events and webhook deliveries</h2>${
    d.events.length === 0
      ? html`<p>No event about it among the account's newest 1,000 (a pending purchase has none yet).</p>`
      : html`<table><thead><tr><th>Event</th><th>Type</th><th>Recorded</th><th>Delivery</th><th>Attempts</th>\
<th>Last answer</th><th>Last attempt</th></tr></thead><tbody>${d.events.map(
          (e) => html`<tr><td>${e.eventId}</td><td>${e.type}</td><td>${when(e.createdAt)}</td><td>${e.delivery}</td>\
<td>${e.attempts}</td><td>${e.lastStatus === 0 ? '' : `HTTP ${e.lastStatus}`} ${e.lastError}</td><td>${when(e.lastAttemptAt)}</td></tr>`,
        )}</tbody></table>`
  }</section>
<section><h2>Open proposals (${d.proposals.length})</h2>${
    d.proposals.length === 0 ? html`<p>None.</p>` : d.proposals.map((p) => proposalItem(ctx.viewer, p))
  }</section>`;
  return { kind: 'page', body: page(`Purchase ${t.reference}`, body, ctx.viewer) };
}

/** Back to the purchase's page, saying what was done. */
const back = (reference: string, what: string): Answer => ({
  kind: 'redirect',
  location: `${txPath(reference)}?done=${encodeURIComponent(what)}`,
});

async function act(ctx: SignedInContext): Promise<Answer> {
  const reference = ctx.params[0]!;
  const note = ctx.form.get('note') ?? '';
  switch (ctx.params[1]) {
    case 'requery': {
      const { transaction } = await ctx.core.requeryPurchase({ ...session(ctx), reference });
      return back(reference, `re-queried, now ${statusText(transaction?.status ?? TransactionStatus.UNSPECIFIED)}`);
    }
    case 'delivered':
      await ctx.core.resolveDelivered({ ...session(ctx), reference, note });
      return back(reference, 'resolved as delivered');
    default: {
      const kind = ctx.params[1] === 'refund' ? 'refund' : 'pending_failed';
      await ctx.core.proposeMoneyMove({ ...session(ctx), kind, target: reference, note });
      return back(reference, 'proposed; a finance colleague must approve the refund');
    }
  }
}

export const transactionRoutes: Route[] = [
  { method: 'GET', path: '/transactions', name: 'transactions', signedIn: true, handler: deskPage },
  {
    method: 'GET',
    path: /^\/transactions\/([A-Za-z0-9_.%-]{1,96})$/,
    name: 'transaction',
    signedIn: true,
    handler: transactionPage,
  },
  {
    method: 'POST',
    path: /^\/transactions\/([A-Za-z0-9_.%-]{1,96})\/(requery|delivered|failed|refund)$/,
    name: 'transaction_action',
    signedIn: true,
    handler: act,
  },
];
