/**
 * When each key pair last authenticated a request (the developer area's "last used"),
 * noted without costing the purchase path anything.
 *
 * A successful key check only sets the key's latest time in a map in memory (no I/O, no
 * promise). The map is written to the store in the background, one batch for all keys,
 * at most every `intervalMs` (a few seconds) after the first use since the last write,
 * and once more when the core shuts down. A key already written less than
 * `precisionMs` (a minute) before is not written again until its use is a minute newer,
 * so a busy key costs one small write a minute, not one per request; "last used" is
 * shown to the minute.
 *
 * Best effort, on purpose: a failed write is logged and retried with the next batch, and
 * a core that dies (kill -9, forceShutdown) loses the uses it had not written yet, at most
 * a few seconds of them. Nothing about money depends on it. The store only ever moves a
 * time forward, so several cores writing the same key agree.
 *
 * What the core sees is already thinned by the gateway, which trusts a verified pair for
 * AUTH_CACHE_TTL_MS without asking the core again: "last used" can lag the real last
 * request by that much (5 s by default) plus the write interval.
 */
import type { Logger } from '../../runtime/log.js';
import type { KeyUseStore } from '../store/port.js';

/** Background writes of key uses are at most this often. */
const KEY_USE_FLUSH_MS = 5_000;
/** A key's stored last use is moved only once its use is this much newer. */
const KEY_USE_PRECISION_MS = 60_000;

export interface KeyUseRecorder {
  /** Notes that `publicKey` authenticated a request at `at`; synchronous and in memory only. */
  note(publicKey: string, at: Date): void;
  /** Writes what is noted and not written yet, now; resolves when it is stored (or failed and was put back). */
  flush(): Promise<void>;
  /** Stops the background writes and writes what is left; notes after this are only written by flush(). */
  stop(): Promise<void>;
}

export interface KeyUseRecorderDeps {
  keyUse: Pick<KeyUseStore, 'recordUses'>;
  log: Logger;
  intervalMs?: number;
  precisionMs?: number;
}

export function createKeyUseRecorder(deps: KeyUseRecorderDeps): KeyUseRecorder {
  const intervalMs = deps.intervalMs ?? KEY_USE_FLUSH_MS;
  const precisionMs = deps.precisionMs ?? KEY_USE_PRECISION_MS;
  /** Uses noted and not written yet: public key to epoch ms, the latest per key. */
  let pending = new Map<string, number>();
  /** What this core last wrote per key (bounded by the number of keys in use). */
  const written = new Map<string, number>();
  let timer: NodeJS.Timeout | undefined;
  let writing: Promise<void> = Promise.resolve();
  let stopped = false;

  const schedule = () => {
    if (timer !== undefined || stopped || pending.size === 0) return;
    timer = setTimeout(() => {
      timer = undefined;
      void flush();
    }, intervalMs);
    // A pending write never keeps the process alive; shutdown writes what is left.
    timer.unref();
  };

  const writeBatch = async () => {
    if (pending.size === 0) return;
    const batch = pending;
    pending = new Map();
    try {
      await deps.keyUse.recordUses(new Map([...batch].map(([publicKey, ms]) => [publicKey, new Date(ms)])));
      for (const [publicKey, ms] of batch) written.set(publicKey, Math.max(ms, written.get(publicKey) ?? ms));
    } catch (error) {
      // Put the batch back (keeping any newer use noted meanwhile) for the next write.
      for (const [publicKey, ms] of batch) if (ms > (pending.get(publicKey) ?? -Infinity)) pending.set(publicKey, ms);
      deps.log('key_use.write_failed', {
        keys: batch.size,
        error: error instanceof Error ? error.message : String(error),
      });
    }
  };

  // One write at a time, in order: a flush waits for the one under way, then writes.
  const flush = (): Promise<void> => {
    if (timer !== undefined) {
      clearTimeout(timer);
      timer = undefined;
    }
    writing = writing.then(writeBatch).finally(schedule);
    return writing;
  };

  return {
    note(publicKey, at) {
      const ms = at.getTime();
      const last = written.get(publicKey);
      if (last !== undefined && ms - last < precisionMs) return;
      if (ms > (pending.get(publicKey) ?? -Infinity)) pending.set(publicKey, ms);
      schedule();
    },
    flush,
    async stop() {
      stopped = true;
      await flush();
    },
  };
}
