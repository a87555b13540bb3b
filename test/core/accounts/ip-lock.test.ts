/**
 * IP locks (the contract, 5, in docs/specification.md): a key locked to addresses authenticates only from them. A
 * wrong address is refused with reason IP_NOT_ALLOWED and a message naming the address,
 * because the partner needs to know which of its servers called; the key check comes first,
 * so a wrong secret never learns that the key is locked.
 */

import { Code } from '@connectrpc/connect';
import * as assert from 'uvu/assert';
import { startCore, type TestCore } from '../../helpers/core.js';
import { suite } from '../../helpers/suite.js';
import { rejection } from '../rpc/support.js';

let core!: TestCore;

const test = suite('IP-locked keys');
test.before(async () => {
  core = await startCore();
});
test.after(async () => {
  await core.close();
});

async function lockedKey(allowedIps: string[]) {
  const api = await core.createApiAccount();
  await core.admin.setApiKeyIpLock({ publicKey: api.publicKey, allowedIps });
  return api;
}

function verify(api: { publicKey: string; secretKey: string }, clientIp: string, secretKey = api.secretKey) {
  return core.auth.verifyKeyPair({ publicKey: api.publicKey, secretKey, clientIp });
}

/** [lock, client IP the request comes from, passes]. */
const CASES: ReadonlyArray<readonly [string[], string, boolean]> = [
  [['203.0.113.7'], '203.0.113.7', true],
  [['203.0.113.7'], '::ffff:203.0.113.7', true],
  [['203.0.113.7'], '::FFFF:203.0.113.7', true],
  [['::ffff:203.0.113.7'], '203.0.113.7', true],
  [['203.0.113.7', '198.51.100.2'], '198.51.100.2', true],
  [['2001:db8::1'], '2001:DB8::1', true],
  // The socket reports IPv6 in its compressed form; a lock typed another way is the same address.
  [['2001:0db8::0001'], '2001:db8::1', true],
  [['2001:db8:0:0:0:0:0:1'], '2001:db8::1', true],
  [['203.0.113.7'], '203.0.113.8', false],
  [['203.0.113.7'], '203.0.113.70', false],
  [['203.0.113.7'], '::ffff:203.0.113.8', false],
  [['203.0.113.7'], '2001:db8::1', false],
  [['203.0.113.7', '198.51.100.2'], '192.0.2.1', false],
  [['2001:db8::1'], '2001:db8::2', false],
];

for (const [allowedIps, clientIp, passes] of CASES) {
  test(`locked to ${allowedIps.join(', ')}: ${clientIp} ${passes ? 'passes' : 'is IP_NOT_ALLOWED'}`, async () => {
    const api = await lockedKey(allowedIps);
    if (passes) {
      assert.is((await verify(api, clientIp)).accountId, api.accountId);
    } else {
      const refused = await rejection(verify(api, clientIp));
      assert.is(refused.code, Code.PermissionDenied);
      assert.is(refused.reason, 'IP_NOT_ALLOWED');
      assert.ok(refused.message.includes(clientIp), `the message names ${clientIp}: ${refused.message}`);
    }
  });
}

test('a locked key with no client IP given is IP_NOT_ALLOWED', async () => {
  const api = await lockedKey(['203.0.113.7']);
  const refused = await rejection(verify(api, ''));
  assert.is(refused.reason, 'IP_NOT_ALLOWED');
});

test('an unlocked key passes from any address', async () => {
  const api = await core.createApiAccount();
  for (const ip of ['203.0.113.7', '::1', '']) assert.is((await verify(api, ip)).accountId, api.accountId);
});

test('unlocking a key lets it in from anywhere again', async () => {
  const api = await lockedKey(['203.0.113.7']);
  assert.is((await rejection(verify(api, '192.0.2.1'))).reason, 'IP_NOT_ALLOWED');
  await core.admin.setApiKeyIpLock({ publicKey: api.publicKey, allowedIps: [] });
  assert.is((await verify(api, '192.0.2.1')).accountId, api.accountId);
});

test('a wrong secret from a wrong address is INVALID_API_KEY: the lock is not revealed', async () => {
  const api = await lockedKey(['203.0.113.7']);
  const refused = await rejection(verify(api, '192.0.2.1', `${api.secretKey}x`));
  assert.is(refused.code, Code.Unauthenticated);
  assert.is(refused.reason, 'INVALID_API_KEY');
  assert.not.ok(refused.message.includes('192.0.2.1'));
});

test("a lock on one key does not lock the account's other key", async () => {
  const api = await lockedKey(['203.0.113.7']);
  const { issuedKey } = await core.admin.createApiKey({ accountId: api.accountId });
  assert.is((await verify(issuedKey!, '192.0.2.1')).accountId, api.accountId);
});

test.run();
