/**
 * Changes to what partners can buy and at what price: a plan's facts or cost, a plan type
 * switched on or off, a tier's price rule. Prices are not stored: a tier's price of a plan
 * is computed from its fixed price, its rule and the plan's cost (core/domain/pricing.ts)
 * whenever it is read, so a new cost reprices every plan built on it at once. What this use
 * case adds is the telling: for every account on a tier with API access, one `plan.updated`
 * or `plan.disabled` event per plan whose view (`?action=plans`) changed for that tier,
 * written in the same store transaction as the change, and one audit row per change.
 */
import { type NewEvent, planEvent, publicPlan } from '../domain/events.js';
import { planPriceFor } from '../domain/pricing.js';
import { planTypeIsOff } from '../domain/products.js';
import type { PlanRecord, TierRecord } from '../domain/records.js';
import type { PlanTypeOff, Store } from '../store/port.js';

/**
 * The most accounts of one tier told about one change. Events are written in the change's
 * transaction, so the bound keeps that transaction a size a store commits in well under a
 * second; past it, the rest read the change from ?action=plans (a warn line says so).
 */
const MAX_ACCOUNTS_TOLD_PER_TIER = 20_000;
/** Accounts read per store call (the store's page bound). */
const ACCOUNTS_PAGE = 1_000;

/** Who made a change and why, for the audit log. */
export interface ChangeAuthor {
  /** `cli` for the admin token, `staff:<email>`, or `system` (syncs, pushes, observed answers). */
  actor: string;
  note: string;
  /** The staff member's address (console changes); none for the CLI and the core's own. */
  address?: string | null;
}

/** One plan before and after a change; `before` null for a plan that is new. */
export interface PlanPair {
  before: PlanRecord | null;
  after: PlanRecord;
}

/** What one change asks to be written. */
interface ChangeRequest {
  plans: readonly PlanPair[];
  typeSwitch?: PlanTypeOff & { enabled: boolean };
  tier?: { before: TierRecord; after: TierRecord };
  /** The audit row: `prices.cost`, `plans.type_disabled`... and what it was done to. */
  audit: { action: string; target: string; before: unknown; after: unknown };
}

/** What a change wrote. */
export interface ChangeResult {
  plans: PlanRecord[];
  events: number;
}

const isOff = (plan: PlanRecord, off: readonly PlanTypeOff[]) => planTypeIsOff(off, plan);

export function createPlanChanges(deps: {
  store: Pick<Store, 'catalog' | 'accounts' | 'auditLog'>;
  clock: () => Date;
  log: (event: string, fields: Record<string, unknown>) => void;
}) {
  const { store } = deps;

  /** The events a change makes, per account on each tier with API access. */
  async function eventsFor(request: ChangeRequest, offBefore: PlanTypeOff[], at: Date): Promise<NewEvent[]> {
    const offAfter = offBefore.filter(
      (o) => !(request.typeSwitch && o.network === request.typeSwitch.network && o.type === request.typeSwitch.type),
    );
    if (request.typeSwitch && !request.typeSwitch.enabled)
      offAfter.push({ network: request.typeSwitch.network, type: request.typeSwitch.type });
    const tiers = await store.catalog.listTiers();
    const events: NewEvent[] = [];
    for (const tierNow of tiers) {
      const tierAfter = request.tier?.after.tierId === tierNow.tierId ? request.tier.after : tierNow;
      const tierBefore = request.tier?.before.tierId === tierNow.tierId ? request.tier.before : tierNow;
      if (!tierAfter.apiAccess && !tierBefore.apiAccess) continue;
      const told: Array<{ type: 'plan.updated' | 'plan.disabled'; plan: Record<string, unknown> }> = [];
      for (const { before, after } of request.plans) {
        const wasOn = before?.active && !isOff(before, offBefore) && tierBefore.apiAccess;
        const isOn = after.active && !isOff(after, offAfter) && tierAfter.apiAccess;
        const viewAfter = publicPlan(after, planPriceFor(tierAfter, after));
        if (isOn) {
          const viewBefore = wasOn ? publicPlan(before, planPriceFor(tierBefore, before)) : null;
          if (JSON.stringify(viewBefore) !== JSON.stringify(viewAfter))
            told.push({ type: 'plan.updated', plan: viewAfter });
        } else if (wasOn) {
          told.push({ type: 'plan.disabled', plan: viewAfter });
        }
      }
      if (told.length === 0) continue;
      const accounts: string[] = [];
      for (;;) {
        const page = await store.accounts.listIdsOnTier(tierNow.tierId, accounts.at(-1) ?? '', ACCOUNTS_PAGE);
        accounts.push(...page);
        if (page.length < ACCOUNTS_PAGE || accounts.length >= MAX_ACCOUNTS_TOLD_PER_TIER) break;
      }
      if (accounts.length >= MAX_ACCOUNTS_TOLD_PER_TIER)
        deps.log('catalog.plan_events_bounded', {
          level: 'warn',
          tier: tierNow.tierId,
          accounts: MAX_ACCOUNTS_TOLD_PER_TIER,
        });
      for (const accountId of accounts)
        for (const change of told) events.push(planEvent(change.type, accountId, change.plan, at));
    }
    return events;
  }

  return {
    /**
     * Writes a change of plans (their facts, costs or activity), a type switch or a tier's
     * rules, with the events it makes, in one store transaction; then its audit row.
     */
    async apply(request: ChangeRequest, author: ChangeAuthor): Promise<ChangeResult> {
      const at = deps.clock();
      const offBefore = await store.catalog.listPlanTypesOff();
      const events = await eventsFor(request, offBefore, at);
      const plans = await store.catalog.applyPlanChanges({
        plans: request.plans.map((p) => p.after),
        ...(request.typeSwitch ? { typeSwitch: request.typeSwitch } : {}),
        ...(request.tier ? { tier: request.tier.after } : {}),
        events,
      });
      await store.auditLog.append({
        at,
        actor: author.actor,
        action: request.audit.action,
        target: request.audit.target,
        before: request.audit.before === null ? null : JSON.stringify(request.audit.before),
        after: request.audit.after === null ? null : JSON.stringify(request.audit.after),
        address: author.address ?? null,
        note: author.note,
      });
      deps.log('catalog.plans_changed', {
        action: request.audit.action,
        target: request.audit.target,
        actor: author.actor,
        plans: plans.length,
        events: events.length,
      });
      return { plans, events: events.length };
    },
  };
}

/** The plan-change use case, as the catalog's other use cases see it. */
export type PlanChanges = ReturnType<typeof createPlanChanges>;
