/**
 * Signing in and out. The password step posts email and password to the core's SignIn; when
 * two-step sign-in is on, the core answers with a short-lived challenge, kept in an HttpOnly
 * cookie (never in the URL), and the code step completes it. Wrong credentials, a wrong code
 * and throttling are answers of the core, shown as plain sentences; the core decides them.
 */
import { SignInOutcome } from '../../gen/prepaid/v1/holder_pb.js';
import { SESSION_ENDED_FLAG, SESSION_ENDED_NOTICE } from '../../web/door.js';
import { html } from '../../web/html.js';
import { formStatus } from '../../web/http.js';
import { clearedCookie, readCookies } from '../../web/security.js';
import { CHALLENGE_COOKIE, challengeCookie } from '../cookies.js';
import { csrfField, type FieldError, field, page } from '../layout.js';
import type { Answer, PageContext, Route } from '../route.js';

/** Why the browser came to sign in, from a flag in the address (never anything secret). */
const SIGN_IN_NOTICES: ReadonlyArray<readonly [string, string]> = [
  [SESSION_ENDED_FLAG, SESSION_ENDED_NOTICE],
  ['out', 'You have signed out.'],
  ['welcome', 'Your password is set. Sign in with your email address and the new password.'],
  ['joined', 'The account is added. Sign in as usual; the header lets you switch between your accounts.'],
  ['reset', 'Your new password is set and every earlier session has ended. Sign in with it.'],
];

function signInForm(ctx: PageContext, errors: FieldError[], email = '', notice?: string): Answer {
  const body = html`<h1>Sign in</h1>
<form method="post" action="/sign-in" novalidate>
  ${csrfField(ctx.visitorCsrf)}
  ${field({ name: 'email', label: 'Email address', type: 'email', value: email, autocomplete: 'username', errors })}
  ${field({ name: 'password', label: 'Password', type: 'password', autocomplete: 'current-password', errors })}
  <button type="submit" class="button">Sign in</button>
</form>
<p><a href="/password/forgot">Forgot password?</a></p>
<p>No account yet? <a href="/sign-up">Sign up</a> where this platform is open for it; otherwise its operator \
invites the first person of an account: ask them for an invitation link.</p>`;
  return {
    kind: 'page',
    status: formStatus(errors),
    body: page({ title: 'Sign in', errors, ...(notice ? { notice } : {}) }, body),
  };
}

function codeForm(ctx: PageContext, errors: FieldError[]): Answer {
  const body = html`<h1>Enter your code</h1>
<p>Two-step sign-in is on for this user. Open your authenticator app and enter the 6-digit code it shows for \
the prepaid developer area.</p>
<form method="post" action="/sign-in/code" novalidate>
  ${csrfField(ctx.visitorCsrf)}
  ${field({
    name: 'totp_code',
    label: 'Code',
    hint: 'No phone to hand? Enter one of your recovery codes ' + 'instead; each works once.',
    autocomplete: 'one-time-code',
    width: 'input--short',
    autofocus: true,
    errors,
  })}
  <button type="submit" class="button">Continue</button>
</form>
<p><a href="/sign-in">Start again</a></p>`;
  return {
    kind: 'page',
    status: formStatus(errors),
    body: page({ title: 'Enter your code', errors }, body),
  };
}

function signedIn(ctx: PageContext, sessionToken: string): Answer {
  ctx.startSession(sessionToken);
  ctx.setCookies.push(clearedCookie(CHALLENGE_COOKIE, { secure: ctx.config.secureCookies }));
  return { kind: 'redirect', location: '/' };
}

/** The browser's User-Agent for the core's sign-in notice, bounded (the core cleans it before mailing). */
function userAgent(ctx: PageContext): string {
  return (ctx.req.headers['user-agent'] ?? '').slice(0, 300);
}

function throttled(seconds: number): FieldError {
  const minutes = Math.max(1, Math.ceil(seconds / 60));
  return {
    field: 'email',
    message: `Too many attempts to sign in. Wait ${minutes} minute${minutes === 1 ? '' : 's'}, then try again.`,
  };
}

export const signInRoutes: Route[] = [
  {
    method: 'GET',
    path: '/sign-in',
    name: 'sign_in',
    signedIn: false,
    handler: async (ctx) =>
      signInForm(ctx, [], '', SIGN_IN_NOTICES.find(([flag]) => ctx.url.searchParams.has(flag))?.[1]),
  },
  {
    method: 'POST',
    path: '/sign-in',
    name: 'sign_in',
    signedIn: false,
    async handler(ctx) {
      const email = (ctx.form.get('email') ?? '').trim();
      const password = ctx.form.get('password') ?? '';
      const errors: FieldError[] = [];
      if (email === '') errors.push({ field: 'email', message: 'Enter your email address' });
      if (password === '') errors.push({ field: 'password', message: 'Enter your password' });
      if (errors.length > 0) return signInForm(ctx, errors, email);
      const answer = await ctx.core.holder.signIn({
        email,
        password,
        clientIp: ctx.clientIp,
        userAgent: userAgent(ctx),
      });
      switch (answer.outcome) {
        case SignInOutcome.SIGNED_IN:
          return signedIn(ctx, answer.sessionToken);
        case SignInOutcome.TOTP_REQUIRED:
          ctx.setCookies.push(challengeCookie(answer.challengeToken, { secure: ctx.config.secureCookies }));
          return { kind: 'redirect', location: '/sign-in/code' };
        case SignInOutcome.THROTTLED:
          return { ...signInForm(ctx, [throttled(answer.retryAfterSeconds)], email), status: 429 };
        default:
          return signInForm(
            ctx,
            [{ field: 'email', message: 'The email address or the password is not right' }],
            email,
          );
      }
    },
  },
  {
    method: 'GET',
    path: '/sign-in/code',
    name: 'sign_in_code',
    signedIn: false,
    handler: async (ctx) =>
      readCookies(ctx.req).has(CHALLENGE_COOKIE) ? codeForm(ctx, []) : { kind: 'redirect', location: '/sign-in' },
  },
  {
    method: 'POST',
    path: '/sign-in/code',
    name: 'sign_in_code',
    signedIn: false,
    async handler(ctx) {
      const challengeToken = readCookies(ctx.req).get(CHALLENGE_COOKIE);
      if (challengeToken === undefined) return signInForm(ctx, [], '', 'That sign-in took too long. Sign in again.');
      const code = (ctx.form.get('totp_code') ?? '').replace(/\s+/g, '');
      if (code === '')
        return codeForm(ctx, [{ field: 'totp_code', message: 'Enter the 6-digit code from your authenticator app' }]);
      const answer = await ctx.core.holder.completeSignIn({
        challengeToken,
        totpCode: code,
        clientIp: ctx.clientIp,
        userAgent: userAgent(ctx),
      });
      switch (answer.outcome) {
        case SignInOutcome.SIGNED_IN:
          return signedIn(ctx, answer.sessionToken);
        case SignInOutcome.THROTTLED:
          return { ...codeForm(ctx, [{ ...throttled(answer.retryAfterSeconds), field: 'totp_code' }]), status: 429 };
        default:
          // The core takes a challenge once, right or wrong: a wrong code starts the sign-in again.
          ctx.setCookies.push(clearedCookie(CHALLENGE_COOKIE, { secure: ctx.config.secureCookies }));
          return signInForm(ctx, [
            {
              field: 'email',
              message:
                'The code was not right, or the sign-in took too long. Sign in again and enter the code your ' +
                'app shows now',
            },
          ]);
      }
    },
  },
  {
    method: 'POST',
    path: '/sign-out',
    name: 'sign_out',
    signedIn: true,
    async handler(ctx) {
      await ctx.core.holder.signOut({ sessionToken: ctx.sessionToken });
      ctx.endSession();
      return { kind: 'redirect', location: '/sign-in?out=1' };
    },
  },
];
