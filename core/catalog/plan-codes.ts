/**
 * Each declared upstream's code for our data plans: a ClubKonnect instance sells
 * plan 7 as `500.01`, a ported-number site as `353`; an upstream without a code for a plan
 * does not sell it, so routes skip it (core/purchases/routing.ts).
 *
 * The purchase path reads codes and plan types from the book, a copy in memory: it is read
 * from the store at most once per REFRESH_MS (another core's change is in force here within
 * that time) and at once after this core changed a code. Changes are audited with the code
 * before and after. `sync` reads one upstream's plan list and matches its plans to ours by
 * network, type, size and validity: a plan of theirs that fits exactly one of ours, and is the
 * only one of theirs to fit it, gets its code and its price as the plan's cost there; anything
 * else is reported, never guessed.
 */
import { keptFresh } from '../../runtime/kept-fresh.js';
import { DomainError, invalid, notFound } from '../domain/errors.js';
import type { Kobo } from '../domain/money.js';
import { planTypeFromName, sizeMbFromName, validityDaysFromText } from '../domain/plans.js';
import { planCostAt } from '../domain/pricing.js';
import { NETWORKS, type Network } from '../domain/products.js';
import type { PlanCodeRecord, PlanRecord } from '../domain/records.js';
import type { UpstreamPlan } from '../providers/port.js';
import type { Supply, Upstream } from '../providers/supply.js';
import type { Store } from '../store/port.js';
import type { ChangeAuthor } from './changes.js';
import type { CatalogService } from './service.js';
import { splitName } from './sync.js';

/** How long a core keeps the codes and plan types it read (the same as the route table). */
const REFRESH_MS = 5_000;
/** Reading one network's plans may take this long. */
const LIST_TIMEOUT_MS = 60_000;
/** An upstream's plan code: ClubKonnect's `500.01`, a site's `353`. */
const CODE = /^[A-Za-z0-9._-]{1,40}$/;
/** A ported-number site's plan id is an integer (the adapter sends it as a number). */
const SITE_CODE = /^\d{1,9}$/;

/** The codes and plan types the purchase path reads, kept in memory. */
export interface PlanBook {
  /** The upstream's code for one of our plans; null: it does not sell it. */
  codeOf(upstream: string, planId: number): Promise<string | null>;
  /** The plan's type ("sme", "cg", ...) for routes by plan type; "" when the plan is unknown. */
  typeOf(planId: number): Promise<string>;
  /** Reads the store again (after this core changed a code). */
  reload(): Promise<void>;
}

export function createPlanBook(deps: { store: Pick<Store, 'planCodes' | 'catalog'>; clock: () => Date }): PlanBook {
  const key = (upstream: string, planId: number) => `${upstream}\n${planId}`;
  const book = keptFresh({
    read: async () => {
      const [rows, plans] = await Promise.all([deps.store.planCodes.list({}), deps.store.catalog.listPlans()]);
      return {
        codes: new Map(rows.map((row) => [key(row.upstream, row.planId), row.code])),
        types: new Map(plans.map((plan) => [plan.planId, plan.type])),
      };
    },
    freshMs: REFRESH_MS,
    clock: deps.clock,
  });

  return {
    async codeOf(upstream, planId) {
      return (await book.get()).codes.get(key(upstream, planId)) ?? null;
    },
    async typeOf(planId) {
      return (await book.get()).types.get(planId) ?? '';
    },
    async reload() {
      await book.reload();
    },
  };
}

/** One code with the plan it belongs to, for the operator. */
export interface PlanCodeRow extends PlanCodeRecord {
  network: string;
  label: string;
}

/** One of the upstream's plans matched to one of ours. */
interface SyncMatch {
  planId: number;
  network: Network;
  label: string;
  code: string;
  upstreamName: string;
  costKobo: Kobo;
  /** The code the plan had there before; null when none. */
  beforeCode: string | null;
  /** False when the plan already had this code and cost. */
  changed: boolean;
}

/** One of the upstream's plans left unmatched, and why. */
interface SyncUnmatched {
  network: Network;
  code: string;
  upstreamName: string;
  reason: 'no_plan' | 'ambiguous' | 'unreadable';
  candidatePlanIds: number[];
}

/** What `plans sync --upstream` did, or would do. */
interface UpstreamSyncReport {
  upstream: string;
  dryRun: boolean;
  matched: SyncMatch[];
  unmatched: SyncUnmatched[];
  /** Codes removed: the upstream no longer lists them. */
  cleared: PlanCodeRow[];
  warnings: string[];
}

export interface PlanCodesAdmin {
  list(upstream: string): Promise<PlanCodeRow[]>;
  set(
    planId: number,
    upstream: string,
    code: string,
    actor: string,
  ): Promise<{ code: PlanCodeRow; before: string | null }>;
  clear(planId: number, upstream: string, actor: string): Promise<string | null>;
  sync(upstream: string, dryRun: boolean, actor: string): Promise<UpstreamSyncReport>;
}

/** Whether an upstream is sent our plans by code (the declared kinds), rather than VTpass's providerCode. */
function takesCodes(upstream: Upstream): boolean {
  return upstream.kind === 'clubkonnect' || upstream.kind === 'ported-number';
}

/** Matches one network's list to our active plans of that network. */
function match(
  network: Network,
  listed: UpstreamPlan[],
  ours: PlanRecord[],
  known: ReadonlyMap<number, string>,
  upstream: string,
  report: UpstreamSyncReport,
): void {
  const tentative = new Map<number, { item: UpstreamPlan; plan: PlanRecord }[]>();
  for (const item of listed) {
    const sizeMb = sizeMbFromName(item.name);
    const days = validityDaysFromText(splitName(item.name).validity);
    const unmatched = (reason: SyncUnmatched['reason'], candidatePlanIds: number[] = []) =>
      report.unmatched.push({ network, code: item.code, upstreamName: item.name, reason, candidatePlanIds });
    if (sizeMb === 0 || days === 0) {
      unmatched('unreadable');
      continue;
    }
    // A name that states no type ("direct") fits a plan of any type of that size and validity.
    const type = planTypeFromName(item.name);
    const fits = ours.filter(
      (p) => p.sizeMb === sizeMb && p.validityDays === days && (type === 'direct' || p.type === type),
    );
    if (fits.length === 0) unmatched('no_plan');
    else if (fits.length > 1)
      unmatched(
        'ambiguous',
        fits.map((p) => p.planId),
      );
    else tentative.set(fits[0]!.planId, [...(tentative.get(fits[0]!.planId) ?? []), { item, plan: fits[0]! }]);
  }
  for (const [planId, found] of tentative) {
    if (found.length > 1) {
      // Two of theirs fit one of ours: which one we mean is a person's call.
      for (const { item } of found)
        report.unmatched.push({
          network,
          code: item.code,
          upstreamName: item.name,
          reason: 'ambiguous',
          candidatePlanIds: [planId],
        });
      continue;
    }
    const { item, plan } = found[0]!;
    const beforeCode = known.get(planId) ?? null;
    report.matched.push({
      planId,
      network,
      label: plan.label,
      code: item.code,
      upstreamName: item.name,
      costKobo: item.amountKobo,
      beforeCode,
      changed: beforeCode !== item.code || planCostAt(plan, upstream) !== item.amountKobo,
    });
  }
}

/** Every network's list, read before anything is written; rejects with why when one cannot be read. */
async function readLists(
  name: string,
  listPlans: NonNullable<Upstream['listPlans']>,
): Promise<Map<Network, UpstreamPlan[]>> {
  const lists = new Map<Network, UpstreamPlan[]>();
  for (const network of NETWORKS) {
    try {
      lists.set(network, await listPlans(network, AbortSignal.timeout(LIST_TIMEOUT_MS)));
    } catch (error) {
      throw new DomainError(
        'FAILED_PRECONDITION',
        `${name}'s plans could not be read, so nothing was changed: ` +
          `${error instanceof Error ? error.message : String(error)}`,
      );
    }
  }
  return lists;
}

/** What a sync of these lists does: the matches, what is left unmatched, the codes to remove. */
function planSync(
  name: string,
  dryRun: boolean,
  lists: ReadonlyMap<Network, UpstreamPlan[]>,
  known: ReadonlyMap<number, PlanCodeRecord>,
  plans: PlanRecord[],
): UpstreamSyncReport {
  const report: UpstreamSyncReport = { upstream: name, dryRun, matched: [], unmatched: [], cleared: [], warnings: [] };
  const knownCodes = new Map([...known].map(([planId, c]) => [planId, c.code]));
  for (const network of NETWORKS) {
    const listed = lists.get(network) ?? [];
    if (listed.length === 0) {
      report.warnings.push(`${name} listed no ${network} plans; their codes there were left as they are.`);
      continue;
    }
    const ours = plans.filter((p) => p.network === network && p.active);
    match(network, listed, ours, knownCodes, name, report);
    // A code the upstream no longer lists would be refused there: the plan is no longer sold there.
    const listedCodes = new Set(listed.map((item) => item.code));
    const matchedIds = new Set(report.matched.map((m) => m.planId));
    for (const plan of plans.filter((p) => p.network === network)) {
      const code = known.get(plan.planId);
      if (code !== undefined && !listedCodes.has(code.code) && !matchedIds.has(plan.planId))
        report.cleared.push({ ...code, network, label: plan.label });
    }
  }
  return report;
}

/** A configured upstream that takes plan codes, or the error naming why not. */
function declaredIn(supply: Supply | undefined, name: string): Upstream {
  const upstream = supply?.upstreams.get(name);
  if (upstream === undefined || !takesCodes(upstream))
    throw invalid(
      'upstream',
      `${name.slice(0, 40)} is not a configured ClubKonnect or ported-number upstream (see prepaid routes list).`,
    );
  return upstream;
}

/** A code the upstream can be sent. */
function checkCode(upstream: Upstream, code: string): void {
  if (!CODE.test(code)) throw invalid('code', 'code must be 1 to 40 letters, digits, ".", "_" or "-".');
  if (upstream.kind === 'ported-number' && !SITE_CODE.test(code))
    throw invalid('code', `${upstream.name} is a ported-number site: its plan codes are whole numbers.`);
}

/** A code change in the audit log, with the code before and after. */
async function audit(
  deps: { store: Pick<Store, 'auditLog'>; clock: () => Date },
  actor: string,
  planId: number,
  upstream: string,
  before: string | null,
  after: string | null,
  note: string,
) {
  await deps.store.auditLog.append({
    at: deps.clock(),
    actor,
    action: after === null ? 'plans.code_clear' : 'plans.code_set',
    target: `plan:${planId}@${upstream}`,
    before: before === null ? null : JSON.stringify({ code: before }),
    after: after === null ? null : JSON.stringify({ code: after }),
    address: null,
    note,
  });
}

export function createPlanCodesAdmin(deps: {
  store: Pick<Store, 'planCodes' | 'catalog' | 'auditLog'>;
  book: PlanBook;
  catalog: Pick<CatalogService, 'setPlanCost'>;
  supply: Supply | undefined;
  clock: () => Date;
  log: (event: string, fields: Record<string, unknown>) => void;
}): PlanCodesAdmin {
  let syncing = false;

  async function requirePlan(planId: number): Promise<PlanRecord> {
    if (!Number.isSafeInteger(planId) || planId <= 0) throw invalid('plan_id', 'plan_id must be a plan id.');
    const plan = await deps.store.catalog.getPlan(planId);
    if (plan === null) throw notFound(`plan ${planId}`);
    return plan;
  }

  async function rows(records: PlanCodeRecord[]): Promise<PlanCodeRow[]> {
    const plans = new Map((await deps.store.catalog.listPlans()).map((p) => [p.planId, p]));
    return records.map((record) => ({
      ...record,
      network: plans.get(record.planId)?.network ?? '',
      label: plans.get(record.planId)?.label ?? '',
    }));
  }

  return {
    async list(upstream) {
      return rows(await deps.store.planCodes.list(upstream === '' ? {} : { upstream }));
    },

    async set(planId, name, code, actor) {
      const upstream = declaredIn(deps.supply, name);
      checkCode(upstream, code);
      await requirePlan(planId);
      const record: PlanCodeRecord = { planId, upstream: name, code, updatedAt: deps.clock() };
      const before = (await deps.store.planCodes.set(record))?.code ?? null;
      await audit(deps, actor, planId, name, before, code, '');
      await deps.book.reload();
      return { code: (await rows([record]))[0]!, before };
    },

    async clear(planId, name, actor) {
      if (!Number.isSafeInteger(planId) || planId <= 0) throw invalid('plan_id', 'plan_id must be a plan id.');
      if (name === '') throw invalid('upstream', 'upstream must be set.');
      const before = await deps.store.planCodes.clear(planId, name);
      if (before === null) return null;
      await audit(deps, actor, planId, name, before.code, null, '');
      await deps.book.reload();
      return before.code;
    },

    async sync(name, dryRun, actor) {
      const upstream = declaredIn(deps.supply, name);
      const listPlans = upstream.listPlans;
      if (listPlans === undefined)
        throw new DomainError('FAILED_PRECONDITION', `${name} publishes no plan list to sync from.`);
      if (syncing) throw new DomainError('FAILED_PRECONDITION', 'A plan codes sync is running; try again later.');
      syncing = true;
      try {
        const lists = await readLists(name, listPlans);
        const known = new Map((await deps.store.planCodes.list({ upstream: name })).map((c) => [c.planId, c]));
        const plans = await deps.store.catalog.listPlans();
        const report = planSync(name, dryRun, lists, known, plans);
        if (!dryRun) {
          const author: ChangeAuthor = { actor, note: `plans sync --upstream ${name}` };
          for (const m of report.matched) {
            if (!m.changed) continue;
            if (m.beforeCode !== m.code) {
              await deps.store.planCodes.set({
                planId: m.planId,
                upstream: name,
                code: m.code,
                updatedAt: deps.clock(),
              });
              await audit(deps, actor, m.planId, name, m.beforeCode, m.code, author.note);
            }
            const plan = plans.find((p) => p.planId === m.planId)!;
            if (planCostAt(plan, name) !== m.costKobo && m.costKobo > 0)
              await deps.catalog.setPlanCost(m.planId, name, m.costKobo, author, 'sync');
          }
          for (const c of report.cleared) {
            await deps.store.planCodes.clear(c.planId, name);
            await audit(deps, actor, c.planId, name, c.code, null, author.note);
          }
          await deps.book.reload();
        }
        deps.log('catalog.plan_codes_synced', {
          upstream: name,
          dry_run: dryRun,
          matched: report.matched.length,
          changed: report.matched.filter((m) => m.changed).length,
          unmatched: report.unmatched.length,
          cleared: report.cleared.length,
        });
        return report;
      } finally {
        syncing = false;
      }
    },
  };
}
