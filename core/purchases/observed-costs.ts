/**
 * What an upstream said it charged, kept after a live purchase is delivered (issue 27 item 6,
 * issue 34 item 5), in the background and best-effort: never on the purchase's answer, and a
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
 */
import type { Kobo } from '../domain/money.js';
import { planCostAt } from '../domain/pricing.js';
import type { TransactionRecord } from '../domain/records.js';
import type { AttemptEnd, Store } from '../store/port.js';

/** The catalogue's cost-setting use case (core/catalog/service.ts setPlanCost), as this needs it. */
export type SetPlanCost = (
  planId: number,
  upstream: string,
  costKobo: Kobo,
  who: { actor: string; note: string },
  source: string,
) => Promise<unknown>;

export interface CostObserver {
  /** A live purchase was delivered (its settlement changed it); `costKobo` when its upstream stated one. */
  delivered(tx: TransactionRecord, costKobo: Kobo | undefined): Promise<void>;
}

/**
 * Whether a delivery leaves anything here to do. Not when its own attempt ended delivered in
 * the settle (its cost written there) unless it is a data plan with a cost stated: then the
 * background read of its attempts would find nothing to write (issue 29: a read a purchase).
 */
export function leavesCostToRecord(
  tx: TransactionRecord,
  costKobo: Kobo | undefined,
  ended: AttemptEnd | undefined,
): boolean {
  if (ended?.outcome !== 'delivered') return true;
  return tx.product === 'data' && costKobo !== undefined && costKobo > 0;
}

export function createCostObserver(deps: {
  store: Pick<Store, 'supply' | 'catalog'>;
  setPlanCost: SetPlanCost;
  clock: () => Date;
  log: (event: string, fields: Record<string, unknown>) => void;
}): CostObserver {
  /** Costs being written now per "<plan>:<upstream>", so concurrent deliveries at one new cost write it once. */
  const writing = new Map<string, Kobo>();

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
          await deps.store.supply.deliveredLater(tx.reference, last.seq, costKobo ?? null, deps.clock());
        if (costKobo !== undefined) await observePlan(tx, last.upstream, costKobo);
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
