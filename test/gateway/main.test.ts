/**
 * The gateway's composition root: startGateway() from an environment, reading the service
 * token the core wrote, and `node gateway/main.ts` as a process that stops cleanly on SIGTERM.
 */
import { spawn } from 'node:child_process';
import http from 'node:http';
import * as assert from 'uvu/assert';
import { startGateway } from '../../gateway/main.js';
import { startCore, type TestCore } from '../helpers/core.js';
import { send } from '../helpers/gateway.js';
import { suite } from '../helpers/suite.js';

const test = suite('gateway main');

let core: TestCore;

test.before(async () => {
  core = await startCore();
});

test.after(async () => {
  await core?.close();
});

const quiet = { info: () => {}, error: () => {} };

test('startGateway reads the service token from DATA_DIR, serves the API, and closes', async () => {
  const running = await startGateway(
    { PORT: '0', HOST: '127.0.0.1', CORE_URL: core.url, DATA_DIR: core.dataDir },
    quiet,
  );
  const { publicKey, secretKey } = await core.createApiAccount({ balanceKobo: 250_000 });
  const reply = await send(running.port, '/api/v1', { query: { action: 'balance' }, keys: { publicKey, secretKey } });
  assert.is(reply.status, 200, reply.text);
  assert.is(reply.json.balance, 2500);
  assert.is(running.url, `http://127.0.0.1:${running.port}/api/v1`);

  await running.close();
  const refused = await new Promise<boolean>((resolve) => {
    const req = http.get({ host: '127.0.0.1', port: running.port, path: '/healthz', agent: false }, () =>
      resolve(false),
    );
    req.on('error', () => resolve(true));
  });
  assert.ok(refused, 'the port is closed after close()');
});

test('startGateway refuses an invalid configuration before listening', async () => {
  try {
    await startGateway({ PORT: 'x', SERVICE_TOKEN: 't' }, quiet);
    assert.unreachable('should have thrown');
  } catch (error) {
    assert.match((error as Error).message, /^PORT:/);
  }
});

test('node gateway/main.ts starts, answers /healthz, and exits 0 on SIGTERM', async () => {
  const child = spawn(process.execPath, ['--import', 'tsx', 'gateway/main.ts'], {
    env: { ...process.env, PORT: '0', HOST: '127.0.0.1', CORE_URL: core.url, SERVICE_TOKEN: core.serviceToken },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  try {
    const port = await new Promise<number>((resolve, reject) => {
      let output = '';
      const timer = setTimeout(() => reject(new Error(`no listening line in: ${output}`)), 15_000);
      child.stdout.on('data', (chunk: Buffer) => {
        output += chunk.toString();
        const match = /"event":"gateway\.listening".*?"port":(\d+)/.exec(output);
        if (match) {
          clearTimeout(timer);
          resolve(Number(match[1]));
        }
      });
      child.on('exit', (code) => reject(new Error(`exited early with ${code}: ${output}`)));
    });
    const health = await send(port, '/api/v1', { path: '/healthz' });
    assert.is(health.status, 200);

    const exitCode = await new Promise<number | null>((resolve) => {
      child.on('exit', (code) => resolve(code));
      child.kill('SIGTERM');
    });
    assert.is(exitCode, 0);
  } finally {
    if (child.exitCode === null) child.kill('SIGKILL');
  }
});

test.run();
