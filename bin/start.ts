/**
 * `npm start`: the core and the gateway in one process, on the embedded defaults. The
 * gateway still talks to the core over gRPC on loopback, exactly as when they run apart
 * (`npm run start:core`, `npm run start:gateway` with CORE_URL).
 */
import { printCoreHelp, runUntilSignal, startCore } from '../core/main.js';
import { startGateway } from '../gateway/main.js';

if (process.argv.includes('--help')) {
  printCoreHelp();
  console.log('\nThe gateway\'s variables are listed in README.md ("Configuration").');
} else {
  await runUntilSignal(async () => {
    const core = await startCore();
    const [host, port] = [core.address.slice(0, core.address.lastIndexOf(':')), core.port];
    const coreHost = host === '0.0.0.0' || host === '::' ? '127.0.0.1' : host;
    try {
      const gateway = await startGateway({ ...process.env, CORE_URL: `http://${coreHost.includes(':') ? `[${coreHost}]` : coreHost}:${port}`, DATA_DIR: core.dataDir });
      return {
        async close() {
          // The gateway first, so no new purchase reaches a core that is shutting down.
          await gateway.close();
          await core.close();
        },
      };
    } catch (error) {
      await core.close();
      throw error;
    }
  });
}
