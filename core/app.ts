/**
 * Builds the core from its parts without binding anything: use cases, the gRPC server and
 * the recovery worker over a given store and providers. core/main.ts and the tests both
 * start it this way; only they decide where it listens.
 */
import { createAccountService } from './accounts/service.js';
import { defaultCatalog } from './catalog/defaults.js';
import { createCatalogService } from './catalog/service.js';
import { createPlanSync } from './catalog/sync.js';
import type { Logger } from './log.js';
import type { Providers } from './providers/port.js';
import { DEFAULT_RETRY_SCHEDULE, type PurchaseDeps } from './purchases/flow.js';
import { Background } from './purchases/receipts.js';
import { createRecoveryWorker, type RecoveryWorker } from './purchases/recovery.js';
import { createOversightService } from './purchases/oversight.js';
import { createPurchaseService } from './purchases/service.js';
import { createUpdateService } from './purchases/updates.js';
import { createVerificationService } from './purchases/verification.js';
import { parseVtpassCallback } from './providers/vtpass/callback.js';
import { VTPASS_NAME } from './providers/vtpass/index.js';
import { createCoreServer, type CoreServer } from './rpc/server.js';
import type { Store } from './store/port.js';

export interface CoreDeps {
  store: Store;
  providers: Providers;
  adminToken: string;
  serviceToken: string;
  providerTimeoutMs: number;
  recoveryIntervalMs: number;
  recoveryAttentionAfterMs: number;
  log: Logger;
  clock?: () => Date;
}

export interface Core {
  rpc: CoreServer;
  worker: RecoveryWorker;
  /** Seeds the default catalog into an empty store. */
  seed(): Promise<boolean>;
  /** Stops taking calls, lets in-flight purchases finish, stops the worker, sends pending receipts. */
  shutdown(): Promise<void>;
}

export function createCore(deps: CoreDeps): Core {
  const clock = deps.clock ?? (() => new Date());
  const background = new Background();
  const purchaseDeps: PurchaseDeps = {
    store: deps.store,
    providers: deps.providers,
    clock,
    providerTimeoutMs: deps.providerTimeoutMs,
    inFlight: new Set(),
    background,
    log: deps.log,
  };
  const accounts = createAccountService({ store: deps.store, clock });
  const catalog = createCatalogService({ store: deps.store });
  const purchases = createPurchaseService(purchaseDeps);
  const oversight = createOversightService({ store: deps.store });
  const verification = createVerificationService(purchaseDeps);
  // Callbacks are accepted from the upstreams that send them; each is confirmed by a requery.
  const updates = createUpdateService(purchaseDeps, { [VTPASS_NAME]: parseVtpassCallback });
  const planSync = createPlanSync({ store: deps.store, catalog, providers: deps.providers, log: deps.log });
  const rpc = createCoreServer({ purchases, accounts, catalog, oversight, verification, updates, planSync, adminToken: deps.adminToken, serviceToken: deps.serviceToken, log: deps.log });
  const worker = createRecoveryWorker(purchaseDeps, {
    intervalMs: deps.recoveryIntervalMs,
    schedule: { ...DEFAULT_RETRY_SCHEDULE, attentionAfterMs: deps.recoveryAttentionAfterMs },
  });

  return {
    rpc,
    worker,
    seed: () => deps.store.catalog.seedIfEmpty(defaultCatalog()),
    async shutdown() {
      for (const name of ['', 'prepaid.v1.PurchaseService', 'prepaid.v1.AuthService', 'prepaid.v1.AdminService']) rpc.health.setStatus(name, 'NOT_SERVING');
      // tryShutdown lets calls in progress (purchases waiting on a provider) finish.
      await new Promise<void>((resolve) => rpc.server.tryShutdown(() => resolve()));
      await worker.stop();
      await background.drain();
    },
  };
}
