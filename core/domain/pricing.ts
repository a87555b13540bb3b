/**
 * Tier pricing: what an account pays for a face value. A tier's discounts are basis points
 * of the face value per product, optionally per service (network, disco, cable provider);
 * the most specific rule applies. The discount is rounded down to whole kobo, so rounding
 * never gives away more than the published rate.
 */
import { type Kobo, kobo } from './money.js';
import type { ProductName } from './products.js';
import type { CostRule, DiscountRule, PlanRecord, PriceRule, TierRecord } from './records.js';

/** No tier may sell at more than half off: a typo in basis points must not give stock away. */
export const MAX_DISCOUNT_BASIS_POINTS = 5_000;

export function discountBasisPoints(
  tier: Pick<TierRecord, 'discounts'>,
  product: ProductName,
  service: string,
): number {
  let productWide: DiscountRule | undefined;
  for (const rule of tier.discounts) {
    if (rule.product !== product) continue;
    if (rule.service === service) return rule.basisPoints;
    if (rule.service === '') productWide = rule;
  }
  return productWide?.basisPoints ?? 0;
}

export function applyDiscount(faceValueKobo: Kobo, basisPoints: number): Kobo {
  const discountKobo = Math.floor((faceValueKobo * basisPoints) / 10_000);
  return kobo(faceValueKobo - discountKobo);
}

export function priceFor(
  tier: Pick<TierRecord, 'discounts'>,
  product: ProductName,
  service: string,
  faceValueKobo: Kobo,
): Kobo {
  return applyDiscount(faceValueKobo, discountBasisPoints(tier, product, service));
}

/** A margin above this (500%) is a typo, not a price. */
export const MAX_MARGIN_BASIS_POINTS = 50_000;

/**
 * The tier's rule for a plan: the one naming both its network and type, else its network,
 * else its type, else the tier-wide one; undefined when none applies.
 */
function priceRuleFor(
  tier: Partial<Pick<TierRecord, 'priceRules'>>,
  plan: Pick<PlanRecord, 'network' | 'type'>,
): PriceRule | undefined {
  let best: PriceRule | undefined;
  let bestScore = -1;
  for (const rule of tier.priceRules ?? []) {
    if (rule.product !== 'data') continue;
    if (rule.network !== '' && rule.network !== plan.network) continue;
    if (rule.planType !== '' && rule.planType !== plan.type) continue;
    const score = (rule.network !== '' ? 2 : 0) + (rule.planType !== '' ? 1 : 0);
    if (score > bestScore) {
      best = rule;
      bestScore = score;
    }
  }
  return best;
}

/**
 * Cost plus the rule's margin, the percentage rounded up to whole kobo (rounding never
 * gives a margin away), then raised to the floor and lowered to the ceiling. A ceiling may
 * put the price below cost: the margin guard then refuses the sale, which is the point.
 */
function costPlus(costKobo: Kobo, rule: PriceRule): Kobo {
  let price = costKobo + Math.ceil((costKobo * rule.marginBasisPoints) / 10_000) + rule.marginKobo;
  if (rule.floorKobo > 0 && price < rule.floorKobo) price = rule.floorKobo;
  if (rule.ceilingKobo > 0 && price > rule.ceilingKobo) price = rule.ceilingKobo;
  return kobo(price);
}

/**
 * The cost of this plan at upstream `upstream`, or undefined when nobody has told it (no
 * sync, push, observed answer or operator). The one answer to "what does X charge us for
 * it", for the margin guard and for routing.
 */
export function planCostAt(plan: Pick<PlanRecord, 'costsKobo'>, upstream: string): Kobo | undefined {
  return Object.hasOwn(plan.costsKobo, upstream) ? plan.costsKobo[upstream] : undefined;
}

/**
 * The cost a price rule is built on: the highest the plan costs at any upstream that told
 * it, so a price covers its cost wherever the sale is routed.
 */
function pricingCost(plan: Pick<PlanRecord, 'costsKobo'>): Kobo | undefined {
  const costs = Object.values(plan.costsKobo);
  return costs.length === 0 ? undefined : kobo(Math.max(...costs));
}

/**
 * What the tier pays for the plan: its fixed price for the tier where the operator set one;
 * else the tier's price rule over the plan's cost where both exist; else the face value
 * less the tier's data discount, as before costs were known.
 */
export function planPriceFor(
  tier: Pick<TierRecord, 'tierId' | 'discounts'> & Partial<Pick<TierRecord, 'priceRules'>>,
  plan: PlanRecord,
): Kobo {
  if (Object.hasOwn(plan.tierPricesKobo, tier.tierId)) return plan.tierPricesKobo[tier.tierId]!;
  const rule = priceRuleFor(tier, plan);
  const cost = pricingCost(plan);
  if (rule !== undefined && cost !== undefined) return costPlus(cost, rule);
  return priceFor(tier, 'data', plan.network, plan.faceValueKobo);
}

/** The products sold at face value less a tier discount, whose cost is a commission rule. */
export const FACE_VALUE_PRODUCTS = ['airtime', 'electricity', 'cable'] as const satisfies readonly ProductName[];

/** No upstream gives away half of the face value: a commission above 50% is a typo. */
export const MAX_COMMISSION_BASIS_POINTS = 5_000;

/**
 * What `upstream` charges for a face-value sale: the face value less its commission, by
 * the rule for this service, else the product-wide one; undefined when no rule tells it
 * (no cost, no margin guard). The commission is rounded down to whole kobo, so the cost is
 * never understated by rounding. `service` is canonical (a network by its canonical name).
 */
export function faceValueCostAt(
  rules: readonly CostRule[],
  sale: { product: ProductName; service: string; faceValueKobo: Kobo },
  upstream: string,
): Kobo | undefined {
  let productWide: CostRule | undefined;
  let own: CostRule | undefined;
  for (const rule of rules) {
    if (rule.product !== sale.product || rule.upstream !== upstream) continue;
    if (rule.service === sale.service) own = rule;
    else if (rule.service === '') productWide = rule;
  }
  const rule = own ?? productWide;
  if (rule === undefined) return undefined;
  return kobo(sale.faceValueKobo - Math.floor((sale.faceValueKobo * rule.commissionBasisPoints) / 10_000));
}

/**
 * The commission, in basis points, that explains what an upstream charged for a face-value
 * sale under faceValueCostAt's rounding: the smallest rate whose rounded-down commission is
 * exactly the face value less the cost, so a rate read from one sale never understates the
 * cost of the next. Undefined when no rate up to MAX_COMMISSION_BASIS_POINTS gives that cost
 * (a fee on top, a flat commission, a cost above face value): such an answer moves no rule.
 */
export function commissionExplaining(faceValueKobo: Kobo, costKobo: Kobo): number | undefined {
  const commission = faceValueKobo - costKobo;
  if (faceValueKobo <= 0 || commission < 0) return undefined;
  const basisPoints = Math.ceil((commission * 10_000) / faceValueKobo);
  if (basisPoints > MAX_COMMISSION_BASIS_POINTS) return undefined;
  return Math.floor((faceValueKobo * basisPoints) / 10_000) === commission ? basisPoints : undefined;
}

/** A sale of airtime, electricity or cable as pricing sees it; `service` canonical (9mobile, never t2). */
export interface FaceValueSale {
  product: CostRule['product'];
  service: string;
  faceValueKobo: Kobo;
}

/** The tier's rule for a face-value sale: the one naming its service, else the product-wide one. */
function faceValueRuleFor(tier: Partial<Pick<TierRecord, 'priceRules'>>, sale: FaceValueSale): PriceRule | undefined {
  let productWide: PriceRule | undefined;
  for (const rule of tier.priceRules ?? []) {
    if (rule.product !== sale.product) continue;
    if (rule.service === sale.service) return rule;
    if (rule.service === '') productWide = rule;
  }
  return productWide;
}

/**
 * The cost a face-value price rule is built on: the highest any upstream with a cost rule for
 * the sale charges, so the price covers it wherever the sale is routed (as data plans do);
 * undefined when no upstream's commission is known.
 */
function faceValuePricingCost(rules: readonly CostRule[], sale: FaceValueSale): Kobo | undefined {
  let highest: Kobo | undefined;
  const seen = new Set<string>();
  for (const rule of rules) {
    if (rule.product !== sale.product || seen.has(rule.upstream)) continue;
    seen.add(rule.upstream);
    const cost = faceValueCostAt(rules, sale, rule.upstream);
    if (cost !== undefined && (highest === undefined || cost > highest)) highest = cost;
  }
  return highest;
}

/**
 * What the tier pays for a sale of airtime, electricity or cable: the tier's rule over the
 * sale's cost where both exist, else the face value less the tier's discount (as before costs
 * were known). A rule's price is the cost plus the margin, its percentage rounded DOWN to the
 * kobo (rounding favours the account holder), raised to the floor, lowered to the ceiling,
 * then lowered to the face value unless the rule allows more.
 */
export function faceValuePriceFor(
  tier: Pick<TierRecord, 'discounts'> & Partial<Pick<TierRecord, 'priceRules'>>,
  sale: FaceValueSale,
  costRules: readonly CostRule[],
): Kobo {
  const rule = faceValueRuleFor(tier, sale);
  const cost = rule === undefined ? undefined : faceValuePricingCost(costRules, sale);
  if (rule === undefined || cost === undefined) return priceFor(tier, sale.product, sale.service, sale.faceValueKobo);
  let price = cost + Math.floor((cost * rule.marginBasisPoints) / 10_000) + rule.marginKobo;
  if (rule.floorKobo > 0 && price < rule.floorKobo) price = rule.floorKobo;
  if (rule.ceilingKobo > 0 && price > rule.ceilingKobo) price = rule.ceilingKobo;
  if (!rule.aboveFaceValue && price > sale.faceValueKobo) price = sale.faceValueKobo;
  return kobo(price);
}

/** Where a tier's price of a plan comes from, in planPriceFor's order (the console shows it). */
export type PlanPriceBasis = 'fixed' | 'rule' | 'discount';

export function planPriceBasis(
  tier: Pick<TierRecord, 'tierId'> & Partial<Pick<TierRecord, 'priceRules'>>,
  plan: PlanRecord,
): PlanPriceBasis {
  if (Object.hasOwn(plan.tierPricesKobo, tier.tierId)) return 'fixed';
  return priceRuleFor(tier, plan) !== undefined && pricingCost(plan) !== undefined ? 'rule' : 'discount';
}
