/**
 * Checking a tier's price rule (core/domain/pricing.ts) before the catalog keeps it: which
 * sales it names (a data rule: a network and a plan type; an airtime, electricity or cable
 * rule: a network, disco or cable provider) and its margin, floor and ceiling.
 */
import { type FieldViolation, throwIfViolations } from '../domain/errors.js';
import { isKobo, MAX_AMOUNT_KOBO } from '../domain/money.js';
import { FACE_VALUE_PRODUCTS, MAX_MARGIN_BASIS_POINTS } from '../domain/pricing.js';
import { canonicalNetwork, isOneOf, NETWORK_NAMES, PLAN_TYPES, SERVICES_BY_PRODUCT } from '../domain/products.js';
import type { CostRule, PricedProduct, PriceRule } from '../domain/records.js';

/** Which rule of a tier: the key a new rule replaces the old one by. */
export type PriceRuleTarget = Pick<PriceRule, 'product' | 'network' | 'planType' | 'service'>;
/** What a rule says, beside its target. */
export type PriceRuleTerms = Omit<PriceRule, keyof PriceRuleTarget>;

/**
 * A face-value product's service as rules name it ('' for every one; a network by its
 * canonical name, t2 being 9mobile), or undefined with a violation on `field`.
 */
export function faceValueService(
  product: CostRule['product'],
  service: string,
  field: string,
  violations: FieldViolation[],
): string | undefined {
  if (service === '') return '';
  if (product === 'airtime') {
    const network = canonicalNetwork(service);
    if (network === undefined)
      violations.push({ field, description: `network must be one of ${NETWORK_NAMES.join(', ')}.` });
    return network;
  }
  if (SERVICES_BY_PRODUCT[product].includes(service)) return service;
  const what = product === 'electricity' ? 'disco' : 'cable provider';
  violations.push({ field, description: `${what} must be one of ${SERVICES_BY_PRODUCT[product].join(', ')}.` });
  return undefined;
}

function checkTarget(target: PriceRuleTarget, violations: FieldViolation[]): PriceRuleTarget {
  const product = target.product;
  if (product === 'data') {
    const network = target.network === '' ? '' : canonicalNetwork(target.network);
    if (network === undefined)
      violations.push({
        field: 'rule.network',
        description: `network must be empty or one of ${NETWORK_NAMES.join(', ')}.`,
      });
    if (target.planType !== '' && !isOneOf(PLAN_TYPES, target.planType))
      violations.push({
        field: 'rule.plan_type',
        description: `plan_type must be empty or one of ${PLAN_TYPES.join(', ')}.`,
      });
    if (target.service !== '')
      violations.push({
        field: 'rule.service',
        description: 'data rules name a network and plan type, not a service.',
      });
    return { product, network: network ?? '', planType: target.planType, service: '' };
  }
  if (!isOneOf(FACE_VALUE_PRODUCTS, product)) {
    violations.push({
      field: 'rule.product',
      description: `product must be data, ${FACE_VALUE_PRODUCTS.join(', ')} (empty for data).`,
    });
    return target;
  }
  if (target.planType !== '')
    violations.push({ field: 'rule.plan_type', description: `${product} rules have no plan_type.` });
  // An airtime rule may name its network either way.
  const named = target.service !== '' ? target.service : product === 'airtime' ? target.network : '';
  if (product !== 'airtime' && target.network !== '')
    violations.push({ field: 'rule.network', description: `${product} rules name a service, not a network.` });
  const service = faceValueService(product, named, 'rule.service', violations) ?? '';
  return { product, network: '', planType: '', service };
}

function checkTerms(product: PricedProduct, rule: PriceRuleTerms, violations: FieldViolation[]): void {
  const bp = rule.marginBasisPoints;
  if (!Number.isInteger(bp) || bp < 0 || bp > MAX_MARGIN_BASIS_POINTS)
    violations.push({
      field: 'rule.margin_basis_points',
      description: `margin_basis_points must be 0 to ${MAX_MARGIN_BASIS_POINTS}.`,
    });
  for (const [field, value] of [
    ['rule.margin_kobo', rule.marginKobo],
    ['rule.floor_kobo', rule.floorKobo],
    ['rule.ceiling_kobo', rule.ceilingKobo],
  ] as const) {
    if (!isKobo(value) || value < 0 || value > MAX_AMOUNT_KOBO)
      violations.push({ field, description: `${field.slice(5)} must be 0 to ${MAX_AMOUNT_KOBO} kobo.` });
  }
  if (rule.floorKobo > 0 && rule.ceilingKobo > 0 && rule.floorKobo > rule.ceilingKobo)
    violations.push({ field: 'rule.floor_kobo', description: 'floor_kobo must not be above ceiling_kobo.' });
  if (product === 'data' && rule.aboveFaceValue)
    violations.push({
      field: 'rule.above_face_value',
      description: 'above_face_value is for airtime, electricity and cable; a data rule has its ceiling.',
    });
}

/** The rule's target in canonical form (t2 is 9mobile), or a 422 naming every bad field. */
export function checkPriceRule(target: PriceRuleTarget, rule: PriceRuleTerms | null): PriceRuleTarget {
  const violations: FieldViolation[] = [];
  const canonical = checkTarget(target, violations);
  if (rule !== null) checkTerms(canonical.product, rule, violations);
  throwIfViolations(violations);
  return canonical;
}

/** Whether a tier's rule is the one `target` names. */
export function isRuleFor(rule: PriceRule, target: PriceRuleTarget): boolean {
  return (
    rule.product === target.product &&
    rule.network === target.network &&
    rule.planType === target.planType &&
    rule.service === target.service
  );
}
