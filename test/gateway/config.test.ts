/** The gateway configuration: defaults, validation that names the variable, and the service token. */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import * as assert from 'uvu/assert';
import { loadGatewayConfig, resolveServiceToken, trustedProxyList } from '../../gateway/config.js';
import { ConfigError } from '../../runtime/env-schema.js';
import { suite } from '../helpers/suite.js';

const test = suite('gateway config');

test('an empty environment gives the documented defaults', () => {
  assert.equal(loadGatewayConfig({}), {
    port: 8080,
    host: '::',
    basePaths: ['/api/v1', '/api'],
    coreUrl: 'http://127.0.0.1:50051',
    serviceToken: undefined,
    dataDir: './data',
    trustedProxies: [],
    connectionsPerAddress: 256,
    rateLimitPerMinute: 60,
    authFailuresPerMinute: 10,
    callbacksPerMinute: 600,
    authCacheTtlMs: 5_000,
    maxBodyBytes: 256 * 1024,
    logLevel: 'info',
    shutdownTimeoutMs: 20_000,
    shutdownDrainMs: 0,
    metricsAllow: ['127.0.0.0/8', '::1', '10.0.0.0/8', '172.16.0.0/12', '192.168.0.0/16', 'fc00::/7'],
    fundingCallbackAllow: [],
    compatRootDialect: 'msorg',
    compatWaitMs: 25_000,
  });
});

test('values are read from the environment', () => {
  const config = loadGatewayConfig({
    PORT: '9090',
    HOST: '127.0.0.1',
    BASE_PATHS: '/v1/, /prepaid',
    CORE_PORT: '6000',
    SERVICE_TOKEN: 'tok',
    DATA_DIR: '/var/lib/prepaid',
    TRUSTED_PROXIES: '10.0.0.0/8, 192.0.2.1, 2001:db8::/32',
    RATE_LIMIT_PER_MINUTE: '120',
    AUTH_FAILURES_PER_MINUTE: '3',
    AUTH_CACHE_TTL_MS: '0',
    MAX_BODY_BYTES: '4096',
  });
  assert.is(config.port, 9090);
  assert.equal(config.basePaths, ['/v1', '/prepaid']);
  assert.is(config.coreUrl, 'http://127.0.0.1:6000', 'CORE_PORT sets the default core address');
  assert.is(config.serviceToken, 'tok');
  assert.equal(config.trustedProxies, ['10.0.0.0/8', '192.0.2.1', '2001:db8::/32']);
  assert.is(config.rateLimitPerMinute, 120);
  assert.is(config.authCacheTtlMs, 0);
  // Plain http:// to another machine needs the operator's opt-in.
  assert.is(
    loadGatewayConfig({ CORE_URL: 'http://core.internal:50051/', CORE_ALLOW_PLAINTEXT: 'yes' }).coreUrl,
    'http://core.internal:50051',
  );
  assert.is(loadGatewayConfig({ CORE_URL: 'https://core.internal:50051/' }).coreUrl, 'https://core.internal:50051');
});

const INVALID: [string, string][] = [
  ['PORT', 'eighty'],
  ['PORT', '70000'],
  ['CORE_PORT', '0'],
  ['CORE_URL', 'core:50051'],
  ['CORE_URL', 'ftp://core'],
  ['CORE_URL', 'http://10.0.0.5:50051'],
  ['CORE_TLS_CA', '/etc/prepaid/core-ca.pem'],
  ['CORE_ALLOW_PLAINTEXT', 'maybe'],
  ['BASE_PATHS', 'api'],
  ['BASE_PATHS', '/'],
  ['BASE_PATHS', '/healthz'],
  ['TRUSTED_PROXIES', '10.0.0.0/33'],
  ['TRUSTED_PROXIES', 'proxy.internal'],
  ['RATE_LIMIT_PER_MINUTE', '0'],
  ['RATE_LIMIT_PER_MINUTE', '1.5'],
  ['AUTH_FAILURES_PER_MINUTE', '-1'],
  ['AUTH_CACHE_TTL_MS', '600000'],
  ['MAX_BODY_BYTES', '10'],
];

for (const [variable, value] of INVALID) {
  test(`${variable}=${value} is refused with an error naming ${variable}`, () => {
    try {
      loadGatewayConfig({ [variable]: value });
      assert.unreachable('should have thrown');
    } catch (error) {
      assert.instance(error, ConfigError);
      assert.is((error as ConfigError).variable, variable);
      assert.ok((error as Error).message.startsWith(`${variable}:`));
    }
  });
}

test('without SERVICE_TOKEN the token is read from the data directory, or the start fails naming it', () => {
  const dir = mkdtempSync(path.join(tmpdir(), 'gateway-config-'));
  try {
    assert.throws(
      () => resolveServiceToken(loadGatewayConfig({ DATA_DIR: dir })),
      (e: Error) => e instanceof ConfigError && e.message.startsWith('SERVICE_TOKEN:'),
    );
    // A token file shorter than 16 characters is refused, naming the file.
    writeFileSync(path.join(dir, 'service.token'), 'from-file\n');
    assert.throws(
      () => resolveServiceToken(loadGatewayConfig({ DATA_DIR: dir })),
      (e: Error) =>
        e instanceof ConfigError &&
        e.message.startsWith('SERVICE_TOKEN:') &&
        e.message.includes('service.token holds a token of 9 characters'),
    );
    writeFileSync(path.join(dir, 'service.token'), 'from-file-0123456789\n');
    assert.is(resolveServiceToken(loadGatewayConfig({ DATA_DIR: dir })), 'from-file-0123456789');
    assert.is(resolveServiceToken(loadGatewayConfig({ DATA_DIR: dir, SERVICE_TOKEN: 'from-env' })), 'from-env');
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('trusted proxies match addresses and CIDRs', () => {
  const list = trustedProxyList(['10.0.0.0/8', '192.0.2.1', '2001:db8::/32']);
  assert.ok(list.check('10.200.3.4', 'ipv4'));
  assert.ok(list.check('192.0.2.1', 'ipv4'));
  assert.not.ok(list.check('192.0.2.2', 'ipv4'));
  assert.ok(list.check('2001:db8::5', 'ipv6'));
  assert.not.ok(list.check('2001:db9::5', 'ipv6'));
});

test.run();
