/**
 * Security: two-step sign-in (TOTP, RFC 6238) for the signed-in user. Setting it up asks the
 * core for a new secret and shows its QR code (an SVG the core drew from the otpauth:// URI)
 * and the secret in text, on the answer to that POST only; a code from the app turns it on.
 * Turning it on shows ten recovery codes, once. Turning it off needs a current code (or a
 * recovery code); moving it to another app means turning it off first. Every check is the core's.
 */

import { html, type SafeHtml, trusted } from '../../web/html.js';
import { formStatus } from '../../web/http.js';
import { refusalOf } from '../../web/refusal.js';
import { type FieldError, field, formFields, page, secretBox } from '../layout.js';
import type { Answer, Route, SignedInContext } from '../route.js';

const NOTICES: Readonly<Record<string, string>> = {
  on: 'Two-step sign-in is on. You will be asked for a code from your app when you sign in and when you create a key.',
  off: 'Two-step sign-in is off.',
  password: 'Your password is changed. You were signed out everywhere else.',
};

/**
 * The core's QR code, as SVG markup. It is the core's own drawing of the otpauth:// URI (the
 * qrcode library's output), not text anyone typed; the XML prolog, if any, is dropped, and
 * anything that is not plain SVG shapes is refused rather than trusted.
 */
function qrCode(svg: string): SafeHtml {
  const body = svg.replace(/^<\?xml[^>]*>\s*/, '').trim();
  if (!/^<svg[\s>]/.test(body) || /<script|on[a-z]+=|<foreignObject|href=/i.test(body))
    return html`<p>The QR code cannot be shown; type the key below into your app.</p>`;
  return html`<div class="qr">${trusted(body)}</div>`;
}

async function securityPage(
  ctx: SignedInContext,
  extra: { errors?: FieldError[]; notice?: string } = {},
): Promise<Answer> {
  const viewer = ctx.viewer;
  const on = viewer.session.user?.totpEnabled === true;
  const errors = extra.errors ?? [];
  const body = html`<h1>Security</h1>
<p>Which mails about the account's money you receive: <a href="/settings/mail">Mail settings</a>.</p>
<h2>Two-step sign-in</h2>
${
  on
    ? html`<p>Two-step sign-in is <strong>on</strong>. Signing in and creating a key ask for a code from your \
authenticator app.</p>
<form method="post" action="/security/totp/disable" novalidate>
  ${formFields(viewer)}
  ${field({
    name: 'totp_code',
    label: 'Code from your authenticator app',
    hint: 'To turn two-step sign-in off, enter a current code, or one of your recovery codes.',
    autocomplete: 'one-time-code',
    width: 'input--short',
    errors,
  })}
  <button type="submit" class="button button--warning">Turn two-step sign-in off</button>
</form>`
    : html`<p>Two-step sign-in is <strong>off</strong>. With it on, a stolen password is not enough to sign \
in: you also need a code from an authenticator app on your phone.</p>
<form method="post" action="/security/totp/begin">
  ${formFields(viewer)}
  <button type="submit" class="button">Set up two-step sign-in</button>
</form>`
}
<h2>Password</h2>
<form method="post" action="/security/password" novalidate>
  ${formFields(viewer)}
  ${field({
    name: 'current_password',
    label: 'Current password',
    type: 'password',
    autocomplete: 'current-password',
    errors,
  })}
  ${field({
    name: 'new_password',
    label: 'New password',
    type: 'password',
    hint: 'At least 12 characters. Changing it signs you out everywhere else.',
    autocomplete: 'new-password',
    errors,
  })}
  ${
    on
      ? field({
          name: 'password_totp_code',
          label: 'Code from your authenticator app',
          hint: 'Or one of your recovery codes.',
          autocomplete: 'one-time-code',
          width: 'input--short',
          errors,
        })
      : ''
  }
  <button type="submit" class="button">Change password</button>
</form>
<h2>Sessions</h2>
<p>A session ends after 30 minutes without use, and 12 hours after sign-in in any case. Signing out ends it at \
once.</p>`;
  return {
    kind: 'page',
    status: formStatus(errors),
    body: page(
      { title: 'Security', current: '/security', viewer, errors, ...(extra.notice ? { notice: extra.notice } : {}) },
      body,
    ),
  };
}

async function setupPage(ctx: SignedInContext, errors: FieldError[]): Promise<Answer> {
  const viewer = ctx.viewer;
  // After a mistyped code the same secret is shown again, so the entry just scanned stays right.
  let setup: Awaited<ReturnType<typeof ctx.core.holder.beginTotpSetup>>;
  try {
    setup = await ctx.core.holder.beginTotpSetup({ sessionToken: ctx.sessionToken, keepPending: errors.length > 0 });
  } catch (error) {
    return securityPage(ctx, { errors: codeRefusal(error) });
  }
  const body = html`<h1>Set up two-step sign-in</h1>
${
  errors.length > 0
    ? html`<p>The QR code and key below are the ones you scanned already: keep that entry in \
your app.</p>`
    : ''
}
<ol class="steps">
<li>Open an authenticator app on your phone (for example Google Authenticator, Microsoft Authenticator or \
1Password).</li>
<li>Scan this QR code with it.
${qrCode(setup.qrSvg)}
<p>Or type this key into the app:</p>
${secretBox('Setup key', 'totp-secret', setup.secret)}
</li>
<li>Enter the 6-digit code the app shows.
<form method="post" action="/security/totp/confirm" novalidate>
  ${formFields(viewer)}
  ${field({
    name: 'totp_code',
    label: 'Code from your authenticator app',
    inputmode: 'numeric',
    autocomplete: 'one-time-code',
    width: 'input--short',
    errors,
  })}
  <button type="submit" class="button">Turn two-step sign-in on</button>
</form>
</li>
</ol>`;
  return {
    kind: 'page',
    status: formStatus(errors),
    body: page({ title: 'Set up two-step sign-in', current: '/security', viewer, errors }, body),
  };
}

/**
 * The answer to turning two-step sign-in on: the ten recovery codes, on this page only (the
 * core keeps their hashes; the page is not cached, and reloading it cannot show them again).
 */
function recoveryCodesPage(ctx: SignedInContext, codes: readonly string[]): Answer {
  const viewer = ctx.viewer;
  const body = html`<h1>Save your recovery codes</h1>
<div class="panel panel--secret" role="region" aria-labelledby="recovery-title">
<h2 id="recovery-title">Ten recovery codes</h2>
<p class="warning"><strong>Write these down or store them in your password manager now. They will not be shown \
again.</strong></p>
<p>If you lose your phone, enter one of these instead of a code, when you sign in or when a code is asked for. \
Each works once.</p>
<ul class="recovery-codes" id="recovery-codes">${codes.map((code) => html`<li><code>${code}</code></li>`)}</ul>
</div>
<p><a href="/security?done=on" class="button">I have saved my recovery codes</a></p>`;
  return {
    kind: 'page',
    body: page({ title: 'Save your recovery codes', current: '/security', viewer, notice: NOTICES.on! }, body),
  };
}

function codeRefusal(error: unknown): FieldError[] {
  const refusal = refusalOf(error);
  if (refusal.kind !== 'invalid' && refusal.kind !== 'refused') throw error;
  return [{ field: 'totp_code', message: refusal.fields.get('totp_code') ?? refusal.message }];
}

/** The field a refusal of a password change belongs to (the code field has its own name on this page). */
function passwordRefusal(error: unknown): FieldError[] {
  const refusal = refusalOf(error);
  if (refusal.kind !== 'invalid' && refusal.kind !== 'refused') throw error;
  const fields: ReadonlyArray<readonly [string, string]> = [
    ['current_password', 'current_password'],
    ['new_password', 'new_password'],
    ['totp_code', 'password_totp_code'],
  ];
  const found = fields.find(([core]) => refusal.fields.has(core));
  return [
    {
      field: found?.[1] ?? 'current_password',
      message: (found ? refusal.fields.get(found[0]) : undefined) ?? refusal.message,
    },
  ];
}

export const securityRoutes: Route[] = [
  {
    method: 'POST',
    path: '/security/password',
    name: 'password_change',
    signedIn: true,
    async handler(ctx) {
      const current = ctx.form.get('current_password') ?? '';
      const next = ctx.form.get('new_password') ?? '';
      if (current === '')
        return securityPage(ctx, { errors: [{ field: 'current_password', message: 'Enter your current password' }] });
      let sessionToken: string;
      try {
        ({ sessionToken } = await ctx.core.holder.changePassword({
          sessionToken: ctx.sessionToken,
          currentPassword: current,
          newPassword: next,
          totpCode: (ctx.form.get('password_totp_code') ?? '').replace(/\s+/g, ''),
        }));
      } catch (error) {
        return securityPage(ctx, { errors: passwordRefusal(error) });
      }
      // Every earlier session ended with the change, this one too: the browser carries the new one.
      ctx.startSession(sessionToken);
      return { kind: 'redirect', location: '/security?done=password' };
    },
  },
  {
    method: 'GET',
    path: '/security',
    name: 'security',
    signedIn: true,
    handler: (ctx) => {
      const notice = NOTICES[ctx.url.searchParams.get('done') ?? ''];
      return securityPage(ctx, notice ? { notice } : {});
    },
  },
  {
    method: 'POST',
    path: '/security/totp/begin',
    name: 'totp_begin',
    signedIn: true,
    handler: (ctx) => setupPage(ctx, []),
  },
  {
    method: 'POST',
    path: '/security/totp/confirm',
    name: 'totp_confirm',
    signedIn: true,
    async handler(ctx) {
      const code = (ctx.form.get('totp_code') ?? '').replace(/\s+/g, '');
      if (code === '')
        return setupPage(ctx, [{ field: 'totp_code', message: 'Enter the 6-digit code from your authenticator app' }]);
      let recoveryCodes: string[];
      try {
        ({ recoveryCodes } = await ctx.core.holder.confirmTotp({ sessionToken: ctx.sessionToken, totpCode: code }));
      } catch (error) {
        return setupPage(ctx, codeRefusal(error));
      }
      return recoveryCodesPage(ctx, recoveryCodes);
    },
  },
  {
    method: 'POST',
    path: '/security/totp/disable',
    name: 'totp_disable',
    signedIn: true,
    async handler(ctx) {
      const code = (ctx.form.get('totp_code') ?? '').replace(/\s+/g, '');
      if (code === '')
        return securityPage(ctx, {
          errors: [{ field: 'totp_code', message: 'Enter the 6-digit code from your authenticator app' }],
        });
      try {
        await ctx.core.holder.disableTotp({ sessionToken: ctx.sessionToken, totpCode: code });
      } catch (error) {
        return securityPage(ctx, { errors: codeRefusal(error) });
      }
      return { kind: 'redirect', location: '/security?done=off' };
    },
  },
];
