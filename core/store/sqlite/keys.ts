/** API keys on SQLite: one row per key pair, the secret only as its hash. */
import type Database from 'better-sqlite3';
import { kobo } from '../../domain/money.js';
import type { ApiKeyRecord } from '../../domain/records.js';
import { requireLimit } from '../bounds.js';
import { type FreezeChange, freezeApplies, freezeRecords } from '../key-freezes.js';
import type { KeyFreezeActor, KeyFreezeChange, KeyStore } from '../port.js';
import { auditAppender } from './audit-log.js';
import { type EventStatements, recordEvent } from './events.js';
import type { GroupCommit } from './group-commit.js';
import { type ApiKeyRow, apiKeyFromRow, toFlag, toMs } from './rows.js';

function prepareKeyStatements(db: Database.Database) {
  return {
    insert: db.prepare<ApiKeyRow>(
      `INSERT INTO api_keys
         (public_key, account_id, secret_hash, allowed_ips, revoked, mode, created_at, controls, expires_at, frozen)
       VALUES
         (@public_key, @account_id, @secret_hash, @allowed_ips, @revoked, @mode, @created_at, @controls, @expires_at,
          @frozen)`,
    ),
    get: db.prepare<[string], ApiKeyRow>('SELECT * FROM api_keys WHERE public_key = ?'),
    // A range on the primary key, not LIKE: no wildcard in the prefix can widen it.
    byPrefix: db.prepare<[string, string, number], ApiKeyRow>(
      'SELECT * FROM api_keys WHERE public_key >= ? AND public_key < ? ORDER BY public_key LIMIT ?',
    ),
    list: db.prepare<[string], ApiKeyRow>(
      'SELECT * FROM api_keys WHERE account_id = ? ORDER BY created_at DESC, public_key DESC',
    ),
    revoke: db.prepare<[string], ApiKeyRow>('UPDATE api_keys SET revoked = 1 WHERE public_key = ? RETURNING *'),
    setIps: db.prepare<{ public_key: string; allowed_ips: string }, ApiKeyRow>(
      'UPDATE api_keys SET allowed_ips = @allowed_ips WHERE public_key = @public_key RETURNING *',
    ),
    expire: db.prepare<{ public_key: string; expires_at: number }, ApiKeyRow>(
      `UPDATE api_keys SET expires_at = MIN(COALESCE(expires_at, @expires_at), @expires_at)
       WHERE public_key = @public_key RETURNING *`,
    ),
    setControls: db.prepare<{ public_key: string; controls: string | null }, ApiKeyRow>(
      'UPDATE api_keys SET controls = @controls WHERE public_key = @public_key RETURNING *',
    ),
    setFrozen: db.prepare<{ public_key: string; frozen: string | null }, ApiKeyRow>(
      'UPDATE api_keys SET frozen = @frozen WHERE public_key = @public_key RETURNING *',
    ),
    // Served by the partial index api_keys_frozen; a handful of rows, sorted by their time.
    listFrozen: db.prepare<[number], ApiKeyRow>(
      `SELECT * FROM api_keys WHERE frozen IS NOT NULL
       ORDER BY json_extract(frozen, '$.at'), public_key LIMIT ?`,
    ),
    spentOn: db.prepare<[string, number], { public_key: string; spent_kobo: number }>(
      `SELECT public_key, spent_kobo FROM key_day_spend
       WHERE public_key IN (SELECT value FROM json_each(?)) AND day = ?`,
    ),
  };
}

export function createKeyStore(db: Database.Database, commit: GroupCommit, events: EventStatements): KeyStore {
  const sql = prepareKeyStatements(db);
  const appendAudit = auditAppender(db);
  // The freeze, its event and its audit row are one transaction of the shared commit.
  const change = (publicKey: string, asked: FreezeChange, who: KeyFreezeActor): Promise<KeyFreezeChange | null> =>
    commit.run(() => {
      const row = sql.get.get(publicKey);
      if (row === undefined) return null;
      const before = apiKeyFromRow(row);
      if (!freezeApplies(before, asked)) return { key: before, changed: false };
      const { event, audit } = freezeRecords(before, asked, who);
      const frozen =
        asked.kind === 'freeze'
          ? JSON.stringify({ at: toMs(asked.freeze.at), reason: asked.freeze.reason, by: asked.freeze.by })
          : null;
      const updated = sql.setFrozen.get({ public_key: publicKey, frozen })!;
      recordEvent(events, event);
      appendAudit(audit);
      return { key: apiKeyFromRow(updated), changed: true };
    });
  const insertRow = (key: ApiKeyRecord) =>
    sql.insert.run({
      public_key: key.publicKey,
      account_id: key.accountId,
      secret_hash: key.secretHash,
      allowed_ips: JSON.stringify(key.allowedIps),
      revoked: toFlag(key.revoked),
      mode: key.mode,
      created_at: toMs(key.createdAt),
      controls: key.controls === undefined ? null : JSON.stringify(key.controls),
      expires_at: key.expiresAt === undefined ? null : toMs(key.expiresAt),
      frozen:
        key.frozen === undefined
          ? null
          : JSON.stringify({ at: toMs(key.frozen.at), reason: key.frozen.reason, by: key.frozen.by }),
    });
  return {
    async insert(key) {
      insertRow(key);
    },
    async roll(publicKey, next, oldExpiresAt) {
      // The new pair and the old one's end are one write: never two working pairs without an end.
      return commit.run(() => {
        const old = sql.expire.get({ public_key: publicKey, expires_at: toMs(oldExpiresAt) });
        if (old === undefined) return null;
        insertRow(next);
        return apiKeyFromRow(old);
      });
    },
    async find(publicKey) {
      const row = sql.get.get(publicKey);
      return row ? apiKeyFromRow(row) : null;
    },
    async findByPrefix(prefix, limit) {
      requireLimit(limit);
      if (prefix === '') return [];
      return sql.byPrefix.all(prefix, `${prefix}\uffff`, limit).map(apiKeyFromRow);
    },
    async listByAccount(accountId) {
      return sql.list.all(accountId).map(apiKeyFromRow);
    },
    async revoke(publicKey) {
      const row = sql.revoke.get(publicKey);
      return row ? apiKeyFromRow(row) : null;
    },
    async setAllowedIps(publicKey, ips) {
      const row = sql.setIps.get({ public_key: publicKey, allowed_ips: JSON.stringify(ips) });
      return row ? apiKeyFromRow(row) : null;
    },
    async setControls(publicKey, controls) {
      const row = sql.setControls.get({
        public_key: publicKey,
        controls: controls === null ? null : JSON.stringify(controls),
      });
      return row ? apiKeyFromRow(row) : null;
    },
    freeze: (publicKey, freeze, who) => change(publicKey, { kind: 'freeze', freeze }, who),
    unfreeze: (publicKey, unfreeze, who) => change(publicKey, { kind: 'unfreeze', unfreeze }, who),
    async listFrozen(limit) {
      requireLimit(limit);
      return sql.listFrozen.all(limit).map(apiKeyFromRow);
    },
    async spentOn(publicKeys, day) {
      if (publicKeys.length === 0) return new Map();
      const rows = sql.spentOn.all(JSON.stringify(publicKeys), day);
      return new Map(rows.map((r) => [r.public_key, kobo(r.spent_kobo)]));
    },
  };
}
