/**
 * Key authentication and the client IP over real HTTP: IP-locked keys through a trusted
 * proxy, a forged X-Forwarded-For from an untrusted peer, the right-most untrusted hop, and
 * the short positive cache (a wrong secret is never served from it; a revoked key stops
 * working once the TTL runs out).
 */
import http from 'node:http';
import * as assert from 'uvu/assert';
import { normalizeAddress } from '../../runtime/client-ip.js';
import { startCore, type TestCore } from '../helpers/core.js';
import { type ApiKeys, startTestGateway, type TestGateway } from '../helpers/gateway.js';
import { suite } from '../helpers/suite.js';
import { assertError } from './fields.js';

const test = suite('gateway authentication');

const PROXY = '127.0.0.2';
const UNTRUSTED_PEER = '127.0.0.3';
const PARTNER_IP = '203.0.113.7';

let core: TestCore;
let gateway: TestGateway;

test.before(async () => {
  core = await startCore();
  gateway = await startTestGateway(core, { trustedProxies: [PROXY, '10.0.0.0/8'], authCacheTtlMs: 300 });
});

test.after(async () => {
  await gateway?.close();
  await core?.close();
});

async function lockedKeys(ips: string[]): Promise<ApiKeys> {
  const { publicKey, secretKey } = await core.createApiAccount({ balanceKobo: 1_000_000 });
  await core.admin.setApiKeyIpLock({ publicKey, allowedIps: ips });
  return { publicKey, secretKey };
}

test('an IP-locked key works through a trusted proxy that forwards the partner address', async () => {
  const keys = await lockedKeys([PARTNER_IP]);
  const reply = await gateway.request({
    query: { action: 'balance' },
    keys,
    localAddress: PROXY,
    headers: { 'X-Forwarded-For': PARTNER_IP },
  });
  assert.is(reply.status, 200, reply.text);
});

test('an IP-locked key from another address is 401 IP_NOT_ALLOWED, with a message that says so', async () => {
  const keys = await lockedKeys([PARTNER_IP]);
  const viaProxy = await gateway.request({
    query: { action: 'balance' },
    keys,
    localAddress: PROXY,
    headers: { 'X-Forwarded-For': '198.51.100.9' },
  });
  assertError(viaProxy, 401, 'IP_NOT_ALLOWED');
  assert.match(viaProxy.json.message, /locked to other IP addresses/);
  assert.match(viaProxy.json.message, /198\.51\.100\.9/);

  const direct = await gateway.request({ query: { action: 'balance' }, keys, localAddress: UNTRUSTED_PEER });
  assertError(direct, 401, 'IP_NOT_ALLOWED');
  assert.match(direct.json.message, /127\.0\.0\.3/);
});

test('on one keep-alive connection from a trusted proxy, each request is judged by its X-Forwarded-For', async () => {
  const keys = await lockedKeys([PARTNER_IP]);
  const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });
  const ask = (forwardedFor: string) =>
    new Promise<{ status: number; reused: boolean }>((resolve, reject) => {
      const req = http.get(
        {
          host: '127.0.0.1',
          port: gateway.port,
          path: `${gateway.config.basePaths[0]}?action=balance`,
          agent,
          localAddress: PROXY,
          headers: { 'X-Public-Key': keys.publicKey, 'X-Secret-Key': keys.secretKey, 'X-Forwarded-For': forwardedFor },
        },
        (res) => {
          res.resume();
          res.on('end', () => resolve({ status: res.statusCode ?? 0, reused: req.reusedSocket }));
        },
      );
      req.on('error', reject);
    });
  try {
    const answers = [await ask(PARTNER_IP), await ask('198.51.100.9'), await ask(PARTNER_IP)];
    assert.equal(
      answers.map((a) => a.status),
      [200, 401, 200],
    );
    assert.equal(
      answers.map((a) => a.reused),
      [false, true, true],
      'all three went over one connection',
    );
  } finally {
    agent.destroy();
  }
});

test('a forged X-Forwarded-For from an untrusted peer is ignored', async () => {
  const keys = await lockedKeys([PARTNER_IP]);
  const forged = await gateway.request({
    query: { action: 'balance' },
    keys,
    localAddress: UNTRUSTED_PEER,
    headers: { 'X-Forwarded-For': PARTNER_IP },
  });
  assertError(forged, 401, 'IP_NOT_ALLOWED');
  assert.match(forged.json.message, /127\.0\.0\.3/, 'the socket address is the one judged');
});

test('through a trusted proxy the right-most untrusted hop is the client, not what the client prepended', async () => {
  const keys = await lockedKeys([PARTNER_IP]);
  // The client forged PARTNER_IP; the proxy appended the real peer, 198.51.100.20.
  const forgedBehindProxy = await gateway.request({
    query: { action: 'balance' },
    keys,
    localAddress: PROXY,
    headers: { 'X-Forwarded-For': `${PARTNER_IP}, 198.51.100.20` },
  });
  assertError(forgedBehindProxy, 401, 'IP_NOT_ALLOWED');
  assert.match(forgedBehindProxy.json.message, /198\.51\.100\.20/);

  // Two trusted proxies in a row (10.0.0.0/8 is trusted): the partner is the hop before them.
  const chained = await gateway.request({
    query: { action: 'balance' },
    keys,
    localAddress: PROXY,
    headers: { 'X-Forwarded-For': `192.0.2.1, ${PARTNER_IP}, 10.1.2.3` },
  });
  assert.is(chained.status, 200, chained.text);
});

test('a trusted proxy that sends no X-Forwarded-For is itself the client', async () => {
  const keys = await lockedKeys([PROXY]);
  const reply = await gateway.request({ query: { action: 'balance' }, keys, localAddress: PROXY });
  assert.is(reply.status, 200, reply.text);
});

test('IP lock failures count against the address like any failed authentication', async () => {
  const strict = await startTestGateway(core, { authFailuresPerMinute: 2 });
  try {
    const keys = await lockedKeys([PARTNER_IP]);
    assertError(
      await strict.request({ query: { action: 'balance' }, keys, localAddress: '127.0.0.5' }),
      401,
      'IP_NOT_ALLOWED',
    );
    assertError(
      await strict.request({ query: { action: 'balance' }, keys, localAddress: '127.0.0.5' }),
      401,
      'IP_NOT_ALLOWED',
    );
    assertError(
      await strict.request({ query: { action: 'balance' }, keys, localAddress: '127.0.0.5' }),
      429,
      'RATE_LIMITED',
    );
  } finally {
    await strict.close();
  }
});

test('a cached success never answers a wrong secret or another address', async () => {
  const { publicKey, secretKey } = await core.createApiAccount({ balanceKobo: 1_000_000 });
  assert.is((await gateway.request({ query: { action: 'balance' }, keys: { publicKey, secretKey } })).status, 200);
  const wrong = await gateway.request({
    query: { action: 'balance' },
    keys: { publicKey, secretKey: `${secretKey.slice(0, -1)}${secretKey.endsWith('A') ? 'B' : 'A'}` },
  });
  assertError(wrong, 401, 'INVALID_API_KEY');

  await core.admin.setApiKeyIpLock({ publicKey, allowedIps: ['127.0.0.1'] });
  // 127.0.0.6 was never verified for this key, so the lock applies at once there.
  assertError(
    await gateway.request({ query: { action: 'balance' }, keys: { publicKey, secretKey }, localAddress: '127.0.0.6' }),
    401,
    'IP_NOT_ALLOWED',
  );
});

test('a key used, then locked: IP_NOT_ALLOWED names the address seen (a partner who moved needs it)', async () => {
  const { publicKey, secretKey } = await core.createApiAccount({ balanceKobo: 1_000_000 });
  const keys = { publicKey, secretKey };
  assert.is(
    (await gateway.request({ query: { action: 'balance' }, keys, localAddress: '127.0.0.8' })).status,
    200,
    'the pair is now known good',
  );
  await core.admin.setApiKeyIpLock({ publicKey, allowedIps: [PARTNER_IP] });
  const moved = await gateway.request({ query: { action: 'balance' }, keys, localAddress: '127.0.0.9' });
  assertError(moved, 401, 'IP_NOT_ALLOWED');
  assert.match(moved.json.message, /cannot be used from 127\.0\.0\.9\./);
});

test('a revoked key keeps working from the cache for at most the TTL, then is 401', async () => {
  const { publicKey, secretKey } = await core.createApiAccount({ balanceKobo: 1_000_000 });
  const keys = { publicKey, secretKey };
  assert.is((await gateway.request({ query: { action: 'balance' }, keys })).status, 200);
  await core.admin.revokeApiKey({ publicKey });
  const start = Date.now();
  let lastStatus = 200;
  while (Date.now() - start < 3_000) {
    lastStatus = (await gateway.request({ query: { action: 'balance' }, keys })).status;
    if (lastStatus === 401) break;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  assert.is(lastStatus, 401, 'revocation took effect');
  assert.ok(
    Date.now() - start < 2_000,
    `within the 300 ms TTL and some slack for a busy machine, took ${Date.now() - start} ms`,
  );
});

test('within the TTL a revoked key is still answered from the cache; with a TTL of 0 it is refused now', async () => {
  const cached = await startTestGateway(core, { authCacheTtlMs: 5_000 });
  const uncached = await startTestGateway(core, { authCacheTtlMs: 0 });
  try {
    const { publicKey, secretKey } = await core.createApiAccount({ balanceKobo: 1_000_000 });
    const keys = { publicKey, secretKey };
    assert.is((await cached.request({ query: { action: 'balance' }, keys })).status, 200);
    assert.is((await uncached.request({ query: { action: 'balance' }, keys })).status, 200);
    await core.admin.revokeApiKey({ publicKey });
    assert.is(
      (await cached.request({ query: { action: 'balance' }, keys })).status,
      200,
      'the documented grace: at most the TTL',
    );
    assertError(await uncached.request({ query: { action: 'balance' }, keys }), 401, 'INVALID_API_KEY');
  } finally {
    await cached.close();
    await uncached.close();
  }
});

test('normalizeAddress accepts the forms proxies write and refuses anything else', () => {
  assert.is(normalizeAddress('::ffff:203.0.113.7'), '203.0.113.7');
  assert.is(normalizeAddress(' 203.0.113.7:443 '), '203.0.113.7');
  assert.is(normalizeAddress('[2001:DB8::1]:443'), '2001:db8::1');
  assert.is(normalizeAddress('2001:db8::1'), '2001:db8::1');
  assert.is(normalizeAddress('unknown'), undefined);
  assert.is(normalizeAddress('203.0.113.7, 10.0.0.1'), undefined);
  assert.is(normalizeAddress(''), undefined);
});

test.run();
