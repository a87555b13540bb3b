/**
 * The console's list of accounts on SQLite (AccountStore.list): a statement built from the
 * filters the query names, its sort key and the id after it compared as a row value for the
 * page's cursor. The accounts table is small beside the purchases: a page sorts what the
 * filters keep, bounded by LIMIT.
 */
import type Database from 'better-sqlite3';
import type { AccountListQuery, AccountSort } from '../../domain/account-list.js';
import type { Page } from '../../domain/paging.js';
import type { AccountRecord } from '../../domain/records.js';
import { requireLimit } from '../bounds.js';
import { decodeAccountCursor, encodeAccountCursor, toPage } from '../paging.js';
import { type AccountRow, accountFromRow, toMs } from './rows.js';

const COLUMN: Record<AccountSort, 'created_at' | 'balance_kobo' | 'name'> = {
  created: 'created_at',
  balance: 'balance_kobo',
  name: 'name',
};

type Statement = Database.Statement<Record<string, number | string>, AccountRow>;

/** The list for one database: each shape of statement (which filters, which sort) prepared once. */
export function accountLister(db: Database.Database): (query: AccountListQuery) => Page<AccountRecord> {
  const prepared = new Map<string, Statement>();
  return (query) =>
    listAccounts(query, (sql) => {
      let statement = prepared.get(sql);
      if (statement === undefined) {
        statement = db.prepare<Record<string, number | string>, AccountRow>(sql);
        prepared.set(sql, statement);
      }
      return statement;
    });
}

function listAccounts(query: AccountListQuery, prepare: (sql: string) => Statement): Page<AccountRecord> {
  const limit = requireLimit(query.limit);
  const column = COLUMN[query.sort];
  const where: string[] = [];
  const params: Record<string, number | string> = { limit: limit + 1 };
  if (query.tierId !== undefined) {
    where.push('tier_id = @tier_id');
    params.tier_id = query.tierId;
  }
  if (query.suspended !== undefined) where.push(query.suspended ? 'suspended_at IS NOT NULL' : 'suspended_at IS NULL');
  if (query.createdFrom) {
    where.push('created_at >= @created_from');
    params.created_from = toMs(query.createdFrom);
  }
  if (query.createdBefore) {
    where.push('created_at < @created_before');
    params.created_before = toMs(query.createdBefore);
  }
  if (query.balanceMinKobo !== undefined) {
    where.push('balance_kobo >= @balance_min');
    params.balance_min = query.balanceMinKobo;
  }
  if (query.balanceMaxKobo !== undefined) {
    where.push('balance_kobo <= @balance_max');
    params.balance_max = query.balanceMaxKobo;
  }
  const direction = query.descending ? 'DESC' : 'ASC';
  if (query.after !== undefined) {
    const cursor = decodeAccountCursor(query.after, query.sort === 'name' ? 'string' : 'number');
    where.push(`(${column}, account_id) ${query.descending ? '<' : '>'} (@after_value, @after_id)`);
    params.after_value = cursor.value;
    params.after_id = cursor.accountId;
  }
  // Only fixed column names and placeholders are spliced in; every value is a parameter.
  const sql = `SELECT * FROM accounts ${where.length === 0 ? '' : `WHERE ${where.join(' AND ')}`}
    ORDER BY ${column} ${direction}, account_id ${direction} LIMIT @limit`;
  const rows = prepare(sql).all(params);
  return toPage(rows, limit, accountFromRow, (row) => encodeAccountCursor(row[column], row.account_id));
}
