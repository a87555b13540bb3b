/**
 * The rate limits over real HTTP: 60 requests a minute per key, counted after
 * authentication, with the IETF RateLimit headers; failed authentications limited per
 * client IP without touching anyone's key quota; and a failing counter store that lets
 * requests through instead of refusing them.
 */

import { RateLimiterMemory } from 'rate-limiter-flexible';
import * as assert from 'uvu/assert';
import { rateLimitHeaders } from '../../gateway/limiter.js';
import type { GatewayLogger } from '../../gateway/log.js';
import { createLimiter, createMemoryLimiter } from '../../gateway/rate-limit.js';
import { startCore, type TestCore } from '../helpers/core.js';
import { type ApiKeys, startTestGateway, type TestGateway } from '../helpers/gateway.js';
import { suite } from '../helpers/suite.js';
import { assertError } from './fields.js';

const test = suite('gateway rate limits');

let core: TestCore;
let gateway: TestGateway;

test.before(async () => {
  core = await startCore();
  // The spec's 60 per key; 5 failed authentications per IP keep the flood test short.
  gateway = await startTestGateway(core, { authFailuresPerMinute: 5 });
});

test.after(async () => {
  await gateway?.close();
  await core?.close();
});

async function keysOf(): Promise<ApiKeys> {
  const { publicKey, secretKey } = await core.createApiAccount({ balanceKobo: 1_000_000 });
  return { publicKey, secretKey };
}

test('the 61st request in a minute is 429 with Retry-After, while another key is unaffected', async () => {
  const busy = await keysOf();
  const quiet = await keysOf();
  for (let i = 1; i <= 60; i++) {
    const reply = await gateway.request({ query: { action: 'balance' }, keys: busy });
    assert.is(reply.status, 200, `request ${i}: ${reply.text}`);
    assert.is(reply.headers['ratelimit-policy'], '"per-key";q=60;w=60');
    assert.match(String(reply.headers['ratelimit']), new RegExp(`^"per-key";r=${60 - i};t=\\d+$`));
  }

  const limited = await gateway.request({ query: { action: 'balance' }, keys: busy });
  assertError(limited, 429, 'RATE_LIMITED');
  const retryAfter = Number(limited.headers['retry-after']);
  assert.ok(
    Number.isInteger(retryAfter) && retryAfter >= 1 && retryAfter <= 60,
    `Retry-After is 1..60 seconds: ${limited.headers['retry-after']}`,
  );
  assert.match(String(limited.headers['ratelimit']), /^"per-key";r=0;t=\d+$/);
  assert.is(limited.headers['ratelimit-policy'], '"per-key";q=60;w=60');

  // Purchases are limited too, and nothing is bought once the limit is hit.
  const purchasesBefore = core.sandbox.purchases.length;
  const purchase = await gateway.request({
    query: { action: 'airtime' },
    keys: busy,
    body: { network: 'mtn', phone: '08031234567', amount: 100 },
  });
  assertError(purchase, 429, 'RATE_LIMITED');
  assert.is(core.sandbox.purchases.length, purchasesBefore);

  const other = await gateway.request({ query: { action: 'balance' }, keys: quiet });
  assert.is(other.status, 200);
  assert.is(other.headers['ratelimit'], '"per-key";r=59;t=60');
});

test("a failed-auth flood from one IP is limited per IP and spends none of the victim key's quota", async () => {
  const victim = await keysOf();
  const wrong = { publicKey: victim.publicKey, secretKey: 'sk_guess' };
  // The victim is a working partner: its pair has been verified before the flood starts.
  assert.is(
    (await gateway.request({ query: { action: 'balance' }, keys: victim, localAddress: '127.0.0.3' })).status,
    200,
  );

  // The attacker's address gets five 401s, then 429s.
  for (let i = 1; i <= 5; i++) {
    const reply = await gateway.request({
      query: { action: 'balance' },
      keys: { ...wrong, secretKey: `sk_guess_${i}` },
      localAddress: '127.0.0.2',
    });
    assertError(reply, 401, 'INVALID_API_KEY');
    assert.is(reply.headers['ratelimit-policy'], '"auth-failures";q=5;w=60');
    assert.match(String(reply.headers['ratelimit']), new RegExp(`^"auth-failures";r=${5 - i};t=\\d+$`));
  }
  for (let i = 0; i < 3; i++) {
    const reply = await gateway.request({ query: { action: 'balance' }, keys: wrong, localAddress: '127.0.0.2' });
    assertError(reply, 429, 'RATE_LIMITED');
    assert.ok(Number(reply.headers['retry-after']) >= 1);
  }
  // Strangers guessing from an address do not lock out the partners behind it (a shared NAT,
  // a proxy): a pair known to be right still works from there.
  const rightKeysFromAttacker = await gateway.request({
    query: { action: 'balance' },
    keys: victim,
    localAddress: '127.0.0.2',
  });
  assert.is(rightKeysFromAttacker.status, 200, rightKeysFromAttacker.text);
  // Missing keys cost the core nothing and are told so, limited address or not.
  assertError(
    await gateway.request({ query: { action: 'balance' }, localAddress: '127.0.0.2' }),
    401,
    'MISSING_API_KEY',
  );

  // The guesses spent none of the victim's own quota: two requests of its own so far.
  const victimReply = await gateway.request({ query: { action: 'balance' }, keys: victim, localAddress: '127.0.0.3' });
  assert.is(victimReply.status, 200, victimReply.text);
  assert.match(String(victimReply.headers['ratelimit']), /^"per-key";r=57;t=\d+$/);
});

test("requests without keys never reach the core and do not spend the address's allowance", async () => {
  for (let i = 0; i < 12; i++) {
    assertError(
      await gateway.request({ query: { action: 'balance' }, localAddress: '127.0.0.4' }),
      401,
      'MISSING_API_KEY',
    );
  }
  // The allowance is whole: a wrong key pair from the same address is still told it is wrong.
  const wrong = { publicKey: 'pk_000000000000000000000000', secretKey: 'sk_wrong' };
  assertError(
    await gateway.request({ query: { action: 'balance' }, keys: wrong, localAddress: '127.0.0.4' }),
    401,
    'INVALID_API_KEY',
  );
});

test('a small configured limit is honoured with the same headers', async () => {
  const small = await startTestGateway(core, { rateLimitPerMinute: 2 });
  try {
    const keys = await keysOf();
    assert.is((await small.request({ query: { action: 'balance' }, keys })).headers['ratelimit'], '"per-key";r=1;t=60');
    assert.is((await small.request({ query: { action: 'balance' }, keys })).status, 200);
    const third = await small.request({ query: { action: 'balance' }, keys });
    assertError(third, 429, 'RATE_LIMITED');
    assert.is(third.headers['ratelimit-policy'], '"per-key";q=2;w=60');
  } finally {
    await small.close();
  }
});

// --- the limiter itself -----------------------------------------------------------------

function capture(): { log: GatewayLogger; errors: string[] } {
  const errors: string[] = [];
  return { errors, log: { info: () => {}, error: (message) => errors.push(message) } };
}

/** A rate-limiter-flexible limiter whose store is down: every call rejects with an Error. */
class BrokenStoreLimiter extends RateLimiterMemory {
  override consume(): Promise<never> {
    return Promise.reject(new Error('store unreachable'));
  }
  override get(): Promise<never> {
    return Promise.reject(new Error('store unreachable'));
  }
}

test('a store failure lets the request through and is logged, unlike being over the limit', async () => {
  const { log, errors } = capture();
  const policy = { name: 'per-key', quota: 1, windowSeconds: 60 };
  const broken = createLimiter(policy, new BrokenStoreLimiter({ points: 1, duration: 60 }), log);
  assert.equal(await broken.consume('k'), { kind: 'unknown' });
  assert.equal(await broken.peek('k'), { kind: 'unknown' });
  assert.is(errors.length, 2);
  assert.equal(rateLimitHeaders(policy, { kind: 'unknown' }), { 'RateLimit-Policy': '"per-key";q=1;w=60' });

  const working = createMemoryLimiter(policy, log);
  assert.is((await working.consume('k')).kind, 'allowed');
  const over = await working.consume('k');
  assert.is(over.kind, 'limited');
  assert.is(errors.length, 2, 'being over the limit is not a logged fault');
});

test('peek reports the remaining allowance without spending it', async () => {
  const { log } = capture();
  const limiter = createMemoryLimiter({ name: 'auth-failures', quota: 2, windowSeconds: 60 }, log);
  assert.equal(await limiter.peek('ip'), { kind: 'allowed', remaining: 2, resetSeconds: 60 });
  await limiter.consume('ip');
  assert.is((await limiter.peek('ip')).kind, 'allowed');
  assert.is((await limiter.peek('ip')).kind, 'allowed', 'peeking twice spends nothing');
  await limiter.consume('ip');
  assert.is((await limiter.peek('ip')).kind, 'limited');
});

test.run();
