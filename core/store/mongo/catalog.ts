/** The catalog on MongoDB: tiers, data plans, cable packages, the SMS rate setting and the plan id counter. */
import { type ClientSession, type Filter, Long } from 'mongodb';
import type { Kobo } from '../../domain/money.js';
import type { PlanType } from '../../domain/products.js';
import type { CablePackageRecord, CostRule, PlanRecord } from '../../domain/records.js';
import { requireAmount } from '../bounds.js';
import type { CatalogStore, CostRuleKey } from '../port.js';
import {
  catalogNeedsSeed,
  requireCommission,
  requirePlanAmounts,
  requireSeed,
  SMS_RATE_SETTING,
  smsRateMissing,
} from '../rules.js';
import { bounded, type Collections, MAX_LIST_ITEMS, type MongoContext } from './context.js';
import {
  type CablePackageDoc,
  cablePackageFields,
  cablePackageFromDoc,
  type PlanDoc,
  planFields,
  planFromDoc,
  readInteger,
  readKobo,
  type TierDoc,
  tierFromDoc,
  tierToDoc,
  toLong,
} from './documents.js';
import { deliversTo, writeEventIn } from './events.js';

/** The counter that holds the largest plan id ever allocated or written. */
const PLAN_ID_COUNTER = 'plan_id';
/**
 * A plan type switched off on a network is a settings document with this prefix
 * (`plan_type_off:mtn:sme`); switching it on removes the document.
 */
const TYPE_OFF_PREFIX = 'plan_type_off:';
/**
 * A cost rule is a settings document too (`cost_rule:airtime:mtn:vtpass`, `cost_rule:cable::vtpass`
 * for every provider) whose value is the commission in basis points. Product, service and
 * upstream names hold no colon (the catalog checks them), so the id splits back into them.
 */
const COST_RULE_PREFIX = 'cost_rule:';

function costRuleId(key: CostRuleKey): string {
  return `${COST_RULE_PREFIX}${key.product}:${key.service}:${key.upstream}`;
}

/** The catalog's writes, each optionally inside a transaction's session. */
function catalogWriters(live: () => Collections) {
  return {
    async tier(tier: TierDoc, session?: ClientSession): Promise<TierDoc> {
      const { _id, ...fields } = tier;
      const doc = await live().tiers.findOneAndReplace({ _id }, fields, {
        upsert: true,
        returnDocument: 'after',
        session,
      });
      return doc!;
    },
    /**
     * Writes a plan; planId 0 allocates one past the largest id ever allocated or written.
     * The counter only ever grows ($inc, $max), so an id is never handed out twice even if a
     * plan were removed by hand: partners keep plan ids in their own code.
     */
    async plan(plan: PlanRecord, session: ClientSession): Promise<PlanRecord> {
      requirePlanAmounts(plan);
      const fields = planFields(plan);
      const c = live();
      let planId = plan.planId;
      if (planId === 0) {
        const counter = await c.counters.findOneAndUpdate(
          { _id: PLAN_ID_COUNTER },
          { $inc: { value: Long.ONE } },
          { upsert: true, returnDocument: 'after', session },
        );
        planId = readInteger(counter!.value, 'counters.plan_id');
      } else {
        await c.counters.updateOne(
          { _id: PLAN_ID_COUNTER },
          { $max: { value: toLong(planId, 'planId') } },
          { upsert: true, session },
        );
      }
      const doc = await c.plans.findOneAndUpdate(
        { _id: planId },
        { $set: fields },
        { upsert: true, returnDocument: 'after', session },
      );
      return planFromDoc(doc!);
    },
    async cablePackage(pkg: CablePackageRecord, session?: ClientSession): Promise<CablePackageRecord> {
      requireAmount('priceKobo', pkg.priceKobo, 0);
      const doc = await live().cablePackages.findOneAndUpdate(
        { provider: pkg.provider, package_code: pkg.packageCode },
        { $set: cablePackageFields(pkg) },
        { upsert: true, returnDocument: 'after', session },
      );
      return cablePackageFromDoc(doc!);
    },
    async smsRate(kobo: Kobo, session?: ClientSession): Promise<void> {
      requireAmount('smsRateKobo', kobo, 0);
      await live().settings.updateOne(
        { _id: SMS_RATE_SETTING },
        { $set: { value: toLong(kobo, 'smsRateKobo') } },
        { upsert: true, session },
      );
    },
  };
}

/** The cost rules, as settings documents (COST_RULE_PREFIX). */
function costRuleMethods(live: () => Collections): Pick<CatalogStore, 'listCostRules' | 'setCostRule'> {
  return {
    async listCostRules() {
      const docs = await live()
        .settings.find({ _id: { $regex: `^${COST_RULE_PREFIX}` } })
        .sort({ _id: 1 })
        .limit(MAX_LIST_ITEMS + 1)
        .toArray();
      return bounded(docs, 'cost rules').map((doc): CostRule => {
        const [product = '', service = '', upstream = ''] = doc._id.slice(COST_RULE_PREFIX.length).split(':');
        return {
          product: product as CostRule['product'],
          service,
          upstream,
          commissionBasisPoints: readInteger(doc.value, 'settings.cost_rule'),
        };
      });
    },
    async setCostRule(key, commissionBasisPoints) {
      const _id = costRuleId(key);
      if (commissionBasisPoints === null) {
        await live().settings.deleteOne({ _id });
        return;
      }
      requireCommission(commissionBasisPoints);
      await live().settings.updateOne(
        { _id },
        { $set: { value: toLong(commissionBasisPoints, 'commissionBasisPoints') } },
        { upsert: true },
      );
    },
  };
}

export function createCatalogStore(ctx: MongoContext): CatalogStore {
  const { live, inTransaction } = ctx;
  const write = catalogWriters(live);
  return {
    async listTiers() {
      const docs = await live()
        .tiers.find({})
        .sort({ _id: 1 })
        .limit(MAX_LIST_ITEMS + 1)
        .toArray();
      return bounded(docs, 'tiers').map(tierFromDoc);
    },
    async getTier(tierId) {
      const doc = await live().tiers.findOne({ _id: tierId });
      return doc === null ? null : tierFromDoc(doc);
    },
    async upsertTier(tier) {
      return tierFromDoc(await write.tier(tierToDoc(tier)));
    },
    async listPlans(filter = {}) {
      const query: Filter<PlanDoc> = {};
      if (filter.network !== undefined) query.network = filter.network;
      if (filter.activeOnly === true) query.active = true;
      const docs = await live()
        .plans.find(query)
        .sort({ network: 1, _id: 1 })
        .limit(MAX_LIST_ITEMS + 1)
        .toArray();
      return bounded(docs, 'plans').map(planFromDoc);
    },
    async getPlan(planId) {
      const doc = await live().plans.findOne({ _id: planId });
      return doc === null ? null : planFromDoc(doc);
    },
    async upsertPlan(plan) {
      // A transaction, so that the id counter and the plan can never disagree.
      return inTransaction((session) => write.plan(plan, session));
    },
    async listCablePackages(filter = {}) {
      const query: Filter<CablePackageDoc> = filter.provider === undefined ? {} : { provider: filter.provider };
      const docs = await live()
        .cablePackages.find(query)
        .sort({ provider: 1, package_code: 1 })
        .limit(MAX_LIST_ITEMS + 1)
        .toArray();
      return bounded(docs, 'cable packages').map(cablePackageFromDoc);
    },
    async getCablePackage(provider, packageCode) {
      const doc = await live().cablePackages.findOne({ provider, package_code: packageCode });
      return doc === null ? null : cablePackageFromDoc(doc);
    },
    async upsertCablePackage(pkg) {
      return write.cablePackage(pkg);
    },
    async getSmsRateKobo() {
      const doc = await live().settings.findOne({ _id: SMS_RATE_SETTING });
      if (doc === null) throw smsRateMissing();
      return readKobo(doc.value, 'settings.sms_rate_kobo');
    },
    async setSmsRateKobo(kobo) {
      await write.smsRate(kobo);
    },
    async listPlanTypesOff() {
      const docs = await live()
        .settings.find({ _id: { $regex: `^${TYPE_OFF_PREFIX}` } })
        .sort({ _id: 1 })
        .limit(MAX_LIST_ITEMS + 1)
        .toArray();
      return bounded(docs, 'plan types off').map((doc) => {
        const [network = '', type = ''] = doc._id.slice(TYPE_OFF_PREFIX.length).split(':');
        return { network, type: type as PlanType };
      });
    },
    ...costRuleMethods(live),
    async applyPlanChanges(change) {
      for (const plan of change.plans) planFields(plan);
      // The plans, the switch and the events that announce them commit together (an outbox).
      return inTransaction(async (session) => {
        if (change.tier !== undefined) await write.tier(tierToDoc(change.tier), session);
        const written: PlanRecord[] = [];
        for (const plan of change.plans) written.push(await write.plan(plan, session));
        const sw = change.typeSwitch;
        if (sw !== undefined) {
          const _id = `${TYPE_OFF_PREFIX}${sw.network}:${sw.type}`;
          if (sw.enabled) await live().settings.deleteOne({ _id }, { session });
          else await live().settings.updateOne({ _id }, { $set: { value: Long.ONE } }, { upsert: true, session });
        }
        for (const event of change.events) {
          const deliver = await deliversTo(ctx, session, event.accountId, event.mode);
          await writeEventIn(ctx, session, event, deliver);
        }
        return written;
      });
    },
    async seedIfEmpty(seed) {
      // Validated before the transaction, so that a bad seed fails without a round trip.
      requireSeed(seed);
      for (const plan of seed.plans) planFields(plan);
      for (const pkg of seed.cablePackages) cablePackageFields(pkg);
      const tiers = seed.tiers.map(tierToDoc);
      // Two cores seeding at once both write the same tier documents; one transaction wins
      // and the other is retried by the driver, finds the tiers and does nothing.
      return inTransaction(async (session) => {
        if (!catalogNeedsSeed(await live().tiers.countDocuments({}, { session, limit: 1 }))) return false;
        for (const tier of tiers) await write.tier(tier, session);
        for (const plan of seed.plans) await write.plan(plan, session);
        for (const pkg of seed.cablePackages) await write.cablePackage(pkg, session);
        await write.smsRate(seed.smsRateKobo, session);
        return true;
      });
    },
  };
}
