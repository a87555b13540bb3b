/**
 * Runs the backup's copy and checks (backup.ts) on a worker thread with connections of its
 * own, as the ledger check does (audit-runner.ts): the core's thread keeps selling meanwhile.
 */
import { Worker } from 'node:worker_threads';
import type { StoreFacts } from './backup.js';

/** One request: copy `source` into `file` first when a source is named, then read `file`. */
export interface BackupThreadRequest {
  source?: string;
  file: string;
}

export type BackupThreadMessage = { type: 'done'; facts: StoreFacts } | { type: 'failed'; message: string };

/** The thread's entry: built next to this file under `npm start`, the TypeScript source under tsx (as audit-runner.ts). */
function startThread(): Worker {
  const fromSource = import.meta.url.endsWith('.ts');
  if (!fromSource) return new Worker(new URL('./backup-thread.js', import.meta.url));
  const entry = new URL('./backup-thread.ts', import.meta.url).href;
  const boot = `import('tsx/esm/api').then(({ register }) => { register(); return import(${JSON.stringify(entry)}); });`;
  return new Worker(boot, { eval: true });
}

/** A thread for one backup: its requests answer in order; `close` ends it. */
export interface BackupThread {
  run(request: BackupThreadRequest): Promise<StoreFacts>;
  close(): Promise<void>;
}

export function openBackupThread(): BackupThread {
  const worker = startThread();
  const waiting: { resolve: (facts: StoreFacts) => void; reject: (error: Error) => void }[] = [];
  let gone: Error | null = null;
  const failAll = (error: Error) => {
    gone = error;
    for (const waiter of waiting.splice(0)) waiter.reject(error);
  };
  worker.on('message', (message: BackupThreadMessage) => {
    const waiter = waiting.shift();
    if (message.type === 'done') waiter?.resolve(message.facts);
    else waiter?.reject(new Error(message.message));
  });
  worker.on('error', failAll);
  worker.on('exit', (code) => failAll(new Error(`the backup's thread stopped (exit code ${code})`)));
  return {
    run(request) {
      if (gone !== null) return Promise.reject(gone);
      return new Promise<StoreFacts>((resolve, reject) => {
        waiting.push({ resolve, reject });
        worker.postMessage(request);
      });
    },
    async close() {
      await worker.terminate();
    },
  };
}
