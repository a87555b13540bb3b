/**
 * A right key pair passes from an address where strangers are throttled for guessing, even
 * one never used before: 429 is for failed guesses only. Wrong pairs from
 * there stay 429, and nothing about the right pair's account is charged by the guesses.
 */
import * as assert from 'uvu/assert';
import { startCore, type TestCore } from '../helpers/core.js';
import { startTestGateway, type TestGateway } from '../helpers/gateway.js';
import { suite } from '../helpers/suite.js';

const test = suite('a fresh pair behind a throttled address');
let core: TestCore;
let gateway: TestGateway;

test.before(async () => {
  core = await startCore();
  gateway = await startTestGateway(core, { authFailuresPerMinute: 5 });
});

test.after(async () => {
  await gateway?.close();
  await core?.close();
});

const FROM = '127.0.0.23';

test('strangers use up the address budget; a never-used pair still answers 200 there, wrong ones 429', async () => {
  await Promise.all(
    Array.from({ length: 20 }, (_, i) =>
      gateway.request({
        query: { action: 'balance' },
        keys: { publicKey: `pk_${String(i).padStart(24, '0')}`, secretKey: 'sk_guess' },
        localAddress: FROM,
      }),
    ),
  );
  const stranger = await gateway.request({
    query: { action: 'balance' },
    keys: { publicKey: 'pk_stranger', secretKey: 'sk_guess' },
    localAddress: FROM,
  });
  assert.is(stranger.status, 429, 'the address is over its failure budget');

  // Issued after the guessing began, and never sent before: the gateway cannot know it.
  const fresh = await core.createApiAccount({ balanceKobo: 123_400 });
  const first = await gateway.request({ query: { action: 'balance' }, keys: fresh, localAddress: FROM });
  assert.is(first.status, 200, first.text);
  assert.is(first.json.balance, 1234);

  const wrongSecret = await gateway.request({
    query: { action: 'balance' },
    keys: { ...fresh, secretKey: `${fresh.secretKey}x` },
    localAddress: FROM,
  });
  assert.is(wrongSecret.status, 429, 'a wrong secret for that same key is throttled like any guess');
  assert.is(wrongSecret.json.code, 'RATE_LIMITED');
});

test.run();
