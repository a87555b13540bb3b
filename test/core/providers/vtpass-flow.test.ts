/**
 * Purchases end to end with VTpass as the upstream: a partner calls the gateway, the core
 * runs the two-phase flow with the VTpass providers, and the fake VTpass answers over real
 * HTTP. Each case checks the answer, the transaction and the ledger: a delivery keeps one
 * debit, a definitive failure is refunded exactly once, an unknown outcome is never refunded
 * until a requery gives a final answer.
 */
import * as assert from 'uvu/assert';
import { assertLedgerInvariant, ledgerOf } from '../../helpers/core.js';
import { startVtpassStack, type VtpassStack } from '../../helpers/fake-vtpass.js';
import type { ApiKeys } from '../../helpers/gateway.js';
import { suite } from '../../helpers/suite.js';

const test = suite<{ stack: VtpassStack }>('purchases through VTpass');

test.before(async (ctx) => {
  ctx.stack = await startVtpassStack({ providerTimeoutMs: 800 });
  // Plan 3 (MTN 2GB) sold through VTpass under its variation code.
  const { plans } = await ctx.stack.core.admin.listCatalogPlans({ network: 'mtn' });
  const plan = plans.find((p) => p.planId === 3n)!;
  await ctx.stack.core.admin.upsertPlan({ plan: { ...plan, providerCode: 'mtn-100mb-1000' } });
});

test.after(async ({ stack }) => {
  await stack.close();
});

async function account(stack: VtpassStack): Promise<{ accountId: string; keys: ApiKeys }> {
  const { accountId, publicKey, secretKey } = await stack.core.createApiAccount({ balanceKobo: 200_000_00 });
  return { accountId, keys: { publicKey, secretKey } };
}

/** The account's ledger entries of one reference, by kind. */
async function entriesOf(stack: VtpassStack, accountId: string, reference: string): Promise<string[]> {
  return (await ledgerOf(stack.core, accountId)).filter((e) => e.reference === reference).map((e) => e.kind);
}

async function transaction(stack: VtpassStack, keys: ApiKeys, reference: string) {
  const reply = await stack.gateway.request({ query: { action: 'transaction', reference }, keys });
  assert.is(reply.status, 200, reply.text);
  return reply.json.transaction as Record<string, unknown>;
}

async function assertAuditClean(stack: VtpassStack): Promise<void> {
  const audit = await stack.core.admin.checkLedger({});
  assert.is(audit.violationCount, 0n, JSON.stringify(audit.violations));
}

test('every product is delivered through VTpass: 200, one debit, and the results VTpass gave', async ({ stack }) => {
  const { accountId, keys } = await account(stack);
  const buy = (action: string, body: Record<string, unknown>) =>
    stack.gateway.request({ query: { action }, keys, body });

  const airtime = await buy('airtime', { network: 'mtn', phone: '08011111111', amount: 100 });
  assert.is(airtime.status, 200, airtime.text);
  const data = await buy('data', { plan_id: 3, phone: '08011111111' });
  assert.is(data.status, 200, data.text);
  assert.is(data.json.plan, '2GB (30 days)');
  const power = await buy('electricity', {
    disco: 'ikedc',
    meter_number: '1111111111111',
    meter_type: 'prepaid',
    amount: 5000,
    phone: '08031234567',
  });
  assert.is(power.status, 200, power.text);
  assert.is(power.json.token, stack.fake.tokenDigits(power.json.reference).match(/\d{4}/g)!.join('-'));
  assert.is(power.json.units, '32.6 kWh');
  const cable = await buy('cable', { provider: 'gotv', smart_card: '1212121212', package_code: 'GOTV MAX' });
  assert.is(cable.status, 200, cable.text);
  assert.is(cable.json.package, 'GOtv Max');
  const sms = await buy('bulksms', { sender: 'MyShop', recipients: ['08031234567', '08051234567'], message: 'Hello' });
  assert.is(sms.status, 200, sms.text);
  assert.is(sms.json.sent, 2);

  for (const reply of [airtime, data, power, cable, sms]) {
    assert.equal(
      await entriesOf(stack, accountId, reply.json.reference),
      ['debit'],
      `${reply.json.reference}: one debit, no refund`,
    );
  }
  assert.is(stack.fake.transactions.get(data.json.reference)?.body['variation_code'], 'mtn-100mb-1000');
  assert.is(
    stack.fake.transactions.get(cable.json.reference)?.body['variation_code'],
    'GOTV MAX',
    'no provider code: the package code',
  );
  assert.equal(stack.fake.sms.at(-1)?.batchId, sms.json.reference, 'the batch carries our reference');
  await assertLedgerInvariant(stack.core, accountId);
  await assertAuditClean(stack);
});

test('an Eko payment reads mainToken and mainTokenUnits', async ({ stack }) => {
  const { keys } = await account(stack);
  stack.fake.script('1111111111111', { answer: 'delivered', shape: 'eko' });
  const reply = await stack.gateway.request({
    query: { action: 'electricity' },
    keys,
    body: { disco: 'ekedc', meter_number: '1111111111111', meter_type: 'prepaid', amount: 1500 },
  });
  assert.is(reply.status, 200, reply.text);
  assert.is(reply.json.token, stack.fake.tokenDigits(reply.json.reference).match(/\d{4}/g)!.join('-'));
  assert.is(reply.json.units, '16.9 kWh');
});

test('definitive failures (016, 091, door refusals) are 502 and refunded exactly once', async ({ stack }) => {
  const { accountId, keys } = await account(stack);
  for (const code of ['016', '091', '013', '018']) {
    stack.fake.script('08012340000', { answer: 'code', code });
    const reply = await stack.gateway.request({
      query: { action: 'airtime' },
      keys,
      body: { network: 'glo', phone: '08012340000', amount: 200 },
    });
    assert.is(reply.status, 502, `${code}: ${reply.text}`);
    assert.is(reply.json.code, 'PROVIDER_FAILED');
    const reference = reply.json.reference as string;
    assert.equal(await entriesOf(stack, accountId, reference), ['debit', 'refund'], `${code}: refunded once`);
    const tx = await transaction(stack, keys, reference);
    assert.is(tx.status, 'failed');
    assert.match(String(tx.failure_reason), new RegExp(`code ${code}`));
  }
  // The worker finds nothing left to do for them.
  await stack.core.recoverNow();
  await assertLedgerInvariant(stack.core, accountId);
  await assertAuditClean(stack);
});

test('099 is 202 pending with the charge held; the requery that says delivered settles it, without a refund', async ({
  stack,
}) => {
  const { accountId, keys } = await account(stack);
  stack.fake.script('08012341111', { answer: 'processing', later: 'delivered' });
  const reply = await stack.gateway.request({
    query: { action: 'airtime' },
    keys,
    body: { network: 'airtel', phone: '08012341111', amount: 300 },
  });
  assert.is(reply.status, 202, reply.text);
  assert.is((await transaction(stack, keys, reply.json.reference)).status, 'pending');
  await stack.core.recoverNow();
  assert.is((await transaction(stack, keys, reply.json.reference)).status, 'success');
  assert.equal(await entriesOf(stack, accountId, reply.json.reference), ['debit']);
  assert.ok(
    stack.fake.calls.some((c) => c.path === '/api/requery' && c.body?.['request_id'] === reply.json.reference),
    'the worker re-queried VTpass',
  );
});

test('no answer in time is 202 pending; a requery saying failed refunds it once, a second pass does nothing', async ({
  stack,
}) => {
  const { accountId, keys } = await account(stack);
  stack.fake.script('08012342222', { answer: 'hang', later: 'failed' });
  const started = Date.now();
  const reply = await stack.gateway.request({
    query: { action: 'airtime' },
    keys,
    body: { network: 'mtn', phone: '08012342222', amount: 400 },
  });
  assert.is(reply.status, 202, reply.text);
  assert.ok(Date.now() - started < 5_000, 'answered at the provider timeout');
  assert.equal(await entriesOf(stack, accountId, reply.json.reference), ['debit'], 'a timeout is never refunded');
  await stack.core.recoverNow();
  const tx = await transaction(stack, keys, reply.json.reference);
  assert.is(tx.status, 'failed');
  await stack.core.recoverNow();
  assert.equal(await entriesOf(stack, accountId, reply.json.reference), ['debit', 'refund'], 'refunded exactly once');
  await assertLedgerInvariant(stack.core, accountId);
  await assertAuditClean(stack);
});

test('a malformed answer is 202 pending, not a crash, and the requery settles it', async ({ stack }) => {
  const { accountId, keys } = await account(stack);
  stack.fake.script('08012343333', { answer: 'malformed', body: '{"code":', later: 'delivered' });
  const reply = await stack.gateway.request({
    query: { action: 'airtime' },
    keys,
    body: { network: 'mtn', phone: '08012343333', amount: 100 },
  });
  assert.is(reply.status, 202, reply.text);
  await stack.core.recoverNow();
  assert.is((await transaction(stack, keys, reply.json.reference)).status, 'success');
  assert.equal(await entriesOf(stack, accountId, reply.json.reference), ['debit']);
});

test('a requery that says reversed for a pending purchase is a failure, refunded once', async ({ stack }) => {
  const { accountId, keys } = await account(stack);
  stack.fake.script('08012344444', { answer: 'pending', later: 'reversed' });
  const reply = await stack.gateway.request({
    query: { action: 'airtime' },
    keys,
    body: { network: 'mtn', phone: '08012344444', amount: 100 },
  });
  assert.is(reply.status, 202, reply.text);
  await stack.core.recoverNow();
  const tx = await transaction(stack, keys, reply.json.reference);
  assert.is(tx.status, 'failed', 'never delivered, so failed rather than reversed');
  assert.equal(await entriesOf(stack, accountId, reply.json.reference), ['debit', 'refund']);
});

test('a data plan without a provider code is refused and refunded at once, and VTpass is never called', async ({
  stack,
}) => {
  const { accountId, keys } = await account(stack);
  const pays = stack.fake.calls.filter((c) => c.path === '/api/pay').length;
  const reply = await stack.gateway.request({
    query: { action: 'data' },
    keys,
    body: { plan_id: 101, phone: '08011111111' },
  });
  assert.is(reply.status, 502, reply.text);
  assert.match(reply.json.message, /refunded/);
  assert.is(stack.fake.calls.filter((c) => c.path === '/api/pay').length, pays);
  assert.equal(await entriesOf(stack, accountId, reply.json.reference), ['debit', 'refund']);
});

test('no core log line carries a VTpass key', ({ stack }) => {
  const { fake, coreLog } = stack;
  assert.ok(coreLog.length > 0);
  for (const secret of [fake.apiKey, fake.publicKey, fake.secretKey, fake.smsToken, fake.smsSecret]) {
    assert.not.ok(coreLog.some((line) => line.includes(secret)));
  }
});

test.run();
