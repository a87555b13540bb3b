/**
 * What staff change on an account's page, and creating an account: each is one ConsoleService
 * ManageAccount call, by the use case the CLI's command calls (`prepaid accounts create`,
 * `users invite`, `users disable`, `users reset-password`, `users reset-2fa`, `accounts
 * set-tier`, `keys revoke`), which the core allows by role and audits with the member. A link
 * (an invitation, a password reset) is shown once on the page that answers, never in an address.
 */
import type { MessageInitShape } from '@bufbuild/protobuf';
import type { GetAccountOverviewResponse, ManageAccountRequestSchema } from '../../gen/prepaid/v1/console_pb.js';
import { UserRole } from '../../gen/prepaid/v1/holder_pb.js';
import { html, type SafeHtml } from '../../web/html.js';
import { refusalOf } from '../../web/refusal.js';
import { csrfField, page, type StaffViewer } from '../layout.js';
import type { Answer, Route, SignedInContext } from '../route.js';
import { errorSummary, field, pageAnswer, select, session } from './forms.js';

const accountPath = (accountId: string) => `/accounts/${encodeURIComponent(accountId)}`;

/** A form of one button posting one change of the account; `fields` the inputs it takes. */
function changeForm(viewer: StaffViewer, accountId: string, what: string, label: string, fields: SafeHtml = html``) {
  return html`<form method="post" action="${accountPath(accountId)}/manage/${what}" class="inline-form">\
${csrfField(viewer)}${fields}<button type="submit">${label}</button></form>`;
}

/** The account page's people, tier and keys, each with the change staff may make. */
export function accountActions(viewer: StaffViewer, o: GetAccountOverviewResponse): SafeHtml {
  const id = o.account!.accountId;
  const userField = (userId: string) => html`<input type="hidden" name="user_id" value="${userId}">`;
  return html`<section><h2>Users</h2>${
    o.users.length === 0
      ? html`<p>None.</p>`
      : o.users.map(
          (u) =>
            html`<div class="item" data-user="${u.email}"><p>${u.email}${u.disabled ? ' (disabled)' : ''}</p>${
              u.disabled
                ? ''
                : html`${changeForm(viewer, id, 'reset-password', 'Send a password reset link', userField(u.userId))}
${changeForm(viewer, id, 'reset-two-step', 'Turn two-step sign-in off', userField(u.userId))}
${changeForm(viewer, id, 'disable-user', 'Disable the user', userField(u.userId))}`
            }</div>`,
        )
  }
<h3>Invite a user</h3>
${changeForm(
  viewer,
  id,
  'invite',
  'Invite',
  html`<label for="invite-email">Email</label><input id="invite-email" name="email" type="email" required>
<label for="invite-role">Role</label>${select('invite-role', 'role', ['owner', 'viewer'], 'owner')}`,
)}</section>
<section><h2>Tier</h2>${changeForm(
    viewer,
    id,
    'tier',
    'Change the tier',
    html`<label for="tier-id">Tier (now ${o.account!.tierId})</label><input id="tier-id" name="tier_id" required>`,
  )}</section>
<section><h2>Keys</h2>${
    o.keys.length === 0
      ? html`<p>None.</p>`
      : html`<ul>${o.keys.map(
          (k) =>
            html`<li data-key="${k.publicKey}">${k.publicKey}${
              k.revoked
                ? ' (revoked)'
                : changeForm(
                    viewer,
                    id,
                    'revoke-key',
                    'Revoke the key',
                    html`<input type="hidden" name="public_key" value="${k.publicKey}">`,
                  )
            }</li>`,
        )}</ul>`
  }</section>`;
}

/** The change a form names, as the core's request; undefined for a name no form sends. */
function changeOf(
  what: string,
  accountId: string,
  ctx: SignedInContext,
): MessageInitShape<typeof ManageAccountRequestSchema>['change'] | undefined {
  const userId = field(ctx, 'user_id');
  switch (what) {
    case 'invite':
      return {
        case: 'inviteUser',
        value: {
          accountId,
          email: field(ctx, 'email'),
          role: field(ctx, 'role') === 'viewer' ? UserRole.VIEWER : UserRole.OWNER,
        },
      };
    case 'disable-user':
      return { case: 'disableUser', value: { userId } };
    case 'reset-password':
      return { case: 'resetPassword', value: { userId } };
    case 'reset-two-step':
      return { case: 'resetTwoStep', value: { userId } };
    case 'tier':
      return { case: 'setTier', value: { accountId, tierId: field(ctx, 'tier_id') } };
    case 'revoke-key':
      return { case: 'revokeKey', value: { publicKey: field(ctx, 'public_key') } };
    default:
      return undefined;
  }
}

const DONE: Record<string, string> = {
  invite: 'invited',
  'disable-user': 'the user is disabled',
  'reset-password': 'a password reset link was made',
  'reset-two-step': 'two-step sign-in is off for the user',
  tier: 'the tier is changed',
  'revoke-key': 'the key is revoked',
};

/** The core's refusal of a form's value, as the form's sentence; anything else is thrown on. */
function formProblem(error: unknown): string {
  const refusal = refusalOf(error);
  if (refusal.kind !== 'invalid' && refusal.kind !== 'refused' && refusal.kind !== 'not_found') throw error;
  const sentences = [...new Set(refusal.fields.values())];
  return sentences.length > 0 ? sentences.join(' ') : refusal.message;
}

async function manage(ctx: SignedInContext): Promise<Answer> {
  const accountId = ctx.params[0]!;
  const what = ctx.params[1]!;
  const change = changeOf(what, accountId, ctx);
  if (change === undefined)
    return { kind: 'page', status: 404, body: page('Not found', html`<h1>Not found</h1>`, ctx.viewer) };
  const back = html`<p><a href="${accountPath(accountId)}">Back to the account</a></p>`;
  try {
    const done = await ctx.core.manageAccount({ ...session(ctx), accountId, change });
    if (done.link === '') {
      return { kind: 'redirect', location: `${accountPath(accountId)}?done=${encodeURIComponent(DONE[what] ?? what)}` };
    }
    // Shown here once: never in an address, never again.
    const body = html`<h1>${what === 'invite' ? 'Invitation made' : 'Password reset link made'}</h1>
<p class="notice" role="status">Done: ${DONE[what] ?? what}${done.mailed ? ' (also mailed to them)' : ''}.</p>
<p>Hand this link to the person; it is shown once:</p><p><code class="link" data-link>${done.link}</code></p>${back}`;
    return { kind: 'page', body: page('Link made', body, ctx.viewer) };
  } catch (error) {
    const problem = formProblem(error);
    return pageAnswer(
      page('There is a problem', html`<h1>Not changed</h1>${errorSummary(problem)}${back}`, ctx.viewer),
      problem,
    );
  }
}

function newAccountForm(ctx: SignedInContext, problem: string): Answer {
  const body = html`<h1>Create an account</h1>${errorSummary(problem)}
<form method="post" action="/accounts/new">${csrfField(ctx.viewer)}
<label for="name">Name (1 to 100 characters)</label><input id="name" name="name" value="${field(ctx, 'name')}" required>
<label for="tier_id">Tier (empty: the default)</label><input id="tier_id" name="tier_id" value="${field(ctx, 'tier_id')}">
<p>On a tier with API access, an owner makes its first key pair in the developer area: staff never see a secret.</p>
<button type="submit">Create the account</button></form>`;
  return pageAnswer(page('Create an account', body, ctx.viewer), problem);
}

export const newAccountRoutes: Route[] = [
  {
    method: 'GET',
    path: '/accounts/new',
    name: 'account_new',
    signedIn: true,
    handler: async (ctx) => newAccountForm(ctx, ''),
  },
  {
    method: 'POST',
    path: '/accounts/new',
    name: 'account_create',
    signedIn: true,
    async handler(ctx) {
      try {
        const done = await ctx.core.manageAccount({
          ...session(ctx),
          change: {
            case: 'createAccount',
            value: { name: field(ctx, 'name'), tierId: field(ctx, 'tier_id') },
          },
        });
        return {
          kind: 'redirect',
          location: `${accountPath(done.accountId)}?done=${encodeURIComponent('the account is made')}`,
        };
      } catch (error) {
        return newAccountForm(ctx, formProblem(error));
      }
    },
  },
  {
    method: 'POST',
    path: /^\/accounts\/([A-Za-z0-9_.%-]{1,96})\/manage\/([a-z-]{1,20})$/,
    name: 'account_manage',
    signedIn: true,
    handler: manage,
  },
];
