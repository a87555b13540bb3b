/**
 * Verifying a signed-up account (docs/sign-up.md): the page the mailed link opens, whose button
 * uses the link (a GET changes nothing, so a mail scanner that fetches links proves nothing),
 * and the signed-in Verify page: the email's state with a new link, the phone's with a code
 * sent by SMS and the form to enter it. The token travels in the link's path and then in the
 * form, never in a query; the core decides every rule (one use, 24 hours, tries, resends).
 */
import type { GetVerificationResponse } from '../../gen/prepaid/v1/holder_pb.js';
import { html, type SafeHtml } from '../../web/html.js';
import { formStatus } from '../../web/http.js';
import { refusalOf } from '../../web/refusal.js';
import { csrfField, type FieldError, field, formFields, isOwner, page } from '../layout.js';
import type { Answer, PageContext, Route, SignedInContext } from '../route.js';
import { askForLevel, levelOf, levelSection } from './verify-level.js';

const VERIFY_NOTICES: Readonly<Record<string, string>> = {
  email: 'Your email address is verified.',
  resent: 'A new link is on its way to your email address.',
  sent: 'The code is on its way by SMS. It works for 10 minutes.',
  phone: 'Your phone number is verified.',
  level: 'Your request is with our staff: we check it and tell you here.',
};

function invalidLink(): Answer {
  return {
    kind: 'page',
    status: 404,
    body: page(
      { title: 'This email link does not work' },
      html`<h1>This email link does not work</h1>
<p>It may have been used already, or it is older than 24 hours. <a href="/sign-in">Sign in</a> and ask for a \
new link on the Verify page.</p>`,
    ),
  };
}

function emailLinkPage(ctx: PageContext, token: string): Answer {
  return {
    kind: 'page',
    status: 200,
    body: page(
      { title: 'Verify your email address' },
      html`<h1>Verify your email address</h1>
<p>Press the button to confirm that this email address is yours.</p>
<form method="post" action="/verify/email" novalidate>
  ${csrfField(ctx.visitorCsrf)}
  <input type="hidden" name="token" value="${token}">
  <button type="submit" class="button">Verify my email</button>
</form>`,
    ),
  };
}

async function useEmailLink(ctx: PageContext): Promise<Answer> {
  try {
    const done = await ctx.core.holder.verifyEmail({ emailToken: ctx.form.get('token') ?? '' });
    const next = done.liveAllowed
      ? 'Live funding and live purchases are open.'
      : 'Verify your mobile number next: sign in and open Verify.';
    return {
      kind: 'page',
      status: 200,
      body: page(
        { title: 'Your email address is verified' },
        html`<h1>Your email address is verified</h1>
<p>${next}</p>
<p><a href="/verify" class="button">Continue</a></p>`,
      ),
    };
  } catch (error) {
    const kind = refusalOf(error).kind;
    if (kind === 'not_found' || kind === 'invalid') return invalidLink();
    throw error;
  }
}

/** The overview's reminder, for an account whose live money waits for its proofs; nothing otherwise. */
export function verificationBanner(state: GetVerificationResponse): SafeHtml | '' {
  if (!state.signedUp || state.liveAllowed) return '';
  return html`<div class="warning" role="alert"><p><strong>Verify your account.</strong> Live funding and live \
purchases open once your email address and mobile number are verified; the test world is open now. \
<a href="/verify">Verify now</a></p></div>`;
}

function verifyPage(
  ctx: SignedInContext,
  state: GetVerificationResponse,
  errors: FieldError[],
  level: SafeHtml | '' = '',
): Answer {
  const { viewer } = ctx;
  const owner = isOwner(viewer);
  const emailPart = state.emailVerified
    ? html`<p>Verified.</p>`
    : html`<p>Not verified yet: open the link we mailed to you. It works once, for 24 hours.</p>
${
  owner
    ? html`<form method="post" action="/verify/email/resend" class="inline-form">${formFields(viewer)}<button \
type="submit" class="button button--secondary">Send a new link</button></form>`
    : ''
}`;
  const phonePart = state.phoneVerified
    ? html`<p>Verified.</p>`
    : owner
      ? html`<p>We send a 6-digit code by SMS to <strong>${state.phoneMasked}</strong>.</p>
<form method="post" action="/verify/phone/send" class="inline-form">${formFields(viewer)}<button type="submit" \
class="button button--secondary">Send me a code</button></form>
<form method="post" action="/verify/phone" novalidate>
  ${formFields(viewer)}
  ${field({
    name: 'code',
    label: 'Code from the SMS',
    autocomplete: 'one-time-code',
    inputmode: 'numeric',
    width: 'input--short',
    errors,
  })}
  <button type="submit" class="button">Verify my phone</button>
</form>`
      : html`<p>Not verified yet; an owner of the account verifies it.</p>`;
  const body = html`<h1>Verify your account</h1>
<p>${
    state.liveAllowed
      ? 'Your email address and mobile number are verified: live funding and live purchases are open.'
      : 'Live funding and live purchases open once both are verified. The test world is open meanwhile.'
  }</p>
<h2>Email address</h2>
${emailPart}
<h2>Mobile number</h2>
${phonePart}
${level}`;
  const notice = VERIFY_NOTICES[ctx.url.searchParams.get('done') ?? ''];
  return {
    kind: 'page',
    status: formStatus(errors),
    body: page({ title: 'Verify your account', viewer, errors, ...(notice ? { notice } : {}) }, body),
  };
}

async function verificationOf(ctx: SignedInContext): Promise<GetVerificationResponse> {
  return ctx.core.holder.getVerification({ sessionToken: ctx.sessionToken });
}

/** A form's step: done, back to the page with a notice; refused, the page with the core's sentence. */
async function step(ctx: SignedInContext, done: string, call: () => Promise<unknown>): Promise<Answer> {
  let errors: FieldError[];
  try {
    await call();
    return { kind: 'redirect', location: `/verify?done=${done}` };
  } catch (error) {
    const refusal = refusalOf(error);
    if (refusal.kind !== 'invalid' && refusal.kind !== 'refused') throw error;
    errors = [{ field: 'code', message: refusal.fields.get('code') ?? refusal.message }];
  }
  return verifyPage(ctx, await verificationOf(ctx), errors);
}

export const verifyRoutes: Route[] = [
  {
    // The link the core mails: DASHBOARD_PUBLIC_URL/verify/email/<token>.
    method: 'GET',
    path: /^\/verify\/email\/([A-Za-z0-9_-]{1,128})$/,
    name: 'verify_email_link',
    signedIn: false,
    handler: async (ctx) => emailLinkPage(ctx, ctx.params[0] ?? ''),
  },
  { method: 'POST', path: '/verify/email', name: 'verify_email', signedIn: false, handler: useEmailLink },
  {
    method: 'GET',
    path: '/verify',
    name: 'verify',
    signedIn: true,
    handler: async (ctx) => {
      const state = await verificationOf(ctx);
      return verifyPage(ctx, state, [], levelSection(ctx, await levelOf(ctx), [], state.liveAllowed));
    },
  },
  {
    method: 'POST',
    path: '/verify/level',
    name: 'verify_level',
    signedIn: true,
    handler: async (ctx) => {
      const asked = await askForLevel(ctx);
      if ('done' in asked) return { kind: 'redirect', location: '/verify?done=level' };
      const state = await verificationOf(ctx);
      return verifyPage(
        ctx,
        state,
        asked.errors,
        levelSection(ctx, await levelOf(ctx), asked.errors, state.liveAllowed),
      );
    },
  },
  {
    method: 'POST',
    path: '/verify/email/resend',
    name: 'verify_email_resend',
    signedIn: true,
    handler: (ctx) =>
      step(ctx, 'resent', () =>
        ctx.core.holder.resendEmailLink({ sessionToken: ctx.sessionToken, formAccountId: ctx.formAccountId }),
      ),
  },
  {
    method: 'POST',
    path: '/verify/phone/send',
    name: 'verify_phone_send',
    signedIn: true,
    handler: (ctx) =>
      step(ctx, 'sent', () =>
        ctx.core.holder.sendPhoneCode({ sessionToken: ctx.sessionToken, formAccountId: ctx.formAccountId }),
      ),
  },
  {
    method: 'POST',
    path: '/verify/phone',
    name: 'verify_phone',
    signedIn: true,
    handler: (ctx) =>
      step(ctx, 'phone', () =>
        ctx.core.holder.confirmPhoneCode({
          sessionToken: ctx.sessionToken,
          formAccountId: ctx.formAccountId,
          code: (ctx.form.get('code') ?? '').slice(0, 20),
        }),
      ),
  },
];
