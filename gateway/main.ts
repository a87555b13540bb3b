/**
 * The gateway's composition root and the only file that listens: configuration, clients of
 * the core, the HTTP server. `node --import tsx gateway/main.ts` runs it alone (CORE_URL
 * points at the core; `--help` prints its configuration); bin/start.ts calls startGateway()
 * after starting the core on a worker thread.
 */
import net, { type AddressInfo } from 'node:net';
import { pathToFileURL } from 'node:url';
import { processFlags } from '../runtime/flags.js';
import { LISTEN_BACKLOG } from '../runtime/http-bounds.js';
import { announceReady, runUntilSignal, type Stoppable } from '../runtime/lifecycle.js';
import { bindError, checkPortFree } from '../runtime/ports.js';
import { readPem } from '../runtime/tls.js';
import { type GatewayConfig, gatewayConfigHelp, loadGatewayConfig, resolveServiceToken } from './config.js';
import { createCoreClients } from './core-client.js';
import { createGatewayLogger, type GatewayLogger } from './log.js';
import { createGatewayMetrics } from './metrics.js';
import { gatewayPolicies, openSharedLimiters } from './rate-limit.js';
import { createGateway } from './server.js';

/** A running gateway. */
export interface RunningGateway extends Stoppable {
  /** The base URL of the first base path, for example http://127.0.0.1:8080/api/v1. */
  url: string;
  port: number;
  log: GatewayLogger & Stoppable['log'];
  /** The first step of close(), on its own: /healthz turns 503. */
  drain(): void;
  /** Drains, stops accepting, waits for open requests, then closes the connection to the core. */
  close(): Promise<void>;
  /** Past the shutdown deadline: drops every connection still open. */
  forceClose(): void;
}

/**
 * Reads the configuration from `env`, connects to the core and listens. `log` replaces the
 * log on stdout at LOG_LEVEL (tests pass a capture).
 */
export async function startGateway(env: NodeJS.ProcessEnv = process.env, log?: GatewayLogger): Promise<RunningGateway> {
  const config = loadGatewayConfig(env);
  // The default "every interface" is IPv6 and IPv4 together; a machine without IPv6 gets IPv4.
  if (config.host === '::' && !(await ipv6Available())) config.host = '0.0.0.0';
  // A port that is taken stops the start before the core or MongoDB is dialled.
  await checkPortFree(GATEWAY_ADDRESS, config.host, config.port);
  const gatewayLog = withFlush(log ?? createGatewayLogger(config.logLevel));
  const core = createCoreClients({
    coreUrl: config.coreUrl,
    serviceToken: resolveServiceToken(config),
    ...(config.coreTlsCa === undefined ? {} : { ca: readPem('CORE_TLS_CA', config.coreTlsCa) }),
    allowPlaintext: config.coreAllowPlaintext === true,
  });
  // With MONGODB_URI the rate limits are counted for the whole fleet of gateways in MongoDB;
  // without it, in this process's memory (server.ts's default).
  const shared =
    config.mongo === undefined ? undefined : openSharedLimiters(config.mongo, gatewayPolicies(config), gatewayLog);
  const gateway = createGateway({
    config,
    core,
    log: gatewayLog,
    limiters: shared === undefined ? undefined : { perKey: shared.perKey, authFailures: shared.authFailures },
    // Node's own series (CPU, memory, event-loop lag) only for a real process, not for tests.
    metrics: createGatewayMetrics({ defaultMetrics: log === undefined }),
  });

  try {
    await new Promise<void>((resolve, reject) => {
      gateway.server.once('error', reject);
      gateway.server.listen({ port: config.port, host: config.host, backlog: LISTEN_BACKLOG }, () => {
        gateway.server.off('error', reject);
        resolve();
      });
    });
    // The compatible endpoints' root form (docs/compat.md), on a port of its own when COMPAT_PORT is set.
    const compat = gateway.compatServer;
    if (compat !== undefined) {
      await new Promise<void>((resolve, reject) => {
        compat.once('error', reject);
        compat.listen({ port: config.compatPort, host: config.host, backlog: LISTEN_BACKLOG }, () => {
          compat.off('error', reject);
          resolve();
        });
      });
    }
  } catch (error) {
    gateway.server.close();
    core.close();
    await shared?.close();
    throw bindError(GATEWAY_ADDRESS, config.host, config.port, error);
  }

  const { port } = gateway.server.address() as AddressInfo;
  const url = `${baseOrigin(config, port)}${config.basePaths[0]}`;
  gatewayLog.info('gateway.listening', {
    host: config.host,
    port,
    url,
    base_paths: config.basePaths,
    core_url: config.coreUrl,
    metrics: config.metricsAllow.length === 0 ? null : `${baseOrigin(config, port)}/metrics`,
    rate_limits: shared === undefined ? 'memory' : `mongo (database ${config.mongo?.dbName})`,
    log_level: config.logLevel,
  });

  let drained = false;
  const drain = () => {
    if (drained) return;
    drained = true;
    gateway.drain();
    gatewayLog.info('gateway.draining', { healthz: 503 });
  };
  let closing: Promise<void> | undefined;
  return {
    url,
    port,
    shutdownTimeoutMs: config.shutdownTimeoutMs,
    drainMs: config.shutdownDrainMs,
    log: gatewayLog,
    drain,
    close() {
      closing ??= (async () => {
        drain();
        try {
          await gateway.close();
        } finally {
          core.close();
          await shared?.close();
        }
        gatewayLog.info('gateway.stopped', {});
      })();
      return closing;
    },
    forceClose() {
      gateway.forceClose();
      core.close();
    },
  };
}

/** The variables of the gateway's address, for messages about it. */
export const GATEWAY_ADDRESS = { host: 'HOST', port: 'PORT' };

/** http://host:port as a client on this machine would dial it (a wildcard host is dialled as loopback). */
function baseOrigin(config: GatewayConfig, port: number): string {
  const shownHost = config.host === '0.0.0.0' || config.host === '::' ? '127.0.0.1' : config.host;
  return `http://${shownHost.includes(':') ? `[${shownHost}]` : shownHost}:${port}`;
}

/** A log with a flush, whether or not the one given has one (a test's capture has none). */
function withFlush(log: GatewayLogger): GatewayLogger & Stoppable['log'] {
  return { ...log, flush: log.flush ?? (async () => {}) };
}

/** Prints the gateway's configuration table. */
export function printGatewayHelp(): void {
  console.log(gatewayConfigHelp());
}

const isEntryPoint = process.argv[1] !== undefined && import.meta.url === pathToFileURL(process.argv[1]).href;

if (isEntryPoint) {
  if (processFlags().kind === 'help') printGatewayHelp();
  else
    await runUntilSignal(async () => {
      const gateway = await startGateway();
      announceReady([['API', gateway.url]]);
      return gateway;
    });
}

/** Whether this machine can listen on IPv6 at all (some containers have it switched off). */
async function ipv6Available(): Promise<boolean> {
  const probe = net.createServer();
  try {
    await new Promise<void>((resolve, reject) => {
      probe.once('error', reject);
      probe.listen({ host: '::', port: 0 }, () => resolve());
    });
    return true;
  } catch {
    return false;
  } finally {
    probe.close();
  }
}
