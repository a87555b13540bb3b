/**
 * Pay for cable TV (/buy/cable): the smart card is checked with the provider first
 * (/buy/cable/check), its owner, current package and renewal amount shown, then it is paid.
 * DStv and GOtv are renewed (the current package, at the renewal amount the provider told) or
 * changed to another package, for 1 to 12 months; StarTimes is one package for one month. The
 * core decides the price: a renewal at the renewal amount its own check of the card finds.
 */
import { CABLE_MAX_MONTHS, CABLE_PROVIDERS, RENEWABLE_CABLE_PROVIDERS } from '../../core/domain/products.js';
import type { GetPricesResponse } from '../../gen/prepaid/v1/holder_pb.js';
import { html, type SafeHtml } from '../../web/html.js';
import { coreMode } from '../core-client.js';
import { naira } from '../format.js';
import { type FieldError, field, select } from '../layout.js';
import type { Answer, Route, SignedInContext } from '../route.js';
import { carried, checkedHead, checkThen, rowsFromForm, rowValue } from './buy-customer.js';
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

const PROVIDER_NAMES: Readonly<Record<string, string>> = { dstv: 'DStv', gotv: 'GOtv', startimes: 'StarTimes' };
const CABLE_OPTIONS = [
  ['', 'Choose a provider'] as const,
  ...CABLE_PROVIDERS.map((p) => [p, PROVIDER_NAMES[p]!] as const),
];
const MONTH_OPTIONS = Array.from({ length: CABLE_MAX_MONTHS }, (_, i) => {
  const months = String(i + 1);
  return [months, i === 0 ? '1 month' : `${months} months`] as const;
});

type Package = GetPricesResponse['cablePackages'][number];

const renewable = (provider: string) => (RENEWABLE_CABLE_PROVIDERS as readonly string[]).includes(provider);

/** The catalogue's package that is the card's current one, by name or code, as the core matches it. */
function currentPackage(packages: readonly Package[], current: string): Package | undefined {
  const wanted = current.trim().toLowerCase();
  if (wanted === '') return undefined;
  return packages.find((pkg) => pkg.name.toLowerCase() === wanted || pkg.packageCode.toLowerCase() === wanted);
}

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

function checkCard(ctx: SignedInContext): Promise<Answer> {
  const values = formValues(ctx, ['provider', 'smart_card']);
  return checkThen(
    async () =>
      (
        await ctx.core.shop.verifyCustomer({
          sessionToken: ctx.sessionToken,
          check: { provider: values.provider, smartCard: values.smart_card, mode: coreMode(ctx.mode) },
        })
      ).customer,
    (rows) => cableForm(ctx, { ...values, subscription_type: 'renew', months: '1' }, rows, newRequestId(), []),
    (errors) => cardForm(ctx, values, errors),
    (name) => (name === 'provider' ? 'provider' : 'smart_card'),
    'smart_card',
  );
}

/** Renew the current package, or change to another: a choice only DStv and GOtv have. */
function subscriptionChoice(
  values: Values,
  provider: string,
  current: Package | undefined,
  renewal: string,
  errors: readonly FieldError[],
): SafeHtml {
  if (current === undefined) return html`<input type="hidden" name="subscription_type" value="change">`;
  const chosen = values.subscription_type === 'change' ? 'change' : 'renew';
  const error = errors.find((e) => e.field === 'subscription_type');
  const option = (value: string, label: SafeHtml | string) =>
    html`<div class="radio"><input type="radio" id="subscription_type-${value}" name="subscription_type" \
value="${value}"${chosen === value ? html` checked` : ''}><label for="subscription_type-${value}">${label}</label></div>`;
  return html`<fieldset class="form-group${error ? ' form-group--error' : ''}">
  <legend class="label">What to pay</legend>
  ${
    error
      ? html`<p class="error-message" id="subscription_type-error"><span class="visually-hidden">Error:</span> \
${error.message}</p>`
      : ''
  }
  ${option(
    'renew',
    html`Renew ${current.name} at ${renewal || `${naira(current.priceKobo)} a month`}${
      renewal ? html` (the renewal amount ${PROVIDER_NAMES[provider] ?? provider} told)` : ''
    }`,
  )}
  ${option('change', 'Change to another package, chosen below')}
  <input type="hidden" name="current_code" value="${current.packageCode}">
</fieldset>`;
}

async function cableForm(
  ctx: SignedInContext,
  values: Values,
  customer: ReadonlyArray<readonly [string, string]>,
  requestId: string,
  errors: FieldError[],
): Promise<Answer> {
  const provider = values.provider ?? '';
  const prices = await ctx.core.holder.getPrices({ sessionToken: ctx.sessionToken });
  const packages = prices.cablePackages.filter((pkg) => pkg.provider === provider);
  const current = renewable(provider) ? currentPackage(packages, rowValue(customer, 'Current package')) : undefined;
  const options = html`<option value="">Choose a package</option>${packages.map(
    (pkg) =>
      html`<option value="${pkg.packageCode}"${
        pkg.packageCode === values.package_code ? html` selected` : ''
      }>${pkg.name}: you pay ${naira(pkg.priceKobo)} a month</option>`,
  )}`;
  const shown = [
    ['Provider', PROVIDER_NAMES[provider] ?? provider],
    ['Smart card', values.smart_card ?? ''],
    ...customer,
  ] as const;
  const form = html`${checkedHead(ctx, 'The smart card', shown, {
    path: '/buy/cable',
    text: 'Not this smart card? Check another',
  })}
${formStart(ctx, '/buy/cable', requestId)}
  ${carried(values, ['provider', 'smart_card'], customer)}
  ${subscriptionChoice(values, provider, current, rowValue(customer, 'Renewal amount'), errors)}
  ${groupedSelect(
    'package_code',
    current ? 'Package to change to' : 'Package',
    current ? 'Only when changing. The price is what you pay.' : 'The price is what you pay.',
    options,
    errors,
  )}
  ${
    renewable(provider)
      ? select({
          name: 'months',
          label: 'Months to pay for',
          options: MONTH_OPTIONS,
          value: values.months ?? '1',
          errors,
        })
      : ''
  }
  ${phoneField(values, errors, "Customer's phone number (optional)", 'For example 0803 123 4567.')}
  ${submit(ctx, 'Pay for cable TV')}`;
  return buyPage(
    ctx,
    'Pay for cable TV',
    html`Check the card's owner below before paying. You are charged your price for the amount, shown on the receipt.`,
    form,
    errors,
  );
}

async function payCable(ctx: SignedInContext): Promise<Answer> {
  const values = formValues(ctx, [
    'provider',
    'smart_card',
    'subscription_type',
    'current_code',
    'package_code',
    'months',
    'phone',
    'request_id',
  ]);
  const customer = rowsFromForm(ctx);
  const renew = values.subscription_type === 'renew' && values.current_code !== '';
  const packageCode = renew ? (values.current_code ?? '') : (values.package_code ?? '');
  if (packageCode === '')
    return cableForm(ctx, values, customer, values.request_id ?? newRequestId(), [
      { field: 'package_code', message: renew ? 'Choose a package.' : 'Choose the package to change to.' },
    ]);
  const months = /^\d{1,2}$/.test(values.months ?? '') ? Number(values.months) : 1;
  return afterPurchase(
    ctx,
    async () =>
      ctx.core.shop.payCable({
        sessionToken: ctx.sessionToken,
        formAccountId: ctx.formAccountId,
        order: {
          provider: values.provider,
          smartCard: values.smart_card,
          packageCode,
          phone: values.phone,
          requestId: values.request_id,
          mode: coreMode(ctx.mode),
          // StarTimes has neither: the core refuses them there.
          ...(renewable(values.provider ?? '') ? { subscriptionType: renew ? 'renew' : 'change', months } : {}),
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
