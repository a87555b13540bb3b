/**
 * The wallet on MongoDB: credits, the two phases of a purchase, refunds and reversals.
 * Each money movement is one transaction that changes the account's balance and writes its
 * ledger entry (see index.ts for how transactions run and what happens when one's outcome
 * is unknown).
 */
import { type ClientSession, type Filter, Long, ObjectId } from 'mongodb';
import {
  inflowCreditedPostings,
  manualCreditPostings,
  manualDebitPostings,
  refundPostings,
  reservePostings,
  reversePostings,
  settlePostings,
} from '../../domain/books.js';
import { creditEvent, debitEvent, lowBalanceEvent, newEventId, transactionEvent } from '../../domain/events.js';
import { crossesLowBalance } from '../../domain/funding.js';
import type { Mode } from '../../domain/mode.js';
import { type Kobo, kobo, negateKobo } from '../../domain/money.js';
import type { DeliveryResult } from '../../domain/products.js';
import type { LedgerEntryRecord, NewTransaction, ReserveChecks, ReserveResult } from '../../domain/records.js';
import { movesInto, type RefundedStatus } from '../../domain/transactions.js';
import { requireAmount, requireAttempts, requireLimit } from '../bounds.js';
import { decodeLedgerCursor, encodeLedgerCursor, toPage } from '../paging.js';
import type {
  AttemptEnd,
  Credited,
  CreditInput,
  Debited,
  DebitInput,
  FirstAttempt,
  Moved,
  NewUpstreamAnswer,
  WalletMoney,
  WalletStore,
} from '../port.js';
import { purchaseMemo, refundMemo, reversalMemo } from '../rules.js';
import { auditLedger } from './audit.js';
import { bookIn, entryIdOf, journalIds, postingsIn } from './books.js';
import { attemptFilter, claimFilter, claimUpdate } from './claims.js';
import { followUpRead, type MongoContext } from './context.js';
import { developerRead } from './developer-reads.js';
import {
  balanceField,
  type LedgerEntryDoc,
  ledgerEntryFromDoc,
  ledgerEntryToDoc,
  newTransactionToDoc,
  readInteger,
  readKobo,
  readMode,
  type TransactionDoc,
  toDate,
  toLong,
  transactionFromDoc,
  withoutUndefined,
} from './documents.js';
import { creditFailure, isDuplicateKeyOn, isUnknownCommitResult } from './errors.js';
import { deliversTo, eventCollections, writeEventIn } from './events.js';
import { levelSpendCheckIn } from './level-checks.js';
import { countRecipientIn, giveBackRecipientIn, recipientCheckIn } from './recipients.js';
import { CREDIT_REFERENCE_INDEX, MANUAL_DEBIT_REFERENCE_INDEX, REQUEST_ID_INDEX } from './schema.js';
import { capCheckIn, countSpendIn, giveBackSpendIn } from './spend.js';
import { beginFirstAttemptIn, deliveredCostIn, endAttemptIn, keepAnswerIn } from './supply.js';

/** A money movement into a wallet, everything fixed before the transaction's first attempt. */
export interface Addition {
  accountId: string;
  mode: Mode;
  amountKobo: Kobo;
  kind: 'credit' | 'refund';
  reference: string;
  memo: string;
  at: Date;
  /** The ledger entry's _id, chosen in advance so that a retried transaction writes the same entry. */
  id: ObjectId;
}

/**
 * Adds `amountKobo` to one wallet of the account (its live or test balance) and writes its
 * ledger entry, inside the caller's transaction. The balance and the entry id come from the
 * same update of the account. Null when the account does not exist.
 */
export async function addToWallet(
  ctx: MongoContext,
  session: ClientSession,
  entry: Addition,
): Promise<LedgerEntryRecord | null> {
  const c = ctx.live();
  const field = balanceField(entry.mode);
  const account = await c.accounts.findOneAndUpdate(
    { _id: entry.accountId },
    { $inc: { [field]: toLong(entry.amountKobo, 'amountKobo'), ledger_seq: Long.ONE } },
    { session, returnDocument: 'after' },
  );
  if (account === null) return null;
  const record: LedgerEntryRecord = {
    entryId: readInteger(account.ledger_seq, 'accounts.ledger_seq'),
    accountId: entry.accountId,
    mode: entry.mode,
    amountKobo: entry.amountKobo,
    // readKobo throws beyond 2^53, which aborts the transaction: such a balance could
    // not be read back exactly.
    balanceAfterKobo: readKobo(account[field], `accounts.${field}`),
    kind: entry.kind,
    reference: entry.reference,
    memo: entry.memo,
    createdAt: entry.at,
  };
  await c.ledger.insertOne(ledgerEntryToDoc(record, entry.id), { session });
  return record;
}

/** A move that gives a purchase's charge back: into failed (from pending) or reversed (from success). */
export interface GiveBack {
  to: RefundedStatus;
  memo: string;
}

/**
 * The status filter of each conditional move: the states the state machine lets a purchase
 * leave for that state (core/domain/transactions.ts), read once here, not per move.
 */
const MOVES_INTO = {
  success: { $in: [...movesInto('success')] },
  failed: { $in: [...movesInto('failed')] },
  reversed: { $in: [...movesInto('reversed')] },
} as const;

/** A purchase moved and its full charge refunded, inside `session` (giveBack; a staff approval's move too). */
export async function giveBackIn(
  ctx: MongoContext,
  session: ClientSession,
  reference: string,
  move: GiveBack,
  reason: string,
  at: Date,
  ids: { entryId: ObjectId; eventId: string },
  attempt?: AttemptEnd,
  answers?: readonly NewUpstreamAnswer[],
): Promise<Moved | null> {
  const updatedAt = toDate(at, 'at');
  const { entryId, eventId } = ids;
  const c = ctx.live();
  if (attempt !== undefined) await endAttemptIn(ctx, session, reference, attempt, updatedAt);
  await keepAnswerIn(ctx, session, reference, answers, updatedAt);
  // The status change is conditional and the ledger's unique (reference, kind) index
  // refuses a second refund entry, so the money goes back at most once however many
  // cores try at the same moment.
  const moved = await c.transactions.findOneAndUpdate(
    { _id: reference, status: MOVES_INTO[move.to] },
    { $set: { status: move.to, failure_reason: reason, updated_at: updatedAt } },
    { session, returnDocument: 'after' },
  );
  if (moved === null) {
    const current = await c.transactions.findOne({ _id: reference }, { session });
    return current === null ? null : { transaction: transactionFromDoc(current), changed: false };
  }
  const mode = readMode(moved.mode, 'transactions.mode');
  const deliver = await deliversTo(ctx, session, moved.account_id, mode);
  // The refund goes back to the wallet the purchase was paid from.
  const refunded = await addToWallet(ctx, session, {
    accountId: moved.account_id,
    mode,
    amountKobo: readKobo(moved.charged_kobo, 'transactions.charged_kobo'),
    kind: 'refund',
    reference,
    memo: move.memo,
    at: updatedAt,
    id: entryId,
  });
  // Thrown, not returned: it aborts the transaction, so the status change is undone too.
  if (refunded === null) throw new Error(`store: the account of transaction ${reference} does not exist`);
  // A failed purchase's charge comes back from where it was held; a reversed one's from what
  // its settle, and a cost learnt after it, booked (read in this transaction: a reversal
  // without a settle is refused).
  const postings =
    move.to === 'failed'
      ? refundPostings(moved.account_id, refunded.amountKobo)
      : reversePostings(moved.account_id, [
          ...((await postingsIn(ctx, session, journalIds.settle(reference))) ?? []),
          ...((await postingsIn(ctx, session, journalIds.costKnown(reference))) ?? []),
        ]);
  await bookIn(ctx, session, {
    id: journalIds.ofLedgerEntry(entryId),
    entryId: entryIdOf(entryId),
    kind: move.to === 'failed' ? 'refund' : 'reverse',
    mode,
    reference,
    at: updatedAt,
    postings,
  });
  await giveBackSpendIn(ctx, session, moved);
  await giveBackRecipientIn(ctx, session, moved);
  const transaction = transactionFromDoc(moved);
  const event = transactionEvent(transaction, transaction.mode, updatedAt, eventId);
  if (event !== null) await writeEventIn(ctx, session, event, deliver);
  return { transaction, changed: true };
}

/** Moves the purchase and refunds its full charge, in one transaction. */
async function giveBack(
  ctx: MongoContext,
  reference: string,
  move: GiveBack,
  reason: string,
  at: Date,
  attempt: AttemptEnd | undefined,
  answers?: readonly NewUpstreamAnswer[],
): Promise<Moved | null> {
  const entryId = new ObjectId();
  const eventId = newEventId();
  return ctx.inTransaction(
    (session) => giveBackIn(ctx, session, reference, move, reason, at, { entryId, eventId }, attempt, answers),
    async (error, session) => {
      if ((await ctx.committedEntry(error, entryId, session)) === null) return undefined;
      const current = await ctx.live().transactions.findOne({ _id: reference }, followUpRead(session));
      return current === null ? undefined : { transaction: transactionFromDoc(current), changed: true };
    },
  );
}

/**
 * The query that finds an earlier purchase made with the same idempotency key, if there is
 * a key. The unique index on (account_id, request_id) is partial on a string request_id,
 * and the planner uses a partial index only for a query that implies its filter: a bare
 * `request_id: 'k'` does not imply `$type: 'string'`, so it would scan the account's whole
 * history inside every keyed purchase. Stating the type makes the index usable.
 */
export function sameRequestQuery(
  tx: Pick<NewTransaction, 'accountId' | 'mode' | 'requestId'>,
): Filter<TransactionDoc> | null {
  return tx.requestId === null
    ? null
    : { account_id: tx.accountId, mode: tx.mode, request_id: { $eq: tx.requestId, $type: 'string' } };
}

/**
 * The query that finds the account's earlier credit with this reference. Its `kind:
 * 'credit'` implies the filter of the partial unique index on (account_id, reference), so
 * the planner can use that index.
 */
export function sameCreditQuery(credit: { accountId: string; mode: Mode; reference: string }): Filter<LedgerEntryDoc> {
  return { account_id: credit.accountId, mode: credit.mode, reference: credit.reference, kind: 'credit' };
}

/** A credit's answer when its reference was credited before: that credit, and the balance it left. */
function replayedCredit(doc: LedgerEntryDoc): Credited {
  const entry = ledgerEntryFromDoc(doc);
  return { balanceKobo: entry.balanceAfterKobo, entry, replayed: true };
}

/** The account's manual debit of this reference; the query implies the partial unique index's filter. */
function sameManualDebitQuery(debit: { accountId: string; reference: string }): Filter<LedgerEntryDoc> {
  return { account_id: debit.accountId, reference: debit.reference, kind: 'manual_debit' };
}

function replayedDebit(doc: LedgerEntryDoc): Debited {
  const entry = ledgerEntryFromDoc(doc);
  return { outcome: 'debited', balanceKobo: entry.balanceAfterKobo, entry, replayed: true };
}

/** A manual debit inside `session`: the replay check, the conditional debit, its entry and its events. */
export async function debitIn(
  ctx: MongoContext,
  session: ClientSession,
  input: DebitInput,
  ids: { entryId: ObjectId; eventId: string },
): Promise<Debited> {
  const c = ctx.live();
  const earlier = await c.ledger.findOne(sameManualDebitQuery(input), { session });
  if (earlier !== null) return replayedDebit(earlier);
  const field = balanceField(input.mode);
  const amount = toLong(input.amountKobo, 'amountKobo');
  const debited = await c.accounts.findOneAndUpdate(
    { _id: input.accountId, [field]: { $gte: amount } },
    { $inc: { [field]: amount.negate(), ledger_seq: Long.ONE } },
    { session, returnDocument: 'after' },
  );
  if (debited === null) {
    const account = await c.accounts.findOne({ _id: input.accountId }, { session });
    if (account === null) return { outcome: 'no_account' };
    return { outcome: 'insufficient', balanceKobo: readKobo(account[field] ?? 0, `accounts.${field}`) };
  }
  const balanceKobo = readKobo(debited[field], `accounts.${field}`);
  const at = toDate(input.at, 'at');
  const entry: LedgerEntryRecord = {
    entryId: readInteger(debited.ledger_seq, 'accounts.ledger_seq'),
    accountId: input.accountId,
    mode: input.mode,
    amountKobo: negateKobo(input.amountKobo),
    balanceAfterKobo: balanceKobo,
    kind: 'manual_debit',
    reference: input.reference,
    memo: input.reason,
    createdAt: at,
  };
  await c.ledger.insertOne(ledgerEntryToDoc(entry, ids.entryId), { session });
  await bookIn(ctx, session, {
    id: journalIds.ofLedgerEntry(ids.entryId),
    entryId: entryIdOf(ids.entryId),
    kind: 'debit',
    mode: input.mode,
    reference: input.reference,
    at,
    postings: manualDebitPostings(input.accountId, input.amountKobo),
  });
  const deliver = await deliversTo(ctx, session, input.accountId, input.mode);
  await writeEventIn(ctx, session, debitEvent({ ...input, balanceKobo }, input.mode, at, ids.eventId), deliver);
  const thresholdField = input.mode === 'test' ? 'test_low_balance_kobo' : 'low_balance_kobo';
  const threshold = debited[thresholdField];
  const thresholdKobo =
    threshold === undefined || threshold === null ? null : readKobo(threshold, `accounts.${thresholdField}`);
  if (crossesLowBalance(balanceKobo + input.amountKobo, balanceKobo, thresholdKobo)) {
    const low = lowBalanceEvent(input.accountId, input.mode, balanceKobo, thresholdKobo!, input.reference, at);
    await writeEventIn(ctx, session, low, deliver);
  }
  return { outcome: 'debited', balanceKobo, entry, replayed: false };
}

/**
 * Phase one of a purchase inside `session`: the duplicate check, the conditional debit, its entry and the
 * pending transaction.
 */
async function reserveIn(
  ctx: MongoContext,
  session: ClientSession,
  tx: NewTransaction,
  entryId: ObjectId,
  first: FirstAttempt | undefined,
  checks: ReserveChecks | undefined,
): Promise<ReserveResult> {
  const c = ctx.live();
  const sameRequest = sameRequestQuery(tx);
  if (sameRequest !== null) {
    const existing = await c.transactions.findOne(sameRequest, { session });
    if (existing !== null) return { outcome: 'duplicate', transaction: transactionFromDoc(existing) };
  }
  let counted: string | undefined;
  if (checks?.cappedKey !== undefined) {
    const capped = await capCheckIn(ctx, session, checks.cappedKey, tx);
    if (typeof capped === 'object') return { outcome: 'key_cap', refusal: capped };
    if (capped === 'count') counted = checks.cappedKey;
  }
  if (checks?.recipient !== undefined) {
    const refusal = await recipientCheckIn(ctx, session, tx, checks.recipient);
    if (refusal !== null) return { outcome: 'recipient', refusal };
  }
  const overLevel = await levelSpendCheckIn(ctx, session, tx);
  if (overLevel !== null) return { outcome: 'level_limit', refusal: overLevel };
  // The conditional debit is the guard. Two reserves on one wallet conflict on this
  // document; the later one is aborted and re-run by the driver on a fresh snapshot,
  // so no debit is ever computed from a stale balance.
  // A test account written before test mode has no test balance field: $gte matches nothing,
  // which is right for a balance of zero.
  const field = balanceField(tx.mode);
  const debited = await c.accounts.findOneAndUpdate(
    { _id: tx.accountId, [field]: { $gte: toLong(tx.chargedKobo, 'chargedKobo') } },
    { $inc: { [field]: toLong(-tx.chargedKobo, 'chargedKobo'), ledger_seq: Long.ONE } },
    { session, returnDocument: 'after' },
  );
  if (debited === null) {
    // Nothing was written; the read only tells the two refusals apart.
    const account = await c.accounts.findOne({ _id: tx.accountId }, { session });
    if (account === null) return { outcome: 'no_account' };
    return { outcome: 'insufficient', balanceKobo: readKobo(account[field] ?? 0, `accounts.${field}`) };
  }
  const balanceAfterKobo = readKobo(debited[field], `accounts.${field}`);
  const entry: LedgerEntryRecord = {
    entryId: readInteger(debited.ledger_seq, 'accounts.ledger_seq'),
    accountId: tx.accountId,
    mode: tx.mode,
    amountKobo: negateKobo(tx.chargedKobo),
    balanceAfterKobo,
    kind: 'debit',
    reference: tx.reference,
    memo: purchaseMemo(tx),
    createdAt: toDate(tx.createdAt, 'createdAt'),
  };
  await c.ledger.insertOne(ledgerEntryToDoc(entry, entryId), { session });
  await bookIn(ctx, session, {
    id: journalIds.ofLedgerEntry(entryId),
    entryId: entryIdOf(entryId),
    kind: 'reserve',
    mode: tx.mode,
    reference: tx.reference,
    at: entry.createdAt,
    postings: reservePostings(tx.accountId, tx.chargedKobo),
  });
  const doc = newTransactionToDoc(tx, balanceAfterKobo);
  if (counted !== undefined) {
    doc.spend_key = counted;
    await countSpendIn(ctx, session, counted, tx);
  }
  if (checks?.recipient !== undefined) {
    const day = await countRecipientIn(ctx, session, tx, checks.recipient);
    if (day !== undefined) doc.recipient_day = day;
    if (checks.recipient.controls.duplicateGuard) doc.recipient_guarded = true;
  }
  // A concurrent reserve with the same idempotency key that committed first makes this
  // insert fail on the unique (account_id, request_id) index; the error aborts the
  // transaction (debit included) and is classified by reserveRecovered.
  await c.transactions.insertOne(doc, { session });
  if (first !== undefined) await beginFirstAttemptIn(ctx, session, tx.reference, first.upstream, entry.createdAt);
  // The threshold came back with the debit (the same document), so no second read.
  const thresholdField = tx.mode === 'test' ? 'test_low_balance_kobo' : 'low_balance_kobo';
  const threshold = debited[thresholdField];
  const thresholdKobo =
    threshold === undefined || threshold === null ? null : readKobo(threshold, `accounts.${thresholdField}`);
  if (crossesLowBalance(balanceAfterKobo + tx.chargedKobo, balanceAfterKobo, thresholdKobo)) {
    // Read after the debit, unlike a settle's: only the rare crossing pays for it.
    const deliver = await deliversTo(ctx, session, tx.accountId, tx.mode);
    await writeEventIn(
      ctx,
      session,
      lowBalanceEvent(tx.accountId, tx.mode, balanceAfterKobo, thresholdKobo!, tx.reference, entry.createdAt),
      deliver,
    );
  }
  return { outcome: 'reserved', transaction: transactionFromDoc(doc) };
}

/** After a reserve's transaction failed: the answer, when a duplicate key or a committed entry tells it. */
async function reserveRecovered(
  ctx: MongoContext,
  error: unknown,
  session: ClientSession,
  tx: NewTransaction,
  entryId: ObjectId,
): Promise<ReserveResult | undefined> {
  const c = ctx.live();
  const options = followUpRead(session);
  const sameRequest = sameRequestQuery(tx);
  if (sameRequest !== null && isDuplicateKeyOn(error, REQUEST_ID_INDEX.name, REQUEST_ID_INDEX.fields)) {
    // The other request's transaction has committed on the primary; this majority read
    // waits (causal consistency) until it is majority-committed too, then returns it.
    const existing = await c.transactions.findOne(sameRequest, options);
    return existing === null ? undefined : { outcome: 'duplicate', transaction: transactionFromDoc(existing) };
  }
  if ((await ctx.committedEntry(error, entryId, session)) === null) return undefined;
  const committed = await c.transactions.findOne({ _id: tx.reference }, options);
  return committed === null ? undefined : { outcome: 'reserved', transaction: transactionFromDoc(committed) };
}

/** A pending purchase settled, and its event, in one transaction (WalletStore.settle). */
async function settleIn(
  ctx: MongoContext,
  reference: string,
  result: DeliveryResult,
  at: Date,
  attempt: AttemptEnd | undefined,
  answers?: readonly NewUpstreamAnswer[],
): Promise<Moved | null> {
  const { live, inTransaction } = ctx;
  const updatedAt = toDate(at, 'at');
  const eventId = newEventId();
  const bookId = new ObjectId();
  // The move, its entry and its event commit together. A settle that matches nothing writes
  // nothing; the read that follows is in the same snapshot, so it shows whatever made
  // the update miss (a refund committed a moment ago by another core).
  return inTransaction(
    async (session): Promise<Moved | null> => {
      const c = live();
      if (attempt !== undefined) await endAttemptIn(ctx, session, reference, attempt, updatedAt);
      await keepAnswerIn(ctx, session, reference, answers, updatedAt);
      const settled = await c.transactions.findOneAndUpdate(
        { _id: reference, status: MOVES_INTO.success },
        { $set: { status: 'success', result: withoutUndefined(result), updated_at: updatedAt } },
        { session, returnDocument: 'after' },
      );
      if (settled === null) {
        const current = await c.transactions.findOne({ _id: reference }, { session });
        return current === null ? null : { transaction: transactionFromDoc(current), changed: false };
      }
      const transaction = transactionFromDoc(settled);
      // Revenue, and the cost of the delivered attempt against its upstream's float (of unknown
      // cost when no attempt said), read after this transaction ended the attempt.
      await bookIn(ctx, session, {
        id: journalIds.settle(reference),
        entryId: entryIdOf(bookId),
        kind: 'settle',
        mode: transaction.mode,
        reference,
        at: updatedAt,
        postings: settlePostings(transaction.chargedKobo, await deliveredCostIn(ctx, session, reference)),
      });
      const event = transactionEvent(transaction, transaction.mode, updatedAt, eventId);
      // The purchase's account is not written here: the event's seq has a counter of its own.
      if (event !== null)
        await writeEventIn(
          ctx,
          session,
          event,
          await deliversTo(ctx, session, transaction.accountId, transaction.mode),
        );
      return { transaction, changed: true };
    },
    async (error, session) => {
      // An unknown commit: the event, chosen in advance, proves whether it committed.
      if (!isUnknownCommitResult(error)) return undefined;
      const event = await eventCollections(ctx).events.findOne({ _id: eventId }, followUpRead(session));
      if (event === null) return undefined;
      const current = await live().transactions.findOne({ _id: reference }, followUpRead(session));
      return current === null ? undefined : { transaction: transactionFromDoc(current), changed: true };
    },
  );
}

/** A manual debit in one transaction, its outcome found again after an unknown commit (WalletStore.debit). */
async function debitWallet(ctx: MongoContext, input: DebitInput): Promise<Debited> {
  const { live, inTransaction } = ctx;
  requireAmount('amountKobo', input.amountKobo, 1);
  const ids = { entryId: new ObjectId(), eventId: newEventId() };
  const earlierDebit = sameManualDebitQuery(input);
  return inTransaction(
    (session) => debitIn(ctx, session, input, ids),
    async (error, session) => {
      if (isDuplicateKeyOn(error, MANUAL_DEBIT_REFERENCE_INDEX.name, MANUAL_DEBIT_REFERENCE_INDEX.fields)) {
        // A debit with this reference committed first; its answer is this one's.
        const earlier = await live().ledger.findOne(earlierDebit, followUpRead(session));
        return earlier === null ? undefined : replayedDebit(earlier);
      }
      const committed = await ctx.committedEntry(error, ids.entryId, session);
      if (committed === null) return undefined;
      const entry = ledgerEntryFromDoc(committed);
      return { outcome: 'debited', balanceKobo: entry.balanceAfterKobo, entry, replayed: false };
    },
  );
}

/** A credit inside `session`: the replay check, the wallet, its entry, its postings and its event. */
export async function creditIn(
  ctx: MongoContext,
  session: ClientSession,
  input: CreditInput,
  ids: { entryId: ObjectId; eventId: string },
): Promise<Credited | null> {
  const at = toDate(input.at, 'at');
  const { entryId, eventId } = ids;
  const earlier = await ctx.live().ledger.findOne(sameCreditQuery(input), { session });
  if (earlier !== null) return replayedCredit(earlier);
  const deliver = await deliversTo(ctx, session, input.accountId, input.mode);
  const entry = await addToWallet(ctx, session, { ...input, kind: 'credit', at, id: entryId });
  if (entry === null) return null;
  // A bank transfer's credit leaves the inflows held for it; any other credit is the operator's.
  await bookIn(ctx, session, {
    id: journalIds.ofLedgerEntry(entryId),
    entryId: entryIdOf(entryId),
    kind: input.funding === undefined ? 'credit' : 'inflow_credited',
    mode: input.mode,
    reference: input.reference,
    at,
    postings:
      input.funding === undefined
        ? manualCreditPostings(input.accountId, input.amountKobo)
        : inflowCreditedPostings(
            input.accountId,
            input.funding.amountPaidKobo,
            input.funding.feeKobo,
            input.heldKobo ?? kobo(0),
          ),
  });
  const facts = {
    accountId: input.accountId,
    reference: input.reference,
    amountKobo: input.amountKobo,
    balanceKobo: entry.balanceAfterKobo,
    memo: input.memo,
    funding: input.funding,
  };
  await writeEventIn(ctx, session, creditEvent(facts, input.mode, at, eventId), deliver);
  return { balanceKobo: entry.balanceAfterKobo, entry, replayed: false };
}

/** A credit in one transaction with its event, its outcome found again after an unknown commit (WalletStore.credit). */
async function creditWallet(ctx: MongoContext, input: CreditInput): Promise<Credited | null> {
  const { live, inTransaction } = ctx;
  requireAmount('amountKobo', input.amountKobo, 1);
  const entryId = new ObjectId();
  const earlierCredit = sameCreditQuery(input);
  const eventId = newEventId();
  try {
    return await inTransaction(
      (session) => creditIn(ctx, session, input, { entryId, eventId }),
      async (error, session) => {
        if (isDuplicateKeyOn(error, CREDIT_REFERENCE_INDEX.name, CREDIT_REFERENCE_INDEX.fields)) {
          // A credit with this reference committed first (on this core or another); its
          // answer is this one's, once a majority has it.
          const earlier = await live().ledger.findOne(earlierCredit, followUpRead(session));
          return earlier === null ? undefined : replayedCredit(earlier);
        }
        const committed = await ctx.committedEntry(error, entryId, session);
        if (committed === null) return undefined;
        const entry = ledgerEntryFromDoc(committed);
        return { balanceKobo: entry.balanceAfterKobo, entry, replayed: false };
      },
    );
  } catch (error) {
    throw creditFailure(error, input);
  }
}

export function createWalletStore(ctx: MongoContext): WalletStore & WalletMoney {
  const { live, inTransaction } = ctx;
  return {
    credit: (input) => creditWallet(ctx, input),
    debit: (input) => debitWallet(ctx, input),
    async reserve(tx, first, checks) {
      requireAmount('chargedKobo', tx.chargedKobo, 1);
      requireAmount('faceValueKobo', tx.faceValueKobo, 0);
      // Everything the callback writes is fixed here, before the first attempt.
      const entryId = new ObjectId();
      return inTransaction(
        (session) => reserveIn(ctx, session, tx, entryId, first, checks),
        (error, session) => reserveRecovered(ctx, error, session, tx, entryId),
      );
    },
    settle: (reference, result, at, attempt, answers) => settleIn(ctx, reference, result, at, attempt, answers),
    async refund(reference, reason, at, attempt, answers) {
      return giveBack(ctx, reference, { to: 'failed', memo: refundMemo(reason) }, reason, at, attempt, answers);
    },
    async reverse(reference, reason, at) {
      return giveBack(ctx, reference, { to: 'reversed', memo: reversalMemo(reason) }, reason, at, undefined);
    },
    async recordAttempt(reference, next, attempt, answers) {
      requireAttempts(next.attempts);
      const update = {
        $set: {
          attempts: next.attempts,
          next_attempt_at: toDate(next.nextAttemptAt, 'nextAttemptAt'),
          needs_attention: next.needsAttention,
          updated_at: toDate(next.at, 'at'),
        },
      };
      if (attempt === undefined && (answers === undefined || answers.length === 0)) {
        await live().transactions.updateOne(attemptFilter(reference, next), update);
        return;
      }
      // With the upstream attempt's outcome and its answer: all in one transaction, each
      // conditional, so a transaction the driver runs again writes the same.
      await inTransaction(async (session) => {
        if (attempt !== undefined) await endAttemptIn(ctx, session, reference, attempt, update.$set.updated_at);
        await keepAnswerIn(ctx, session, reference, answers, update.$set.updated_at);
        await live().transactions.updateOne(attemptFilter(reference, next), update, { session });
      });
    },
    async claimAttempt(reference, claim) {
      requireAttempts(claim.attempts);
      const claimed = await live().transactions.findOneAndUpdate(claimFilter(reference, claim), claimUpdate(claim), {
        returnDocument: 'after',
      });
      return claimed === null ? null : transactionFromDoc(claimed);
    },
    async listLedger(accountId, mode, page) {
      const limit = requireLimit(page.limit);
      const query: Filter<LedgerEntryDoc> = { account_id: accountId, mode };
      if (page.after !== undefined) query.entry_id = { $lt: toLong(decodeLedgerCursor(page.after), 'cursor') };
      const docs = await live()
        .ledger.find(query, developerRead())
        .sort({ entry_id: -1 })
        .limit(limit + 1)
        .toArray();
      return toPage(docs, limit, ledgerEntryFromDoc, (doc) =>
        encodeLedgerCursor(readInteger(doc.entry_id, 'ledger_entries.entry_id')),
      );
    },
    async ledgerOf(accountId, mode, reference) {
      // The partial (reference, kind) unique index serves this (its filter is the kinds named
      // here); the account and mode only filter. A purchase has at most one debit and one refund.
      const docs = await live()
        .ledger.find({ reference, kind: { $in: ['debit', 'refund'] }, account_id: accountId, mode })
        .sort({ entry_id: 1 })
        .limit(4)
        .toArray();
      return docs.map(ledgerEntryFromDoc);
    },
    async audit(options = {}) {
      live();
      // A snapshot session: every check reads the same point in time (MongoDB 5.0+).
      const session = ctx.client.startSession({ snapshot: true });
      try {
        return await auditLedger(ctx.db, session, options.signal);
      } finally {
        await session.endSession();
      }
    },
  };
}
