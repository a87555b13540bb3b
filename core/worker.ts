/**
 * The core on a worker thread, for `npm start`: the same startCore() as core/main.ts, so
 * the gateway on the main thread and the core each get an event loop (and a CPU core) while
 * the service stays one command and one process. The parent talks to it with three
 * messages: the worker says {ready} or {failed}; the parent says {stop}; the worker says
 * {stopped} once the core has shut down gracefully.
 */
import { parentPort, workerData } from 'node:worker_threads';
import { startCore } from './main.js';

export type CoreWorkerMessage =
  | { type: 'ready'; address: string; port: number; dataDir: string }
  | { type: 'failed'; message: string; configError: boolean }
  | { type: 'stopped' };

const port = parentPort!;
const env = (workerData as { env: Record<string, string | undefined> }).env;

try {
  const core = await startCore(env);
  port.postMessage({ type: 'ready', address: core.address, port: core.port, dataDir: core.dataDir } satisfies CoreWorkerMessage);
  port.on('message', (message: { type: string }) => {
    if (message.type !== 'stop') return;
    core.close().then(
      () => {
        port.postMessage({ type: 'stopped' } satisfies CoreWorkerMessage);
        port.close();
      },
      (error: unknown) => {
        // Let the parent see it as a failed shutdown rather than a silent hang.
        throw error;
      },
    );
  });
} catch (error) {
  const message = error instanceof Error ? error.message : String(error);
  port.postMessage({ type: 'failed', message, configError: error instanceof Error && error.name === 'ConfigError' } satisfies CoreWorkerMessage);
  port.close();
}
