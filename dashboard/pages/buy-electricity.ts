/**
 * Pay for electricity (/buy/electricity): the meter is checked with the distribution company
 * first (/buy/electricity/check), its owner shown, then the amount is paid.
 */
import { DISCOS, METER_TYPES } from '../../core/domain/products.js';
import { html } from '../../web/html.js';
import { coreMode } from '../core-client.js';
import { type FieldError, field, select } from '../layout.js';
import type { Answer, Route, SignedInContext } from '../route.js';
import { carried, checkedHead, checkThen, rowsFromForm } from './buy-customer.js';
import {
  afterPurchase,
  amountOf,
  buyPage,
  buyRoute,
  CORE_FIELDS,
  formStart,
  formValues,
  newRequestId,
  phoneField,
  submit,
  type Values,
} from './buy-form.js';

const upper = (value: string) => [value, value.toUpperCase()] as const;
const DISCO_OPTIONS = [['', 'Choose a distribution company'] as const, ...DISCOS.map(upper)];
const METER_OPTIONS = METER_TYPES.map((t) => [t, t === 'prepaid' ? 'Prepaid' : 'Postpaid'] as const);

function meterForm(ctx: SignedInContext, values: Values, errors: FieldError[]): Promise<Answer> {
  const form = html`${formStart(ctx, '/buy/electricity/check', '')}
  ${select({ name: 'disco', label: 'Distribution company', options: DISCO_OPTIONS, value: values.disco ?? '', errors })}
  ${field({
    name: 'meter_number',
    label: 'Meter number',
    inputmode: 'numeric',
    autocomplete: 'off',
    value: values.meter_number ?? '',
    width: 'input--medium',
    errors,
  })}
  ${select({
    name: 'meter_type',
    label: 'Meter type',
    options: METER_OPTIONS,
    value: values.meter_type ?? 'prepaid',
    errors,
  })}
  ${submit(ctx, 'Check the meter')}`;
  return buyPage(
    ctx,
    'Pay for electricity',
    html`First the meter is checked with the distribution company, so you see whose it is before paying.`,
    form,
    errors,
  );
}

function checkMeter(ctx: SignedInContext): Promise<Answer> {
  const values = formValues(ctx, ['disco', 'meter_number', 'meter_type']);
  return checkThen(
    async () =>
      (
        await ctx.core.shop.verifyCustomer({
          sessionToken: ctx.sessionToken,
          check: {
            disco: values.disco,
            meterNumber: values.meter_number,
            meterType: values.meter_type,
            mode: coreMode(ctx.mode),
          },
        })
      ).customer,
    (rows) => electricityForm(ctx, values, rows, newRequestId(), []),
    (errors) => meterForm(ctx, values, errors),
    (name) => (name === 'disco' ? 'disco' : (CORE_FIELDS[name] ?? 'meter_number')),
    'meter_number',
  );
}

function electricityForm(
  ctx: SignedInContext,
  values: Values,
  customer: ReadonlyArray<readonly [string, string]>,
  requestId: string,
  errors: FieldError[],
): Promise<Answer> {
  const shown = [
    ['Distribution company', (values.disco ?? '').toUpperCase()],
    ['Meter number', values.meter_number ?? ''],
    ['Meter type', values.meter_type ?? ''],
    ...customer,
  ] as const;
  const form = html`${checkedHead(ctx, 'The meter', shown, {
    path: '/buy/electricity',
    text: 'Not this meter? Check another',
  })}
${formStart(ctx, '/buy/electricity', requestId)}
  ${carried(values, ['disco', 'meter_number', 'meter_type'], customer)}
  ${field({
    name: 'amount',
    label: 'Amount of electricity, in Naira',
    hint: 'You are charged your price for it, shown on the receipt.',
    inputmode: 'decimal',
    value: values.amount ?? '',
    width: 'input--short',
    errors,
  })}
  ${phoneField(values, errors, "Customer's phone number (optional)", 'For the biller’s text message with the token, for example 0803 123 4567.')}
  ${submit(ctx, 'Pay for electricity')}`;
  return buyPage(ctx, 'Pay for electricity', html`Check the meter's owner below before paying.`, form, errors);
}

async function payElectricity(ctx: SignedInContext): Promise<Answer> {
  const values = formValues(ctx, ['disco', 'meter_number', 'meter_type', 'amount', 'phone', 'request_id']);
  const customer = rowsFromForm(ctx);
  const errors: FieldError[] = [];
  const amountKobo = amountOf(values, errors);
  if (errors.length > 0) return electricityForm(ctx, values, customer, values.request_id ?? newRequestId(), errors);
  return afterPurchase(
    ctx,
    async () =>
      ctx.core.shop.payElectricity({
        sessionToken: ctx.sessionToken,
        formAccountId: ctx.formAccountId,
        order: {
          disco: values.disco,
          meterNumber: values.meter_number,
          meterType: values.meter_type,
          amountKobo,
          phone: values.phone,
          requestId: values.request_id,
          mode: coreMode(ctx.mode),
        },
      }),
    (errs, requestId) => electricityForm(ctx, values, customer, requestId, errs),
    'amount',
  );
}

export const electricityRoutes: Route[] = [
  buyRoute('GET', '/buy/electricity', 'buy_electricity', (ctx) => meterForm(ctx, { meter_type: 'prepaid' }, [])),
  buyRoute('POST', '/buy/electricity/check', 'buy_electricity_check', checkMeter),
  buyRoute('POST', '/buy/electricity', 'buy_electricity', payElectricity),
];
