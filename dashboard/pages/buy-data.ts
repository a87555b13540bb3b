/**
 * Buy data (/buy/data): a plan from the account's price list, and the phone number.
 */
import { NETWORKS } from '../../core/domain/products.js';
import type { GetPricesResponse } from '../../gen/prepaid/v1/holder_pb.js';
import { html, type SafeHtml } from '../../web/html.js';
import { coreMode } from '../core-client.js';
import { naira } from '../format.js';
import type { FieldError } from '../layout.js';
import type { Answer, Route, SignedInContext } from '../route.js';
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
import { PLAN_TYPE_NAMES, sizeText, validityText } from './labels.js';

/**
 * The plans grouped by network, then by how the market sells them (SME, corporate gifting,
 * ...), since resellers choose a type before a size; each option says the size, how long it
 * lasts and what the account pays. The core lists them cheapest first within a network.
 */
function planOptions(prices: GetPricesResponse, chosen: string): SafeHtml {
  const groups: SafeHtml[] = [];
  for (const network of NETWORKS) {
    const plans = prices.dataPlans.filter((plan) => plan.network === network);
    const types = [...new Set(plans.map((plan) => plan.type))];
    for (const type of types) {
      const label = `${networkLabel(network)} \u2013 ${PLAN_TYPE_NAMES[type] ?? (type || 'Other')}`;
      groups.push(
        html`<optgroup label="${label}">${plans
          .filter((plan) => plan.type === type)
          .map(
            (plan) =>
              html`<option value="${String(plan.planId)}"${String(plan.planId) === chosen ? html` selected` : ''}>${
                plan.sizeMb > 0 ? sizeText(plan.sizeMb) : plan.label
              }, ${validityText(plan.validity, plan.validityDays) || 'validity not stated'}: you pay ${naira(
                plan.priceKobo,
              )}</option>`,
          )}</optgroup>`,
      );
    }
  }
  return html`<option value="">Choose a plan</option>${groups}`;
}

const networkLabel = (network: string) => (network === '9mobile' ? '9mobile' : network.toUpperCase());

async function dataForm(
  ctx: SignedInContext,
  values: Values,
  requestId: string,
  errors: FieldError[],
): Promise<Answer> {
  const prices = await ctx.core.holder.getPrices({ sessionToken: ctx.sessionToken });
  const form = html`${formStart(ctx, '/buy/data', requestId)}
  ${groupedSelect(
    'plan_id',
    'Data plan',
    'Plans are grouped by network and by how they are sold; the price is what you pay.',
    planOptions(prices, values.plan_id ?? ''),
    errors,
  )}
  ${phoneField(values, errors)}
  ${submit(ctx, 'Buy data')}`;
  return buyPage(
    ctx,
    'Buy data',
    html`Every plan is listed with <a href="${ctx.link('/prices#data')}">your price</a>.`,
    form,
    errors,
  );
}

async function buyData(ctx: SignedInContext): Promise<Answer> {
  const values = formValues(ctx, ['plan_id', 'phone', 'request_id']);
  if (!/^\d{1,18}$/.test(values.plan_id ?? ''))
    return dataForm(ctx, values, values.request_id ?? newRequestId(), [
      { field: 'plan_id', message: 'Choose a data plan.' },
    ]);
  return afterPurchase(
    ctx,
    async () =>
      ctx.core.shop.buyData({
        sessionToken: ctx.sessionToken,
        formAccountId: ctx.formAccountId,
        order: {
          planId: BigInt(values.plan_id ?? '0'),
          phone: values.phone,
          requestId: values.request_id,
          mode: coreMode(ctx.mode),
        },
      }),
    (errs, requestId) => dataForm(ctx, values, requestId, errs),
    'phone',
  );
}

export const dataRoutes: Route[] = [
  buyRoute('GET', '/buy/data', 'buy_data', (ctx) => dataForm(ctx, {}, newRequestId(), [])),
  buyRoute('POST', '/buy/data', 'buy_data', buyData),
];
