/** The audit log on SQLite: one row per staff action or admin call, never updated or deleted. */
import type Database from 'better-sqlite3';
import type { AuditEntryRecord } from '../../domain/records.js';
import { auditEntryId } from '../audit-ids.js';
import type { AuditLogStore } from '../port.js';
import { fromMs, toMs } from './rows.js';

interface AuditRow {
  entry_id: string;
  at: number;
  actor: string;
  action: string;
  target: string;
  before_json: string | null;
  after_json: string | null;
  address: string | null;
  note: string;
}

function fromRow(row: AuditRow): AuditEntryRecord {
  return {
    id: row.entry_id,
    at: fromMs(row.at),
    actor: row.actor,
    action: row.action,
    target: row.target,
    before: row.before_json,
    after: row.after_json,
    address: row.address,
    note: row.note,
  };
}

/**
 * Appends one row, synchronously: inside the caller's transaction when there is one (a key's
 * freeze writes its row with the freeze).
 */
export function auditAppender(db: Database.Database): (entry: Omit<AuditEntryRecord, 'id'>) => AuditEntryRecord {
  const insert = db.prepare<AuditRow>(
    `INSERT INTO audit_log (entry_id, at, actor, action, target, before_json, after_json, address, note)
     VALUES (@entry_id, @at, @actor, @action, @target, @before_json, @after_json, @address, @note)`,
  );
  return (entry) => {
    const row: AuditRow = {
      entry_id: auditEntryId(entry.at),
      at: toMs(entry.at),
      actor: entry.actor,
      action: entry.action,
      target: entry.target,
      before_json: entry.before,
      after_json: entry.after,
      address: entry.address,
      note: entry.note,
    };
    insert.run(row);
    return fromRow(row);
  };
}

export function createAuditLogStore(db: Database.Database): AuditLogStore {
  const append = auditAppender(db);
  return {
    async append(entry) {
      return append(entry);
    },
    async list(filter) {
      const where: string[] = [];
      const params: Record<string, string | number> = { limit: filter.limit };
      if (filter.actor !== undefined) {
        where.push('actor = @actor');
        params.actor = filter.actor;
      }
      if (filter.action !== undefined) {
        // "wallet." is an area: every action that starts with it.
        if (filter.action.endsWith('.')) {
          where.push('substr(action, 1, length(@action)) = @action');
        } else where.push('action = @action');
        params.action = filter.action;
      }
      if (filter.target !== undefined) {
        where.push('target = @target');
        params.target = filter.target;
      }
      if (filter.beforeId !== undefined) {
        where.push('entry_id < @before_id');
        params.before_id = filter.beforeId;
      }
      const sql = `SELECT * FROM audit_log ${where.length > 0 ? `WHERE ${where.join(' AND ')}` : ''}
        ORDER BY entry_id DESC LIMIT @limit`;
      return db.prepare<Record<string, string | number>, AuditRow>(sql).all(params).map(fromRow);
    },
  };
}
