/**
 * The reconciliation as the operator runs it (docs/reconciliation.md): one Lagos day of one
 * upstream or of every upstream, its mismatches kept as findings (once per day, upstream,
 * reference and class, so a rerun adds nothing) for the console's attention queue, and the
 * daily run at RECONCILE_AT (Lagos time) of the day before, each upstream's last day kept in
 * the store so a restarted core neither runs a day again nor skips one. Nothing is corrected
 * here: a correction is a proposal a second person approves.
 */

import { createPeriodicRunner, type PeriodicRunner } from '../../runtime/periodic.js';
import { invalid } from '../domain/errors.js';
import { LAGOS_OFFSET_MS, lagosDate, lagosDay, parseLagosDate } from '../domain/people.js';
import type { ReconcileFindingRecord } from '../domain/records.js';
import type { Upstream } from '../providers/supply.js';
import type { Store } from '../store/port.js';
import { createBooksSource } from './books-source.js';
import { createReconciler } from './reconcile.js';

type Reconciled = Awaited<ReturnType<ReturnType<typeof createReconciler>['reconcile']>>;

/** One upstream's day, as the RPC and the CLI show it. */
export interface UpstreamDay {
  upstream: string;
  day: string;
  purchases: number;
  /** Every mismatch the run found; `added` of them were not kept before. */
  findings: readonly ReconcileFindingRecord[];
  added: number;
  /** The drift at the day's last checkpoint; undefined when the upstream told no balance. */
  driftKobo: number | undefined;
  /** The purchases between the last agreeing checkpoint and the first that does not. */
  between: readonly string[];
  /** The balance now against the books now; undefined without a balance call. */
  current: Reconciled['current'];
}

export interface Reconciliation {
  /** One Lagos day (YYYY-MM-DD) of one upstream, or of every upstream when none is named. */
  run(day: string, upstream?: string): Promise<UpstreamDay[]>;
  /** The daily run (RECONCILE_AT); null when it is off. */
  daily: PeriodicRunner<[], string | null> | null;
}

/** How often the daily run looks at the clock. */
const DAILY_CHECK_MS = 60_000;
/** Days a daily run catches up at most for one upstream (a core stopped over a long weekend). */
const MAX_CATCH_UP_DAYS = 7;

export function createReconciliation(deps: {
  store: Pick<Store, 'books' | 'supply' | 'transactions' | 'findings'>;
  upstreams: ReadonlyMap<string, Upstream>;
  clock: () => Date;
  /** Minutes after Lagos midnight of the daily run; null: off. */
  dailyAtMinute: number | null;
  log: (event: string, fields: Record<string, unknown>) => void;
}): Reconciliation {
  const reconciler = createReconciler({
    books: createBooksSource(deps.store),
    upstreams: deps.upstreams,
    clock: deps.clock,
  });
  // Every upstream means every one that holds our money: the sandbox has no float to reconcile.
  const holders = () => [...deps.upstreams.values()].filter((u) => u.kind !== 'sandbox').map((u) => u.name);
  async function run(day: string, upstream?: string): Promise<UpstreamDay[]> {
    parseLagosDate('date', day);
    if (upstream !== undefined && !deps.upstreams.has(upstream))
      throw invalid('upstream', `No upstream is named ${JSON.stringify(upstream)}; see UPSTREAMS.`);
    const names = upstream === undefined ? holders() : [upstream];
    const days: UpstreamDay[] = [];
    // One upstream after another: each re-queries its purchases a few at a time already.
    for (const name of names) days.push(await one(name, day));
    return days;
  }
  async function one(name: string, day: string): Promise<UpstreamDay> {
    const result = await reconciler.reconcile(name, day);
    const foundAt = deps.clock();
    const findings: ReconcileFindingRecord[] = result.mismatches.map((m) => ({
      day,
      upstream: name,
      reference: m.reference,
      class: m.class as ReconcileFindingRecord['class'],
      atStakeKobo: m.atStakeKobo,
      ourCostKobo: m.ourCostKobo ?? null,
      theirChargedKobo: m.theirChargedKobo ?? null,
      outcome: m.outcome,
      theirStatus: m.there.status,
      theirCharges: m.there.charges ?? null,
      reason: m.reason ?? null,
      evidence: m.evidence ?? null,
      foundAt,
    }));
    const added = await deps.store.findings.record(findings);
    deps.log('reconcile.day', {
      upstream: name,
      day,
      purchases: result.purchases,
      mismatches: findings.length,
      added,
      drift_kobo: result.chain.driftKobo ?? null,
    });
    return {
      upstream: name,
      day,
      purchases: result.purchases,
      findings,
      added,
      driftKobo: result.chain.driftKobo,
      between: result.chain.between.map((m) => m.reference),
      current: result.current,
    };
  }
  /** The daily run's days of one upstream: each after the last it finished, up to `through`, kept as it finishes. */
  async function catchUp(name: string, through: number): Promise<number> {
    const last = await deps.store.findings.lastDay(name);
    const first = last === null ? through : Math.max(parseLagosDate('day', last) + 1, through - MAX_CATCH_UP_DAYS + 1);
    for (let day = first; day <= through; day += 1) {
      await one(name, lagosDate(day));
      await deps.store.findings.markDay(name, lagosDate(day), deps.clock());
    }
    return through - first + 1;
  }
  const daily = async (through: number): Promise<void> => {
    for (const name of holders()) {
      // One upstream failing leaves the others' days to run; its own is tried again tomorrow (or after a restart).
      await catchUp(name, through).catch((error: unknown) =>
        deps.log('reconcile.failed', { upstream: name, error: error instanceof Error ? error.message : String(error) }),
      );
    }
  };
  return { run, daily: deps.dailyAtMinute === null ? null : dailyRunner(daily, deps, deps.dailyAtMinute) };
}

/**
 * Looks at the clock every minute; once it is past the hour of the day in Lagos, reconciles
 * every upstream's days up to the day before, once: the days each upstream finished are kept
 * in the store (`lastDay`), so a core restarted after the hour runs none of them again, and
 * one stopped over several days catches up on the ones it missed (a week at most). This core
 * tries a day once: one that failed is tried again the next day, or after a restart.
 */
function dailyRunner(
  run: (through: number) => Promise<void>,
  deps: { clock: () => Date; log: (event: string, fields: Record<string, unknown>) => void },
  atMinute: number,
): PeriodicRunner<[], string | null> {
  let done: string | null = null;
  return createPeriodicRunner<[], string | null>({
    intervalMs: DAILY_CHECK_MS,
    overlap: 'join',
    onError: (error) => deps.log('reconcile.failed', { error: error instanceof Error ? error.message : String(error) }),
    async pass() {
      const now = deps.clock();
      const minute = Math.floor(
        ((((now.getTime() + LAGOS_OFFSET_MS) % 86_400_000) + 86_400_000) % 86_400_000) / 60_000,
      );
      const yesterday = lagosDate(lagosDay(now) - 1);
      if (minute < atMinute || done === yesterday) return null;
      done = yesterday;
      await run(lagosDay(now) - 1);
      return yesterday;
    },
  });
}
