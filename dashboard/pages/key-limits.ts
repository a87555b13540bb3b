/**
 * One key's limits and its roll, for owners: a form per key that sets its scopes and caps
 * (per purchase, per Africa/Lagos day), and a form that rolls it (a new pair, its secret shown
 * once on the keys page as a new pair's is; the old one works for the grace hours given). The
 * core checks every value by the operator's own rule and decides who may (owners only); this
 * page only turns the typed Naira into kobo and shows the core's refusals beside their fields.
 * Both ask for a current code when the owner has two-step sign-in on, as creating a key does.
 */
import { KEY_SCOPES } from '../../core/domain/key-controls.js';
import type { HolderApiKey } from '../../gen/prepaid/v1/holder_pb.js';
import { html, type SafeHtml } from '../../web/html.js';
import { formStatus } from '../../web/http.js';
import { refusalOf } from '../../web/refusal.js';
import { type FieldError, field, formFields, page } from '../layout.js';
import { newKeyPairs } from '../once.js';
import type { Answer, Route, SignedInContext } from '../route.js';
import { koboOfInput } from './funds.js';
import { ended, findKey, notFound } from './keys.js';

/** The grace period a roll offers first, in hours, as the admin's default. */
const DEFAULT_GRACE_HOURS = '24';
const SCOPES_HINT = `Separated by commas, any of: ${KEY_SCOPES.join(', ')} ("all" is everything). Empty is everything.`;

interface LimitsValues {
  scopes: string;
  capPerPurchase: string;
  capPerDay: string;
}

function nairaValue(amountKobo: bigint): string {
  if (amountKobo === 0n) return '';
  const whole = amountKobo / 100n;
  const part = amountKobo % 100n;
  return part === 0n ? whole.toString() : `${whole}.${part.toString().padStart(2, '0')}`;
}

export function totpField(ctx: SignedInContext, errors: readonly FieldError[], why: string): SafeHtml | string {
  if (ctx.viewer.session.user?.totpEnabled !== true) return '';
  return field({
    name: 'totp_code',
    label: 'Code from your authenticator app',
    hint: `Two-step sign-in is on, so ${why} needs a current code.`,
    inputmode: 'numeric',
    autocomplete: 'one-time-code',
    width: 'input--short',
    errors,
  });
}

/** The core's refusal as field errors: each violation beside its field, else beside `fallback`. */
export function refusalErrors(error: unknown, fields: readonly string[], fallback: string): FieldError[] {
  const refusal = refusalOf(error);
  if (refusal.kind !== 'invalid' && refusal.kind !== 'refused') throw error;
  const errors = [...refusal.fields]
    .filter(([name]) => fields.includes(name))
    .map(([name, message]) => ({ field: name, message }));
  return errors.length > 0 ? errors : [{ field: fallback, message: refusal.message }];
}

function limitsForm(ctx: SignedInContext, key: HolderApiKey, values: LimitsValues, errors: FieldError[]): Answer {
  const viewer = ctx.viewer;
  const body = html`<h1>Limits of <code class="break">${key.publicKey}</code></h1>
<p>What requests with this key may call, and how much its purchases may charge. A purchase over a cap is \
refused before any money moves.</p>
<form method="post" action="${ctx.link('/keys/limits')}" novalidate>
  ${formFields(viewer)}
  <input type="hidden" name="key" value="${key.publicKey}">
  ${field({ name: 'scopes', label: 'Scopes', hint: SCOPES_HINT, value: values.scopes, errors })}
  ${field({
    name: 'cap_per_purchase',
    label: 'Most one purchase may charge, in Naira (optional)',
    hint: 'Empty or 0: no cap.',
    value: values.capPerPurchase,
    width: 'input--short',
    errors,
  })}
  ${field({
    name: 'cap_per_day',
    label: 'Most its purchases may charge in a day, in Naira (optional)',
    hint: 'A day is midnight to midnight in Lagos. Empty or 0: no cap.',
    value: values.capPerDay,
    width: 'input--short',
    errors,
  })}
  ${totpField(ctx, errors, 'a change of limits')}
  <div class="button-group">
    <button type="submit" class="button">Save limits</button>
    <a href="${ctx.link('/keys')}" class="link-button">Cancel</a>
  </div>
</form>`;
  return {
    kind: 'page',
    status: formStatus(errors),
    body: page({ title: 'Key limits', current: '/keys', viewer, errors }, body),
  };
}

function rollForm(ctx: SignedInContext, key: HolderApiKey, graceHours: string, errors: FieldError[]): Answer {
  const viewer = ctx.viewer;
  const body = html`<h1>Roll <code class="break">${key.publicKey}</code></h1>
<p>Rolling makes a new key pair with this one's IP lock, scopes and caps. Its secret key is shown once. This \
pair keeps working for the hours you choose, time to put the new secret on your servers; then it is refused.</p>
<form method="post" action="${ctx.link('/keys/roll')}" novalidate>
  ${formFields(viewer)}
  <input type="hidden" name="key" value="${key.publicKey}">
  ${field({
    name: 'grace_hours',
    label: 'Hours the old pair keeps working',
    hint: 'A whole number from 0 (it stops at once) to 168 (a week).',
    value: graceHours,
    inputmode: 'numeric',
    width: 'input--short',
    errors,
  })}
  ${totpField(ctx, errors, 'a roll')}
  <div class="button-group">
    <button type="submit" class="button">Roll this key</button>
    <a href="${ctx.link('/keys')}" class="link-button">Cancel</a>
  </div>
</form>`;
  return {
    kind: 'page',
    status: formStatus(errors),
    body: page({ title: 'Roll a key', current: '/keys', viewer, errors }, body),
  };
}

/** A typed cap in kobo: empty is 0 (no cap); undefined when it is not an amount. */
function capOf(text: string): bigint | undefined {
  return text.trim() === '' ? 0n : koboOfInput(text);
}

async function saveLimits(ctx: SignedInContext): Promise<Answer> {
  const publicKey = ctx.form.get('key') ?? '';
  const values: LimitsValues = {
    scopes: ctx.form.get('scopes') ?? '',
    capPerPurchase: ctx.form.get('cap_per_purchase') ?? '',
    capPerDay: ctx.form.get('cap_per_day') ?? '',
  };
  const capPerPurchaseKobo = capOf(values.capPerPurchase);
  const capPerDayKobo = capOf(values.capPerDay);
  const typed: FieldError[] = [];
  if (capPerPurchaseKobo === undefined)
    typed.push({ field: 'cap_per_purchase', message: 'Enter the cap in Naira, for example 5000, or leave it empty.' });
  if (capPerDayKobo === undefined)
    typed.push({ field: 'cap_per_day', message: 'Enter the cap in Naira, for example 50000, or leave it empty.' });
  let errors = typed;
  if (capPerPurchaseKobo !== undefined && capPerDayKobo !== undefined) {
    try {
      await ctx.core.holder.setApiKeyLimits({
        sessionToken: ctx.sessionToken,
        formAccountId: ctx.formAccountId,
        publicKey,
        scopes: values.scopes.replace(/\s+/g, ''),
        capPerPurchaseKobo,
        capPerDayKobo,
        totpCode: (ctx.form.get('totp_code') ?? '').replace(/\s+/g, ''),
      });
      return { kind: 'redirect', location: ctx.link('/keys?done=limited') };
    } catch (error) {
      errors = refusalErrors(error, ['scopes', 'cap_per_purchase', 'cap_per_day', 'totp_code'], 'totp_code');
    }
  }
  const key = await findKey(ctx, publicKey);
  if (key === undefined || ended(key)) return notFound(ctx);
  return limitsForm(ctx, key, values, errors);
}

async function roll(ctx: SignedInContext): Promise<Answer> {
  const publicKey = ctx.form.get('key') ?? '';
  const graceText = (ctx.form.get('grace_hours') ?? '').trim();
  // Anything but digits is sent as -1, which the core refuses with its own message.
  const graceHours = /^\d{1,4}$/.test(graceText) ? Number(graceText) : -1;
  let errors: FieldError[];
  try {
    const rolled = await ctx.core.holder.rollApiKey({
      sessionToken: ctx.sessionToken,
      formAccountId: ctx.formAccountId,
      publicKey,
      graceHours,
      totpCode: (ctx.form.get('totp_code') ?? '').replace(/\s+/g, ''),
    });
    const issued = rolled.issuedKey;
    if (issued === undefined) throw new Error('RollApiKey answered without a key');
    // Shown once on the keys page, as a new pair's secret is (once.ts): never in the address.
    const handle = newKeyPairs.put(ctx.sessionToken, { publicKey: issued.publicKey, secretKey: issued.secretKey });
    return { kind: 'redirect', location: ctx.link(`/keys?created=${handle}`) };
  } catch (error) {
    errors = refusalErrors(error, ['grace_hours', 'totp_code'], 'grace_hours');
  }
  const key = await findKey(ctx, publicKey);
  if (key === undefined || ended(key)) return notFound(ctx);
  return rollForm(ctx, key, graceText, errors);
}

export const keyLimitRoutes: Route[] = [
  {
    method: 'GET',
    path: '/keys/limits',
    name: 'keys_limits',
    signedIn: true,
    testMode: true,
    async handler(ctx) {
      const key = await findKey(ctx, ctx.url.searchParams.get('key') ?? '');
      if (key === undefined || ended(key)) return notFound(ctx);
      const scopes = key.limits?.scopes ?? [];
      return limitsForm(
        ctx,
        key,
        {
          scopes: scopes.includes('all') ? '' : scopes.join(', '),
          capPerPurchase: nairaValue(key.limits?.capPerPurchaseKobo ?? 0n),
          capPerDay: nairaValue(key.limits?.capPerDayKobo ?? 0n),
        },
        [],
      );
    },
  },
  { method: 'POST', path: '/keys/limits', name: 'keys_limits', signedIn: true, testMode: true, handler: saveLimits },
  {
    method: 'GET',
    path: '/keys/roll',
    name: 'keys_roll',
    signedIn: true,
    testMode: true,
    async handler(ctx) {
      const key = await findKey(ctx, ctx.url.searchParams.get('key') ?? '');
      if (key === undefined || ended(key)) return notFound(ctx);
      return rollForm(ctx, key, DEFAULT_GRACE_HOURS, []);
    },
  },
  { method: 'POST', path: '/keys/roll', name: 'keys_roll', signedIn: true, testMode: true, handler: roll },
];
