import type { Account } from '../../gen/prepaid/v1/admin_pb.js';
import { html, type SafeHtml } from '../../web/html.js';
import { csrfField, type StaffViewer } from '../layout.js';
import type { Route } from '../route.js';
import { when } from '../time.js';

/** The account page's suspension section: its state, and the form that changes it. */
export function suspensionSection(viewer: StaffViewer, account: Account): SafeHtml {
  const path = `/accounts/${encodeURIComponent(account.accountId)}`;
  const s = account.suspension;
  const state =
    s === undefined
      ? html`<p>Active: its keys and developer area work.</p>`
      : html`<p class="warning" data-suspended="yes">\
<strong>Suspended</strong> since ${when(s.suspendedAt)} by ${s.suspendedBy}: ${s.note}</p>`;
  const action = s === undefined ? 'suspend' : 'resume';
  const label =
    s === undefined
      ? 'Why suspend it (required; kept in the audit log)'
      : 'Why resume it (required; kept in the audit log)';
  return html`<section><h2>Suspension</h2>${state}
<form method="post" action="${path}/${action}">${csrfField(viewer)}
<label for="suspension-note">${label}</label><textarea id="suspension-note" name="note" rows="2" required></textarea>
<button type="submit"${
    s === undefined
      ? html` \
class="warning"`
      : ''
  }>${s === undefined ? 'Suspend the account' : 'Resume the account'}</button></form>
</section>`;
}

export const suspensionRoutes: Route[] = [
  {
    method: 'POST',
    path: /^\/accounts\/([A-Za-z0-9_.%-]{1,96})\/(suspend|resume)$/,
    name: 'account_suspension',
    signedIn: true,
    async handler(ctx) {
      const accountId = ctx.params[0]!;
      const request = {
        sessionToken: ctx.sessionToken,
        clientAddress: ctx.clientAddress,
        accountId,
        note: ctx.form.get('note') ?? '',
      };
      if (ctx.params[1] === 'suspend') await ctx.core.suspendAccount(request);
      else await ctx.core.resumeAccount(request);
      return { kind: 'redirect', location: `/accounts/${encodeURIComponent(accountId)}` };
    },
  },
];
