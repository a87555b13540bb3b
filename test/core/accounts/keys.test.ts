/**
 * API key pairs through AuthService.VerifyKeyPair, as the gateway checks them: a valid pair
 * names its account; every other pair is UNAUTHENTICATED with reason INVALID_API_KEY and the
 * same message, so a caller cannot tell an unknown key from a wrong secret.
 */

import { Code } from '@connectrpc/connect';
import * as assert from 'uvu/assert';
import { startCore, type TestCore } from '../../helpers/core.js';
import { suite } from '../../helpers/suite.js';
import { rejection } from '../rpc/support.js';

let core!: TestCore;

const test = suite('key pair verification');
test.before(async () => {
  core = await startCore();
});
test.after(async () => {
  await core.close();
});

async function assertInvalidKey(publicKey: string, secretKey: string, clientIp = '203.0.113.7'): Promise<string> {
  const refused = await rejection(core.auth.verifyKeyPair({ publicKey, secretKey, clientIp }));
  assert.is(refused.code, Code.Unauthenticated);
  assert.is(refused.reason, 'INVALID_API_KEY');
  assert.not.ok(refused.message.includes(secretKey) && secretKey.length > 3, 'the message never echoes the secret');
  return refused.message;
}

test('a valid key pair answers its account and the API tier', async () => {
  const api = await core.createApiAccount();
  const verified = await core.auth.verifyKeyPair({
    publicKey: api.publicKey,
    secretKey: api.secretKey,
    clientIp: '203.0.113.7',
  });
  assert.equal([verified.accountId, verified.tierId], [api.accountId, 'api']);
});

test("a wrong secret, an unknown public key and another pair's secret all fail alike", async () => {
  const api = await core.createApiAccount();
  const other = await core.createApiAccount();
  const wrongSecret = await assertInvalidKey(
    api.publicKey,
    api.secretKey.slice(0, -1) + (api.secretKey.endsWith('A') ? 'B' : 'A'),
  );
  const unknownKey = await assertInvalidKey(`pk_${'0'.repeat(24)}`, api.secretKey);
  const crossed = await assertInvalidKey(api.publicKey, other.secretKey);
  assert.is(unknownKey, wrongSecret, 'an unknown key reads exactly like a wrong secret');
  assert.is(crossed, wrongSecret);
});

/** Pairs that are not even shaped like keys. */
const MALFORMED: ReadonlyArray<readonly [string, string, string]> = [
  ['both empty', '', ''],
  ['an empty secret', 'pk_0123456789abcdef01234567', ''],
  ['the keys swapped', 'sk_abc', 'pk_abc'],
  ['no prefixes', '0123456789abcdef01234567', 'abcdefghijklmnopqrstuvwxyz'],
  ['a bare prefix', 'pk_', 'sk_'],
  ['a huge public key', `pk_${'a'.repeat(10_000)}`, `sk_${'b'.repeat(43)}`],
  ['a huge secret', 'pk_0123456789abcdef01234567', `sk_${'b'.repeat(10_000)}`],
  ['unicode', 'pk_ключ', 'sk_секрет'],
];

for (const [what, publicKey, secretKey] of MALFORMED) {
  test(`a malformed pair (${what}) is INVALID_API_KEY`, async () => {
    await assertInvalidKey(publicKey, secretKey);
  });
}

test('a malformed pair cannot ride on a real public key', async () => {
  const api = await core.createApiAccount();
  await assertInvalidKey(api.publicKey, api.secretKey.slice(3));
  await assertInvalidKey(api.publicKey, ` ${api.secretKey}`);
  await assertInvalidKey(api.publicKey.toUpperCase(), api.secretKey);
});

test("a revoked key fails; the account's other key keeps working", async () => {
  const api = await core.createApiAccount();
  const { issuedKey: second } = await core.admin.createApiKey({ accountId: api.accountId });
  await core.admin.revokeApiKey({ publicKey: api.publicKey });
  await assertInvalidKey(api.publicKey, api.secretKey);
  const verified = await core.auth.verifyKeyPair({ publicKey: second!.publicKey, secretKey: second!.secretKey });
  assert.is(verified.accountId, api.accountId);
});

test('after all its keys are revoked, moving the account to the API tier again issues a fresh pair', async () => {
  const api = await core.createApiAccount();
  await core.admin.revokeApiKey({ publicKey: api.publicKey });
  await core.admin.setAccountTier({ accountId: api.accountId, tierId: 'basic' });
  const { issuedKey } = await core.admin.setAccountTier({ accountId: api.accountId, tierId: 'api' });
  assert.ok(issuedKey, 'a new pair is issued');
  assert.is(
    (await core.auth.verifyKeyPair({ publicKey: issuedKey!.publicKey, secretKey: issuedKey!.secretKey })).accountId,
    api.accountId,
  );
  await assertInvalidKey(api.publicKey, api.secretKey);
});

test('an account moved off the API tier cannot authenticate; moved back, its key works again', async () => {
  const api = await core.createApiAccount();
  for (const tierId of ['basic', 'reseller']) {
    await core.admin.setAccountTier({ accountId: api.accountId, tierId });
    const message = await assertInvalidKey(api.publicKey, api.secretKey);
    assert.match(message, /not on the API tier/);
  }
  const back = await core.admin.setAccountTier({ accountId: api.accountId, tierId: 'api' });
  assert.is(back.issuedKey, undefined, 'the existing pair is kept, no new one is issued');
  assert.is(
    (await core.auth.verifyKeyPair({ publicKey: api.publicKey, secretKey: api.secretKey })).accountId,
    api.accountId,
  );
});

test("a tier that loses API access takes its accounts' keys with it", async () => {
  await core.admin.upsertTier({ tier: { tierId: 'partner', name: 'Partner', apiAccess: true, discounts: [] } });
  const { account, issuedKey } = await core.admin.createAccount({ name: 'Partner Co', tierId: 'partner' });
  assert.ok(issuedKey, 'a tier with API access issues keys too');
  assert.is(
    (await core.auth.verifyKeyPair({ publicKey: issuedKey!.publicKey, secretKey: issuedKey!.secretKey })).tierId,
    'partner',
  );
  await core.admin.upsertTier({ tier: { tierId: 'partner', name: 'Partner', apiAccess: false, discounts: [] } });
  await assertInvalidKey(issuedKey!.publicKey, issuedKey!.secretKey);
  assert.is((await core.admin.getAccount({ accountId: account!.accountId })).account!.tierId, 'partner');
});

test.run();
