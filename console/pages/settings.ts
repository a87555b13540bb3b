/**
 * Settings (admin changes them, every role reads them): the bulk SMS page rate, the route
 * table (which upstreams sell a product, a network, a data plan type or a disco, first tried
 * first) and each upstream's float alert. Changes are ChangeCatalogue calls, made by the same
 * use cases as `prepaid pricing set-sms-rate`, `prepaid routes set|clear` and
 * `prepaid upstreams set-float-alert`, and audited with the member and their address.
 */
import { PRODUCTS } from '../../core/domain/products.js';
import type { Route as RouteRow } from '../../gen/prepaid/v1/admin_pb.js';
import { html, type SafeHtml } from '../../web/html.js';
import { csrfField, page, type StaffViewer } from '../layout.js';
import type { Answer, PageContext, Route, SignedInContext } from '../route.js';
import { when } from '../time.js';
import {
  change,
  doneNotice,
  errorSummary,
  field,
  naira,
  nairaField,
  pageAnswer,
  productLabel,
  productOf,
  select,
  session,
} from './forms.js';

const BACK = '/settings';

function keyText(row: RouteRow): string {
  const key = row.key!;
  return [
    productLabel(key.product),
    key.network && `network ${key.network}`,
    key.planType && `plan type ${key.planType}`,
    key.disco && `disco ${key.disco}`,
  ]
    .filter((part) => part !== '')
    .join(', ');
}

function clearForm(viewer: StaffViewer, row: RouteRow): SafeHtml {
  const key = row.key!;
  return html`<form method="post" action="/settings/routes/clear" class="inline">${csrfField(viewer)}
<input type="hidden" name="product" value="${productLabel(key.product)}">\
<input type="hidden" name="network" value="${key.network}">
<input type="hidden" name="plan_type" value="${key.planType}"><input type="hidden" name="disco" value="${key.disco}">
<button type="submit" class="warning">Remove this route</button></form>`;
}

async function settingsPage(ctx: SignedInContext, problem = ''): Promise<Answer> {
  const viewer = ctx.viewer;
  const [{ smsKoboPerPage }, { routes, upstreams }] = await Promise.all([
    ctx.core.getCatalogue({ ...session(ctx), network: '-' }),
    ctx.core.getSupplySettings(session(ctx)),
  ]);
  const table = routes!;
  const body = html`<h1>Settings</h1>
${doneNotice(ctx)}${errorSummary(problem)}
<section><h2>Bulk SMS rate</h2>
<p>Now ${naira(smsKoboPerPage)} per page per recipient.</p>
<form method="post" action="/settings/sms-rate">${csrfField(viewer)}
<label for="sms_rate">Naira per page per recipient</label><input id="sms_rate" name="rate" inputmode="decimal" required>
<button type="submit">Set the SMS rate</button></form></section>
<section><h2>Routes</h2>
<p>The most specific route applies; the next upstream is tried only when the one before provably did not deliver.</p>
<table><thead><tr><th>Route</th><th>Upstreams, in order</th><th>Set</th><th></th></tr></thead><tbody>
${table.routes.map(
  (r) =>
    html`<tr data-route="${keyText(r)}"><td>${keyText(r)}</td><td>${r.upstreams.join(', ')}</td>\
<td>${when(r.updatedAt)}</td><td>${clearForm(viewer, r)}</td></tr>`,
)}
${table.defaults.map(
  (r) => html`<tr><td>${keyText(r)} (default)</td><td>${r.upstreams.join(', ')}</td><td>-</td><td>\
</td></tr>`,
)}
</tbody></table>
<h3>Set a route</h3>
<form method="post" action="/settings/routes">${csrfField(viewer)}
<label for="route_product">Product</label>${select('route_product', 'product', PRODUCTS)}
<label for="route_network">Network (airtime, data; empty: any)</label><input id="route_network" name="network">
<label for="route_type">Data plan type (empty: any)</label><input id="route_type" name="plan_type">
<label for="route_disco">Disco or cable provider (electricity, cable; empty: any)</label>\
<input id="route_disco" name="disco">
<label for="route_upstreams">Upstreams, first tried first, separated by commas</label>\
<input id="route_upstreams" name="upstreams" required>
<button type="submit">Set the route</button></form>
<p>Upstreams: ${
    table.upstreams
      .map(
        (u) => `${u.name} \
(${u.kind}: ${u.products.map(productLabel).join(', ')})`,
      )
      .join('; ') || 'none configured'
  }.</p></section>
<section><h2>Upstreams and float alerts</h2>
<p>Below its alert, an upstream is skipped by routes that have another choice.</p>
${upstreams.map(
  (u) => html`<div class="item" data-upstream="${u.name}"><dl><dt>Upstream</dt><dd>${u.name} (${u.kind})</dd>\
<dt>Circuit</dt><dd>${u.circuit}</dd>
<dt>Float</dt><dd>${u.floatKobo === undefined ? 'unknown' : naira(u.floatKobo)}</dd><dt>Alert below</dt>\
<dd>${u.floatAlertKobo === undefined ? 'none' : naira(u.floatAlertKobo)}</dd>
<dt>Last error</dt><dd>${u.lastError || 'none'}</dd><dt>Last hour</dt>\
<dd>${u.purchasesLastHour} purchases, ${u.failoversLastHour} failovers</dd></dl>
<form method="post" action="/settings/float-alert">${csrfField(viewer)}<input type="hidden" name="name" \
value="${u.name}">
<label for="alert_${u.name}">Float alert in Naira (0 removes it)</label>\
<input id="alert_${u.name}" name="alert" inputmode="decimal" required>
<button type="submit">Set the alert of ${u.name}</button></form></div>`,
)}</section>`;
  return pageAnswer(page('Settings', body, viewer), problem);
}

function routeKey(ctx: PageContext) {
  return {
    product: productOf(field(ctx, 'product')),
    network: field(ctx, 'network'),
    planType: field(ctx, 'plan_type'),
    disco: field(ctx, 'disco'),
  };
}

export const settingsRoutes: Route[] = [
  { method: 'GET', path: BACK, name: 'settings', signedIn: true, handler: (ctx) => settingsPage(ctx) },
  {
    method: 'POST',
    path: '/settings/sms-rate',
    name: 'set_sms_rate',
    signedIn: true,
    async handler(ctx) {
      const render = (problem: string) => settingsPage(ctx, problem);
      const rate = nairaField(field(ctx, 'rate'));
      if (rate === undefined || rate === 0n) return render('Enter the rate in Naira, such as 3.50.');
      return change(BACK, render, async () => {
        await ctx.core.changeCatalogue({ ...session(ctx), change: { case: 'smsRate', value: { koboPerPage: rate } } });
        return `the SMS rate is ${naira(rate)} per page`;
      });
    },
  },
  {
    method: 'POST',
    path: '/settings/routes',
    name: 'set_route',
    signedIn: true,
    async handler(ctx) {
      const key = routeKey(ctx);
      const upstreams = field(ctx, 'upstreams')
        .split(',')
        .map((name) => name.trim())
        .filter((name) => name !== '');
      return change(
        BACK,
        (problem) => settingsPage(ctx, problem),
        async () => {
          await ctx.core.changeCatalogue({ ...session(ctx), change: { case: 'route', value: { key, upstreams } } });
          return `route set: ${upstreams.join(', ')}`;
        },
      );
    },
  },
  {
    method: 'POST',
    path: '/settings/routes/clear',
    name: 'clear_route',
    signedIn: true,
    async handler(ctx) {
      const key = routeKey(ctx);
      return change(
        BACK,
        (problem) => settingsPage(ctx, problem),
        async () => {
          const { changed } = await ctx.core.changeCatalogue({
            ...session(ctx),
            change: { case: 'clearRoute', value: { key } },
          });
          return changed ? 'route removed' : 'there was no such route';
        },
      );
    },
  },
  {
    method: 'POST',
    path: '/settings/float-alert',
    name: 'set_float_alert',
    signedIn: true,
    async handler(ctx) {
      const render = (problem: string) => settingsPage(ctx, problem);
      const alert = nairaField(field(ctx, 'alert'));
      if (alert === undefined) return render('Enter the float alert in Naira, such as 50000 (0 removes it).');
      const name = field(ctx, 'name');
      return change(BACK, render, async () => {
        await ctx.core.changeCatalogue({
          ...session(ctx),
          change: { case: 'floatAlert', value: { name, alertKobo: alert } },
        });
        return alert === 0n ? `${name} has no float alert` : `${name} alerts below ${naira(alert)}`;
      });
    },
  },
];
