/**
 * The wait for a purchase's outcome (docs/compat.md, In flight). The clients of the compatible
 * dialects have no pending state they all read alike, so a purchase the core answers pending is
 * looked up again until it is final or the wait (COMPAT_WAIT_S, under the clients' own
 * time-outs) runs out. Nothing is decided here: the core's recovery settles the purchase as it
 * settles any other, and a lookup only reads what it did.
 */
import { performance } from 'node:perf_hooks';
import { setTimeout as sleep } from 'node:timers/promises';
import { type Transaction, TransactionStatus } from '../../gen/prepaid/v1/types_pb.js';
import { accountOf } from '../actions/action.js';
import type { PurchaseOutcome } from '../actions/views.js';
import { type ApiError, toApiError } from '../errors.js';
import type { CompatRequest } from './dialect.js';

/** How often a pending purchase is looked up: a few reads a second at most, per waiting request. */
const LOOKUP_EVERY_MS = 250;

/** The purchase once final, or as it stands when the wait runs out. */
async function awaitOutcome(request: CompatRequest, tx: Transaction): Promise<Transaction> {
  let current = tx;
  while (current.status === TransactionStatus.PENDING) {
    const left = request.waitUntilMs - performance.now();
    if (left <= 0) return current;
    await sleep(Math.min(LOOKUP_EVERY_MS, left));
    const res = await request.core.purchase.getTransaction({
      ...accountOf(request.caller),
      reference: current.reference,
    });
    if (res.transaction !== undefined) current = res.transaction;
  }
  return current;
}

/**
 * A purchase as every dialect answers it: the transaction (final, or still pending when the wait
 * ran out); after a failure after the debit, the refunded transaction beside the core's refusal;
 * a refusal before any debit (bad input too), the refusal alone.
 */
export type Bought = { tx: Transaction; failure?: ApiError } | { tx?: undefined; failure: ApiError };

/** Runs `buy` and waits for its outcome (awaitOutcome); never throws what the core or the input refused. */
export async function bought(request: CompatRequest, buy: () => Promise<PurchaseOutcome>): Promise<Bought> {
  try {
    const outcome = await buy();
    if (outcome.transaction === undefined) throw new Error('the core answered a purchase without its transaction');
    return { tx: await awaitOutcome(request, outcome.transaction) };
  } catch (error) {
    const failure = toApiError(error, request.log);
    // Failed after the debit: the core refunded it; the purchase itself is the answer.
    if (failure.key === 'PROVIDER_FAILED' && failure.reference !== undefined) {
      const res = await request.core.purchase.getTransaction({
        ...accountOf(request.caller),
        reference: failure.reference,
      });
      if (res.transaction !== undefined) return { tx: res.transaction, failure };
    }
    return { failure };
  }
}
