/**
 * The console's composition root and the only file that listens: configuration, the client of
 * the core, the HTTP server. `npm run start:console` runs it alone (`--help` prints its
 * configuration); bin/start.ts calls startConsole() beside the core, the gateway and the
 * developer area.
 */
import type { AddressInfo } from 'node:net';
import { pathToFileURL } from 'node:url';
import { createClient } from '@connectrpc/connect';
import { ConsoleService } from '../gen/prepaid/v1/console_pb.js';
import { createCoreTransport } from '../runtime/core-transport.js';
import { processFlags } from '../runtime/flags.js';
import { announceReady, runUntilSignal, type Stoppable } from '../runtime/lifecycle.js';
import { createProcessLog } from '../runtime/log.js';
import { bindError, checkPortFree } from '../runtime/ports.js';
import { consoleConfigHelp, loadConsoleConfig, resolveConsoleSecret, resolveConsoleServiceToken } from './config.js';
import { createConsole } from './server.js';

/** Every call to the core is bounded; a page waits no longer. */
const CALL_TIMEOUT_MS = 30_000;

export const CONSOLE_ADDRESS = { host: 'CONSOLE_HOST', port: 'CONSOLE_PORT' };

export interface RunningConsole extends Stoppable {
  url: string;
  port: number;
  close(): Promise<void>;
  forceClose(): void;
}

export async function startConsole(env: NodeJS.ProcessEnv = process.env): Promise<RunningConsole> {
  const config = loadConsoleConfig(env);
  await checkPortFree(CONSOLE_ADDRESS, config.host, config.port);
  const log = createProcessLog({ level: config.logLevel, service: 'console' });
  const transport = createCoreTransport({
    coreUrl: config.coreUrl,
    token: resolveConsoleServiceToken(config),
    defaultTimeoutMs: CALL_TIMEOUT_MS,
  });
  const app = createConsole({
    core: createClient(ConsoleService, transport),
    secret: resolveConsoleSecret(config),
    secureCookies: config.secureCookies,
    log,
  });
  try {
    await new Promise<void>((resolve, reject) => {
      app.server.once('error', reject);
      app.server.listen(config.port, config.host, () => {
        app.server.off('error', reject);
        resolve();
      });
    });
  } catch (error) {
    transport.close();
    throw bindError(CONSOLE_ADDRESS, config.host, config.port, error);
  }
  const { port } = app.server.address() as AddressInfo;
  const url = `http://${config.host.includes(':') ? `[${config.host}]` : config.host}:${port}`;
  log.info('console.listening', { url, core_url: config.coreUrl });
  let closing: Promise<void> | undefined;
  return {
    url,
    port,
    shutdownTimeoutMs: config.shutdownTimeoutMs,
    drainMs: 0,
    log,
    drain() {},
    close() {
      closing ??= (async () => {
        try {
          await app.close();
        } finally {
          transport.close();
        }
        log.info('console.stopped', {});
      })();
      return closing;
    },
    forceClose() {
      app.forceClose();
      transport.close();
    },
  };
}

const isEntryPoint = process.argv[1] !== undefined && import.meta.url === pathToFileURL(process.argv[1]).href;

if (isEntryPoint) {
  if (processFlags().kind === 'help') console.log(consoleConfigHelp());
  else
    await runUntilSignal(async () => {
      const running = await startConsole();
      announceReady([["operator's console", running.url]]);
      return running;
    });
}
