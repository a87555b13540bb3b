/**
 * The reconciliation's findings on SQLite (schema step 36): one row per day, upstream,
 * reference and class, the primary key, so a rerun of a day inserts nothing twice; a finding
 * resolved keeps who, why and the proposal that corrected it (step 37). Beside them what the
 * daily run stands on (step 37): the last day it finished per upstream (reconcile_days) and the
 * balances the float poller read (float_readings). Written in the group commit like every
 * other write; nothing here moves money.
 */
import type Database from 'better-sqlite3';
import { kobo } from '../../domain/money.js';
import type { FindingKey } from '../../domain/reconcile.js';
import type { ReconcileFindingRecord } from '../../domain/records.js';
import { READINGS_KEPT_DAYS, requireAmount, requireLimit } from '../bounds.js';
import type { ReconcileFindingStore } from '../port.js';
import type { GroupCommit } from './group-commit.js';
import { fromMs, toMs } from './rows.js';

interface FindingRow {
  day: string;
  upstream: string;
  reference: string;
  class: string;
  at_stake_kobo: number;
  our_cost_kobo: number | null;
  their_charged_kobo: number | null;
  outcome: string;
  their_status: string;
  their_charges: number | null;
  reason: string | null;
  evidence: string | null;
  found_at: number;
  resolved_at: number | null;
  resolved_by: string | null;
  resolution: string | null;
  corrected_by: string | null;
}

interface ReadingRow {
  at: number;
  balance_kobo: number;
}

function findingFromRow(row: FindingRow): ReconcileFindingRecord {
  return {
    day: row.day,
    upstream: row.upstream,
    reference: row.reference,
    class: row.class as ReconcileFindingRecord['class'],
    atStakeKobo: row.at_stake_kobo as ReconcileFindingRecord['atStakeKobo'],
    ourCostKobo: row.our_cost_kobo as ReconcileFindingRecord['ourCostKobo'],
    theirChargedKobo: row.their_charged_kobo as ReconcileFindingRecord['theirChargedKobo'],
    outcome: row.outcome as ReconcileFindingRecord['outcome'],
    theirStatus: row.their_status as ReconcileFindingRecord['theirStatus'],
    theirCharges: row.their_charges,
    reason: row.reason,
    evidence: row.evidence,
    foundAt: fromMs(row.found_at),
    ...(row.resolved_at === null
      ? {}
      : {
          resolution: {
            at: fromMs(row.resolved_at),
            by: row.resolved_by ?? '',
            note: row.resolution ?? '',
            correctedBy: row.corrected_by,
          },
        }),
  };
}

export function createFindingStore(db: Database.Database, commit: GroupCommit): ReconcileFindingStore {
  const insert = db.prepare<Omit<FindingRow, 'resolved_at' | 'resolved_by' | 'resolution' | 'corrected_by'>>(
    `INSERT INTO reconcile_findings (day, upstream, reference, class, at_stake_kobo, our_cost_kobo,
       their_charged_kobo, outcome, their_status, their_charges, reason, evidence, found_at)
     VALUES (@day, @upstream, @reference, @class, @at_stake_kobo, @our_cost_kobo, @their_charged_kobo, @outcome,
       @their_status, @their_charges, @reason, @evidence, @found_at)
     ON CONFLICT (day, upstream, reference, class) DO NOTHING`,
  );
  const open = db.prepare<[number], FindingRow>(
    `SELECT * FROM reconcile_findings WHERE resolved_at IS NULL ORDER BY day, upstream, reference LIMIT ?`,
  );
  const ofDay = db.prepare<[string], FindingRow>(
    'SELECT * FROM reconcile_findings WHERE day = ? ORDER BY upstream, reference, class',
  );
  const newest = db.prepare<{ open: number; limit: number }, FindingRow>(
    `SELECT * FROM reconcile_findings WHERE (@open = 0 OR resolved_at IS NULL)
     ORDER BY day DESC, upstream, reference, class LIMIT @limit`,
  );
  const one = db.prepare<FindingKey, FindingRow>(
    `SELECT * FROM reconcile_findings
     WHERE day = @day AND upstream = @upstream AND reference = @reference AND class = @class`,
  );
  const resolve = db.prepare<FindingKey & { at: number; by: string; note: string; corrected_by: string | null }>(
    `UPDATE reconcile_findings SET resolved_at = @at, resolved_by = @by, resolution = @note, corrected_by = @corrected_by
     WHERE day = @day AND upstream = @upstream AND reference = @reference AND class = @class AND resolved_at IS NULL`,
  );
  const lastDay = db.prepare<[string], { day: string }>('SELECT day FROM reconcile_days WHERE upstream = ?');
  const markDay = db.prepare<{ upstream: string; day: string; at: number }>(
    `INSERT INTO reconcile_days (upstream, day, at) VALUES (@upstream, @day, @at)
     ON CONFLICT (upstream) DO UPDATE SET day = excluded.day, at = excluded.at WHERE excluded.day > reconcile_days.day`,
  );
  const keepReading = db.prepare<{ upstream: string; at: number; balance_kobo: number }>(
    `INSERT INTO float_readings (upstream, at, balance_kobo) VALUES (@upstream, @at, @balance_kobo)
     ON CONFLICT (upstream, at) DO NOTHING`,
  );
  const forgetReadings = db.prepare<{ upstream: string; before: number }>(
    'DELETE FROM float_readings WHERE upstream = @upstream AND at < @before',
  );
  const readings = db.prepare<{ upstream: string; from: number; until: number; limit: number }, ReadingRow>(
    `SELECT at, balance_kobo FROM float_readings WHERE upstream = @upstream AND at >= @from AND at < @until
     ORDER BY at LIMIT @limit`,
  );
  return {
    async record(findings) {
      if (findings.length === 0) return 0;
      return commit.run(() => {
        let added = 0;
        for (const f of findings)
          added += insert.run({
            day: f.day,
            upstream: f.upstream,
            reference: f.reference,
            class: f.class,
            at_stake_kobo: f.atStakeKobo,
            our_cost_kobo: f.ourCostKobo,
            their_charged_kobo: f.theirChargedKobo,
            outcome: f.outcome,
            their_status: f.theirStatus,
            their_charges: f.theirCharges,
            reason: f.reason,
            evidence: f.evidence,
            found_at: toMs(f.foundAt),
          }).changes;
        return added;
      });
    },
    async listOpen(limit) {
      return open.all(limit).map(findingFromRow);
    },
    async list(openOnly, limit) {
      return newest.all({ open: openOnly ? 1 : 0, limit: requireLimit(limit) }).map(findingFromRow);
    },
    async resolve(key, resolution) {
      return commit.run(() => {
        const changed =
          resolve.run({
            ...key,
            at: toMs(resolution.at),
            by: resolution.by,
            note: resolution.note,
            corrected_by: resolution.correctedBy,
          }).changes === 1;
        const row = one.get(key);
        return row === undefined ? null : { finding: findingFromRow(row), changed };
      });
    },
    async lastDay(upstream) {
      return lastDay.get(upstream)?.day ?? null;
    },
    async markDay(upstream, day, at) {
      await commit.run(() => markDay.run({ upstream, day, at: toMs(at) }));
    },
    async keepReading(upstream, reading) {
      requireAmount('balance', reading.balanceKobo, Number.MIN_SAFE_INTEGER);
      await commit.run(() => {
        keepReading.run({ upstream, at: toMs(reading.at), balance_kobo: reading.balanceKobo });
        forgetReadings.run({ upstream, before: toMs(reading.at) - READINGS_KEPT_DAYS * 86_400_000 });
      });
    },
    async readingsBetween(upstream, from, until, limit) {
      return readings
        .all({ upstream, from: toMs(from), until: toMs(until), limit: requireLimit(limit) })
        .map((row) => ({ at: fromMs(row.at), balanceKobo: kobo(row.balance_kobo) }));
    },
    async listDay(day, upstream) {
      return ofDay
        .all(day)
        .filter((row) => upstream === undefined || row.upstream === upstream)
        .map(findingFromRow);
    },
  };
}
