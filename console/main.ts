import { pathToFileURL } from 'node:url';
import { createClient } from '@connectrpc/connect';
import { ConsoleService } from '../gen/prepaid/v1/console_pb.js';
import { KycConsoleService } from '../gen/prepaid/v1/kyc_pb.js';
import { createCoreTransport } from '../runtime/core-transport.js';
import { processFlags } from '../runtime/flags.js';
import { announceReady, runUntilSignal } from '../runtime/lifecycle.js';
import { createProcessLog } from '../runtime/log.js';
import { checkPortFree } from '../runtime/ports.js';
import { readPem } from '../runtime/tls.js';
import { listenWebApp, type RunningWebApp } from '../web/http.js';
import { consoleConfigHelp, loadConsoleConfig, resolveConsoleSecret, resolveConsoleServiceToken } from './config.js';
import { createConsole } from './server.js';

/** Every call to the core is bounded; a page waits no longer. */
const CALL_TIMEOUT_MS = 30_000;

export const CONSOLE_ADDRESS = { host: 'CONSOLE_HOST', port: 'CONSOLE_PORT' };

export async function startConsole(env: NodeJS.ProcessEnv = process.env): Promise<RunningWebApp> {
  const config = loadConsoleConfig(env);
  await checkPortFree(CONSOLE_ADDRESS, config.host, config.port);
  const log = createProcessLog({ level: config.logLevel, service: 'console' });
  const transport = createCoreTransport({
    coreUrl: config.coreUrl,
    token: resolveConsoleServiceToken(config),
    defaultTimeoutMs: CALL_TIMEOUT_MS,
  });
  const app = createConsole({
    core: Object.assign(createClient(ConsoleService, transport), { kyc: createClient(KycConsoleService, transport) }),
    secret: resolveConsoleSecret(config),
    secureCookies: config.secureCookies,
    trustedProxies: config.trustedProxies,
    ...(config.tls === undefined
      ? {}
      : {
          tls: {
            cert: readPem('CONSOLE_TLS_CERT', config.tls.certFile),
            key: readPem('CONSOLE_TLS_KEY', config.tls.keyFile),
          },
        }),
    log,
  });
  const running = await listenWebApp({
    app,
    names: CONSOLE_ADDRESS,
    host: config.host,
    port: config.port,
    closeCore: () => transport.close(),
    log,
    service: 'console',
    shutdownTimeoutMs: config.shutdownTimeoutMs,
  });
  log.info('console.listening', { url: running.url, core_url: config.coreUrl });
  return running;
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
