/**
 * The wallet on SQLite: credits, the two phases of a purchase, refunds and reversals, each
 * a balance change and its ledger entry in one transaction. The money operations are plain
 * synchronous functions: they only ever run inside the group commit (group-commit.ts),
 * which makes each one atomic.
 */
import Database from 'better-sqlite3';
import {
  type DeliveredCost,
  inflowCreditedPostings,
  manualCreditPostings,
  manualDebitPostings,
  refundPostings,
  reservePostings,
  reversePostings,
  settlePostings,
} from '../../domain/books.js';
import { creditEvent, debitEvent, lowBalanceEvent, transactionEvent } from '../../domain/events.js';
import { crossesLowBalance } from '../../domain/funding.js';
import type { Mode } from '../../domain/mode.js';
import { isKobo, kobo } from '../../domain/money.js';
import type { DeliveryResult, TransactionStatus } from '../../domain/products.js';
import type { NewTransaction, ReserveChecks, ReserveResult } from '../../domain/records.js';
import { canMove, type RefundedStatus } from '../../domain/transactions.js';
import { requireAmount, requireAttempts, requireLimit } from '../bounds.js';
import { decodeLedgerCursor, toPage } from '../paging.js';
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
import { type AccountStatements, walletStatements } from './accounts.js';
import { runLedgerAudit } from './audit.js';
import { auditOffThread } from './audit-runner.js';
import { type BookStatements, book, postingsOf, prepareBookStatements } from './books.js';
import { type EventStatements, recordEvent } from './events.js';
import type { GroupCommit } from './group-commit.js';
import { type LevelStatements, levelSpendCheck, prepareLevelStatements } from './levels.js';
import {
  countRecipient,
  giveBackRecipient,
  prepareRecipientStatements,
  type RecipientStatements,
  recipientCheck,
} from './recipients.js';
import {
  type LedgerRow,
  ledgerCursor,
  ledgerFromRow,
  type TransactionRow,
  toFlag,
  toMs,
  transactionFromRow,
} from './rows.js';
import { capCheck, countSpend, giveBackSpend, prepareSpendStatements, type SpendStatements } from './spend.js';
import { attemptEndRow, keepAnswer, type prepareAttemptStatements } from './supply.js';
import type { TransactionStatements } from './transactions.js';

export function prepareLedgerStatements(db: Database.Database) {
  return {
    insert: db.prepare<Omit<LedgerRow, 'entry_id'>, LedgerRow>(
      `INSERT INTO ledger_entries (account_id, mode, amount_kobo, balance_after_kobo, kind, reference, memo, created_at)
       VALUES (@account_id, @mode, @amount_kobo, @balance_after_kobo, @kind, @reference, @memo, @created_at)
       RETURNING *`,
    ),
    creditByReference: db.prepare<{ account_id: string; mode: string; reference: string }, LedgerRow>(
      `SELECT * FROM ledger_entries
       WHERE account_id = @account_id AND mode = @mode AND reference = @reference AND kind = 'credit'`,
    ),
    manualDebitByReference: db.prepare<{ account_id: string; reference: string }, LedgerRow>(
      `SELECT * FROM ledger_entries
       WHERE account_id = @account_id AND reference = @reference AND kind = 'manual_debit'`,
    ),
    list: db.prepare<{ account_id: string; mode: string; before: number; limit: number }, LedgerRow>(
      `SELECT * FROM ledger_entries WHERE account_id = @account_id AND mode = @mode AND entry_id < @before
       ORDER BY entry_id DESC LIMIT @limit`,
    ),
    ofReference: db.prepare<{ account_id: string; mode: string; reference: string }, LedgerRow>(
      `SELECT * FROM ledger_entries
       WHERE reference = @reference AND kind IN ('debit', 'refund') AND account_id = @account_id AND mode = @mode
       ORDER BY entry_id`,
    ),
  };
}

export interface WalletStatements {
  accounts: AccountStatements;
  transactions: TransactionStatements;
  events: EventStatements;
  ledger: ReturnType<typeof prepareLedgerStatements>;
  attempts: ReturnType<typeof prepareAttemptStatements>;
  spend: SpendStatements;
  recipients: RecipientStatements;
  books: BookStatements;
  levels: LevelStatements;
}

/** The pending transaction row a reserve writes, once the debit gave its balance. */
function pendingRow(tx: NewTransaction, balanceAfterKobo: number): TransactionRow {
  const createdAt = toMs(tx.createdAt);
  return {
    reference: tx.reference,
    account_id: tx.accountId,
    mode: tx.mode,
    product: tx.product,
    status: 'pending',
    service: tx.service,
    recipient: tx.recipient,
    face_value_kobo: tx.faceValueKobo,
    charged_kobo: tx.chargedKobo,
    balance_after_kobo: balanceAfterKobo,
    details: JSON.stringify(tx.details),
    result: null,
    failure_reason: null,
    request_id: tx.requestId,
    request_hash: tx.requestHash,
    attempts: 0,
    next_attempt_at: toMs(tx.nextAttemptAt),
    needs_attention: 0,
    created_at: createdAt,
    updated_at: createdAt,
  };
}

/** The account's manual debit of this reference made before, if any. */
function replayedDebit(sql: WalletStatements, input: DebitInput): Debited | null {
  const earlier = sql.ledger.manualDebitByReference.get({ account_id: input.accountId, reference: input.reference });
  if (earlier === undefined) return null;
  const entry = ledgerFromRow(earlier);
  return { outcome: 'debited', balanceKobo: entry.balanceAfterKobo, entry, replayed: true };
}

/** A manual debit, its entry and events, only if the wallet covers it (WalletStore.debit). */
function manualDebit(sql: WalletStatements, input: DebitInput): Debited {
  const { accounts, ledger, events } = sql;
  const earlier = replayedDebit(sql, input);
  if (earlier !== null) return earlier;
  const debited = walletStatements(accounts, input.mode).debit.get({
    account_id: input.accountId,
    amount_kobo: input.amountKobo,
  });
  if (debited === undefined) {
    const account = accounts.get.get(input.accountId);
    if (!account) return { outcome: 'no_account' };
    const balance = input.mode === 'test' ? account.test_balance_kobo : account.balance_kobo;
    return { outcome: 'insufficient', balanceKobo: kobo(balance) };
  }
  const balanceKobo = kobo(debited.balance_kobo);
  const entry = ledger.insert.get({
    account_id: input.accountId,
    mode: input.mode,
    amount_kobo: -input.amountKobo,
    balance_after_kobo: balanceKobo,
    kind: 'manual_debit',
    reference: input.reference,
    memo: input.reason,
    created_at: toMs(input.at),
  })!;
  book(
    sql.books,
    'debit',
    input.mode,
    input.reference,
    input.at,
    manualDebitPostings(input.accountId, input.amountKobo),
  );
  const facts = { ...input, balanceKobo };
  recordEvent(events, debitEvent(facts, input.mode, input.at));
  if (crossesLowBalance(balanceKobo + input.amountKobo, balanceKobo, debited.threshold_kobo)) {
    const threshold = kobo(debited.threshold_kobo!);
    recordEvent(
      events,
      lowBalanceEvent(input.accountId, input.mode, balanceKobo, threshold, input.reference, input.at),
    );
  }
  return { outcome: 'debited', balanceKobo, entry: ledgerFromRow(entry), replayed: false };
}

/** A credit, its entry and its event (WalletStore.credit); a reference credited before is answered again. */
function creditWallet(sql: WalletStatements, input: CreditInput): Credited | null {
  const { accounts, ledger, events } = sql;
  // A reference credited before to this wallet: the first credit's answer, and nothing written.
  const earlier = ledger.creditByReference.get({
    account_id: input.accountId,
    mode: input.mode,
    reference: input.reference,
  });
  if (earlier !== undefined)
    return { balanceKobo: kobo(earlier.balance_after_kobo), entry: ledgerFromRow(earlier), replayed: true };
  const balance = walletStatements(accounts, input.mode).add.get({
    account_id: input.accountId,
    amount_kobo: input.amountKobo,
  });
  if (balance === undefined) return null;
  if (!isKobo(balance.balance_kobo)) {
    // Throwing rolls the credit back; such a balance could not be read back exactly.
    throw new RangeError('store: the credit would take the balance beyond the safe integer range');
  }
  const entry = ledger.insert.get({
    account_id: input.accountId,
    mode: input.mode,
    amount_kobo: input.amountKobo,
    balance_after_kobo: balance.balance_kobo,
    kind: 'credit',
    reference: input.reference,
    memo: input.memo,
    created_at: toMs(input.at),
  })!;
  // A bank transfer's credit leaves the inflows held for it; any other credit is the operator's.
  const postings =
    input.funding === undefined
      ? manualCreditPostings(input.accountId, input.amountKobo)
      : inflowCreditedPostings(
          input.accountId,
          input.funding.amountPaidKobo,
          input.funding.feeKobo,
          input.heldKobo ?? kobo(0),
        );
  book(
    sql.books,
    input.funding === undefined ? 'credit' : 'inflow_credited',
    input.mode,
    input.reference,
    input.at,
    postings,
  );
  const facts = {
    accountId: input.accountId,
    reference: input.reference,
    amountKobo: input.amountKobo,
    balanceKobo: kobo(balance.balance_kobo),
    memo: input.memo,
    funding: input.funding,
  };
  recordEvent(events, creditEvent(facts, input.mode, input.at));
  return { balanceKobo: balance.balance_kobo, entry: ledgerFromRow(entry), replayed: false };
}

/** The purchase this request made before, if the request carried an id. */
function duplicateOf(sql: WalletStatements, tx: NewTransaction): ReserveResult | null {
  if (tx.requestId === null) return null;
  const existing = sql.transactions.getByRequestId.get({
    account_id: tx.accountId,
    mode: tx.mode,
    request_id: tx.requestId,
  });
  return existing ? { outcome: 'duplicate', transaction: transactionFromRow(existing) } : null;
}

/** Phase one of a purchase: the duplicate check, the conditional debit, its entry and the pending transaction. */
function reservePurchase(
  sql: WalletStatements,
  tx: NewTransaction,
  first?: FirstAttempt,
  checks?: ReserveChecks,
): ReserveResult {
  const { accounts, transactions, ledger, events, attempts } = sql;
  const duplicate = duplicateOf(sql, tx);
  if (duplicate !== null) return duplicate;
  let counted: string | undefined;
  if (checks?.cappedKey !== undefined) {
    const capped = capCheck(sql.spend, checks.cappedKey, tx);
    if (typeof capped === 'object') return { outcome: 'key_cap', refusal: capped };
    if (capped === 'count') counted = checks.cappedKey;
  }
  if (checks?.recipient !== undefined) {
    const refusal = recipientCheck(sql.recipients, tx, checks.recipient);
    if (refusal !== null) return { outcome: 'recipient', refusal };
  }
  const overLevel = levelSpendCheck(sql.levels, tx);
  if (overLevel !== null) return { outcome: 'level_limit', refusal: overLevel };
  // The conditional debit is the guard; only when it refuses is the account read, to
  // tell a missing account from a short balance.
  const debited = walletStatements(accounts, tx.mode).debit.get({
    account_id: tx.accountId,
    amount_kobo: tx.chargedKobo,
  });
  if (debited === undefined) {
    const account = accounts.get.get(tx.accountId);
    if (!account) return { outcome: 'no_account' };
    return {
      outcome: 'insufficient',
      balanceKobo: kobo(tx.mode === 'test' ? account.test_balance_kobo : account.balance_kobo),
    };
  }
  const row = pendingRow(tx, debited.balance_kobo);
  ledger.insert.run({
    account_id: tx.accountId,
    mode: tx.mode,
    amount_kobo: -tx.chargedKobo,
    balance_after_kobo: debited.balance_kobo,
    kind: 'debit',
    reference: tx.reference,
    memo: purchaseMemo(tx),
    created_at: row.created_at,
  });
  transactions.insert.run(row);
  book(sql.books, 'reserve', tx.mode, tx.reference, tx.createdAt, reservePostings(tx.accountId, tx.chargedKobo));
  if (counted !== undefined) countSpend(sql.spend, counted, tx);
  if (checks?.recipient !== undefined) countRecipient(sql.recipients, tx, checks.recipient);
  if (first !== undefined) {
    attempts.begin.run({
      reference: tx.reference,
      seq: 1,
      upstream: first.upstream,
      started_at: row.created_at,
      outcome: null,
      evidence: null,
      cost_kobo: null,
      ended_at: null,
    });
  }
  if (crossesLowBalance(debited.balance_kobo + tx.chargedKobo, debited.balance_kobo, debited.threshold_kobo)) {
    const event = lowBalanceEvent(
      tx.accountId,
      tx.mode,
      kobo(debited.balance_kobo),
      kobo(debited.threshold_kobo!),
      tx.reference,
      tx.createdAt,
    );
    recordEvent(events, event);
  }
  return { outcome: 'reserved', transaction: transactionFromRow(row) };
}

/** What the purchase's delivered attempt cost at its upstream, where the upstream said; null otherwise. */
function deliveredCost(sql: WalletStatements, reference: string): DeliveredCost | null {
  const row = sql.attempts.deliveredCost.get(reference);
  return row === undefined ? null : { upstream: row.upstream, costKobo: kobo(row.cost_kobo) };
}

/** The money operations, each to run inside one transaction. */
export function moneyOperations(sql: WalletStatements) {
  const { accounts, transactions, ledger, events, attempts } = sql;

  /** An upstream attempt's outcome, written with the money operation after its call. */
  function endAttempt(
    reference: string,
    attempt: AttemptEnd | undefined,
    at: Date,
    answers?: readonly NewUpstreamAnswer[],
  ): void {
    if (attempt !== undefined) attempts.end.run(attemptEndRow(reference, attempt, at));
    keepAnswer(attempts, reference, answers, at);
  }

  /** The event of a purchase's move, in the same transaction as the move. */
  function announce(moved: Moved, at: Date): Moved {
    const event = transactionEvent(moved.transaction, moved.transaction.mode, at);
    if (event !== null) recordEvent(events, event);
    return moved;
  }

  /**
   * One conditional UPDATE is the whole settlement; only when it matched nothing is the
   * row read, to tell "already final" from "missing".
   */
  function settle(
    reference: string,
    result: DeliveryResult,
    at: Date,
    attempt?: AttemptEnd,
    answers?: readonly NewUpstreamAnswer[],
  ): Moved | null {
    endAttempt(reference, attempt, at, answers);
    const settled = transactions.markSuccess.get({ reference, result: JSON.stringify(result), updated_at: toMs(at) });
    if (settled) {
      book(
        sql.books,
        'settle',
        settled.mode as Mode,
        reference,
        at,
        settlePostings(kobo(settled.charged_kobo), deliveredCost(sql, reference)),
      );
      return announce({ transaction: transactionFromRow(settled), changed: true }, at);
    }
    const row = transactions.get.get(reference);
    return row ? { transaction: transactionFromRow(row), changed: false } : null;
  }

  /**
   * Moves a purchase into `to` (failed or reversed), if the state machine lets it leave the
   * state it is in, and puts its whole charge back in its wallet with a
   * refund entry. The status change is conditional and the ledger's unique (reference,
   * kind) index refuses a second refund entry, so the money goes back at most once even if
   * a check were bypassed.
   */
  function giveBack(
    reference: string,
    to: RefundedStatus,
    memo: string,
    reason: string,
    at: Date,
    attempt?: AttemptEnd,
    answers?: readonly NewUpstreamAnswer[],
  ): Moved | null {
    endAttempt(reference, attempt, at, answers);
    const row = transactions.get.get(reference);
    if (!row) return null;
    if (!canMove(row.status as TransactionStatus, to)) return { transaction: transactionFromRow(row), changed: false };
    const atMs = toMs(at);
    const mark = to === 'failed' ? transactions.markFailed : transactions.markReversed;
    const moved = mark.get({ reference, failure_reason: reason, updated_at: atMs })!;
    // The refund goes back to the wallet the purchase was paid from.
    const balance = walletStatements(accounts, row.mode as Mode).add.get({
      account_id: row.account_id,
      amount_kobo: row.charged_kobo,
    })!;
    giveBackSpend(sql.spend, row);
    giveBackRecipient(sql.recipients, row);
    // A failed purchase's charge comes back from where it was held; a reversed one's from what its settle
    // (and a cost learnt after it) booked.
    const postings =
      to === 'failed'
        ? refundPostings(row.account_id, kobo(row.charged_kobo))
        : reversePostings(row.account_id, [
            ...postingsOf(sql.books, reference, 'settle'),
            ...postingsOf(sql.books, reference, 'cost_known'),
          ]);
    book(sql.books, to === 'failed' ? 'refund' : 'reverse', row.mode as Mode, reference, at, postings);
    ledger.insert.run({
      account_id: row.account_id,
      mode: row.mode,
      amount_kobo: row.charged_kobo,
      balance_after_kobo: balance.balance_kobo,
      kind: 'refund',
      reference: row.reference,
      memo,
      created_at: atMs,
    });
    return announce({ transaction: transactionFromRow(moved), changed: true }, at);
  }

  return {
    credit: (input: CreditInput) => creditWallet(sql, input),
    debit: (input: DebitInput) => manualDebit(sql, input),
    reserve: (tx: NewTransaction, first?: FirstAttempt, checks?: ReserveChecks) =>
      reservePurchase(sql, tx, first, checks),
    duplicateOf: (tx: NewTransaction) => duplicateOf(sql, tx),
    settle,
    giveBack,
    endAttempt,
    /** The statements of the identity levels, for the funding credit's split (funding.ts). */
    levels: sql.levels,
    /** An entry of the books, for the money moves another sub-port makes in the same transaction. */
    book: (...args: Parameters<typeof book> extends [unknown, ...infer Rest] ? Rest : never) =>
      book(sql.books, ...args),
  };
}

export function createWalletStore(
  db: Database.Database,
  commit: GroupCommit,
  statements: Omit<WalletStatements, 'ledger' | 'spend' | 'recipients' | 'books' | 'levels'>,
): WalletStore & WalletMoney {
  const sql: WalletStatements = {
    ...statements,
    levels: prepareLevelStatements(db),
    ledger: prepareLedgerStatements(db),
    books: prepareBookStatements(db),
    spend: prepareSpendStatements(db),
    recipients: prepareRecipientStatements(db),
  };
  const money = moneyOperations(sql);
  return {
    async credit(input) {
      requireAmount('amountKobo', input.amountKobo, 1);
      return commit.run(() => money.credit(input));
    },
    async debit(input) {
      requireAmount('amountKobo', input.amountKobo, 1);
      return commit.run(
        () => money.debit(input),
        (error): Debited => {
          // The unique index on (account_id, reference) of manual debits is the guard behind the read.
          const earlier = isUniqueViolation(error) ? replayedDebit(sql, input) : null;
          if (earlier !== null) return earlier;
          throw error;
        },
      );
    },
    async reserve(tx, first, checks) {
      requireAmount('chargedKobo', tx.chargedKobo, 1);
      requireAmount('faceValueKobo', tx.faceValueKobo, 0);
      return commit.run(
        () => money.reserve(tx, first, checks),
        (error): ReserveResult => {
          // The unique index on (account_id, mode, request_id) is the real idempotency guard; the
          // read inside the transaction only makes the common case cheap.
          const duplicate = isUniqueViolation(error) ? money.duplicateOf(tx) : null;
          if (duplicate !== null) return duplicate;
          throw error;
        },
      );
    },
    async settle(reference, result, at, attempt, answers) {
      return commit.run(() => money.settle(reference, result, at, attempt, answers));
    },
    async refund(reference, reason, at, attempt, answers) {
      return commit.run(() => money.giveBack(reference, 'failed', refundMemo(reason), reason, at, attempt, answers));
    },
    async reverse(reference, reason, at) {
      return commit.run(() => money.giveBack(reference, 'reversed', reversalMemo(reason), reason, at));
    },
    async recordAttempt(reference, next, attempt, answers) {
      requireAttempts(next.attempts);
      await commit.run(() => {
        money.endAttempt(reference, attempt, next.at, answers);
        sql.transactions.recordAttempt.run({
          reference,
          attempts: next.attempts,
          next_attempt_at: toMs(next.nextAttemptAt),
          needs_attention: toFlag(next.needsAttention),
          updated_at: toMs(next.at),
        });
      });
    },
    async claimAttempt(reference, claim) {
      requireAttempts(claim.attempts);
      const row = await commit.run(() =>
        sql.transactions.claimAttempt.get({
          reference,
          due_by: toMs(claim.dueBy),
          attempts: claim.attempts,
          lease_until: toMs(claim.leaseUntil),
          updated_at: toMs(claim.at),
        }),
      );
      return row === undefined ? null : transactionFromRow(row);
    },
    async listLedger(accountId, mode, page) {
      const limit = requireLimit(page.limit);
      const before = page.after === undefined ? Number.MAX_SAFE_INTEGER : decodeLedgerCursor(page.after);
      const rows = sql.ledger.list.all({ account_id: accountId, mode, before, limit: limit + 1 });
      return toPage(rows, limit, ledgerFromRow, ledgerCursor);
    },
    async ledgerOf(accountId, mode, reference) {
      return sql.ledger.ofReference.all({ account_id: accountId, mode, reference }).map(ledgerFromRow);
    },
    async audit(options = {}) {
      // A file is checked on a thread of its own, beside the purchases; an in-memory database
      // (tests only: no other connection can see it) is checked here.
      if (!db.memory) return auditOffThread(db.name, options);
      options.signal?.throwIfAborted();
      return runLedgerAudit(db, { ...(options.onProgress ? { onProgress: options.onProgress } : {}) });
    },
  };
}

function isUniqueViolation(error: unknown): boolean {
  return error instanceof Database.SqliteError && error.code === 'SQLITE_CONSTRAINT_UNIQUE';
}
