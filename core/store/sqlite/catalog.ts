/** The catalog on SQLite: tiers, data plans, cable packages and the SMS rate setting. */
import type Database from 'better-sqlite3';
import { isKobo, type Kobo } from '../../domain/money.js';
import type { PlanType } from '../../domain/products.js';
import type { CablePackageRecord, CatalogSeed, CostRule, PlanRecord, TierRecord } from '../../domain/records.js';
import { requireAmount } from '../bounds.js';
import type { CatalogStore, PlanChangeSet } from '../port.js';
import {
  catalogNeedsSeed,
  requireCommission,
  requirePlanAmounts,
  requireSeed,
  SMS_RATE_SETTING,
  smsRateMissing,
} from '../rules.js';
import { type EventStatements, recordEvent } from './events.js';
import {
  type CablePackageRow,
  cablePackageFromRow,
  cablePackageToParams,
  type PlanRow,
  planFromRow,
  planToParams,
  type TierRow,
  tierFromRow,
  tierToParams,
  toFlag,
} from './rows.js';

function prepareCatalogStatements(db: Database.Database) {
  return {
    countTiers: db.prepare<[], { n: number }>('SELECT count(*) AS n FROM tiers'),
    listTiers: db.prepare<[], TierRow>('SELECT * FROM tiers ORDER BY tier_id'),
    getTier: db.prepare<[string], TierRow>('SELECT * FROM tiers WHERE tier_id = ?'),
    upsertTier: db.prepare<TierRow, TierRow>(
      `INSERT INTO tiers (tier_id, name, api_access, discounts, price_rules)
       VALUES (@tier_id, @name, @api_access, @discounts, @price_rules)
       ON CONFLICT (tier_id) DO UPDATE SET
         name = excluded.name, api_access = excluded.api_access, discounts = excluded.discounts,
         price_rules = excluded.price_rules
       RETURNING *`,
    ),
    listPlans: db.prepare<{ network: string | null; active_only: number }, PlanRow>(
      `SELECT * FROM plans
       WHERE (@network IS NULL OR network = @network) AND (@active_only = 0 OR active = 1)
       ORDER BY network, plan_id`,
    ),
    getPlan: db.prepare<[number], PlanRow>('SELECT * FROM plans WHERE plan_id = ?'),
    // A null plan_id makes SQLite allocate one past the largest id ever used.
    upsertPlan: db.prepare<Omit<PlanRow, 'plan_id'> & { plan_id: number | null }, PlanRow>(
      `INSERT INTO plans (plan_id, network, label, validity, face_value_kobo, tier_prices, active, provider_code,
         plan_type, size_mb, validity_days, costs)
       VALUES (@plan_id, @network, @label, @validity, @face_value_kobo, @tier_prices, @active, @provider_code,
         @plan_type, @size_mb, @validity_days, @costs)
       ON CONFLICT (plan_id) DO UPDATE SET
         network = excluded.network, label = excluded.label, validity = excluded.validity,
         face_value_kobo = excluded.face_value_kobo, tier_prices = excluded.tier_prices,
         active = excluded.active, provider_code = excluded.provider_code, plan_type = excluded.plan_type,
         size_mb = excluded.size_mb, validity_days = excluded.validity_days, costs = excluded.costs
       RETURNING *`,
    ),
    listCablePackages: db.prepare<{ provider: string | null }, CablePackageRow>(
      `SELECT * FROM cable_packages WHERE (@provider IS NULL OR provider = @provider)
       ORDER BY provider, package_code`,
    ),
    getCablePackage: db.prepare<{ provider: string; package_code: string }, CablePackageRow>(
      'SELECT * FROM cable_packages WHERE provider = @provider AND package_code = @package_code',
    ),
    upsertCablePackage: db.prepare<CablePackageRow, CablePackageRow>(
      `INSERT INTO cable_packages (provider, package_code, name, price_kobo, active, provider_code)
       VALUES (@provider, @package_code, @name, @price_kobo, @active, @provider_code)
       ON CONFLICT (provider, package_code) DO UPDATE SET
         name = excluded.name, price_kobo = excluded.price_kobo, active = excluded.active,
         provider_code = excluded.provider_code
       RETURNING *`,
    ),
    typesOff: db.prepare<[], { network: string; plan_type: string }>(
      'SELECT network, plan_type FROM plan_types_off ORDER BY network, plan_type',
    ),
    typeOff: db.prepare<{ network: string; plan_type: string }>(
      'INSERT INTO plan_types_off (network, plan_type) VALUES (@network, @plan_type) ON CONFLICT DO NOTHING',
    ),
    typeOn: db.prepare<{ network: string; plan_type: string }>(
      'DELETE FROM plan_types_off WHERE network = @network AND plan_type = @plan_type',
    ),
    costRules: db.prepare<[], { product: string; service: string; upstream: string; commission_basis_points: number }>(
      'SELECT * FROM cost_rules ORDER BY product, service, upstream',
    ),
    putCostRule: db.prepare<{ product: string; service: string; upstream: string; commission_basis_points: number }>(
      `INSERT INTO cost_rules (product, service, upstream, commission_basis_points)
       VALUES (@product, @service, @upstream, @commission_basis_points)
       ON CONFLICT (product, service, upstream) DO UPDATE SET
         commission_basis_points = excluded.commission_basis_points`,
    ),
    removeCostRule: db.prepare<{ product: string; service: string; upstream: string }>(
      'DELETE FROM cost_rules WHERE product = @product AND service = @service AND upstream = @upstream',
    ),
    getSetting: db.prepare<[string], { value: unknown }>('SELECT value FROM settings WHERE key = ?'),
    setSetting: db.prepare<{ key: string; value: number }>(
      'INSERT INTO settings (key, value) VALUES (@key, @value) ON CONFLICT (key) DO UPDATE SET value = excluded.value',
    ),
  };
}

type CatalogStatements = ReturnType<typeof prepareCatalogStatements>;

/** The catalog's writes, each guarded; the seed runs them all in one transaction. */
function catalogWriters(sql: CatalogStatements) {
  return {
    tier(tier: TierRecord): TierRecord {
      return tierFromRow(sql.upsertTier.get(tierToParams(tier))!);
    },
    plan(plan: PlanRecord): PlanRecord {
      requirePlanAmounts(plan);
      return planFromRow(sql.upsertPlan.get(planToParams(plan))!);
    },
    cablePackage(pkg: CablePackageRecord): CablePackageRecord {
      requireAmount('priceKobo', pkg.priceKobo, 0);
      return cablePackageFromRow(sql.upsertCablePackage.get(cablePackageToParams(pkg))!);
    },
    smsRate(kobo: Kobo): void {
      requireAmount('smsRateKobo', kobo, 0);
      sql.setSetting.run({ key: SMS_RATE_SETTING, value: kobo });
    },
  };
}

export function createCatalogStore(db: Database.Database, events: EventStatements): CatalogStore {
  const sql = prepareCatalogStatements(db);
  const write = catalogWriters(sql);
  // Plans, the switch and the events that announce them commit together (an outbox).
  const changeTx = db.transaction((change: PlanChangeSet): PlanRecord[] => {
    if (change.tier !== undefined) write.tier(change.tier);
    const written = change.plans.map(write.plan);
    const sw = change.typeSwitch;
    if (sw !== undefined) (sw.enabled ? sql.typeOn : sql.typeOff).run({ network: sw.network, plan_type: sw.type });
    for (const event of change.events) recordEvent(events, event);
    return written;
  });
  const seedTx = db.transaction((seed: CatalogSeed): boolean => {
    if (!catalogNeedsSeed(sql.countTiers.get()!.n)) return false;
    seed.tiers.forEach(write.tier);
    seed.plans.forEach(write.plan);
    seed.cablePackages.forEach(write.cablePackage);
    write.smsRate(seed.smsRateKobo);
    return true;
  });

  return {
    async listTiers() {
      return sql.listTiers.all().map(tierFromRow);
    },
    async getTier(tierId) {
      const row = sql.getTier.get(tierId);
      return row ? tierFromRow(row) : null;
    },
    async upsertTier(tier) {
      return write.tier(tier);
    },
    async listPlans(filter = {}) {
      return sql.listPlans
        .all({ network: filter.network ?? null, active_only: toFlag(filter.activeOnly ?? false) })
        .map(planFromRow);
    },
    async getPlan(planId) {
      const row = sql.getPlan.get(planId);
      return row ? planFromRow(row) : null;
    },
    async upsertPlan(plan) {
      return write.plan(plan);
    },
    async listCablePackages(filter = {}) {
      return sql.listCablePackages.all({ provider: filter.provider ?? null }).map(cablePackageFromRow);
    },
    async getCablePackage(provider, packageCode) {
      const row = sql.getCablePackage.get({ provider, package_code: packageCode });
      return row ? cablePackageFromRow(row) : null;
    },
    async upsertCablePackage(pkg) {
      return write.cablePackage(pkg);
    },
    async getSmsRateKobo() {
      const row = sql.getSetting.get(SMS_RATE_SETTING);
      if (row === undefined) throw smsRateMissing();
      if (!isKobo(row.value))
        throw new RangeError(`store: the SMS rate in the database is not whole kobo (${String(row.value)})`);
      return row.value;
    },
    async setSmsRateKobo(kobo) {
      write.smsRate(kobo);
    },
    async listPlanTypesOff() {
      return sql.typesOff.all().map((row) => ({ network: row.network, type: row.plan_type as PlanType }));
    },
    async applyPlanChanges(change) {
      return changeTx.immediate(change);
    },
    async listCostRules() {
      return sql.costRules.all().map(
        (row): CostRule => ({
          product: row.product as CostRule['product'],
          service: row.service,
          upstream: row.upstream,
          commissionBasisPoints: row.commission_basis_points,
        }),
      );
    },
    async setCostRule(key, commissionBasisPoints) {
      const params = { product: key.product, service: key.service, upstream: key.upstream };
      if (commissionBasisPoints === null) {
        sql.removeCostRule.run(params);
        return;
      }
      requireCommission(commissionBasisPoints);
      sql.putCostRule.run({ ...params, commission_basis_points: commissionBasisPoints });
    },
    async seedIfEmpty(seed) {
      requireSeed(seed);
      return seedTx.immediate(seed);
    },
  };
}
