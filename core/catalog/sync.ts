/**
 * `prepaid plans sync`: makes the data plans catalog follow what the data provider sells
 * (VTpass's service-variations). Plans are matched by their providerCode, so a plan keeps
 * its integer plan_id across syncs, which partners store:
 *   - a code we know: the plan's label, validity and face value follow the upstream's, and
 *     it is active (it is on sale upstream);
 *   - a new code: a new plan with a new plan_id (tiers pay its face value less their data
 *     discount until someone sets tier prices);
 *   - a code that vanished: the plan is deactivated, never deleted (old transactions name it).
 * Plans without a providerCode are left alone and listed, since they cannot be bought from
 * the upstream. Nothing is written unless all four networks' lists were read; a network
 * whose list comes back empty is skipped rather than emptied.
 */
import { DomainError } from '../domain/errors.js';
import { type Kobo, kobo } from '../domain/money.js';
import { planTypeFromName, sizeMbFromName, validityDaysFromText } from '../domain/plans.js';
import { planCostAt, planPriceFor } from '../domain/pricing.js';
import { NETWORKS, type Network, type PlanType } from '../domain/products.js';
import type { PlanRecord, TierRecord } from '../domain/records.js';
import type { Providers, UpstreamPlan } from '../providers/port.js';
import type { Store } from '../store/port.js';
import type { ChangeAuthor, PlanChanges, PlanPair } from './changes.js';
import type { CatalogService } from './service.js';

/** Reading one network's plans may take this long; a list is a single, if large, answer. */
const SYNC_NETWORK_TIMEOUT_MS = 60_000;
/** The catalog's bound on labels and validity texts (core/catalog/service.ts). */
const MAX_TEXT = 60;
/** What a plan's validity looks like inside an upstream name, e.g. "30 days", "24 hrs", "Monthly". */
const VALIDITY = new RegExp(
  `(${[
    String.raw`\d+(?:\.\d+)?\s*(?:-\s*\d+\s*)?(?:hrs?|hours?|days?|weeks?|wks?|months?|mnths?|years?|mins?|minutes?)`,
    'daily',
    'weekly',
    'monthly',
    'yearly',
  ].join('|')})`,
  'gi',
);

/** What a sync did to one plan. */
type PlanChangeAction = 'created' | 'updated' | 'deactivated';

/** One plan the sync created, changed or deactivated. */
export interface PlanChange {
  action: PlanChangeAction;
  /** 0 in a dry run for a plan that would be created. */
  planId: number;
  network: string;
  providerCode: string;
  label: string;
  validity: string;
  faceValueKobo: Kobo;
  active: boolean;
  type: PlanType;
  sizeMb: number;
  validityDays: number;
  costsKobo: Record<string, Kobo>;
  /** The plan before the change, for updated and deactivated plans. */
  before?: Pick<PlanRecord, 'label' | 'validity' | 'faceValueKobo' | 'active'>;
}

/** What a sync did, or would do in a dry run. */
export interface PlanSyncReport {
  /** The data provider's name. */
  provider: string;
  /** False when the data provider publishes no plans (the sandbox): nothing was done. */
  supported: boolean;
  dryRun: boolean;
  changes: PlanChange[];
  /** Coded plans that already matched the upstream. */
  unchanged: number;
  /** Active plans without a providerCode: not sold through the upstream. */
  uncodedPlanIds: number[];
  warnings: string[];
}

/** The plans sync use case; one sync at a time per process. */
export function createPlanSync(deps: {
  store: Pick<Store, 'catalog'>;
  catalog: CatalogService;
  changes: PlanChanges;
  providers: Providers;
  log: (event: string, fields: Record<string, unknown>) => void;
}) {
  let running = false;

  /** Runs `work` unless a sync is running (two at once would both create the same new plans). */
  async function exclusive<T>(busy: string, work: () => Promise<T>): Promise<T> {
    if (running) throw new DomainError('FAILED_PRECONDITION', busy);
    running = true;
    try {
      return await work();
    } finally {
      running = false;
    }
  }

  async function syncNetwork(
    network: Network,
    upstream: UpstreamPlan[],
    dryRun: boolean,
    report: PlanSyncReport,
    author: ChangeAuthor,
  ): Promise<void> {
    if (upstream.length === 0) {
      report.warnings.push(`The provider listed no ${network} plans; ${network} was left as it is.`);
      return;
    }
    const upstreamName = deps.providers.data.name;
    const byCode = plansByCode(await deps.store.catalog.listPlans({ network }), report);
    const offered = new Set<string>();
    const changed: PlanPair[] = [];
    for (const item of upstream) {
      offered.add(item.code);
      const plan = byCode.get(item.code);
      if (plan === undefined) {
        const created = newPlan(network, item);
        const stored = dryRun ? created : await deps.catalog.upsertPlan(created);
        report.changes.push({ action: 'created', ...pickChange(stored) });
        continue;
      }
      const next = followedPlan(plan, item, upstreamName);
      if (next === undefined) {
        report.unchanged += 1;
        continue;
      }
      changed.push({ before: plan, after: next });
      report.changes.push({ action: 'updated', ...pickChange(next), before: pickBefore(plan) });
      if (planCostAt(next, upstreamName) !== undefined)
        report.warnings.push(...underCost(next, await deps.store.catalog.listTiers(), upstreamName));
    }
    for (const plan of byCode.values()) {
      if (offered.has(plan.providerCode) || !plan.active) continue;
      const next = { ...plan, active: false };
      changed.push({ before: plan, after: next });
      report.changes.push({ action: 'deactivated', ...pickChange(next), before: pickBefore(plan) });
    }
    if (dryRun || changed.length === 0) return;
    // One network's changes, their events and their audit row commit together.
    await deps.changes.apply(
      {
        plans: changed,
        audit: {
          action: 'plans.sync',
          target: `${upstreamName}/${network}`,
          before: changed.map((c) => pickAudit(c.before!, upstreamName)),
          after: changed.map((c) => pickAudit(c.after, upstreamName)),
        },
      },
      author,
    );
  }

  /** The report a sync starts with. */
  const emptyReport = (dryRun: boolean): PlanSyncReport => ({
    provider: deps.providers.data.name,
    supported: false,
    dryRun,
    changes: [],
    unchanged: 0,
    uncodedPlanIds: [],
    warnings: [],
  });

  return {
    /**
     * Makes one network's plans follow the data provider's list now, as a sync does, for an
     * upstream's push that says they changed (VTpass's variations-update). The list is read
     * from the provider itself, never taken from the push. Throws when it cannot be read, so
     * the pusher is told to try again.
     */
    async followNetwork(network: Network, author: ChangeAuthor): Promise<PlanSyncReport> {
      const report = emptyReport(false);
      const listPlans = deps.providers.data.listPlans?.bind(deps.providers.data);
      if (listPlans === undefined) return report;
      return exclusive('A plans sync is running; the push is taken later.', async () => {
        report.supported = true;
        const upstream = await listPlans(network, AbortSignal.timeout(SYNC_NETWORK_TIMEOUT_MS));
        await syncNetwork(network, upstream, false, report, author);
        deps.log('catalog.plans_pushed', { provider: report.provider, network, ...countChanges(report) });
        return report;
      });
    },

    /** Syncs the data plans from the data provider; `dryRun` reports without writing. */
    async sync(dryRun: boolean): Promise<PlanSyncReport> {
      const report = emptyReport(dryRun);
      const listPlans = deps.providers.data.listPlans?.bind(deps.providers.data);
      if (listPlans === undefined) return report;
      return exclusive('A plans sync is already running; try again when it has finished.', async () => {
        report.supported = true;
        const lists = await fetchAll(listPlans);
        for (const network of NETWORKS)
          await syncNetwork(network, lists.get(network)!, dryRun, report, { actor: 'cli', note: '' });
        report.uncodedPlanIds = (await deps.store.catalog.listPlans({ activeOnly: true }))
          .filter((p) => p.providerCode === '')
          .map((p) => p.planId)
          .sort((a, b) => a - b);
        deps.log('catalog.plans_synced', {
          provider: report.provider,
          dry_run: dryRun,
          ...countChanges(report),
          unchanged: report.unchanged,
        });
        return report;
      });
    },
  };
}

/** The plans sync, as the RPC layer sees it. */
export type PlanSync = ReturnType<typeof createPlanSync>;

/** Every network's upstream list, or an error before anything is changed. */
async function fetchAll(listPlans: NonNullable<Providers['data']['listPlans']>): Promise<Map<Network, UpstreamPlan[]>> {
  const lists = new Map<Network, UpstreamPlan[]>();
  for (const network of NETWORKS) {
    try {
      lists.set(network, await listPlans(network, AbortSignal.timeout(SYNC_NETWORK_TIMEOUT_MS)));
    } catch (error) {
      throw new DomainError(
        'FAILED_PRECONDITION',
        "The data provider's plans could not be read, so nothing was changed: " +
          (error instanceof Error ? error.message : String(error)),
      );
    }
  }
  return lists;
}

/** A warning for each tier that would pay less for `plan` than it costs at `upstreamName`. */
function underCost(plan: PlanRecord, tiers: TierRecord[], upstreamName: string): string[] {
  const costKobo = planCostAt(plan, upstreamName);
  if (costKobo === undefined) return [];
  return tiers
    .filter((tier) => planPriceFor(tier, plan) < costKobo)
    .map(
      (tier) =>
        `Plan ${plan.planId}: tier ${tier.tierId} would pay less than its cost at ${upstreamName}; ` +
        'sales are refused until its price rule or fixed price is raised.',
    );
}

/** How many plans a sync created, updated and deactivated, for its log line. */
function countChanges(report: PlanSyncReport) {
  const count = (action: PlanChange['action']) => report.changes.filter((c) => c.action === action).length;
  return { created: count('created'), updated: count('updated'), deactivated: count('deactivated') };
}

/**
 * A network's coded plans by their provider code. Where two plans share a code, the first
 * follows the provider and the report says so.
 */
function plansByCode(existing: PlanRecord[], report: PlanSyncReport): Map<string, PlanRecord> {
  const byCode = new Map<string, PlanRecord>();
  for (const plan of existing) {
    if (plan.providerCode === '') continue;
    const first = byCode.get(plan.providerCode);
    if (first !== undefined) {
      report.warnings.push(
        `Plans ${first.planId} and ${plan.planId} share the provider code ${plan.providerCode}; ` +
          `only ${first.planId} follows the provider.`,
      );
      continue;
    }
    byCode.set(plan.providerCode, plan);
  }
  return byCode;
}

/** A plan the upstream offers and the catalogue does not have yet. */
function newPlan(network: Network, item: UpstreamPlan): PlanRecord {
  const { label, validity } = splitName(item.name);
  return {
    planId: 0,
    network,
    label,
    validity,
    type: planTypeFromName(item.name),
    sizeMb: sizeMbFromName(item.name),
    validityDays: validityDaysFromText(validity),
    faceValueKobo: item.amountKobo,
    tierPricesKobo: {},
    costsKobo: {},
    active: true,
    providerCode: item.code,
  };
}

/** `plan` as it follows the upstream's `item`, or undefined when it already matches. */
function followedPlan(plan: PlanRecord, item: UpstreamPlan, upstreamName: string): PlanRecord | undefined {
  const { label, validity } = splitName(item.name);
  const costKobo = followedCost(plan, upstreamName, item.amountKobo);
  const costsKobo = { ...plan.costsKobo };
  if (costKobo !== undefined) costsKobo[upstreamName] = costKobo;
  if (
    plan.label === label &&
    plan.validity === validity &&
    plan.faceValueKobo === item.amountKobo &&
    plan.active &&
    planCostAt(plan, upstreamName) === costKobo
  )
    return undefined;
  // The type is the operator's once a plan exists; size and days follow the texts they come from.
  return {
    ...plan,
    label,
    validity,
    sizeMb: plan.label === label ? plan.sizeMb : sizeMbFromName(item.name),
    validityDays: plan.validity === validity ? plan.validityDays : validityDaysFromText(validity),
    faceValueKobo: item.amountKobo,
    costsKobo,
    active: true,
  };
}

function pickChange(plan: PlanRecord): Omit<PlanChange, 'action' | 'before'> {
  return {
    planId: plan.planId,
    network: plan.network,
    providerCode: plan.providerCode,
    label: plan.label,
    validity: plan.validity,
    faceValueKobo: plan.faceValueKobo,
    active: plan.active,
    type: plan.type,
    sizeMb: plan.sizeMb,
    validityDays: plan.validityDays,
    costsKobo: plan.costsKobo,
  };
}

/** What the audit log keeps of a synced plan. */
function pickAudit(plan: PlanRecord, upstream: string) {
  return {
    plan_id: plan.planId,
    label: plan.label,
    face_value_kobo: plan.faceValueKobo,
    cost_kobo: planCostAt(plan, upstream) ?? null,
    active: plan.active,
  };
}

/**
 * What the upstream charges once its list price moves to `listKobo`. The list price is what
 * the upstream sells at before its commission (VTpass's `variation_amount`), not what it
 * charges us, so it is no cost by itself. Where a cost is known (set by the operator,
 * observed in an answer's commission), the list price's move moves it in proportion, which
 * keeps the commission rate it implies; where none is, none is made up (undefined).
 */
function followedCost(plan: PlanRecord, upstream: string, listKobo: Kobo): Kobo | undefined {
  const known = planCostAt(plan, upstream);
  if (known === undefined) return undefined;
  if (plan.faceValueKobo <= 0 || plan.faceValueKobo === listKobo) return known;
  return kobo(Math.round((known * listKobo) / plan.faceValueKobo));
}

function pickBefore(plan: PlanRecord): NonNullable<PlanChange['before']> {
  return { label: plan.label, validity: plan.validity, faceValueKobo: plan.faceValueKobo, active: plan.active };
}

/**
 * An upstream name such as "MTN N1000 1.5GB - 30 days" as our label and validity
 * ("MTN N1000 1.5GB", "30 days"). The last validity-looking phrase is the validity; a name
 * without one keeps its whole text as the label and "unspecified" as validity.
 */
export function splitName(name: string): { label: string; validity: string } {
  const clean = name.replace(/\s+/g, ' ').trim();
  const matches = [...clean.matchAll(VALIDITY)];
  const last = matches[matches.length - 1];
  if (last === undefined || last.index === undefined) return { label: bound(clean), validity: 'unspecified' };
  const validity = last[0].replace(/\s+/g, ' ').trim();
  const rest = (clean.slice(0, last.index) + clean.slice(last.index + last[0].length))
    .replace(/\(\s*\)/g, ' ')
    .replace(/\s+/g, ' ')
    .replace(/^[\s\-–,:(]+|[\s\-–,:(]+$/g, '')
    .trim();
  return { label: bound(rest === '' ? clean : rest), validity: bound(validity) };
}

function bound(text: string): string {
  return text.length > MAX_TEXT ? `${text.slice(0, MAX_TEXT - 1)}…` : text;
}
