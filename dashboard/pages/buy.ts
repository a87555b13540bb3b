/**
 * Buy: an owner sells from the web, whatever the account's tier. One page per product
 * (airtime, data, electricity, cable TV, bulk SMS); electricity and cable TV check the meter
 * or smart card first and show whose it is before anything is paid. Every purchase goes to
 * the core's ShopService, which runs the API's own purchase (validation, prices, provider,
 * refunds): nothing is priced or checked here beyond reading what a person typed.
 *
 * Each form carries a request id made when the form is shown (the API's idempotency key), so
 * a double click, a form sent again, or a reload of the answer buys once: the core answers
 * the same request id with the first purchase. After a purchase the browser is sent to the
 * transaction's page (post/redirect/get), which is the receipt: reference, token with a copy
 * button, pending said plainly, the refund of a failed purchase, and a print button.
 *
 * This file is the index of products; each family has its own file (buy-airtime.ts, buy-data.ts,
 * buy-electricity.ts, buy-cable.ts, buy-sms.ts) over the pieces they share (buy-form.ts, buy-customer.ts).
 *
 * Viewers see no forms, and the core refuses their POSTs all the same (PERMISSION_DENIED).
 * Under /test the same pages spend the test wallet, and the sandbox serves every purchase.
 */
import { html } from '../../web/html.js';
import { isOwner, page } from '../layout.js';
import type { Answer, Route, SignedInContext } from '../route.js';
import { airtimeRoutes } from './buy-airtime.js';
import { cableRoutes } from './buy-cable.js';
import { dataRoutes } from './buy-data.js';
import { electricityRoutes } from './buy-electricity.js';
import { buyRoute, viewersOnly } from './buy-form.js';
import { smsRoutes } from './buy-sms.js';

/** The products, in the order the Buy page lists them: path, name, one sentence. */
const PRODUCTS: ReadonlyArray<readonly [string, string, string]> = [
  ['airtime', 'Airtime', 'Top up any MTN, Glo, Airtel or 9mobile number.'],
  ['data', 'Data', 'A data plan for a phone number, at your price for the plan.'],
  ['electricity', 'Electricity', 'Check the meter, then pay: a prepaid meter gets its token here.'],
  ['cable', 'Cable TV', 'Check the smart card, then pay for a DStv, GOtv or StarTimes package.'],
  ['sms', 'Bulk SMS', 'One message to up to 10,000 numbers.'],
];

async function buyIndex(ctx: SignedInContext): Promise<Answer> {
  if (!isOwner(ctx.viewer)) return viewersOnly(ctx, 'Buy');
  const body = html`<h1>${ctx.mode === 'test' ? 'Buy in test mode' : 'Buy'}</h1>
<p>Buy for your customers from here, at the same prices as through the API. ${
    ctx.mode === 'test'
      ? 'Test purchases spend your test balance and are never sent to a network or a biller.'
      : 'Purchases spend your live balance.'
  }</p>
<ul class="card-list">${PRODUCTS.map(
    ([path, name, sentence]) =>
      html`<li class="card-list__item"><h2 class="card-list__title"><a \
href="${ctx.link(`/buy/${path}`)}">${name}</a></h2><p>${sentence}</p></li>`,
  )}</ul>`;
  return { kind: 'page', body: page({ title: 'Buy', current: '/buy', viewer: ctx.viewer }, body) };
}

export const buyRoutes: Route[] = [
  buyRoute('GET', '/buy', 'buy', buyIndex),
  ...airtimeRoutes,
  ...dataRoutes,
  ...electricityRoutes,
  ...cableRoutes,
  ...smsRoutes,
];
