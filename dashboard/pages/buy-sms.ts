/**
 * Send bulk SMS (/buy/sms): a sender name, the recipients as typed (commas, spaces or lines),
 * and the message; the core de-duplicates, counts pages and checks each number.
 */
import { html, type SafeHtml } from '../../web/html.js';
import { coreMode } from '../core-client.js';
import { naira } from '../format.js';
import { type FieldError, field } from '../layout.js';
import type { Answer, Route, SignedInContext } from '../route.js';
import {
  afterPurchase,
  buyPage,
  buyRoute,
  formStart,
  formValues,
  newRequestId,
  submit,
  type Values,
} from './buy-form.js';

function textarea(name: string, label: string, hint: string, value: string, errors: readonly FieldError[]): SafeHtml {
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
  <textarea class="textarea${
    error ? ' input--error' : ''
  }" id="${name}" name="${name}" rows="5" aria-describedby="${name}-hint${error ? ` ${name}-error` : ''}"${
    error ? html` aria-invalid="true"` : ''
  }>${value}</textarea>
</div>`;
}

async function smsForm(ctx: SignedInContext, values: Values, requestId: string, errors: FieldError[]): Promise<Answer> {
  const prices = await ctx.core.holder.getPrices({ sessionToken: ctx.sessionToken });
  const form = html`${formStart(ctx, '/buy/sms', requestId)}
  ${field({
    name: 'sender',
    label: 'Sender name',
    hint: '1 to 11 letters or digits, as the recipients will see it.',
    autocomplete: 'off',
    value: values.sender ?? '',
    width: 'input--medium',
    errors,
  })}
  ${textarea(
    'recipients',
    'Recipients',
    'Phone numbers of 11 digits, separated by commas, spaces or new ' + 'lines. Each number is charged once.',
    values.recipients ?? '',
    errors,
  )}
  ${textarea('message', 'Message', 'Every 160 characters is one page.', values.message ?? '', errors)}
  ${submit(ctx, 'Send the SMS')}`;
  return buyPage(
    ctx,
    'Send bulk SMS',
    html`One page to one recipient costs you ${naira(prices.smsPagePriceKobo)}.`,
    form,
    errors,
  );
}

async function sendSms(ctx: SignedInContext): Promise<Answer> {
  const values = formValues(ctx, ['sender', 'recipients', 'message', 'request_id']);
  // Reading what was typed into a list; the core de-duplicates, counts and checks each number.
  const recipients = (values.recipients ?? '').split(/[\s,;]+/).filter((r) => r !== '');
  return afterPurchase(
    ctx,
    async () =>
      ctx.core.shop.sendBulkSms({
        sessionToken: ctx.sessionToken,
        formAccountId: ctx.formAccountId,
        order: {
          sender: values.sender,
          recipients,
          message: ctx.form.get('message') ?? '',
          requestId: values.request_id,
          mode: coreMode(ctx.mode),
        },
      }),
    (errs, requestId) =>
      smsForm(
        ctx,
        values,
        requestId,
        errs.map((e) => (e.field === 'amount' ? { ...e, field: 'message' } : e)),
      ),
    'recipients',
  );
}

export const smsRoutes: Route[] = [
  buyRoute('GET', '/buy/sms', 'buy_sms', (ctx) => smsForm(ctx, {}, newRequestId(), [])),
  buyRoute('POST', '/buy/sms', 'buy_sms', sendSms),
];
