/**
 * The store's write health as the rest of the core acts on it: when a write is refused by the
 * disk (full, read-only) the core says so at once (a warn log line with the reason, the gauge
 * prepaid_core_store_writable at 0, its gRPC health NOT_SERVING, so the gateway's /healthz and
 * load balancers take it out of rotation) and from then on probes the store on the periodic
 * runner; the first probe that writes turns all of it back, with no restart. Purchases keep
 * trying meanwhile (each refused before any debit), so no sale waits for the probe once room
 * is back.
 */
import type { Logger } from '../../runtime/log.js';
import { createPeriodicRunner, type PeriodicRunner } from '../../runtime/periodic.js';
import type { StorageObserver } from '../metrics.js';
import type { StoreWriteHealth } from '../store/port.js';

/** How often a store that cannot write is probed: room coming back is noticed within this. */
const DEFAULT_STORE_PROBE_MS = 2_000;

export type StoreWriteWatch = PeriodicRunner<[], boolean>;

export function watchStoreWrites(deps: {
  writes: StoreWriteHealth;
  log: Logger;
  /** Called with false while the store cannot write: the core's overall health. */
  serving: (ok: boolean) => void;
  observer?: StorageObserver | undefined;
  intervalMs?: number;
}): StoreWriteWatch {
  deps.writes.onChange((fault) => {
    if (fault === null) deps.log('store.writable_again', {});
    // A warning by its name (runtime/log.ts): the service goes on, refusing sales safely.
    else
      deps.log('store.write_warning', {
        problem: 'cannot_write',
        reason: fault.reason,
        since: fault.since.toISOString(),
        message: `The store cannot write (${fault.reason}): purchases are refused before any debit until it can.`,
      });
    deps.observer?.writable(fault === null);
    deps.serving(fault === null);
  });
  return createPeriodicRunner<[], boolean>({
    pass: async () => (deps.writes.fault() === null ? true : deps.writes.probe()),
    intervalMs: deps.intervalMs ?? DEFAULT_STORE_PROBE_MS,
    onError: (error) =>
      deps.log('store.probe_failed', { error: error instanceof Error ? error.message : String(error) }),
    overlap: 'join',
  });
}
