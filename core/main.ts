/**
 * The core's composition root: configuration -> store -> providers -> server. The only
 * file of the core that listens (gRPC, and the Prometheus listener on CORE_METRICS_PORT).
 * `node --import tsx core/main.ts` runs it alone; `--help` prints its configuration.
 */
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { pathToFileURL } from 'node:url';
import type { Registry } from 'prom-client';
import { createPrivateFile, type DirLock, LOCK_FILE, lockDir, makePrivate } from '../runtime/data-dir.js';
import { processFlags } from '../runtime/flags.js';
import { announceReady, runUntilSignal, type Stoppable } from '../runtime/lifecycle.js';
import { createProcessLog, eventLogger, type Logger } from '../runtime/log.js';
import { bindError, checkPortFree } from '../runtime/ports.js';
import { readPem } from '../runtime/tls.js';
import { ADMIN_TOKEN_FILE, loadOrCreateToken, SERVICE_TOKEN_FILE } from '../runtime/tokens.js';

/** Where the key of the identity numbers' keyed hash lives when FUNDING_KYC_KEY is unset. */
const FUNDING_KYC_KEY_FILE = 'funding-kyc.key';

import { type BackupSettings, createCore } from './app.js';
import { createPlanBook } from './catalog/plan-codes.js';
import { type CoreConfig, coreConfigHelp, readCoreConfig } from './config.js';
import { createMonnifyFunding } from './funding/monnify.js';
import { createPaystackFunding } from './funding/paystack.js';
import type { FundingProvider } from './funding/port.js';
import { createCoreMetrics, type MetricsServer, serveMetrics } from './metrics.js';
import { type BuiltProviders, createProviders, describeRouting } from './providers/index.js';
import type { Providers } from './providers/port.js';
import type { Supply } from './providers/supply.js';
import { openStore, SQLITE_FILE } from './store/index.js';

export interface RunningCore extends Stoppable {
  /** host:port the core listens on. */
  address: string;
  port: number;
  dataDir: string;
  /** host:port of the Prometheus listener; null when it is off (or could not bind). */
  metricsAddress: string | null;
  metricsPort: number | null;
}

/** Money in as the core is given it: the providers configured, the fee, the sweeper's pace, the KYC key. */
function fundingDeps(config: CoreConfig, kycKey: string) {
  return {
    fee: config.funding.fee,
    kycKey,
    sweepIntervalMs: config.funding.sweepIntervalMs,
    providers: fundingProviders(config.funding),
    sandboxLive: config.funding.sandboxLive,
  };
}

/** Reads the configuration from `env`, opens the store, starts the providers and listens. */
export async function startCore(env: Record<string, string | undefined> = process.env): Promise<RunningCore> {
  const config = readCoreConfig(env);
  const processLog = createProcessLog({ level: config.logLevel, service: 'core' });
  const log = eventLogger(processLog);
  warnShortShutdown(config, log);
  warnSandboxLive(config, log);
  // TLS files that cannot be read, and a port that is taken, stop the start before the data
  // directory or the store is touched.
  const tls =
    config.tls === null
      ? undefined
      : { cert: readPem('CORE_TLS_CERT', config.tls.certFile), key: readPem('CORE_TLS_KEY', config.tls.keyFile) };
  await checkPortFree(CORE_ADDRESS, config.host, config.port);
  const dataDirLock = privateDataDir(config);
  const { store, adminToken, serviceToken, fundingKycKey } = await openData(config, log, dataDirLock);
  const metrics = config.metricsPort === null ? undefined : createCoreMetrics({ defaultMetrics: true });
  // One book of plan codes and types for the upstreams and the core, so a change is in force at once.
  const planBook = createPlanBook({ store, clock: () => new Date() });
  const core = createCore({
    store,
    ...testModeProviders(
      createProviders(config.providers, { catalog: store.catalog, planCodes: planBook.codeOf, log }),
    ),
    planBook,
    adminToken,
    serviceToken,
    providerTimeoutMs: config.providerTimeoutMs,
    duplicateWindowMs: config.duplicateWindowMs,
    velocity: config.velocity,
    floatPollMs: config.upstreamFloatPollMs,
    reconcileAtMinute: config.reconcileAtMinute,
    recoveryIntervalMs: config.recoveryIntervalMs,
    recoveryAttentionAfterMs: config.recoveryAttentionAfterMs,
    dashboardPublicUrl: config.dashboardPublicUrl,
    consolePublicUrl: config.consolePublicUrl,
    cliMoneyMoves: config.cliMoneyMoves,
    signUp: config.signUp,
    apiTierMinLevel: config.apiTierMinLevel,
    fourEyesCoolingMs: config.fourEyesCoolingMs,
    webhooks: config.webhooks,
    funding: fundingDeps(config, fundingKycKey),
    mail: config.mail,
    backups: backupSettings(config, { adminToken, serviceToken, fundingKycKey }),
    log,
    ...(metrics === undefined ? {} : { metrics }),
  });
  let port: number;
  try {
    if (await core.seed()) log('catalog.seeded', { data_dir: config.dataDir });
    port = await core.rpc.listen(config.host, config.port, tls);
  } catch (error) {
    core.forceShutdown();
    await store.close();
    dataDirLock?.release();
    throw bindError(CORE_ADDRESS, config.host, config.port, error);
  }
  const metricsServer = metrics === undefined ? null : await serveMetricsOrLog(metrics.registry, config, log);
  startBackgroundWork(core);
  const address = `${config.host}:${port}`;
  log('core.listening', {
    address,
    metrics: metricsServer?.address ?? null,
    data_dir: config.dataDir,
    store: config.mongo === null ? 'sqlite' : 'mongo',
    tls: tls !== undefined,
    providers: describeRouting(config.providers.routing),
    log_level: config.logLevel,
    // The server by scheme, host and port only: SMTP_URL's credentials are never logged.
    mail: config.mail === null ? 'off' : config.mail.server.describe,
  });
  let drained = false;
  const drain = () => {
    if (drained) return;
    drained = true;
    core.drain();
    log('core.draining', { health: 'NOT_SERVING' });
  };
  let closing: Promise<void> | undefined;
  return {
    address,
    port,
    dataDir: config.dataDir,
    metricsAddress: metricsServer?.address ?? null,
    metricsPort: metricsServer?.port ?? null,
    shutdownTimeoutMs: config.shutdownTimeoutMs,
    drainMs: config.shutdownDrainMs,
    log: processLog,
    drain,
    close() {
      closing ??= (async () => {
        const started = performance.now();
        drain();
        await core.shutdown();
        await store.close();
        dataDirLock?.release();
        // The metrics listener goes last, so a scrape during the stop still sees the core.
        await metricsServer?.close();
        log('core.stopped', { ms: Math.round(performance.now() - started) });
        await processLog.flush();
      })();
      return closing;
    },
    forceClose() {
      core.forceShutdown();
      void metricsServer?.close();
    },
  };
}

/** The core's background workers, once it listens: none runs before the store and the port are sure. */
function startBackgroundWork(core: ReturnType<typeof createCore>): void {
  core.worker.start();
  core.fundingSweeper.start();
  core.floatPoller?.start();
  core.deliveries.start();
  core.lowBalanceMail.start();
  core.walletMail.start();
  core.storeWatch.start();
  core.backups.scheduled?.runner.start();
  core.clockWatch.start();
  core.reconciliation.daily?.start();
}

/** FUNDING_SANDBOX_LIVE=on lets made-up transfers credit live wallets: said at every start. */
function warnSandboxLive(config: CoreConfig, log: Logger): void {
  if (!config.funding.sandboxLive) return;
  log('config.warning', {
    variable: 'FUNDING_SANDBOX_LIVE',
    message:
      'FUNDING_SANDBOX_LIVE is on: live wallets get Sandbox Bank account numbers and ' +
      '`prepaid funding simulate-transfer` credits live money. Turn it off before real money is taken.',
  });
}

/** A shutdown bound at or below the provider timeout may cut off a purchase waiting on its provider. */
function warnShortShutdown(config: CoreConfig, log: Logger): void {
  if (config.shutdownTimeoutMs > config.providerTimeoutMs) return;
  log('config.warning', {
    variable: 'SHUTDOWN_TIMEOUT_MS',
    message:
      `SHUTDOWN_TIMEOUT_MS (${config.shutdownTimeoutMs}) is not above PROVIDER_TIMEOUT_MS ` +
      `(${config.providerTimeoutMs}): a purchase waiting on its provider at shutdown may be cut off ` +
      'and left to the recovery worker of the next start.',
  });
}

/**
 * The tokens and key DATA_DIR keeps, and the store. The data directory's lock is released
 * when either cannot be had.
 */
async function openData(config: CoreConfig, log: Logger, dataDirLock: DirLock | undefined) {
  try {
    return {
      adminToken: loadOrCreateToken(config.dataDir, ADMIN_TOKEN_FILE, config.adminToken),
      serviceToken: loadOrCreateToken(config.dataDir, SERVICE_TOKEN_FILE, config.serviceToken),
      fundingKycKey: loadOrCreateToken(config.dataDir, FUNDING_KYC_KEY_FILE, config.funding.kycKey),
      // MongoDB when MONGODB_URI is set, else SQLite in DATA_DIR; a deployment that cannot hold
      // the money safely (a standalone mongod, a server too old) is refused here, before listening.
      store: await openStore(config, log),
    };
  } catch (error) {
    dataDirLock?.release();
    throw error;
  }
}

/**
 * The Prometheus listener. Metrics are worth a log line, not an outage: a metrics port that
 * is taken is reported and the core serves without it (null).
 */
async function serveMetricsOrLog(registry: Registry, config: CoreConfig, log: Logger): Promise<MetricsServer | null> {
  if (config.metricsPort === null) return null;
  try {
    return await serveMetrics(registry, config.metricsHost, config.metricsPort);
  } catch (error) {
    log('metrics.listen_failed', {
      host: config.metricsHost,
      port: config.metricsPort,
      error: error instanceof Error ? error.message : String(error),
    });
    return null;
  }
}

/** The live funding providers configured; none: live wallets have no bank transfer funding (FUNDING_SANDBOX_LIVE aside). */
function fundingProviders(funding: CoreConfig['funding']): FundingProvider[] {
  return [
    ...(funding.paystack === null ? [] : [createPaystackFunding(funding.paystack)]),
    ...(funding.monnify === null ? [] : [createMonnifyFunding(funding.monnify)]),
  ];
}

/**
 * The core's backups: the SQLite file (none on MongoDB), the secrets by the names DATA_DIR keeps
 * them under (whether they came from a file or the environment, a restore writes them as files),
 * and the schedule when BACKUP_EVERY is set.
 */
function backupSettings(
  config: CoreConfig,
  secrets: { adminToken: string; serviceToken: string; fundingKycKey: string },
): BackupSettings {
  const { dir, everyMs, keep, passphrase } = config.backups;
  return {
    storeFile: config.mongo === null ? path.join(config.dataDir, SQLITE_FILE) : null,
    secrets: {
      [ADMIN_TOKEN_FILE]: secrets.adminToken,
      [SERVICE_TOKEN_FILE]: secrets.serviceToken,
      [FUNDING_KYC_KEY_FILE]: secrets.fundingKycKey,
    },
    dir,
    schedule: dir === null || everyMs === null ? null : { dir, everyMs, keep, passphrase },
  };
}

/** The variables of the core's gRPC address, for messages about it. */
const CORE_ADDRESS = { host: 'CORE_HOST', port: 'CORE_PORT' };

/** The files the core keeps in DATA_DIR: each is 0600 (SQLite creates its WAL with the database's mode). */
const DATA_FILES = [
  ADMIN_TOKEN_FILE,
  SERVICE_TOKEN_FILE,
  LOCK_FILE,
  SQLITE_FILE,
  `${SQLITE_FILE}-wal`,
  `${SQLITE_FILE}-shm`,
  `${SQLITE_FILE}-journal`,
];

/**
 * DATA_DIR made private (0700, its files 0600) and, for the embedded store, locked to this
 * core: two cores on one SQLite file would each believe it holds the only writer. With
 * MongoDB the directory only holds the tokens, and several cores may share it.
 */
function privateDataDir(config: { dataDir: string; mongo: unknown }): DirLock | undefined {
  makePrivate(config.dataDir, DATA_FILES);
  if (config.mongo !== null) return undefined;
  const lock = lockDir(config.dataDir);
  createPrivateFile(config.dataDir, SQLITE_FILE);
  return lock;
}

/** Prints the core's configuration table. */
export function printCoreHelp(): void {
  console.log(coreConfigHelp());
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  if (processFlags().kind === 'help') printCoreHelp();
  else
    void runUntilSignal(async () => {
      const core = await startCore();
      announceReady([['core (gRPC)', core.address]]);
      return core;
    });
}

/** The routed providers for live purchases, and the sandbox (never an upstream) for test ones. */
function testModeProviders(built: BuiltProviders): { providers: Providers; testProviders: Providers; supply: Supply } {
  return { providers: built.providers, testProviders: built.sandbox, supply: built.supply };
}
