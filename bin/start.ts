/**
 * `npm start`: the core, the gateway and the developer area (dashboard) as one command and
 * one process, on the embedded defaults. The core runs on a worker thread, the gateway and
 * the dashboard on the main thread, so the core has its own event loop; both talk to the core
 * over gRPC on loopback, exactly as when they run apart (`npm run start:core`,
 * `npm run start:gateway`, `npm run start:dashboard`).
 *
 * Stopping (SIGTERM, SIGINT; runtime/lifecycle.ts bounds it by SHUTDOWN_TIMEOUT_MS): both
 * healths turn first (the gateway's /healthz 503, the core's gRPC health NOT_SERVING), then
 * the gateway and the dashboard stop accepting and finish their requests, then the core finishes its calls,
 * stops the recovery worker, closes the store and flushes its logs; then the process exits 0.
 */

import { once } from 'node:events';
import { Worker } from 'node:worker_threads';
import { CONSOLE_SCHEMA, consoleConfigHelp, loadConsoleConfig } from '../console/config.js';
import { CONSOLE_ADDRESS, startConsole } from '../console/main.js';
import { CORE_SCHEMA, coreConfigHelp, readCoreConfig } from '../core/config.js';
import type { CoreThreadCommand, CoreThreadMessage } from '../core/thread.js';
import { DASHBOARD_SCHEMA, dashboardConfigHelp, loadDashboardConfig } from '../dashboard/config.js';
import { DASHBOARD_ADDRESS, startDashboard } from '../dashboard/main.js';
import { GATEWAY_SCHEMA, gatewayConfigHelp, loadGatewayConfig } from '../gateway/config.js';
import { GATEWAY_ADDRESS, startGateway } from '../gateway/main.js';
import { ConfigError, markdownTable } from '../runtime/env-schema.js';
import { processFlags } from '../runtime/flags.js';
import { announceReady, runUntilSignal } from '../runtime/lifecycle.js';
import { checkDistinctPorts, checkPortFree } from '../runtime/ports.js';
import { isLoopbackHost } from '../runtime/url.js';

/** The core on its thread, as the main thread steers it. */
interface CoreThread {
  address: string;
  port: number;
  dataDir: string;
  /** gRPC health turns NOT_SERVING; calls are still taken. */
  drain(): void;
  /** The core's graceful stop; rejects when the core reports that it failed. */
  stop(): Promise<void>;
  /** Ends the thread at once (past the shutdown deadline). */
  terminate(): Promise<void>;
}

async function startCoreThread(env: NodeJS.ProcessEnv): Promise<CoreThread> {
  const worker = new Worker(new URL('./core-thread.js', import.meta.url), { workerData: { env } });
  const send = (command: CoreThreadCommand) => worker.postMessage(command);
  const [first] = (await Promise.race([
    once(worker, 'message'),
    once(worker, 'error').then(([error]) => Promise.reject(error)),
  ])) as [CoreThreadMessage];
  if (first.type === 'failed') {
    await worker.terminate();
    throw first.configError
      ? Object.assign(new ConfigError('', ''), { message: first.message })
      : new Error(first.message);
  }
  if (first.type !== 'ready') throw new Error(`unexpected message from the core thread: ${first.type}`);
  return {
    address: first.address,
    port: first.port,
    dataDir: first.dataDir,
    drain: () => send({ type: 'drain' }),
    async stop() {
      const answer = once(worker, 'message') as Promise<[CoreThreadMessage]>;
      send({ type: 'stop' });
      const [reply] = await Promise.race([
        answer,
        once(worker, 'exit').then((): [CoreThreadMessage] => [
          { type: 'stop_failed', message: 'the core thread exited before it stopped' },
        ]),
      ]);
      await worker.terminate();
      if (reply.type === 'stop_failed') throw new Error(`the core did not stop cleanly: ${reply.message}`);
    },
    async terminate() {
      await worker.terminate();
    },
  };
}

/**
 * The gateway's environment under npm start: the core's own address (CORE_PORT may be 0
 * for the core, a free port, which the gateway could not dial) and data directory. When the
 * core serves TLS (CORE_TLS_CERT), the gateway dials https://, and a core on this machine as
 * `localhost`, the name a local certificate carries (CORE_TLS_CA names its CA).
 */
function gatewayEnv(coreHost: string, corePort: number, dataDir: string): NodeJS.ProcessEnv {
  const tls = (process.env['CORE_TLS_CERT'] ?? '').trim() !== '';
  let dialled = coreHost === '0.0.0.0' || coreHost === '::' ? '127.0.0.1' : coreHost;
  if (tls && isLoopbackHost(dialled)) dialled = 'localhost';
  const coreUrl = `${tls ? 'https' : 'http'}://${dialled.includes(':') ? `[${dialled}]` : dialled}:${corePort}`;
  return { ...process.env, CORE_URL: coreUrl, CORE_PORT: String(corePort), DATA_DIR: dataDir };
}

const flags = processFlags(['--markdown']);
if (flags.kind === 'help') {
  if (flags.flags.has('--markdown')) {
    // The README's configuration tables, printed from the same schemas as the help.
    console.log(
      [
        `### The core\n\n${markdownTable(CORE_SCHEMA)}`,
        `### The gateway\n\n${markdownTable(GATEWAY_SCHEMA)}`,
        `### The dashboard\n\n${markdownTable(DASHBOARD_SCHEMA)}`,
        `### The console\n\n${markdownTable(CONSOLE_SCHEMA)}`,
      ].join('\n\n'),
    );
  } else {
    console.log(
      [
        coreConfigHelp(),
        gatewayConfigHelp(),
        dashboardConfigHelp(),
        consoleConfigHelp(),
        "Under npm start the CORE_URL of the gateway and the dashboard is the core's own address.",
      ].join('\n\n'),
    );
  }
} else {
  await runUntilSignal(async () => {
    // Both configurations are checked before anything starts, so a bad value in either
    // stops the start naming its variable, with nothing to undo.
    const coreConfig = readCoreConfig(process.env);
    const gatewayConfig = loadGatewayConfig(gatewayEnv('127.0.0.1', 1, process.env['DATA_DIR'] ?? ''));
    const dashboardConfig = loadDashboardConfig(gatewayEnv('127.0.0.1', 1, process.env['DATA_DIR'] ?? ''));
    const consoleConfig = loadConsoleConfig(process.env);
    // Both ports are checked before the core opens its store, so a taken PORT is not found
    // only after the core has started.
    // Two parts set to one port are a configuration error, said as one before anything opens.
    checkDistinctPorts([
      { names: { host: 'CORE_HOST', port: 'CORE_PORT' }, host: coreConfig.host, port: coreConfig.port },
      ...(coreConfig.metricsPort === null
        ? []
        : [
            {
              names: { host: 'CORE_METRICS_HOST', port: 'CORE_METRICS_PORT' },
              host: coreConfig.metricsHost,
              port: coreConfig.metricsPort,
            },
          ]),
      { names: GATEWAY_ADDRESS, host: gatewayConfig.host, port: gatewayConfig.port },
      { names: DASHBOARD_ADDRESS, host: dashboardConfig.host, port: dashboardConfig.port },
      { names: CONSOLE_ADDRESS, host: consoleConfig.host, port: consoleConfig.port },
    ]);
    await checkPortFree({ host: 'CORE_HOST', port: 'CORE_PORT' }, coreConfig.host, coreConfig.port);
    await checkPortFree(GATEWAY_ADDRESS, gatewayConfig.host, gatewayConfig.port);
    await checkPortFree(DASHBOARD_ADDRESS, dashboardConfig.host, dashboardConfig.port);
    await checkPortFree(CONSOLE_ADDRESS, consoleConfig.host, consoleConfig.port);
    // The core writes the developer area's and the console's addresses into invitation and
    // set-up links: unless told others, the ones these apps will have (their DASHBOARD_PORT and
    // CONSOLE_PORT), not the core's defaults.
    // One machine trying the platform: anyone may sign up in the developer area unless SIGNUP says otherwise.
    const core = await startCoreThread({
      ...process.env,
      DASHBOARD_PUBLIC_URL: dashboardConfig.publicUrl,
      CONSOLE_PUBLIC_URL: consoleConfig.publicUrl,
      SIGNUP: process.env['SIGNUP'] ?? 'open',
    });
    const host = core.address.slice(0, core.address.lastIndexOf(':'));
    try {
      const gateway = await startGateway(gatewayEnv(host, core.port, core.dataDir));
      // The Developers page shows the gateway's own address unless told another.
      const dashboard = await startDashboard({
        DASHBOARD_API_URL: gateway.url,
        ...gatewayEnv(host, core.port, core.dataDir),
      }).catch(async (error) => {
        await gateway.close();
        throw error;
      });
      // The console speaks to the core over loopback (CONSOLE_CORE_URL), with the core's service token.
      const consoleApp = await startConsole({
        ...process.env,
        CONSOLE_CORE_URL: `http://127.0.0.1:${core.port}`,
        DATA_DIR: core.dataDir,
      }).catch(async (error) => {
        await Promise.all([gateway.close(), dashboard.close()]);
        throw error;
      });
      announceReady([
        ['API', gateway.url],
        ['developer area', dashboard.url],
        ["operator's console", consoleApp.url],
        ['core (gRPC)', core.address],
      ]);
      return {
        shutdownTimeoutMs: gateway.shutdownTimeoutMs,
        drainMs: gateway.drainMs,
        log: gateway.log,
        drain() {
          // Both out of rotation first, while both still take work.
          gateway.drain();
          core.drain();
        },
        async close() {
          // The gateway and the dashboard first, so nothing new reaches a core that is shutting
          // down; then the core, which finishes what they sent.
          await Promise.all([gateway.close(), dashboard.close(), consoleApp.close()]);
          await core.stop();
        },
        forceClose() {
          gateway.forceClose();
          dashboard.forceClose();
          consoleApp.forceClose();
          // The core's thread ends where it is: a purchase cut off stays pending in the store
          // and the next start's recovery worker finishes it, as after a crash.
          void core.terminate();
        },
      };
    } catch (error) {
      await core.stop();
      throw error;
    }
  });
}
