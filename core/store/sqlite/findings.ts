/**
 * The reconciliation's findings on SQLite (schema step 36): one row per day, upstream,
 * reference and class, the primary key, so a rerun of a day inserts nothing twice. Written in
 * the group commit like every other write; nothing here moves money.
 */
import type Database from 'better-sqlite3';
import type { ReconcileFindingRecord } from '../../domain/records.js';
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
  };
}

export function createFindingStore(db: Database.Database, commit: GroupCommit): ReconcileFindingStore {
  const insert = db.prepare<Omit<FindingRow, 'resolved_at'>>(
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
    async listDay(day, upstream) {
      return ofDay
        .all(day)
        .filter((row) => upstream === undefined || row.upstream === upstream)
        .map(findingFromRow);
    },
  };
}
