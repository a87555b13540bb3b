/** Signing in (email, password and the mandatory code), the one-time set-up link, and signing out. */
import { StaffSignInOutcome } from '../../gen/prepaid/v1/console_pb.js';
import { SESSION_ENDED_FLAG, SESSION_ENDED_NOTICE } from '../../web/door.js';
import { html, type SafeHtml, trusted } from '../../web/html.js';
import { refusalOf } from '../../web/refusal.js';
import { CSRF_FIELD } from '../../web/security.js';
import { page } from '../layout.js';
import type { Answer, PageContext, Route } from '../route.js';

function errorSummary(message: string): SafeHtml {
  return html`<div class="error-summary" role="alert"><h2>There is a problem</h2><p>${message}</p></div>`;
}

function signInPage(csrf: string, email: string, problem: string, ended: boolean): Answer {
  return {
    kind: 'page',
    status: problem === '' ? 200 : 400,
    body: page(
      'Sign in',
      html`<h1>Sign in</h1>
${ended ? html`<p class="notice">${SESSION_ENDED_NOTICE}</p>` : ''}
${problem === '' ? '' : errorSummary(problem)}
<form method="post" action="/sign-in">
<input type="hidden" name="${CSRF_FIELD}" value="${csrf}">
<label for="email">Email</label><input id="email" name="email" type="email" autocomplete="username" value="${email}" \
required>
<label for="password">Password</label><input id="password" name="password" type="password" \
autocomplete="current-password" required>
<label for="totp_code">Code from your authenticator app</label>
<input id="totp_code" name="totp_code" inputmode="numeric" autocomplete="one-time-code" required>
<button type="submit">Sign in</button>
</form>`,
    ),
  };
}

async function setupPage(ctx: PageContext, problem: string): Promise<Answer> {
  const token = ctx.params[0] ?? '';
  const setup = await ctx.core.getStaffSetup({ setupToken: token });
  return {
    kind: 'page',
    status: problem === '' ? 200 : 400,
    body: page(
      'Set up your sign-in',
      html`<h1>Set up your sign-in</h1>
<p>You are joining as <strong>${setup.role}</strong> with the email <strong>${setup.email}</strong>.</p>
${problem === '' ? '' : errorSummary(problem)}
<p>Add this account to your authenticator app by scanning the code, or type the key.</p>
<div class="qr">${trusted(setup.totpQrSvg)}</div>
<p>Key: <code>${setup.totpSecret}</code></p>
<form method="post" action="/setup/${token}">
<input type="hidden" name="${CSRF_FIELD}" value="${ctx.visitorCsrf}">
<label for="password">Choose a password (at least 12 characters)</label>
<input id="password" name="password" type="password" autocomplete="new-password" required>
<label for="totp_code">Code your app shows now</label>
<input id="totp_code" name="totp_code" inputmode="numeric" autocomplete="one-time-code" required>
<button type="submit">Finish set-up</button>
</form>`,
    ),
  };
}

/** The set-up link's token: 43 base64url characters, nothing else reaches the core. */
const SETUP_PATH = /^\/setup\/([A-Za-z0-9_-]{43})$/;

export const signInRoutes: Route[] = [
  {
    method: 'GET',
    path: '/sign-in',
    name: 'sign_in',
    signedIn: false,
    handler: async (ctx) => signInPage(ctx.visitorCsrf, '', '', ctx.url.searchParams.has(SESSION_ENDED_FLAG)),
  },
  {
    method: 'POST',
    path: '/sign-in',
    name: 'sign_in_post',
    signedIn: false,
    async handler(ctx) {
      const email = ctx.form.get('email') ?? '';
      const answer = await ctx.core.staffSignIn({
        email,
        password: ctx.form.get('password') ?? '',
        totpCode: ctx.form.get('totp_code') ?? '',
        clientAddress: ctx.clientAddress,
      });
      if (answer.outcome === StaffSignInOutcome.SIGNED_IN) {
        ctx.startSession(answer.sessionToken);
        return { kind: 'redirect', location: '/' };
      }
      const problem =
        answer.outcome === StaffSignInOutcome.THROTTLED
          ? `Too many attempts. Wait ${answer.retryAfterSeconds} seconds, then try again.`
          : 'The email, password or code is not right.';
      return signInPage(ctx.visitorCsrf, email, problem, false);
    },
  },
  { method: 'GET', path: SETUP_PATH, name: 'setup', signedIn: false, handler: (ctx) => setupPage(ctx, '') },
  {
    method: 'POST',
    path: SETUP_PATH,
    name: 'setup_post',
    signedIn: false,
    async handler(ctx) {
      try {
        await ctx.core.completeStaffSetup({
          setupToken: ctx.params[0] ?? '',
          password: ctx.form.get('password') ?? '',
          totpCode: ctx.form.get('totp_code') ?? '',
          clientAddress: ctx.clientAddress,
        });
      } catch (error) {
        const refusal = refusalOf(error);
        if (refusal.kind !== 'invalid') throw error;
        return setupPage(ctx, [...refusal.fields.values()][0] ?? refusal.message);
      }
      return { kind: 'redirect', location: '/sign-in' };
    },
  },
  {
    method: 'POST',
    path: '/sign-out',
    name: 'sign_out',
    signedIn: true,
    async handler(ctx) {
      await ctx.core.staffSignOut({ sessionToken: ctx.sessionToken });
      ctx.endSession();
      return { kind: 'redirect', location: '/sign-in' };
    },
  },
];
