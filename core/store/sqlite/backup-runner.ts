/**
 * Runs the backup's copy and checks (backup.ts) on a worker thread with connections of its
 * own, as the ledger check does (audit-runner.ts): the core's thread keeps selling meanwhile.
 */
import { Worker } from 'node:worker_threads';
import type { CopyPace, StoreFacts } from './backup.js';

/**
 * One request: copy `source` into `file` first when a source is named (at `pace`, or
 * backup.ts's), then read `file`; or hash `file`.
 */
export type BackupThreadRequest =
  | { type: 'read'; source?: string; file: string; pace?: CopyPace }
  | { type: 'hash'; file: string };

/** What a request found, and how long its copy (0 without one) and its read of the file took. */
interface BackupThreadAnswer {
  facts: StoreFacts;
  copyMs: number;
  checkMs: number;
}

export type BackupThreadMessage =
  | ({ type: 'done' } & BackupThreadAnswer)
  | { type: 'hashed'; sha256: string }
  | { type: 'failed'; message: string };

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
  /** Copies (when a source is named) and reads a store file. */
  read(request: { source?: string; file: string; pace?: CopyPace }): Promise<BackupThreadAnswer>;
  /** A file's SHA-256. */
  hash(file: string): Promise<string>;
  close(): Promise<void>;
}

export function openBackupThread(): BackupThread {
  const worker = startThread();
  const waiting: { resolve: (message: BackupThreadMessage) => void; reject: (error: Error) => void }[] = [];
  let gone: Error | null = null;
  const failAll = (error: Error) => {
    gone = error;
    for (const waiter of waiting.splice(0)) waiter.reject(error);
  };
  worker.on('message', (message: BackupThreadMessage) => {
    const waiter = waiting.shift();
    if (message.type === 'failed') waiter?.reject(new Error(message.message));
    else waiter?.resolve(message);
  });
  worker.on('error', failAll);
  worker.on('exit', (code) => failAll(new Error(`the backup's thread stopped (exit code ${code})`)));
  const ask = (request: BackupThreadRequest): Promise<BackupThreadMessage> => {
    if (gone !== null) return Promise.reject(gone);
    return new Promise<BackupThreadMessage>((resolve, reject) => {
      waiting.push({ resolve, reject });
      worker.postMessage(request);
    });
  };
  return {
    async read(request) {
      const message = await ask({ type: 'read', ...request });
      if (message.type !== 'done') throw new Error(`the backup's thread answered ${message.type} to a read`);
      return { facts: message.facts, copyMs: message.copyMs, checkMs: message.checkMs };
    },
    async hash(file) {
      const message = await ask({ type: 'hash', file });
      if (message.type !== 'hashed') throw new Error(`the backup's thread answered ${message.type} to a hash`);
      return message.sha256;
    },
    async close() {
      await worker.terminate();
    },
  };
}
