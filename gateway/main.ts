/**
 * The gateway's composition root and the only file that listens: configuration, clients of
 * the core, the HTTP server. `node --import tsx gateway/main.ts` runs it alone (CORE_URL
 * points at the core); bin/start.ts calls startGateway() after starting the core in the
 * same process.
 */
import type { AddressInfo } from 'node:net';
import { pathToFileURL } from 'node:url';
import { ConfigError, loadGatewayConfig, resolveServiceToken } from './config.js';
import { createCoreClients } from './core-client.js';
import { consoleLogger, type GatewayLogger } from './log.js';
import { gatewayPolicies, openSharedLimiters } from './rate-limit.js';
import { createGateway } from './server.js';

/** A running gateway. */
export interface RunningGateway {
  /** The base URL of the first base path, for example http://127.0.0.1:8080/api/v1. */
  url: string;
  port: number;
  /** Stops the server and closes the connection to the core. */
  close(): Promise<void>;
}

/** Reads the configuration from `env`, connects to the core and listens. */
export async function startGateway(
  env: NodeJS.ProcessEnv = process.env,
  log: GatewayLogger = consoleLogger,
): Promise<RunningGateway> {
  const config = loadGatewayConfig(env);
  const core = createCoreClients({ coreUrl: config.coreUrl, serviceToken: resolveServiceToken(config) });
  // With MONGODB_URI the rate limits are counted for the whole fleet of gateways in MongoDB;
  // without it, in this process's memory (server.ts's default).
  const shared = config.mongo === undefined ? undefined : openSharedLimiters(config.mongo, gatewayPolicies(config), log);
  const gateway = createGateway({
    config,
    core,
    log,
    limiters: shared === undefined ? undefined : { perKey: shared.perKey, authFailures: shared.authFailures },
  });

  try {
    await new Promise<void>((resolve, reject) => {
      gateway.server.once('error', reject);
      gateway.server.listen(config.port, config.host, () => {
        gateway.server.off('error', reject);
        resolve();
      });
    });
  } catch (error) {
    core.close();
    await shared?.close();
    throw error;
  }

  const { port } = gateway.server.address() as AddressInfo;
  const shownHost = config.host === '0.0.0.0' || config.host === '::' ? '127.0.0.1' : config.host;
  const url = `http://${shownHost.includes(':') ? `[${shownHost}]` : shownHost}:${port}${config.basePaths[0]}`;
  log.info('gateway.listening', {
    host: config.host,
    port,
    url,
    base_paths: config.basePaths,
    core_url: config.coreUrl,
    rate_limits: shared === undefined ? 'memory' : `mongo (database ${config.mongo?.dbName})`,
  });

  return {
    url,
    port,
    async close() {
      try {
        await gateway.close();
      } finally {
        core.close();
        await shared?.close();
      }
    },
  };
}

const isEntryPoint = process.argv[1] !== undefined && import.meta.url === pathToFileURL(process.argv[1]).href;

if (isEntryPoint) {
  try {
    const running = await startGateway();
    let stopping = false;
    const stop = (signal: string) => {
      if (stopping) return;
      stopping = true;
      consoleLogger.info('gateway.stopping', { signal });
      running.close().then(
        () => process.exit(0),
        (error: unknown) => {
          consoleLogger.error('gateway.stop_failed', { error: String(error) });
          process.exit(1);
        },
      );
    };
    process.once('SIGTERM', () => stop('SIGTERM'));
    process.once('SIGINT', () => stop('SIGINT'));
  } catch (error) {
    if (error instanceof ConfigError) {
      consoleLogger.error('gateway.config_invalid', { variable: error.variable, error: error.message });
      process.exit(2);
    }
    throw error;
  }
}
