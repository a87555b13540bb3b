/**
 * The backup's worker thread (started by backup-runner.ts): copies the store into the
 * backup's file and reads what a file holds, off the core's event loop (backup.ts). One
 * thread serves a whole backup, one request at a time, until it is told to stop.
 */
import { parentPort } from 'node:worker_threads';
import { copyStore, inspectStore } from './backup.js';
import type { BackupThreadMessage, BackupThreadRequest } from './backup-runner.js';

const port = parentPort!;
port.on('message', (request: BackupThreadRequest | null) => {
  if (request === null) {
    port.close();
    return;
  }
  let answer: BackupThreadMessage;
  try {
    if (request.source !== undefined) copyStore(request.source, request.file);
    answer = { type: 'done', facts: inspectStore(request.file) };
  } catch (error) {
    answer = { type: 'failed', message: error instanceof Error ? error.message : String(error) };
  }
  port.postMessage(answer);
});
