/** Compatible tokens and plan aliases on SQLite (docs/compat.md); nothing here moves money. */
import type Database from 'better-sqlite3';
import type { Dialect, InFlightWord } from '../../domain/compat.js';
import type { Mode } from '../../domain/mode.js';
import type { CompatCallbackRecord, CompatTokenRecord, PlanAliasRecord } from '../../domain/records.js';
import type { CompatStore } from '../port.js';
import { fromMs, toMs } from './rows.js';

interface TokenRow {
  token_id: string;
  token_hash: string;
  last_four: string;
  dialect: string;
  in_flight: string;
  public_key: string;
  account_id: string;
  mode: string;
  created_at: number;
  revoked_at: number | null;
}

interface AliasRow {
  account_id: string;
  dialect: string;
  alias_id: string;
  plan_id: number;
  updated_at: number;
}

function tokenOf(row: TokenRow): CompatTokenRecord {
  const record: CompatTokenRecord = {
    tokenId: row.token_id,
    tokenHash: row.token_hash,
    lastFour: row.last_four,
    dialect: row.dialect as Dialect,
    inFlight: row.in_flight as InFlightWord,
    publicKey: row.public_key,
    accountId: row.account_id,
    mode: row.mode as Mode,
    createdAt: fromMs(row.created_at),
  };
  if (row.revoked_at !== null) record.revokedAt = fromMs(row.revoked_at);
  return record;
}

interface CallbackRow {
  account_id: string;
  dialect: string;
  url: string;
  updated_at: number;
}

function callbackOf(row: CallbackRow): CompatCallbackRecord {
  return {
    accountId: row.account_id,
    dialect: row.dialect as Dialect,
    url: row.url,
    updatedAt: fromMs(row.updated_at),
  };
}

function aliasOf(row: AliasRow): PlanAliasRecord {
  return {
    accountId: row.account_id,
    dialect: row.dialect as Dialect,
    aliasId: row.alias_id,
    planId: row.plan_id,
    updatedAt: fromMs(row.updated_at),
  };
}

/** Each account's callback per dialect (step 40). */
function callbackStore(db: Database.Database): Pick<CompatStore, 'setCallback' | 'clearCallback' | 'getCallback'> {
  const getCallback = db.prepare<[string, string], CallbackRow>(
    'SELECT * FROM compat_callbacks WHERE account_id = ? AND dialect = ?',
  );
  const putCallback = db.prepare<CallbackRow>(
    `INSERT INTO compat_callbacks (account_id, dialect, url, updated_at) VALUES (@account_id, @dialect, @url, @updated_at)
     ON CONFLICT (account_id, dialect) DO UPDATE SET url = excluded.url, updated_at = excluded.updated_at`,
  );
  const removeCallback = db.prepare<[string, string]>(
    'DELETE FROM compat_callbacks WHERE account_id = ? AND dialect = ?',
  );
  return {
    async setCallback(record) {
      return db
        .transaction(() => {
          const before = getCallback.get(record.accountId, record.dialect);
          putCallback.run({
            account_id: record.accountId,
            dialect: record.dialect,
            url: record.url,
            updated_at: toMs(record.updatedAt),
          });
          return before === undefined ? null : callbackOf(before);
        })
        .immediate();
    },
    async clearCallback(accountId, dialect) {
      return db
        .transaction(() => {
          const before = getCallback.get(accountId, dialect);
          removeCallback.run(accountId, dialect);
          return before === undefined ? null : callbackOf(before);
        })
        .immediate();
    },
    async getCallback(accountId, dialect) {
      const row = getCallback.get(accountId, dialect);
      return row === undefined ? null : callbackOf(row);
    },
  };
}

export function createCompatStore(db: Database.Database): CompatStore {
  const insert = db.prepare<TokenRow>(
    `INSERT INTO compat_tokens (token_id, token_hash, last_four, dialect, in_flight, public_key, account_id, mode,
       created_at, revoked_at)
     VALUES (@token_id, @token_hash, @last_four, @dialect, @in_flight, @public_key, @account_id, @mode, @created_at,
       @revoked_at)`,
  );
  const byHash = db.prepare<[string], TokenRow>('SELECT * FROM compat_tokens WHERE token_hash = ?');
  const byId = db.prepare<[string], TokenRow>('SELECT * FROM compat_tokens WHERE token_id = ?');
  const ofAccount = db.prepare<[string], TokenRow>(
    'SELECT * FROM compat_tokens WHERE account_id = ? ORDER BY created_at DESC, token_id DESC',
  );
  const revoke = db.prepare<[number, string]>(
    'UPDATE compat_tokens SET revoked_at = ? WHERE token_id = ? AND revoked_at IS NULL',
  );
  const getAlias = db.prepare<[string, string, string], AliasRow>(
    'SELECT * FROM plan_aliases WHERE account_id = ? AND dialect = ? AND alias_id = ?',
  );
  const putAlias = db.prepare<AliasRow>(
    `INSERT INTO plan_aliases (account_id, dialect, alias_id, plan_id, updated_at)
     VALUES (@account_id, @dialect, @alias_id, @plan_id, @updated_at)
     ON CONFLICT (account_id, dialect, alias_id) DO UPDATE SET plan_id = excluded.plan_id,
       updated_at = excluded.updated_at`,
  );
  const removeOne = db.prepare<[string, string, string]>(
    'DELETE FROM plan_aliases WHERE account_id = ? AND dialect = ? AND alias_id = ?',
  );
  const removeAll = db.prepare<[string, string]>('DELETE FROM plan_aliases WHERE account_id = ? AND dialect = ?');
  const aliasesOf = db.prepare<[string], AliasRow>(
    'SELECT * FROM plan_aliases WHERE account_id = ? ORDER BY dialect, alias_id',
  );
  const aliasesIn = db.prepare<[string, string], AliasRow>(
    'SELECT * FROM plan_aliases WHERE account_id = ? AND dialect = ? ORDER BY alias_id',
  );
  return {
    ...callbackStore(db),
    async insertToken(record) {
      insert.run({
        token_id: record.tokenId,
        token_hash: record.tokenHash,
        last_four: record.lastFour,
        dialect: record.dialect,
        in_flight: record.inFlight,
        public_key: record.publicKey,
        account_id: record.accountId,
        mode: record.mode,
        created_at: toMs(record.createdAt),
        revoked_at: record.revokedAt === undefined ? null : toMs(record.revokedAt),
      });
    },
    async findToken(tokenHash) {
      const row = byHash.get(tokenHash);
      return row === undefined ? null : tokenOf(row);
    },
    async getToken(tokenId) {
      const row = byId.get(tokenId);
      return row === undefined ? null : tokenOf(row);
    },
    async listTokens(accountId) {
      return ofAccount.all(accountId).map(tokenOf);
    },
    async revokeToken(tokenId, at) {
      return db
        .transaction(() => {
          if (revoke.run(toMs(at), tokenId).changes === 0) return null;
          return tokenOf(byId.get(tokenId)!);
        })
        .immediate();
    },
    async setAlias(record) {
      return db
        .transaction(() => {
          const before = getAlias.get(record.accountId, record.dialect, record.aliasId);
          putAlias.run({
            account_id: record.accountId,
            dialect: record.dialect,
            alias_id: record.aliasId,
            plan_id: record.planId,
            updated_at: toMs(record.updatedAt),
          });
          return before === undefined ? null : aliasOf(before);
        })
        .immediate();
    },
    async clearAliases(accountId, dialect, aliasId) {
      const done =
        aliasId === undefined ? removeAll.run(accountId, dialect) : removeOne.run(accountId, dialect, aliasId);
      return done.changes;
    },
    async listAliases(accountId, dialect) {
      const rows = dialect === undefined ? aliasesOf.all(accountId) : aliasesIn.all(accountId, dialect);
      return rows.map(aliasOf);
    },
  };
}
