/**
 * Rate limits shared through MongoDB. Without a server here, the tests point the gateway
 * at a fake that answers the driver's handshake and refuses every command, and at a port
 * nobody listens on: the in-memory insurance limiter must then keep the limit per
 * process (never let everything through), and say so in the log. With MONGODB_URI set,
 * two gateways' limiters on one database are shown to count together.
 */
import { randomUUID } from 'node:crypto';
import net, { type AddressInfo } from 'node:net';
import { MongoClient } from 'mongodb';
import * as assert from 'uvu/assert';
import { loadGatewayConfig } from '../../gateway/config.js';
import type { GatewayLogger } from '../../gateway/log.js';
import { startGateway } from '../../gateway/main.js';
import { gatewayPolicies, openSharedLimiters, SHARED_COUNTERS_COLLECTION, type SharedLimiters } from '../../gateway/rate-limit.js';
import { ConfigError } from '../../runtime/env-schema.js';
import { type FakeMongo, startFakeMongo } from '../core/store/mongo-wire.js';
import { startCore, type TestCore } from '../helpers/core.js';
import { type LoggedLine, send } from '../helpers/gateway.js';
import { suite } from '../helpers/suite.js';

function capture(): { log: GatewayLogger; logged: LoggedLine[] } {
  const logged: LoggedLine[] = [];
  return {
    logged,
    log: {
      info: (message, fields) => logged.push({ level: 'info', message, fields }),
      error: (message, fields) => logged.push({ level: 'error', message, fields }),
    },
  };
}

/** A localhost port with nothing listening on it. */
async function closedPort(): Promise<number> {
  const server = net.createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

const config = suite('gateway config: shared rate limits');

config('without MONGODB_URI the gateway counts in memory; with it, in MONGODB_DB (default prepaid)', () => {
  assert.not.ok('mongo' in loadGatewayConfig({}), 'no MongoDB setting at all');
  assert.equal(loadGatewayConfig({ MONGODB_URI: 'mongodb://db1,db2/?replicaSet=rs0' }).mongo, { uri: 'mongodb://db1,db2/?replicaSet=rs0', dbName: 'prepaid' });
  assert.equal(loadGatewayConfig({ MONGODB_URI: 'mongodb+srv://c.example.net', MONGODB_DB: 'limits' }).mongo, {
    uri: 'mongodb+srv://c.example.net',
    dbName: 'limits',
  });
});

config('a bad MONGODB_URI or MONGODB_DB stops the gateway with the variable named and no password repeated', () => {
  for (const [env, variable] of [
    [{ MONGODB_URI: 'redis://app:s3cret@db' }, 'MONGODB_URI'],
    [{ MONGODB_URI: 'mongodb://' }, 'MONGODB_URI'],
    [{ MONGODB_URI: 'mongodb://app:s3cret@db', MONGODB_DB: 'a.b' }, 'MONGODB_DB'],
  ] as const) {
    try {
      loadGatewayConfig(env);
      assert.unreachable('should have thrown');
    } catch (error) {
      assert.instance(error, ConfigError);
      assert.is((error as ConfigError).variable, variable);
      assert.not.ok((error as Error).message.includes('s3cret'));
    }
  }
});

config.run();

const insured = suite('shared rate limits when MongoDB fails');
let fake: FakeMongo | undefined;
let shared: SharedLimiters | undefined;

insured.after.each(async () => {
  await shared?.close();
  shared = undefined;
  await fake?.close();
  fake = undefined;
});

insured('a MongoDB that refuses the counters leaves the limit to memory: still 3 a minute, and logged once', async () => {
  fake = await startFakeMongo({ setName: 'rs0', maxWireVersion: 21 });
  const { log, logged } = capture();
  shared = openSharedLimiters({ uri: fake.uri, dbName: 'prepaid' }, gatewayPolicies({ rateLimitPerMinute: 3, authFailuresPerMinute: 2 }), log);

  const decisions = [];
  for (let i = 0; i < 5; i++) decisions.push(await shared.perKey.consume('pk_busy'));
  assert.equal(
    decisions.map((d) => d.kind),
    ['allowed', 'allowed', 'allowed', 'limited', 'limited'],
  );
  assert.equal(
    decisions.slice(0, 3).map((d) => (d.kind === 'allowed' ? d.remaining : -1)),
    [2, 1, 0],
  );
  assert.is((await shared.perKey.peek('pk_busy')).kind, 'limited');
  assert.equal(await shared.perKey.peek('pk_quiet'), { kind: 'allowed', remaining: 3, resetSeconds: 60 });
  // The failed-auth limit is insured the same way, per IP.
  assert.is((await shared.authFailures.consume('203.0.113.9')).kind, 'allowed');
  assert.is((await shared.authFailures.consume('203.0.113.9')).kind, 'allowed');
  assert.is((await shared.authFailures.consume('203.0.113.9')).kind, 'limited');

  assert.ok(fake.commands.includes('findAndModify'), 'each count was tried on MongoDB first');
  const fallbacks = logged.filter((l) => l.message === 'rate_limit.shared_store_failed');
  assert.equal(
    fallbacks.map((l) => [l.level, l.fields?.['policy'], l.fields?.['fallback']]),
    [
      ['error', 'per-key', 'memory'],
      ['error', 'auth-failures', 'memory'],
    ],
    'one report per policy, not one per request',
  );
  assert.ok(
    logged.some((l) => l.message === 'rate_limit.shared_store_setup_failed'),
    'the refused index creation is logged',
  );
});

insured('an unreachable MongoDB costs a request at most the short timeout, and the limit still holds', async () => {
  const { log, logged } = capture();
  const port = await closedPort();
  shared = openSharedLimiters(
    { uri: `mongodb://127.0.0.1:${port}/`, dbName: 'prepaid' },
    gatewayPolicies({ rateLimitPerMinute: 2, authFailuresPerMinute: 10 }),
    log,
    {
      serverSelectionTimeoutMS: 200,
    },
  );
  const started = Date.now();
  const first = await shared.perKey.consume('pk_one');
  assert.ok(Date.now() - started < 5_000, 'answered within the timeout, not the driver default of 30 s');
  assert.equal(first.kind, 'allowed');
  assert.is((await shared.perKey.consume('pk_one')).kind, 'allowed');
  assert.is((await shared.perKey.consume('pk_one')).kind, 'limited');
  assert.ok(logged.some((l) => l.message === 'rate_limit.shared_store_failed'));
});

insured('the gateway started with MONGODB_URI uses the shared limiters end to end, insured while MongoDB fails', async () => {
  let core: TestCore | undefined;
  let running: Awaited<ReturnType<typeof startGateway>> | undefined;
  try {
    core = await startCore();
    fake = await startFakeMongo({ setName: 'rs0', maxWireVersion: 21 });
    const { log, logged } = capture();
    running = await startGateway(
      { CORE_URL: core.url, SERVICE_TOKEN: core.serviceToken, PORT: '0', HOST: '127.0.0.1', MONGODB_URI: fake.uri, RATE_LIMIT_PER_MINUTE: '3' },
      log,
    );
    const keys = await core.createApiAccount({ balanceKobo: 100_000 });
    const statuses: number[] = [];
    const remaining: string[] = [];
    for (let i = 0; i < 4; i++) {
      const reply = await send(running.port, '/api/v1', { query: { action: 'balance' }, keys });
      statuses.push(reply.status);
      remaining.push(String(reply.headers['ratelimit']));
    }
    assert.equal(statuses, [200, 200, 200, 429]);
    assert.match(remaining[0]!, /^"per-key";r=2;t=\d+$/);
    assert.match(remaining[3]!, /^"per-key";r=0;t=\d+$/);
    const listening = logged.find((l) => l.message === 'gateway.listening');
    assert.is(listening?.fields?.['rate_limits'], 'mongo (database prepaid)');
    assert.ok(logged.some((l) => l.message === 'rate_limit.shared_store_failed' && l.fields?.['policy'] === 'per-key'));
    assert.ok(fake.commands.includes('findAndModify'), 'the gateway asked MongoDB first');
  } finally {
    await running?.close();
    await core?.close();
  }
});

insured.run();

const uri = process.env['MONGODB_URI']?.trim() ?? '';
if (uri === '') {
  console.log('shared rate limits on MongoDB: SKIPPED (set MONGODB_URI to run them against a server)');
  const skipped = suite('shared rate limits on MongoDB (MONGODB_URI not set)');
  skipped.skip('two gateways count one key together', () => {});
  skipped.run();
} else {
  const fleet = suite('shared rate limits on MongoDB');
  const dbName = `prepaid_limits_${randomUUID().replaceAll('-', '').slice(0, 16)}`;
  const gateways: SharedLimiters[] = [];

  fleet.after(async () => {
    for (const limiters of gateways.splice(0)) await limiters.close();
    const client = new MongoClient(uri);
    try {
      await client.db(dbName).dropDatabase();
    } finally {
      await client.close();
    }
  });

  fleet('two gateways count one key together: 5 a minute for the fleet, not per process', async () => {
    const { log, logged } = capture();
    const policies = gatewayPolicies({ rateLimitPerMinute: 5, authFailuresPerMinute: 10 });
    const a = openSharedLimiters({ uri, dbName }, policies, log);
    const b = openSharedLimiters({ uri, dbName }, policies, log);
    gateways.push(a, b);
    await Promise.all([a.ready, b.ready]);
    const kinds = [];
    for (let i = 0; i < 7; i++) kinds.push((await (i % 2 === 0 ? a : b).perKey.consume('pk_fleet')).kind);
    assert.equal(kinds, ['allowed', 'allowed', 'allowed', 'allowed', 'allowed', 'limited', 'limited']);
    assert.is((await b.perKey.peek('pk_fleet')).kind, 'limited');
    assert.is((await a.perKey.peek('pk_other')).kind, 'allowed');
    assert.equal(
      logged.filter((l) => l.level === 'error'),
      [],
      'MongoDB answered every count',
    );
    const client = new MongoClient(uri);
    try {
      const counter = await client.db(dbName).collection(SHARED_COUNTERS_COLLECTION).findOne({ key: 'per-key:pk_fleet' });
      assert.ok(counter, 'the counter lives in the shared collection');
      const indexes = (await client.db(dbName).collection(SHARED_COUNTERS_COLLECTION).indexes()).map((i) => i.name);
      assert.ok(indexes.includes('rate_limits_key') && indexes.includes('rate_limits_expire'));
    } finally {
      await client.close();
    }
  });

  fleet.run();
}
