/**
 * The backup's worker thread (started by backup-runner.ts): copies the store into the
 * backup's file, reads what a file holds and hashes files, off the core's event loop
 * (backup.ts). One thread serves a whole backup, one request at a time, until it is told to
 * stop. It runs at the lowest CPU priority the system gives a thread (on Linux, where a
 * thread's nice value is its own): a backup takes the cores only while the purchases leave
 * them idle, and takes longer when they do not.
 */
import { readlinkSync } from 'node:fs';
import { setPriority } from 'node:os';
import { parentPort } from 'node:worker_threads';
import { copyStore, inspectStore, sha256Of } from './backup.js';
import type { BackupThreadMessage, BackupThreadRequest } from './backup-runner.js';

/** The highest nice value: the scheduler gives this thread what the others leave. */
const LOWEST_PRIORITY = 19;

/**
 * This thread's id from /proc/thread-self, and its nice value raised to LOWEST_PRIORITY
 * (os.setPriority takes a thread id there: Linux keeps the value per thread). Elsewhere the
 * thread keeps the core's priority.
 */
function yieldToTheCore(): void {
  let tid: number;
  try {
    tid = Number(lastPart(readlinkSync('/proc/thread-self')));
  } catch {
    return;
  }
  if (Number.isInteger(tid) && tid > 0) setPriority(tid, LOWEST_PRIORITY);
}

function lastPart(link: string): string {
  return link.slice(link.lastIndexOf('/') + 1);
}

async function answer(request: BackupThreadRequest): Promise<BackupThreadMessage> {
  try {
    if (request.type === 'hash') return { type: 'hashed', sha256: await sha256Of(request.file) };
    const started = performance.now();
    if (request.source !== undefined) await copyStore(request.source, request.file, request.pace);
    const copied = performance.now();
    const facts = inspectStore(request.file);
    return {
      type: 'done',
      facts,
      copyMs: Math.round(copied - started),
      checkMs: Math.round(performance.now() - copied),
    };
  } catch (error) {
    return { type: 'failed', message: error instanceof Error ? error.message : String(error) };
  }
}

const port = parentPort!;
yieldToTheCore();
// One request at a time, in the order they came: the runner matches answers to requests by order.
let queue = Promise.resolve();
port.on('message', (request: BackupThreadRequest | null) => {
  if (request === null) {
    port.close();
    return;
  }
  queue = queue.then(async () => port.postMessage(await answer(request)));
});
