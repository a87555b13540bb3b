/**
 * Runs the SQLite ledger check off the core's event loop, on a worker thread with its own
 * read-only connection (audit-thread.ts). On the store's connection the check held the event
 * loop, and every purchase and balance with it, for as long as it read: seconds at a million
 * purchases. Aborting the caller's signal ends the thread at once, so a check nobody waits
 * for any more stops costing anything.
 */
import { Worker } from 'node:worker_threads';
import type { AuditOptions, AuditProgress, LedgerAudit } from '../../domain/audit.js';

/** What the thread is given. */
export interface AuditThreadData {
  filename: string;
  /** Tests only: the thread waits on this (an Int32 at index 0) once its snapshot is taken, until it is set. */
  gate?: SharedArrayBuffer;
}

/** What the thread says. */
export type AuditThreadMessage =
  | { type: 'snapshot' }
  | { type: 'progress'; progress: AuditProgress }
  | { type: 'done'; audit: LedgerAudit };

/** Tests only: hold the check inside its snapshot (see AuditThreadData.gate). */
export interface AuditGate {
  buffer: SharedArrayBuffer;
  /** Called once the thread has its snapshot and waits. */
  onSnapshot: () => void;
}

/** Opens the gate: the waiting thread reads on. */
export function releaseAuditGate(buffer: SharedArrayBuffer): void {
  const cell = new Int32Array(buffer);
  Atomics.store(cell, 0, 1);
  Atomics.notify(cell, 0);
}

/**
 * The thread's entry: the built file next to this one under `npm start` (dist/), the
 * TypeScript source under tsx (tests, `npm run dev`), where the thread registers tsx first
 * because worker threads do not inherit the main thread's loader (as bin/core-thread.js).
 */
function startThread(data: AuditThreadData): Worker {
  const fromSource = import.meta.url.endsWith('.ts');
  if (!fromSource) return new Worker(new URL('./audit-thread.js', import.meta.url), { workerData: data });
  const entry = new URL('./audit-thread.ts', import.meta.url).href;
  const load = `import(${JSON.stringify(entry)})`;
  const boot = `import('tsx/esm/api').then(({ register }) => { register(); return ${load}; });`;
  return new Worker(boot, { eval: true, workerData: data });
}

export function auditOffThread(filename: string, options: AuditOptions = {}, gate?: AuditGate): Promise<LedgerAudit> {
  const { signal } = options;
  if (signal?.aborted) return Promise.reject(signal.reason);
  const worker = startThread({ filename, ...(gate ? { gate: gate.buffer } : {}) });
  return new Promise<LedgerAudit>((resolve, reject) => {
    let settled = false;
    const finish = (outcome: () => void) => {
      if (settled) return;
      settled = true;
      signal?.removeEventListener('abort', onAbort);
      outcome();
    };
    const onAbort = () => {
      finish(() => reject(signal!.reason));
      void worker.terminate();
    };
    signal?.addEventListener('abort', onAbort, { once: true });
    worker.on('message', (message: AuditThreadMessage) => {
      if (message.type === 'progress') options.onProgress?.(message.progress);
      else if (message.type === 'snapshot') gate?.onSnapshot();
      else finish(() => resolve(message.audit));
    });
    worker.on('error', (error) => finish(() => reject(error)));
    worker.on('exit', (code) =>
      finish(() => reject(new Error(`the ledger check's thread stopped (exit code ${code}) before it answered`))),
    );
  });
}
