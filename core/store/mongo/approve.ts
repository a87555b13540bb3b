/**
 * A staff approval on MongoDB (core/store/moves.ts, ApproveMove): the decision, the move, the
 * mark applied and the audit row in one multi-document transaction. A move that does not take
 * effect throws inside it, so the transaction aborts and the decision goes with it.
 */

import { type ClientSession, type Filter, ObjectId } from 'mongodb';
import { unreachable } from '../../domain/errors.js';
import { newEventId } from '../../domain/events.js';
import {
  type Approved,
  type ApproveMove,
  approvalAuditEntry,
  type MoveResults,
  type ProposedMove,
  tookEffect,
} from '../moves.js';
import { refundMemo, reversalMemo } from '../rules.js';
import { appendAuditIn, auditDocOf } from './audit-log.js';
import { bookOwnIn } from './books.js';
import { STAFF_COLLECTIONS } from './collections.js';
import type { MongoContext } from './context.js';
import { creditIn as creditInflowIn, isMissingAccount } from './funding.js';
import { returnHoldIn } from './levels.js';
import { type ProposalDoc, proposalFromDoc } from './staff.js';
import { creditIn, debitIn, giveBackIn } from './wallet.js';

type ProposedResult = MoveResults[ProposedMove['kind']];

/** Thrown inside the transaction to abort it: the proposal was not pending, or its move took no effect. */
class Abort extends Error {
  constructor(readonly answer: Approved | { outcome: 'not_applied'; result: ProposedResult }) {
    super('store: the approval wrote nothing');
  }
}

async function makeMove(ctx: MongoContext, session: ClientSession, move: ProposedMove): Promise<ProposedResult> {
  // Fixed per attempt of the callback; a retried transaction writes its own, once.
  const ids = { entryId: new ObjectId(), eventId: newEventId() };
  switch (move.kind) {
    case 'credit':
      return creditIn(ctx, session, move.credit, ids);
    case 'debit':
      return debitIn(ctx, session, move.debit, ids);
    case 'inflow_credit':
      try {
        return await creditInflowIn(ctx, session, move.inflowId, move.credit, move.from, ids);
      } catch (error) {
        if (isMissingAccount(error)) return { outcome: 'no_account' };
        throw error;
      }
    case 'refund':
    case 'reverse': {
      const to = move.kind === 'refund' ? 'failed' : 'reversed';
      const memo = move.kind === 'refund' ? refundMemo(move.reason) : reversalMemo(move.reason);
      return giveBackIn(ctx, session, move.reference, { to, memo }, move.reason, move.at, ids);
    }
    case 'own_entry':
      return bookOwnIn(ctx, session, move.entry, ids.entryId);
    case 'hold_return':
      return returnHoldIn(ctx, session, move.inflowId, move.at);
    default:
      return unreachable(move, 'store: a proposed move');
  }
}

export function createApproval(ctx: MongoContext): (move: ApproveMove) => Promise<Approved> {
  const proposals = ctx.db.collection<ProposalDoc>(STAFF_COLLECTIONS.proposals);

  async function run(move: ApproveMove, session: ClientSession): Promise<Approved> {
    const found = await proposals.findOne({ _id: move.proposalId }, { session });
    if (found === null) return { outcome: 'not_found' };
    // Approved with its move unfinished (written before the books made this one transaction): finished now.
    const finishing = found.status === 'approved' && found.applied_at === null;
    if (!finishing) {
      const pending: Filter<ProposalDoc> = {
        _id: move.proposalId,
        status: 'pending',
        expires_at: { $gt: move.at },
        proposed_by: { $ne: move.by },
      };
      const decided = await proposals.findOneAndUpdate(
        pending,
        { $set: { status: 'approved', decided_by: move.by, decided_at: move.at } },
        { session, returnDocument: 'after' },
      );
      if (decided === null) throw new Abort({ outcome: 'not_pending', proposal: proposalFromDoc(found) });
    }
    const result = await makeMove(ctx, session, move.move);
    // Anything the move wrote goes with the aborted transaction.
    if (!tookEffect(move.move, result)) throw new Abort({ outcome: 'not_applied', result });
    const applied = await proposals.findOneAndUpdate(
      { _id: move.proposalId, status: 'approved', applied_at: null },
      { $set: { applied_at: move.at } },
      { session, returnDocument: 'after' },
    );
    if (applied === null) throw new Error(`store: proposal ${move.proposalId} changed inside its own transaction`);
    const after = proposalFromDoc(applied);
    const account = await ctx.live().accounts.findOne({ _id: after.accountId }, { session });
    const balanceKobo = account === null ? null : Number(account.balance_kobo);
    await appendAuditIn(ctx, session, auditDocOf(approvalAuditEntry(move, after, balanceKobo, finishing)));
    return { outcome: 'applied', proposal: after, result };
  }

  return async (move) => {
    ctx.live();
    try {
      return await ctx.inTransaction((session) => run(move, session));
    } catch (error) {
      if (!(error instanceof Abort)) throw error;
      if (error.answer.outcome !== 'not_applied') return error.answer;
      // Read after the abort: the proposal as it stands, untouched by this call.
      const now = await proposals.findOne({ _id: move.proposalId });
      return { outcome: 'not_applied', proposal: proposalFromDoc(now!), result: error.answer.result };
    }
  };
}
