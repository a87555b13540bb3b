/**
 * The accounts: the list (newest first; filters by tier, suspension, when made and live
 * balance; sorted by time, balance or name; a bounded page at a time), finding one by id, a
 * user's email, a public key, a virtual account number, a transaction reference or part of its
 * name, and its page: balance, tier, keys without secrets, users, webhooks, the newest
 * transactions and ledger entries of the live wallet, and the changes staff make there
 * (account-manage.ts).
 */
import { timestampFromDate } from '@bufbuild/protobuf/wkt';
import type { Account } from '../../gen/prepaid/v1/admin_pb.js';
import { html, type SafeHtml } from '../../web/html.js';
import { refusalOf } from '../../web/refusal.js';
import { page } from '../layout.js';
import type { Route, SignedInContext } from '../route.js';
import { accountLink, lagosInput, when } from '../time.js';
import { accountActions, newAccountRoutes } from './account-manage.js';
import { doneNotice, errorSummary, naira, nairaField, pageAnswer, select, session } from './forms.js';
import { suspensionSection } from './suspension.js';
import { webhooksStateSection } from './webhooks-state.js';

/** Longest query passed on; the core takes exact values or part of a name, none of them long. */
const MAX_QUERY_CHARS = 128;
const LIST_FIELDS = ['tier', 'suspended', 'from', 'to', 'min', 'max', 'sort', 'reverse'] as const;

/** The list's filters as the form sent them, and the request they make; `problem` names a value that is not one. */
function listAsk(ctx: SignedInContext) {
  const q = (name: string) => (ctx.url.searchParams.get(name) ?? '').trim().slice(0, MAX_QUERY_CHARS);
  const problems: string[] = [];
  const date = (name: string, label: string) => {
    const text = q(name);
    const at = text === '' ? undefined : lagosInput(text);
    if (text !== '' && at === undefined) problems.push(`${label} must be a date.`);
    return at;
  };
  const amount = (name: string, label: string) => {
    const text = q(name);
    if (text === '') return undefined;
    const kobo = nairaField(text);
    if (kobo === undefined) problems.push(`${label} must be an amount in Naira.`);
    return kobo;
  };
  const from = date('from', 'Made from');
  const to = date('to', 'Made until');
  const min = amount('min', 'Balance from');
  const max = amount('max', 'Balance to');
  const request = {
    ...session(ctx),
    sort: q('sort'),
    reverse: q('reverse') === 'yes',
    tierId: q('tier'),
    suspended: q('suspended'),
    // "Until" a day includes it: the list stops before the next Lagos midnight.
    ...(from ? { createdFrom: timestampFromDate(from) } : {}),
    ...(to ? { createdBefore: timestampFromDate(new Date(to.getTime() + 86_400_000)) } : {}),
    ...(min === undefined ? {} : { balanceMinKobo: min }),
    ...(max === undefined ? {} : { balanceMaxKobo: max }),
    pageToken: q('after'),
  };
  return { q, request, problem: problems.join(' ') };
}

function accountRow(a: Account): SafeHtml {
  return html`<tr data-account="${a.accountId}"><td>${accountLink(a.accountId, {}, a.name)}</td><td>${a.tierId}</td>\
<td class="number">${naira(a.balanceKobo)}</td><td>${when(a.createdAt)}</td><td>${a.suspension ? 'suspended' : 'active'}</td></tr>`;
}

function listForm(q: (name: string) => string): SafeHtml {
  return html`<form method="get" action="/accounts" class="filters">
<div><label for="tier">Tier</label><input id="tier" name="tier" value="${q('tier')}"></div>
<div><label for="suspended">Suspended</label>${select('suspended', 'suspended', ['yes', 'no'], q('suspended'), 'either')}</div>
<div><label for="from">Made from (Lagos day)</label><input id="from" name="from" type="date" value="${q('from')}"></div>
<div><label for="to">Made until (Lagos day)</label><input id="to" name="to" type="date" value="${q('to')}"></div>
<div><label for="min">Balance from (₦)</label><input id="min" name="min" inputmode="decimal" value="${q('min')}"></div>
<div><label for="max">Balance to (₦)</label><input id="max" name="max" inputmode="decimal" value="${q('max')}"></div>
<div><label for="sort">Sort by</label>${select('sort', 'sort', ['created', 'balance', 'name'], q('sort') || 'created')}</div>
<div><label for="reverse">Order</label><select id="reverse" name="reverse"><option value="">newest, richest, A first</option>\
<option value="yes"${q('reverse') === 'yes' ? html` selected` : ''}>oldest, poorest, Z first</option></select></div>
<div><button type="submit">List</button></div></form>`;
}

async function listPage(ctx: SignedInContext) {
  const query = (ctx.url.searchParams.get('q') ?? '').trim().slice(0, MAX_QUERY_CHARS);
  const { q, request, problem: typed } = listAsk(ctx);
  let problem = typed;
  let listed: { accounts: Account[]; nextPageToken: string } = { accounts: [], nextPageToken: '' };
  if (problem === '' && query === '') {
    try {
      listed = await ctx.core.listAccounts(request);
    } catch (error) {
      const refusal = refusalOf(error);
      if (refusal.kind !== 'invalid') throw error;
      problem = [...new Set(refusal.fields.values())].join(' ') || refusal.message;
    }
  }
  const found = query === '' ? [] : (await ctx.core.searchAccounts({ ...session(ctx), query })).accounts;
  const next = new URLSearchParams(LIST_FIELDS.map((name) => [name, q(name)]));
  next.set('after', listed.nextPageToken);
  const body = html`<h1>Accounts</h1>
${doneNotice(ctx)}${errorSummary(problem)}
<p><a href="/accounts/new">Create an account</a></p>
<form method="get" action="/accounts">
<label for="q">Find: account id, user email, public key, virtual account number, transaction reference, or part of the \
name</label>
<input id="q" name="q" value="${query}" required>
<button type="submit">Search</button></form>
${
  query === ''
    ? ''
    : found.length === 0
      ? html`<p>No account matches ${query}.</p>`
      : html`<ul class="found">${found.map(
          (a) =>
            html`<li>${accountLink(a.accountId, {}, a.name)} (${a.tierId})${a.suspension ? ' suspended' : ''}</li>`,
        )}</ul>`
}
${
  query === ''
    ? html`<section><h2>Every account</h2>
${listForm(q)}
<table class="accounts"><thead><tr><th>Account</th><th>Tier</th><th class="number">Balance</th><th>Made</th>\
<th>State</th></tr></thead><tbody>${listed.accounts.map(accountRow)}</tbody></table>
${listed.accounts.length === 0 ? html`<p>No account matches these filters.</p>` : ''}
${listed.nextPageToken === '' ? '' : html`<p class="pager"><a href="/accounts?${next.toString()}">Next page</a></p>`}
</section>`
    : html`<p><a href="/accounts">List every account</a></p>`
}`;
  return pageAnswer(page('Accounts', body, ctx.viewer), problem);
}

export const accountRoutes: Route[] = [
  { method: 'GET', path: '/accounts', name: 'accounts', signedIn: true, handler: listPage },
  ...newAccountRoutes,
  {
    method: 'GET',
    path: /^\/accounts\/([A-Za-z0-9_.%-]{1,96})$/,
    name: 'account',
    signedIn: true,
    async handler(ctx) {
      const o = await ctx.core.getAccountOverview({ ...session(ctx), accountId: ctx.params[0]! });
      const a = o.account!;
      const txPath = (ref: string) => `/transactions/${encodeURIComponent(ref)}`;
      const body = html`<h1>${a.name}</h1>
${doneNotice(ctx)}
<dl><dt>Account</dt><dd>${a.accountId}</dd><dt>Tier</dt><dd>${a.tierId}</dd><dt>Made</dt><dd>${when(a.createdAt)}</dd>
<dt>Balance</dt><dd>${naira(a.balanceKobo)}</dd><dt>Test balance</dt><dd>${naira(a.testBalanceKobo)}</dd></dl>
<p><a href="/transactions?account=${encodeURIComponent(a.accountId)}">Its purchases on the transactions desk</a></p>
${suspensionSection(ctx.viewer, a)}
${accountActions(ctx.viewer, o)}
${webhooksStateSection(o.webhooks)}
<section><h2>Newest purchases</h2><table><thead><tr><th>Reference</th><th>Service</th><th>Recipient</th>\
<th>Charged</th><th>Made</th></tr></thead>
<tbody>${o.transactions.map(
        (t) =>
          html`<tr><td><a href="${txPath(t.reference)}">${t.reference}</a></td><td>${t.service}</td><td>${t.recipient}</td>\
<td>${naira(t.chargedKobo)}</td><td>${when(t.createdAt)}</td></tr>`,
      )}</tbody></table></section>
<section><h2>Newest ledger entries</h2><table><thead><tr><th>Reference</th><th>Amount</th><th>Balance after</th>\
<th>Memo</th></tr></thead>
<tbody>${o.ledger.map(
        (e) =>
          html`<tr><td>${e.reference}</td><td>${naira(e.amountKobo)}</td><td>${naira(e.balanceAfterKobo)}</td>\
<td>${e.memo}</td></tr>`,
      )}</tbody></table></section>`;
      return { kind: 'page', body: page(a.name, body, ctx.viewer) };
    },
  },
];
