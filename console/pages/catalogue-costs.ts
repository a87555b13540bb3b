/**
 * Airtime, electricity and cable prices: what each
 * upstream charges for them (its commission off the face value, per product and network, disco
 * or provider) and each tier's price rule over that cost. Every role reads them; an admin
 * changes them through ChangeCatalogue, which makes the change with the admin service's own
 * use case and audits it with the member and their address.
 */
import { FACE_VALUE_PRODUCTS } from '../../core/domain/pricing.js';
import { soldProductWord } from '../../core/domain/words.js';
import type { CostRule, PriceRule, Tier } from '../../gen/prepaid/v1/admin_pb.js';
import { Product } from '../../gen/prepaid/v1/types_pb.js';
import { html, type SafeHtml } from '../../web/html.js';
import { csrfField, page, type StaffViewer } from '../layout.js';
import type { Answer, Route, SignedInContext } from '../route.js';
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
  select,
  session,
} from './forms.js';

const PATH = '/catalogue/costs';
/** The console reads the tiers without the plans: no plan is on this network. */
const NO_PLANS = '-';

const serviceText = (service: string) => service || 'every one';

function costRows(viewer: StaffViewer, rules: readonly CostRule[]): SafeHtml {
  if (rules.length === 0) return html`<p>No commissions told: these products have no cost and no margin guard.</p>`;
  return html`<table><thead><tr><th>Product</th><th>Network, disco or provider</th><th>Upstream</th>
<th>Commission</th><th></th></tr></thead>
<tbody>${rules.map(
    (r) => html`<tr data-cost="${r.product}/${r.service}/${r.upstream}"><td>${r.product}</td>
<td>${serviceText(r.service)}</td><td>${r.upstream}</td><td>${percentText(r.commissionBasisPoints)}</td>
<td><form method="post" action="${PATH}/commission" class="inline">${csrfField(viewer)}
<input type="hidden" name="product" value="${r.product}"><input type="hidden" name="service" value="${r.service}">
<input type="hidden" name="upstream" value="${r.upstream}"><input type="hidden" name="remove" value="yes">
<button type="submit" class="warning">Remove the commission of ${r.upstream} on ${r.product}
${serviceText(r.service)}</button>
</form></td></tr>`,
  )}</tbody></table>`;
}

function ruleText(r: PriceRule): SafeHtml {
  const floor = r.floorKobo > 0n ? html`, at least ${naira(r.floorKobo)}` : '';
  const ceiling = r.ceilingKobo > 0n ? html`, at most ${naira(r.ceilingKobo)}` : '';
  const faceValue = r.aboveFaceValue ? ', may pass the face value' : ', never above the face value';
  const margin = html`cost plus ${percentText(r.marginBasisPoints)} plus ${naira(r.marginKobo)}`;
  return html`${r.product} (${serviceText(r.service)}): ${margin}${floor}${ceiling}${faceValue}`;
}

function tierRules(viewer: StaffViewer, tier: Tier): SafeHtml {
  const rules = tier.priceRules.filter((r) => r.product !== '' && r.product !== soldProductWord(Product.DATA));
  return html`<div class="item" data-face-rules="${tier.tierId}"><h3>${tier.name} (${tier.tierId})</h3>${
    rules.length === 0
      ? html`<p>No rules: face value less the tier's discount.</p>`
      : html`<ul>${rules.map(
          (r) => html`<li>${ruleText(r)} <form method="post" action="${PATH}/rule" class="inline">${csrfField(viewer)}
<input type="hidden" name="tier_id" value="${tier.tierId}"><input type="hidden" name="product" value="${r.product}">
<input type="hidden" name="service" value="${r.service}"><input type="hidden" name="remove" value="yes">
<button type="submit" class="warning">Remove the ${r.product} rule of ${tier.tierId} for
${serviceText(r.service)}</button>
</form></li>`,
        )}</ul>`
  }</div>`;
}

async function costsPage(ctx: SignedInContext, problem = ''): Promise<Answer> {
  const viewer = ctx.viewer;
  const { tiers, costRules } = await ctx.core.getCatalogue({ ...session(ctx), network: NO_PLANS });
  const body = html`<h1>Airtime, electricity and cable prices</h1>
${doneNotice(ctx)}${errorSummary(problem)}
<p>An upstream sells these at face value less its commission: that is their cost. A tier's rule prices them at
the highest such cost plus a margin (the percentage rounded down to the kobo), within its floor and ceiling, and never
above the face value unless the rule allows it. Without a rule, or with no commission told, the tier's discount prices
them. A sale below its cost at an upstream goes to another upstream of its route, and is refused when none covers
it.</p>
<section><h2>What the upstreams charge</h2>${costRows(viewer, costRules)}
<h3>Set a commission</h3>
<form method="post" action="${PATH}/commission">${csrfField(viewer)}
<label for="cost_product">Product</label>${select('cost_product', 'product', FACE_VALUE_PRODUCTS)}
<label for="cost_service">Network, disco or provider (empty: every one)</label><input id="cost_service" name="service">
<label for="cost_upstream">Upstream</label><input id="cost_upstream" name="upstream" required>
<label for="cost_pct">Commission, percent of the face value</label>
<input id="cost_pct" name="commission_percent" inputmode="decimal" required>
<label for="cost_note">Why (kept in the audit log)</label><input id="cost_note" name="note">
<button type="submit">Set the commission</button></form></section>
<section><h2>Price rules of the tiers</h2>${tiers.map((t) => tierRules(viewer, t))}
<h3>Set a rule</h3>
<form method="post" action="${PATH}/rule">${csrfField(viewer)}
<label for="rule_tier">Tier</label>${select(
    'rule_tier',
    'tier_id',
    tiers.map((t) => t.tierId),
  )}
<label for="rule_product">Product</label>${select('rule_product', 'product', FACE_VALUE_PRODUCTS)}
<label for="rule_service">Network, disco or provider (empty: every one)</label><input id="rule_service" name="service">
<label for="rule_pct">Margin, percent of the cost</label><input id="rule_pct" name="margin_percent" inputmode="decimal">
<label for="rule_flat">Margin in Naira per sale, added</label>
<input id="rule_flat" name="margin_naira" inputmode="decimal">
<label for="rule_floor">Floor in Naira (empty: none)</label><input id="rule_floor" name="floor" inputmode="decimal">
<label for="rule_ceiling">Ceiling in Naira (empty: the face value)</label>
<input id="rule_ceiling" name="ceiling" inputmode="decimal">
<label for="rule_above">Above the face value</label>${select('rule_above', 'above_face_value', ['no', 'yes'], 'no')}
<label for="rule_note">Why (kept in the audit log)</label><input id="rule_note" name="note">
<button type="submit">Save the rule</button></form></section>`;
  return pageAnswer(page('Airtime, electricity and cable prices', body, viewer), problem);
}

async function setCommission(ctx: SignedInContext): Promise<Answer> {
  const render = (problem: string) => costsPage(ctx, problem);
  const remove = field(ctx, 'remove') === 'yes';
  const commissionBasisPoints = remove ? 0 : percentField(field(ctx, 'commission_percent'));
  if (commissionBasisPoints === undefined) return render('Enter the commission as a percentage such as 3 or 2.5.');
  const [product, service, upstream] = [field(ctx, 'product'), field(ctx, 'service'), field(ctx, 'upstream')];
  return change(PATH, render, async () => {
    const { changed } = await ctx.core.changeCatalogue({
      ...session(ctx),
      change: {
        case: 'costRule',
        value: { rule: { product, service, upstream, commissionBasisPoints }, remove, note: field(ctx, 'note') },
      },
    });
    const what = `the commission of ${upstream} on ${product} ${serviceText(service)}`;
    if (!changed) return `${what} was already so`;
    return remove ? `removed ${what}` : `${what} is ${percentText(commissionBasisPoints)}`;
  });
}

async function setRule(ctx: SignedInContext): Promise<Answer> {
  const render = (problem: string) => costsPage(ctx, problem);
  const remove = field(ctx, 'remove') === 'yes';
  const marginBasisPoints = percentField(field(ctx, 'margin_percent'));
  if (marginBasisPoints === undefined) return render('Enter the margin as a percentage such as 5 or 2.5.');
  const [marginKobo, floorKobo, ceilingKobo] = (['margin_naira', 'floor', 'ceiling'] as const).map((name) =>
    nairaField(field(ctx, name)),
  );
  if (marginKobo === undefined || floorKobo === undefined || ceilingKobo === undefined)
    return render('Enter the margin, floor and ceiling in Naira, such as 20 or 20.50, or leave them empty.');
  const [tierId, product, service] = [field(ctx, 'tier_id'), field(ctx, 'product'), field(ctx, 'service')];
  // The form offers only these; a forged product would otherwise be read as a data rule.
  if (!(FACE_VALUE_PRODUCTS as readonly string[]).includes(product))
    return render(`Choose the product: ${FACE_VALUE_PRODUCTS.join(', ')}.`);
  const aboveFaceValue = field(ctx, 'above_face_value') === 'yes';
  return change(PATH, render, async () => {
    await ctx.core.changeCatalogue({
      ...session(ctx),
      change: {
        case: 'priceRule',
        value: {
          tierId,
          rule: { product, service, marginBasisPoints, marginKobo, floorKobo, ceilingKobo, aboveFaceValue },
          remove,
          note: field(ctx, 'note'),
        },
      },
    });
    return `${remove ? 'removed' : 'saved'} the ${product} rule of ${tierId} for ${serviceText(service)}`;
  });
}

export const catalogueCostRoutes: Route[] = [
  { method: 'GET', path: PATH, name: 'face_value_prices', signedIn: true, handler: (ctx) => costsPage(ctx) },
  { method: 'POST', path: `${PATH}/commission`, name: 'set_commission', signedIn: true, handler: setCommission },
  { method: 'POST', path: `${PATH}/rule`, name: 'set_face_value_rule', signedIn: true, handler: setRule },
];
