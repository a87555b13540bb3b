import { pathToFileURL } from 'node:url';
import { processFlags } from '../runtime/flags.js';
import { announceReady, runUntilSignal, type Stoppable } from '../runtime/lifecycle.js';
import { checkPortFree } from '../runtime/ports.js';
import { readPem } from '../runtime/tls.js';
import { listenWebApp, type RunningWebApp } from '../web/http.js';
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
export type RunningDashboard = RunningWebApp;

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
  const running = await listenWebApp({
    app: dashboard,
    names: DASHBOARD_ADDRESS,
    host: config.host,
    port: config.port,
    closeCore: () => core.close(),
    log: { ...dashboardLog, flush: dashboardLog.flush ?? (async () => {}) } as Stoppable['log'],
    service: 'dashboard',
    shutdownTimeoutMs: config.shutdownTimeoutMs,
  });
  dashboardLog.info('dashboard.listening', {
    url: running.url,
    public_url: config.publicUrl,
    core_url: config.coreUrl,
    secure_cookies: config.secureCookies,
  });
  return running;
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
