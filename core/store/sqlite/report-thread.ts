/**
 * A report's worker thread (started by reports.ts): its own read-only connection to the
 * store's file, one grouped query, the rows posted back, the connection closed.
 */
import { parentPort, workerData } from 'node:worker_threads';
import Database from 'better-sqlite3';
import { fundingOn, type ReportThreadData, salesOn } from './reports.js';

/** A reader waits at most this long for a lock (only a checkpoint or a migration takes one it needs). */
const BUSY_TIMEOUT_MS = 5_000;

const data = workerData as ReportThreadData;
const db = new Database(data.filename, { readonly: true, fileMustExist: true, timeout: BUSY_TIMEOUT_MS });
try {
  parentPort!.postMessage(data.kind === 'sales' ? salesOn(db, data.window, data.group) : fundingOn(db, data.window));
} finally {
  db.close();
}
