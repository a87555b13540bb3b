/**
 * Mail settings (/settings/mail): which mails about the account's money and access the signed-in
 * person receives: a credit to the live wallet, a debit of it by the platform's staff, API access
 * approved. Each person chooses for themselves; the core keeps the choice and its mail workers
 * read it (core/mail/holder-notices.ts). Mails about signing in and keys are always sent.
 */
import { html } from '../../web/html.js';
import { formFields, page } from '../layout.js';
import type { Answer, Route, SignedInContext } from '../route.js';

/** The mails one may turn off, as the core names them, with what the page says of each. */
const MAILS: ReadonlyArray<readonly [string, string, string]> = [
  ['wallet_credited', 'Money arrived', 'When a bank transfer or the platform credits the live wallet.'],
  ['wallet_debited', 'Money taken out by the platform', "When the platform's staff debit the live wallet by hand."],
  ['api_access_approved', 'API access approved', 'When the platform approves your request for API access.'],
];

async function settingsPage(ctx: SignedInContext): Promise<Answer> {
  const { off } = await ctx.core.holder.getMailSettings({ sessionToken: ctx.sessionToken });
  const saved = ctx.url.searchParams.get('saved') === '1';
  const body = html`<p><a href="/security" class="back-link">Security</a></p>
<h1>Mail settings</h1>
<p>Choose which of these mails you receive at ${ctx.viewer.session.user?.email ?? 'your address'}. They go to \
the account's owners; mails about signing in, passwords and key pairs are always sent.</p>
<form method="post" action="/settings/mail" novalidate>
  ${formFields(ctx.viewer)}
  <fieldset class="form-group">
  <legend class="label">Send me a mail</legend>
  ${MAILS.map(
    ([kind, label, hint]) => html`<div class="form-group checkbox">
    <input type="checkbox" id="mail-${kind}" name="on" value="${kind}"${off.includes(kind) ? '' : html` checked`} \
aria-describedby="mail-${kind}-hint">
    <label for="mail-${kind}">${label}</label>
  </div>
  <p class="hint checkbox-hint" id="mail-${kind}-hint">${hint}</p>`,
  )}
  </fieldset>
  <div class="button-group"><button type="submit" class="button">Save mail settings</button></div>
</form>`;
  return {
    kind: 'page',
    body: page(
      {
        title: 'Mail settings',
        current: '/security',
        viewer: ctx.viewer,
        ...(saved ? { notice: 'Your mail settings are saved.' } : {}),
      },
      body,
    ),
  };
}

export const mailSettingsRoutes: Route[] = [
  { method: 'GET', path: '/settings/mail', name: 'mail_settings', signedIn: true, handler: settingsPage },
  {
    method: 'POST',
    path: '/settings/mail',
    name: 'mail_settings_save',
    signedIn: true,
    async handler(ctx) {
      const on = new Set(ctx.form.getAll('on'));
      // What is not ticked is turned off; the core refuses a word it does not know.
      const off = MAILS.map(([kind]) => kind).filter((kind) => !on.has(kind));
      await ctx.core.holder.setMailSettings({ sessionToken: ctx.sessionToken, off });
      return { kind: 'redirect', location: '/settings/mail?saved=1' };
    },
  },
];
