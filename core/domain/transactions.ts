/**
 * A purchase's life, as pure rules: its states and the moves between them, when the
 * recovery worker asks the provider again, and what a replayed request is answered.
 *
 *   pending --> success --> reversed
 *      \
 *       `----> failed
 *
 * `pending` is the only state whose outcome is unknown; `failed` and `reversed` are refunded
 * exactly once; `success` moves on only when the provider undoes a delivery. The stores
 * move states by this table: each conditional update matches only the states `movesInto`
 * names, and a move decided on a status already read asks `canMove` (SQLite keeps a trigger
 * besides, the last guard if a statement were ever written by hand).
 */

import type { TransactionStatus } from './products.js';
import type { TransactionRecord } from './records.js';

/** Where each state may go next. */
export const TRANSITIONS: Readonly<Record<TransactionStatus, readonly TransactionStatus[]>> = {
  pending: ['success', 'failed'],
  success: ['reversed'],
  failed: [],
  reversed: [],
};

export function canMove(from: TransactionStatus, to: TransactionStatus): boolean {
  return TRANSITIONS[from].includes(to);
}

/**
 * The states a purchase may move into `to` from: the guard of a store's conditional update
 * (`WHERE status IN (...)`, `{ status: { $in: [...] } }`), read from TRANSITIONS once when the
 * store starts, so the table and the stores cannot disagree and nothing is added per move.
 */
export function movesInto(to: TransactionStatus): readonly TransactionStatus[] {
  return (Object.keys(TRANSITIONS) as TransactionStatus[]).filter((from) => canMove(from, to));
}

/** The states whose charge was given back (one refund entry each). */
export type RefundedStatus = Extract<TransactionStatus, 'failed' | 'reversed'>;

/** The same states as a list, for a store's query (a SQL `IN`, a MongoDB `$in`). */
export const REFUNDED_STATUSES: readonly RefundedStatus[] = ['failed', 'reversed'];

/**
 * Whether a purchase in `status` had its charge given back (one refund entry each). It takes
 * any text, so that a store's raw row and a metrics label are asked the same question.
 */
export function isRefunded(status: string): status is RefundedStatus {
  return (REFUNDED_STATUSES as readonly string[]).includes(status);
}

/** When the recovery worker re-queries a pending transaction, and when it asks for a person. */
export interface RetrySchedule {
  delayMs(attempts: number): number;
  /** A transaction still pending this long after it was made is flagged for a person. */
  attentionAfterMs: number;
}

/**
 * Doubling from 15 s, capped at 15 min; a person is asked after 30 minutes (about seven
 * re-queries unanswered): a customer waiting for airtime does not wait a day for someone to look.
 */
export const DEFAULT_RETRY_SCHEDULE: RetrySchedule = {
  delayMs: (attempts) => Math.min(15_000 * 2 ** Math.min(attempts - 1, 10), 15 * 60_000),
  attentionAfterMs: 30 * 60_000,
};

/** What the next attempt on a still-pending transaction is, after `attemptsSoFar` answers without an outcome. */
export function nextAttempt(
  tx: Pick<TransactionRecord, 'createdAt'>,
  attemptsSoFar: number,
  at: Date,
  schedule: RetrySchedule = DEFAULT_RETRY_SCHEDULE,
): { attempts: number; nextAttemptAt: Date; needsAttention: boolean; at: Date } {
  const attempts = attemptsSoFar + 1;
  return {
    attempts,
    nextAttemptAt: new Date(at.getTime() + schedule.delayMs(attempts)),
    needsAttention: at.getTime() - tx.createdAt.getTime() >= schedule.attentionAfterMs,
    at,
  };
}

/**
 * The transaction as its first request was answered, so that a replay repeats that answer
 * (Stripe's rule) even if the purchase has moved on since. The first answer was `pending`
 * exactly when its provider call had no certain outcome, which the flow records as
 * attempt 1 (an outcome applied with no attempts so far); a purchase finished in its first
 * call keeps attempts = 0, and a reversal always follows a first answer of `success`. A
 * crash survivor (its request never answered) counts attempt 1 when the recovery worker
 * claims it, so a retry of it is answered `pending`, the state it was left in.
 * Callers who want the current state ask for the transaction.
 */
export function firstAnswer(tx: TransactionRecord): TransactionRecord {
  if (tx.status === 'pending') return tx;
  if (tx.attempts > 0) return { ...tx, status: 'pending', result: null, failureReason: null };
  if (tx.status === 'reversed') return { ...tx, status: 'success', failureReason: null };
  return tx;
}
