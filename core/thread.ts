/**
 * The core on a worker thread, for `npm start`: the same startCore() as core/main.ts, so
 * the gateway on the main thread and the core each get an event loop (and a CPU core) while
 * the service stays one command and one process. The parent talks to it with messages: the
 * thread says {ready} or {failed}; the parent says {drain} (health turns NOT_SERVING) and
 * then {stop}; the thread says {stopped} once the core has shut down gracefully and its
 * logs are flushed. Signals go to the main thread only; bin/start.ts bounds the shutdown.
 */
import { parentPort, workerData } from 'node:worker_threads';
import { startCore } from './main.js';

export type CoreThreadMessage =
  | { type: 'ready'; address: string; port: number; dataDir: string; metricsAddress: string | null }
  | { type: 'failed'; message: string; configError: boolean }
  | { type: 'stopped' }
  | { type: 'stop_failed'; message: string };

/** What the parent sends. */
export type CoreThreadCommand = { type: 'drain' } | { type: 'stop' };

const port = parentPort!;
const env = (workerData as { env: Record<string, string | undefined> }).env;

try {
  const core = await startCore(env);
  port.postMessage({
    type: 'ready',
    address: core.address,
    port: core.port,
    dataDir: core.dataDir,
    metricsAddress: core.metricsAddress,
  } satisfies CoreThreadMessage);
  port.on('message', (message: CoreThreadCommand) => {
    if (message.type === 'drain') {
      core.drain();
      return;
    }
    if (message.type !== 'stop') return;
    core.close().then(
      () => {
        port.postMessage({ type: 'stopped' } satisfies CoreThreadMessage);
        port.close();
      },
      (error: unknown) => {
        // The parent logs it and exits 1 rather than wait for a stop that will not come.
        port.postMessage({
          type: 'stop_failed',
          message: error instanceof Error ? (error.stack ?? error.message) : String(error),
        } satisfies CoreThreadMessage);
        port.close();
      },
    );
  });
} catch (error) {
  const message = error instanceof Error ? error.message : String(error);
  port.postMessage({
    type: 'failed',
    message,
    configError: error instanceof Error && error.name === 'ConfigError',
  } satisfies CoreThreadMessage);
  port.close();
}
