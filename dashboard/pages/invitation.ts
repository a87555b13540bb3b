/**
 * Accepting an invitation: the link the operator (or an owner) passed on opens this page with
 * the token; a new invitee sets a password, someone who already signs in to the developer area
 * (for another account) enters the password they have and joins this account with it; either
 * is then sent to sign in. The token travels in the
 * link's path and then in the form, never in a log line (request lines name the route only),
 * and the page is not cached; Referrer-Policy: no-referrer keeps the address from other sites.
 * The password's rules are the core's: its refusal is shown beside the field.
 */
import { UserRole } from '../../gen/prepaid/v1/holder_pb.js';
import { html } from '../../web/html.js';
import { formStatus } from '../../web/http.js';
import { refusalOf } from '../../web/refusal.js';
import { lagosTime } from '../format.js';
import { csrfField, type FieldError, field, page } from '../layout.js';
import type { Answer, PageContext, Route } from '../route.js';

/** What the page tells the invitee; the core's own minimum is what counts. */
const PASSWORD_HINT = 'At least 12 characters. A few unrelated words make a long password that is easy to remember.';

function invalidLink(): Answer {
  return {
    kind: 'page',
    status: 404,
    body: page(
      { title: 'This invitation link does not work' },
      html`<h1>This invitation link does not work</h1>
<p>It may have been used already, withdrawn, or it is older than 72 hours. Ask the person who invited you for \
a new link.</p>
<p><a href="/sign-in">Sign in</a> if you have set your password already.</p>`,
    ),
  };
}

async function form(ctx: PageContext, token: string, errors: FieldError[]): Promise<Answer> {
  let invitation: Awaited<ReturnType<typeof ctx.core.holder.getInvitation>>;
  try {
    invitation = await ctx.core.holder.getInvitation({ invitationToken: token });
  } catch (error) {
    if (refusalOf(error).kind === 'not_found' || refusalOf(error).kind === 'invalid') return invalidLink();
    throw error;
  }
  const role = invitation.role === UserRole.OWNER ? 'an owner' : 'a viewer';
  if (invitation.hasPassword) {
    const joinBody = html`<h1>Join ${invitation.accountName}</h1>
<p>You are invited to the developer area of <strong>${invitation.accountName}</strong> as ${role}.
Your email address, <strong>${invitation.email}</strong>, already signs in to the developer area: enter your \
password to add this account to it. This link works once, until ${lagosTime(invitation.expiresAt)}.</p>
<form method="post" action="/invitation" novalidate>
  ${csrfField(ctx.visitorCsrf)}
  <input type="hidden" name="token" value="${token}">
  <input type="hidden" name="join" value="1">
  ${field({ name: 'password', label: 'Your password', type: 'password', autocomplete: 'current-password', errors })}
  <button type="submit" class="button">Join ${invitation.accountName}</button>
</form>`;
    return {
      kind: 'page',
      status: formStatus(errors),
      body: page({ title: 'Join an account', errors }, joinBody),
    };
  }
  const body = html`<h1>Set your password</h1>
<p>You are invited to the developer area of <strong>${invitation.accountName}</strong> as ${role}.
Your email address is <strong>${invitation.email}</strong>. This link works once, until \
${lagosTime(invitation.expiresAt)}.</p>
<form method="post" action="/invitation" novalidate>
  ${csrfField(ctx.visitorCsrf)}
  <input type="hidden" name="token" value="${token}">
  ${field({
    name: 'password',
    label: 'Password',
    type: 'password',
    hint: PASSWORD_HINT,
    autocomplete: 'new-password',
    errors,
  })}
  ${field({ name: 'password_again', label: 'Password again', type: 'password', autocomplete: 'new-password', errors })}
  <button type="submit" class="button">Set password</button>
</form>`;
  return {
    kind: 'page',
    status: formStatus(errors),
    body: page({ title: 'Set your password', errors }, body),
  };
}

export const invitationRoutes: Route[] = [
  {
    // The link the core makes: DASHBOARD_PUBLIC_URL/invite/<token>.
    method: 'GET',
    path: /^\/invite\/([A-Za-z0-9_-]{1,128})$/,
    name: 'invitation',
    signedIn: false,
    handler: (ctx) => form(ctx, ctx.params[0] ?? '', []),
  },
  {
    method: 'POST',
    path: '/invitation',
    name: 'invitation',
    signedIn: false,
    async handler(ctx) {
      const token = ctx.form.get('token') ?? '';
      const password = ctx.form.get('password') ?? '';
      if (token === '') return invalidLink();
      if (password === '') return form(ctx, token, [{ field: 'password', message: 'Enter a password' }]);
      // Typing the same twice is about the person's fingers, not a business rule. Joining with
      // an existing password types it once; the core checks it either way.
      if (ctx.form.get('join') !== '1' && password !== (ctx.form.get('password_again') ?? ''))
        return form(ctx, token, [{ field: 'password_again', message: 'The two passwords are not the same' }]);
      try {
        await ctx.core.holder.acceptInvitation({ invitationToken: token, password, clientIp: ctx.clientIp });
      } catch (error) {
        const refusal = refusalOf(error);
        if (refusal.kind === 'not_found') return invalidLink();
        if (refusal.kind === 'invalid' || refusal.kind === 'refused')
          return form(ctx, token, [{ field: 'password', message: refusal.fields.get('password') ?? refusal.message }]);
        throw error;
      }
      return { kind: 'redirect', location: ctx.form.get('join') === '1' ? '/sign-in?joined=1' : '/sign-in?welcome=1' };
    },
  },
];
