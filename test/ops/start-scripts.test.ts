/**
 * The developer area alone: `npm run start:dashboard`, beside start:core and
 * start:gateway, runs the dashboard against a core elsewhere; it says where on stderr (item 5),
 * serves its sign-in page and stops gracefully when the npm process a process manager holds
 * gets SIGTERM.
 */
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import * as assert from 'uvu/assert';
import { suite } from '../helpers/suite.js';
import { parseLines, request, type Service, startService, waitFor } from './service.js';

const test = suite('ops: npm run start:dashboard');

const START_TIMEOUT_MS = 60_000;

test('npm run start:dashboard serves the developer area against a core, exits 0 on SIGTERM to npm', async () => {
  let service: Service | undefined;
  let dashboard: ReturnType<typeof spawn> | undefined;
  try {
    service = await startService();
    dashboard = spawn('npm', ['run', 'start:dashboard', '--silent'], {
      env: {
        ...process.env,
        CORE_URL: service.coreUrl,
        DATA_DIR: service.dataDir,
        DASHBOARD_PORT: '0',
        DASHBOARD_HOST: '127.0.0.1',
        DASHBOARD_API_URL: service.gatewayUrl,
      },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    const exited = once(dashboard, 'exit');
    let stdout = '';
    let stderr = '';
    dashboard.stderr!.on('data', (chunk: Buffer) => (stderr += chunk.toString('utf8')));
    const url = await new Promise<string>((resolve, reject) => {
      const timer = setTimeout(
        () => reject(new Error(`start:dashboard did not start: ${stderr}\n${stdout}`)),
        START_TIMEOUT_MS,
      );
      dashboard!.stdout!.on('data', (chunk: Buffer) => {
        stdout += chunk.toString('utf8');
        const listening = parseLines(stdout).find((l) => l.event === 'dashboard.listening');
        if (listening) {
          clearTimeout(timer);
          resolve(String(listening['url']));
        }
      });
      void exited.then(([code]) => {
        clearTimeout(timer);
        reject(new Error(`start:dashboard exited (${code}): ${stderr}\n${stdout}`));
      });
    });

    // Its start-up line, for a person, on stderr.
    await waitFor(() => stderr.includes('Stop with'), 'the start-up line');
    assert.match(stderr, new RegExp(`^ {2}developer area +${url.replace(/[.[\]]/g, '\\$&')}$`, 'm'));

    const signIn = await request(url, '/sign-in');
    assert.is(signIn.status, 200, signIn.text);
    assert.match(signIn.text, /<form/);

    dashboard.kill('SIGTERM');
    const [code, signal] = await exited;
    assert.equal({ code, signal }, { code: 0, signal: null }, stderr);
    assert.ok(
      parseLines(stdout).some((l) => l.event === 'shutdown.completed'),
      stdout,
    );
  } finally {
    if (dashboard && dashboard.exitCode === null && dashboard.signalCode === null) dashboard.kill('SIGKILL');
    await service?.cleanup();
  }
});

test.run();
