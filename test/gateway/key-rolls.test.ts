/**
 * Rolling a key pair through the real gateway and core: the new pair works at once with the
 * old one's limits, the old secret works during its grace period and is 401 after it, and a
 * grace of 0 ends the old pair at once. The core's clock is moved, not waited for.
 */
import * as assert from 'uvu/assert';
import { startCore, type TestCore } from '../helpers/core.js';
import { startTestGateway, type TestGateway } from '../helpers/gateway.js';
import { suite } from '../helpers/suite.js';
import { assertError, fundedAccount } from './fields.js';

const test = suite('gateway key rolls');
let core: TestCore;
let gateway: TestGateway;
let offsetMs = 0;

test.before(async () => {
  core = await startCore({ clock: () => new Date(Date.now() + offsetMs) });
  // No cache of verified pairs: every request asks the core, so its clock decides.
  gateway = await startTestGateway(core, { authCacheTtlMs: 0 });
});

test.after(async () => {
  await gateway?.close();
  await core?.close();
});

const balance = { query: { action: 'balance' } };

test('the old secret works during the grace and is 401 after it; the new pair keeps the limits', async () => {
  const { accountId, keys } = await fundedAccount(core, 100_000);
  await core.admin.setApiKeyLimits({ publicKey: keys.publicKey, scopes: 'balance', capPerDayKobo: 50_000n });
  const rolled = await core.admin.rollApiKey({ publicKey: keys.publicKey, graceHours: 2 });
  const next = { publicKey: rolled.issuedKey!.publicKey, secretKey: rolled.issuedKey!.secretKey };
  assert.match(next.publicKey, /^pk_[0-9a-f]{24}$/);
  assert.match(next.secretKey, /^sk_[A-Za-z0-9_-]{43}$/);
  assert.ok(rolled.oldKey?.expiresAt, 'the old pair has an end');

  assert.is((await gateway.request({ ...balance, keys })).status, 200, 'the old pair during its grace');
  assert.is((await gateway.request({ ...balance, keys: next })).status, 200);
  const listed = (await core.admin.listApiKeys({ accountId })).keys.find((k) => k.publicKey === next.publicKey)!;
  assert.equal(listed.limits?.scopes, ['balance']);
  assert.is(listed.limits?.capPerDayKobo, 50_000n);
  assertError(await gateway.request({ query: { action: 'plans' }, keys: next }), 403, 'KEY_SCOPE_DENIED');

  offsetMs = 2 * 3_600_000 + 1_000;
  try {
    assertError(await gateway.request({ ...balance, keys }), 401, 'INVALID_API_KEY');
    assert.is((await gateway.request({ ...balance, keys: next })).status, 200, 'the new pair goes on');
  } finally {
    offsetMs = 0;
  }
});

test('a grace of 0 ends the old pair at once, and a pair no longer working cannot be rolled', async () => {
  const { keys } = await fundedAccount(core, 100_000);
  const rolled = await core.admin.rollApiKey({ publicKey: keys.publicKey, graceHours: 0 });
  assertError(await gateway.request({ ...balance, keys }), 401, 'INVALID_API_KEY');
  const next = { publicKey: rolled.issuedKey!.publicKey, secretKey: rolled.issuedKey!.secretKey };
  assert.is((await gateway.request({ ...balance, keys: next })).status, 200);
  const again = await core.admin.rollApiKey({ publicKey: keys.publicKey }).catch((e: unknown) => e);
  assert.match(String(again), /no longer works/);
  const tooLong = await core.admin.rollApiKey({ publicKey: next.publicKey, graceHours: 500 }).catch((e: unknown) => e);
  assert.match(String(tooLong), /grace_hours/);
});

test.run();
