/**
 * Limits an attacker cannot get around: wrong secrets sent all at once still reach the core
 * only as often as the address's failure budget allows; IPv6 clients are counted by their
 * /64; and the per-key limit is exact across a window boundary (60 in ANY 60 seconds), in
 * memory and in the shape of the shared MongoDB update.
 */
import * as assert from 'uvu/assert';
import { failureBudgetKey } from '../../gateway/pipeline.js';
import { createSlidingWindowLimiter, decisionOf, slidingWindowUpdate } from '../../gateway/sliding-window.js';
import { startCore, type TestCore } from '../helpers/core.js';
import { startTestGateway, type TestGateway } from '../helpers/gateway.js';
import { suite } from '../helpers/suite.js';

const attack = suite('failed authentications under concurrency');
let core: TestCore;
let gateway: TestGateway;

attack.before(async () => {
  core = await startCore();
  gateway = await startTestGateway(core, { authFailuresPerMinute: 5 });
});

attack.after(async () => {
  await gateway?.close();
  await core?.close();
});

attack('200 wrong secrets sent at once from one address: only the budget reaches the core', async () => {
  const victim = await core.createApiAccount({ balanceKobo: 100_000 });
  const replies = await Promise.all(
    Array.from({ length: 200 }, (_, i) =>
      gateway.request({
        query: { action: 'balance' },
        keys: { publicKey: victim.publicKey, secretKey: `sk_guess_${i}` },
        localAddress: '127.0.0.9',
      }),
    ),
  );
  const statuses = replies.map((reply) => `${reply.status} ${(reply.json as { code?: string }).code}`);
  // INVALID_API_KEY is the core's answer: it was asked exactly as often as the budget allows.
  assert.is(statuses.filter((s) => s === '401 INVALID_API_KEY').length, 5, statuses.join(', '));
  assert.is(statuses.filter((s) => s === '429 RATE_LIMITED').length, 195);
});

attack('a pair that is right keeps working from an address where strangers guess', async () => {
  const partner = await core.createApiAccount({ balanceKobo: 100_000 });
  assert.is(
    (await gateway.request({ query: { action: 'balance' }, keys: partner, localAddress: '127.0.0.10' })).status,
    200,
  );
  await Promise.all(
    Array.from({ length: 20 }, (_, i) =>
      gateway.request({
        query: { action: 'balance' },
        keys: { publicKey: `pk_${String(i).padStart(24, '0')}`, secretKey: 'sk_guess' },
        localAddress: '127.0.0.10',
      }),
    ),
  );
  const guess = await gateway.request({
    query: { action: 'balance' },
    keys: { publicKey: partner.publicKey, secretKey: 'sk_nope' },
    localAddress: '127.0.0.10',
  });
  assert.is(guess.status, 429, 'the address is over its failure budget');
  for (let i = 0; i < 3; i++) {
    const reply = await gateway.request({ query: { action: 'balance' }, keys: partner, localAddress: '127.0.0.10' });
    assert.is(reply.status, 200, reply.text);
  }
});

attack('a key header sent twice is refused with a message that says so', async () => {
  const partner = await core.createApiAccount({ balanceKobo: 100_000 });
  const reply = await gateway.request({
    query: { action: 'balance' },
    headers: { 'X-Public-Key': [partner.publicKey, partner.publicKey], 'X-Secret-Key': partner.secretKey },
  });
  assert.is(reply.status, 401);
  assert.match(String((reply.json as { message: string }).message), /X-Public-Key header was sent more than once/);
});

attack.run();

const addresses = suite('failure budget keys');

addresses('an IPv6 client is counted by its /64; IPv4 by its address', () => {
  assert.is(failureBudgetKey('2001:db8:1:2:aaaa::1'), '2001:db8:1:2::/64');
  assert.is(failureBudgetKey('2001:0db8:0001:0002:bbbb:cccc:dddd:eeee'), '2001:db8:1:2::/64');
  assert.is.not(failureBudgetKey('2001:db8:1:3::1'), '2001:db8:1:2::/64');
  assert.is(failureBudgetKey('::1'), '0:0:0:0::/64');
  assert.is(failureBudgetKey('fe80::1%eth0'), 'fe80:0:0:0::/64');
  assert.is(failureBudgetKey('203.0.113.7'), '203.0.113.7');
});

addresses.run();

const window = suite('per-key limit: 60 in any 60 seconds');

window('a burst straddling a minute boundary gets 60 through, not 120', async () => {
  let nowMs = 59_000;
  const limiter = createSlidingWindowLimiter({ name: 'per-key', quota: 60, windowSeconds: 60 }, () => nowMs);
  let allowed = 0;
  for (let i = 0; i < 60; i++) if ((await limiter.consume('pk')).kind === 'allowed') allowed += 1;
  // A fixed window would start afresh at 60 s; one second later the sixty are still in the window.
  nowMs = 60_500;
  for (let i = 0; i < 60; i++) if ((await limiter.consume('pk')).kind === 'allowed') allowed += 1;
  assert.is(allowed, 60);
  const limited = await limiter.consume('pk');
  assert.equal(limited, { kind: 'limited', resetSeconds: 59 }, 'a place frees when the oldest request is a minute old');
  // A minute after the burst, the window holds nothing again.
  nowMs = 119_001;
  assert.equal(await limiter.consume('pk'), { kind: 'allowed', remaining: 59, resetSeconds: 60 });
});

window('the headers stay truthful: remaining counts the window, reset is when the oldest leaves', async () => {
  let nowMs = 0;
  const limiter = createSlidingWindowLimiter({ name: 'per-key', quota: 3, windowSeconds: 60 }, () => nowMs);
  assert.equal(await limiter.consume('pk'), { kind: 'allowed', remaining: 2, resetSeconds: 60 });
  nowMs = 20_000;
  assert.equal(await limiter.consume('pk'), { kind: 'allowed', remaining: 1, resetSeconds: 40 });
  assert.equal(await limiter.peek('pk'), { kind: 'allowed', remaining: 1, resetSeconds: 40 });
  await limiter.consume('pk');
  assert.equal(await limiter.consume('pk'), { kind: 'limited', resetSeconds: 40 });
  nowMs = 60_000;
  assert.equal(await limiter.consume('pk'), { kind: 'allowed', remaining: 0, resetSeconds: 20 });
});

window('a busy key counts exactly while thousands of its times leave the window', async () => {
  let nowMs = 0;
  const limiter = createSlidingWindowLimiter({ name: 'per-key', quota: 10_000, windowSeconds: 1 }, () => nowMs);
  const remaining: number[] = [];
  // One request a millisecond for five windows: 1,000 in any second, old times dropped as they go.
  for (let i = 0; i < 5_000; i++) {
    nowMs = i + 1;
    const decision = await limiter.consume('pk');
    if (decision.kind === 'allowed') remaining.push(decision.remaining);
  }
  assert.is(remaining.length, 5_000);
  assert.equal(remaining.slice(0, 3), [9_999, 9_998, 9_997]);
  assert.ok(
    remaining.slice(1_000).every((r) => r === 9_000),
    'a full window holds 1,000 at every request',
  );
  await limiter.reward('pk');
  assert.equal(await limiter.peek('pk'), { kind: 'allowed', remaining: 9_001, resetSeconds: 1 });
  assert.equal(await limiter.peek('pk_never_seen'), { kind: 'allowed', remaining: 10_000, resetSeconds: 1 });
  assert.is(limiter.keys(), 1, 'a peek keeps nothing');
});

window('idle keys are forgotten once a window has passed', async () => {
  let nowMs = 0;
  const limiter = createSlidingWindowLimiter({ name: 'per-key', quota: 60, windowSeconds: 60 }, () => nowMs);
  for (let i = 0; i < 100; i++) await limiter.consume(`pk_${i}`);
  assert.is(limiter.keys(), 100);
  nowMs = 61_000;
  await limiter.consume('pk_new');
  assert.is(limiter.keys(), 1);
});

window('on MongoDB one atomic update drops old times, counts within the quota, and says so', () => {
  const policy = { name: 'per-key', quota: 2, windowSeconds: 60 };
  const update = slidingWindowUpdate(policy);
  assert.is(update.length, 3);
  assert.equal(
    update[0]!['$set'].t.$map.input.$filter.cond,
    { $gt: ['$$at', { $subtract: ['$$NOW', 60_000] }] },
    "the server's clock decides the window",
  );
  assert.equal(update[1]!['$set'].ok, { $lt: [{ $size: '$t' }, 2] });
  const at = (ms: number) => new Date(ms);
  assert.equal(decisionOf(policy, { t: [at(10_000)], ok: true, now: at(10_000) }), {
    kind: 'allowed',
    remaining: 1,
    resetSeconds: 60,
  });
  assert.equal(decisionOf(policy, { t: [at(10_000), at(30_000)], ok: false, now: at(40_000) }), {
    kind: 'limited',
    resetSeconds: 30,
  });
});

window.run();
