/**
 * Tier pricing: what an account pays for a face value. A tier's discounts are basis points
 * of the face value per product, optionally per service (network, disco, cable provider);
 * the most specific rule applies. The discount is rounded down to whole kobo, so rounding
 * never gives away more than the published rate.
 */
import { type Kobo, kobo } from './money.js';
import type { ProductName } from './products.js';
import type { DiscountRule, PlanRecord, TierRecord } from './records.js';

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

/** A plan's own price for the tier if it has one, else its face value less the tier's data discount. */
export function planPriceFor(tier: Pick<TierRecord, 'tierId' | 'discounts'>, plan: PlanRecord): Kobo {
  return plan.tierPricesKobo[tier.tierId] ?? priceFor(tier, 'data', plan.network, plan.faceValueKobo);
}
