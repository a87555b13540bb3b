/**
 * The embedded store's copy and what a copy holds, for backups (core/storage/backup.ts) and
 * their checks (core/storage/backup-files.ts).
 *
 * The copy is SQLite's online backup API (https://www.sqlite.org/backup.html), a few pages a
 * step with a pause between steps, on a read-only connection of its own that holds ONE read
 * transaction from the first step to the last. That transaction is what makes it a snapshot
 * while the core's connection keeps committing in WAL mode: every write committed before it
 * began is in the copy, none of those after, never half of one. It is also what lets a paced
 * copy finish at all: a backup step that begins a read of its own sees the core's newest
 * writes and starts the copy again from page 1 (the backup API restarts whenever another
 * connection wrote the source), and the core writes all the time; inside one read the
 * source never changes under the copy. Never a copy of the file itself, which a writer may
 * be changing underneath.
 *
 * The pause is what the purchases get: `VACUUM INTO` (the copy before this one) rebuilt the
 * whole file in one statement and took a core and the disk until it was done.
 *
 * Both run on a worker thread when the core takes a backup (backup-thread.ts): a large file
 * takes seconds to copy and check, and on the core's thread every purchase would wait.
 */
import { createHash } from 'node:crypto';
import { createReadStream, existsSync } from 'node:fs';
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

/** How fast a copy goes: pages a step, and the pause after each step in which the core has the disk and the CPU. */
export interface CopyPace {
  pagesPerStep: number;
  pauseMs: number;
}

/**
 * The pace of a backup's copy: 4 MiB a step at SQLite's default 4 KiB page, then 10 ms
 * off, so never more than 400 MB a second. A 320 MB store is 78 steps: about 0.6 s of CPU
 * and 0.8 s of pauses (docs/performance.md, airtime during a backup).
 */
const COPY_PACE: CopyPace = { pagesPerStep: 1_024, pauseMs: 10 };

/** Sleeps the calling thread (the backup's worker) without spinning: better-sqlite3 calls the step hook synchronously. */
const pauseCell = new Int32Array(new SharedArrayBuffer(4));
function pause(ms: number): void {
  if (ms > 0) Atomics.wait(pauseCell, 0, 0, ms);
}

/**
 * Copies the store at `source` into `dest` (which must not exist) as one consistent snapshot,
 * `pace` at a time (above). `afterStep` is called after each step but the last, with the pages
 * copied so far and the source's size in pages.
 */
export async function copyStore(
  source: string,
  dest: string,
  pace: CopyPace = COPY_PACE,
  afterStep?: (copiedPages: number, totalPages: number) => void,
): Promise<void> {
  if (existsSync(dest)) throw new Error(`backup: ${dest} exists already`);
  // better-sqlite3 reads 0 pages a step as "copy none this step": the copy would never end.
  if (!Number.isInteger(pace.pagesPerStep) || pace.pagesPerStep < 1)
    throw new Error(`backup: ${pace.pagesPerStep} pages a step is no pace`);
  const db = new Database(source, { readonly: true, fileMustExist: true, timeout: BUSY_TIMEOUT_MS });
  try {
    // The read begins at the first statement that reads, not at BEGIN; the backup's steps run inside it.
    db.prepare('BEGIN').run();
    db.prepare('SELECT COUNT(*) FROM sqlite_schema').get();
    await db.backup(dest, {
      progress: ({ totalPages, remainingPages }) => {
        afterStep?.(totalPages - remainingPages, totalPages);
        pause(pace.pauseMs);
        return pace.pagesPerStep;
      },
    });
    db.prepare('COMMIT').run();
  } finally {
    db.close();
  }
  // The pages carry the source's WAL mode; a backup is one file, so the copy goes back to a rollback journal.
  const copy = new Database(dest, { fileMustExist: true });
  try {
    copy.pragma('journal_mode = DELETE');
  } finally {
    copy.close();
  }
}

/** The file's SHA-256, read in chunks: a large store is hashed without holding an event loop. */
export async function sha256Of(file: string): Promise<string> {
  const hash = createHash('sha256');
  for await (const chunk of createReadStream(file)) hash.update(chunk as Buffer);
  return hash.digest('hex');
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
