/**
 * The recovery worker's claims on MongoDB, as plain filter and update documents so that
 * their conditions can be checked without a server (test/core/store/mongo-units.test.ts).
 * A claim is one conditional update of one document, atomic on its own: of several cores
 * that listed the same due transaction, the first update matches and moves the transaction
 * out of due (its next_attempt_at becomes the lease's end, its attempts go up by one); the
 * others match nothing and leave it alone.
 */
import type { Filter, UpdateFilter } from 'mongodb';
import type { AttemptClaim, AttemptRecord } from '../port.js';
import { type TransactionDoc, toDate } from './documents.js';

/** Matches the transaction only while it is pending, due, and at the attempts the claimer saw. */
export function claimFilter(reference: string, claim: AttemptClaim): Filter<TransactionDoc> {
  return {
    _id: reference,
    status: 'pending',
    next_attempt_at: { $lte: toDate(claim.dueBy, 'dueBy') },
    attempts: claim.attempts,
  };
}

/** Takes the lease and counts the attempt before the provider is asked, so a crash cannot lose it. */
export function claimUpdate(claim: AttemptClaim): UpdateFilter<TransactionDoc> {
  return {
    $inc: { attempts: 1 },
    $set: { next_attempt_at: toDate(claim.leaseUntil, 'leaseUntil'), updated_at: toDate(claim.at, 'at') },
  };
}

/**
 * Matches a pending transaction whose attempts have not gone past the ones being recorded:
 * a core whose lease ran out before it wrote must not undo a later claim's count.
 */
export function attemptFilter(reference: string, next: Pick<AttemptRecord, 'attempts'>): Filter<TransactionDoc> {
  return { _id: reference, status: 'pending', attempts: { $lte: next.attempts } };
}
