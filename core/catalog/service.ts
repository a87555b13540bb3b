/**
 * Catalog administration: tiers and their discounts, data plans, cable packages and the
 * SMS page rate. Every change is validated here so a typo cannot put a wrong price on sale.
 */
import { type FieldViolation, notFound, throwIfViolations } from '../domain/errors.js';
import { isKobo, type Kobo, kobo, MAX_AMOUNT_KOBO } from '../domain/money.js';
import { MAX_DISCOUNT_BASIS_POINTS } from '../domain/pricing.js';
import { CABLE_PROVIDERS, isOneOf, NETWORKS, PRODUCTS, SERVICES_BY_PRODUCT } from '../domain/products.js';
import type { CablePackageRecord, PlanRecord, TierRecord } from '../domain/records.js';
import { hasControlCharacters } from '../domain/validation.js';
import type { Store } from '../store/port.js';

const TIER_ID = /^[a-z][a-z0-9_-]{0,31}$/;
/** Labels are shown to partners and customers: short, printable. */
const MAX_LABEL_LENGTH = 60;
/** An SMS page above 1,000 Naira is a typo, not a price. */
const MAX_SMS_RATE_KOBO: Kobo = kobo(1_000_00);

function checkLabel(field: string, value: string, violations: FieldViolation[]): void {
  if (value.trim() === '' || value.length > MAX_LABEL_LENGTH || hasControlCharacters(value)) {
    violations.push({ field, description: `${field} must be 1 to ${MAX_LABEL_LENGTH} printable characters.` });
  }
}

function checkPrice(field: string, value: Kobo, violations: FieldViolation[]): void {
  if (!isKobo(value) || value <= 0 || value > MAX_AMOUNT_KOBO) {
    violations.push({ field, description: `${field} must be a positive number of kobo up to ${MAX_AMOUNT_KOBO}.` });
  }
}

/** Upstream codes are short machine identifiers such as "mtn-10mb-100"; empty means none. */
function checkProviderCode(field: string, value: string, violations: FieldViolation[]): void {
  if (value !== '' && !/^[A-Za-z0-9._ -]{1,60}$/.test(value)) {
    violations.push({ field, description: `${field} must be up to 60 letters, digits, ".", "_", "-" or spaces.` });
  }
}

export function createCatalogService(deps: { store: Pick<Store, 'catalog'> }) {
  const { catalog } = deps.store;

  return {
    listTiers: () => catalog.listTiers(),

    async upsertTier(tier: TierRecord): Promise<TierRecord> {
      const violations: FieldViolation[] = [];
      if (!TIER_ID.test(tier.tierId))
        violations.push({
          field: 'tier.tier_id',
          description: 'tier_id must be 1 to 32 lower-case letters, digits, "_" or "-", starting with a letter.',
        });
      checkLabel('tier.name', tier.name, violations);
      const seen = new Set<string>();
      tier.discounts.forEach((d, i) => {
        const field = `tier.discounts[${i}]`;
        if (!isOneOf(PRODUCTS, d.product))
          violations.push({ field: `${field}.product`, description: 'product must be set.' });
        else if (d.service !== '' && !SERVICES_BY_PRODUCT[d.product].includes(d.service)) {
          violations.push({
            field: `${field}.service`,
            description: `service ${JSON.stringify(d.service)} is not a ${d.product} service.`,
          });
        }
        if (!Number.isInteger(d.basisPoints) || d.basisPoints < 0 || d.basisPoints > MAX_DISCOUNT_BASIS_POINTS) {
          violations.push({
            field: `${field}.basis_points`,
            description: `basis_points must be 0 to ${MAX_DISCOUNT_BASIS_POINTS}.`,
          });
        }
        const key = `${d.product}/${d.service}`;
        if (seen.has(key)) violations.push({ field, description: `a second discount for ${key}.` });
        seen.add(key);
      });
      throwIfViolations(violations);
      return catalog.upsertTier(tier);
    },

    listPlans: (network: string) => catalog.listPlans(network ? { network } : {}),

    async upsertPlan(plan: PlanRecord): Promise<PlanRecord> {
      const violations: FieldViolation[] = [];
      if (!Number.isSafeInteger(plan.planId) || plan.planId < 0)
        violations.push({ field: 'plan.plan_id', description: 'plan_id must be 0 (new) or a positive integer.' });
      if (!isOneOf(NETWORKS, plan.network))
        violations.push({ field: 'plan.network', description: `network must be one of ${NETWORKS.join(', ')}.` });
      checkLabel('plan.label', plan.label, violations);
      checkLabel('plan.validity', plan.validity, violations);
      checkPrice('plan.face_value_kobo', plan.faceValueKobo, violations);
      checkProviderCode('plan.provider_code', plan.providerCode, violations);
      const tierIds = new Set((await catalog.listTiers()).map((t) => t.tierId));
      for (const [tierId, price] of Object.entries(plan.tierPricesKobo)) {
        if (!tierIds.has(tierId))
          violations.push({ field: 'plan.tier_prices', description: `tier ${JSON.stringify(tierId)} does not exist.` });
        checkPrice(`plan.tier_prices[${tierId}]`, price, violations);
      }
      throwIfViolations(violations);
      return catalog.upsertPlan(plan);
    },

    listCablePackages: (provider: string) => catalog.listCablePackages(provider ? { provider } : {}),

    async upsertCablePackage(pkg: CablePackageRecord): Promise<CablePackageRecord> {
      const violations: FieldViolation[] = [];
      if (!isOneOf(CABLE_PROVIDERS, pkg.provider))
        violations.push({
          field: 'package.provider',
          description: `provider must be one of ${CABLE_PROVIDERS.join(', ')}.`,
        });
      checkLabel('package.package_code', pkg.packageCode, violations);
      checkLabel('package.name', pkg.name, violations);
      checkPrice('package.price_kobo', pkg.priceKobo, violations);
      checkProviderCode('package.provider_code', pkg.providerCode, violations);
      throwIfViolations(violations);
      return catalog.upsertCablePackage({ ...pkg, packageCode: pkg.packageCode.trim() });
    },

    getSmsRate: () => catalog.getSmsRateKobo(),

    async setSmsRate(koboPerPage: Kobo): Promise<Kobo> {
      if (!isKobo(koboPerPage) || koboPerPage <= 0 || koboPerPage > MAX_SMS_RATE_KOBO) {
        const description = `kobo_per_page must be 1 to ${MAX_SMS_RATE_KOBO}.`;
        throwIfViolations([{ field: 'kobo_per_page', description }]);
      }
      await catalog.setSmsRateKobo(koboPerPage);
      return koboPerPage;
    },

    async requireTier(tierId: string): Promise<TierRecord> {
      const tier = await catalog.getTier(tierId);
      if (!tier) throw notFound(`Tier ${tierId}`);
      return tier;
    },
  };
}

export type CatalogService = ReturnType<typeof createCatalogService>;
