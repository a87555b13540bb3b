/**
 * The daily reconciliation of one upstream (docs/reconciliation.md): every live purchase of a
 * Lagos day that went to it is re-queried there and matched against our outcome and booked cost
 * (core/domain/reconcile.ts classifies), and the balances the upstream told beside each purchase
 * and in its balance readings are chained against the float our books expect. Orchestration
 * only: nothing is written and nothing corrected here; the caller puts the mismatches where a
 * person sees them, and any correction is a proposal a second person approves.
 */
import { type Kobo, kobo } from '../domain/money.js';
import { cleanRawAnswer } from '../domain/raw-answers.js';
import {
  type BalanceChain,
  type BalanceReading,
  balanceChain,
  classifyMatch,
  type FloatMovement,
  type Match,
  type OurOutcome,
  type TheirRecord,
} from '../domain/reconcile.js';
import { periodInstants, reportPeriod } from '../domain/reports.js';
import type { ProviderOutcome, ProviderRequest } from '../providers/port.js';
import type { Upstream } from '../providers/supply.js';

/** One live purchase of the day whose attempt went to the upstream, as our books have it. */
export interface DayPurchase {
  /** What the re-query sends: our reference, the product, and the upstream's own id kept on the attempt. */
  request: ProviderRequest;
  /** When it was made: the order of the float's movements. */
  at: Date;
  /** Our outcome of its attempt at this upstream. */
  outcome: OurOutcome;
  /** The cost our books booked against the upstream's float on its delivered attempt; absent when none. */
  costKobo?: Kobo;
}

/** A move our books made to the upstream's float that is not a purchase (a top-up there). */
interface FloatTopUp {
  reference: string;
  at: Date;
  amountKobo: Kobo;
}

/** What the reconciliation reads from our books; implemented over the journal. */
export interface ReconcileBooks {
  /** Every live purchase of [from, until) whose attempt went to `upstream`, oldest first. */
  dayPurchases(upstream: string, from: Date, until: Date): Promise<readonly DayPurchase[]>;
  /** The float our books expect at `upstream` at an instant: every posting to it before then. */
  expectedFloat(upstream: string, at: Date): Promise<Kobo>;
  /** The top-ups our books have for `upstream` in [from, until), oldest first. */
  topUps(upstream: string, from: Date, until: Date): Promise<readonly FloatTopUp[]>;
  /** Balances read from the upstream in [from, until) and kept, where they are (the float poller's). */
  balanceReadings?(upstream: string, from: Date, until: Date): Promise<readonly BalanceReading[]>;
}

/** One purchase whose records do not agree, with what the upstream said. */
interface Mismatch extends Match {
  reference: string;
  outcome: OurOutcome;
  there: TheirRecord;
  /** The upstream's reason when it gave no certain answer. */
  reason?: string;
  /** The upstream's answer, cleaned (core/domain/raw-answers.ts): the evidence. */
  evidence?: string;
}

/** The upstream's balance read now, beside what our books expect now. */
type CurrentFloat = { at: Date; reportedKobo: Kobo; expectedKobo: Kobo; driftKobo: Kobo } | { at: Date; error: string };

interface UpstreamReconciliation {
  upstream: string;
  /** The Lagos day, YYYY-MM-DD. */
  day: string;
  /** How many of the day's purchases were matched. */
  purchases: number;
  mismatches: readonly Mismatch[];
  chain: BalanceChain;
  /** Absent when the upstream has no balance call. */
  current?: CurrentFloat;
}

/** One re-query may take this long; a slow upstream leaves that purchase unknown there, never guessed. */
const REQUERY_TIMEOUT_MS = 15_000;
/** Re-queries in flight at once: enough for a day's purchases in minutes, few enough not to crowd the upstream. */
const REQUERIES_AT_ONCE = 4;

export interface Reconciler {
  /** The day's match and balance chain of one upstream (`day` YYYY-MM-DD, Lagos). */
  reconcile(upstream: string, day: string): Promise<UpstreamReconciliation>;
}

export function createReconciler(deps: {
  books: ReconcileBooks;
  upstreams: ReadonlyMap<string, Pick<Upstream, 'name' | 'products' | 'balance'>>;
  clock: () => Date;
}): Reconciler {
  return {
    async reconcile(name, day) {
      const upstream = deps.upstreams.get(name);
      if (upstream === undefined) throw new Error(`no upstream named ${name}`);
      const { from, until } = periodInstants(reportPeriod(day, day, 'day'));
      const [purchases, topUps, readings, openingKobo] = await Promise.all([
        deps.books.dayPurchases(name, from, until),
        deps.books.topUps(name, from, until),
        deps.books.balanceReadings?.(name, from, until) ?? Promise.resolve([]),
        deps.books.expectedFloat(name, from),
      ]);
      const answers = await inTurns(purchases, REQUERIES_AT_ONCE, (purchase) => requery(upstream, purchase));
      const mismatches: Mismatch[] = [];
      purchases.forEach((purchase, i) => {
        const mismatch = matchOf(purchase, answers[i]!);
        if (mismatch !== undefined) mismatches.push(mismatch);
      });
      const movements = movementsOf(purchases, answers, topUps);
      const chain = balanceChain(openingKobo, movements, readings);
      const current = upstream.balance === undefined ? undefined : await currentFloat(upstream, deps);
      return {
        upstream: name,
        day,
        purchases: purchases.length,
        mismatches,
        chain,
        ...(current === undefined ? {} : { current }),
      };
    },
  };
}

/** The upstream's answer about one purchase, asked for every charge; a throw or a missing family is unknown. */
async function requery(upstream: Pick<Upstream, 'products'>, purchase: DayPurchase): Promise<ProviderOutcome> {
  const provider = upstream.products[purchase.request.product];
  if (provider === undefined)
    return { kind: 'unknown', reason: `the upstream no longer sells ${purchase.request.product} here` };
  try {
    return await provider.query({ ...purchase.request, everyCharge: true }, AbortSignal.timeout(REQUERY_TIMEOUT_MS));
  } catch (error) {
    return { kind: 'unknown', reason: error instanceof Error ? error.message : String(error) };
  }
}

/** What the upstream's answer says of its record. */
function theirRecord(answer: ProviderOutcome): TheirRecord {
  const charge = answer.upstreamCharge;
  switch (answer.kind) {
    case 'delivered': {
      const chargedKobo = charge?.chargedKobo ?? answer.costKobo;
      return {
        status: 'delivered',
        ...(chargedKobo === undefined ? {} : { chargedKobo }),
        ...(charge?.charges === undefined ? {} : { charges: charge.charges }),
      };
    }
    case 'failed':
    case 'reversed':
      return { status: 'failed' };
    case 'unknown':
      return { status: answer.noRecord === true ? 'not_found' : 'unknown' };
  }
}

function matchOf(purchase: DayPurchase, answer: ProviderOutcome): Mismatch | undefined {
  const there = theirRecord(answer);
  const match = classifyMatch(
    { outcome: purchase.outcome, ...(purchase.costKobo === undefined ? {} : { costKobo: purchase.costKobo }) },
    there,
  );
  if (match.class === 'agrees') return undefined;
  return {
    ...match,
    reference: purchase.request.reference,
    outcome: purchase.outcome,
    there,
    ...(answer.kind === 'delivered' ? {} : { reason: answer.reason }),
    ...(answer.raw === undefined ? {} : { evidence: cleanRawAnswer(answer.raw.body, answer.raw.httpStatus) }),
  };
}

/**
 * The float's movements in our books, oldest first: each purchase with the cost booked for it
 * (nothing for one that failed, was reversed or is still pending) and the balances the
 * upstream's record told around it, and the top-ups between.
 */
function movementsOf(
  purchases: readonly DayPurchase[],
  answers: readonly ProviderOutcome[],
  topUps: readonly FloatTopUp[],
): FloatMovement[] {
  const bought: FloatMovement[] = purchases.map((purchase, i) => {
    const charge = answers[i]?.upstreamCharge;
    return {
      kind: 'purchase',
      reference: purchase.request.reference,
      at: purchase.at,
      outcome: purchase.outcome,
      bookedCostKobo: purchase.outcome === 'success' ? (purchase.costKobo ?? kobo(0)) : kobo(0),
      ...(charge?.balanceBeforeKobo === undefined ? {} : { reportedBeforeKobo: charge.balanceBeforeKobo }),
      ...(charge?.balanceAfterKobo === undefined ? {} : { reportedAfterKobo: charge.balanceAfterKobo }),
    };
  });
  const added: FloatMovement[] = topUps.map((t) => ({ kind: 'top_up', ...t }));
  // A stable sort keeps the purchases in the books' order at equal instants.
  return [...bought, ...added].sort((a, b) => a.at.getTime() - b.at.getTime());
}

/** Reads the upstream's balance now; a failure is reported, never a reading. */
async function currentFloat(
  upstream: Pick<Upstream, 'name' | 'balance'>,
  deps: { books: ReconcileBooks; clock: () => Date },
): Promise<CurrentFloat> {
  const at = deps.clock();
  try {
    const reportedKobo = await upstream.balance!(AbortSignal.timeout(REQUERY_TIMEOUT_MS));
    const expectedKobo = await deps.books.expectedFloat(upstream.name, at);
    return { at, reportedKobo, expectedKobo, driftKobo: kobo(reportedKobo - expectedKobo) };
  } catch (error) {
    return { at, error: error instanceof Error ? error.message : String(error) };
  }
}

/** `work` over every item, at most `width` at once; the answers in the items' order. */
async function inTurns<T, R>(items: readonly T[], width: number, work: (item: T) => Promise<R>): Promise<R[]> {
  const results: R[] = new Array(items.length);
  let next = 0;
  const lane = async (): Promise<void> => {
    while (next < items.length) {
      const i = next++;
      results[i] = await work(items[i]!);
    }
  };
  await Promise.all(Array.from({ length: Math.min(width, items.length) }, lane));
  return results;
}
