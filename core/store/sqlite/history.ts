/**
 * The holder's reads of an account's purchases on SQLite: history with filters, spend per
 * day and product, and the pending count. The statements are built from the filter's shape
 * (which fields are set) and prepared once per shape.
 */
import type Database from 'better-sqlite3';
import type { Mode } from '../../domain/mode.js';
import { type Kobo, kobo } from '../../domain/money.js';
import type { ProductName } from '../../domain/products.js';
import { prefixRange } from '../../domain/recipient-search.js';
import type { TransactionQuery } from '../../domain/records.js';
import { requireLimit } from '../bounds.js';
import { decodeTransactionCursor, toPage } from '../paging.js';
import type { HistoryStore } from '../port.js';
import { deskSearcher } from './desk-search.js';
import { TRANSACTION_JSON, toMs, transactionFromJson, transactionRecordCursor } from './rows.js';

const DAY_MS = 86_400_000;

/** Each filter field, its condition, in the order a statement's shape is keyed. */
const CONDITIONS: readonly [keyof TransactionQuery, string][] = [
  ['product', 'product = @product'],
  ['status', 'status = @status'],
  ['from', 'created_at >= @from'],
  ['until', 'created_at < @until'],
  ['recipient', 'recipient = @recipient'],
  // A range, not LIKE: it walks transactions_by_recipient like the exact match (recipient-search.ts).
  ['recipientPrefix', 'recipient >= @recipient_from AND recipient < @recipient_until'],
  ['reference', 'reference = @reference'],
  ['requestId', 'request_id = @request_id'],
];

function parameters(query: TransactionQuery): Record<string, string | number> {
  const values: Record<string, string | number> = {};
  if (query.product !== undefined) values.product = query.product;
  if (query.status !== undefined) values.status = query.status;
  if (query.from !== undefined) values.from = toMs(query.from);
  if (query.until !== undefined) values.until = toMs(query.until);
  if (query.recipient !== undefined) values.recipient = query.recipient;
  if (query.recipientPrefix !== undefined) {
    const range = prefixRange(query.recipientPrefix);
    values.recipient_from = range.from;
    values.recipient_until = range.until;
  }
  if (query.reference !== undefined) values.reference = query.reference;
  if (query.requestId !== undefined) values.request_id = query.requestId;
  return values;
}

export function createHistoryStore(db: Database.Database): HistoryStore {
  const searches = new Map<string, Database.Statement<Record<string, unknown>, string>>();

  function searchStatement(
    query: TransactionQuery,
    paged: boolean,
  ): Database.Statement<Record<string, unknown>, string> {
    const used = CONDITIONS.filter(([field]) => query[field] !== undefined);
    const key = `${used.map(([field]) => field).join(',')}|${paged}`;
    let statement = searches.get(key);
    if (statement === undefined) {
      const where = ['account_id = @account_id', 'mode = @mode', ...used.map(([, condition]) => condition)];
      if (paged)
        where.push(
          '(created_at < @after_created_at OR (created_at = @after_created_at AND reference < @after_reference))',
        );
      statement = db
        .prepare<Record<string, unknown>, string>(
          `SELECT ${TRANSACTION_JSON} FROM transactions WHERE ${where.join(' AND ')}
           ORDER BY created_at DESC, reference DESC LIMIT @limit`,
        )
        .pluck(true);
      searches.set(key, statement);
    }
    return statement;
  }

  const spend = db.prepare<
    { account_id: string; mode: Mode; from: number; until: number; offset: number },
    { day: number; product: string; spent: number }
  >(
    `SELECT (created_at + CAST(@offset AS INTEGER)) / ${DAY_MS} AS day, product, SUM(charged_kobo) AS spent
     FROM transactions
     WHERE account_id = @account_id AND mode = @mode AND created_at >= @from AND created_at < @until
       AND status IN ('pending', 'success')
     GROUP BY day, product ORDER BY day, product`,
  );
  const pending = db.prepare<[string, Mode], { count: number }>(
    `SELECT COUNT(*) AS count FROM transactions WHERE account_id = ? AND mode = ? AND status = 'pending'`,
  );

  const desk = deskSearcher(db);
  return {
    async searchDesk(query, page) {
      return desk(query, page);
    },
    async search(accountId, mode, query, page) {
      const limit = requireLimit(page.limit);
      const values: Record<string, unknown> = { account_id: accountId, mode, ...parameters(query), limit: limit + 1 };
      if (page.after !== undefined) {
        const cursor = decodeTransactionCursor(page.after);
        values.after_created_at = cursor.createdAtMs;
        values.after_reference = cursor.reference;
      }
      const rows = searchStatement(query, page.after !== undefined).all(values);
      return toPage(rows.map(transactionFromJson), limit, (tx) => tx, transactionRecordCursor);
    },
    async spendByDay(accountId, mode, from, until, offsetMs) {
      return spend
        .all({ account_id: accountId, mode, from: toMs(from), until: toMs(until), offset: offsetMs })
        .map((row) => ({ day: row.day, product: row.product as ProductName, spentKobo: kobo(row.spent) as Kobo }));
    },
    async pendingCount(accountId, mode) {
      return pending.get(accountId, mode)!.count;
    },
  };
}
