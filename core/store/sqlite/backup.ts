/**
 * The embedded store's copy and what a copy holds, for backups (core/storage/backup.ts) and
 * their checks (core/storage/backup-files.ts). The copy is `VACUUM INTO` on a read-only
 * connection of its own: one read transaction, so the copy is the snapshot that transaction
 * saw (every write committed before it began, none of those after, and never half of one),
 * taken while the core's connection keeps committing in WAL mode. Never a copy of the file
 * itself, which a writer may be changing underneath. https://www.sqlite.org/lang_vacuum.html
 *
 * Both run on a worker thread when the core takes a backup (backup-thread.ts): a large file
 * takes seconds to copy and check, and on the core's thread every purchase would wait.
 */
import { existsSync } from 'node:fs';
import Database from 'better-sqlite3';
import type { LedgerAudit } from '../../domain/audit.js';
import { runLedgerAudit } from './audit.js';

/** A reader waits at most this long for a lock (only a checkpoint or a migration takes one it needs). */
const BUSY_TIMEOUT_MS = 5_000;

/** What a copy of the store holds, as its manifest records it and a verify compares. */
export interface StoreFacts {
  /** PRAGMA user_version: how many schema steps the file has had. */
  schemaVersion: number;
  /** Rows of every table, by name. */
  rows: Record<string, number>;
  /** The newest ledger entry's id and the newest event's sequence number; 0 when there is none. */
  lastLedgerEntryId: number;
  lastEventSeq: number;
  /** PRAGMA integrity_check's answer: 'ok', or what it found. */
  integrity: string;
  /** The ledger check on the copy (core/store/sqlite/audit.ts). */
  ledger: Pick<
    LedgerAudit,
    'accountsChecked' | 'transactionsChecked' | 'entriesChecked' | 'pendingCount' | 'violationCount'
  >;
}

/** Copies the store at `source` into `dest` (which must not exist) as one consistent snapshot. */
export function copyStore(source: string, dest: string): void {
  if (existsSync(dest)) throw new Error(`backup: ${dest} exists already`);
  const db = new Database(source, { readonly: true, fileMustExist: true, timeout: BUSY_TIMEOUT_MS });
  try {
    db.prepare('VACUUM INTO ?').run(dest);
  } finally {
    db.close();
  }
}

/** Reads what `file` holds, opened read-only: integrity, rows, last ids, the ledger check. */
export function inspectStore(file: string): StoreFacts {
  const db = new Database(file, { readonly: true, fileMustExist: true, timeout: BUSY_TIMEOUT_MS });
  try {
    // The first few problems are enough to say the copy is bad; all of them could be millions.
    const integrity = (db.pragma('integrity_check(20)') as { integrity_check: string }[])
      .map((row) => row.integrity_check)
      .join('; ');
    const tables = db
      .prepare<[], { name: string }>(
        "SELECT name FROM sqlite_schema WHERE type = 'table' AND name NOT LIKE 'sqlite_%' ORDER BY name",
      )
      .all();
    const rows: Record<string, number> = {};
    for (const { name } of tables) {
      rows[name] = db.prepare<[], { n: number }>(`SELECT COUNT(*) AS n FROM "${name.replaceAll('"', '""')}"`).get()!.n;
    }
    const max = (sql: string) => db.prepare<[], { n: number | null }>(sql).get()?.n ?? 0;
    const audit = runLedgerAudit(db);
    return {
      schemaVersion: db.pragma('user_version', { simple: true }) as number,
      rows,
      lastLedgerEntryId: 'ledger_entries' in rows ? max('SELECT MAX(entry_id) AS n FROM ledger_entries') : 0,
      lastEventSeq: 'events' in rows ? max('SELECT MAX(seq) AS n FROM events') : 0,
      integrity,
      ledger: {
        accountsChecked: audit.accountsChecked,
        transactionsChecked: audit.transactionsChecked,
        entriesChecked: audit.entriesChecked,
        pendingCount: audit.pendingCount,
        violationCount: audit.violationCount,
      },
    };
  } finally {
    db.close();
  }
}
