/**
 * Catalog administration: tiers and their discounts, data plans, cable packages and the
 * SMS page rate. Every change is validated here so a typo cannot put a wrong price on sale.
 */
import { type FieldViolation, notFound, throwIfViolations } from '../domain/errors.js';
import { isKobo, type Kobo, kobo, MAX_AMOUNT_KOBO } from '../domain/money.js';
import { MAX_DISCOUNT_BASIS_POINTS } from '../domain/pricing.js';
import {
  CABLE_PROVIDERS,
  canonicalNetwork,
  isOneOf,
  NETWORK_NAMES,
  NETWORKS,
  PLAN_TYPES,
  type PlanType,
  PRODUCTS,
  planTypeIsOff,
  SERVICES_BY_PRODUCT,
} from '../domain/products.js';
import type { CablePackageRecord, PlanRecord, PriceRule, TierRecord } from '../domain/records.js';
import { hasControlCharacters } from '../domain/validation.js';
import type { Store } from '../store/port.js';
import type { ChangeAuthor, PlanChanges } from './changes.js';
import { checkPriceRule, isRuleFor, type PriceRuleTarget, type PriceRuleTerms } from './price-rules.js';

const TIER_ID = /^[a-z][a-z0-9_-]{0,31}$/;
/** Labels are shown to partners and customers: short, printable. */
const MAX_LABEL_LENGTH = 60;
/** A plan bigger than 10TB or longer than ten years is a typo, not a plan. */
const MAX_PLAN_SIZE_MB = 10 * 1024 * 1024;
const MAX_VALIDITY_DAYS = 3650;
/** Who changes the catalogue through the admin service: the operator's token. */
const author: ChangeAuthor = { actor: 'cli', note: '' };
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

/** Upstream names as the providers give them ("vtpass", "clubkonnect", a named instance). */
const UPSTREAM_NAME = /^[a-z][a-z0-9_-]{0,31}$/;

function checkPlanFacts(plan: PlanRecord, violations: FieldViolation[]): void {
  if (!isOneOf(PLAN_TYPES, plan.type))
    violations.push({ field: 'plan.type', description: `type must be one of ${PLAN_TYPES.join(', ')}.` });
  if (!Number.isSafeInteger(plan.sizeMb) || plan.sizeMb < 0 || plan.sizeMb > MAX_PLAN_SIZE_MB)
    violations.push({ field: 'plan.size_mb', description: `size_mb must be 0 (unknown) to ${MAX_PLAN_SIZE_MB}.` });
  if (!Number.isSafeInteger(plan.validityDays) || plan.validityDays < 0 || plan.validityDays > MAX_VALIDITY_DAYS)
    violations.push({
      field: 'plan.validity_days',
      description: `validity_days must be 0 (unknown) to ${MAX_VALIDITY_DAYS}.`,
    });
}

/** Why a plan is refused, if it is; `tierIds` are the tiers there are, for its prices. */
function planViolations(plan: PlanRecord, tierIds: ReadonlySet<string>): FieldViolation[] {
  const violations: FieldViolation[] = [];
  if (!Number.isSafeInteger(plan.planId) || plan.planId < 0)
    violations.push({ field: 'plan.plan_id', description: 'plan_id must be 0 (new) or a positive integer.' });
  if (!isOneOf(NETWORKS, plan.network))
    violations.push({ field: 'plan.network', description: `network must be one of ${NETWORKS.join(', ')}.` });
  checkLabel('plan.label', plan.label, violations);
  checkLabel('plan.validity', plan.validity, violations);
  checkPrice('plan.face_value_kobo', plan.faceValueKobo, violations);
  checkProviderCode('plan.provider_code', plan.providerCode, violations);
  checkPlanFacts(plan, violations);
  for (const [tierId, price] of Object.entries(plan.tierPricesKobo)) {
    if (!tierIds.has(tierId))
      violations.push({ field: 'plan.tier_prices', description: `tier ${JSON.stringify(tierId)} does not exist.` });
    checkPrice(`plan.tier_prices[${tierId}]`, price, violations);
  }
  for (const [upstream, cost] of Object.entries(plan.costsKobo)) {
    if (!UPSTREAM_NAME.test(upstream)) violations.push({ field: 'plan.costs', description: 'bad upstream name.' });
    checkPrice(`plan.costs[${upstream}]`, cost, violations);
  }
  return violations;
}

/** Why a tier is refused, if it is: its id, its name, and each discount's product, service and size. */
function tierViolations(tier: TierRecord): FieldViolation[] {
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
  return violations;
}

/** What each group of the catalogue's methods works over. */
interface CatalogContext {
  catalog: Store['catalog'];
  auditLog: Store['auditLog'];
  changes: PlanChanges;
  clock: () => Date;
}

/** The audit row of a change partners are not told about (a tier's name or discounts, the SMS rate). */
async function audited(
  { auditLog, clock }: CatalogContext,
  who: ChangeAuthor,
  action: string,
  target: string,
  before: unknown,
  after: unknown,
) {
  await auditLog.append({
    at: clock(),
    actor: who.actor,
    action,
    target,
    before: before === null ? null : JSON.stringify(before),
    after: JSON.stringify(after),
    address: who.address ?? null,
    note: who.note,
  });
}

async function requirePlan(catalog: Store['catalog'], planId: number): Promise<PlanRecord> {
  const plan = Number.isSafeInteger(planId) && planId > 0 ? await catalog.getPlan(planId) : null;
  if (plan === null) throw notFound(`Plan ${planId}`);
  return plan;
}

/** The tiers: their names, API access and discounts, their price rules, and the SMS page rate. */
function tierMethods(context: CatalogContext) {
  const { catalog, changes } = context;
  return {
    listTiers: () => catalog.listTiers(),

    /** Creates or replaces a tier (its name, API access and discounts), audited with before and after. */
    async upsertTier(asked: TierRecord, who: ChangeAuthor = author): Promise<TierRecord> {
      // A network's discount may name it t2; it is kept under 9mobile, the name prices are read by.
      const tier: TierRecord = {
        ...asked,
        discounts: asked.discounts.map((d) =>
          (d.product === 'airtime' || d.product === 'data') && d.service !== ''
            ? { ...d, service: canonicalNetwork(d.service) ?? d.service }
            : d,
        ),
      };
      throwIfViolations(tierViolations(tier));
      const before = await catalog.getTier(tier.tierId);
      const written = await catalog.upsertTier(tier);
      await audited(context, who, 'tiers.upsert', `tier:${tier.tierId}`, before, written);
      return written;
    },

    /**
     * Sets a tier's price rule (a data rule for one network and plan type; an airtime,
     * electricity or cable rule for one service or all), replacing the one there, or removes
     * it with `rule` null; every price it makes follows at once (prices are computed when
     * read). Accounts on the tier whose data price changed are told (plan.updated).
     */
    async setPriceRule(
      tierId: string,
      target: PriceRuleTarget,
      rule: PriceRuleTerms | null,
      who: ChangeAuthor = author,
    ): Promise<{ tier: TierRecord; events: number }> {
      const key = checkPriceRule(target, rule);
      const before = await catalog.getTier(tierId);
      if (!before) throw notFound(`Tier ${tierId}`);
      const others = before.priceRules.filter((r) => !isRuleFor(r, key));
      const next: PriceRule | null = rule === null ? null : { ...rule, ...key };
      const after: TierRecord = { ...before, priceRules: next === null ? others : [...others, next] };
      // Only a data rule moves plan prices partners are told about.
      const plans = key.product === 'data' ? await catalog.listPlans({ activeOnly: true }) : [];
      const scope =
        key.product === 'data'
          ? `${key.network || '*'}/${key.planType || '*'}`
          : `${key.product}/${key.service || '*'}`;
      const result = await changes.apply(
        {
          plans: plans.map((p) => ({ before: p, after: p })),
          tier: { before, after },
          audit: {
            action: rule === null ? 'prices.rule_removed' : 'prices.rule',
            target: `tier:${tierId}/${scope}`,
            before: before.priceRules.find((r) => isRuleFor(r, key)) ?? null,
            after: next,
          },
        },
        who,
      );
      // Plans the rule does not touch are rewritten unchanged; only the tier moved.
      void result.plans;
      return { tier: after, events: result.events };
    },

    getSmsRate: () => catalog.getSmsRateKobo(),

    async setSmsRate(koboPerPage: Kobo, who: ChangeAuthor = author): Promise<Kobo> {
      if (!isKobo(koboPerPage) || koboPerPage <= 0 || koboPerPage > MAX_SMS_RATE_KOBO) {
        const description = `kobo_per_page must be 1 to ${MAX_SMS_RATE_KOBO}.`;
        throwIfViolations([{ field: 'kobo_per_page', description }]);
      }
      const before = await catalog.getSmsRateKobo();
      await catalog.setSmsRateKobo(koboPerPage);
      await audited(
        context,
        who,
        'prices.sms_rate',
        'sms_rate',
        { kobo_per_page: before },
        { kobo_per_page: koboPerPage },
      );
      return koboPerPage;
    },

    async requireTier(tierId: string): Promise<TierRecord> {
      const tier = await catalog.getTier(tierId);
      if (!tier) throw notFound(`Tier ${tierId}`);
      return tier;
    },
  };
}

/** The data plans: kept, switched off by type, and what each upstream charges for them. */
function planMethods(context: CatalogContext) {
  const { catalog, changes } = context;
  return {
    listPlans: (network: string) => catalog.listPlans(network ? { network } : {}),

    listPlanTypesOff: () => catalog.listPlanTypesOff(),

    getPlan: (planId: number) => catalog.getPlan(planId),

    async upsertPlan(plan: PlanRecord): Promise<PlanRecord> {
      const tierIds = new Set((await catalog.listTiers()).map((t) => t.tierId));
      throwIfViolations(planViolations(plan, tierIds));
      const before = plan.planId === 0 ? null : await catalog.getPlan(plan.planId);
      // A new plan announces nothing (partners see it in ?action=plans); a change to one
      // partners can buy is told to them with the change.
      if (before === null) return catalog.upsertPlan(plan);
      const [written] = (
        await changes.apply(
          {
            plans: [{ before, after: plan }],
            audit: { action: 'plans.upsert', target: `plan:${plan.planId}`, before, after: plan },
          },
          author,
        )
      ).plans;
      return written!;
    },

    /**
     * Switches every plan of one type on one network off (or on again): `?action=plans` stops
     * (or starts) listing them, a purchase of one is 422 PLAN_DISABLED, and accounts that
     * could buy them get plan.disabled (plan.updated) events. False when nothing changed.
     */
    async setPlanTypeEnabled(
      networkName: string,
      planType: string,
      enabled: boolean,
      who: ChangeAuthor = author,
    ): Promise<{ changed: boolean; plans: PlanRecord[]; events: number }> {
      const violations: FieldViolation[] = [];
      const network = canonicalNetwork(networkName);
      if (network === undefined)
        violations.push({ field: 'network', description: `network must be one of ${NETWORK_NAMES.join(', ')}.` });
      if (!isOneOf(PLAN_TYPES, planType))
        violations.push({ field: 'plan_type', description: `plan_type must be one of ${PLAN_TYPES.join(', ')}.` });
      throwIfViolations(violations);
      const type = planType as PlanType;
      const plans = (await catalog.listPlans({ network })).filter((p) => p.type === type);
      // throwIfViolations refused an unknown network above.
      const wasOff = planTypeIsOff(await catalog.listPlanTypesOff(), { network: network!, type });
      if (wasOff === !enabled) return { changed: false, plans, events: 0 };
      const result = await changes.apply(
        {
          plans: plans.map((p) => ({ before: p, after: p })),
          typeSwitch: { network: network!, type, enabled },
          audit: {
            action: enabled ? 'plans.type_enabled' : 'plans.type_disabled',
            target: `${network}/${type}`,
            before: { enabled: !enabled },
            after: { enabled, plan_ids: plans.map((p) => p.planId) },
          },
        },
        who,
      );
      return { changed: true, plans: result.plans, events: result.events };
    },

    /**
     * Sets what `upstream` charges for a plan (0 forgets it). Every price built on the cost
     * follows at once; accounts whose price changed are told (plan.updated).
     */
    async setPlanCost(
      planId: number,
      upstream: string,
      costKobo: Kobo,
      who: ChangeAuthor = author,
      source = 'operator',
    ): Promise<{ plan: PlanRecord; events: number }> {
      const violations: FieldViolation[] = [];
      if (!UPSTREAM_NAME.test(upstream))
        violations.push({ field: 'upstream', description: 'upstream must be an upstream name such as "vtpass".' });
      if (!isKobo(costKobo) || costKobo < 0 || costKobo > MAX_AMOUNT_KOBO)
        violations.push({ field: 'cost_kobo', description: `cost_kobo must be 0 (forget) to ${MAX_AMOUNT_KOBO}.` });
      throwIfViolations(violations);
      const before = await requirePlan(catalog, planId);
      const costsKobo = { ...before.costsKobo };
      if (costKobo === 0) delete costsKobo[upstream];
      else costsKobo[upstream] = costKobo;
      const after = { ...before, costsKobo };
      const result = await changes.apply(
        {
          plans: [{ before, after }],
          audit: {
            action: 'prices.cost',
            target: `plan:${planId}`,
            before: { upstream, cost_kobo: before.costsKobo[upstream] ?? null },
            after: { upstream, cost_kobo: costKobo === 0 ? null : costKobo, source },
          },
        },
        who,
      );
      return { plan: result.plans[0]!, events: result.events };
    },
  };
}

/** The cable packages, checked before they are kept. */
function cableMethods(catalog: Store['catalog']) {
  return {
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
  };
}

export function createCatalogService(deps: {
  store: Pick<Store, 'catalog' | 'auditLog'>;
  changes: PlanChanges;
  clock?: () => Date;
}) {
  const context: CatalogContext = {
    catalog: deps.store.catalog,
    auditLog: deps.store.auditLog,
    changes: deps.changes,
    clock: deps.clock ?? (() => new Date()),
  };
  return { ...tierMethods(context), ...planMethods(context), ...cableMethods(context.catalog) };
}

export type CatalogService = ReturnType<typeof createCatalogService>;
