/**
 * Compat callbacks (docs/compat.md, Adex: the callback): an account that set a callback for the
 * Adex dialect is told each of its purchases' final status, in the family's callback body
 * `{"status":"success"|"fail","request-id":"..."}`, as an Adex site tells its buyers. Told by
 * the journal when a move makes a purchase final, after the move is written: nothing here is on
 * the purchase path, and nothing is written. Posted through the webhook poster (destination.ts:
 * the platform's one outbound client, public addresses only, a connection pool per account),
 * retried a bounded number of times, at most MAX_QUEUED at once. Kept in memory only: a
 * callback still waiting for a retry when the core stops is not sent (the purchase's record
 * and the signed webhook event still say its outcome).
 */
import type { Logger } from '../../runtime/log.js';
import type { TransactionRecord } from '../domain/records.js';
import type { Store } from '../store/port.js';
import type { Poster } from './destination.js';

/** The waits before each retry: five more tries within about ten minutes, then it is given up. */
const DEFAULT_RETRY_DELAYS_MS: readonly number[] = [5_000, 15_000, 60_000, 180_000, 360_000];
/** Callbacks in flight or waiting for a retry at once; past it a new one is dropped and logged. */
const MAX_QUEUED = 10_000;
/**
 * How long an account's callback (or its having none) is remembered, so a busy account's
 * purchases cost the store one read every few seconds rather than one each; a callback set or
 * cleared is seen within this time.
 */
const CALLBACK_KEPT_MS = 5_000;
/** Accounts whose callback is remembered at once; past it, the oldest is forgotten. */
const MAX_KEPT = 10_000;

export interface CompatCallbacks {
  /** A purchase a move just made final. */
  told(tx: TransactionRecord): void;
  /** Sends nothing more: pending retries are dropped, attempts in flight waited for. */
  stop(): Promise<void>;
}

export function createCompatCallbacks(options: {
  store: Pick<Store, 'compat'>;
  poster: Poster;
  log: Logger;
  retryDelaysMs?: readonly number[];
}): CompatCallbacks {
  const delays = options.retryDelaysMs ?? DEFAULT_RETRY_DELAYS_MS;
  const { log, poster } = options;
  const timers = new Set<NodeJS.Timeout>();
  const running = new Set<Promise<void>>();
  let queued = 0;
  let stopped = false;
  const kept = new Map<string, { url: string | null; untilMs: number }>();
  const callbackOf = async (accountId: string): Promise<string | null> => {
    const known = kept.get(accountId);
    if (known !== undefined && known.untilMs > Date.now()) return known.url;
    const callback = await options.store.compat.getCallback(accountId, 'adex');
    kept.delete(accountId);
    while (kept.size >= MAX_KEPT) kept.delete(kept.keys().next().value!);
    kept.set(accountId, { url: callback?.url ?? null, untilMs: Date.now() + CALLBACK_KEPT_MS });
    return callback?.url ?? null;
  };

  const track = (work: Promise<void>) => {
    const promise = work
      .catch((error: unknown) => {
        queued--;
        log('compat.callback_error', { error: error instanceof Error ? error.message : String(error) });
      })
      .finally(() => running.delete(promise));
    running.add(promise);
  };

  const attempt = async (url: string, body: string, tx: TransactionRecord, tries: number): Promise<void> => {
    const result = await poster.post(url, body, { 'content-type': 'application/json' }, tx.accountId);
    const fields = { account: tx.accountId, reference: tx.reference, attempts: tries + 1 };
    if (result.error === null) {
      queued--;
      log('compat.callback_delivered', fields);
      return;
    }
    if (stopped || tries >= delays.length) {
      queued--;
      log('compat.callback_failed', { ...fields, status: result.status, error: result.error });
      return;
    }
    const timer = setTimeout(() => {
      timers.delete(timer);
      track(attempt(url, body, tx, tries + 1));
    }, delays[tries]);
    timer.unref();
    timers.add(timer);
  };

  return {
    told(tx) {
      const status = tx.status === 'success' ? 'success' : tx.status === 'failed' ? 'fail' : undefined;
      if (stopped || status === undefined) return;
      if (queued >= MAX_QUEUED) {
        log('compat.callback_dropped', { account: tx.accountId, reference: tx.reference });
        return;
      }
      queued++;
      track(
        (async () => {
          const url = await callbackOf(tx.accountId);
          if (url === null) {
            queued--;
            return;
          }
          const body = JSON.stringify({ status, 'request-id': tx.requestId ?? tx.reference });
          await attempt(url, body, tx, 0);
        })(),
      );
    },
    async stop() {
      stopped = true;
      queued -= timers.size;
      for (const timer of timers) clearTimeout(timer);
      timers.clear();
      await Promise.allSettled([...running]);
    },
  };
}
