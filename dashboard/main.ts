/**
 * The dashboard's composition root and the only file that listens: configuration, the client
 * of the core, the HTTP server. `npm run start:dashboard` runs it alone (CORE_URL points at the
 * core; `--help` prints its configuration); bin/start.ts calls startDashboard() beside the
 * core and the gateway.
 */
import type { AddressInfo } from 'node:net';
import { pathToFileURL } from 'node:url';
import { processFlags } from '../runtime/flags.js';
import { announceReady, runUntilSignal, type Stoppable } from '../runtime/lifecycle.js';
import { bindError, checkPortFree } from '../runtime/ports.js';
import { readPem } from '../runtime/tls.js';
import {
  dashboardConfigHelp,
  loadDashboardConfig,
  resolveDashboardSecret,
  resolveDashboardServiceToken,
} from './config.js';
import { createDashboardCore } from './core-client.js';
import { createDashboardLogger, type DashboardLogger } from './log.js';
import { createDashboard } from './server.js';

/** A running dashboard. */
export interface RunningDashboard extends Stoppable {
  /** http://host:port as a browser on this machine opens it. */
  url: string;
  port: number;
  drain(): void;
  close(): Promise<void>;
  forceClose(): void;
}

/** The variables of the dashboard's address, for messages about it. */
export const DASHBOARD_ADDRESS = { host: 'DASHBOARD_HOST', port: 'DASHBOARD_PORT' };

/** Reads the configuration from `env`, connects to the core and listens. */
export async function startDashboard(
  env: NodeJS.ProcessEnv = process.env,
  log?: DashboardLogger,
): Promise<RunningDashboard> {
  const config = loadDashboardConfig(env);
  await checkPortFree(DASHBOARD_ADDRESS, config.host, config.port).catch(async (error) => {
    // A machine without IPv6 cannot bind '::'; the default then falls back to IPv4.
    if (config.host !== '::') throw error;
    config.host = '0.0.0.0';
    await checkPortFree(DASHBOARD_ADDRESS, config.host, config.port);
  });
  const dashboardLog = log ?? createDashboardLogger(config.logLevel);
  const core = createDashboardCore({
    coreUrl: config.coreUrl,
    serviceToken: resolveDashboardServiceToken(config),
    ...(config.coreTlsCa === undefined ? {} : { ca: readPem('CORE_TLS_CA', config.coreTlsCa) }),
    allowPlaintext: config.coreAllowPlaintext === true,
  });
  const dashboard = createDashboard({ config, core, secret: resolveDashboardSecret(config), log: dashboardLog });
  try {
    await new Promise<void>((resolve, reject) => {
      dashboard.server.once('error', reject);
      dashboard.server.listen(config.port, config.host, () => {
        dashboard.server.off('error', reject);
        resolve();
      });
    });
  } catch (error) {
    core.close();
    throw bindError(DASHBOARD_ADDRESS, config.host, config.port, error);
  }
  const { port } = dashboard.server.address() as AddressInfo;
  const shownHost = config.host === '::' || config.host === '0.0.0.0' ? '127.0.0.1' : config.host;
  const url = `http://${shownHost.includes(':') ? `[${shownHost}]` : shownHost}:${port}`;
  dashboardLog.info('dashboard.listening', {
    url,
    public_url: config.publicUrl,
    core_url: config.coreUrl,
    secure_cookies: config.secureCookies,
  });
  let closing: Promise<void> | undefined;
  return {
    url,
    port,
    shutdownTimeoutMs: config.shutdownTimeoutMs,
    drainMs: 0,
    log: { ...dashboardLog, flush: dashboardLog.flush ?? (async () => {}) } as Stoppable['log'],
    drain() {},
    close() {
      closing ??= (async () => {
        try {
          await dashboard.close();
        } finally {
          core.close();
        }
        dashboardLog.info('dashboard.stopped', {});
      })();
      return closing;
    },
    forceClose() {
      dashboard.forceClose();
      core.close();
    },
  };
}

const isEntryPoint = process.argv[1] !== undefined && import.meta.url === pathToFileURL(process.argv[1]).href;

if (isEntryPoint) {
  if (processFlags().kind === 'help') console.log(dashboardConfigHelp());
  else
    await runUntilSignal(async () => {
      const dashboard = await startDashboard();
      announceReady([['developer area', dashboard.url]]);
      return dashboard;
    });
}
