/**
 * What every Buy form shares: the request id a form carries (the API's idempotency key), the
 * frame of a form (heading, the balance it spends, errors at the top), its buttons, the amount
 * read as a person types it, a select with groups, and what happens after the core answered: the
 * transaction's page (the receipt), or the form again with the core's reasons beside its fields.
 */
import { randomBytes } from 'node:crypto';
import { ConnectError } from '@connectrpc/connect';
import { ErrorInfoSchema } from '../../gen/google/rpc/error_details_pb.js';
import type { Transaction } from '../../gen/prepaid/v1/types_pb.js';
import { html, type SafeHtml } from '../../web/html.js';
import { formStatus } from '../../web/http.js';
import { refusalOf } from '../../web/refusal.js';
import { coreMode } from '../core-client.js';
import { naira } from '../format.js';
import { type FieldError, field, formFields, isOwner, page } from '../layout.js';
import type { Answer, Route, SignedInContext } from '../route.js';
import { koboOfInput } from './funds.js';

/** A new form's request id: web_ and 22 random URL-safe characters (the API allows 64). */
export function newRequestId(): string {
  return `web_${randomBytes(16).toString('base64url')}`;
}

/** The core's field names (the API's) -> this form's field ids. */
export const CORE_FIELDS: Readonly<Record<string, string>> = {
  amount: 'amount',
  amount_kobo: 'amount',
  plan_id: 'plan_id',
  package_code: 'package_code',
  smart_card: 'smart_card',
  meter_number: 'meter_number',
  meter_type: 'meter_type',
  recipients: 'recipients',
  months: 'months',
  subscription_type: 'subscription_type',
  request_id: 'amount',
};

export type Values = Record<string, string>;

export function formValues(ctx: SignedInContext, names: readonly string[]): Values {
  const values: Values = {};
  for (const name of names) values[name] = (ctx.form.get(name) ?? '').trim();
  return values;
}

export function viewersOnly(ctx: SignedInContext, title: string): Answer {
  return {
    kind: 'page',
    body: page(
      { title, current: '/buy', viewer: ctx.viewer },
      html`<h1>${title}</h1><p class="inset">You are a viewer on this account: only an owner can buy. You can \
see every purchase in <a href="${ctx.link('/transactions')}">Transactions</a>.</p>`,
    ),
  };
}

/** The frame of every buy form: heading, the balance it spends, the form, errors at the top. */
export async function buyPage(
  ctx: SignedInContext,
  title: string,
  intro: SafeHtml,
  form: SafeHtml,
  errors: readonly FieldError[],
): Promise<Answer> {
  const viewer = ctx.viewer;
  if (!isOwner(viewer)) return viewersOnly(ctx, title);
  const overview = await ctx.core.holder.getOverview({ sessionToken: ctx.sessionToken, mode: coreMode(ctx.mode) });
  const body = html`<p><a href="${ctx.link('/buy')}" class="back-link">All products</a></p>
<h1>${title}</h1>
<p>${ctx.mode === 'test' ? 'Test balance' : 'Balance'}: <strong>${naira(overview.balanceKobo)}</strong>. ${intro}</p>
${form}`;
  return {
    kind: 'page',
    status: formStatus(errors),
    body: page({ title, current: '/buy', viewer, errors }, body),
  };
}

export function formStart(ctx: SignedInContext, action: string, requestId: string): SafeHtml {
  return html`<form method="post" action="${ctx.link(action)}" novalidate data-once>
  ${formFields(ctx.viewer)}
  ${requestId ? html`<input type="hidden" name="request_id" value="${requestId}">` : ''}`;
}

export function submit(ctx: SignedInContext, label: string): SafeHtml {
  return html`<div class="button-group">
    <button type="submit" class="button">${label}</button>
    <a href="${ctx.link('/buy')}" class="link-button">Cancel</a>
  </div>
</form>`;
}

/**
 * The phone number field of every form: typed as people write numbers (spaces, dashes, +234),
 * which the core reads into its 11-digit form (core/domain/phone-numbers.ts).
 */
export function phoneField(
  values: Values,
  errors: readonly FieldError[],
  label = 'Phone number',
  hint = 'For example 0803 123 4567 or +234 803 123 4567.',
): SafeHtml {
  return field({
    name: 'phone',
    label,
    hint,
    type: 'text',
    inputmode: 'tel',
    autocomplete: 'off',
    value: values.phone ?? '',
    width: 'input--medium',
    errors: [...errors],
  });
}

/** The amount a person typed, in kobo, or the form error that says how to write it. */
export function amountOf(values: Values, errors: FieldError[]): bigint {
  const amountKobo = koboOfInput(values.amount ?? '');
  if (amountKobo === undefined || amountKobo === 0n) {
    errors.push({ field: 'amount', message: 'Enter the amount in Naira, for example 500 or 1,500.50.' });
    return 0n;
  }
  return amountKobo;
}

/**
 * After the core answered: the purchase's page, or the form again with the core's reasons.
 * A purchase the provider refused was refunded and has a reference: its page says so. The
 * same form sent while its purchase is still running is that purchase too.
 */
export async function afterPurchase(
  ctx: SignedInContext,
  run: () => Promise<{ transaction?: Transaction | undefined; replayed: boolean }>,
  again: (errors: FieldError[], requestId: string) => Promise<Answer>,
  firstField: string,
): Promise<Answer> {
  try {
    const { transaction, replayed } = await run();
    if (transaction === undefined) throw new Error('The shop answered without a transaction');
    return {
      kind: 'redirect',
      location: ctx.link(
        `/transactions/${encodeURIComponent(transaction.reference)}?bought=${replayed ? 'again' : 'new'}`,
      ),
    };
  } catch (error) {
    if (!(error instanceof ConnectError)) throw error;
    const info = error.findDetails(ErrorInfoSchema)[0];
    const reference = info?.metadata.reference ?? '';
    if (reference !== '' && (info?.reason === 'PROVIDER_FAILED' || info?.reason === 'REQUEST_IN_PROGRESS')) {
      return {
        kind: 'redirect',
        location: ctx.link(
          `/transactions/${encodeURIComponent(reference)}?bought=${
            info.reason === 'PROVIDER_FAILED' ? 'failed' : 'again'
          }`,
        ),
      };
    }
    if (info?.reason === 'IDEMPOTENCY_KEY_REUSED') {
      // The form was sent, then changed and sent again (the back button): a new form, a new purchase.
      return again(
        [
          {
            field: firstField,
            message:
              `This form was already used for purchase ${reference}. Check the details below and buy ` +
              `again to make a new purchase.`,
          },
        ],
        newRequestId(),
      );
    }
    if (info?.reason === 'LEVEL_LIMIT') {
      // Over the identity level's day (PERMISSION_DENIED, as the API's 403): the core's sentence
      // on the form, not the page of a role that may not buy; nothing was charged.
      return again([{ field: firstField, message: error.rawMessage }], newRequestId());
    }
    const refusal = refusalOf(error);
    if (refusal.kind !== 'invalid' && refusal.kind !== 'refused') throw error;
    const errors =
      refusal.fields.size === 0
        ? [{ field: firstField, message: refusal.message }]
        : [...refusal.fields].map(([name, message]) => ({ field: CORE_FIELDS[name] ?? firstField, message }));
    // Nothing was bought: a fresh request id, so a corrected form is a purchase of its own.
    return again(errors, newRequestId());
  }
}

/** A select with groups: the layout's select() has none. */
export function groupedSelect(
  name: string,
  label: string,
  hint: string,
  options: SafeHtml,
  errors: readonly FieldError[],
): SafeHtml {
  const error = errors.find((e) => e.field === name);
  return html`<div class="form-group${error ? ' form-group--error' : ''}">
  <label class="label" for="${name}">${label}</label>
  <p class="hint" id="${name}-hint">${hint}</p>
  ${
    error
      ? html`<p class="error-message" id="${name}-error"><span class="visually-hidden">Error:</span> \
${error.message}</p>`
      : ''
  }
  <select class="select" id="${name}" name="${name}" aria-describedby="${name}-hint${
    error ? ` ${name}-error` : ''
  }"${error ? html` aria-invalid="true"` : ''}>${options}</select>
</div>`;
}

/** A Buy route: signed in, and served under /test as well for the test wallet. */
export const buyRoute = (
  method: 'GET' | 'POST',
  path: string,
  name: string,
  handler: (ctx: SignedInContext) => Promise<Answer>,
): Route => ({
  method,
  path,
  name,
  signedIn: true,
  testMode: true,
  handler,
});
