/**
 * Overview: balance, tier, today's and this month's spend, pending purchases, and the daily
 * spend per product over the last 30 days as a server-rendered SVG (a stacked bar a day),
 * with the same numbers in a table for screen readers and for anyone who prefers numbers.
 * Every figure is the core's (GetOverview); this page only draws them.
 */

import type { DailySpend } from '../../gen/prepaid/v1/holder_pb.js';
import { Product } from '../../gen/prepaid/v1/types_pb.js';
import { html, type SafeHtml } from '../../web/html.js';
import { coreMode } from '../core-client.js';
import { naira, shortDay } from '../format.js';
import { isOwner, page } from '../layout.js';
import type { Route } from '../route.js';
import { firstKeyRedirect } from './keys.js';
import { PRODUCT_LABELS } from './labels.js';
import { verificationBanner } from './verify.js';

/** The products in the order the chart stacks them, with the CSS class of their colour. */
const CHART_PRODUCTS: ReadonlyArray<readonly [Product, string]> = [
  [Product.AIRTIME, 'airtime'],
  [Product.DATA, 'data'],
  [Product.ELECTRICITY, 'electricity'],
  [Product.CABLE, 'cable'],
  [Product.BULK_SMS, 'sms'],
];

/** After Add test funds (which redirects here). */
const FUNDS_NOTICES: Readonly<Record<string, string>> = {
  funded: 'The test money is added to your test balance.',
  replayed: 'That form had been sent already; its test money was added once.',
};

const CHART_WIDTH = 720;
const CHART_HEIGHT = 240;
/** The amounts are written above their grid lines, not in a margin, so the bars take the whole width. */
const CHART_LEFT = 8;
const CHART_TOP = 30;
const CHART_BOTTOM = 28;

/** A round number of Naira at or above `max` for the axis. */
function axisTop(maxKobo: number): number {
  if (maxKobo <= 0) return 100_000;
  const magnitude = 10 ** Math.floor(Math.log10(maxKobo));
  for (const step of [1, 2, 5, 10]) if (step * magnitude >= maxKobo) return step * magnitude;
  return 10 * magnitude;
}

/** The chart, drawn from the core's numbers; every label goes through html``'s escaping. */
function spendChart(days: readonly DailySpend[]): SafeHtml {
  const top = axisTop(Math.max(0, ...days.map((d) => Number(d.totalKobo))));
  const plotWidth = CHART_WIDTH - CHART_LEFT - 8;
  const plotHeight = CHART_HEIGHT - CHART_BOTTOM - CHART_TOP;
  const slot = plotWidth / Math.max(days.length, 1);
  const barWidth = Math.max(2, slot * 0.7);
  const y = (kobo: number) => CHART_TOP + plotHeight - (kobo / top) * plotHeight;
  const bars: SafeHtml[] = [];
  days.forEach((day, i) => {
    let base = 0;
    const x = CHART_LEFT + i * slot + (slot - barWidth) / 2;
    for (const [product, cls] of CHART_PRODUCTS) {
      const spent = Number(day.products.find((p) => p.product === product)?.spentKobo ?? 0n);
      if (spent <= 0) continue;
      const y1 = y(base + spent);
      const height = y(base) - y1;
      bars.push(
        html`<rect class="bar bar--${cls}" x="${x.toFixed(1)}" y="${y1.toFixed(1)}" \
width="${barWidth.toFixed(1)}" height="${Math.max(height, 0.5).toFixed(
          1,
        )}"><title>${shortDay(day.date)}: ${PRODUCT_LABELS[product]} ${naira(spent)}</title></rect>`,
      );
      base += spent;
    }
  });
  const gridLines = [0, 0.5, 1].map(
    (share) =>
      html`<line class="grid" x1="${CHART_LEFT}" x2="${CHART_WIDTH - 8}" y1="${y(top * share).toFixed(1)}" \
y2="${y(top * share).toFixed(1)}"></line>`,
  );
  // Drawn after the bars, with a halo (CSS), so a tall bar never hides them; the baseline needs no label.
  const amounts = [0.5, 1].map(
    (share) =>
      html`<text class="axis axis--amount" x="${CHART_LEFT}" \
y="${(y(top * share) - 5).toFixed(1)}">${naira(Math.round(top * share)).replace(/\.00$/, '')}</text>`,
  );
  const labels = days
    .map((day, i) => ({ day, i }))
    // A label a week, and today's unless it would touch the last weekly one.
    .filter(({ i }) => i % 7 === 0 || (i === days.length - 1 && i % 7 >= 4))
    .map(
      ({ day, i }) =>
        html`<text class="axis" x="${(CHART_LEFT + i * slot + slot / 2).toFixed(
          1,
        )}" y="${CHART_HEIGHT - 8}" text-anchor="${
          i === 0 ? 'start' : i === days.length - 1 ? 'end' : 'middle'
        }">${shortDay(day.date)}</text>`,
    );
  const total = days.reduce((sum, d) => sum + Number(d.totalKobo), 0);
  return html`<figure class="chart">
<svg viewBox="0 0 ${CHART_WIDTH} ${CHART_HEIGHT}" role="img" aria-labelledby="chart-title chart-desc" \
class="chart__svg">
<title id="chart-title">Daily spend per product, last 30 days</title>
<desc id="chart-desc">Spent ${naira(total)} in the last 30 days. The table below has the numbers.</desc>
${gridLines}${bars}${amounts}${labels}
</svg>
<figcaption>
<ul class="legend">${CHART_PRODUCTS.map(
    ([product, cls]) => html`<li><span class="legend__swatch bar--${cls}"></span>${PRODUCT_LABELS[product]}</li>`,
  )}</ul>
</figcaption>
</figure>
<details class="details">
<summary>Daily spend as a table</summary>
<div class="table-wrap" role="region" aria-label="Daily spend as a table" tabindex="0"><table class="table">
<caption class="visually-hidden">Daily spend per product</caption>
<thead><tr><th scope="col">Day</th>${CHART_PRODUCTS.map(
    ([product]) => html`<th scope="col" class="num">${PRODUCT_LABELS[product]}</th>`,
  )}<th scope="col" class="num">Total</th></tr></thead>
<tbody>
${days
  .filter((d) => d.totalKobo > 0n)
  .map(
    (day) =>
      html`<tr><th scope="row">${shortDay(day.date)}</th>${CHART_PRODUCTS.map(
        ([product]) =>
          html`<td class="num">${naira(day.products.find((p) => p.product === product)?.spentKobo ?? 0n)}</td>`,
      )}<td class="num">${naira(day.totalKobo)}</td></tr>`,
  )}
</tbody>
</table></div>
</details>`;
}

export const overviewRoutes: Route[] = [
  {
    method: 'GET',
    path: '/',
    name: 'overview',
    signedIn: true,
    testMode: true,
    async handler(ctx) {
      // Just approved for API access: the first key pair is shown once, on the keys page.
      const first = await firstKeyRedirect(ctx);
      if (first !== undefined) return first;
      const viewer = ctx.viewer;
      const test = ctx.mode === 'test';
      const [overview, funding, verification] = await Promise.all([
        ctx.core.holder.getOverview({ sessionToken: ctx.sessionToken, mode: coreMode(ctx.mode) }),
        ctx.core.holderFunding.getSessionFunding({ sessionToken: ctx.sessionToken, mode: coreMode(ctx.mode) }),
        ctx.core.holder.getVerification({ sessionToken: ctx.sessionToken }),
      ]);
      const threshold = funding.lowBalanceThresholdKobo;
      const lowBalance =
        threshold > 0n && overview.balanceKobo < threshold
          ? html`<div class="warning" role="alert"><p><strong>Low balance.</strong> The balance is below your \
threshold of ${naira(threshold)}. <a href="${ctx.link('/fund')}">Fund wallet</a></p></div>`
          : '';
      const notice = test
        ? FUNDS_NOTICES[ctx.url.searchParams.get('done') ?? '']
        : ctx.url.searchParams.has('switched')
          ? `You are now in ${viewer.session.accountName}.`
          : undefined;
      const funds = test
        ? isOwner(viewer)
          ? html`<p class="toolbar"><a href="/test/funds" class="button">Add test funds</a> <a \
href="/test/keys" class="button button--secondary">Create a test key pair</a></p>`
          : html`<p class="inset">Test money is added by an owner of this account.</p>`
        : '';
      const body = html`<h1>${test ? 'Test overview' : 'Overview'}</h1>
${
  test
    ? html`<p>Your test balance is test money for trying the API with a test key pair \
(<code>pk_test_</code>, <code>sk_test_</code>). It can never be spent live.</p>`
    : ''
}
${verificationBanner(verification)}
${funds}
${lowBalance}
<dl class="summary-cards">
  <div class="card"><dt>${test ? 'Test balance' : 'Balance'}</dt><dd \
class="card__figure">${naira(overview.balanceKobo)}</dd><dd><a href="${ctx.link('/fund')}">Fund wallet</a></dd></div>
  <div class="card"><dt>Account id</dt><dd><code>${funding.accountId}</code></dd></div>
  <div class="card"><dt>Tier</dt><dd class="card__figure">${overview.tierName}</dd></div>
  <div class="card"><dt>Spent today</dt><dd class="card__figure">${naira(overview.todaySpentKobo)}</dd></div>
  <div class="card"><dt>Spent this month</dt><dd class="card__figure">${naira(overview.monthSpentKobo)}</dd></div>
  <div class="card"><dt>Pending purchases</dt><dd class="card__figure">${
    overview.pendingCount > 0n
      ? html`<a href="${ctx.link('/transactions?status=pending')}">${overview.pendingCount}</a>`
      : '0'
  }</dd></div>
</dl>
<h2>Daily spend, last 30 days</h2>
${spendChart(overview.daily)}
<p>Spend counts what was charged; failed and reversed purchases, which were refunded, are not counted.</p>`;
      return {
        kind: 'page',
        body: page(
          { title: test ? 'Test overview' : 'Overview', current: '/', viewer, ...(notice ? { notice } : {}) },
          body,
        ),
      };
    },
  },
];
