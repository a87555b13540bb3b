/**
 * The recovery worker: re-queries pending transactions (unknown outcomes, and purchases a
 * crash left between reserve and settle) until the provider gives a final answer, then
 * settles or refunds exactly once. It never refunds on its own judgement: a transaction
 * that stays unknown past the deadline is flagged for a person and keeps being re-queried.
 */

import { createPeriodicRunner, type PeriodicRunner } from '../../runtime/periodic.js';
import type { TransactionRecord } from '../domain/records.js';
import { applyOutcome, leaseUntil, type PurchaseDeps, providerRequestOf } from './flow.js';
import { answersOf, callUpstreamWithDeadline, providerFor } from './upstream-calls.js';

/** Transactions looked at per pass, so one pass stays short however large the backlog. */
const RECOVERY_BATCH_SIZE = 100;

/** runOnce(dueBy) is one pass over transactions due by `dueBy` (default now); it resolves to how many became final. */
export type RecoveryWorker = PeriodicRunner<[dueBy?: Date], number>;

export function createRecoveryWorker(deps: PurchaseDeps, options: { intervalMs: number }): RecoveryWorker {
  /**
   * Claims one due transaction, then re-queries it; true when it became final. The claim is
   * what keeps several cores (or two passes) from querying the same purchase at once: only
   * one claim of a listing matches, and it counts the attempt before the provider is asked,
   * so a core that dies mid-query loses no count. The others skip it.
   */
  async function recover(listed: TransactionRecord, dueBy: Date): Promise<boolean> {
    const at = deps.clock();
    const tx = await deps.store.wallet.claimAttempt(listed.reference, {
      dueBy,
      attempts: listed.attempts,
      leaseUntil: leaseUntil(at, deps.providerTimeoutMs),
      at,
    });
    if (tx === null) return false;
    // The upstream that got the purchase answers for it, whatever the routes say now.
    const { provider, upstream, request } = await providerFor(deps, tx, providerRequestOf(tx));
    const outcome =
      provider === null
        ? { kind: 'unknown' as const, reason: `the upstream ${upstream} that got the purchase is no longer configured` }
        : await callUpstreamWithDeadline((signal) => provider.query(request, signal), deps.providerTimeoutMs);
    deps.log('provider.query', {
      reference: tx.reference,
      product: tx.product,
      provider: upstream ?? provider?.name,
      outcome: outcome.kind,
      attempt: tx.attempts,
    });
    const answers = answersOf('requery', upstream ?? provider?.name ?? '', outcome);
    const after = await applyOutcome(deps, tx, outcome, tx.attempts - 1, undefined, answers);
    return after.status !== 'pending';
  }

  async function pass(dueBy: Date): Promise<number> {
    const due = await deps.store.transactions.listDuePending(dueBy, RECOVERY_BATCH_SIZE);
    let finalized = 0;
    for (const tx of due) {
      if (deps.inFlight.has(tx.reference)) continue;
      // One transaction whose write fails must not hold up the others: it is logged and
      // is due again when its claim's lease ends, and the pass goes on (a store that is
      // down fails them all, each logged).
      try {
        if (await recover(tx, dueBy)) finalized += 1;
      } catch (error) {
        deps.log('recovery.transaction_failed', {
          reference: tx.reference,
          error: error instanceof Error ? error.message : String(error),
        });
      }
    }
    return finalized;
  }

  // One pass at a time: a second caller waits for the running pass, then runs its own.
  return createPeriodicRunner<[dueBy?: Date], number>({
    pass: (dueBy = deps.clock()) => pass(dueBy),
    intervalMs: options.intervalMs,
    overlap: 'queue',
    onError: (error) => deps.log('recovery.error', { error: error instanceof Error ? error.message : String(error) }),
  });
}
