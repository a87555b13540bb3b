/**
 * The journal: the one door every money move of the core goes through (docs/money.md, The
 * books). A use case posts a move (core/store/moves.ts); the store's adapter makes it in one
 * transaction, with its postings and its partner event; the journal then tells what it wrote:
 * the webhook worker hears of every event at once (it would find it on its next poll anyway),
 * a purchase's final outcome is logged and counted once, and each move is timed.
 */
import { unreachable } from '../domain/errors.js';
import type { Mode } from '../domain/mode.js';
import type { TransactionRecord } from '../domain/records.js';
import type { LedgerStore, MoneyMove, MoneyMoveKind, MoveOf, MoveResults, ProposedMove } from '../store/moves.js';
import type { Moved } from '../store/port.js';

/** Whose feed an event was written to. */
interface Destination {
  accountId: string;
  mode: Mode;
}

export interface JournalDeps {
  /** The store's door. */
  ledger: LedgerStore;
  /** Told of every move that wrote a partner event, with its wallet. */
  wroteEvent: (destination: Destination) => void;
  /** Told of every purchase a move made final (settled, refunded, reversed), once. */
  madeFinal?: ((tx: TransactionRecord) => void) | undefined;
  /** How long each move took, failed or not. */
  timed?: ((kind: MoneyMoveKind, seconds: number) => void) | undefined;
}

export function createJournal(deps: JournalDeps): LedgerStore {
  function purchaseMoved(result: Moved | null): void {
    if (!result?.changed) return;
    deps.madeFinal?.(result.transaction);
    deps.wroteEvent(result.transaction);
  }

  /** What a move wrote, told; one switch over every kind, so a new kind must say what it tells. */
  function tell(move: MoneyMove | ProposedMove, result: MoveResults[MoneyMoveKind]): void {
    switch (move.kind) {
      case 'settle':
      case 'refund':
      case 'reverse':
        purchaseMoved(result as Moved | null);
        return;
      case 'credit': {
        const credited = result as MoveResults['credit'];
        if (credited !== null && !credited.replayed) deps.wroteEvent(move.credit);
        return;
      }
      case 'debit': {
        const debited = result as MoveResults['debit'];
        if (debited.outcome === 'debited' && !debited.replayed) deps.wroteEvent(move.debit);
        return;
      }
      case 'inflow_record': {
        const credit = (result as MoveResults['inflow_record']).credit;
        if (credit?.outcome === 'credited')
          deps.wroteEvent({ accountId: credit.inflow.accountId!, mode: credit.inflow.mode });
        return;
      }
      case 'inflow_credit': {
        const credited = result as MoveResults['inflow_credit'];
        if (credited.outcome === 'credited') deps.wroteEvent(move.credit);
        return;
      }
      case 'level_change': {
        const changed = result as MoveResults['level_change'];
        if (changed.outcome === 'changed' && changed.released.length > 0)
          deps.wroteEvent({ accountId: move.accountId, mode: 'live' });
        return;
      }
      case 'approve': {
        const approved = result as MoveResults['approve'];
        if (approved.outcome === 'applied') tell(move.move, approved.result);
        return;
      }
      // A reserve's low-balance event waits for the worker's poll; these write no partner event.
      case 'reserve':
      case 'inflow_reject':
      case 'cost_learnt':
      case 'own_entry':
      case 'hold_return':
        return;
      default:
        unreachable(move, 'journal: a money move');
    }
  }

  return {
    async post<K extends MoneyMoveKind>(move: MoveOf<K>): Promise<MoveResults[K]> {
      const started = performance.now();
      try {
        const result = await deps.ledger.post(move);
        tell(move, result);
        return result;
      } finally {
        deps.timed?.(move.kind, (performance.now() - started) / 1000);
      }
    },
  };
}
