/**
 * The funding sweeper: every FUNDING_SWEEP_INTERVAL_MS it finishes credits a crash left at
 * `verified`, then asks each provider for the recent inflows of every active virtual account
 * and takes any no notification brought (core/funding/service.ts sweep). One run at a time;
 * a failed run is logged and the next one tries again.
 */

import type { FundingStore } from '../store/port.js';
import type { FundingService } from './service.js';
import { MAX_INFLOWS_PER_RUN } from './service.js';

/** Virtual accounts one run asks about: far above a small platform's count, and bounded. */
const MAX_ACCOUNTS_PER_SWEEP = 1_000;

export interface FundingSweeper {
  start(): void;
  /** Stops the timer and waits for a run in progress. */
  stop(): Promise<void>;
  /** One run now; resolves to how many inflows it credited. */
  runOnce(): Promise<number>;
}

export function createFundingSweeper(deps: {
  funding: FundingService;
  store: Pick<FundingStore, 'listActiveVirtualAccounts'>;
  intervalMs: number;
  log: (event: string, fields: Record<string, unknown>) => void;
}): FundingSweeper {
  let timer: NodeJS.Timeout | null = null;
  let running: Promise<number> | null = null;

  async function run(): Promise<number> {
    const accounts = await deps.store.listActiveVirtualAccounts(MAX_ACCOUNTS_PER_SWEEP);
    const credited = await deps.funding.sweep(accounts);
    if (credited > 0)
      deps.log('funding.swept', { credited, accounts: accounts.length, max_inflows: MAX_INFLOWS_PER_RUN });
    return credited;
  }

  function runOnce(): Promise<number> {
    if (running === null) {
      running = run().finally(() => {
        running = null;
      });
    }
    return running;
  }

  return {
    start() {
      if (timer !== null) return;
      // A first run at start finishes whatever a crash of the previous process interrupted.
      const tick = () => {
        runOnce().catch((error: unknown) =>
          deps.log('funding.sweep_failed', {
            level: 'error',
            error: error instanceof Error ? error.message : String(error),
          }),
        );
      };
      tick();
      timer = setInterval(tick, deps.intervalMs);
      timer.unref();
    },
    async stop() {
      if (timer !== null) clearInterval(timer);
      timer = null;
      await running?.catch(() => 0);
    },
    runOnce,
  };
}
