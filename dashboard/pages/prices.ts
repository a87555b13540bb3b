/**
 * Prices: what this account pays, as the core's pricing code computes it for the purchase
 * path (GetPrices): airtime per network and electricity per disco as a discount with a worked
 * example, every active data plan, every cable package, and one SMS page. Nothing is
 * computed here.
 */
import { networkNames } from '../../core/domain/products.js';
import type { RatePrice } from '../../gen/prepaid/v1/holder_pb.js';
import { html, type SafeHtml } from '../../web/html.js';
import { naira } from '../format.js';
import { page } from '../layout.js';
import type { Route } from '../route.js';
import { PLAN_TYPE_NAMES, sizeText, validityText } from './labels.js';

function percent(basisPoints: number): string {
  return `${(basisPoints / 100).toLocaleString('en-NG', { maximumFractionDigits: 2 })}%`;
}

/**
 * A table of prices, in a labelled region that takes the keyboard focus to scroll. On a phone
 * the columns marked optional (plan IDs, codes, retail prices) give way, so "You pay" is never
 * off-screen and a long price list stays a list (cards would make it many screens long).
 */
function rateTable(caption: string, serviceHeading: string, rates: readonly RatePrice[]): SafeHtml {
  return html`<div class="table-wrap" role="region" aria-label="${caption}" tabindex="0"><table class="table">
<caption class="table__caption">${caption}</caption>
<thead><tr><th scope="col">${serviceHeading}</th><th scope="col" class="num">Discount</th><th scope="col" \
class="num">You pay for ₦1,000.00</th></tr></thead>
<tbody>${rates.map(
    (rate) =>
      html`<tr><th scope="row" data-label="${serviceHeading}">${rate.service.toUpperCase()}</th><td \
class="num" data-label="Discount">${percent(rate.discountBasisPoints)}</td><td class="num" data-label="You pay \
for ₦1,000.00">${naira(rate.examplePriceKobo)}</td></tr>`,
  )}</tbody>
</table></div>`;
}

export const priceRoutes: Route[] = [
  {
    method: 'GET',
    path: '/prices',
    name: 'prices',
    signedIn: true,
    // The same prices in both modes: a test purchase is charged the tier's prices too.
    testMode: true,
    async handler(ctx) {
      const prices = await ctx.core.holder.getPrices({ sessionToken: ctx.sessionToken });
      const body = html`<h1>Prices</h1>
<p>What this account pays on the <strong>${prices.tierName}</strong> tier: the very amounts the API charges.</p>
<nav aria-label="On this page" class="contents"><ul>
<li><a href="#airtime">Airtime</a></li><li><a href="#data">Data</a></li><li><a \
href="#electricity">Electricity</a></li><li><a href="#cable">Cable TV</a></li><li><a href="#sms">Bulk SMS</a></li>
</ul></nav>
<h2 id="airtime">Airtime</h2>
${rateTable('Airtime per network', 'Network', prices.airtime)}
<h2 id="data">Data</h2>
<p class="phone-only hint">On a phone, plan IDs and retail prices are left out; a wider screen shows them.</p>
<div class="table-wrap" role="region" aria-label="Data plans" tabindex="0"><table class="table table--priority">
<caption class="table__caption">Every active data plan: MTN, Airtel, Glo, 9mobile/T2, cheapest first</caption>
<thead><tr><th scope="col" class="num optional">Plan ID</th><th scope="col">Network</th><th \
scope="col">Plan</th><th scope="col">Type</th><th scope="col" class="num optional">Size</th><th scope="col" \
class="optional">Validity</th><th scope="col" class="num optional">Retail</th><th scope="col" class="num">You \
pay</th></tr></thead>
<tbody>${prices.dataPlans.map(
        (plan) =>
          html`<tr><td class="num optional" data-label="Plan ID">${plan.planId}</td><td \
data-label="Network">${networkNames(plan.network).join(' / ').toUpperCase()}</td><th scope="row" \
data-label="Plan">${plan.label}</th><td data-label="Type">${PLAN_TYPE_NAMES[plan.type] ?? plan.type}</td><td \
class="num optional" data-label="Size">${sizeText(plan.sizeMb)}</td><td class="optional" \
data-label="Validity">${validityText(
            plan.validity,
            plan.validityDays,
          )}</td><td class="num optional" data-label="Retail">${naira(plan.faceValueKobo)}</td><td \
class="num" data-label="You pay">${naira(plan.priceKobo)}</td></tr>`,
      )}</tbody>
</table></div>
<h2 id="electricity">Electricity</h2>
${rateTable('Electricity per distribution company', 'Disco', prices.electricity)}
<h2 id="cable">Cable TV</h2>
<p class="phone-only hint">On a phone, package codes and retail prices are left out; a wider screen shows them.</p>
<div class="table-wrap" role="region" aria-label="Cable packages" tabindex="0"><table class="table table--priority">
<caption class="table__caption">Every cable package</caption>
<thead><tr><th scope="col">Provider</th><th scope="col">Package</th><th scope="col" \
class="optional">Code</th><th scope="col" class="num optional">Retail</th><th scope="col" class="num">You \
pay</th></tr></thead>
<tbody>${prices.cablePackages.map(
        (pkg) =>
          html`<tr><td data-label="Provider">${pkg.provider.toUpperCase()}</td><th scope="row" \
data-label="Package">${pkg.name}</th><td class="optional" \
data-label="Code"><code>${pkg.packageCode}</code></td><td class="num optional" \
data-label="Retail">${naira(pkg.faceValueKobo)}</td><td class="num" data-label="You \
pay">${naira(pkg.priceKobo)}</td></tr>`,
      )}</tbody>
</table></div>
<h2 id="sms">Bulk SMS</h2>
<dl class="summary-list">
<div><dt>List price of one page to one recipient</dt><dd>${naira(prices.smsPageFaceValueKobo)}</dd></div>
<div><dt>Your discount</dt><dd>${percent(prices.smsDiscountBasisPoints)}</dd></div>
<div><dt>You pay for one page to one recipient</dt><dd>${naira(prices.smsPagePriceKobo)}</dd></div>
</dl>
<p>A message is charged once for all its pages and recipients, so a large send's total is worked out on the \
whole, not page by page.</p>`;
      return { kind: 'page', body: page({ title: 'Prices', current: '/prices', viewer: ctx.viewer }, body) };
    },
  },
];
