/**
 * Accounts on SQLite: the account rows and the balance column every money operation moves.
 * The balance statements are used by the wallet (wallet.ts) inside its transactions.
 */
import type Database from 'better-sqlite3';
import type { AccountStore } from '../port.js';
import { type AccountRow, accountFromRow, toMs } from './rows.js';

export function prepareAccountStatements(db: Database.Database) {
  return {
    insert: db.prepare<{ account_id: string; name: string; tier_id: string; created_at: number }, AccountRow>(
      `INSERT INTO accounts (account_id, name, tier_id, balance_kobo, created_at)
       VALUES (@account_id, @name, @tier_id, 0, @created_at) RETURNING *`,
    ),
    get: db.prepare<[string], AccountRow>('SELECT * FROM accounts WHERE account_id = ?'),
    setTier: db.prepare<{ account_id: string; tier_id: string }, AccountRow>(
      'UPDATE accounts SET tier_id = @tier_id WHERE account_id = @account_id RETURNING *',
    ),
    debitBalance: db.prepare<{ account_id: string; amount_kobo: number }, { balance_kobo: number }>(
      `UPDATE accounts SET balance_kobo = balance_kobo - @amount_kobo
       WHERE account_id = @account_id AND balance_kobo >= @amount_kobo RETURNING balance_kobo`,
    ),
    addToBalance: db.prepare<{ account_id: string; amount_kobo: number }, { balance_kobo: number }>(
      `UPDATE accounts SET balance_kobo = balance_kobo + @amount_kobo
       WHERE account_id = @account_id RETURNING balance_kobo`,
    ),
  };
}

export type AccountStatements = ReturnType<typeof prepareAccountStatements>;

export function createAccountStore(sql: AccountStatements): AccountStore {
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
    async setTier(accountId, tierId) {
      const row = sql.setTier.get({ account_id: accountId, tier_id: tierId });
      return row ? accountFromRow(row) : null;
    },
  };
}
