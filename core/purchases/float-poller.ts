/**
 * Polls each upstream's float (our wallet there) where its adapter has a balance call,
 * every UPSTREAM_FLOAT_POLL_MS. The reading goes to the upstream's health, so routes with another
 * choice skip it while it is under the operator's alert, before it starts refusing purchases for
 * want of money; under the alert a warning is logged at each reading. Each reading is also
 * kept in the store (`keep`), so the daily reconciliation chains the balances a day told
 * whatever restarts came between (docs/reconciliation.md).
 */
import { createPeriodicRunner, type PeriodicRunner } from '../../runtime/periodic.js';
import { formatNaira, type Kobo } from '../domain/money.js';
import type { Router } from './routing.js';
import type { SupplyObserver } from './upstream-calls.js';
import type { UpstreamHealth } from './upstream-health.js';

/** One balance call may take this long; a slow answer is no reading, never a wrong one. */
const BALANCE_TIMEOUT_MS = 10_000;

/** runOnce() reads every float once. */
export type FloatPoller = PeriodicRunner<[], void>;

export function createFloatPoller(deps: {
  router: Router;
  health: UpstreamHealth;
  intervalMs: number;
  clock: () => Date;
  log: (event: string, fields: Record<string, unknown>) => void;
  /** Told each reading, for the float metrics. */
  observer?: Pick<SupplyObserver, 'float'> | undefined;
  /** Keeps each reading for the reconciliation (the store's findings.keepReading); best effort. */
  keep?: ((upstream: string, reading: { at: Date; balanceKobo: Kobo }) => Promise<void>) | undefined;
}): FloatPoller {
  async function kept(upstream: string, reading: { at: Date; balanceKobo: Kobo }): Promise<void> {
    try {
      await deps.keep?.(upstream, reading);
    } catch (error) {
      // A reading not kept is one checkpoint fewer for the chain, never a wrong one.
      deps.log('upstream.float_not_kept', { upstream, error: error instanceof Error ? error.message : String(error) });
    }
  }
  async function pass(): Promise<void> {
    const settings = await deps.router.settings();
    for (const upstream of deps.router.supply.upstreams.values()) {
      if (upstream.balance === undefined) continue;
      try {
        const floatKobo = await upstream.balance(AbortSignal.timeout(BALANCE_TIMEOUT_MS));
        const at = deps.clock();
        deps.health.setFloat(upstream.name, floatKobo, at);
        await kept(upstream.name, { at, balanceKobo: floatKobo });
        const alert = settings.get(upstream.name)?.floatAlertKobo ?? null;
        deps.observer?.float(upstream.name, floatKobo, alert);
        if (alert !== null && floatKobo < alert) {
          deps.log('upstream.float_low', {
            upstream: upstream.name,
            float_naira: formatNaira(floatKobo),
            alert_naira: formatNaira(alert),
          });
        }
      } catch (error) {
        const reason = error instanceof Error ? error.message : String(error);
        deps.health.floatFailed(upstream.name, reason, deps.clock());
        deps.log('upstream.float_unknown', { upstream: upstream.name, error: reason });
      }
    }
  }

  return createPeriodicRunner({
    pass,
    intervalMs: deps.intervalMs,
    overlap: 'join',
    onError: (error) =>
      deps.log('upstream.float_error', { error: error instanceof Error ? error.message : String(error) }),
  });
}
