/**
 * Purchases on SQLite: the transactions table. The reads serve the transaction sub-port;
 * the status changes are used by the wallet (wallet.ts), inside its transactions, because
 * every change of a purchase's status moves money with it.
 */
import type Database from 'better-sqlite3';
import type { TransactionStatus } from '../../domain/products.js';
import type { TransactionRecord } from '../../domain/records.js';
import { movesInto } from '../../domain/transactions.js';
import { requireLimit } from '../bounds.js';
import { decodeTransactionCursor, toPage } from '../paging.js';
import type { TransactionStore } from '../port.js';
import {
  fromMs,
  TRANSACTION_JSON,
  TRANSACTION_PAGE_JSON,
  type TransactionRow,
  toFlag,
  toMs,
  transactionFromJson,
  transactionFromRow,
  transactionRecordCursor,
} from './rows.js';

type StatusChange = { reference: string; failure_reason: string; updated_at: number };

/** `status IN (...)`: the states the state machine lets a purchase leave for `to`, as SQL text. */
function from(to: TransactionStatus): string {
  return `status IN (${movesInto(to)
    .map((state) => `'${state}'`)
    .join(', ')})`;
}

export function prepareTransactionStatements(db: Database.Database) {
  return {
    // The whole row comes from the caller, so the record returned is exactly what was written.
    insert: db.prepare<TransactionRow>(
      `INSERT INTO transactions (reference, account_id, mode, product, status, service, recipient, face_value_kobo,
         charged_kobo, balance_after_kobo, details, result, failure_reason, request_id, request_hash, attempts,
         next_attempt_at, needs_attention, created_at, updated_at)
       VALUES (@reference, @account_id, @mode, @product, @status, @service, @recipient, @face_value_kobo,
         @charged_kobo, @balance_after_kobo, @details, @result, @failure_reason, @request_id, @request_hash, @attempts,
         @next_attempt_at, @needs_attention, @created_at, @updated_at)`,
    ),
    get: db.prepare<[string], TransactionRow>('SELECT * FROM transactions WHERE reference = ?'),
    getByRequestId: db.prepare<{ account_id: string; mode: string; request_id: string }, TransactionRow>(
      'SELECT * FROM transactions WHERE account_id = @account_id AND mode = @mode AND request_id = @request_id',
    ),
    markSuccess: db.prepare<{ reference: string; result: string; updated_at: number }, TransactionRow>(
      `UPDATE transactions SET status = 'success', result = @result, updated_at = @updated_at
       WHERE reference = @reference AND ${from('success')} RETURNING *`,
    ),
    markReversed: db.prepare<StatusChange, TransactionRow>(
      `UPDATE transactions SET status = 'reversed', failure_reason = @failure_reason, updated_at = @updated_at
       WHERE reference = @reference AND ${from('reversed')} RETURNING *`,
    ),
    markFailed: db.prepare<StatusChange, TransactionRow>(
      `UPDATE transactions SET status = 'failed', failure_reason = @failure_reason, updated_at = @updated_at
       WHERE reference = @reference AND ${from('failed')} RETURNING *`,
    ),
    recordAttempt: db.prepare<{
      reference: string;
      attempts: number;
      next_attempt_at: number;
      needs_attention: number;
      updated_at: number;
    }>(
      `UPDATE transactions SET attempts = @attempts, next_attempt_at = @next_attempt_at,
         needs_attention = @needs_attention, updated_at = @updated_at
       WHERE reference = @reference AND status = 'pending' AND attempts <= @attempts`,
    ),
    // The recovery worker's claim: see WalletStore.claimAttempt.
    claimAttempt: db.prepare<
      { reference: string; due_by: number; attempts: number; lease_until: number; updated_at: number },
      TransactionRow
    >(
      `UPDATE transactions SET attempts = attempts + 1, next_attempt_at = @lease_until, updated_at = @updated_at
       WHERE reference = @reference AND status = 'pending' AND next_attempt_at <= @due_by AND attempts = @attempts
       RETURNING *`,
    ),
    ...prepareTransactionLists(db),
  };
}

function prepareTransactionLists(db: Database.Database) {
  return {
    listFirst: db
      .prepare<{ account_id: string; mode: string; limit: number }, string>(
        `SELECT ${TRANSACTION_PAGE_JSON} FROM transactions WHERE account_id = @account_id AND mode = @mode
         ORDER BY created_at DESC, reference DESC LIMIT @limit`,
      )
      .pluck(true),
    listAfter: db
      .prepare<{ account_id: string; mode: string; created_at: number; reference: string; limit: number }, string>(
        `SELECT ${TRANSACTION_PAGE_JSON} FROM transactions
         WHERE account_id = @account_id AND mode = @mode
           AND (created_at < @created_at OR (created_at = @created_at AND reference < @reference))
         ORDER BY created_at DESC, reference DESC LIMIT @limit`,
      )
      .pluck(true),
    // The literal status matches the partial index transactions_due.
    listPending: db
      .prepare<{ created_at: number; reference: string; attention_only: number; limit: number }, string>(
        `SELECT ${TRANSACTION_JSON} FROM transactions
         WHERE status = 'pending' AND (@attention_only = 0 OR needs_attention = 1)
           AND (created_at, reference) > (@created_at, @reference)
         ORDER BY created_at, reference LIMIT @limit`,
      )
      .pluck(true),
    // The literal status matches the partial index transactions_pending_by_age.
    pendingSummary: db.prepare<[], { count: number; attention: number; oldest: number | null }>(
      `SELECT COUNT(*) AS count, COALESCE(SUM(needs_attention), 0) AS attention, MIN(created_at) AS oldest
       FROM transactions WHERE status = 'pending'`,
    ),
    listDuePending: db
      .prepare<{ now: number; limit: number }, string>(
        `SELECT ${TRANSACTION_JSON} FROM transactions WHERE status = 'pending' AND next_attempt_at <= @now
         ORDER BY next_attempt_at, created_at, reference LIMIT @limit`,
      )
      .pluck(true),
  };
}

export type TransactionStatements = ReturnType<typeof prepareTransactionStatements>;

const sameRecord = (tx: TransactionRecord) => tx;

/** A decoded page cursor as the statements' parameters. */
function afterCursor(cursor: string) {
  const { createdAtMs, reference } = decodeTransactionCursor(cursor);
  return { created_at: createdAtMs, reference };
}

export function createTransactionStore(sql: TransactionStatements): TransactionStore {
  return {
    async get(reference) {
      const row = sql.get.get(reference);
      return row ? transactionFromRow(row) : null;
    },
    async getByRequestId(accountId, mode, requestId) {
      // The unique index transactions_request_id (account_id, mode, request_id) serves it.
      const row = sql.getByRequestId.get({ account_id: accountId, mode, request_id: requestId });
      return row ? transactionFromRow(row) : null;
    },
    async listByAccount(accountId, mode, page) {
      const limit = requireLimit(page.limit);
      const rows =
        page.after === undefined
          ? sql.listFirst.all({ account_id: accountId, mode, limit: limit + 1 })
          : sql.listAfter.all({ account_id: accountId, mode, ...afterCursor(page.after), limit: limit + 1 });
      return toPage(rows.map(transactionFromJson), limit, sameRecord, transactionRecordCursor);
    },
    async listDuePending(now, limit) {
      requireLimit(limit);
      return sql.listDuePending.all({ now: toMs(now), limit }).map(transactionFromJson);
    },
    async listPending(filter, page) {
      const limit = requireLimit(page.limit);
      const after = page.after === undefined ? { created_at: -1, reference: '' } : afterCursor(page.after);
      const rows = sql.listPending.all({
        ...after,
        attention_only: toFlag(filter.needsAttentionOnly),
        limit: limit + 1,
      });
      return toPage(rows.map(transactionFromJson), limit, sameRecord, transactionRecordCursor);
    },
    async pendingSummary() {
      const row = sql.pendingSummary.get()!;
      return {
        count: row.count,
        needsAttentionCount: row.attention,
        oldestCreatedAt: row.oldest === null ? null : fromMs(row.oldest),
      };
    },
  };
}
