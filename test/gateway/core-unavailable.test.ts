/**
 * The health check, and what a caller sees when the gateway cannot use the core: a core
 * that is down, or a gateway holding the wrong service token. Both are 503
 * CORE_UNAVAILABLE with an error id that the log carries too, never the internal message.
 */
import net from 'node:net';
import * as assert from 'uvu/assert';
import type { CoreClients } from '../../gateway/core-client.js';
import { createCoreHealth, HEALTH_CACHE_MS } from '../../gateway/routes.js';
import { HealthCheckResponse_ServingStatus } from '../../gen/grpc/health/v1/health_pb.js';
import { startCore, type TestCore } from '../helpers/core.js';
import { type ApiKeys, startTestGateway, type TestGateway } from '../helpers/gateway.js';
import { suite } from '../helpers/suite.js';
import { assertError } from './fields.js';

const test = suite('gateway health and an unavailable core');

let core: TestCore;
let gateway: TestGateway;
let keys: ApiKeys;

test.before(async () => {
  core = await startCore();
  gateway = await startTestGateway(core);
  const account = await core.createApiAccount({ balanceKobo: 100_000 });
  keys = { publicKey: account.publicKey, secretKey: account.secretKey };
});

test.after(async () => {
  await gateway?.close();
  await core?.close();
});

/** A port on which nothing listens. */
async function closedPort(): Promise<number> {
  const server = net.createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as net.AddressInfo;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

test('GET /healthz is 200 {"status":"ok"} while the core answers', async () => {
  const reply = await gateway.request({ path: '/healthz' });
  assert.is(reply.status, 200, reply.text);
  assert.equal(reply.json, { status: 'ok' });
});

test('/healthz takes GET only', async () => {
  const reply = await gateway.request({ path: '/healthz', method: 'POST', body: {} });
  assertError(reply, 405, 'METHOD_NOT_ALLOWED');
  assert.is(reply.headers['allow'], 'GET, HEAD');
});

test('with the core down, /healthz is 503 and an API call is 503 CORE_UNAVAILABLE with a logged error id', async () => {
  const orphan = await startTestGateway(core, { coreUrl: `http://127.0.0.1:${await closedPort()}` });
  try {
    const health = await orphan.request({ path: '/healthz' });
    assertError(health, 503, 'CORE_UNAVAILABLE');

    const reply = await orphan.request({ query: { action: 'balance' }, keys });
    assertError(reply, 503, 'CORE_UNAVAILABLE', { error_id: 'string' });
    assert.ok(
      orphan.logged.some((line) => line.level === 'error' && line.fields?.['error_id'] === reply.json.error_id),
      'the error id in the body is in the log',
    );
    assert.not.match(reply.text, /ECONNREFUSED|127\.0\.0\.1/, 'no internal detail in the body');

    // Missing keys need no core to be refused.
    assertError(await orphan.request({ query: { action: 'balance' } }), 401, 'MISSING_API_KEY');
  } finally {
    await orphan.close();
  }
});

test('a gateway whose service token the core refuses answers 503 CORE_UNAVAILABLE and logs it', async () => {
  const misconfigured = await startTestGateway(core, { serviceToken: 'not-the-service-token' });
  try {
    const reply = await misconfigured.request({ query: { action: 'balance' }, keys });
    assertError(reply, 503, 'CORE_UNAVAILABLE', { error_id: 'string' });
    const line = misconfigured.logged.find((l) => l.fields?.['error_id'] === reply.json.error_id);
    assert.ok(line, 'logged under the same error id');
    assert.is(line!.level, 'error');
  } finally {
    await misconfigured.close();
  }
});

test('a core that stops makes /healthz 503 for the gateway in front of it', async () => {
  const ownCore = await startCore();
  const front = await startTestGateway(ownCore);
  try {
    assert.is((await front.request({ path: '/healthz' })).status, 200);
    await ownCore.close();
    // The gateway reuses the core's health answer for HEALTH_CACHE_MS; poll past it.
    let reply = await front.request({ path: '/healthz' });
    for (let i = 0; i < 50 && reply.status === 200; i++) {
      await new Promise((resolve) => setTimeout(resolve, 100));
      reply = await front.request({ path: '/healthz' });
    }
    assertError(reply, 503, 'CORE_UNAVAILABLE');
  } finally {
    await front.close();
  }
});

test('the core is asked for its health at most once a second, however often /healthz is polled', async () => {
  let checks = 0;
  let nowMs = 0;
  const core = {
    health: {
      check: async () => {
        checks += 1;
        return { status: HealthCheckResponse_ServingStatus.SERVING };
      },
    },
  } as unknown as CoreClients;
  const serving = createCoreHealth(core, () => nowMs);
  const answers = await Promise.all(Array.from({ length: 100 }, () => serving()));
  assert.ok(answers.every(Boolean));
  assert.is(checks, 1, 'a hundred polls at once share one call');
  nowMs = HEALTH_CACHE_MS - 1;
  await serving();
  assert.is(checks, 1, 'within the second the answer is reused');
  nowMs = HEALTH_CACHE_MS + 1;
  await serving();
  assert.is(checks, 2, 'after it the core is asked again');
});

test.run();
