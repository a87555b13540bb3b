/**
 * The transactions desk's search on SQLite (HistoryStore.searchDesk): live purchases in a time
 * range, newest first, with the filters the query names. With an account it walks that
 * account's history index; without, the live purchases by time (transactions_live_by_time);
 * an upstream is an EXISTS on the attempts' primary key. Each shape is prepared once.
 */
import type Database from 'better-sqlite3';
import type { DeskTransactionQuery } from '../../domain/desk-search.js';
import type { Page, PageRequest } from '../../domain/paging.js';
import type { TransactionRecord } from '../../domain/records.js';
import { requireLimit } from '../bounds.js';
import { decodeTransactionCursor, toPage } from '../paging.js';
import { TRANSACTION_JSON, toMs, transactionFromJson, transactionRecordCursor } from './rows.js';

const CONDITIONS: readonly [keyof DeskTransactionQuery, string][] = [
  ['accountId', 't.account_id = @account_id'],
  ['product', 't.product = @product'],
  ['status', 't.status = @status'],
  ['recipient', 't.recipient = @recipient'],
  ['reference', 't.reference = @reference'],
  ['upstream', 'EXISTS (SELECT 1 FROM upstream_attempts u WHERE u.reference = t.reference AND u.upstream = @upstream)'],
];

type Statement = Database.Statement<Record<string, unknown>, string>;

export function deskSearcher(db: Database.Database) {
  const prepared = new Map<string, Statement>();
  return (query: DeskTransactionQuery, page: PageRequest): Page<TransactionRecord> => {
    const limit = requireLimit(page.limit);
    const used = CONDITIONS.filter(([field]) => query[field] !== undefined);
    const key = `${used.map(([field]) => field).join(',')}|${page.after !== undefined}`;
    let statement = prepared.get(key);
    if (statement === undefined) {
      const where = [
        "t.mode = 'live'",
        't.created_at >= @from',
        't.created_at < @until',
        ...used.map(([, condition]) => condition),
      ];
      if (page.after !== undefined) where.push('(t.created_at, t.reference) < (@after_created_at, @after_reference)');
      statement = db
        .prepare<Record<string, unknown>, string>(
          `SELECT ${TRANSACTION_JSON} FROM transactions t
           WHERE ${where.join(' AND ')} ORDER BY t.created_at DESC, t.reference DESC LIMIT @limit`,
        )
        .pluck(true);
      prepared.set(key, statement);
    }
    const values: Record<string, unknown> = { from: toMs(query.from), until: toMs(query.until), limit: limit + 1 };
    if (query.accountId !== undefined) values.account_id = query.accountId;
    if (query.product !== undefined) values.product = query.product;
    if (query.status !== undefined) values.status = query.status;
    if (query.recipient !== undefined) values.recipient = query.recipient;
    if (query.reference !== undefined) values.reference = query.reference;
    if (query.upstream !== undefined) values.upstream = query.upstream;
    if (page.after !== undefined) {
      const cursor = decodeTransactionCursor(page.after);
      values.after_created_at = cursor.createdAtMs;
      values.after_reference = cursor.reference;
    }
    return toPage(statement.all(values).map(transactionFromJson), limit, (tx) => tx, transactionRecordCursor);
  };
}
