/** Each declared upstream's code for our data plans on SQLite. */
import type Database from 'better-sqlite3';
import type { PlanCodeRecord } from '../../domain/records.js';
import type { PlanCodeStore } from '../port.js';
import { fromMs, toMs } from './rows.js';

interface PlanCodeRow {
  plan_id: number;
  upstream: string;
  code: string;
  updated_at: number;
}

function fromRow(row: PlanCodeRow): PlanCodeRecord {
  return { planId: row.plan_id, upstream: row.upstream, code: row.code, updatedAt: fromMs(row.updated_at) };
}

export function createPlanCodeStore(db: Database.Database): PlanCodeStore {
  const listAll = db.prepare<[], PlanCodeRow>('SELECT * FROM plan_codes ORDER BY upstream, plan_id');
  const listOf = db.prepare<[string], PlanCodeRow>('SELECT * FROM plan_codes WHERE upstream = ? ORDER BY plan_id');
  const get = db.prepare<[number, string], PlanCodeRow>('SELECT * FROM plan_codes WHERE plan_id = ? AND upstream = ?');
  const put = db.prepare<PlanCodeRow>(
    `INSERT INTO plan_codes (plan_id, upstream, code, updated_at) VALUES (@plan_id, @upstream, @code, @updated_at)
     ON CONFLICT (upstream, plan_id) DO UPDATE SET code = excluded.code, updated_at = excluded.updated_at`,
  );
  const remove = db.prepare<[number, string]>('DELETE FROM plan_codes WHERE plan_id = ? AND upstream = ?');
  return {
    async list(filter) {
      const rows = filter.upstream === undefined ? listAll.all() : listOf.all(filter.upstream);
      return rows.map(fromRow);
    },
    async set(record) {
      return db
        .transaction(() => {
          const before = get.get(record.planId, record.upstream);
          put.run({
            plan_id: record.planId,
            upstream: record.upstream,
            code: record.code,
            updated_at: toMs(record.updatedAt),
          });
          return before === undefined ? null : fromRow(before);
        })
        .immediate();
    },
    async clear(planId, upstream) {
      return db
        .transaction(() => {
          const before = get.get(planId, upstream);
          if (before === undefined) return null;
          remove.run(planId, upstream);
          return fromRow(before);
        })
        .immediate();
    },
  };
}
