/**
 * What an upstream said it charged, kept after a live purchase is delivered (docs/upstreams.md,
 * docs/products.md), in the background and best-effort: never on the purchase's answer, and a
 * failure here is a log line, not a failed purchase.
 *
 * - The attempt that got the purchase: a purchase answered pending and found delivered later
 *   (re-query, callback) has its attempt marked delivered with the cost then. The purchase's
 *   own delivered answer records its cost when the attempt ends (upstream-calls.ts).
 * - The data plan's cost at that upstream: when the cost differs from the plan's stored cost
 *   there, it is set through the catalogue's cost-setting use case (source `observed`, actor
 *   `system`, audited), which reprices the tiers built on it and tells partners (plan.updated).
 *   A cost equal to the stored one, or to one this core is writing now, writes nothing, so a
 *   stream of purchases at the same cost costs one read each and one write at most.
 * - The commission of airtime, electricity and cable: when the upstream's
 *   cost differs from what the commission rule in force says, the rule the operator set for
 *   that product at that upstream follows the answer (the smallest rate that explains the
 *   cost exactly: commissionExplaining), through the cost rules' own use case (actor
 *   `system`, audited as `prices.commission`), and every tier price built on it moves. It
 *   reads the rules kept in memory, never the store. It never creates a rule where the
 *   operator set none (which products are guarded stays the operator's choice), and a cost
 *   no rate explains (a fee on top, a flat commission) moves nothing and is logged at warn.
 */
import type { Kobo } from '../domain/money.js';
import { commissionExplaining, FACE_VALUE_PRODUCTS, faceValueCostAt, planCostAt } from '../domain/pricing.js';
import { canonicalNetwork, isOneOf } from '../domain/products.js';
import type { CostRule, TransactionRecord } from '../domain/records.js';
import type { AttemptEnd, Store } from '../store/port.js';

/** The catalogue's cost-setting use case (core/catalog/service.ts setPlanCost), as this needs it. */
export type SetPlanCost = (
  planId: number,
  upstream: string,
  costKobo: Kobo,
  who: { actor: string; note: string },
  source: string,
) => Promise<unknown>;

/** The cost rules of airtime, electricity and cable as this needs them (core/catalog/costs.ts). */
export interface CommissionRules {
  current(): Promise<readonly CostRule[]>;
  set(
    request: { product: string; service: string; upstream: string; commissionBasisPoints: number | null },
    author: { actor: string; note: string },
  ): Promise<unknown>;
}

export interface CostObserver {
  /** A live purchase was delivered (its settlement changed it); `costKobo` when its upstream stated one. */
  delivered(tx: TransactionRecord, costKobo: Kobo | undefined): Promise<void>;
}

/**
 * Whether a delivery leaves anything here to do. Not when its own attempt ended delivered in
 * the settle (its cost written there) unless it is a data plan with a cost stated: then the
 * background read of its attempts would find nothing to write (a read a purchase).
 */
export function leavesCostToRecord(
  tx: TransactionRecord,
  costKobo: Kobo | undefined,
  ended: AttemptEnd | undefined,
): boolean {
  if (ended?.outcome !== 'delivered') return true;
  return (tx.product === 'data' || isOneOf(FACE_VALUE_PRODUCTS, tx.product)) && costKobo !== undefined && costKobo > 0;
}

export function createCostObserver(deps: {
  store: Pick<Store, 'supply' | 'ledger' | 'catalog'>;
  setPlanCost: SetPlanCost;
  /** Absent: commissions are never followed (tests of the plan costs alone). */
  commissions?: CommissionRules;
  clock: () => Date;
  log: (event: string, fields: Record<string, unknown>) => void;
}): CostObserver {
  /** Costs being written now per "<plan>:<upstream>", so concurrent deliveries at one new cost write it once. */
  const writing = new Map<string, Kobo>();
  const followCommission = commissionFollower(deps);

  async function observePlan(tx: TransactionRecord, upstream: string, costKobo: Kobo): Promise<void> {
    const planId = tx.details.planId;
    // One purchase is one plan: its cost is the plan's cost at the upstream. A zero cost would
    // make the catalogue forget the cost, so it is never taken as an observation.
    if (tx.product !== 'data' || planId === undefined || costKobo <= 0) return;
    const key = `${planId}:${upstream}`;
    if (writing.get(key) === costKobo) return;
    const plan = await deps.store.catalog.getPlan(planId);
    if (plan === null || planCostAt(plan, upstream) === costKobo || writing.get(key) === costKobo) return;
    writing.set(key, costKobo);
    try {
      await deps.setPlanCost(
        planId,
        upstream,
        costKobo,
        { actor: 'system', note: `cost observed in the answer to purchase ${tx.reference}` },
        'observed',
      );
    } finally {
      if (writing.get(key) === costKobo) writing.delete(key);
    }
    deps.log('catalog.cost_observed', {
      reference: tx.reference,
      plan_id: planId,
      upstream,
      before_kobo: planCostAt(plan, upstream) ?? null,
      cost_kobo: costKobo,
    });
  }

  return {
    async delivered(tx, costKobo) {
      try {
        const attempts = await deps.store.supply.attemptsOf(tx.reference);
        const last = attempts.at(-1);
        if (last === undefined) return;
        if (last.outcome !== 'delivered')
          await deps.store.ledger.post({
            kind: 'cost_learnt',
            reference: tx.reference,
            seq: last.seq,
            costKobo: costKobo ?? null,
            at: deps.clock(),
          });
        if (costKobo !== undefined) await observePlan(tx, last.upstream, costKobo);
        if (costKobo !== undefined) await followCommission(tx, last.upstream, costKobo);
      } catch (error) {
        deps.log('purchase.cost_not_recorded', {
          level: 'warn',
          reference: tx.reference,
          error: error instanceof Error ? error.message : String(error),
        });
      }
    },
  };
}

/**
 * Follows an upstream's stated cost of an airtime, electricity or cable sale into the
 * commission rule in force for it (see the file's comment); one write per new rate even when
 * many deliveries state it at once.
 */
function commissionFollower(deps: {
  commissions?: CommissionRules;
  log: (event: string, fields: Record<string, unknown>) => void;
}): (tx: TransactionRecord, upstream: string, costKobo: Kobo) => Promise<void> {
  const writing = new Map<string, number>();
  return async (tx, upstream, costKobo) => {
    const commissions = deps.commissions;
    if (commissions === undefined || !isOneOf(FACE_VALUE_PRODUCTS, tx.product) || costKobo <= 0) return;
    const service = tx.product === 'airtime' ? (canonicalNetwork(tx.service) ?? tx.service) : tx.service;
    const sale = { product: tx.product, service, faceValueKobo: tx.faceValueKobo };
    // Only a rule in force for the sale (its service's, else the product-wide one) follows.
    const ruled = faceValueCostAt(await commissions.current(), sale, upstream);
    if (ruled === undefined || ruled === costKobo) return;
    const fields = { reference: tx.reference, product: tx.product, service, upstream, cost_kobo: costKobo };
    const basisPoints = commissionExplaining(tx.faceValueKobo, costKobo);
    if (basisPoints === undefined) {
      deps.log('pricing.commission_unexplained', { level: 'warn', ...fields, face_value_kobo: tx.faceValueKobo });
      return;
    }
    const key = `${tx.product}:${service}:${upstream}`;
    if (writing.get(key) === basisPoints) return;
    writing.set(key, basisPoints);
    try {
      await commissions.set(
        { product: tx.product, service, upstream, commissionBasisPoints: basisPoints },
        { actor: 'system', note: `commission observed in the answer to purchase ${tx.reference}` },
      );
    } finally {
      if (writing.get(key) === basisPoints) writing.delete(key);
    }
    deps.log('pricing.commission_observed', { ...fields, commission_basis_points: basisPoints });
  };
}
