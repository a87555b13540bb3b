/**
 * The reconciliation's `ReconcileBooks` read from the store: the float our books expect is the
 * sum of the upstream's float account (live) before an instant; the top-ups are the journal's
 * `upstream_funded` entries that post to it; the day's purchases are the live attempts at the
 * upstream that started in the window, with their purchase's outcome and the cost its settle
 * booked against that float; the balances it told between purchases are the float poller's
 * readings kept in the store.
 */
import type { Posting } from '../domain/books.js';
import { type Kobo, kobo } from '../domain/money.js';
import type { BalanceReading, OurOutcome } from '../domain/reconcile.js';
import type { TransactionRecord, UpstreamAttemptRecord } from '../domain/records.js';
import type { Store } from '../store/port.js';
import type { DayPurchase, ReconcileBooks } from './reconcile.js';

/** Attempts read at once. */
const ATTEMPT_PAGE = 500;
/**
 * Pages of attempts one day may have: 400 pages of 500, 200 000 attempts across every
 * upstream. A day with more is refused with a clear error rather than read without end.
 */
const MAX_ATTEMPT_PAGES = 400;
/** Float readings read at once, and the pages one day may have (one a second is 86 400). */
const READING_PAGE = 1_000;
const MAX_READING_PAGES = 90;
/** Top-ups of one upstream a day may have (they are an operator's bank transfers). */
const MAX_TOP_UPS = 1_000;

const floatOf = (upstream: string): string => `upstream:${upstream}:float`;

export function createBooksSource(
  store: Pick<Store, 'books' | 'supply' | 'transactions' | 'findings'>,
): ReconcileBooks {
  return {
    async balanceReadings(upstream, from, until) {
      // The float poller's readings kept in the store (a restart loses none), a page at a time:
      // one instant holds one reading per upstream, so the next page starts just after the last.
      const all: BalanceReading[] = [];
      let start = from;
      for (let page = 0; page < MAX_READING_PAGES; page += 1) {
        const rows = await store.findings.readingsBetween(upstream, start, until, READING_PAGE);
        all.push(...rows);
        if (rows.length < READING_PAGE) return all;
        start = new Date(rows.at(-1)!.at.getTime() + 1);
      }
      throw new RangeError(`more than ${MAX_READING_PAGES * READING_PAGE} float readings of ${upstream} in one day`);
    },
    async dayPurchases(upstream, from, until) {
      const purchases: DayPurchase[] = [];
      for (const attempt of await attemptsOfWindow(store, from, until)) {
        if (attempt.upstream !== upstream) continue;
        const tx = await store.transactions.get(attempt.reference);
        if (tx === null || tx.mode !== 'live') continue;
        purchases.push(await purchaseOf(store, upstream, attempt, tx));
      }
      return purchases;
    },
    async expectedFloat(upstream, at) {
      return kobo(await store.books.sumOf(floatOf(upstream), 'live', at));
    },
    async topUps(upstream, from, until) {
      const entries = await store.books.entriesBetween('upstream_funded', 'live', from, until, MAX_TOP_UPS + 1);
      if (entries.length > MAX_TOP_UPS)
        throw new RangeError(`more than ${MAX_TOP_UPS} top-ups in one day; refusing to read them all`);
      const float = floatOf(upstream);
      return entries.flatMap((entry) => {
        const amount = sumTo(entry.postings, float);
        return amount === 0 ? [] : [{ reference: entry.reference, at: entry.at, amountKobo: kobo(amount) }];
      });
    },
  };
}

/**
 * Every attempt started in [from, until), oldest first, read a page at a time: the next page
 * starts at the last one's instant, and the attempts already read at that instant are
 * skipped. A page whose every attempt shares one instant cannot move on; that (and a day past
 * MAX_ATTEMPT_PAGES) is refused.
 */
async function attemptsOfWindow(
  store: Pick<Store, 'supply'>,
  from: Date,
  until: Date,
): Promise<UpstreamAttemptRecord[]> {
  const all: UpstreamAttemptRecord[] = [];
  const keyOf = (row: UpstreamAttemptRecord) => `${row.reference} ${row.seq}`;
  let start = from;
  // The attempts already read at `start`: the only ones the next page can repeat.
  let atStart = new Set<string>();
  for (let page = 0; page < MAX_ATTEMPT_PAGES; page += 1) {
    const rows = await store.supply.attemptsBetween(start, until, ATTEMPT_PAGE);
    for (const row of rows) if (!atStart.has(keyOf(row))) all.push(row);
    if (rows.length < ATTEMPT_PAGE) return all;
    const last = rows.at(-1)!.startedAt.getTime();
    if (last === start.getTime()) throw new RangeError(`more than ${ATTEMPT_PAGE} attempts started at one instant`);
    start = new Date(last);
    atStart = new Set(rows.filter((row) => row.startedAt.getTime() === last).map(keyOf));
  }
  throw new RangeError(`more than ${MAX_ATTEMPT_PAGES * ATTEMPT_PAGE} upstream attempts in one day`);
}

/** Our side of one attempt: the request a re-query sends, our outcome there, the cost the books took from the float. */
async function purchaseOf(
  store: Pick<Store, 'books'>,
  upstream: string,
  attempt: UpstreamAttemptRecord,
  tx: TransactionRecord,
): Promise<DayPurchase> {
  const entries = await store.books.entriesOf(tx.reference);
  const float = floatOf(upstream);
  const booked = entries
    .filter((e) => e.kind === 'settle' || e.kind === 'cost_known')
    .reduce((sum, e) => sum + sumTo(e.postings, float), 0);
  const hasCost = entries.some(
    (e) => (e.kind === 'settle' || e.kind === 'cost_known') && e.postings.some((p) => p.account === float),
  );
  const outcome = outcomeOf(attempt, tx);
  return {
    request: {
      reference: tx.reference,
      product: tx.product,
      service: tx.service,
      recipient: tx.recipient,
      faceValueKobo: tx.faceValueKobo,
      details: tx.details,
      ...(attempt.upstreamReference === null ? {} : { upstreamReference: attempt.upstreamReference }),
    },
    at: attempt.startedAt,
    outcome,
    ...(hasCost && outcome !== 'failed' ? { costKobo: kobo(-booked) as Kobo } : {}),
  };
}

/**
 * Our outcome of a purchase at one upstream: its attempt's, where the attempt ended certain
 * (a proven non-delivery there is a failure there, whatever a later upstream did); an attempt
 * left uncertain is the purchase's own state, which the recovery worker's re-query made final.
 */
function outcomeOf(attempt: UpstreamAttemptRecord, tx: TransactionRecord): OurOutcome {
  switch (attempt.outcome) {
    case 'delivered':
      return tx.status === 'reversed' ? 'reversed' : 'success';
    case 'failed':
    case 'not_delivered':
      return 'failed';
    default:
      return tx.status;
  }
}

function sumTo(postings: readonly Posting[], account: string): number {
  return postings.filter((p) => p.account === account).reduce((sum, p) => sum + p.amountKobo, 0);
}
