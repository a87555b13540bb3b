/**
 * Accounts on SQLite: the account rows and the two balance columns every money operation
 * moves, the live wallet's (balance_kobo) and the test wallet's (test_balance_kobo). The
 * balance statements are used by the wallet (wallet.ts) inside its transactions.
 */
import type Database from 'better-sqlite3';
import type { Mode } from '../../domain/mode.js';
import { requireLimit } from '../bounds.js';
import type { AccountStore } from '../port.js';
import { accountLister } from './account-list.js';
import { type AccountRow, accountFromRow, tierFromRow, toMs } from './rows.js';

/** An account's row with its tier's columns beside it (null when the tier does not exist). */
interface AccountWithTierRow extends AccountRow {
  tier_found: string | null;
  tier_name: string | null;
  tier_api_access: number | null;
  tier_discounts: string | null;
  tier_price_rules: string | null;
}

export function prepareAccountStatements(db: Database.Database) {
  return {
    // The operator's account: its owner's email and phone count as proven when it is made.
    insert: db.prepare<{ account_id: string; name: string; tier_id: string; created_at: number }, AccountRow>(
      `INSERT INTO accounts (account_id, name, tier_id, balance_kobo, test_balance_kobo, created_at,
         email_verified_at, phone_verified_at)
       VALUES (@account_id, @name, @tier_id, 0, 0, @created_at, @created_at, @created_at) RETURNING *`,
    ),
    get: db.prepare<[string], AccountRow>('SELECT * FROM accounts WHERE account_id = ?'),
    // One statement, so one read transaction: on a WAL database each one takes and gives back
    // a read lock (two fcntl calls), which cost more than the two lookups themselves.
    withTier: db.prepare<[string], AccountWithTierRow>(
      `SELECT a.*, t.tier_id AS tier_found, t.name AS tier_name, t.api_access AS tier_api_access,
              t.discounts AS tier_discounts, t.price_rules AS tier_price_rules
       FROM accounts a LEFT JOIN tiers t ON t.tier_id = a.tier_id WHERE a.account_id = ?`,
    ),
    setTier: db.prepare<{ account_id: string; tier_id: string }, AccountRow>(
      'UPDATE accounts SET tier_id = @tier_id WHERE account_id = @account_id RETURNING *',
    ),
    idsOnTier: db
      .prepare<{ tier_id: string; after: string; limit: number }, string>(
        `SELECT account_id FROM accounts WHERE tier_id = @tier_id AND account_id > @after
         ORDER BY account_id LIMIT @limit`,
      )
      .pluck(),
    setSuspension: db.prepare<
      { account_id: string; at: number | null; by: string | null; note: string | null },
      AccountRow
    >(
      `UPDATE accounts SET suspended_at = @at, suspended_by = @by, suspension_note = @note
       WHERE account_id = @account_id RETURNING *`,
    ),
    // lower() folds ASCII letters only, as the port promises; instr() needs no escaping of % and _.
    byName: db.prepare<{ fragment: string; limit: number }, AccountRow>(
      `SELECT * FROM accounts WHERE instr(lower(name), lower(@fragment)) > 0 ORDER BY account_id LIMIT @limit`,
    ),
    // One statement per wallet column: a column name cannot be a parameter, and a CASE on
    // the mode would make every purchase's debit evaluate both.
    debitBalance: debitStatement(db, 'balance_kobo'),
    addToBalance: addStatement(db, 'balance_kobo'),
    debitTestBalance: debitStatement(db, 'test_balance_kobo'),
    addToTestBalance: addStatement(db, 'test_balance_kobo'),
  };
}

/** The conditional debit of one wallet column: nothing changes unless the balance covers it. */
function debitStatement(db: Database.Database, column: 'balance_kobo' | 'test_balance_kobo') {
  // The wallet's low-balance threshold comes back with the balance, so telling whether this
  // debit crossed it costs no second read.
  const threshold = column === 'balance_kobo' ? 'low_balance_kobo' : 'test_low_balance_kobo';
  return db.prepare<
    { account_id: string; amount_kobo: number },
    { balance_kobo: number; threshold_kobo: number | null }
  >(
    `UPDATE accounts SET ${column} = ${column} - @amount_kobo
     WHERE account_id = @account_id AND ${column} >= @amount_kobo
       RETURNING ${column} AS balance_kobo, ${threshold} AS threshold_kobo`,
  );
}

function addStatement(db: Database.Database, column: 'balance_kobo' | 'test_balance_kobo') {
  return db.prepare<{ account_id: string; amount_kobo: number }, { balance_kobo: number }>(
    `UPDATE accounts SET ${column} = ${column} + @amount_kobo
     WHERE account_id = @account_id RETURNING ${column} AS balance_kobo`,
  );
}

export type AccountStatements = ReturnType<typeof prepareAccountStatements>;

/** The statements that move one wallet (account and mode). */
export function walletStatements(sql: AccountStatements, mode: Mode) {
  return mode === 'test'
    ? { debit: sql.debitTestBalance, add: sql.addToTestBalance }
    : { debit: sql.debitBalance, add: sql.addToBalance };
}

export function createAccountStore(sql: AccountStatements, db: Database.Database): AccountStore {
  const list = accountLister(db);
  return {
    async create(account) {
      const row = sql.insert.get({
        account_id: account.accountId,
        name: account.name,
        tier_id: account.tierId,
        created_at: toMs(account.createdAt),
      });
      return accountFromRow(row!);
    },
    async get(accountId) {
      const row = sql.get.get(accountId);
      return row ? accountFromRow(row) : null;
    },
    async getWithTier(accountId) {
      const row = sql.withTier.get(accountId);
      if (!row) return null;
      const tier =
        row.tier_found === null
          ? null
          : tierFromRow({
              tier_id: row.tier_found,
              name: row.tier_name!,
              api_access: row.tier_api_access!,
              discounts: row.tier_discounts!,
              price_rules: row.tier_price_rules!,
            });
      return { account: accountFromRow(row), tier };
    },
    async setTier(accountId, tierId) {
      const row = sql.setTier.get({ account_id: accountId, tier_id: tierId });
      return row ? accountFromRow(row) : null;
    },
    async listIdsOnTier(tierId, afterId, limit) {
      requireLimit(limit);
      return sql.idsOnTier.all({ tier_id: tierId, after: afterId, limit });
    },
    async setSuspension(accountId, suspension) {
      const row = sql.setSuspension.get({
        account_id: accountId,
        at: suspension ? toMs(suspension.at) : null,
        by: suspension?.by ?? null,
        note: suspension?.note ?? null,
      });
      return row ? accountFromRow(row) : null;
    },
    async searchByName(fragment, limit) {
      requireLimit(limit);
      if (fragment === '') return [];
      return sql.byName.all({ fragment, limit }).map(accountFromRow);
    },
    async list(query) {
      return list(query);
    },
  };
}
