/**
 * The one door money goes through (docs/money.md, The books): every move is a command of this
 * closed union, and each adapter executes one as one store transaction that writes the balance
 * changes, the postings, the partner's event, and, for a staff approval, the proposal's state and
 * the audit row together. An adapter supplies a handler for every kind (`MoveHandlers`), so a
 * new kind of move does not compile until every adapter makes it.
 */

import { unreachable } from '../domain/errors.js';
import type { InflowCredit, InflowRecord, NewInflow } from '../domain/funding.js';
import type { HoldRecord, Level } from '../domain/levels.js';
import type { Kobo } from '../domain/money.js';
import type { DeliveryResult } from '../domain/products.js';
import type { AuditEntryRecord, NewTransaction, ReserveChecks, ReserveResult } from '../domain/records.js';
import type { ProposalRecord } from '../domain/staff.js';
import type {
  AttemptEnd,
  BooksMoney,
  Credited,
  CreditInflowResult,
  CreditInput,
  Debited,
  DebitInput,
  FirstAttempt,
  FundingMoney,
  JournalEntryRecord,
  LevelChanged,
  LevelDecision,
  Moved,
  NewUpstreamAnswer,
  OwnEntry,
  RecordedInflow,
  SupplyMoney,
  WalletMoney,
} from './port.js';

/** Phase one of a purchase (the conditional debit, the pending transaction, its first attempt). */
interface ReserveMove {
  kind: 'reserve';
  tx: NewTransaction;
  first?: FirstAttempt | undefined;
  checks?: ReserveChecks | undefined;
}

/** pending -> success, with the attempt's outcome and the answers that led here. */
interface SettleMove {
  kind: 'settle';
  reference: string;
  result: DeliveryResult;
  at: Date;
  attempt?: AttemptEnd | undefined;
  answers?: readonly NewUpstreamAnswer[] | undefined;
}

/** pending -> failed and the whole charge back, once. */
interface RefundMove {
  kind: 'refund';
  reference: string;
  reason: string;
  at: Date;
  attempt?: AttemptEnd | undefined;
  answers?: readonly NewUpstreamAnswer[] | undefined;
}

/** success -> reversed and the whole charge back, once: the upstream undid a delivery. */
interface ReverseMove {
  kind: 'reverse';
  reference: string;
  reason: string;
  at: Date;
}

/** The operator's credit of one wallet. */
interface CreditMove {
  kind: 'credit';
  credit: Omit<CreditInput, 'funding'>;
}

/** The operator's debit of one wallet, only if it covers it. */
interface DebitMove {
  kind: 'debit';
  debit: DebitInput;
}

/**
 * A confirmed transfer recorded (received at its provider, held), and with `credit`, when this
 * call wrote it `verified` to a wallet, credited less the fee in the same transaction where the
 * store can (FundingStore's rules, docs/funding.md).
 */
interface InflowRecordMove {
  kind: 'inflow_record';
  inflow: NewInflow;
  credit: { feeKobo: Kobo; at: Date } | null;
}

/** A recorded transfer credited to a wallet less the fee, only from the status given. */
export interface InflowCreditMove {
  kind: 'inflow_credit';
  inflowId: string;
  credit: InflowCredit;
  from: 'verified' | 'unmatched';
}

/** A transfer a person decided is not ours: rejected, and what was received for it returned. */
interface InflowRejectMove {
  kind: 'inflow_reject';
  inflowId: string;
  reason: string;
  at: Date;
}

/** A delivered purchase's attempt marked delivered later, and its cost booked if the settle could not. */
interface CostLearntMove {
  kind: 'cost_learnt';
  reference: string;
  seq: number;
  costKobo: Kobo | null;
  at: Date;
}

/** The platform's own money: an upstream's top-up, a provider's settlement, with its audit row. */
interface OwnEntryMove {
  kind: 'own_entry';
  entry: OwnEntry;
  audit: Omit<AuditEntryRecord, 'id'>;
}

/**
 * An account's identity level set (a staff member's or the operator's decision, docs/kyc.md):
 * its open request approved, every held credit the new level allows released to its wallet,
 * and the audit row, in one transaction.
 */
interface LevelChangeMove {
  kind: 'level_change';
  accountId: string;
  level: Level;
  decision: LevelDecision;
}

/** A credit held over the level's limits returned to its payer (a staff proposal approved): held -> returned, once. */
interface HoldReturnMove {
  kind: 'hold_return';
  inflowId: string;
  at: Date;
}

/**
 * The moves a staff proposal makes once approved. An own entry approved is booked without an
 * audit row of its own: the approval's row is the one its transaction writes.
 */
export type ProposedMove =
  | CreditMove
  | DebitMove
  | InflowCreditMove
  | RefundMove
  | ReverseMove
  | HoldReturnMove
  | Omit<OwnEntryMove, 'audit'>;

/**
 * A second person's approval of a proposal and its move, in one transaction: the decision
 * (pending -> approved, or an approved proposal whose move never finished), the move, the mark
 * applied and the audit row. A move that does not take effect (a wallet short for a debit, a
 * purchase no longer in the state the proposal saw) rolls the decision back with it.
 */
export interface ApproveMove {
  kind: 'approve';
  proposalId: string;
  by: string;
  at: Date;
  move: ProposedMove;
  /** The audit row's who and why; `after` is the proposal as applied and the wallet's balance, with `afterExtra`. */
  audit: {
    actor: string;
    address: string | null;
    note: string;
    before: string | null;
    afterExtra: Record<string, unknown>;
  };
}

export type MoneyMove =
  | ReserveMove
  | SettleMove
  | RefundMove
  | ReverseMove
  | CreditMove
  | DebitMove
  | InflowRecordMove
  | InflowCreditMove
  | InflowRejectMove
  | CostLearntMove
  | OwnEntryMove
  | LevelChangeMove
  | HoldReturnMove
  | ApproveMove;

export type MoneyMoveKind = MoneyMove['kind'];

export type MoveOf<K extends MoneyMoveKind> = Extract<MoneyMove, { kind: K }>;

/** What a proposal's approval did. */
export type Approved =
  /** Decided, moved, marked applied and audited now. */
  | { outcome: 'applied'; proposal: ProposalRecord; result: MoveResults[ProposedMove['kind']] }
  /** The move did not take effect: nothing was written, the proposal is as it was. */
  | { outcome: 'not_applied'; proposal: ProposalRecord; result: MoveResults[ProposedMove['kind']] }
  /** Decided before (approved and applied, refused) or expired: nothing was written. */
  | { outcome: 'not_pending'; proposal: ProposalRecord }
  | { outcome: 'not_found' };

export interface MoveResults {
  reserve: ReserveResult;
  settle: Moved | null;
  refund: Moved | null;
  reverse: Moved | null;
  credit: Credited | null;
  debit: Debited;
  inflow_record: RecordedInflow & { credit: CreditInflowResult | null };
  inflow_credit: CreditInflowResult;
  inflow_reject: InflowRecord | null;
  cost_learnt: boolean;
  own_entry: { entry: JournalEntryRecord; replayed: boolean };
  level_change: LevelChanged;
  /** The hold as returned now; null when it is not held (released, returned before, or unknown). */
  hold_return: HoldRecord | null;
  approve: Approved;
}

/** An adapter's executor: a handler for every kind, each one store transaction. */
export type MoveHandlers = { [K in MoneyMoveKind]: (move: MoveOf<K>) => Promise<MoveResults[K]> };

/** The one door: every money move of the core is posted here. */
export interface LedgerStore {
  post<K extends MoneyMoveKind>(move: MoveOf<K>): Promise<MoveResults[K]>;
}

/** The door over an adapter's handlers. */
export function ledgerStore(handlers: MoveHandlers): LedgerStore {
  return {
    post<K extends MoneyMoveKind>(move: MoveOf<K>): Promise<MoveResults[K]> {
      const handler = handlers[move.kind] as (move: MoveOf<K>) => Promise<MoveResults[K]>;
      return handler(move);
    },
  };
}

/**
 * The audit row of an approval, as both adapters write it in the approval's transaction: the
 * proposal as applied and the wallet's balance after it, with what the desk adds.
 */
export function approvalAuditEntry(
  move: ApproveMove,
  after: ProposalRecord,
  balanceKobo: number | null,
  finishing: boolean,
): Omit<AuditEntryRecord, 'id'> {
  return {
    at: move.at,
    actor: move.audit.actor,
    action: finishing ? 'proposal.finish' : 'proposal.approve',
    target: move.proposalId,
    before: move.audit.before,
    after: JSON.stringify({ ...after, balance_kobo: balanceKobo, ...move.audit.afterExtra }),
    address: move.audit.address,
    note: move.audit.note,
  };
}

/**
 * Whether a proposed move took effect, which the approval's transaction needs before it marks
 * the proposal applied: a credit found its wallet (made now or before under the same
 * reference), a debit was covered, an inflow was credited (now or before), a purchase moved
 * (or had already reached the state the proposal asked for), an own entry was booked now.
 */
export function tookEffect(move: ProposedMove, result: MoveResults[ProposedMove['kind']]): boolean {
  switch (move.kind) {
    case 'credit':
      return result !== null;
    case 'debit':
      return (result as Debited).outcome === 'debited';
    case 'inflow_credit': {
      const outcome = (result as CreditInflowResult).outcome;
      return outcome === 'credited' || outcome === 'already_credited';
    }
    case 'refund':
    case 'reverse': {
      const moved = result as Moved | null;
      if (moved === null) return false;
      const wanted = move.kind === 'refund' ? 'failed' : 'reversed';
      return moved.changed || moved.transaction.status === wanted;
    }
    case 'hold_return':
      return result !== null;
    case 'own_entry':
      // Booked now: an entry of its kind and reference booked before (by hand) is not this proposal's.
      return !(result as MoveResults['own_entry']).replayed;
    default:
      return unreachable(move, 'store: a money move');
  }
}

/** An adapter's money operations, each one transaction already; the approval is its own. */
export interface AdapterMoney {
  wallet: WalletMoney;
  funding: FundingMoney;
  supply: SupplyMoney;
  books: BooksMoney;
  changeLevel(move: LevelChangeMove): Promise<LevelChanged>;
  returnHold(move: HoldReturnMove): Promise<HoldRecord | null>;
  approve(move: ApproveMove): Promise<Approved>;
}

/** The handlers over an adapter's money operations: the one place a move becomes an operation. */
export function moneyHandlers(money: AdapterMoney): MoveHandlers {
  const { wallet, funding } = money;
  return {
    reserve: (m) => wallet.reserve(m.tx, m.first, m.checks),
    settle: (m) => wallet.settle(m.reference, m.result, m.at, m.attempt, m.answers),
    refund: (m) => wallet.refund(m.reference, m.reason, m.at, m.attempt, m.answers),
    reverse: (m) => wallet.reverse(m.reference, m.reason, m.at),
    credit: (m) => wallet.credit(m.credit),
    debit: (m) => wallet.debit(m.debit),
    inflow_record: async (m) =>
      m.credit === null
        ? { ...(await funding.recordInflow(m.inflow)), credit: null }
        : funding.recordAndCreditInflow(m.inflow, m.credit),
    inflow_credit: (m) => funding.creditInflow(m.inflowId, m.credit, m.from),
    inflow_reject: (m) => funding.rejectInflow(m.inflowId, m.reason, m.at),
    cost_learnt: (m) => money.supply.deliveredLater(m.reference, m.seq, m.costKobo, m.at),
    own_entry: (m) => money.books.bookOwn(m.entry, m.audit),
    level_change: (m) => money.changeLevel(m),
    hold_return: (m) => money.returnHold(m),
    approve: (m) => money.approve(m),
  };
}
