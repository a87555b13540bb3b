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
import type { CompatRequest } from './dialect.js';

/** How often a pending purchase is looked up: a few reads a second at most, per waiting request. */
const LOOKUP_EVERY_MS = 250;

/** The purchase once final, or as it stands when the wait runs out. */
export async function awaitOutcome(request: CompatRequest, tx: Transaction): Promise<Transaction> {
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
