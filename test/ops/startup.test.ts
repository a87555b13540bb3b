/**
 * Start-up and flags: a port that is taken names its variable and stops
 * the start before the data directory or the store is touched; an unknown flag exits 2 with
 * the hint to --help; -h is --help; and `npm run dev` hands its arguments to the service and
 * exits with the service's status.
 */
import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import net from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import * as assert from 'uvu/assert';
import { CORE_SCHEMA } from '../../core/config.js';
import { startCore } from '../../core/main.js';
import { SQLITE_FILE } from '../../core/store/index.js';
import { DASHBOARD_SCHEMA } from '../../dashboard/config.js';
import { GATEWAY_SCHEMA } from '../../gateway/config.js';
import { startGateway } from '../../gateway/main.js';
import { ConfigError, schemaNames } from '../../runtime/env-schema.js';
import { suite } from '../helpers/suite.js';

const test = suite('ops: start-up and flags');

/** A command with `env` on top of an environment without the service's variables; killed after 20 s. */
function run(
  command: string,
  args: string[],
  env: Record<string, string>,
): Promise<{ code: number | null; stdout: string; stderr: string }> {
  const ours = new Set([...schemaNames(CORE_SCHEMA), ...schemaNames(GATEWAY_SCHEMA), ...schemaNames(DASHBOARD_SCHEMA)]);
  const inherited = Object.fromEntries(Object.entries(process.env).filter(([name]) => !ours.has(name)));
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, { env: { ...inherited, ...env }, timeout: 20_000 });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, stdout, stderr }));
  });
}

/** A port held by a listener of this test, closed by `release`. */
async function takenPort(): Promise<{ port: number; release(): Promise<void> }> {
  const holder = net.createServer();
  await new Promise<void>((resolve) => holder.listen(0, '127.0.0.1', resolve));
  return {
    port: (holder.address() as net.AddressInfo).port,
    release: () => new Promise((resolve) => holder.close(() => resolve())),
  };
}

/** Ports and data in a scratch place, so that a start that wrongly succeeded is harmless (and is killed). */
const SAFE = {
  CORE_PORT: '0',
  CORE_METRICS_PORT: 'off',
  PORT: '0',
  HOST: '127.0.0.1',
  DASHBOARD_PORT: '0',
  CONSOLE_PORT: '0',
  DASHBOARD_HOST: '127.0.0.1',
  LOG_LEVEL: 'silent',
  DATA_DIR: '/nonexistent/prepaid-startup-test',
};

test('an unknown flag exits 2 with the hint to --help, before anything starts, at every entry point', async () => {
  const entries = ['core/main.ts', 'gateway/main.ts', 'bin/start.ts'];
  const results = await Promise.all(
    entries.map((script) =>
      run(process.execPath, ['--import', 'tsx', script, '--port', '9000'], {
        ...SAFE,
        SERVICE_TOKEN: 'a-service-token-for-tests',
      }),
    ),
  );
  results.forEach(({ code, stdout, stderr }, i) => {
    assert.is(code, 2, `${entries[i]}: ${stderr}`);
    assert.match(stderr, 'Unknown option "--port"', entries[i]);
    assert.match(stderr, 'Run it with --help (or -h)', entries[i]);
    assert.not.match(stdout, 'listening', entries[i]);
  });
});

test('-h is --help at every entry point', async () => {
  const [core, gateway, both] = await Promise.all(
    ['core/main.ts', 'gateway/main.ts', 'bin/start.ts'].map((script) =>
      run(process.execPath, ['--import', 'tsx', script, '-h'], SAFE),
    ),
  );
  assert.is(core!.code, 0);
  assert.match(core!.stdout, 'Core configuration (environment variables):');
  assert.is(gateway!.code, 0);
  assert.match(gateway!.stdout, 'Gateway configuration (environment variables):');
  assert.is(both!.code, 0);
  assert.match(both!.stdout, 'Core configuration');
  assert.match(both!.stdout, 'Gateway configuration');
});

test('a taken CORE_PORT is named, and stops the core before DATA_DIR or the store is touched', async () => {
  const taken = await takenPort();
  const dataDir = path.join(mkdtempSync(path.join(tmpdir(), 'prepaid-startup-')), 'data');
  try {
    await startCore({
      DATA_DIR: dataDir,
      CORE_PORT: String(taken.port),
      CORE_METRICS_PORT: 'off',
      LOG_LEVEL: 'silent',
    }).then(
      async (running) => {
        await running.close();
        assert.unreachable('the core started on a taken port');
      },
      (error: unknown) => {
        assert.instance(error, ConfigError);
        assert.is((error as ConfigError).variable, 'CORE_PORT');
        assert.match((error as Error).message, `127.0.0.1:${taken.port} is already in use`);
      },
    );
    assert.not.ok(existsSync(dataDir), 'DATA_DIR was not created, so no store was opened');
  } finally {
    await taken.release();
    rmSync(path.dirname(dataDir), { recursive: true, force: true });
  }
});

test('a PORT that is taken names PORT: the gateway alone, and npm start before the core opens its store', async () => {
  const taken = await takenPort();
  const dataDir = path.join(mkdtempSync(path.join(tmpdir(), 'prepaid-startup-')), 'data');
  try {
    const env = {
      PORT: String(taken.port),
      HOST: '127.0.0.1',
      CORE_URL: 'http://127.0.0.1:1',
      SERVICE_TOKEN: 'a-service-token-for-tests',
    };
    await startGateway(env, { info() {}, error() {} }).then(
      async (running) => {
        await running.close();
        assert.unreachable('the gateway started on a taken port');
      },
      (error: unknown) => {
        assert.instance(error, ConfigError);
        assert.is((error as ConfigError).variable, 'PORT');
      },
    );
    const started = await run(process.execPath, ['--import', 'tsx', 'bin/start.ts'], {
      ...SAFE,
      DATA_DIR: dataDir,
      PORT: String(taken.port),
    });
    assert.is(started.code, 2, started.stderr);
    assert.match(started.stderr, `Configuration error: PORT: 127.0.0.1:${taken.port} is already in use`);
    assert.not.ok(existsSync(path.join(dataDir, SQLITE_FILE)), 'the core did not open its store');
  } finally {
    await taken.release();
    rmSync(path.dirname(dataDir), { recursive: true, force: true });
  }
});

test('npm run dev hands its arguments to the service and exits with its status', async () => {
  const [bogus, help] = await Promise.all([
    run('npm', ['run', '--silent', 'dev', '--', '--bogus'], SAFE),
    run('npm', ['run', '--silent', 'dev', '--', '-h'], SAFE),
  ]);
  assert.is(bogus.code, 2, bogus.stderr);
  assert.match(bogus.stderr, 'Unknown option "--bogus"');
  assert.is(help.code, 0, help.stderr);
  assert.match(help.stdout, 'Core configuration (environment variables):', 'the help passes the formatter unchanged');
});

test.run();
