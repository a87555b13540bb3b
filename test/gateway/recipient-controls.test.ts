/**
 * Recipient controls through the real gateway and core: a number blocked by the platform or
 * by the account is refused with no debit and no upstream call, a per-recipient limit of 3 a
 * day refuses the fourth, and the duplicate guard refuses a repeat at once but takes it with
 * a fresh request_id. An account without controls is answered as before.
 */
import * as assert from 'uvu/assert';
import { assertLedgerInvariant, startCore, type TestCore } from '../helpers/core.js';
import { startTestGateway, type TestGateway } from '../helpers/gateway.js';
import { suite } from '../helpers/suite.js';
import { assertError, balanceKobo, fundedAccount } from './fields.js';

const test = suite('gateway recipient controls');
let core: TestCore;
let gateway: TestGateway;

test.before(async () => {
  core = await startCore();
  gateway = await startTestGateway(core);
});

test.after(async () => {
  await gateway?.close();
  await core?.close();
});

const airtime = (phone: string, extra: Record<string, unknown> = {}) => ({
  method: 'POST' as const,
  query: { action: 'airtime' },
  body: { network: 'mtn', phone, amount: 100, ...extra },
});

const upstreamCallsTo = (phone: string) => core.sandbox.purchases.filter((p) => p.recipient === phone).length;

test("a number on the platform's list is refused for every account: 422, no debit, no upstream call", async () => {
  const { accountId, keys } = await fundedAccount(core, 500_000);
  await core.admin.blockRecipient({ value: '08035550001', reason: 'reported as stolen' });
  const refused = await gateway.request({ ...airtime('08035550001'), keys });
  assertError(refused, 422, 'RECIPIENT_BLOCKED');
  assert.not.match(refused.json.message, /stolen|platform/, 'neither the reason nor who blocked it is told');
  assert.is(await balanceKobo(core, accountId), 500_000n);
  assert.is(upstreamCallsTo('08035550001'), 0);

  await core.admin.unblockRecipient({ value: '08035550001' });
  const after = await gateway.request({ ...airtime('08035550001'), keys });
  assert.is(after.status, 200, after.text);
});

test("a number on the account's own list is refused for it only", async () => {
  const one = await fundedAccount(core, 500_000);
  const other = await fundedAccount(core, 500_000);
  await core.admin.blockRecipient({ accountId: one.accountId, value: '08035550002', reason: 'not our customer' });
  assertError(await gateway.request({ ...airtime('08035550002'), keys: one.keys }), 422, 'RECIPIENT_BLOCKED');
  assert.is(await balanceKobo(core, one.accountId), 500_000n);
  assert.is(upstreamCallsTo('08035550002'), 0);
  const others = await gateway.request({ ...airtime('08035550002'), keys: other.keys });
  assert.is(others.status, 200, others.text);
  const listed = await core.admin.listRecipientBlocks({ accountId: one.accountId });
  assert.equal(
    listed.blocks.map((b) => b.value),
    ['08035550002'],
  );
});

test('a per-recipient limit of 3 a day refuses the fourth purchase to that number, and no other', async () => {
  const { accountId, keys } = await fundedAccount(core, 500_000);
  await core.admin.setRecipientLimits({ accountId, perDayCount: 3 });
  for (let i = 0; i < 3; i += 1) {
    const ok = await gateway.request({ ...airtime('08035550003'), keys });
    assert.is(ok.status, 200, ok.text);
  }
  const before = await balanceKobo(core, accountId);
  const fourth = await gateway.request({ ...airtime('08035550003'), keys });
  assertError(fourth, 422, 'RECIPIENT_LIMIT');
  assert.match(fourth.json.message, /\(3, Africa\/Lagos\)/);
  assert.is(await balanceKobo(core, accountId), before, 'nothing was debited');
  assert.is(upstreamCallsTo('08035550003'), 3);
  const elsewhere = await gateway.request({ ...airtime('08035550004'), keys });
  assert.is(elsewhere.status, 200, elsewhere.text);
  await assertLedgerInvariant(core, accountId);
});

test('the duplicate guard refuses a repeat within the window and takes it with a fresh request_id', async () => {
  const { accountId, keys } = await fundedAccount(core, 500_000);
  await core.admin.setRecipientLimits({ accountId, duplicateGuard: true });
  const first = await gateway.request({ ...airtime('08035550005'), keys });
  assert.is(first.status, 200, first.text);
  const repeat = await gateway.request({ ...airtime('08035550005'), keys });
  assertError(repeat, 409, 'DUPLICATE_PURCHASE', { reference: 'string' });
  assert.is(repeat.json.reference, first.json.reference, 'it names the earlier purchase');
  assert.ok(repeat.json.message.includes(first.json.reference));
  const meant = await gateway.request({ ...airtime('08035550005', { request_id: 'again-1' }), keys });
  assert.is(meant.status, 200, meant.text);
  // Another amount is another purchase.
  const more = await gateway.request({ ...airtime('08035550005', { amount: 200 }), keys });
  assert.is(more.status, 200, more.text);
});

test('an account without recipient controls buys the same thing twice in a row, as the specification has it', async () => {
  const { keys } = await fundedAccount(core, 500_000);
  const first = await gateway.request({ ...airtime('08035550006'), keys });
  const second = await gateway.request({ ...airtime('08035550006'), keys });
  assert.is(first.status, 200, first.text);
  assert.is(second.status, 200, second.text);
});

test.run();
