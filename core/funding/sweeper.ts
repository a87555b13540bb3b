/**
 * The funding sweeper: every FUNDING_SWEEP_INTERVAL_MS it finishes credits a crash left at
 * `verified`, then asks each provider for the recent inflows of every active virtual account
 * and takes any no notification brought (core/funding/service.ts sweep). One run at a time;
 * a failed run is logged and the next one tries again.
 */

import { createPeriodicRunner, type PeriodicRunner } from '../../runtime/periodic.js';
import type { FundingStore } from '../store/port.js';
import type { FundingService } from './service.js';
import { MAX_INFLOWS_PER_RUN } from './service.js';

/** Virtual accounts one run asks about: far above a small platform's count, and bounded. */
const MAX_ACCOUNTS_PER_SWEEP = 1_000;

/** runOnce() is one run now; it resolves to how many inflows it credited. */
export type FundingSweeper = PeriodicRunner<[], number>;

export function createFundingSweeper(deps: {
  funding: FundingService;
  store: Pick<FundingStore, 'listActiveVirtualAccounts'>;
  intervalMs: number;
  log: (event: string, fields: Record<string, unknown>) => void;
}): FundingSweeper {
  async function run(): Promise<number> {
    const accounts = await deps.store.listActiveVirtualAccounts(MAX_ACCOUNTS_PER_SWEEP);
    const credited = await deps.funding.sweep(accounts);
    if (credited > 0)
      deps.log('funding.swept', { credited, accounts: accounts.length, max_inflows: MAX_INFLOWS_PER_RUN });
    return credited;
  }

  // A first run at start finishes whatever a crash of the previous process interrupted.
  return createPeriodicRunner({
    pass: run,
    intervalMs: deps.intervalMs,
    overlap: 'join',
    onError: (error) =>
      deps.log('funding.sweep_failed', {
        level: 'error',
        error: error instanceof Error ? error.message : String(error),
      }),
  });
}
