/**
 * What key pairs do, kept in the background, on SQLite: when each last authenticated a request
 * (one row per key that has), and what the velocity brake counted of each per Lagos day.
 */
import type Database from 'better-sqlite3';
import { kobo } from '../../domain/money.js';
import type { KeyUseStore } from '../port.js';
import type { GroupCommit } from './group-commit.js';
import { fromMs, toMs } from './rows.js';

/** Keys per lookup statement (SQLite allows 32766 parameters); a page of keys is far fewer. */
const CHUNK = 500;

export function createKeyUseStore(db: Database.Database, commit: GroupCommit): KeyUseStore {
  const record = db.prepare<{ public_key: string; at: number }>(
    `INSERT INTO api_key_use (public_key, last_used_at) VALUES (@public_key, @at)
     ON CONFLICT (public_key) DO UPDATE SET last_used_at = MAX(last_used_at, excluded.last_used_at)`,
  );
  const lookups = new Map<number, Database.Statement<string[], { public_key: string; last_used_at: number }>>();
  const lookup = (size: number) => {
    let statement = lookups.get(size);
    if (statement === undefined) {
      statement = db.prepare(
        `SELECT public_key, last_used_at FROM api_key_use WHERE public_key IN (${Array(size).fill('?').join(', ')})`,
      );
      lookups.set(size, statement);
    }
    return statement;
  };
  const velocity = prepareVelocityStatements(db);
  return {
    async recordVelocity(days) {
      if (days.length === 0) return;
      const rows = days.map((d) => ({
        public_key: d.publicKey,
        day: d.day,
        add_kobo: d.addKobo,
        peak: d.peakNewRecipients,
      }));
      await commit.run(() => {
        for (const row of rows) velocity.add.run(row);
      });
    },
    async velocityDays(publicKey, fromDay, toDay) {
      return velocity.days.all(publicKey, fromDay, toDay).map((row) => ({
        day: row.day,
        spentKobo: kobo(row.spent_kobo),
        peakNewRecipients: row.peak_new_recipients,
      }));
    },
    async recordUses(uses) {
      if (uses.size === 0) return;
      const rows = [...uses].map(([publicKey, at]) => ({ public_key: publicKey, at: toMs(at) }));
      // One operation of the shared commit: under load it rides on a money batch's fsync
      // instead of paying one of its own.
      await commit.run(() => {
        for (const row of rows) record.run(row);
      });
    },
    async lastUses(publicKeys) {
      const found = new Map<string, Date>();
      for (let i = 0; i < publicKeys.length; i += CHUNK) {
        const chunk = publicKeys.slice(i, i + CHUNK);
        for (const row of lookup(chunk.length).all(...chunk)) found.set(row.public_key, fromMs(row.last_used_at));
      }
      return found;
    },
  };
}

function prepareVelocityStatements(db: Database.Database) {
  return {
    add: db.prepare<{ public_key: string; day: number; add_kobo: number; peak: number }>(
      `INSERT INTO key_velocity_days (public_key, day, spent_kobo, peak_new_recipients)
       VALUES (@public_key, @day, @add_kobo, @peak)
       ON CONFLICT (public_key, day) DO UPDATE SET
         spent_kobo = spent_kobo + excluded.spent_kobo,
         peak_new_recipients = MAX(peak_new_recipients, excluded.peak_new_recipients)`,
    ),
    days: db.prepare<[string, number, number], { day: number; spent_kobo: number; peak_new_recipients: number }>(
      `SELECT day, spent_kobo, peak_new_recipients FROM key_velocity_days
       WHERE public_key = ? AND day >= ? AND day < ? ORDER BY day`,
    ),
  };
}
