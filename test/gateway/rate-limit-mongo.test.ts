/**
 * Rate limits shared through MongoDB. Without a server here, the tests point the gateway
 * at a fake that answers the driver's handshake and refuses every command (or never
 * answers it, as a stalled server), and at a port nobody listens on: the in-memory
 * insurance limiter must then keep the limit per process (never let everything through),
 * and say so in the log. The fake also answers index creation as a database whose indexes
 * rate-limiter-flexible made under its own names. With MONGODB_URI set, two gateways'
 * limiters on one database are shown to count together.
 */
import { randomUUID } from 'node:crypto';
import net, { type AddressInfo } from 'node:net';
import { type IndexDescription, Long, MongoClient } from 'mongodb';
import { RateLimiterMemory, RateLimiterRes } from 'rate-limiter-flexible';
import * as assert from 'uvu/assert';
import { loadGatewayConfig } from '../../gateway/config.js';
import type { GatewayLogger } from '../../gateway/log.js';
import { startGateway } from '../../gateway/main.js';
import {
  boundedCounters,
  type ExistingIndex,
  gatewayPolicies,
  indexesToCreate,
  isIndexClash,
  openSharedLimiters,
  SHARED_COUNTERS_COLLECTION,
  SHARED_INDEXES,
  SHARED_WINDOWS_COLLECTION,
  type SharedLimiters,
} from '../../gateway/rate-limit.js';
import { CounterDeadlineError } from '../../gateway/sliding-window.js';
import { ConfigError } from '../../runtime/env-schema.js';
import { type FakeMongo, SILENCE, startFakeMongo } from '../core/store/mongo-wire.js';
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

/**
 * The promise's result, or a failure if it has not settled after `ms`: a guard against a
 * test hanging forever when a bound it checks is missing, far above the bound itself (it
 * times nothing).
 */
async function settles<T>(promise: Promise<T>, ms: number, what: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const guard = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`${what} had not answered after ${ms} ms`)), ms);
  });
  try {
    return await Promise.race([promise, guard]);
  } finally {
    clearTimeout(timer);
  }
}

/**
 * Far above the deadlines the tests set (50 ms), so that it never fires on a loaded machine unless a call is unbounded.
 */
const HANG_GUARD_MS = 20_000;

const config = suite('gateway config: shared rate limits');

config('without MONGODB_URI the gateway counts in memory; with it, in MONGODB_DB (default prepaid)', () => {
  assert.not.ok('mongo' in loadGatewayConfig({}), 'no MongoDB setting at all');
  assert.equal(loadGatewayConfig({ MONGODB_URI: 'mongodb://db1,db2/?replicaSet=rs0' }).mongo, {
    uri: 'mongodb://db1,db2/?replicaSet=rs0',
    dbName: 'prepaid',
  });
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

insured(
  'a MongoDB that refuses the counters leaves the limit to memory: still 3 a minute, and logged once',
  async () => {
    fake = await startFakeMongo({ setName: 'rs0', maxWireVersion: 21 });
    const { log, logged } = capture();
    shared = openSharedLimiters(
      { uri: fake.uri, dbName: 'prepaid' },
      gatewayPolicies({ rateLimitPerMinute: 3, authFailuresPerMinute: 2 }),
      log,
    );

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
  },
);

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

insured(
  'the gateway started with MONGODB_URI uses the shared limiters end to end, insured while MongoDB fails',
  async () => {
    let core: TestCore | undefined;
    let running: Awaited<ReturnType<typeof startGateway>> | undefined;
    try {
      core = await startCore();
      fake = await startFakeMongo({ setName: 'rs0', maxWireVersion: 21 });
      const { log, logged } = capture();
      running = await startGateway(
        {
          CORE_URL: core.url,
          SERVICE_TOKEN: core.serviceToken,
          PORT: '0',
          HOST: '127.0.0.1',
          MONGODB_URI: fake.uri,
          RATE_LIMIT_PER_MINUTE: '3',
        },
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
      assert.ok(
        logged.some((l) => l.message === 'rate_limit.shared_store_failed' && l.fields?.['policy'] === 'per-key'),
      );
      assert.ok(fake.commands.includes('findAndModify'), 'the gateway asked MongoDB first');
    } finally {
      await running?.close();
      await core?.close();
    }
  },
);

insured(
  'a MongoDB that takes the counter updates and never answers costs each call its ' +
    'deadline, and the limit holds in memory',
  async () => {
    fake = await startFakeMongo({ setName: 'rs0', maxWireVersion: 21, answer: () => SILENCE });
    const { log, logged } = capture();
    // socketTimeoutMS 0: the driver alone would wait for the reply forever, so only the
    // per-call deadline can end these calls.
    shared = openSharedLimiters(
      { uri: fake.uri, dbName: 'prepaid' },
      gatewayPolicies({ rateLimitPerMinute: 2, authFailuresPerMinute: 1 }),
      log,
      { socketTimeoutMS: 0 },
      50,
    );
    const limiters = shared;
    const kinds = await settles(
      (async () => {
        const seen: string[] = [];
        for (let i = 0; i < 3; i++) seen.push((await limiters.perKey.consume('pk_stalled')).kind);
        seen.push((await limiters.perKey.peek('pk_stalled')).kind);
        await limiters.perKey.reward('pk_stalled');
        for (let i = 0; i < 2; i++) seen.push((await limiters.authFailures.consume('203.0.113.7')).kind);
        return seen;
      })(),
      HANG_GUARD_MS,
      'a limiter on a stalled MongoDB',
    );
    // Neither open nor closed: counted in this gateway's memory, 2 a minute per key and 1 failed
    // authentication per address (the reward gave back nothing MongoDB had counted, but the
    // memory count it went to had one to give).
    assert.equal(kinds, ['allowed', 'allowed', 'limited', 'limited', 'allowed', 'limited']);
    assert.ok(fake.commands.includes('findAndModify'), 'the counts were sent to MongoDB, which never answered');
    assert.equal(
      logged.filter((l) => l.message === 'rate_limit.shared_store_failed').map((l) => l.fields?.['policy']),
      ['per-key', 'auth-failures'],
    );
  },
);

insured.run();

const deadline = suite('shared rate limits: the per-call bound');

deadline('a store that never answers is cut off at the deadline and the insurance counts instead', async () => {
  /** A limiter whose store takes every call and never answers. */
  class StalledLimiter extends RateLimiterMemory {
    calls = 0;
    override consume(): Promise<RateLimiterRes> {
      this.calls += 1;
      return new Promise(() => {});
    }
  }
  const stalled = new StalledLimiter({ points: 5, duration: 60 });
  const insurance = new RateLimiterMemory({ points: 1, duration: 60 });
  const bounded = boundedCounters(stalled, insurance, 50);
  const first = await settles(bounded.consume('k'), HANG_GUARD_MS, 'the bounded limiter');
  assert.is(first.consumedPoints, 1, 'counted once, by the insurance');
  const second = await settles(
    bounded.consume('k').then(
      () => 'allowed',
      (rejection: unknown) => rejection,
    ),
    HANG_GUARD_MS,
    'the bounded limiter',
  );
  assert.instance(second, RateLimiterRes, "the insurance's own limit applies");
  assert.is(stalled.calls, 2, 'each call was tried on the store first');
});

deadline('a key over its limit in the store is refused as it is, not handed to the insurance', async () => {
  const store = new RateLimiterMemory({ points: 1, duration: 60 });
  const insurance = new RateLimiterMemory({ points: 100, duration: 60 });
  const bounded = boundedCounters(store, insurance, 1_000);
  await bounded.consume('k');
  const over = await bounded.consume('k').then(
    () => 'allowed',
    (rejection: unknown) => rejection,
  );
  assert.instance(over, RateLimiterRes);
  assert.is(await insurance.get('k'), null, 'the insurance counted nothing');
});

deadline('the deadline error says how long the store was given', () => {
  assert.match(new CounterDeadlineError(1_000).message, 'did not answer within 1000 ms');
});

deadline.run();

const clashes = suite('shared rate limits: indexes that exist under other names');

/** The counters' indexes as rate-limiter-flexible creates them, under its default names. */
const LIBRARY_INDEXES: ExistingIndex[] = [
  { name: '_id_', key: { _id: 1 } },
  { name: 'expire_-1', key: { expire: -1 }, expireAfterSeconds: 0 },
  { name: 'key_1', key: { key: 1 }, unique: true },
];

clashes('only IndexOptionsConflict (85) and IndexKeySpecsConflict (86) are clashes', () => {
  assert.ok(isIndexClash({ code: 85, codeName: 'IndexOptionsConflict' }));
  assert.ok(isIndexClash({ code: 86, codeName: 'IndexKeySpecsConflict' }));
  for (const other of [
    { code: 11000 },
    { code: 13, codeName: 'Unauthorized' },
    new Error('connection refused'),
    null,
    'x',
    { code: '85' },
  ]) {
    assert.not.ok(isIndexClash(other), JSON.stringify(other));
  }
});

clashes("the library's indexes do the job of ours, whatever their names", () => {
  const counters = SHARED_INDEXES[SHARED_COUNTERS_COLLECTION]!;
  assert.equal(indexesToCreate(counters, LIBRARY_INDEXES), []);
  assert.equal(
    indexesToCreate(counters, [LIBRARY_INDEXES[0]!]),
    [...counters],
    'a collection with only _id still needs both',
  );
});

clashes('an index on the same keys that is not equivalent does not count', () => {
  const [key, expire] = SHARED_INDEXES[SHARED_COUNTERS_COLLECTION]! as [IndexDescription, IndexDescription];
  const cases: Array<[string, ExistingIndex, IndexDescription[]]> = [
    ['not unique', { name: 'key_1', key: { key: 1 } }, [key]],
    ['descending', { name: 'key_-1', key: { key: -1 }, unique: true }, [key]],
    ['another TTL', { name: 'expire_-1', key: { expire: -1 }, expireAfterSeconds: 60 }, [expire]],
    ['no TTL', { name: 'expire_-1', key: { expire: -1 } }, [expire]],
    [
      'partial',
      { name: 'key_1', key: { key: 1 }, unique: true, partialFilterExpression: { key: { $exists: true } } },
      [key],
    ],
    ['a compound index', { name: 'key_1_expire_1', key: { key: 1, expire: 1 }, unique: true }, [key]],
  ];
  for (const [what, existing, missing] of cases) {
    const other = existing.key['key'] === undefined ? LIBRARY_INDEXES[2]! : LIBRARY_INDEXES[1]!;
    assert.equal(indexesToCreate([key, expire], [LIBRARY_INDEXES[0]!, other, existing]), missing, what);
  }
  // Directions as the server returns them (doubles, or Long) compare as numbers.
  assert.equal(indexesToCreate([key], [{ key: { key: 1.0 }, unique: true }]), []);
});

/**
 * A fake that creates nothing: the counters' collection holds `existing`; a clash is answered 85, as the server does.
 */
function indexAnswers(existing: ExistingIndex[]) {
  const created: string[][] = [];
  const answer = (name: string, command: Record<string, unknown>) => {
    if (name === 'createIndexes') {
      const wanted = command['indexes'] as IndexDescription[];
      created.push([String(command['createIndexes']), ...wanted.map((index) => String(index.name))]);
      if (command['createIndexes'] !== SHARED_COUNTERS_COLLECTION) return { ok: 1 };
      const clash = wanted.find((index) =>
        existing.some((found) => JSON.stringify(found.key) === JSON.stringify(index.key) && found.name !== index.name),
      );
      if (clash === undefined) return { ok: 1 };
      return {
        ok: 0,
        code: 85,
        codeName: 'IndexOptionsConflict',
        errmsg: `Index already exists with a different name: ${clash.name}`,
      };
    }
    if (name === 'listIndexes')
      return {
        ok: 1,
        cursor: {
          id: Long.ZERO,
          ns: `prepaid.${command['listIndexes']}`,
          firstBatch: existing.map((index) => ({ v: 2, ...index })),
        },
      };
    return undefined;
  };
  return { created, answer };
}

clashes("a database with the library's indexes under its names starts without an error", async () => {
  const { created, answer } = indexAnswers(LIBRARY_INDEXES);
  fake = await startFakeMongo({ setName: 'rs0', maxWireVersion: 21, answer });
  const { log, logged } = capture();
  shared = openSharedLimiters(
    { uri: fake.uri, dbName: 'prepaid' },
    gatewayPolicies({ rateLimitPerMinute: 3, authFailuresPerMinute: 2 }),
    log,
  );
  await settles(shared.ready, HANG_GUARD_MS, 'the shared limiters');
  assert.equal(
    logged.filter((l) => l.level === 'error'),
    [],
    'no setup error',
  );
  assert.ok(fake.commands.includes('listIndexes'), 'the clash was looked into');
  assert.equal(
    created.filter(([collection]) => collection === SHARED_COUNTERS_COLLECTION),
    [[SHARED_COUNTERS_COLLECTION, 'rate_limits_key', 'rate_limits_expire']],
    'nothing was created again',
  );
  assert.ok(created.some(([collection]) => collection === SHARED_WINDOWS_COLLECTION));
});

clashes('a clash with an index that is not equivalent is still logged, and retried later', async () => {
  const { answer } = indexAnswers([LIBRARY_INDEXES[0]!, LIBRARY_INDEXES[1]!, { name: 'key_1', key: { key: 1 } }]);
  fake = await startFakeMongo({ setName: 'rs0', maxWireVersion: 21, answer });
  const logged = new Promise<LoggedLine>((resolve) => {
    shared = openSharedLimiters(
      { uri: fake!.uri, dbName: 'prepaid' },
      gatewayPolicies({ rateLimitPerMinute: 3, authFailuresPerMinute: 2 }),
      {
        info: () => {},
        error: (message, fields) => {
          if (message === 'rate_limit.shared_store_setup_failed') resolve({ level: 'error', message, fields });
        },
      },
    );
  });
  const line = await settles(logged, HANG_GUARD_MS, 'the setup');
  assert.match(String(line.fields?.['error']), 'Index already exists with a different name: rate_limits_key');
  assert.is(line.fields?.['retry_in_ms'], 30_000);
});

clashes.after.each(async () => {
  await shared?.close();
  shared = undefined;
  await fake?.close();
  fake = undefined;
});

clashes.run();

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
      const counter = await client
        .db(dbName)
        .collection(SHARED_COUNTERS_COLLECTION)
        .findOne({ key: 'per-key:pk_fleet' });
      assert.ok(counter, 'the counter lives in the shared collection');
      const indexes = (await client.db(dbName).collection(SHARED_COUNTERS_COLLECTION).indexes()).map((i) => i.name);
      assert.ok(indexes.includes('rate_limits_key') && indexes.includes('rate_limits_expire'));
    } finally {
      await client.close();
    }
  });

  fleet.run();
}
