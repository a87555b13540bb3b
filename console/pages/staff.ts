/**
 * Staff management (admin): the members, inviting one (the one-time set-up link is shown on
 * the page that answers the invitation, once, as `prepaid staff invite` prints it), changing a
 * member's role and disabling a member (their sessions end). The core refuses to disable or
 * demote the last active admin, and every change is audited with the member who made it.
 */
import { STAFF_ROLES } from '../../core/domain/staff.js';
import type { StaffMember } from '../../gen/prepaid/v1/console_pb.js';
import { html, type SafeHtml } from '../../web/html.js';
import { csrfField, page, type StaffViewer } from '../layout.js';
import type { Answer, Route, SignedInContext } from '../route.js';
import { when } from '../time.js';
import { change, doneNotice, errorSummary, field, pageAnswer, select, session } from './forms.js';

const BACK = '/staff';

function memberItem(viewer: StaffViewer, m: StaffMember, index: number): SafeHtml {
  const state = m.disabled ? 'disabled' : m.setUp ? 'active' : 'invited, not set up yet';
  return html`<div class="item" data-member="${m.email}"><dl><dt>Email</dt><dd>${m.email}</dd><dt>Role</dt>\
<dd>${m.role}</dd>
<dt>State</dt><dd>${state}</dd><dt>Since</dt><dd>${when(m.createdAt)}</dd>
${
  m.newToPowers
    ? html`<dt>Four eyes</dt><dd class="flag">New to this role since ${when(m.powersSince)}: may not approve \
proposals by ${m.invitedBy || 'whoever invited them'} yet</dd>`
    : ''
}</dl>
${
  m.disabled
    ? ''
    : html`<form method="post" action="/staff/role">${csrfField(viewer)}<input type="hidden" name="email" \
value="${m.email}">
<label for="role${index}">Role of ${m.email}</label>${select(`role${index}`, 'role', STAFF_ROLES, m.role)}
<button type="submit">Change the role</button></form>
<form method="post" action="/staff/disable">${csrfField(viewer)}<input type="hidden" name="email" value="${m.email}">
<button type="submit" class="warning">Disable ${m.email}</button></form>`
}</div>`;
}

async function staffPage(ctx: SignedInContext, problem = ''): Promise<Answer> {
  const viewer = ctx.viewer;
  const { members } = await ctx.core.listStaffMembers(session(ctx));
  const body = html`<h1>Staff</h1>
${doneNotice(ctx)}${errorSummary(problem)}
<p>Support reads everything and resolves pending purchases; finance also proposes and approves money moves; admin also \
manages staff, the catalogue and the settings.</p>
<section><h2>Invite a member</h2>
<form method="post" action="/staff/invite">${csrfField(viewer)}
<label for="invite_email">Email</label><input id="invite_email" name="email" type="email" required>
<label for="invite_role">Role</label>${select('invite_role', 'role', STAFF_ROLES, 'support')}
<button type="submit">Invite</button></form></section>
<section><h2>Members (${members.length})</h2>${members.map((m, i) => memberItem(viewer, m, i))}</section>`;
  return pageAnswer(page('Staff', body, viewer), problem);
}

export const staffRoutes: Route[] = [
  { method: 'GET', path: BACK, name: 'staff', signedIn: true, handler: (ctx) => staffPage(ctx) },
  {
    method: 'POST',
    path: '/staff/invite',
    name: 'invite_staff',
    signedIn: true,
    async handler(ctx) {
      let invited: { email: string; role: string; url: string; mailed: boolean } | undefined;
      const answer = await change(
        BACK,
        (problem) => staffPage(ctx, problem),
        async () => {
          const { member, setupUrl, mailed } = await ctx.core.inviteStaffMember({
            ...session(ctx),
            email: field(ctx, 'email'),
            role: field(ctx, 'role'),
          });
          invited = { email: member?.email ?? '', role: member?.role ?? '', url: setupUrl, mailed };
          return 'invited';
        },
      );
      if (invited === undefined) return answer;
      // The link is on this answer only: never in an address, never shown again. A finance or
      // admin link the core mailed to the invitee is not shown here at all.
      const body = invited.mailed
        ? html`<h1>${invited.email} is invited as ${invited.role}</h1>
<p id="setup-mailed">Their set-up link was mailed to ${invited.email}, and to nobody else: it is not shown here. \
It works once, for 72 hours.</p>
<p><a href="${BACK}">Back to the staff</a></p>`
        : html`<h1>${invited.email} is invited as ${invited.role}</h1>
<p>Send this set-up link to them only. Whoever opens it first sets the password and the two-step code; it works once, \
for 72 hours, and is not shown again.</p>
<p><code class="setup-link">${invited.url}</code></p>
<p><a href="${BACK}">Back to the staff</a></p>`;
      return { kind: 'page', body: page('Invited', body, ctx.viewer) };
    },
  },
  {
    method: 'POST',
    path: '/staff/role',
    name: 'set_staff_role',
    signedIn: true,
    async handler(ctx) {
      const email = field(ctx, 'email');
      return change(
        BACK,
        (problem) => staffPage(ctx, problem),
        async () => {
          const { member } = await ctx.core.setStaffRole({ ...session(ctx), email, role: field(ctx, 'role') });
          return `${member?.email ?? email} is ${member?.role ?? ''}`;
        },
      );
    },
  },
  {
    method: 'POST',
    path: '/staff/disable',
    name: 'disable_staff',
    signedIn: true,
    async handler(ctx) {
      const email = field(ctx, 'email');
      return change(
        BACK,
        (problem) => staffPage(ctx, problem),
        async () => {
          await ctx.core.disableStaffMember({ ...session(ctx), email });
          return `${email} is disabled; their sessions are ended`;
        },
      );
    },
  },
];
