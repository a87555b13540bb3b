/**
 * `npm start`: the core and the gateway as one command and one process, on the embedded
 * defaults. The core runs on a worker thread and the gateway on the main thread, so each
 * has its own event loop; the gateway still talks to the core over gRPC on loopback,
 * exactly as when they run apart (`npm run start:core`, `npm run start:gateway`).
 */
import { once } from 'node:events';
import { Worker } from 'node:worker_threads';
import { ConfigError } from '../core/config.js';
import { printCoreHelp, runUntilSignal } from '../core/main.js';
import type { CoreWorkerMessage } from '../core/worker.js';
import { startGateway } from '../gateway/main.js';

/** How long a graceful shutdown of the core may take before the thread is ended. */
const CORE_STOP_TIMEOUT_MS = 30_000;

async function startCoreThread(): Promise<{ address: string; port: number; dataDir: string; stop(): Promise<void> }> {
  const worker = new Worker(new URL('./core-thread.js', import.meta.url), { workerData: { env: { ...process.env } } });
  const [first] = (await Promise.race([
    once(worker, 'message'),
    once(worker, 'error').then(([error]) => Promise.reject(error)),
  ])) as [CoreWorkerMessage];
  if (first.type === 'failed') {
    await worker.terminate();
    throw first.configError ? Object.assign(new ConfigError('', ''), { message: first.message }) : new Error(first.message);
  }
  if (first.type !== 'ready') throw new Error(`unexpected message from the core thread: ${first.type}`);
  return {
    address: first.address,
    port: first.port,
    dataDir: first.dataDir,
    async stop() {
      const stopped = once(worker, 'message');
      worker.postMessage({ type: 'stop' });
      const timer = setTimeout(() => void worker.terminate(), CORE_STOP_TIMEOUT_MS);
      try {
        await Promise.race([stopped, once(worker, 'exit')]);
      } finally {
        clearTimeout(timer);
      }
      await worker.terminate();
    },
  };
}

if (process.argv.includes('--help')) {
  printCoreHelp();
  console.log('\nThe gateway\'s variables are listed in README.md ("Configuration").');
} else {
  await runUntilSignal(async () => {
    const core = await startCoreThread();
    const host = core.address.slice(0, core.address.lastIndexOf(':'));
    const coreHost = host === '0.0.0.0' || host === '::' ? '127.0.0.1' : host;
    try {
      const coreUrl = `http://${coreHost.includes(':') ? `[${coreHost}]` : coreHost}:${core.port}`;
      const gateway = await startGateway({ ...process.env, CORE_URL: coreUrl, DATA_DIR: core.dataDir });
      return {
        async close() {
          // The gateway first, so no new purchase reaches a core that is shutting down.
          await gateway.close();
          await core.stop();
        },
      };
    } catch (error) {
      await core.stop();
      throw error;
    }
  });
}
