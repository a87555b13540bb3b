/**
 * Users: the people of this account and the invitations still waiting. Owners invite others
 * (the link is shown once on the answer to the POST, to be passed on by the owner), revoke
 * waiting invitations, and disable members after a confirmation. Viewers see the lists only;
 * the core refuses their POSTs. Inviting an email says nothing about other accounts: an
 * email that already signs in elsewhere gets an invitation like any other.
 */
import { type PendingInvitation, type User, UserRole } from '../../gen/prepaid/v1/holder_pb.js';
import { html, type SafeHtml } from '../../web/html.js';
import { formStatus } from '../../web/http.js';
import { refusalOf } from '../../web/refusal.js';
import { lagosTime } from '../format.js';
import {
  confirmPage,
  type FieldError,
  field,
  formFields,
  isOwner,
  page,
  secretBox,
  select,
  type Viewer,
} from '../layout.js';
import type { Answer, Route, SignedInContext } from '../route.js';

const ROLE_WORDS: ReadonlyArray<readonly [string, string]> = [
  ['viewer', 'Viewer: sees everything, changes nothing'],
  ['owner', 'Owner: everything, keys and people included'],
];

function userRow(viewer: Viewer, user: User): SafeHtml {
  const self = user.userId === viewer.session.user?.userId;
  const canDisable = isOwner(viewer) && !self && !user.disabled;
  return html`<tr>
<th scope="row" data-label="Email">${user.email}${self ? ' (you)' : ''}</th>
<td data-label="Role">${user.role === UserRole.OWNER ? 'Owner' : 'Viewer'}</td>
<td data-label="State">${
    user.disabled
      ? html`<strong class="tag tag--grey">Disabled</strong>`
      : html`<strong class="tag tag--green">Active</strong>`
  }</td>
<td data-label="Two-step sign-in">${user.totpEnabled ? 'On' : 'Off'}</td>
<td data-label="Since">${lagosTime(user.createdAt)}</td>
<td class="table__actions" data-label="Actions">${
    canDisable
      ? html`<a href="/users/disable?user=${encodeURIComponent(user.userId)}" class="danger-link">Disable<span \
class="visually-hidden"> ${user.email}</span></a>`
      : ''
  }</td>
</tr>`;
}

function invitationRow(viewer: Viewer, invitation: PendingInvitation): SafeHtml {
  return html`<tr>
<th scope="row">${invitation.email}</th>
<td>${invitation.role === UserRole.OWNER ? 'Owner' : 'Viewer'}</td>
<td>${invitation.invitedBy || 'A former member'}</td>
<td>${lagosTime(invitation.expiresAt)}</td>
<td>${
    isOwner(viewer)
      ? html`<form method="post" action="/users/revoke" class="inline-form" data-confirm="Revoke this invitation?">
  ${formFields(viewer)}
  <input type="hidden" name="email" value="${invitation.email}">
  <button type="submit" class="button button--secondary">Revoke<span class="visually-hidden"> the invitation \
of ${invitation.email}</span></button>
</form>`
      : ''
  }</td>
</tr>`;
}

function invitationsTable(viewer: Viewer, invitations: readonly PendingInvitation[]): SafeHtml {
  if (invitations.length === 0) return html`<p>No invitation is waiting.</p>`;
  return html`<div class="table-wrap"><table class="table">
<caption class="visually-hidden">Invitations not yet accepted</caption>
<thead><tr><th scope="col">Email</th><th scope="col">Role</th><th scope="col">Invited by</th><th \
scope="col">Link works until</th><th scope="col"><span class="visually-hidden">Actions</span></th></tr></thead>
<tbody>${invitations.map((invitation) => invitationRow(viewer, invitation))}</tbody>
</table></div>`;
}

/** What a GET of /users?done=... confirms. */
const DONE_NOTICES: Readonly<Record<string, string>> = {
  disabled: 'The user is disabled and signed out of this account.',
  revoked: 'The invitation is revoked; its link no longer works.',
};

async function usersPage(
  ctx: SignedInContext,
  extra: {
    invited?: { email: string; url: string };
    errors?: FieldError[];
    email?: string;
    role?: string;
    notice?: string;
  } = {},
): Promise<Answer> {
  const viewer = ctx.viewer;
  const { users } = await ctx.core.holder.listUsers({ sessionToken: ctx.sessionToken });
  const { invitations } = await ctx.core.holder.listInvitations({ sessionToken: ctx.sessionToken });
  const errors = extra.errors ?? [];
  const body = html`<h1>Users</h1>
${
  extra.invited
    ? html`<div class="panel panel--secret" role="region" aria-labelledby="invited-title">
<h2 id="invited-title">Invitation for ${extra.invited.email}</h2>
<p class="warning"><strong>Send this link to ${extra.invited.email} yourself. It will not be shown \
again.</strong> It works once, for 72 hours.</p>
${secretBox('Invitation link', 'invite-url', extra.invited.url)}
</div>`
    : ''
}
<div class="table-wrap" role="region" aria-label="People" tabindex="0"><table class="table table--cards">
<caption class="visually-hidden">People who can sign in to this account</caption>
<thead><tr><th scope="col">Email</th><th scope="col">Role</th><th scope="col">State</th><th \
scope="col">Two-step sign-in</th><th scope="col">Since</th><th scope="col"><span \
class="visually-hidden">Actions</span></th></tr></thead>
<tbody>${users.map((user) => userRow(viewer, user))}</tbody>
</table></div>
<h2>Invitations waiting</h2>
${invitationsTable(viewer, invitations)}
${
  isOwner(viewer)
    ? html`<h2>Invite someone</h2>
<form method="post" action="/users/invite" novalidate>
  ${formFields(viewer)}
  ${field({
    name: 'email',
    label: 'Email address',
    type: 'email',
    value: extra.email ?? '',
    autocomplete: 'off',
    errors,
  })}
  ${select({ name: 'role', label: 'Role', options: ROLE_WORDS, value: extra.role ?? 'viewer', errors })}
  ${
    viewer.session.user?.totpEnabled === true
      ? field({
          name: 'totp_code',
          label: 'Code from your authenticator app',
          hint: 'Needed to invite an owner.',
          inputmode: 'numeric',
          autocomplete: 'one-time-code',
          width: 'input--short',
          errors,
        })
      : ''
  }
  <button type="submit" class="button">Create invitation link</button>
</form>`
    : html`<p class="inset">Only an owner of the account can invite people.</p>`
}`;
  return {
    kind: 'page',
    status: formStatus(errors),
    body: page(
      { title: 'Users', current: '/users', viewer, errors, ...(extra.notice ? { notice: extra.notice } : {}) },
      body,
    ),
  };
}

export const userRoutes: Route[] = [
  {
    method: 'GET',
    path: '/users',
    name: 'users',
    signedIn: true,
    handler: (ctx) => {
      const notice = DONE_NOTICES[ctx.url.searchParams.get('done') ?? ''];
      return usersPage(ctx, notice ? { notice } : {});
    },
  },
  {
    method: 'POST',
    path: '/users/revoke',
    name: 'users_revoke',
    signedIn: true,
    async handler(ctx) {
      await ctx.core.holder.revokeInvitation({
        sessionToken: ctx.sessionToken,
        formAccountId: ctx.formAccountId,
        email: ctx.form.get('email') ?? '',
      });
      return { kind: 'redirect', location: '/users?done=revoked' };
    },
  },
  {
    method: 'POST',
    path: '/users/invite',
    name: 'users_invite',
    signedIn: true,
    async handler(ctx) {
      const email = (ctx.form.get('email') ?? '').trim();
      const roleWord = ctx.form.get('role') ?? 'viewer';
      if (email === '')
        return usersPage(ctx, {
          errors: [{ field: 'email', message: 'Enter the email address of the person to invite' }],
          role: roleWord,
        });
      const role =
        roleWord === 'owner' ? UserRole.OWNER : roleWord === 'viewer' ? UserRole.VIEWER : UserRole.UNSPECIFIED;
      try {
        const totpCode = (ctx.form.get('totp_code') ?? '').replace(/\s+/g, '');
        const { invitation } = await ctx.core.holder.inviteUser({
          sessionToken: ctx.sessionToken,
          formAccountId: ctx.formAccountId,
          email,
          role,
          totpCode,
        });
        if (invitation === undefined) throw new Error('InviteUser answered without an invitation');
        return usersPage(ctx, { invited: { email: invitation.email, url: invitation.inviteUrl } });
      } catch (error) {
        const refusal = refusalOf(error);
        if (refusal.kind !== 'invalid' && refusal.kind !== 'refused') throw error;
        const fieldName = ['totp_code', 'role', 'email'].find((name) => refusal.fields.has(name)) ?? 'email';
        const message = refusal.fields.get(fieldName) ?? refusal.message;
        return usersPage(ctx, { errors: [{ field: fieldName, message }], email, role: roleWord });
      }
    },
  },
  {
    method: 'GET',
    path: '/users/disable',
    name: 'users_disable',
    signedIn: true,
    async handler(ctx) {
      const viewer = ctx.viewer;
      const { users } = await ctx.core.holder.listUsers({ sessionToken: ctx.sessionToken });
      const user = users.find((u) => u.userId === ctx.url.searchParams.get('user'));
      if (user === undefined || user.disabled)
        return {
          kind: 'page',
          status: 404,
          body: page(
            { title: 'User not found', current: '/users', viewer },
            html`<h1>User not found</h1><p><a href="/users">Back to users</a></p>`,
          ),
        };
      const body = confirmPage({
        viewer,
        title: 'Disable a user',
        current: '/users',
        question: `Disable ${user.email}?`,
        warning:
          'They will be signed out of this account at once and cannot come back to it; any other account they ' +
          'belong to is not affected. To let them back in, invite them anew: accepting the invitation ' +
          'enables them again, with the role you choose then.',
        action: '/users/disable',
        hidden: { user: user.userId },
        confirm: 'Disable this user?',
        yes: 'Yes, disable this user',
        no: { label: 'No, keep them', href: '/users' },
      });
      return { kind: 'page', body };
    },
  },
  {
    method: 'POST',
    path: '/users/disable',
    name: 'users_disable',
    signedIn: true,
    async handler(ctx) {
      await ctx.core.holder.disableUser({
        sessionToken: ctx.sessionToken,
        formAccountId: ctx.formAccountId,
        userId: ctx.form.get('user') ?? '',
      });
      return { kind: 'redirect', location: '/users?done=disabled' };
    },
  },
];
