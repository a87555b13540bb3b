/**
 * Pay for cable TV (/buy/cable): the smart card is checked with the provider first
 * (/buy/cable/check), its owner shown, then a package is paid for.
 */
import { CABLE_PROVIDERS } from '../../core/domain/products.js';
import { html } from '../../web/html.js';
import { refusalOf } from '../../web/refusal.js';
import { coreMode } from '../core-client.js';
import { naira } from '../format.js';
import { type FieldError, field, select } from '../layout.js';
import type { Answer, Route, SignedInContext } from '../route.js';
import { customerList, customerRows, hiddenRows, rowsFromForm } from './buy-customer.js';
import {
  afterPurchase,
  buyPage,
  buyRoute,
  formStart,
  formValues,
  groupedSelect,
  newRequestId,
  phoneField,
  submit,
  type Values,
} from './buy-form.js';

const CABLE_OPTIONS = [
  ['', 'Choose a provider'] as const,
  ...CABLE_PROVIDERS.map((p) => [p, p === 'startimes' ? 'StarTimes' : p === 'dstv' ? 'DStv' : 'GOtv'] as const),
];

function cardForm(ctx: SignedInContext, values: Values, errors: FieldError[]): Promise<Answer> {
  const form = html`${formStart(ctx, '/buy/cable/check', '')}
  ${select({ name: 'provider', label: 'Provider', options: CABLE_OPTIONS, value: values.provider ?? '', errors })}
  ${field({
    name: 'smart_card',
    label: 'Smart card or IUC number',
    inputmode: 'numeric',
    autocomplete: 'off',
    value: values.smart_card ?? '',
    width: 'input--medium',
    errors,
  })}
  ${submit(ctx, 'Check the smart card')}`;
  return buyPage(
    ctx,
    'Pay for cable TV',
    html`First the smart card is checked with the provider, so you see whose it is before paying.`,
    form,
    errors,
  );
}

async function checkCard(ctx: SignedInContext): Promise<Answer> {
  const values = formValues(ctx, ['provider', 'smart_card']);
  try {
    const { customer } = await ctx.core.shop.verifyCustomer({
      sessionToken: ctx.sessionToken,
      check: { provider: values.provider, smartCard: values.smart_card, mode: coreMode(ctx.mode) },
    });
    return cableForm(ctx, values, customerRows(customer), newRequestId(), []);
  } catch (error) {
    const refusal = refusalOf(error);
    if (refusal.kind !== 'invalid' && refusal.kind !== 'refused' && refusal.kind !== 'not_found') throw error;
    const errors =
      refusal.fields.size === 0
        ? [{ field: 'smart_card', message: refusal.message }]
        : [...refusal.fields].map(([name, message]) => ({
            field: name === 'provider' ? 'provider' : 'smart_card',
            message,
          }));
    return cardForm(ctx, values, errors);
  }
}

async function cableForm(
  ctx: SignedInContext,
  values: Values,
  customer: ReadonlyArray<readonly [string, string]>,
  requestId: string,
  errors: FieldError[],
): Promise<Answer> {
  const prices = await ctx.core.holder.getPrices({ sessionToken: ctx.sessionToken });
  const packages = prices.cablePackages.filter((pkg) => pkg.provider === values.provider);
  const options = html`<option value="">Choose a package</option>${packages.map(
    (pkg) =>
      html`<option value="${pkg.packageCode}"${
        pkg.packageCode === values.package_code ? html` selected` : ''
      }>${pkg.name}: you pay ${naira(pkg.priceKobo)}</option>`,
  )}`;
  const form = html`<h2>The smart card</h2>
${customerList([
  ['Provider', (values.provider ?? '').toUpperCase()],
  ['Smart card', values.smart_card ?? ''],
  ...customer,
])}
<p><a href="${ctx.link('/buy/cable')}">Not this smart card? Check another</a></p>
${formStart(ctx, '/buy/cable', requestId)}
  <input type="hidden" name="provider" value="${values.provider ?? ''}">
  <input type="hidden" name="smart_card" value="${values.smart_card ?? ''}">
  ${hiddenRows(customer)}
  ${groupedSelect('package_code', 'Package', 'The price is what you pay.', options, errors)}
  ${phoneField(values, errors, "Customer's phone number (optional)", 'For example 0803 123 4567.')}
  ${submit(ctx, 'Pay for cable TV')}`;
  return buyPage(ctx, 'Pay for cable TV', html`Check the card's owner below before paying.`, form, errors);
}

async function payCable(ctx: SignedInContext): Promise<Answer> {
  const values = formValues(ctx, ['provider', 'smart_card', 'package_code', 'phone', 'request_id']);
  const customer = rowsFromForm(ctx);
  if ((values.package_code ?? '') === '')
    return cableForm(ctx, values, customer, values.request_id ?? newRequestId(), [
      { field: 'package_code', message: 'Choose a package.' },
    ]);
  return afterPurchase(
    ctx,
    async () =>
      ctx.core.shop.payCable({
        sessionToken: ctx.sessionToken,
        formAccountId: ctx.formAccountId,
        order: {
          provider: values.provider,
          smartCard: values.smart_card,
          packageCode: values.package_code,
          phone: values.phone,
          requestId: values.request_id,
          mode: coreMode(ctx.mode),
        },
      }),
    (errs, requestId) => cableForm(ctx, values, customer, requestId, errs),
    'package_code',
  );
}

export const cableRoutes: Route[] = [
  buyRoute('GET', '/buy/cable', 'buy_cable', (ctx) => cardForm(ctx, {}, [])),
  buyRoute('POST', '/buy/cable/check', 'buy_cable_check', checkCard),
  buyRoute('POST', '/buy/cable', 'buy_cable', payCable),
];
