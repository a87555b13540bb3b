/** Requests for API access, on SQLite: one row per account. */
import type Database from 'better-sqlite3';
import type { UpgradeRequestRecord } from '../../domain/records.js';
import type { UpgradeStore } from '../port.js';
import { fromMs, toMs } from './rows.js';

interface UpgradeRow {
  account_id: string;
  status: UpgradeRequestRecord['status'];
  requested_by: string;
  note: string;
  created_at: number;
  decided_at: number | null;
  key_issued_at: number | null;
}

function fromRow(row: UpgradeRow): UpgradeRequestRecord {
  return {
    accountId: row.account_id,
    status: row.status,
    requestedBy: row.requested_by,
    note: row.note,
    createdAt: fromMs(row.created_at),
    decidedAt: row.decided_at === null ? null : fromMs(row.decided_at),
    keyIssuedAt: row.key_issued_at === null ? null : fromMs(row.key_issued_at),
  };
}

export function createUpgradeStore(db: Database.Database): UpgradeStore {
  const open = db.prepare<{ account_id: string; requested_by: string; note: string; at: number }, UpgradeRow>(
    `INSERT INTO upgrade_requests (account_id, status, requested_by, note, created_at)
       VALUES (@account_id, 'pending', @requested_by, @note, @at)
     ON CONFLICT (account_id) DO UPDATE SET status = 'pending', requested_by = excluded.requested_by,
       note = excluded.note,
       created_at = excluded.created_at, decided_at = NULL, key_issued_at = NULL
     WHERE upgrade_requests.status = 'refused'
     RETURNING *`,
  );
  const get = db.prepare<[string], UpgradeRow>('SELECT * FROM upgrade_requests WHERE account_id = ?');
  const pending = db.prepare<[number], UpgradeRow>(
    `SELECT * FROM upgrade_requests WHERE status = 'pending' ORDER BY created_at, account_id LIMIT ?`,
  );
  const decide = db.prepare<{ account_id: string; status: string; at: number }, UpgradeRow>(
    `UPDATE upgrade_requests SET status = @status, decided_at = @at
     WHERE account_id = @account_id AND status = 'pending' RETURNING *`,
  );
  const claim = db.prepare<{ account_id: string; at: number }>(
    `UPDATE upgrade_requests SET key_issued_at = @at
     WHERE account_id = @account_id AND status = 'approved' AND key_issued_at IS NULL`,
  );
  return {
    async open(request) {
      const row = open.get({
        account_id: request.accountId,
        requested_by: request.requestedBy,
        note: request.note,
        at: toMs(request.at),
      });
      const found = row ?? get.get(request.accountId);
      if (found === undefined) throw new Error(`store: upgrade request of ${request.accountId} vanished`);
      return fromRow(found);
    },
    async get(accountId) {
      const row = get.get(accountId);
      return row === undefined ? null : fromRow(row);
    },
    async listPending(limit) {
      return pending.all(limit).map(fromRow);
    },
    async decide(accountId, status, at) {
      const row = decide.get({ account_id: accountId, status, at: toMs(at) });
      return row === undefined ? null : fromRow(row);
    },
    async claimFirstKey(accountId, at) {
      return claim.run({ account_id: accountId, at: toMs(at) }).changes === 1;
    },
  };
}
