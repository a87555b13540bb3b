/**
 * The ledger check's worker thread (started by audit-runner.ts): it opens its own read-only
 * connection to the store's file, runs the check in one read transaction, posts progress as
 * it goes and the report at the end. WAL mode lets this reader hold its snapshot while the
 * core's connection keeps committing purchases.
 */
import { parentPort, workerData } from 'node:worker_threads';
import Database from 'better-sqlite3';
import { runLedgerAudit } from './audit.js';
import type { AuditThreadData, AuditThreadMessage } from './audit-runner.js';

/** A reader waits at most this long for a lock (only a checkpoint or a migration takes one it needs). */
const BUSY_TIMEOUT_MS = 5_000;

const data = workerData as AuditThreadData;
const post = (message: AuditThreadMessage) => parentPort!.postMessage(message);
const db = new Database(data.filename, { readonly: true, fileMustExist: true, timeout: BUSY_TIMEOUT_MS });
try {
  const audit = runLedgerAudit(db, {
    onProgress: (progress) => post({ type: 'progress', progress }),
    onSnapshot: () => {
      if (data.gate === undefined) return;
      // Only tests pass a gate: they hold the check inside its snapshot to write beside it.
      post({ type: 'snapshot' });
      Atomics.wait(new Int32Array(data.gate), 0, 0);
    },
  });
  post({ type: 'done', audit });
} finally {
  db.close();
}
