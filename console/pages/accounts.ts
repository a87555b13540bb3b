import { formatNaira, kobo } from '../../core/domain/money.js';
import { html } from '../../web/html.js';
import { page } from '../layout.js';
import type { Route } from '../route.js';
import { when } from '../time.js';
import { suspensionSection } from './suspension.js';
import { webhooksStateSection } from './webhooks-state.js';

const naira = (amountKobo: bigint) => `₦${formatNaira(kobo(Number(amountKobo)))}`;
/** Longest query passed on; the core takes exact values or part of a name, none of them long. */
const MAX_QUERY_CHARS = 128;

export const accountRoutes: Route[] = [
  {
    method: 'GET',
    path: '/accounts',
    name: 'accounts',
    signedIn: true,
    async handler(ctx) {
      const query = (ctx.url.searchParams.get('q') ?? '').trim().slice(0, MAX_QUERY_CHARS);
      const { accounts } =
        query === ''
          ? { accounts: [] }
          : await ctx.core.searchAccounts({ sessionToken: ctx.sessionToken, clientAddress: ctx.clientAddress, query });
      const body = html`<h1>Find an account</h1>
<form method="get" action="/accounts">
<label for="q">Account id, user email, public key, virtual account number, transaction reference, or part of the \
name</label>
<input id="q" name="q" value="${query}" required>
<button type="submit">Search</button></form>
${
  query === ''
    ? ''
    : accounts.length === 0
      ? html`<p>No account matches ${query}.</p>`
      : html`<ul>${accounts.map(
          (a) =>
            html`<li><a href="/accounts/${encodeURIComponent(a.accountId)}">${a.name}</a> \
(${a.accountId}, ${a.tierId})${a.suspension ? ' suspended' : ''}</li>`,
        )}</ul>`
}`;
      return { kind: 'page', body: page('Find an account', body, ctx.viewer) };
    },
  },
  {
    method: 'GET',
    path: /^\/accounts\/([A-Za-z0-9_.%-]{1,96})$/,
    name: 'account',
    signedIn: true,
    async handler(ctx) {
      const o = await ctx.core.getAccountOverview({
        sessionToken: ctx.sessionToken,
        clientAddress: ctx.clientAddress,
        accountId: ctx.params[0]!,
      });
      const a = o.account!;
      const body = html`<h1>${a.name}</h1>
<dl><dt>Account</dt><dd>${a.accountId}</dd><dt>Tier</dt><dd>${a.tierId}</dd>
<dt>Balance</dt><dd>${naira(a.balanceKobo)}</dd><dt>Test balance</dt><dd>${naira(a.testBalanceKobo)}</dd></dl>
${suspensionSection(ctx.viewer, a)}
<section><h2>Keys</h2>${
        o.keys.length === 0
          ? html`<p>None.</p>`
          : html`<ul>${o.keys.map((k) => html`<li>${k.publicKey}${k.revoked ? ' (revoked)' : ''}</li>`)}</ul>`
      }</section>
<section><h2>Users</h2>${
        o.users.length === 0
          ? html`<p>None.</p>`
          : html`<ul>${o.users.map((u) => html`<li>${u.email}${u.disabled ? ' (disabled)' : ''}</li>`)}</ul>`
      }</section>
${webhooksStateSection(o.webhooks)}
<section><h2>Newest purchases</h2><table><thead><tr><th>Reference</th><th>Service</th><th>Recipient</th>\
<th>Charged</th><th>Made</th></tr></thead>
<tbody>${o.transactions.map(
        (t) =>
          html`<tr><td>${t.reference}</td><td>${t.service}</td><td>${t.recipient}</td><td>${naira(t.chargedKobo)}</td>\
<td>${when(t.createdAt)}</td></tr>`,
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
