/**
 * What staff do from the console, each call already past `StaffRealm.require` (the role
 * check) or made by the CLI with the admin token: the attention queue, a re-query, a pending
 * purchase resolved as delivered, tier upgrade decisions, inflows rejected, and the four-eyes
 * proposals of money moves. Every action appends an audit row.
 *
 * Four eyes: a credit, a forced refund (the reversal of a delivered purchase), a pending
 * purchase resolved as failed (its refund), an unmatched inflow assigned to an account, a
 * manual debit, an upstream's top-up and a provider's settlement are proposals. One member proposes; a different finance or admin member approves, and only
 * then does the money move; the store refuses an approval by the proposer and one after 24 h.
 */
import { randomBytes } from 'node:crypto';
import { PUBLIC_KEY_PREFIX } from '../accounts/keys.js';
import { type AccountService, creditViolations } from '../accounts/service.js';
import { DomainError, invalid, notFound, throwIfViolations, unreachable } from '../domain/errors.js';
import { FUNDING_PROVIDERS, type InflowRecord } from '../domain/funding.js';
import { formatNaira, isKobo, type Kobo, kobo, MAX_AMOUNT_KOBO } from '../domain/money.js';
import { findingId, parseFindingId } from '../domain/reconcile.js';
import type {
  AccountRecord,
  ApiKeyRecord,
  ReconcileFindingRecord,
  TransactionRecord,
  UpgradeRequestRecord,
  UpstreamAnswerRecord,
  UpstreamAttemptRecord,
} from '../domain/records.js';
import {
  approvalBar,
  isNewToPowers,
  MAX_NOTE_CHARS,
  OWN_MONEY_KINDS,
  PROPOSAL_KINDS,
  PROPOSAL_TTL_MS,
  type ProposalKind,
  type ProposalRecord,
  type StaffMemberRecord,
} from '../domain/staff.js';
import { hasControlCharacters } from '../domain/validation.js';
import type { FundingService } from '../funding/service.js';
import type { OwnMoney } from '../ledger/own-money.js';
import type { Upgrades } from '../people/upgrades.js';
import { applyOutcome, type PurchaseDeps, providerRequestOf } from '../purchases/flow.js';
import type { SupplyAdmin } from '../purchases/supply-admin.js';
import { answersOf, callUpstreamWithDeadline, providerFor } from '../purchases/upstream-calls.js';
import type { OperationsAlert } from '../storage/alerts.js';
import type { FailingDestination } from '../store/event-port.js';
import type { MoveResults, ProposedMove } from '../store/moves.js';
import type { OwnEntry, Store } from '../store/port.js';
import type { Actor, AuditTrail } from './audit.js';
import { webhooksState } from './webhooks-state.js';

/** Items of each kind the attention queue shows at once, oldest first. */
const ATTENTION_LIMIT = 100;

/** Rows an account's page shows of its newest transactions and ledger entries. */
const OVERVIEW_ROWS = 20;
/** A search query is an id, an email, a key, an account number, a reference or part of a name: short text. */
const MAX_QUERY_CHARS = 128;
/** Accounts a search by name lists at most; a longer fragment narrows it. */
const NAME_MATCHES = 20;
/** A fragment of a name shorter than this would match most accounts. */
const MIN_NAME_FRAGMENT = 2;
/** The shortest start of a public key searched for: `pk_` and four characters of it. */
const MIN_KEY_PREFIX = PUBLIC_KEY_PREFIX.length + 4;

export interface DeskDeps {
  store: Pick<
    Store,
    | 'transactions'
    | 'wallet'
    | 'accounts'
    | 'upgrades'
    | 'funding'
    | 'proposals'
    | 'ledger'
    | 'auditLog'
    | 'people'
    | 'keys'
    | 'events'
    | 'supply'
    | 'findings'
    | 'webhooks'
    | 'kyc'
  >;
  /** The upstreams' circuits and floats as this core sees them; absent without configured upstreams. */
  upstreamHealth?: Pick<SupplyAdmin, 'health'> | undefined;
  accounts: AccountService;
  funding: FundingService;
  upgrades: Upgrades;
  purchases: PurchaseDeps;
  audit: AuditTrail;
  clock: () => Date;
  /** FOUR_EYES_COOLING_H: how long a member new to their powers may not approve their inviter's proposals. */
  fourEyesCoolingMs: number;
  /** The platform's own alerts (core/storage/alerts.ts); none when not given. */
  operations?: () => OperationsAlert[];
  /** The entries of the platform's own money a top-up or settlement proposal books (core/ledger/own-money.ts). */
  ownMoney: Pick<OwnMoney, 'topUpEntry' | 'settlementEntry' | 'bookedBefore'>;
}

/** A webhook destination is failing once its oldest undelivered event is this old. */
const WEBHOOK_FAILING_AFTER_MS = 24 * 3_600_000;

export interface Attention {
  pending: (TransactionRecord & {
    upstreamAttempts: UpstreamAttemptRecord[];
    upstreamAnswers: UpstreamAnswerRecord[];
  })[];
  failingWebhooks: FailingDestination[];
  /** Upstreams with a circuit not closed, or a float under its alert. */
  upstreams: Awaited<ReturnType<SupplyAdmin['health']>>;
  upgrades: UpgradeRequestRecord[];
  inflows: InflowRecord[];
  proposals: ProposalRecord[];
  /** The platform itself: the store cannot write, the last scheduled backup failed. */
  operations: OperationsAlert[];
  /** Key pairs frozen by the velocity brake or by hand, longest frozen first. */
  frozenKeys: ApiKeyRecord[];
  /** The daily reconciliation's open findings, oldest day first (docs/reconciliation.md). */
  reconcileFindings: ReconcileFindingRecord[];
}

interface NewProposal {
  kind: string;
  accountId: string;
  /** The purchase's reference (refund, pending_failed) or the inflow's id (inflow_assign); unused for a credit. */
  target: string;
  amountKobo: number;
  note: string;
  /** A credit's or debit's ledger reference (a bank transfer's id); empty: the proposal's id. */
  reference?: string | undefined;
  /** A credit's memo for its ledger entry. */
  memo?: string | undefined;
  /** What a funding provider kept of a settlement (provider_settlement). */
  feeKobo?: number | undefined;
}

/** A proposal as `propose` answers it: `replayed` when it was made before under the same reference. */
type Proposed = ProposalRecord & { replayed: boolean };

/** A required note: why, in a sentence, for the second person and the audit log. */
function checkNote(note: string): string {
  const text = note.trim();
  if (text === '' || text.length > MAX_NOTE_CHARS || hasControlCharacters(text))
    throw invalid('note', `Write a note of 1 to ${MAX_NOTE_CHARS} characters saying why.`);
  return text;
}

/** What the audit log keeps of a purchase. */
const purchaseFacts = (tx: TransactionRecord) => ({
  reference: tx.reference,
  account_id: tx.accountId,
  status: tx.status,
  charged_kobo: tx.chargedKobo,
  attempts: tx.attempts,
});

/** What a debit proposal's wallet holds short of its amount now, in kobo; 0 when covered (or not a debit). */
async function shortfall(
  store: Pick<Store, 'accounts'>,
  proposal: ProposalRecord,
): Promise<{ balance: Kobo; short: boolean }> {
  const balance = (await store.accounts.get(proposal.accountId))?.balanceKobo ?? kobo(0);
  return { balance, short: proposal.kind === 'debit' && balance < proposal.amountKobo };
}

/**
 * A debit the wallet does not cover is refused before the proposal is marked approved, so it
 * stays open (to approve once the money is there, or to refuse); the store refuses it again
 * if the balance fell meanwhile.
 */
async function requireCover(store: Pick<Store, 'accounts'>, proposal: ProposalRecord): Promise<void> {
  const { balance, short } = await shortfall(store, proposal);
  if (short)
    throw new DomainError(
      'INSUFFICIENT_BALANCE',
      `The wallet holds ₦${formatNaira(balance)}, less than this debit of ₦${formatNaira(proposal.amountKobo)}; ` +
        'nothing was taken (a wallet never goes below zero).',
    );
}

/** What the proposer is told beside a proposal: for a debit the wallet does not cover now, that it would be refused. */
async function warningFor(store: Pick<Store, 'accounts'>, proposal: ProposalRecord): Promise<string> {
  const { balance, short } = await shortfall(store, proposal);
  if (!short) return '';
  return (
    `The wallet holds ₦${formatNaira(balance)} now, ` +
    `less than this debit of ₦${formatNaira(proposal.amountKobo)}: ` +
    'approving it is refused until the balance covers it.'
  );
}

/** The purchase a reference names, or NOT_FOUND. */
async function purchaseOf(store: Pick<Store, 'transactions'>, reference: string): Promise<TransactionRecord> {
  const tx = reference === '' ? null : await store.transactions.get(reference);
  if (!tx) throw notFound(`Transaction ${reference || '(empty reference)'}`);
  return tx;
}

/** What a proposal's target must be for it to be made, and the account it moves. */
async function checkProposal(
  store: DeskDeps['store'],
  kind: ProposalKind,
  input: NewProposal,
): Promise<{ accountId: string; target: string }> {
  if (kind === 'credit' || kind === 'debit') {
    if (!isKobo(input.amountKobo) || input.amountKobo <= 0 || input.amountKobo > MAX_AMOUNT_KOBO)
      throw invalid('amount', `amount must be a positive number of kobo up to ${MAX_AMOUNT_KOBO}.`);
    if (!(await store.accounts.get(input.accountId))) throw notFound(`Account ${input.accountId || '(empty id)'}`);
    return { accountId: input.accountId, target: input.accountId };
  }
  if (kind === 'hold_return') {
    // A credit held over the account's identity level limits, still held (docs/kyc.md).
    const [hold] = (await store.kyc.holdsOf(input.accountId, MAX_HOLDS_READ)).filter(
      (h) => h.inflowId === input.target,
    );
    if (hold === undefined) throw notFound(`Held credit ${input.target || '(empty id)'} of account ${input.accountId}`);
    if (hold.status !== 'held')
      throw new DomainError('FAILED_PRECONDITION', `The credit of ${hold.inflowId} is ${hold.status}, not held.`);
    return { accountId: hold.accountId, target: hold.inflowId };
  }
  if (kind === 'inflow_assign') {
    const inflow = input.target === '' ? null : await store.funding.getInflow(input.target);
    if (!inflow) throw notFound(`Inflow ${input.target || '(empty id)'}`);
    if (inflow.status !== 'unmatched')
      throw new DomainError('FAILED_PRECONDITION', `Inflow ${inflow.inflowId} is ${inflow.status}, not unmatched.`);
    if (!(await store.accounts.get(input.accountId))) throw notFound(`Account ${input.accountId || '(empty id)'}`);
    return { accountId: input.accountId, target: inflow.inflowId };
  }
  const tx = await purchaseOf(store, input.target);
  const wanted = kind === 'refund' ? 'success' : 'pending';
  if (tx.status !== wanted)
    throw new DomainError(
      'FAILED_PRECONDITION',
      `Transaction ${tx.reference} is ${tx.status}; ` +
        (kind === 'refund'
          ? 'only a delivered purchase is refunded by force.'
          : 'only a pending purchase is resolved.'),
    );
  return { accountId: tx.accountId, target: tx.reference };
}

/** The ledger reference and memo of a credit or debit proposal, checked as a direct credit checks them. */
function moveFields(kind: ProposalKind, input: NewProposal): { reference: string; memo: string } {
  // A top-up's or settlement's reference is checked with its entry (checkOwnProposal).
  if (OWN_MONEY_KINDS.includes(kind)) return { reference: (input.reference ?? '').trim(), memo: '' };
  if (kind !== 'credit' && kind !== 'debit') return { reference: '', memo: '' };
  const reference = input.reference ?? '';
  const memo = kind === 'credit' ? (input.memo ?? '') : '';
  throwIfViolations(creditViolations(kobo(1), memo, reference));
  return { reference, memo };
}

/** The entry a top-up or settlement proposal books, checked as a direct one is (core/ledger/own-money.ts). */
function ownEntryOf(
  ownMoney: DeskDeps['ownMoney'],
  p: Pick<ProposalRecord, 'kind' | 'target' | 'amountKobo' | 'feeKobo' | 'reference'>,
  at: Date,
): OwnEntry {
  if (p.kind === 'upstream_topup') return ownMoney.topUpEntry(p.target, p.amountKobo, p.reference, at);
  return ownMoney.settlementEntry(p.target, p.amountKobo, p.feeKobo, p.reference, at);
}

/**
 * A top-up or settlement proposal, checked before it is kept: its entry as it would be booked,
 * and its reference not booked already (by hand, under CLI_MONEY_MOVES=direct): a proposal of
 * money already in the books would book nothing, so it is refused now, naming that entry.
 */
async function checkOwnProposal(
  ownMoney: DeskDeps['ownMoney'],
  p: Pick<ProposalRecord, 'kind' | 'target' | 'amountKobo' | 'feeKobo' | 'reference'>,
  at: Date,
): Promise<void> {
  const entry = ownEntryOf(ownMoney, p, at);
  const before = await ownMoney.bookedBefore(entry.kind, entry.reference);
  if (before !== null) throw bookedAlready(before);
}

/** What a member is told of a top-up's or settlement's reference already in the books. */
function bookedAlready(entry: { entryId: string; kind: string; reference: string; at: Date }): DomainError {
  return new DomainError(
    'FAILED_PRECONDITION',
    `Reference ${entry.reference} is booked already (${entry.kind}, entry ${entry.entryId}, ` +
      `${entry.at.toISOString()}); nothing was proposed or booked. A new top-up or settlement needs a new reference.`,
    { metadata: { reference: entry.reference, entry_id: entry.entryId } },
  );
}

/**
 * A proposal retried under a reference an earlier one has: that earlier one, when it is the
 * same move; otherwise refused with its id (a new move needs a new reference).
 */
function sameProposal(earlier: ProposalRecord, wanted: ProposalRecord): Proposed {
  const same =
    earlier.amountKobo === wanted.amountKobo && earlier.target === wanted.target && earlier.feeKobo === wanted.feeKobo;
  if (!same)
    throw new DomainError(
      'IDEMPOTENCY_KEY_REUSED',
      `Reference ${wanted.reference} was proposed before as ${earlier.proposalId}, a ${earlier.kind} of ` +
        `₦${formatNaira(earlier.amountKobo)}${earlier.feeKobo > 0 ? ` less ₦${formatNaira(earlier.feeKobo)} kept` : ''} ` +
        `for ${earlier.target} (${earlier.status}); a retry must repeat it, ` +
        'and a new move needs a new reference.',
      { metadata: { reference: wanted.reference, proposal_id: earlier.proposalId } },
    );
  return { ...earlier, replayed: true };
}

/**
 * What the console flags on an audit row: an approval by a member still new to their powers
 * (decide writes `approver_new_since` then). Empty for every other row.
 */
export function auditFlag(entry: { action: string; after: string | null }): string {
  if (entry.action !== 'proposal.approve' || entry.after === null) return '';
  try {
    const since = (JSON.parse(entry.after) as { approver_new_since?: unknown }).approver_new_since;
    return typeof since === 'string' ? `Approved by a member new to their powers since ${since}` : '';
  } catch {
    return '';
  }
}

/** What a member is told whose decision did not take effect: whose did. */
function alreadyDecided(proposal: ProposalRecord): DomainError {
  const by = proposal.decidedBy === null ? '' : ` by ${proposal.decidedBy}`;
  return new DomainError(
    'FAILED_PRECONDITION',
    `This proposal was already ${proposal.status}${by}; your decision changed nothing` +
      (proposal.status === 'approved' ? ' and the money moved once.' : '.'),
    { metadata: { decided_by: proposal.decidedBy ?? '', status: proposal.status } },
  );
}

/**
 * The move an approved proposal makes, checked as a direct move would be (an inflow's
 * assignment by the funding desk, with its fee). A credit or debit goes under the proposer's
 * reference (else the proposal's id), so it moves nothing twice however often it is approved.
 */
async function proposedMove(deps: DeskDeps, proposal: ProposalRecord, at: Date): Promise<ProposedMove> {
  const reference = proposal.reference || proposal.proposalId;
  const { accountId, amountKobo } = proposal;
  switch (proposal.kind) {
    case 'credit':
      return {
        kind: 'credit',
        credit: { accountId, mode: 'live', amountKobo, reference, memo: proposal.memo || 'Manual credit', at },
      };
    case 'debit':
      return {
        kind: 'debit',
        debit: { accountId, mode: 'live', amountKobo, reference, reason: proposal.note.slice(0, 200).trim(), at },
      };
    case 'inflow_assign':
      return deps.funding.assignment(proposal.target, accountId);
    case 'hold_return':
      return { kind: 'hold_return', inflowId: proposal.target, at };
    case 'refund':
    case 'pending_failed': {
      const reason = `Resolved by staff: ${proposal.note}`.slice(0, MAX_NOTE_CHARS);
      return { kind: proposal.kind === 'refund' ? 'reverse' : 'refund', reference: proposal.target, reason, at };
    }
    case 'upstream_topup':
    case 'provider_settlement':
      return { kind: 'own_entry', entry: ownEntryOf(deps.ownMoney, proposal, at) };
    default:
      return unreachable(proposal.kind, 'desk: a proposal');
  }
}

/** Why a proposed move did not take effect, as the person approving it is told; nothing was written. */
function notApplied(
  proposal: ProposalRecord,
  move: ProposedMove,
  result: MoveResults[ProposedMove['kind']],
): DomainError {
  switch (move.kind) {
    case 'credit':
      return notFound(`Account ${proposal.accountId}`);
    case 'debit': {
      const debited = result as MoveResults['debit'];
      if (debited.outcome !== 'insufficient') return notFound(`Account ${proposal.accountId}`);
      return new DomainError(
        'INSUFFICIENT_BALANCE',
        `The live wallet of ${proposal.accountId} holds ₦${formatNaira(debited.balanceKobo)}, less than the debit ` +
          `of ₦${formatNaira(proposal.amountKobo)}; nothing was taken and the proposal is still open.`,
      );
    }
    case 'inflow_credit': {
      const credited = result as MoveResults['inflow_credit'];
      if (credited.outcome === 'wrong_status')
        return new DomainError(
          'FAILED_PRECONDITION',
          `Inflow ${move.inflowId} is ${credited.inflow.status}, not unmatched.`,
        );
      return notFound(credited.outcome === 'no_account' ? `Account ${proposal.accountId}` : `Inflow ${move.inflowId}`);
    }
    case 'refund':
    case 'reverse': {
      const moved = result as MoveResults['refund'];
      if (moved === null) return notFound(`Transaction ${proposal.target}`);
      return new DomainError(
        'FAILED_PRECONDITION',
        `Transaction ${proposal.target} is ${moved.transaction.status} now; nothing was refunded.`,
      );
    }
    case 'hold_return':
      return new DomainError(
        'FAILED_PRECONDITION',
        `The credit of ${proposal.target} is no longer held (its level rose, or it was returned); nothing was moved.`,
      );
    case 'own_entry': {
      // Booked by hand meanwhile: this approval booked nothing, and the proposal stays open to refuse.
      const error = bookedAlready((result as MoveResults['own_entry']).entry);
      return new DomainError('FAILED_PRECONDITION', `${error.message} The proposal is still open: refuse it.`, {
        metadata: error.metadata,
      });
    }
    default:
      return unreachable(move, 'desk: a proposed move');
  }
}

/** An account's held credits read to find one (an account has a few; the store bounds the read). */
const MAX_HOLDS_READ = 200;

/** The attention queue: what waits for a person, each kind oldest first. */
async function attention(deps: DeskDeps): Promise<Attention> {
  const { store, clock } = deps;
  const now = clock();
  const [pending, upgrades, inflows, proposals, failingWebhooks, health, frozenKeys, findings] = await Promise.all([
    store.transactions.listPending({ needsAttentionOnly: true }, { limit: ATTENTION_LIMIT }),
    deps.upgrades.listPending(),
    store.funding.listInflows('unmatched', ATTENTION_LIMIT),
    store.proposals.listOpen(now, ATTENTION_LIMIT),
    store.events.failingDestinations(new Date(now.getTime() - WEBHOOK_FAILING_AFTER_MS), ATTENTION_LIMIT),
    deps.upstreamHealth?.health() ?? [],
    store.keys.listFrozen(ATTENTION_LIMIT),
    store.findings.listOpen(ATTENTION_LIMIT),
  ]);
  // Each pending purchase's evidence: the upstreams called and what their answers were read as.
  const withAttempts = await Promise.all(
    pending.items.map(async (tx) => ({
      ...tx,
      upstreamAttempts: await store.supply.attemptsOf(tx.reference),
      upstreamAnswers: await store.supply.answersOf(tx.reference),
    })),
  );
  const upstreams = health.filter(
    (u) =>
      u.circuit !== 'closed' || (u.floatAlertKobo !== null && u.floatKobo !== null && u.floatKobo < u.floatAlertKobo),
  );
  return {
    pending: withAttempts,
    upgrades: upgrades.slice(0, ATTENTION_LIMIT),
    inflows,
    proposals,
    failingWebhooks,
    upstreams,
    operations: deps.operations?.() ?? [],
    frozenKeys,
    reconcileFindings: findings,
  };
}

/** A frozen key's way out of the queue: staff unfreeze it, with a note saying why. */
function keyDesk(deps: DeskDeps) {
  return {
    async unfreezeKey(publicKey: string, note: string, who: Actor): Promise<ApiKeyRecord> {
      const text = checkNote(note);
      const key = publicKey === '' ? null : await deps.store.keys.find(publicKey);
      if (!key) throw notFound(`Key ${publicKey.slice(0, 64) || '(empty key)'}`);
      if (key.frozen === undefined) throw new DomainError('FAILED_PRECONDITION', `Key ${publicKey} is not frozen.`);
      return deps.accounts.unfreezeKey(publicKey, { by: who.actor, actor: who.actor, address: who.address }, text);
    },
  };
}

/** The pending purchases' actions: asked again, or settled as delivered on a person's evidence. */
function purchaseDesk(deps: DeskDeps) {
  const { store, audit, clock } = deps;
  const purchase = (reference: string) => purchaseOf(store, reference);
  return {
    /** Asks the purchase's provider now, as the recovery worker would, and records what it said. */
    async requery(reference: string, who: Actor): Promise<TransactionRecord> {
      const tx = await purchase(reference);
      if (tx.status !== 'pending') return tx;
      // The upstream that got the purchase answers for it, whatever the routes say now.
      const { provider, upstream, request } = await providerFor(deps.purchases, tx, providerRequestOf(tx));
      const outcome =
        provider === null
          ? {
              kind: 'unknown' as const,
              reason: `the upstream ${upstream} that got the purchase is no longer configured`,
            }
          : await callUpstreamWithDeadline(
              (signal) => provider.query(request, signal),
              deps.purchases.providerTimeoutMs,
            );
      const answers = answersOf('requery', upstream ?? provider?.name ?? '', outcome);
      const after = await applyOutcome(deps.purchases, tx, outcome, tx.attempts, undefined, answers);
      await audit(who, {
        action: 'purchase.requery',
        target: tx.reference,
        before: purchaseFacts(tx),
        after: { ...purchaseFacts(after), provider_answer: outcome.kind },
      });
      return after;
    },

    /** A pending purchase the upstream confirms delivered, settled by a person with their evidence in the note. */
    async resolveDelivered(reference: string, note: string, who: Actor): Promise<TransactionRecord> {
      const text = checkNote(note);
      const tx = await purchase(reference);
      if (tx.status !== 'pending')
        throw new DomainError('FAILED_PRECONDITION', `Transaction ${tx.reference} is ${tx.status}, not pending.`);
      const settled = await store.ledger.post({ kind: 'settle', reference: tx.reference, result: {}, at: clock() });
      if (!settled) throw notFound(`Transaction ${reference}`);
      if (!settled.changed)
        throw new DomainError(
          'FAILED_PRECONDITION',
          `Transaction ${tx.reference} became ${settled.transaction.status} meanwhile.`,
        );
      await audit(who, {
        action: 'purchase.resolve_delivered',
        target: tx.reference,
        before: purchaseFacts(tx),
        after: purchaseFacts(settled.transaction),
        note: text,
      });
      return settled.transaction;
    },
  };
}

/**
 * The approval and its move, posted as one move: decided, moved, marked applied and audited
 * in one store transaction, or none of it. An approved proposal whose move never finished
 * (written before the books made this one transaction) is finished here, once, whoever
 * approves it again; only its approver is told they approved it.
 */
async function approveNow(
  deps: DeskDeps,
  found: ProposalRecord,
  note: string,
  who: Actor,
  approver?: StaffMemberRecord,
): Promise<ProposalRecord> {
  const { store, clock } = deps;
  const balanceOf = async (accountId: string) => (await store.accounts.get(accountId))?.balanceKobo ?? null;
  const finishing = found.status === 'approved' && found.appliedAt === null;
  if (found.status === 'pending') await requireCover(store, found);
  const at = clock();
  const move = await proposedMove(deps, found, at);
  const newToPowers = approver !== undefined && isNewToPowers(approver, deps.fourEyesCoolingMs, at);
  const approved = await store.ledger.post({
    kind: 'approve',
    proposalId: found.proposalId,
    by: who.actor,
    at,
    move,
    audit: {
      actor: who.actor,
      address: who.address,
      note: note.trim(),
      before: JSON.stringify({ ...found, balance_kobo: await balanceOf(found.accountId) }),
      // The console flags an approval by a member still new to their powers.
      afterExtra: newToPowers ? { approver_new_since: approver.powersSince.toISOString() } : {},
    },
  });
  switch (approved.outcome) {
    case 'not_found':
      throw notFound(`Proposal ${found.proposalId}`);
    case 'not_pending':
      if (approved.proposal.status !== 'pending') throw alreadyDecided(approved.proposal);
      throw new DomainError('FAILED_PRECONDITION', 'This proposal expired (24 hours); propose it again.');
    case 'not_applied':
      throw notApplied(found, move, approved.result);
    case 'applied':
      if (finishing && found.decidedBy !== who.actor)
        throw new DomainError(
          'FAILED_PRECONDITION',
          `This proposal was already approved by ${found.decidedBy ?? 'a colleague'}; its move is complete ` +
            '(made once), and your approval added nothing.',
          { metadata: { decided_by: found.decidedBy ?? '', status: found.status } },
        );
      return approved.proposal;
    default:
      return unreachable(approved, 'desk: an approval outcome');
  }
}

/** The four-eyes money moves: proposed by one member, approved or refused by another. */
function proposalDesk(deps: DeskDeps) {
  const { store, audit, clock } = deps;

  return {
    /**
     * A money move waiting for a second person. A credit or debit proposed again under the
     * reference of an earlier one is that earlier proposal (`replayed`), never a second one.
     */
    async propose(input: NewProposal, who: Actor): Promise<Proposed> {
      if (!(PROPOSAL_KINDS as readonly string[]).includes(input.kind))
        throw invalid('kind', `kind must be one of ${PROPOSAL_KINDS.join(', ')}.`);
      const kind = input.kind as ProposalKind;
      const note = checkNote(input.note);
      const own = OWN_MONEY_KINDS.includes(kind);
      const { reference, memo } = moveFields(kind, input);
      const { accountId, target } = own
        ? { accountId: '', target: input.target }
        : await checkProposal(store, kind, input);
      const now = clock();
      const proposal: ProposalRecord = {
        proposalId: `prp_${randomBytes(10).toString('hex')}`,
        kind,
        accountId,
        target,
        amountKobo: kind === 'credit' || kind === 'debit' || own ? kobo(input.amountKobo) : kobo(0),
        feeKobo: kind === 'provider_settlement' ? kobo(input.feeKobo ?? 0) : kobo(0),
        note,
        reference,
        memo,
        proposedBy: who.actor,
        proposedAt: now,
        expiresAt: new Date(now.getTime() + PROPOSAL_TTL_MS),
        status: 'pending',
        decidedBy: null,
        decidedAt: null,
        appliedAt: null,
      };
      if (own) await checkOwnProposal(deps.ownMoney, proposal, now);
      const stored = await store.proposals.insert(proposal);
      if (stored.proposalId !== proposal.proposalId) return sameProposal(stored, proposal);
      await audit(who, { action: `proposal.${kind}`, target: proposal.proposalId, after: proposal, note });
      return { ...proposal, replayed: false };
    },

    /**
     * Approves (and makes the move) or refuses. The proposer cannot approve, nobody can once it
     * expired, and a proposal is decided once; an approved proposal whose move did not finish
     * (a crash between the two) is finished by approving it again.
     */
    async decide(
      proposalId: string,
      approve: boolean,
      note: string,
      who: Actor,
      approver?: StaffMemberRecord,
    ): Promise<ProposalRecord> {
      const found = proposalId === '' ? null : await store.proposals.get(proposalId);
      if (!found) throw notFound(`Proposal ${proposalId || '(empty id)'}`);
      if (approve && found.proposedBy === who.actor)
        throw new DomainError('PERMISSION_DENIED', 'You made this proposal; a different colleague must approve it.');
      const bar =
        approve && approver !== undefined && found.status === 'pending' && found.expiresAt > clock()
          ? approvalBar(approver, found, deps.fourEyesCoolingMs, clock())
          : null;
      if (bar !== null) throw new DomainError('PERMISSION_DENIED', bar);
      if (approve) return approveNow(deps, found, note, who, approver);
      const decided = await store.proposals.decide(proposalId, 'refused', who.actor, clock());
      if (!decided) {
        // Read again: a colleague's decision may have taken effect since `found` was read.
        const now = (await store.proposals.get(proposalId)) ?? found;
        if (now.status !== 'pending') throw alreadyDecided(now);
        throw new DomainError('FAILED_PRECONDITION', 'This proposal expired (24 hours); propose it again.');
      }
      await audit(who, {
        action: 'proposal.refuse',
        target: proposalId,
        before: found,
        after: decided,
        note: note.trim(),
      });
      return decided;
    },

    getProposal: (proposalId: string) => store.proposals.get(proposalId),

    warningFor: (proposal: ProposalRecord) => warningFor(store, proposal),
  };
}

/** The accounts: found, looked at, suspended or resumed. */
function accountDesk(deps: DeskDeps) {
  const { store, audit, clock } = deps;
  return {
    /**
     * The accounts the query names exactly: as an account id, a user's email, a public key or
     * its start, a virtual account number (of any funding provider) or a transaction reference.
     */
    async searchAccounts(query: string): Promise<AccountRecord[]> {
      const q = query.trim();
      if (q === '' || q.length > MAX_QUERY_CHARS) return [];
      // A person may belong to several accounts: an email finds each of them.
      const memberOf = async (): Promise<string[]> => {
        const user = await store.people.findUserByEmail(q.toLowerCase());
        return user === null ? [] : (await store.people.listMemberships(user.userId)).map((m) => m.accountId);
      };
      const ids = await Promise.all([
        store.accounts.get(q).then((a) => [a?.accountId]),
        store.transactions.get(q).then((tx) => [tx?.accountId]),
        memberOf(),
        keyHolders(store, q),
        ...FUNDING_PROVIDERS.map((provider) =>
          store.funding.findVirtualAccount(provider, q).then((v) => [v?.accountId]),
        ),
      ]);
      const found = await Promise.all(
        [...new Set(ids.flat().filter((id): id is string => id !== undefined))].map((id) => store.accounts.get(id)),
      );
      const exact = found.filter((a): a is AccountRecord => a !== null);
      // Then the accounts whose name holds the query; an exact match is listed once, first.
      const named = q.length < MIN_NAME_FRAGMENT ? [] : await store.accounts.searchByName(q, NAME_MATCHES);
      const seen = new Set(exact.map((a) => a.accountId));
      return [...exact, ...named.filter((a) => !seen.has(a.accountId))];
    },

    /**
     * Suspends an account: its keys answer 401 on every action and its developer area is
     * read-only, from the next request on (the core reads the account on each). Audited.
     */
    async suspend(accountId: string, note: string, who: Actor): Promise<AccountRecord> {
      const text = checkNote(note);
      const before = accountId === '' ? null : await store.accounts.get(accountId);
      if (!before) throw notFound(`Account ${accountId || '(empty id)'}`);
      if (before.suspension) throw new DomainError('FAILED_PRECONDITION', `Account ${accountId} is already suspended.`);
      const after = await store.accounts.setSuspension(accountId, { at: clock(), by: who.actor, note: text });
      if (!after) throw notFound(`Account ${accountId}`);
      await audit(who, {
        action: 'account.suspend',
        target: accountId,
        before: { suspended: false },
        after: { suspended: true },
        note: text,
      });
      return after;
    },

    async resume(accountId: string, note: string, who: Actor): Promise<AccountRecord> {
      const text = checkNote(note);
      const before = accountId === '' ? null : await store.accounts.get(accountId);
      if (!before) throw notFound(`Account ${accountId || '(empty id)'}`);
      if (!before.suspension) throw new DomainError('FAILED_PRECONDITION', `Account ${accountId} is not suspended.`);
      const after = await store.accounts.setSuspension(accountId, null);
      if (!after) throw notFound(`Account ${accountId}`);
      await audit(who, {
        action: 'account.resume',
        target: accountId,
        before: { suspended: true, suspended_by: before.suspension.by, note: before.suspension.note },
        after: { suspended: false },
        note: text,
      });
      return after;
    },

    async accountOverview(accountId: string) {
      const account = accountId === '' ? null : await store.accounts.get(accountId);
      if (!account) throw notFound(`Account ${accountId || '(empty id)'}`);
      const [keys, users, transactions, ledger, webhooks] = await Promise.all([
        deps.accounts.listKeys(accountId),
        store.people.listMembers(accountId),
        store.transactions.listByAccount(accountId, 'live', { limit: OVERVIEW_ROWS }),
        store.wallet.listLedger(accountId, 'live', { limit: OVERVIEW_ROWS }),
        webhooksState(store, accountId, clock()),
      ]);
      return { account, keys, users, transactions: transactions.items, ledger: ledger.items, webhooks };
    },
  };
}

/** The developers' tier upgrade requests and the unmatched inflows, decided. */
function decisionDesk(deps: DeskDeps) {
  const { store, audit } = deps;
  return {
    async approveUpgrade(accountId: string, tierId: string, who: Actor): Promise<UpgradeRequestRecord> {
      const before = await store.accounts.get(accountId);
      const decided = await deps.upgrades.approve(accountId, tierId);
      await audit(who, {
        action: 'upgrade.approve',
        target: accountId,
        before: { tier_id: before?.tierId ?? null },
        after: { tier_id: (await store.accounts.get(accountId))?.tierId ?? null },
      });
      return decided;
    },

    async refuseUpgrade(accountId: string, note: string, who: Actor): Promise<UpgradeRequestRecord> {
      const decided = await deps.upgrades.refuse(accountId);
      await audit(who, { action: 'upgrade.refuse', target: accountId, note: note.trim() });
      return decided;
    },

    async rejectInflow(inflowId: string, note: string, who: Actor): Promise<InflowRecord> {
      const text = checkNote(note);
      const inflow = await deps.funding.reject(inflowId, text.slice(0, 200));
      await audit(who, { action: 'inflow.reject', target: inflowId, after: { status: inflow.status }, note: text });
      return inflow;
    },
  };
}

/** Findings the CLI lists by default and at most. */
const DEFAULT_FINDINGS = 100;
const MAX_FINDINGS = 500;

/**
 * The reconciliation's findings given an end: resolved by a member with a note, or as
 * corrected by an applied proposal, audited; resolving corrects no money.
 */
function findingDesk(deps: DeskDeps) {
  const { store, audit, clock } = deps;
  return {
    /** Findings newest day first, the open ones only with `openOnly`; `limit` 0 means 100. */
    listFindings(openOnly: boolean, limit: number): Promise<ReconcileFindingRecord[]> {
      if (!Number.isSafeInteger(limit) || limit < 0 || limit > MAX_FINDINGS)
        throw invalid('limit', `limit must be 1 to ${MAX_FINDINGS} (0: ${DEFAULT_FINDINGS}).`);
      return store.findings.list(openOnly, limit || DEFAULT_FINDINGS);
    },

    async resolveFinding(id: string, note: string, proposalId: string, who: Actor): Promise<ReconcileFindingRecord> {
      const key = parseFindingId(id);
      if (key === null)
        throw invalid('finding_id', 'finding_id is DATE/UPSTREAM/CLASS/REFERENCE, as the finding shows it.');
      const correctedBy = proposalId.trim();
      if (correctedBy !== '') {
        const proposal = await store.proposals.get(correctedBy);
        if (proposal === null) throw notFound(`Proposal ${correctedBy.slice(0, 64)}`);
        if (proposal.appliedAt === null)
          throw new DomainError(
            'FAILED_PRECONDITION',
            `Proposal ${proposal.proposalId} is ${proposal.status} and made no correction yet; ` +
              'resolve the finding once it is approved.',
          );
      }
      const text = correctedBy !== '' && note.trim() === '' ? `Corrected by proposal ${correctedBy}` : checkNote(note);
      const resolution = { at: clock(), by: who.actor, note: text, correctedBy: correctedBy || null };
      const resolved = await store.findings.resolve(key, resolution);
      if (resolved === null) throw notFound(`Finding ${findingId(key).slice(0, 300)}`);
      const was = resolved.finding.resolution;
      if (!resolved.changed && was !== undefined)
        throw new DomainError(
          'FAILED_PRECONDITION',
          `This finding was resolved already by ${was.by} at ${was.at.toISOString()} ("${was.note}"); ` +
            'your resolution changed nothing.',
          { metadata: { resolved_by: was.by } },
        );
      await audit(who, {
        action: 'finding.resolve',
        target: findingId(key),
        before: { resolved: false, at_stake_kobo: resolved.finding.atStakeKobo },
        after: { resolved: true, corrected_by: resolution.correctedBy },
        note: text,
      });
      return resolved.finding;
    },
  };
}

/** The staff's desk (the console's use cases); the holder's is core/holders/desk.ts, the inflow desk core/funding/service.ts. */
export function createDesk(deps: DeskDeps) {
  return {
    ...findingDesk(deps),
    attention: (): Promise<Attention> => attention(deps),
    ...purchaseDesk(deps),
    ...proposalDesk(deps),
    ...accountDesk(deps),
    ...decisionDesk(deps),
    ...keyDesk(deps),
  };
}

export type Desk = ReturnType<typeof createDesk>;

/**
 * The accounts of the keys the query names: the key itself, or every key it is the start of
 * (`pk_3f9a`, as a holder reads it from the developer area), at most NAME_MATCHES of them.
 */
async function keyHolders(store: Pick<Store, 'keys'>, q: string): Promise<(string | undefined)[]> {
  if (!q.startsWith(PUBLIC_KEY_PREFIX) || q.length < MIN_KEY_PREFIX) return [(await store.keys.find(q))?.accountId];
  return (await store.keys.findByPrefix(q, NAME_MATCHES)).map((k) => k.accountId);
}
