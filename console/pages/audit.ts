/** The audit log, newest first, filtered by actor, action (or area ending in a dot) and target. */
import { html } from '../../web/html.js';
import { page } from '../layout.js';
import type { Route } from '../route.js';
import { accountLink, when } from '../time.js';

const FILTERS = [
  ['actor', 'Actor (cli, system, staff:email)'],
  ['action', 'Action, or an area ending in a dot'],
  ['target', 'Target (account, reference, proposal, email)'],
] as const;

export const auditRoutes: Route[] = [
  {
    method: 'GET',
    path: '/audit',
    name: 'audit',
    signedIn: true,
    async handler(ctx) {
      const q = (name: string) => (ctx.url.searchParams.get(name) ?? '').slice(0, 200);
      const { entries, accountNames } = await ctx.core.listAuditEntries({
        sessionToken: ctx.sessionToken,
        clientAddress: ctx.clientAddress,
        filter: { actor: q('actor'), action: q('action'), target: q('target'), beforeId: q('before'), limit: 100 },
      });
      const last = entries.at(-1);
      const next = new URLSearchParams({ actor: q('actor'), action: q('action'), target: q('target') });
      if (last !== undefined) next.set('before', last.id);
      const body = html`<h1>Audit log</h1>
<form method="get" action="/audit">
${FILTERS.map(
  ([name, label]) => html`<label for="${name}">${label}</label>\
<input id="${name}" name="${name}" value="${q(name)}">`,
)}
<button type="submit">Filter</button></form>
<table><thead><tr><th>When</th><th>Who</th><th>Action</th><th>Target</th><th>Note</th><th>Before</th><th>After</th>\
<th>Address</th></tr></thead>
<tbody>${entries.map(
        (e) =>
          html`<tr><td>${when(e.at)}</td><td>${e.actor}\
${e.flag === '' ? '' : html` <strong class="flag">${e.flag}</strong>`}</td><td>${e.action}</td><td>${
            accountNames[e.target] === undefined ? e.target : accountLink(e.target, accountNames)
          }</td>
<td>${e.note}</td><td><code>${e.before}</code></td><td><code>${e.after}</code></td><td>${e.address}</td></tr>`,
      )}</tbody></table>
${entries.length === 100 ? html`<p><a href="/audit?${next.toString()}">Older rows</a></p>` : ''}`;
      return { kind: 'page', body: page('Audit log', body, ctx.viewer) };
    },
  },
];
