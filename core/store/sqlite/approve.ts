/**
 * A staff approval on SQLite (core/store/moves.ts, ApproveMove): the decision, the move, the
 * mark applied and the audit row as one operation of the group commit, so one transaction. The
 * move runs in a savepoint: one that does not take effect is rolled back with the decision.
 */

import type Database from 'better-sqlite3';
import { unreachable } from '../../domain/errors.js';
import {
  type Approved,
  type ApproveMove,
  approvalAuditEntry,
  type MoveResults,
  type ProposedMove,
  tookEffect,
} from '../moves.js';
import type { OwnEntry } from '../port.js';
import { refundMemo, reversalMemo } from '../rules.js';
import type { auditAppender } from './audit-log.js';
import type { GroupCommit } from './group-commit.js';
import { toMs } from './rows.js';
import { type ProposalRow, proposalFromRow } from './staff.js';
import type { moneyOperations } from './wallet.js';

type ProposedResult = MoveResults[ProposedMove['kind']];

/** What the approval needs of the rest of the adapter, all synchronous inside the commit. */
export interface ApprovalParts {
  money: ReturnType<typeof moneyOperations>;
  creditInflow: (move: Extract<ProposedMove, { kind: 'inflow_credit' }>) => MoveResults['inflow_credit'];
  /** An own entry (a top-up, a settlement) booked in the approval's transaction (books.ts). */
  bookOwn: (entry: OwnEntry) => MoveResults['own_entry'];
  appendAudit: ReturnType<typeof auditAppender>;
  /** A held credit returned, in the approval's transaction (levels.ts). */
  returnHold: (inflowId: string, at: Date) => MoveResults['hold_return'];
  balanceOf: (accountId: string) => number | null;
}

/** Thrown inside the savepoint when the proposal was decided or expired meanwhile. */
class NotPending extends Error {
  constructor() {
    super('store: the proposal is not pending');
  }
}

/** Thrown inside the savepoint to roll a move that did not take effect back, with what it answered. */
class NotApplied extends Error {
  constructor(readonly result: ProposedResult) {
    super('store: the proposed move did not take effect');
  }
}

export function createApproval(db: Database.Database, commit: GroupCommit, parts: ApprovalParts) {
  const get = db.prepare<[string], ProposalRow>('SELECT * FROM proposals WHERE proposal_id = ?');
  const approve = db.prepare<{ id: string; by: string; at: number }, ProposalRow>(
    `UPDATE proposals SET status = 'approved', decided_by = @by, decided_at = @at
     WHERE proposal_id = @id AND status = 'pending' AND expires_at > @at AND proposed_by <> @by
     RETURNING *`,
  );
  const applied = db.prepare<{ id: string; at: number }, ProposalRow>(
    `UPDATE proposals SET applied_at = @at WHERE proposal_id = @id AND status = 'approved' AND applied_at IS NULL
     RETURNING *`,
  );

  function makeMove(move: ProposedMove): ProposedResult {
    switch (move.kind) {
      case 'credit':
        return parts.money.credit(move.credit);
      case 'debit':
        return parts.money.debit(move.debit);
      case 'inflow_credit':
        return parts.creditInflow(move);
      case 'refund':
        return parts.money.giveBack(move.reference, 'failed', refundMemo(move.reason), move.reason, move.at);
      case 'reverse':
        return parts.money.giveBack(move.reference, 'reversed', reversalMemo(move.reason), move.reason, move.at);
      case 'own_entry':
        return parts.bookOwn(move.entry);
      case 'hold_return':
        return parts.returnHold(move.inflowId, move.at);
      default:
        return unreachable(move, 'store: a proposed move');
    }
  }

  function run(move: ApproveMove): Approved {
    const found = get.get(move.proposalId);
    if (found === undefined) return { outcome: 'not_found' };
    // Pending: decided now. Approved with its move unfinished (written before the books made
    // this one transaction): finished now, once. Anything else is left as it is.
    const finishing = found.status === 'approved' && found.applied_at === null;
    try {
      return db.transaction((): Approved => {
        if (!finishing && approve.get({ id: move.proposalId, by: move.by, at: toMs(move.at) }) === undefined)
          throw new NotPending();
        const result = makeMove(move.move);
        if (!tookEffect(move.move, result)) throw new NotApplied(result);
        const after = proposalFromRow(applied.get({ id: move.proposalId, at: toMs(move.at) })!);
        parts.appendAudit(approvalAuditEntry(move, after, parts.balanceOf(after.accountId), finishing));
        return { outcome: 'applied', proposal: after, result };
      })();
    } catch (error) {
      // The savepoint took the decision back with the move: the proposal is as it was found.
      const proposal = () => proposalFromRow(get.get(move.proposalId)!);
      if (error instanceof NotPending) return { outcome: 'not_pending', proposal: proposal() };
      if (error instanceof NotApplied) return { outcome: 'not_applied', proposal: proposal(), result: error.result };
      throw error;
    }
  }

  return (move: ApproveMove): Promise<Approved> => commit.run(() => run(move));
}
