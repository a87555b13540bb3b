/**
 * Buy airtime (/buy/airtime): network, phone number and amount; the network is the one the
 * owner chooses, since numbers move between networks.
 */
import { NETWORKS } from '../../core/domain/products.js';
import { html } from '../../web/html.js';
import { coreMode } from '../core-client.js';
import { type FieldError, field, select } from '../layout.js';
import type { Answer, Route, SignedInContext } from '../route.js';
import {
  afterPurchase,
  amountOf,
  buyPage,
  buyRoute,
  formStart,
  formValues,
  newRequestId,
  phoneField,
  submit,
  type Values,
} from './buy-form.js';

const NETWORK_OPTIONS = [
  ['', 'Choose a network'] as const,
  ...NETWORKS.map((n) => [n, n === '9mobile' ? '9mobile' : n.toUpperCase()] as const),
];

function airtimeForm(ctx: SignedInContext, values: Values, requestId: string, errors: FieldError[]): Promise<Answer> {
  const form = html`${formStart(ctx, '/buy/airtime', requestId)}
  ${select({ name: 'network', label: 'Network', options: NETWORK_OPTIONS, value: values.network ?? '', errors })}
  ${phoneField(values, errors)}
  ${field({
    name: 'amount',
    label: 'Amount of airtime, in Naira',
    hint: 'For example 500. You are charged your price for it, shown on the receipt.',
    inputmode: 'decimal',
    value: values.amount ?? '',
    width: 'input--short',
    errors,
  })}
  ${submit(ctx, 'Buy airtime')}`;
  return buyPage(
    ctx,
    'Buy airtime',
    html`The network is the one you choose: numbers move between networks.`,
    form,
    errors,
  );
}

async function buyAirtime(ctx: SignedInContext): Promise<Answer> {
  const values = formValues(ctx, ['network', 'phone', 'amount', 'request_id']);
  const errors: FieldError[] = [];
  const amountKobo = amountOf(values, errors);
  if (errors.length > 0) return airtimeForm(ctx, values, values.request_id ?? newRequestId(), errors);
  return afterPurchase(
    ctx,
    async () =>
      ctx.core.shop.buyAirtime({
        sessionToken: ctx.sessionToken,
        formAccountId: ctx.formAccountId,
        order: {
          network: values.network,
          phone: values.phone,
          amountKobo,
          requestId: values.request_id,
          mode: coreMode(ctx.mode),
        },
      }),
    (errs, requestId) => airtimeForm(ctx, values, requestId, errs),
    values.network === '' ? 'network' : 'phone',
  );
}

export const airtimeRoutes: Route[] = [
  buyRoute('GET', '/buy/airtime', 'buy_airtime', (ctx) => airtimeForm(ctx, {}, newRequestId(), [])),
  buyRoute('POST', '/buy/airtime', 'buy_airtime', buyAirtime),
];
