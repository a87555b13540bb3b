/**
 * The catalogue (admin changes it, every role reads it): tiers and their discounts, and the
 * data plans with their type, what each upstream charges, each tier's price and where it comes
 * from (a fixed price overrides the tier's rule), the tiers' cost-plus price rules, and plan
 * types switched on or off by network. Every change is a ChangeCatalogue call: the core makes
 * it with the admin service's own use case and audits it with the member and their address.
 */
import { NETWORKS, PLAN_TYPES, PRODUCTS } from '../../core/domain/products.js';
import { soldProductWord } from '../../core/domain/words.js';
import type { Tier } from '../../gen/prepaid/v1/admin_pb.js';
import type { GetCatalogueResponse } from '../../gen/prepaid/v1/console_pb.js';
import { Product } from '../../gen/prepaid/v1/types_pb.js';
import { html, type SafeHtml } from '../../web/html.js';
import { csrfField, page, type StaffViewer } from '../layout.js';
import type { Answer, PageContext, Route, SignedInContext } from '../route.js';
import {
  change,
  doneNotice,
  errorSummary,
  field,
  naira,
  nairaField,
  pageAnswer,
  percentField,
  percentText,
  productLabel,
  productOf,
  select,
  session,
} from './forms.js';

/** Blank discount rows each tier's form offers for new discounts. */
const NEW_DISCOUNT_ROWS = 2;
/** The most discount rows a form is read for (a tier has one per product and service at most). */
const MAX_DISCOUNT_ROWS = 40;
/** A network no plan is on: the tiers page reads the tiers without the plans. */
const NO_PLANS = '-';

function discountRows(tier: Tier | undefined, prefix: string): SafeHtml {
  const rows = [
    ...(tier?.discounts ?? []).map((d) => ({
      product: productLabel(d.product),
      service: d.service,
      percent: String(d.basisPoints / 100),
    })),
    ...Array.from({ length: NEW_DISCOUNT_ROWS }, () => ({ product: '', service: '', percent: '' })),
  ];
  return html`<table><thead><tr><th>Product</th><th>Service (empty: all)</th><th>Discount %</th></tr></thead>\
<tbody>${rows.map(
    (row, i) => html`<tr>
<td><label class="visually-hidden" for="${prefix}p${i}">Product of \
discount ${i + 1}</label>${select(`${prefix}p${i}`, `product_${i}`, PRODUCTS, row.product, 'none')}</td>
<td><label class="visually-hidden" for="${prefix}s${i}">Service of discount ${i + 1}</label>\
<input id="${prefix}s${i}" name="service_${i}" value="${row.service}"></td>
<td><label class="visually-hidden" for="${prefix}d${i}">Percent of discount ${i + 1}</label>\
<input id="${prefix}d${i}" name="percent_${i}" inputmode="decimal" value="${row.percent}"></td></tr>`,
  )}</tbody></table>`;
}

/** A tier's discounts in a line: product, service when one is named, and percentage. */
function discountsText(tier: Tier): string {
  if (tier.discounts.length === 0) return 'none';
  return tier.discounts
    .map((d) => `${productLabel(d.product)}${d.service ? `/${d.service}` : ''} ${percentText(d.basisPoints)}`)
    .join(', ');
}

function tierForm(viewer: StaffViewer, tier: Tier | undefined): SafeHtml {
  const id = tier === undefined ? 'new' : `t_${tier.tierId}`;
  return html`<form method="post" action="/catalogue/tiers">${csrfField(viewer)}
${
  tier === undefined
    ? html`<label for="${id}_id">Tier id (lower-case letters, digits, "_" or "-")</label>\
<input id="${id}_id" name="tier_id" required>`
    : html`<input type="hidden" name="tier_id" value="${tier.tierId}">`
}
<label for="${id}_name">Name</label><input id="${id}_name" name="name" value="${tier?.name ?? ''}" required>
<label for="${id}_api">API access</label>\
${select(`${id}_api`, 'api_access', ['no', 'yes'], tier?.apiAccess ? 'yes' : 'no')}
${discountRows(tier, id)}
<button type="submit">${tier === undefined ? 'Create the tier' : `Save tier ${tier.tierId}`}</button></form>`;
}

/** A tier's data rules (airtime, electricity and cable rules are on catalogue-costs.ts's page). */
const dataRules = (tier: Tier) =>
  tier.priceRules.filter((r) => r.product === '' || r.product === soldProductWord(Product.DATA));

function rulesOf(tier: Tier): SafeHtml {
  const rules = dataRules(tier);
  return rules.length === 0
    ? html`<p>No price rules: data plans cost the face value less the data discount, or a fixed price.</p>`
    : html`<ul>${rules.map(
        (r) =>
          html`<li>${r.network || 'every network'}, ${r.planType || 'every type'}: \
cost plus ${percentText(r.marginBasisPoints)} plus ${naira(r.marginKobo)}\
${r.floorKobo > 0n ? html`, at least ${naira(r.floorKobo)}` : ''}\
${r.ceilingKobo > 0n ? html`, at most ${naira(r.ceilingKobo)}` : ''}</li>`,
      )}</ul>`;
}

async function tiersPage(ctx: SignedInContext, problem = ''): Promise<Answer> {
  const viewer = ctx.viewer;
  const { tiers } = await ctx.core.getCatalogue({ ...session(ctx), network: NO_PLANS });
  const body = html`<h1>Tiers and discounts</h1>
${doneNotice(ctx)}${errorSummary(problem)}
<p>A discount is a percentage off the face value of a product (one network, disco or provider when a service is \
named). Data plans priced by a rule or a fixed price are on the <a href="/catalogue/plans">Data plans</a> page.</p>
${tiers.map(
  (t) => html`<section class="item" data-tier="${t.tierId}"><h2>${t.name} (${t.tierId})</h2>
<dl><dt>API access</dt><dd>${t.apiAccess ? 'yes' : 'no'}</dd>
<dt>Discounts</dt><dd>${discountsText(t)}</dd></dl>
<h3>Data price rules</h3>${rulesOf(t)}
${tierForm(viewer, t)}</section>`,
)}
<section><h2>New tier</h2>${tierForm(viewer, undefined)}</section>`;
  return pageAnswer(page('Tiers and discounts', body, viewer), problem);
}

async function saveTier(ctx: SignedInContext): Promise<Answer> {
  const render = (problem: string) => tiersPage(ctx, problem);
  const discounts: { product: Product; service: string; basisPoints: number }[] = [];
  for (let i = 0; i < MAX_DISCOUNT_ROWS; i++) {
    const product = field(ctx, `product_${i}`);
    const percent = field(ctx, `percent_${i}`);
    if (product === '' && percent === '') continue;
    const basisPoints = percentField(percent);
    if (basisPoints === undefined)
      return render(`Discount ${i + 1}: enter the percentage as a number such as 2 or 2.5.`);
    discounts.push({ product: productOf(product), service: field(ctx, `service_${i}`), basisPoints });
  }
  const tierId = field(ctx, 'tier_id');
  return change('/catalogue/tiers', render, async () => {
    await ctx.core.changeCatalogue({
      ...session(ctx),
      change: {
        case: 'tier',
        value: { tier: { tierId, name: field(ctx, 'name'), apiAccess: field(ctx, 'api_access') === 'yes', discounts } },
      },
    });
    return `tier ${tierId} saved`;
  });
}

function planRows(catalogue: GetCatalogueResponse): SafeHtml {
  return html`<table><thead><tr><th>Plan</th><th>Network</th><th>Label</th><th>Type</th><th>Validity</th>\
<th>Face value</th><th>Costs</th><th>Prices by tier</th><th>State</th></tr></thead>
<tbody>${catalogue.plans.map(({ plan, prices }) => {
    const p = plan!;
    return html`<tr data-plan="${String(p.planId)}"><td>${String(p.planId)}</td><td>${p.network}</td>\
<td>${p.label}</td><td>${p.type || '-'}</td><td>${p.validity}</td>
<td>${naira(p.faceValueKobo)}</td>
<td>${p.costs.length === 0 ? '-' : p.costs.map((c) => html`${c.upstream} ${naira(c.costKobo)}<br>`)}</td>
<td>${prices.map(
      (tp) =>
        html`${tp.tierId} ${naira(tp.priceKobo)}${
          tp.basis === 'fixed'
            ? html` \
<strong class="flag">fixed</strong>`
            : ` (${tp.basis})`
        }<br>`,
    )}</td>
<td>${p.active ? (p.typeEnabled ? 'on sale' : 'type switched off') : 'inactive'}</td></tr>`;
  })}</tbody></table>`;
}

async function plansPage(ctx: SignedInContext, problem = ''): Promise<Answer> {
  const viewer = ctx.viewer;
  const network = (ctx.url.searchParams.get('network') ?? '').slice(0, 40);
  const catalogue = await ctx.core.getCatalogue({ ...session(ctx), network });
  const tierIds = catalogue.tiers.map((t) => t.tierId);
  const back = network === '' ? '' : `?network=${encodeURIComponent(network)}`;
  const body = html`<h1>Data plans and prices</h1>
${doneNotice(ctx)}${errorSummary(problem)}
<form method="get" action="/catalogue/plans"><label \
for="network">Network</label>${select('network', 'network', NETWORKS, network, 'every network')}
<button type="submit">Show</button></form>
<p>A tier's price is its <strong>fixed</strong> price for the plan where one is set (it overrides any rule); else its \
price rule over the highest upstream cost; else the face value less its data discount.</p>
${catalogue.plans.length === 0 ? html`<p>No plans.</p>` : planRows(catalogue)}
<section><h2>Set what an upstream charges</h2>
<form method="post" action="/catalogue/plans/cost${back}">${csrfField(viewer)}
<label for="cost_plan">Plan id</label><input id="cost_plan" name="plan_id" inputmode="numeric" required>
<label for="cost_upstream">Upstream</label><input id="cost_upstream" name="upstream" required>
<label for="cost_naira">Cost in Naira (0 forgets it)</label>\
<input id="cost_naira" name="cost" inputmode="decimal" required>
<label for="cost_note">Why (kept in the audit log)</label><input id="cost_note" name="note">
<button type="submit">Set the cost</button></form></section>
<section><h2>Price rules of the tiers</h2>
${catalogue.tiers.map(
  (t) =>
    html`<div class="item" data-rules="${t.tierId}"><h3>${t.name} (${t.tierId})</h3>${rulesOf(t)}${dataRules(t).map(
      (r) => html`<form method="post" action="/catalogue/plans/rule${back}" class="inline">${csrfField(viewer)}
<input type="hidden" name="tier_id" value="${t.tierId}"><input type="hidden" name="network" value="${r.network}">
<input type="hidden" name="plan_type" value="${r.planType}"><input type="hidden" name="remove" value="yes">
<button type="submit" class="warning">Remove the rule \
for ${r.network || 'every network'}, ${r.planType || 'every type'}</button></form> `,
    )}</div>`,
)}
<h3>Set a rule</h3>
<form method="post" action="/catalogue/plans/rule${back}">${csrfField(viewer)}
<label for="rule_tier">Tier</label>${select('rule_tier', 'tier_id', tierIds)}
<label for="rule_network">Network</label>${select('rule_network', 'network', NETWORKS, '', 'every network')}
<label for="rule_type">Plan type</label>${select('rule_type', 'plan_type', PLAN_TYPES, '', 'every type')}
<label for="rule_pct">Margin, percent of the cost</label><input id="rule_pct" name="margin_percent" inputmode="decimal">
<label for="rule_flat">Margin in Naira, added</label><input id="rule_flat" name="margin_naira" inputmode="decimal">
<label for="rule_floor">Floor in Naira (empty: none)</label><input id="rule_floor" name="floor" inputmode="decimal">
<label for="rule_ceiling">Ceiling in Naira (empty: none)</label>\
<input id="rule_ceiling" name="ceiling" inputmode="decimal">
<label for="rule_note">Why (kept in the audit log)</label><input id="rule_note" name="note">
<button type="submit">Save the rule</button></form></section>
<section><h2>Switch a plan type on or off</h2>
<form method="post" action="/catalogue/plans/type${back}">${csrfField(viewer)}
<label for="type_network">Network</label>${select('type_network', 'network', NETWORKS)}
<label for="type_type">Plan type</label>${select('type_type', 'plan_type', PLAN_TYPES)}
<label for="type_note">Why (kept in the audit log)</label><input id="type_note" name="note">
<button type="submit" name="enabled" value="no" class="warning">Stop selling</button>
<button type="submit" name="enabled" value="yes">Sell again</button></form></section>`;
  return pageAnswer(page('Data plans and prices', body, viewer), problem);
}

/** The plans page's address to go back to, with its network filter. */
const plansBack = (ctx: PageContext) => {
  const network = ctx.url.searchParams.get('network') ?? '';
  return network === '' ? '/catalogue/plans' : `/catalogue/plans?network=${encodeURIComponent(network.slice(0, 40))}`;
};

export const catalogueRoutes: Route[] = [
  { method: 'GET', path: '/catalogue/tiers', name: 'tiers', signedIn: true, handler: (ctx) => tiersPage(ctx) },
  { method: 'POST', path: '/catalogue/tiers', name: 'save_tier', signedIn: true, handler: saveTier },
  { method: 'GET', path: '/catalogue/plans', name: 'plans', signedIn: true, handler: (ctx) => plansPage(ctx) },
  {
    method: 'POST',
    path: '/catalogue/plans/cost',
    name: 'set_plan_cost',
    signedIn: true,
    async handler(ctx) {
      const render = (problem: string) => plansPage(ctx, problem);
      const planId = field(ctx, 'plan_id');
      const cost = nairaField(field(ctx, 'cost'));
      if (!/^\d{1,15}$/.test(planId)) return render('Enter the plan id, a whole number from the table.');
      if (cost === undefined) return render('Enter the cost in Naira, such as 480 or 480.50 (0 forgets it).');
      const upstream = field(ctx, 'upstream');
      return change(plansBack(ctx), render, async () => {
        const { events } = await ctx.core.changeCatalogue({
          ...session(ctx),
          change: {
            case: 'planCost',
            value: { planId: BigInt(planId), upstream, costKobo: cost, note: field(ctx, 'note') },
          },
        });
        return `plan ${planId} costs ${naira(cost)} at ${upstream}; ${events} event(s) for partners`;
      });
    },
  },
  {
    method: 'POST',
    path: '/catalogue/plans/rule',
    name: 'set_price_rule',
    signedIn: true,
    async handler(ctx) {
      const render = (problem: string) => plansPage(ctx, problem);
      const remove = field(ctx, 'remove') === 'yes';
      const marginBasisPoints = percentField(field(ctx, 'margin_percent'));
      const amounts = (['margin_naira', 'floor', 'ceiling'] as const).map((name) => nairaField(field(ctx, name)));
      if (marginBasisPoints === undefined) return render('Enter the margin as a percentage such as 5 or 2.5.');
      const [marginKobo, floorKobo, ceilingKobo] = amounts;
      if (marginKobo === undefined || floorKobo === undefined || ceilingKobo === undefined)
        return render('Enter the margin, floor and ceiling in Naira, such as 20 or 20.50, or leave them empty.');
      const tierId = field(ctx, 'tier_id');
      const network = field(ctx, 'network');
      const planType = field(ctx, 'plan_type');
      return change(plansBack(ctx), render, async () => {
        const { events } = await ctx.core.changeCatalogue({
          ...session(ctx),
          change: {
            case: 'priceRule',
            value: {
              tierId,
              rule: { network, planType, marginBasisPoints, marginKobo, floorKobo, ceilingKobo },
              remove,
              note: field(ctx, 'note'),
            },
          },
        });
        const scope = `${network || 'every network'}, ${planType || 'every type'}`;
        return `${remove ? 'removed' : 'saved'} the rule of ${tierId} for ${scope}; ${events} event(s) for partners`;
      });
    },
  },
  {
    method: 'POST',
    path: '/catalogue/plans/type',
    name: 'switch_plan_type',
    signedIn: true,
    async handler(ctx) {
      const enabled = field(ctx, 'enabled') === 'yes';
      const network = field(ctx, 'network');
      const planType = field(ctx, 'plan_type');
      return change(
        plansBack(ctx),
        (problem) => plansPage(ctx, problem),
        async () => {
          const { changed, events } = await ctx.core.changeCatalogue({
            ...session(ctx),
            change: { case: 'planType', value: { network, planType, enabled, note: field(ctx, 'note') } },
          });
          const state = enabled ? 'on sale' : 'switched off';
          return changed
            ? `${planType} plans on ${network} are ${state}; ${events} event(s) for partners`
            : `${planType} plans on ${network} were already ${state}`;
        },
      );
    },
  },
];
