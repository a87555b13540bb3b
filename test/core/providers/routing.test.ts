/**
 * Provider routing from configuration: PROVIDER_<FAMILY>=sandbox|vtpass, the sandbox by
 * default, VTpass's settings required only for what is routed to it, every error naming its
 * variable (and never echoing a secret), and core/main.ts actually wiring it.
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { createClient } from '@connectrpc/connect';
import { createGrpcTransport } from '@connectrpc/connect-node';
import * as assert from 'uvu/assert';
import { API_TIER_ID } from '../../../core/catalog/defaults.js';
import { CORE_CONFIG_HELP, DEFAULT_VTPASS_BASE_URL, readCoreConfig } from '../../../core/config.js';
import { startCore } from '../../../core/main.js';
import { ALL_SANDBOX, createProviders } from '../../../core/providers/index.js';
import { AdminService } from '../../../gen/prepaid/v1/admin_pb.js';
import { PurchaseService } from '../../../gen/prepaid/v1/purchase_pb.js';
import { ConfigError } from '../../../runtime/env-schema.js';
import { bearer } from '../../helpers/core.js';
import { startFakeVtpass } from '../../helpers/fake-vtpass.js';
import { suite } from '../../helpers/suite.js';

const test = suite('provider routing');

const KEYS = { VTPASS_API_KEY: 'api-key-123', VTPASS_PUBLIC_KEY: 'PK_public_456', VTPASS_SECRET_KEY: 'SK_secret_789' };

function configError(env: Record<string, string>): ConfigError {
  try {
    readCoreConfig(env);
  } catch (error) {
    assert.instance(error, ConfigError);
    return error as ConfigError;
  }
  throw new Error(`accepted ${JSON.stringify(env)}`);
}

test('by default every family is the sandbox and no VTpass setting is needed', () => {
  const { providers } = readCoreConfig({});
  assert.equal(providers.routing, ALL_SANDBOX);
  assert.is(providers.vtpass, null);
  assert.is(providers.vtpassSms, null);
});

test('each family is routed on its own; VTpass defaults to its sandbox host', () => {
  const { providers } = readCoreConfig({ PROVIDER_AIRTIME: 'vtpass', PROVIDER_DATA: 'VTPASS', ...KEYS });
  assert.equal(providers.routing, {
    airtime: ['vtpass'],
    data: ['vtpass'],
    electricity: ['sandbox'],
    cable: ['sandbox'],
    bulksms: ['sandbox'],
  });
  assert.equal(providers.vtpass, {
    baseUrl: DEFAULT_VTPASS_BASE_URL,
    apiKey: KEYS.VTPASS_API_KEY,
    publicKey: KEYS.VTPASS_PUBLIC_KEY,
    secretKey: KEYS.VTPASS_SECRET_KEY,
    fallbackPhone: '',
  });
  assert.is(providers.vtpassSms, null);
});

test('every wrong setting stops the start with a message naming its variable', () => {
  const cases: [Record<string, string>, string][] = [
    [{ PROVIDER_DATA: 'acme' }, 'PROVIDER_DATA'],
    [{ PROVIDER_DATA: 'vtpass,,sandbox', ...KEYS }, 'PROVIDER_DATA'],
    [{ PROVIDER_DATA: 'sandbox,sandbox' }, 'PROVIDER_DATA'],
    [{ PROVIDER_BULKSMS: 'sandbox,vtpass' }, 'PROVIDER_BULKSMS'],
    [{ PROVIDER_AIRTIME: 'sandbox,datahub' }, 'PROVIDER_AIRTIME'],
    [
      {
        UPSTREAMS: 'ck',
        UPSTREAM_CK_KIND: 'ported-number',
        UPSTREAM_CK_TOKEN: 'tok123',
        UPSTREAM_CK_BASE_URL: 'https://site.example/api/',
        PROVIDER_CABLE: 'ck',
      },
      'PROVIDER_CABLE',
    ],
    [{ PROVIDER_AIRTIME: 'vtpass' }, 'VTPASS_API_KEY'],
    [{ PROVIDER_CABLE: 'vtpass', ...KEYS }, 'VTPASS_FALLBACK_PHONE'],
    [{ PROVIDER_CABLE: 'vtpass', VTPASS_API_KEY: 'k', VTPASS_PUBLIC_KEY: 'p' }, 'VTPASS_SECRET_KEY'],
    [{ PROVIDER_CABLE: 'vtpass', ...KEYS, VTPASS_FALLBACK_PHONE: '08099999999' }, ''],
    [{ PROVIDER_ELECTRICITY: 'vtpass', ...KEYS, VTPASS_FALLBACK_PHONE: '8099999999' }, 'VTPASS_FALLBACK_PHONE'],
    [{ PROVIDER_AIRTIME: 'vtpass', ...KEYS, VTPASS_BASE_URL: 'http://vtpass.example/api/' }, 'VTPASS_BASE_URL'],
    [{ PROVIDER_AIRTIME: 'vtpass', ...KEYS, VTPASS_BASE_URL: 'https://user:pw@vtpass.com/api/' }, 'VTPASS_BASE_URL'],
    [{ PROVIDER_AIRTIME: 'vtpass', ...KEYS, VTPASS_BASE_URL: 'not a url' }, 'VTPASS_BASE_URL'],
    [{ PROVIDER_BULKSMS: 'vtpass' }, 'VTPASS_SMS_TOKEN'],
    [
      {
        PROVIDER_BULKSMS: 'vtpass',
        VTPASS_SMS_TOKEN: 't',
        VTPASS_SMS_SECRET: 's',
        VTPASS_SMS_SENDER: 'Far too long a name',
      },
      'VTPASS_SMS_SENDER',
    ],
  ];
  for (const [env, variable] of cases) {
    if (variable === '') {
      assert.ok(readCoreConfig(env).providers.vtpass, JSON.stringify(env));
      continue;
    }
    const error = configError(env);
    assert.match(error.message, variable, JSON.stringify(env));
  }
  assert.ok(
    readCoreConfig({ PROVIDER_AIRTIME: 'vtpass', ...KEYS, VTPASS_BASE_URL: 'http://127.0.0.1:8999/api/' }).providers
      .vtpass,
    'http to this machine is allowed',
  );
});

test('PROVIDER_<FAMILY> is an ordered list of upstream instances; a single name still works', () => {
  const { providers } = readCoreConfig({
    UPSTREAMS: 'datahub,ck',
    UPSTREAM_DATAHUB_KIND: 'ported-number',
    UPSTREAM_DATAHUB_BASE_URL: 'https://datahub.example/api/',
    UPSTREAM_DATAHUB_TOKEN: 'tok123',
    UPSTREAM_CK_KIND: 'clubkonnect',
    UPSTREAM_CK_USER_ID: 'CK100000001',
    UPSTREAM_CK_API_KEY: 'key456',
    PROVIDER_AIRTIME: 'ck, vtpass ,DATAHUB',
    PROVIDER_DATA: 'datahub',
    ...KEYS,
  });
  assert.equal(providers.routing.airtime, ['ck', 'vtpass', 'datahub']);
  assert.equal(providers.routing.data, ['datahub']);
  assert.equal(providers.routing.cable, ['sandbox']);
  assert.equal(
    providers.upstreams.map((u) => [u.name, u.kind]),
    [
      ['datahub', 'ported-number'],
      ['ck', 'clubkonnect'],
    ],
  );
  const built = createProviders(providers, {
    catalog: { getPlan: async () => null, getCablePackage: async () => null },
  });
  assert.equal([...built.supply.upstreams.keys()].sort(), ['ck', 'datahub', 'sandbox', 'vtpass']);
  assert.is(built.providers.airtime.name, 'ck', 'look-ups and syncs use the first of the route');
  assert.is(built.supply.upstreams.get('ck')!.kind, 'clubkonnect');
  assert.ok(built.supply.upstreams.get('ck')!.products.electricity, 'ClubKonnect sells electricity');
  assert.ok(built.supply.upstreams.get('ck')!.products.cable, 'and cable');
  assert.ok(built.supply.upstreams.get('datahub')!.products.electricity, 'the family sells electricity');
  assert.is(built.supply.upstreams.get('datahub')!.products.cable, undefined, 'but not cable');
});

test('a route naming an unknown upstream stops the start, naming the variable and the upstream', () => {
  const error = configError({ PROVIDER_DATA: 'sandbox,datahub' });
  assert.match(error.message, 'PROVIDER_DATA');
  assert.match(error.message, 'datahub');
  assert.match(error.message, 'UPSTREAMS');
});

test('a malformed secret is refused without repeating it', () => {
  const error = configError({ PROVIDER_AIRTIME: 'vtpass', ...KEYS, VTPASS_SECRET_KEY: 'SK live secret with spaces' });
  assert.match(error.message, 'VTPASS_SECRET_KEY');
  assert.not.match(error.message, 'live secret');
});

test('--help lists every routing variable and VTpass setting', () => {
  const names = CORE_CONFIG_HELP.map(([name]) => name);
  for (const name of [
    'PROVIDER_AIRTIME',
    'PROVIDER_DATA',
    'PROVIDER_ELECTRICITY',
    'PROVIDER_CABLE',
    'PROVIDER_BULKSMS',
    'VTPASS_BASE_URL',
    'VTPASS_API_KEY',
    'VTPASS_PUBLIC_KEY',
    'VTPASS_SECRET_KEY',
    'VTPASS_FALLBACK_PHONE',
    'VTPASS_SMS_URL',
    'VTPASS_SMS_TOKEN',
    'VTPASS_SMS_SECRET',
    'VTPASS_SMS_SENDER',
  ]) {
    assert.ok(names.includes(name), name);
  }
});

test('createProviders gives each family the provider its route names', () => {
  const config = readCoreConfig({
    PROVIDER_AIRTIME: 'vtpass',
    PROVIDER_ELECTRICITY: 'vtpass',
    ...KEYS,
    VTPASS_FALLBACK_PHONE: '08099999999',
  }).providers;
  const { providers } = createProviders(config, {
    catalog: { getPlan: async () => null, getCablePackage: async () => null },
  });
  assert.equal(Object.fromEntries(Object.entries(providers).map(([family, provider]) => [family, provider.name])), {
    airtime: 'vtpass',
    data: 'sandbox',
    electricity: 'vtpass',
    cable: 'sandbox',
    bulksms: 'sandbox',
  });
  assert.is(providers.data.listPlans, undefined, 'the sandbox publishes no plans');
});

test('core/main.ts routes purchases to VTpass when told to', async () => {
  const fake = await startFakeVtpass();
  const dataDir = mkdtempSync(path.join(tmpdir(), 'prepaid-routing-'));
  const running = await startCore({
    DATA_DIR: dataDir,
    CORE_PORT: '0',
    CORE_METRICS_PORT: '0',
    LOG_LEVEL: 'silent',
    PROVIDER_AIRTIME: 'vtpass',
    VTPASS_BASE_URL: fake.baseUrl,
    VTPASS_API_KEY: fake.apiKey,
    VTPASS_PUBLIC_KEY: fake.publicKey,
    VTPASS_SECRET_KEY: fake.secretKey,
  });
  try {
    const adminToken = readFileSync(path.join(dataDir, 'admin.token'), 'utf8').trim();
    const transport = createGrpcTransport({
      baseUrl: `http://127.0.0.1:${running.port}`,
      interceptors: [bearer(adminToken)],
    });
    const admin = createClient(AdminService, transport);
    const purchase = createClient(PurchaseService, transport);
    const created = await admin.createAccount({ name: 'Routing Test', tierId: API_TIER_ID });
    const accountId = created.account!.accountId;
    await admin.creditWallet({ accountId, amountKobo: 10_000_00n, memo: 'test' });
    const bought = await purchase.buyAirtime({ accountId, network: 'mtn', phone: '08011111111', amountKobo: 500_00n });
    assert.ok(fake.transactions.has(bought.transaction!.reference), 'VTpass took the airtime');
    const card = await purchase.verifyCustomer({ accountId, provider: 'dstv', smartCard: '7012345678' });
    assert.match(card.customerName, /^[A-Z][a-z]+ [A-Z][a-z]+$/, 'cable stayed on the sandbox');
    assert.not.ok(fake.calls.some((c) => c.path === '/api/merchant-verify'));
  } finally {
    await running.close();
    await fake.close();
    rmSync(dataDir, { recursive: true, force: true });
  }
});

test.run();
