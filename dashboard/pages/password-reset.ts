/**
 * "Forgot password?": a form asking for the email, whose answer is the same whether or not the
 * email is anyone's (the core decides in the background and mails a link if so), and the page
 * the mailed link opens, which sets a new password once. The token travels in the link's path
 * and then in the form, never in a log line (request lines name the route only); the page is not
 * cached and Referrer-Policy: no-referrer keeps the address from other sites, as for invitations.
 * Without a mail server in the core the form says to ask the operator, who can print a link.
 */

import { html } from '../../web/html.js';
import { formStatus } from '../../web/http.js';
import { refusalOf } from '../../web/refusal.js';
import { lagosTime } from '../format.js';
import { csrfField, type FieldError, field, page } from '../layout.js';
import type { Answer, PageContext, Route } from '../route.js';

const PASSWORD_HINT = 'At least 12 characters. Setting it signs you out everywhere.';

function askForm(ctx: PageContext, errors: FieldError[], email = '', status?: number): Answer {
  const body = html`<h1>Reset your password</h1>
<p>Enter the email address you sign in with. If it belongs to a user, we mail a link to it that lets you \
choose a new password. The link works once, for one hour.</p>
<form method="post" action="/password/forgot" novalidate>
  ${csrfField(ctx.visitorCsrf)}
  ${field({
    name: 'email',
    label: 'Email address',
    type: 'email',
    value: email,
    autocomplete: 'username',
    autofocus: true,
    errors,
  })}
  <button type="submit" class="button">Send the link</button>
</form>
<p><a href="/sign-in">Back to sign in</a></p>`;
  return {
    kind: 'page',
    status: status ?? formStatus(errors),
    body: page({ title: 'Reset your password', errors }, body),
  };
}

function sentPage(email: string): Answer {
  return {
    kind: 'page',
    status: 200,
    body: page(
      { title: 'Check your email' },
      html`<h1>Check your email</h1>
<p>If <strong>${email}</strong> belongs to a user of the developer area, a link to choose a new password is on \
its way. It works once, for one hour.</p>
<p>Nothing arrived after a few minutes? Look in your spam folder, check the address, or <a \
href="/password/forgot">ask again</a>.</p>
<p><a href="/sign-in">Back to sign in</a></p>`,
    ),
  };
}

function noMailPage(): Answer {
  return {
    kind: 'page',
    status: 200,
    body: page(
      { title: 'Ask the operator for a reset link' },
      html`<h1>Ask the operator for a reset link</h1>
<p>This platform does not send email. Ask its operator for a password reset link: they can make one that works \
once, for one hour.</p>
<p><a href="/sign-in">Back to sign in</a></p>`,
    ),
  };
}

function invalidLink(): Answer {
  return {
    kind: 'page',
    status: 404,
    body: page(
      { title: 'This reset link does not work' },
      html`<h1>This reset link does not work</h1>
<p>It may have been used already, or it is older than an hour. <a href="/password/forgot">Ask for a new link</a>.</p>
<p><a href="/sign-in">Sign in</a> if you have set your new password already.</p>`,
    ),
  };
}

async function resetForm(ctx: PageContext, token: string, errors: FieldError[]): Promise<Answer> {
  let reset: Awaited<ReturnType<typeof ctx.core.holder.getPasswordReset>>;
  try {
    reset = await ctx.core.holder.getPasswordReset({ resetToken: token });
  } catch (error) {
    const kind = refusalOf(error).kind;
    if (kind === 'not_found' || kind === 'invalid') return invalidLink();
    throw error;
  }
  const body = html`<h1>Choose a new password</h1>
<p>For <strong>${reset.email}</strong>. This link works once, until ${lagosTime(reset.expiresAt)}.</p>
<form method="post" action="/password/reset" novalidate>
  ${csrfField(ctx.visitorCsrf)}
  <input type="hidden" name="token" value="${token}">
  ${field({
    name: 'password',
    label: 'New password',
    type: 'password',
    hint: PASSWORD_HINT,
    autocomplete: 'new-password',
    errors,
  })}
  ${field({
    name: 'password_again',
    label: 'New password again',
    type: 'password',
    autocomplete: 'new-password',
    errors,
  })}
  <button type="submit" class="button">Set new password</button>
</form>`;
  return {
    kind: 'page',
    status: formStatus(errors),
    body: page({ title: 'Choose a new password', errors }, body),
  };
}

export const passwordResetRoutes: Route[] = [
  {
    method: 'GET',
    path: '/password/forgot',
    name: 'password_forgot',
    signedIn: false,
    handler: async (ctx) => askForm(ctx, []),
  },
  {
    method: 'POST',
    path: '/password/forgot',
    name: 'password_forgot',
    signedIn: false,
    async handler(ctx) {
      const email = (ctx.form.get('email') ?? '').trim();
      if (email === '') return askForm(ctx, [{ field: 'email', message: 'Enter your email address' }]);
      if (email.length > 254 || !/^[^\s@]+@[^\s@]+$/.test(email))
        return askForm(ctx, [{ field: 'email', message: 'Enter an email address like name@example.com' }], email);
      const answer = await ctx.core.holder.requestPasswordReset({ email, clientIp: ctx.clientIp });
      if (!answer.mailConfigured) return noMailPage();
      if (answer.retryAfterSeconds > 0) {
        const minutes = Math.max(1, Math.ceil(answer.retryAfterSeconds / 60));
        return askForm(
          ctx,
          [
            {
              field: 'email',
              message: `Too many reset links were asked for. Wait ${minutes} minute${
                minutes === 1 ? '' : 's'
              }, then try again.`,
            },
          ],
          email,
          429,
        );
      }
      return sentPage(email);
    },
  },
  {
    // The link the core makes: DASHBOARD_PUBLIC_URL/reset/<token>.
    method: 'GET',
    path: /^\/reset\/([A-Za-z0-9_-]{1,128})$/,
    name: 'password_reset',
    signedIn: false,
    handler: (ctx) => resetForm(ctx, ctx.params[0] ?? '', []),
  },
  {
    method: 'POST',
    path: '/password/reset',
    name: 'password_reset',
    signedIn: false,
    async handler(ctx) {
      const token = ctx.form.get('token') ?? '';
      const password = ctx.form.get('password') ?? '';
      if (token === '') return invalidLink();
      if (password === '') return resetForm(ctx, token, [{ field: 'password', message: 'Enter a new password' }]);
      // Typing the same twice is about the person's fingers, not a business rule.
      if (password !== (ctx.form.get('password_again') ?? ''))
        return resetForm(ctx, token, [{ field: 'password_again', message: 'The two passwords are not the same' }]);
      try {
        await ctx.core.holder.resetPassword({ resetToken: token, password });
      } catch (error) {
        const refusal = refusalOf(error);
        if (refusal.kind === 'not_found') return invalidLink();
        if (refusal.kind === 'invalid')
          return resetForm(ctx, token, [
            { field: 'password', message: refusal.fields.get('password') ?? refusal.message },
          ]);
        throw error;
      }
      return { kind: 'redirect', location: '/sign-in?reset=1' };
    },
  },
];
