/**
 * Configuration refused at start: PORT equal to DASHBOARD_PORT is one clear
 * configuration error before the store is opened (not "in use by another process" after
 * it); an admin or service token that is a trivial pattern is refused naming the variable.
 */
import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import net from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import * as assert from 'uvu/assert';
import { CORE_SCHEMA, readCoreConfig } from '../../core/config.js';
import { SQLITE_FILE } from '../../core/store/index.js';
import { DASHBOARD_SCHEMA } from '../../dashboard/config.js';
import { GATEWAY_SCHEMA } from '../../gateway/config.js';
import { ConfigError, schemaNames } from '../../runtime/env-schema.js';
import { suite } from '../helpers/suite.js';

const test = suite('ops: refused configurations');

function run(
  script: string,
  env: Record<string, string>,
): Promise<{ code: number | null; stdout: string; stderr: string }> {
  const inherited = Object.fromEntries(
    Object.entries(process.env).filter(
      ([name]) => ![CORE_SCHEMA, GATEWAY_SCHEMA, DASHBOARD_SCHEMA].some((schema) => schemaNames(schema).includes(name)),
    ),
  );
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['--import', 'tsx', script], {
      env: { ...inherited, ...env },
      timeout: 30_000,
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, stdout, stderr }));
  });
}

/** A port nothing listens on right now. */
async function freePort(): Promise<number> {
  const server = net.createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as net.AddressInfo;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

test('PORT equal to DASHBOARD_PORT: exit 2 naming both, before the store is opened', async () => {
  const dataDir = mkdtempSync(path.join(tmpdir(), 'prepaid-refusals-'));
  try {
    const port = String(await freePort());
    const result = await run('bin/start.ts', {
      DATA_DIR: dataDir,
      HOST: '127.0.0.1',
      PORT: port,
      DASHBOARD_HOST: '::',
      DASHBOARD_PORT: port,
      CORE_PORT: '0',
      CORE_METRICS_PORT: 'off',
    });
    assert.is(result.code, 2, result.stderr);
    assert.match(result.stderr, /^Configuration error: DASHBOARD_PORT: .*same port as PORT/);
    assert.not.match(result.stderr, /in use by another process/);
    assert.not.ok(existsSync(path.join(dataDir, SQLITE_FILE)), 'the store was never opened');
    assert.not.ok(result.stdout.includes('listening'));
  } finally {
    rmSync(dataDir, { recursive: true, force: true });
  }
});

test('an ADMIN_TOKEN of one repeated letter is refused at start, naming the variable', async () => {
  const result = await run('core/main.ts', {
    ADMIN_TOKEN: 'a'.repeat(16),
    CORE_PORT: '0',
    CORE_METRICS_PORT: 'off',
    DATA_DIR: '/nonexistent/prepaid-refusals',
  });
  assert.is(result.code, 2, result.stderr);
  assert.match(result.stderr, /^Configuration error: ADMIN_TOKEN: is too easy to guess/);
  assert.not.ok(result.stderr.includes('a'.repeat(16)), 'the token is not echoed');
});

test('trivial tokens are refused and random or chosen long ones accepted, for both tokens', () => {
  for (const name of ['ADMIN_TOKEN', 'SERVICE_TOKEN']) {
    for (const weak of [
      'aaaaaaaaaaaaaaaa',
      'abababababababab',
      'abcabcabcabcabcabc',
      '0123456789abcdef',
      'zyxwvutsrqponmlk',
      '1111122222333334',
    ]) {
      assert.throws(
        () => readCoreConfig({ [name]: weak }),
        (error: unknown) =>
          error instanceof ConfigError && error.variable === name && /too easy to guess/.test(error.message),
        `${name}=${weak}`,
      );
    }
    for (const fine of ['an-admin-token-of-some-length', 'Zq3xV9k2Lm8pR1tY', 'b4c1f09e7a2d38e6']) {
      assert.not.throws(() => readCoreConfig({ [name]: fine }), `${name}=${fine}`);
    }
  }
});

test.run();
