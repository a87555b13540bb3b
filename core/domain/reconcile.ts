/**
 * Reconciliation of one upstream against our books (docs/reconciliation.md), as pure rules:
 *
 * - the balance chain: the float our books expect at the upstream, step by step through the
 *   day's movements, against every balance the upstream told (on an order's answer or in a
 *   balance reading); the drift is reported − expected, and the purchases between the last
 *   point that agrees and the first that does not are where the money went;
 * - the daily match: one purchase's outcome and booked cost here against the upstream's own
 *   record of it (a re-query), classified.
 *
 * Amounts are integer kobo; a signed amount (a drift, the money at stake) is still `Kobo`.
 * Naira text never reaches this file: the adapters parse the upstreams' answers.
 */
import { type Kobo, kobo } from './money.js';

/** Our outcome of a purchase at one upstream (its attempt there). */
export type OurOutcome = 'success' | 'failed' | 'pending' | 'reversed';

/** What names one finding: its day, upstream, class and purchase reference. */
export interface FindingKey {
  day: string;
  upstream: string;
  class: string;
  reference: string;
}

/**
 * A finding's id as staff and the CLI write it: `DAY/UPSTREAM/CLASS/REFERENCE`. The day, an
 * upstream's name and a class hold no slash, so the reference (last) may hold any character.
 */
export function findingId(key: FindingKey): string {
  return `${key.day}/${key.upstream}/${key.class}/${key.reference}`;
}

/** The key a finding id names; null for text that is no finding id. */
export function parseFindingId(id: string): FindingKey | null {
  const match = /^(\d{4}-\d{2}-\d{2})\/([^/]{1,64})\/([a-z_]{1,40})\/(.{1,200})$/s.exec(id.trim());
  if (match === null) return null;
  return { day: match[1]!, upstream: match[2]!, class: match[3]!, reference: match[4]! };
}

/** A purchase as it moved the upstream's float in our books. */
export interface PurchaseMovement {
  kind: 'purchase';
  reference: string;
  at: Date;
  outcome: OurOutcome;
  /** What our books took from the float for it: its cost when delivered, 0 when it failed, was reversed or is pending. */
  bookedCostKobo: Kobo;
  /**
   * The upstream's balance just before and just after it, where the upstream's answer carried
   * them: the ported-number family's `balance_before`/`balance_after`, ClubKonnect's
   * `walletbalance` (after only; whether it is the balance right after the order or at the
   * time of the query is unsure: read as after the order).
   */
  reportedBeforeKobo?: Kobo;
  reportedAfterKobo?: Kobo;
}

/** Money our books put into the float (a top-up at the upstream). */
interface TopUpMovement {
  kind: 'top_up';
  reference: string;
  at: Date;
  amountKobo: Kobo;
}

export type FloatMovement = PurchaseMovement | TopUpMovement;

/** A balance the upstream told at an instant (VTpass `balance`, ClubKonnect's balance call, `/api/user/`). */
export interface BalanceReading {
  at: Date;
  balanceKobo: Kobo;
}

/** One point where the upstream told its balance, beside what our books expect there. */
interface Checkpoint {
  /** Before or after one purchase (its `reference`), or a balance reading. */
  source: 'before' | 'after' | 'reading';
  reference?: string;
  at: Date;
  /** How many of the movements our books had applied at this point. */
  position: number;
  expectedKobo: Kobo;
  reportedKobo: Kobo;
  /** reported − expected: positive, the upstream holds more than our books say. */
  driftKobo: Kobo;
}

/** A change of the drift between two neighbouring checkpoints, and the movements between them. */
interface DriftStep {
  /** The checkpoint before the change; undefined when the change is already at the first one. */
  from: Checkpoint | undefined;
  to: Checkpoint;
  /** How much the drift changed: what the movements between did at the upstream beyond our books. */
  changeKobo: Kobo;
  /** The movements between `from` and `to`; none: the money moved without any of our purchases. */
  between: readonly FloatMovement[];
}

export interface BalanceChain {
  checkpoints: readonly Checkpoint[];
  /** The last checkpoint that agrees before the first that does not (undefined: none agreed before it). */
  lastAgreeing: Checkpoint | undefined;
  /** The first checkpoint whose drift is not zero; undefined when all agree. */
  firstDisagreeing: Checkpoint | undefined;
  /** The movements between those two: where to look first. */
  between: readonly FloatMovement[];
  /** Every change of the drift, in order; the first is the one above. */
  steps: readonly DriftStep[];
  /** The drift at the latest checkpoint; undefined when the upstream told no balance. */
  driftKobo: Kobo | undefined;
  /** What our books expect after the last movement. */
  closingExpectedKobo: Kobo;
}

/**
 * The balance chain of one upstream from our books' float before the first movement
 * (`openingKobo`), the movements in the order our books made them, and the balance readings.
 * A reading comes after every movement made at or before its instant.
 */
export function balanceChain(
  openingKobo: Kobo,
  movements: readonly FloatMovement[],
  readings: readonly BalanceReading[],
): BalanceChain {
  const checkpoints = checkpointsOf(openingKobo, movements, readings);
  const steps: DriftStep[] = [];
  let previous: Checkpoint | undefined;
  for (const point of checkpoints) {
    const before = previous?.driftKobo ?? 0;
    if (point.driftKobo !== before) {
      steps.push({
        from: previous,
        to: point,
        changeKobo: kobo(point.driftKobo - before),
        between: movements.slice(previous?.position ?? 0, point.position),
      });
    }
    previous = point;
  }
  const firstDisagreeing = checkpoints.find((point) => point.driftKobo !== 0);
  const first = firstDisagreeing === undefined ? undefined : checkpoints.indexOf(firstDisagreeing);
  const lastAgreeing = first === undefined || first === 0 ? undefined : checkpoints[first - 1];
  return {
    checkpoints,
    lastAgreeing,
    firstDisagreeing,
    between:
      firstDisagreeing === undefined ? [] : movements.slice(lastAgreeing?.position ?? 0, firstDisagreeing.position),
    steps,
    driftKobo: checkpoints.at(-1)?.driftKobo,
    closingExpectedKobo: movements.reduce((expected, move) => kobo(expected + effectOf(move)), openingKobo),
  };
}

/** What a movement does to the float in our books. */
function effectOf(move: FloatMovement): number {
  return move.kind === 'top_up' ? move.amountKobo : -move.bookedCostKobo;
}

function checkpointsOf(
  openingKobo: Kobo,
  movements: readonly FloatMovement[],
  readings: readonly BalanceReading[],
): Checkpoint[] {
  const sorted = [...readings].sort((a, b) => a.at.getTime() - b.at.getTime());
  const points: Checkpoint[] = [];
  const point = (
    source: Checkpoint['source'],
    at: Date,
    position: number,
    expected: number,
    reported: Kobo,
    reference?: string,
  ): Checkpoint => ({
    source,
    ...(reference === undefined ? {} : { reference }),
    at,
    position,
    expectedKobo: kobo(expected),
    reportedKobo: reported,
    driftKobo: kobo(reported - expected),
  });
  let expected: number = openingKobo;
  let next = 0;
  const readingsUntil = (position: number, until: number | undefined) => {
    while (next < sorted.length && (until === undefined || sorted[next]!.at.getTime() < until)) {
      const reading = sorted[next]!;
      points.push(point('reading', reading.at, position, expected, reading.balanceKobo));
      next += 1;
    }
  };
  movements.forEach((move, index) => {
    readingsUntil(index, move.at.getTime());
    if (move.kind === 'purchase' && move.reportedBeforeKobo !== undefined)
      points.push(point('before', move.at, index, expected, move.reportedBeforeKobo, move.reference));
    expected += effectOf(move);
    if (move.kind === 'purchase' && move.reportedAfterKobo !== undefined)
      points.push(point('after', move.at, index + 1, expected, move.reportedAfterKobo, move.reference));
  });
  readingsUntil(movements.length, undefined);
  return points;
}

/** What the upstream's own record of one purchase says, from a re-query. */
export interface TheirRecord {
  status: 'delivered' | 'failed' | 'unknown' | 'not_found';
  /** What it charged our wallet there for it, where it says. */
  chargedKobo?: Kobo;
  /** How many charges it shows under our reference, where it can tell; absent: one. */
  charges?: number;
}

/** Our side of one purchase at the upstream. */
export interface OurRecord {
  outcome: OurOutcome;
  /** The cost booked on its delivered attempt (absent when it was not delivered or the cost is unknown). */
  costKobo?: Kobo;
}

/** What the match found; docs/reconciliation.md says what each means and what to do. */
export type MatchClass =
  | 'agrees'
  | 'delivered_here_failed_there'
  | 'failed_here_delivered_there'
  | 'charged_twice_there'
  | 'cost_differs'
  | 'unknown_there';

export interface Match {
  class: MatchClass;
  /**
   * The money at stake at the upstream against our books, if the upstream's record is right:
   * positive, the platform's gain (the upstream holds more of our money than the books say);
   * negative, its loss. For `unknown_there`, the booked cost in question, as a loss: the most
   * the books can be wrong by on it. Zero when the records agree.
   */
  atStakeKobo: Kobo;
  ourCostKobo?: Kobo;
  theirChargedKobo?: Kobo;
}

/**
 * The daily match of one purchase. A purchase still pending here is the recovery worker's
 * (its re-query settles or refunds it), so it is a mismatch only when the upstream shows more
 * than one charge. A failure here was proven (nothing delivered, or the upstream reversed it):
 * an upstream that has no record of it, or cannot tell, adds nothing against that, so only a
 * delivery here that the upstream cannot confirm is `unknown_there`. (ClubKonnect's answer to a
 * query for an order it does not know is not documented, so its refusals would otherwise come
 * back every day.)
 */
export function classifyMatch(ours: OurRecord, theirs: TheirRecord): Match {
  const amounts = {
    ...(ours.costKobo === undefined ? {} : { ourCostKobo: ours.costKobo }),
    ...(theirs.chargedKobo === undefined ? {} : { theirChargedKobo: theirs.chargedKobo }),
  };
  const match = (klass: MatchClass, atStake: number): Match => ({
    class: klass,
    atStakeKobo: kobo(atStake),
    ...amounts,
  });
  const charged = theirs.chargedKobo ?? ours.costKobo ?? 0;
  const charges = theirs.charges ?? 1;
  if (theirs.status === 'delivered' && charges > 1) return match('charged_twice_there', -(charges - 1) * charged);
  const deliveredHere = ours.outcome === 'success';
  switch (theirs.status) {
    case 'delivered':
      if (ours.outcome === 'pending') return match('agrees', 0);
      if (!deliveredHere) return match('failed_here_delivered_there', -charged);
      if (ours.costKobo !== undefined && theirs.chargedKobo !== undefined && ours.costKobo !== theirs.chargedKobo)
        return match('cost_differs', ours.costKobo - theirs.chargedKobo);
      return match('agrees', 0);
    case 'failed':
      return deliveredHere ? match('delivered_here_failed_there', ours.costKobo ?? 0) : match('agrees', 0);
    case 'not_found':
    case 'unknown':
      return deliveredHere ? match('unknown_there', -(ours.costKobo ?? 0)) : match('agrees', 0);
  }
}
