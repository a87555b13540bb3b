/**
 * The core's composition root: configuration -> store -> providers -> server. The only
 * file of the core that listens. `node --import tsx core/main.ts` runs it alone.
 */
import { mkdirSync } from 'node:fs';
import { pathToFileURL } from 'node:url';
import { createCore } from './app.js';
import { CORE_CONFIG_HELP, ConfigError, readCoreConfig } from './config.js';
import { createLogger } from './log.js';
import { createProviders, describeRouting } from './providers/index.js';
import { openStore } from './store/index.js';
import { ADMIN_TOKEN_FILE, SERVICE_TOKEN_FILE, loadOrCreateToken } from './tokens.js';

export interface RunningCore {
  /** host:port the core listens on. */
  address: string;
  port: number;
  dataDir: string;
  close(): Promise<void>;
}

/** Database file of the embedded store inside DATA_DIR (chosen in store/index.ts). */
export { SQLITE_FILE } from './store/index.js';

export async function startCore(env: Record<string, string | undefined> = process.env): Promise<RunningCore> {
  const config = readCoreConfig(env);
  const log = createLogger(config.logLevel, 'core');
  mkdirSync(config.dataDir, { recursive: true, mode: 0o700 });
  const adminToken = loadOrCreateToken(config.dataDir, ADMIN_TOKEN_FILE, config.adminToken);
  const serviceToken = loadOrCreateToken(config.dataDir, SERVICE_TOKEN_FILE, config.serviceToken);
  // MongoDB when MONGODB_URI is set, else SQLite in DATA_DIR; a deployment that cannot hold
  // the money safely (a standalone mongod, a server too old) is refused here, before listening.
  const store = await openStore(config, log);
  const core = createCore({
    store,
    providers: createProviders(config.providers, { catalog: store.catalog, log }).providers,
    adminToken,
    serviceToken,
    providerTimeoutMs: config.providerTimeoutMs,
    recoveryIntervalMs: config.recoveryIntervalMs,
    recoveryAttentionAfterMs: config.recoveryAttentionAfterMs,
    log,
  });
  if (await core.seed()) log('catalog.seeded', { data_dir: config.dataDir });
  const port = await core.rpc.listen(config.host, config.port);
  core.worker.start();
  const address = `${config.host}:${port}`;
  log('core.listening', { address, data_dir: config.dataDir, store: config.mongo === null ? 'sqlite' : 'mongo', providers: describeRouting(config.providers.routing) });
  return {
    address,
    port,
    dataDir: config.dataDir,
    async close() {
      await core.shutdown();
      await store.close();
      log('core.stopped', {});
    },
  };
}

export function printCoreHelp(): void {
  const width = Math.max(...CORE_CONFIG_HELP.map(([name]) => name.length));
  console.log('Core configuration (environment variables):\n');
  for (const [name, fallback, what] of CORE_CONFIG_HELP) console.log(`  ${name.padEnd(width)}  ${what} Default: ${fallback}.`);
}

/** Runs a server until SIGTERM or SIGINT, then closes it; a start-up failure exits non-zero. */
export async function runUntilSignal(start: () => Promise<{ close(): Promise<void> }>): Promise<void> {
  let running: { close(): Promise<void> };
  try {
    running = await start();
  } catch (error) {
    if (error instanceof ConfigError) console.error(error.message);
    else console.error('Start-up failed:', error instanceof Error ? error.message : error);
    process.exit(1);
  }
  let closing = false;
  const stop = (signal: string) => {
    if (closing) return;
    closing = true;
    console.error(`${signal} received, shutting down`);
    running.close().then(
      () => process.exit(0),
      (error: unknown) => {
        console.error('Shutdown failed:', error);
        process.exit(1);
      },
    );
  };
  process.once('SIGTERM', () => stop('SIGTERM'));
  process.once('SIGINT', () => stop('SIGINT'));
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  if (process.argv.includes('--help')) printCoreHelp();
  else void runUntilSignal(() => startCore());
}
