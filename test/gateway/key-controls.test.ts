/**
 * A key pair's scopes and spend caps, through the real gateway and core: a call outside the
 * key's scopes is 403 KEY_SCOPE_DENIED before anything is reserved; a day's cap holds under
 * 200 concurrent purchases to the kobo, and what a reversal gives back the day can spend again.
 */
import * as assert from 'uvu/assert';
import { assertLedgerInvariant, startCore, type TestCore } from '../helpers/core.js';
import { startTestGateway, type TestGateway } from '../helpers/gateway.js';
import { suite } from '../helpers/suite.js';
import { assertError, balanceKobo, fundedAccount } from './fields.js';

const test = suite('gateway key scopes and caps');
let core: TestCore;
let gateway: TestGateway;

test.before(async () => {
  core = await startCore();
  // The per-key rate limit is not what is tested here: 200 purchases at once must reach the core.
  gateway = await startTestGateway(core, { rateLimitPerMinute: 10_000 });
});

test.after(async () => {
  await gateway?.close();
  await core?.close();
});

const airtime = (amount: number, phone = '08031234567') => ({
  method: 'POST' as const,
  query: { action: 'airtime' },
  body: { network: 'mtn', phone, amount },
});

test('a key scoped to balance reads its balance, and buying airtime is 403 with nothing reserved', async () => {
  const { accountId, keys } = await fundedAccount(core, 500_000);
  await core.admin.setApiKeyLimits({ publicKey: keys.publicKey, scopes: 'balance' });
  const callsBefore = core.sandbox.purchases.length;

  const balance = await gateway.request({ query: { action: 'balance' }, keys });
  assert.is(balance.status, 200, balance.text);

  const bought = await gateway.request({ ...airtime(100), keys });
  assertError(bought, 403, 'KEY_SCOPE_DENIED');
  assert.match(bought.json.message, /purchase:airtime/);
  const plans = await gateway.request({ query: { action: 'plans' }, keys });
  assertError(plans, 403, 'KEY_SCOPE_DENIED');
  assert.match(plans.json.message, /\bread\b/);

  assert.is(await balanceKobo(core, accountId), 500_000n, 'nothing was debited');
  assert.is(core.sandbox.purchases.length, callsBefore, 'no upstream was called');
  const history = await core.purchase.listTransactions({ accountId });
  assert.is(history.transactions.length, 0, 'no transaction was written');
});

test('a key with purchase:airtime buys airtime and nothing else; an unknown scope is refused by name', async () => {
  const { keys } = await fundedAccount(core, 500_000);
  await core.admin.setApiKeyLimits({ publicKey: keys.publicKey, scopes: 'purchase:airtime' });
  const bought = await gateway.request({ ...airtime(100), keys });
  assert.is(bought.status, 200, bought.text);
  assertError(await gateway.request({ query: { action: 'balance' }, keys }), 403, 'KEY_SCOPE_DENIED');

  const error = await core.admin
    .setApiKeyLimits({ publicKey: keys.publicKey, scopes: 'purchase:gold' })
    .catch((e) => e);
  assert.match(String(error), /"purchase:gold" is not a scope/);
});

test('a per-purchase cap refuses a larger charge with 403 and the cap named; nothing is debited', async () => {
  const { accountId, keys } = await fundedAccount(core, 500_000);
  await core.admin.setApiKeyLimits({ publicKey: keys.publicKey, capPerPurchaseKobo: 20_000n });
  const over = await gateway.request({ ...airtime(250), keys });
  assertError(over, 403, 'KEY_CAP_EXCEEDED');
  assert.match(over.json.message, /200\.00 Naira per purchase/);
  assert.is(await balanceKobo(core, accountId), 500_000n);
  const within = await gateway.request({ ...airtime(200), keys });
  assert.is(within.status, 200, within.text);
});

test("a day's cap of 1,000 Naira lets exactly 10 of 200 concurrent 100 Naira purchases through, to the kobo", async () => {
  const { accountId, keys } = await fundedAccount(core, 10_000_000);
  await core.admin.setApiKeyLimits({ publicKey: keys.publicKey, capPerDayKobo: 100_000n });
  const replies = await Promise.all(Array.from({ length: 200 }, () => gateway.request({ ...airtime(100), keys })));
  const ok = replies.filter((r) => r.status === 200);
  const capped = replies.filter((r) => r.status === 403);
  assert.is(ok.length, 10, replies.find((r) => r.status !== 200 && r.status !== 403)?.text);
  assert.is(capped.length, 190);
  for (const reply of capped) assert.is(reply.json.code, 'KEY_CAP_EXCEEDED');
  // The API tier's discount makes each charge a little under 100 Naira; the eleventh would pass the cap.
  const chargedKobo = Math.round(ok[0]!.json.charged * 100);
  const leftKobo = 100_000 - 10 * chargedKobo;
  assert.ok(leftKobo < chargedKobo && leftKobo >= 0);
  assert.ok(capped[0]!.json.message.includes(`1,000.00 Naira a day: ${(leftKobo / 100).toFixed(2)} Naira is left`));
  assert.is(await balanceKobo(core, accountId), 10_000_000n - BigInt(10 * chargedKobo), 'exactly ten charges');
  await assertLedgerInvariant(core, accountId);

  const listed = await core.admin.listApiKeys({ accountId });
  assert.is(listed.keys.find((k) => k.publicKey === keys.publicKey)?.spentTodayKobo, BigInt(10 * chargedKobo));

  // A reversal of one gives its 100 Naira back to the day: one more purchase, then the cap again.
  const reversed = await core.store.ledger.post({
    kind: 'reverse',
    reference: ok[0]!.json.reference,
    reason: 'reversed by the upstream',
    at: new Date(),
  });
  assert.is(reversed?.changed, true);
  const again = await gateway.request({ ...airtime(100), keys });
  assert.is(again.status, 200, again.text);
  assertError(await gateway.request({ ...airtime(100), keys }), 403, 'KEY_CAP_EXCEEDED');
  assert.is(await balanceKobo(core, accountId), 10_000_000n - BigInt(10 * chargedKobo));
  await assertLedgerInvariant(core, accountId);
});

test("a failed purchase's refund gives its charge back to the key's day", async () => {
  const { keys, accountId } = await fundedAccount(core, 500_000);
  // Room for one purchase a day.
  await core.admin.setApiKeyLimits({ publicKey: keys.publicKey, capPerDayKobo: 10_000n });
  // The sandbox fails a number ending 9999 definitively: 502, refunded in full.
  const failed = await gateway.request({ ...airtime(100, '08030009999'), keys });
  assertError(failed, 502, 'PROVIDER_FAILED', { reference: 'string' });
  const bought = await gateway.request({ ...airtime(100), keys });
  assert.is(bought.status, 200, bought.text);
  const listed = await core.admin.listApiKeys({ accountId });
  const chargedKobo = BigInt(Math.round(bought.json.charged * 100));
  assert.is(listed.keys.find((k) => k.publicKey === keys.publicKey)?.spentTodayKobo, chargedKobo);
  assertError(await gateway.request({ ...airtime(100), keys }), 403, 'KEY_CAP_EXCEEDED');
});

test('a key without limits answers as before: every action, no cap, nothing counted', async () => {
  const { accountId, keys } = await fundedAccount(core, 500_000);
  const listed = await core.admin.listApiKeys({ accountId });
  const key = listed.keys.find((k) => k.publicKey === keys.publicKey)!;
  assert.equal(key.limits?.scopes, ['all']);
  assert.is(key.limits?.capPerDayKobo, 0n);
  const bought = await gateway.request({ ...airtime(100), keys });
  assert.is(bought.status, 200, bought.text);
  assert.is((await core.admin.listApiKeys({ accountId })).keys[0]!.spentTodayKobo, 0n, 'no day is kept for it');
});

test.run();
