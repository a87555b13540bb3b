/**
 * Cable renewals through a real gateway and core: a DStv or GOtv payment for the card's
 * current bouquet is sent to VTpass as a renewal (subscription_type "renew") for the amount
 * verify told, times the months; any other package is a change; the choice can be made
 * explicitly, and what makes no sense (renewing another bouquet, months on StarTimes, 13
 * months) is a 422 before anything is paid. Against the fake VTpass and the sandbox.
 */
import * as assert from 'uvu/assert';
import { assertLedgerInvariant, startCore, type TestCore } from '../helpers/core.js';
import { startVtpassStack, type VtpassStack } from '../helpers/fake-vtpass.js';
import { type ApiKeys, startTestGateway, type TestGateway } from '../helpers/gateway.js';
import { suite } from '../helpers/suite.js';

const test = suite<{ stack: VtpassStack; core: TestCore; gateway: TestGateway }>('cable: renew or change, months');

/** The fake's smart card 1212121212 is on DStv Compact (VTpass code COMPE36), renewal 15,700 Naira. */
const CARD = '1212121212';

test.before(async (ctx) => {
  ctx.stack = await startVtpassStack({ providerTimeoutMs: 1_500 });
  const { packages } = await ctx.stack.core.admin.listCablePackages({ provider: 'dstv' });
  const compact = packages.find((p) => p.packageCode === 'DSTV COMPACT')!;
  await ctx.stack.core.admin.upsertCablePackage({ package: { ...compact, providerCode: 'COMPE36' } });
  ctx.core = await startCore();
  ctx.gateway = await startTestGateway(ctx.core);
});

test.after(async (ctx) => {
  await ctx.stack.close();
  await ctx.gateway.close();
  await ctx.core.close();
});

async function keysOn(core: TestCore): Promise<{ accountId: string; keys: ApiKeys }> {
  const { accountId, publicKey, secretKey } = await core.createApiAccount({ balanceKobo: 500_000_00 });
  return { accountId, keys: { publicKey, secretKey } };
}

test('the current bouquet is renewed by default, for the renewal amount times the months', async ({ stack }) => {
  const { accountId, keys } = await keysOn(stack.core);
  const reply = await stack.gateway.request({
    query: { action: 'cable' },
    keys,
    body: { provider: 'dstv', smart_card: CARD, package_code: 'dstv compact', months: 3 },
  });
  assert.is(reply.status, 200, reply.text);
  assert.is(reply.json.subscription_type, 'renew');
  assert.is(reply.json.months, 3);
  const pay = stack.fake.transactions.get(reply.json.reference)!.body;
  assert.is(pay['subscription_type'], 'renew');
  assert.is(pay['quantity'], 3);
  assert.is(pay['variation_code'], 'COMPE36');
  assert.is(pay['amount'], 47_100, 'the renewal amount verify told, times three');
  const tx = await stack.gateway.request({ query: { action: 'transaction', reference: reply.json.reference }, keys });
  assert.is(tx.json.transaction.amount, 47_100);
  assert.ok(reply.json.charged <= 47_100 && reply.json.charged > 0, 'the tier price of the whole amount');
  await assertLedgerInvariant(stack.core, accountId);
});

test('another package is a change; an explicit change of the current bouquet is a change', async ({ stack }) => {
  const { keys } = await keysOn(stack.core);
  const padi = await stack.gateway.request({
    query: { action: 'cable' },
    keys,
    body: { provider: 'dstv', smart_card: CARD, package_code: 'DSTV PADI' },
  });
  assert.is(padi.status, 200, padi.text);
  assert.equal([padi.json.subscription_type, padi.json.months], ['change', 1]);
  const padiPay = stack.fake.transactions.get(padi.json.reference)!.body;
  assert.equal([padiPay['subscription_type'], padiPay['quantity'], padiPay['amount']], ['change', 1, 2_500]);

  const change = await stack.gateway.request({
    query: { action: 'cable' },
    keys,
    body: { provider: 'dstv', smart_card: CARD, package_code: 'DSTV COMPACT', subscription_type: 'change' },
  });
  assert.is(change.status, 200, change.text);
  assert.is(stack.fake.transactions.get(change.json.reference)!.body['subscription_type'], 'change');
});

test('what makes no sense is a 422 and nothing is paid', async ({ stack }) => {
  const { keys } = await keysOn(stack.core);
  const pays = () => stack.fake.calls.filter((c) => c.path === '/api/pay').length;
  const before = pays();
  const cases: [Record<string, unknown>, string, RegExp][] = [
    [
      { provider: 'dstv', smart_card: CARD, package_code: 'DSTV PADI', subscription_type: 'renew' },
      'subscription_type',
      /current bouquet \(DStv Compact/,
    ],
    [
      { provider: 'dstv', smart_card: CARD, package_code: 'DSTV PADI', subscription_type: 'extend' },
      'subscription_type',
      /renew, change/,
    ],
    [{ provider: 'dstv', smart_card: CARD, package_code: 'DSTV PADI', months: 13 }, 'months', /1 to 12/],
    [{ provider: 'dstv', smart_card: CARD, package_code: 'DSTV PADI', months: 0 }, 'months', /1 to 12/],
    [{ provider: 'dstv', smart_card: CARD, package_code: 'DSTV PADI', months: 1.5 }, 'months', /integer/],
    [{ provider: 'startimes', smart_card: CARD, package_code: 'basic', months: 2 }, 'months', /one month/],
    [
      { provider: 'startimes', smart_card: CARD, package_code: 'basic', subscription_type: 'renew' },
      'subscription_type',
      /no subscription_type/,
    ],
  ];
  for (const [body, field, message] of cases) {
    const reply = await stack.gateway.request({ query: { action: 'cable' }, keys, body });
    assert.is(reply.status, 422, `${JSON.stringify(body)}: ${reply.text}`);
    assert.ok(
      reply.json.errors.some((e: { field: string; message: string }) => e.field === field && message.test(e.message)),
      `${JSON.stringify(body)}: ${reply.text}`,
    );
  }
  assert.is(pays(), before, 'nothing was sent to pay');
});

test('the sandbox: buying the bouquet verify names renews it', async ({ core, gateway }) => {
  const { keys } = await keysOn(core);
  const card = '7012345678';
  const verify = await gateway.request({
    query: { action: 'verify' },
    keys,
    body: { provider: 'gotv', smart_card: card },
  });
  assert.is(verify.status, 200, verify.text);
  const { packages } = await core.admin.listCablePackages({ provider: 'gotv' });
  const current = packages.find((p) => p.name === verify.json.current_bouquet)!;
  const other = packages.find((p) => p.name !== verify.json.current_bouquet)!;
  const renew = await gateway.request({
    query: { action: 'cable' },
    keys,
    body: { provider: 'gotv', smart_card: card, package_code: current.packageCode, months: 2 },
  });
  assert.is(renew.status, 200, renew.text);
  assert.equal([renew.json.subscription_type, renew.json.months], ['renew', 2]);
  const tx = await gateway.request({ query: { action: 'transaction', reference: renew.json.reference }, keys });
  assert.is(tx.json.transaction.amount, verify.json.renewal_amount * 2);
  const change = await gateway.request({
    query: { action: 'cable' },
    keys,
    body: { provider: 'gotv', smart_card: card, package_code: other.packageCode },
  });
  assert.is(change.json.subscription_type, 'change');
});

test.run();
