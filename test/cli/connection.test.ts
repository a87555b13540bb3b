import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import * as assert from 'uvu/assert';
import { CliError, UsageError } from '../../cli/command.js';
import { resolveAdminToken, resolveCoreUrl } from '../../cli/connection.js';
import { suite } from '../helpers/suite.js';

const test = suite('prepaid CLI: where the core is and which token to present');

test('the core URL comes from --core, else CORE_URL, else CORE_HOST and CORE_PORT', () => {
  const cases: Array<[Record<string, string>, string | undefined, string]> = [
    [{}, undefined, 'http://127.0.0.1:50051'],
    [{ CORE_PORT: '6000' }, undefined, 'http://127.0.0.1:6000'],
    [{ CORE_HOST: '10.1.2.3', CORE_PORT: '6000' }, undefined, 'http://10.1.2.3:6000'],
    [{ CORE_HOST: '0.0.0.0' }, undefined, 'http://127.0.0.1:50051'],
    [{ CORE_HOST: '::' }, undefined, 'http://127.0.0.1:50051'],
    [{ CORE_HOST: '::1' }, undefined, 'http://[::1]:50051'],
    [{ CORE_URL: 'http://core.internal:7000/', CORE_PORT: '6000' }, undefined, 'http://core.internal:7000'],
    [{ CORE_URL: 'http://core.internal:7000' }, 'https://other:443', 'https://other'],
    [{ CORE_URL: '  ' }, undefined, 'http://127.0.0.1:50051'],
  ];
  for (const [env, flag, expected] of cases)
    assert.is(resolveCoreUrl(env, flag), expected, JSON.stringify({ env, flag }));
});

test('a malformed --core is a usage error and a malformed CORE_PORT a configuration error', () => {
  assert.throws(
    () => resolveCoreUrl({}, 'not a url'),
    (e: unknown) => e instanceof UsageError,
  );
  assert.throws(
    () => resolveCoreUrl({ CORE_URL: 'grpc://x' }, undefined),
    (e: unknown) => e instanceof UsageError,
  );
  for (const port of ['0', '65536', '50051x', '-1']) {
    assert.throws(
      () => resolveCoreUrl({ CORE_PORT: port }, undefined),
      (e: unknown) => e instanceof CliError && e.code === 'CONFIG_ERROR',
    );
  }
});

test('the token comes from ADMIN_TOKEN, else DATA_DIR/admin.token, and its source is named, not its value', () => {
  const dataDir = mkdtempSync(path.join(tmpdir(), 'prepaid-cli-token-'));
  try {
    assert.throws(
      () => resolveAdminToken({ DATA_DIR: dataDir }),
      (e: unknown) => e instanceof CliError && e.code === 'NO_ADMIN_TOKEN',
    );
    writeFileSync(path.join(dataDir, 'admin.token'), 'token-from-the-file-0123456789\n', { mode: 0o600 });
    assert.equal(resolveAdminToken({ DATA_DIR: dataDir }), {
      token: 'token-from-the-file-0123456789',
      source: path.join(dataDir, 'admin.token'),
    });
    assert.equal(resolveAdminToken({ DATA_DIR: dataDir, ADMIN_TOKEN: 'token-from-the-environment' }), {
      token: 'token-from-the-environment',
      source: 'ADMIN_TOKEN',
    });
  } finally {
    rmSync(dataDir, { recursive: true, force: true });
  }
});

test.run();
