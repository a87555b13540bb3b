/**
 * POST /callbacks/paystack through the real gateway and core, against the fake Paystack: a
 * signed charge.success credits once (50 copies at once too, and copies of several transfers
 * at once, out of order); a bad or missing signature or a
 * tampered body is 401 and changes nothing; an event type not handled is 200; a body that is
 * not JSON is 400; a re-query that contradicts the notification credits nothing; an address
 * outside FUNDING_CALLBACK_ALLOW is 403. The ledger check passes after each.
 */
import * as assert from 'uvu/assert';
import { createPaystackFunding } from '../../core/funding/paystack.js';
import { signHmacSha512Hex } from '../../core/funding/signature.js';
import { FundingService } from '../../gen/prepaid/v1/funding_pb.js';
import { assertLedgerInvariant, startCore, type TestCore } from '../helpers/core.js';
import { type FakePaystack, startFakePaystack } from '../helpers/fake-paystack.js';
import { startTestGateway, type TestGateway } from '../helpers/gateway.js';
import { suite } from '../helpers/suite.js';

const test = suite<{ core: TestCore; gateway: TestGateway; paystack: FakePaystack }>('gateway: funding callbacks');

test.before(async (ctx) => {
  ctx.paystack = await startFakePaystack();
  ctx.core = await startCore({
    funding: {
      providers: [
        createPaystackFunding({
          secretKey: ctx.paystack.secretKey,
          baseUrl: ctx.paystack.url,
          preferredBank: 'test-bank',
        }),
      ],
    },
  });
  ctx.gateway = await startTestGateway(ctx.core);
});
test.after(async (ctx) => {
  await ctx.gateway.close();
  await ctx.core.close();
  await ctx.paystack.stop();
});

async function post(
  gateway: TestGateway,
  path: string,
  body: string,
  headers: Record<string, string> = {},
): Promise<{ status: number; json: unknown }> {
  const response = await fetch(`http://127.0.0.1:${gateway.port}${path}`, {
    method: 'POST',
    body,
    headers: { 'Content-Type': 'application/json', ...headers },
  });
  const text = await response.text();
  return { status: response.status, json: text === '' ? null : JSON.parse(text) };
}

async function openAccount(core: TestCore): Promise<{ accountId: string; number: string }> {
  const { accountId } = await core.createApiAccount();
  const opened = await core.clientWithToken(FundingService, core.adminToken).openFundingAccounts({
    accountId,
    kyc: {
      kind: 'bvn',
      number: '22222222222',
      firstName: 'Ada',
      lastName: 'Obi',
      phone: '08031234567',
      email: 'ada@example.com',
      bankCode: '',
      bankAccount: '',
    },
  });
  return { accountId, number: opened.accounts[0]!.accountNumber };
}

async function balance(core: TestCore, accountId: string): Promise<bigint> {
  return (await core.admin.getAccount({ accountId })).account!.balanceKobo;
}

async function ledgerClean(core: TestCore, accountId: string): Promise<void> {
  await assertLedgerInvariant(core, accountId);
  assert.is((await core.admin.checkLedger({})).violationCount, 0n);
}

test('a signed notification credits once, even 50 copies at once', async ({ core, gateway, paystack }) => {
  const { accountId, number } = await openAccount(core);
  const sent = paystack.transfer(number, 500_000, 'ref_gw_0001');
  const answers = await Promise.all(
    Array.from({ length: 50 }, () =>
      post(gateway, '/callbacks/paystack', sent.body, { 'x-paystack-signature': sent.signature }),
    ),
  );
  assert.equal([...new Set(answers.map((a) => a.status))], [200]);
  assert.is(await balance(core, accountId), 500_000n);
  assert.is(
    (await core.store.events.listFeed(accountId, 'live', 0, 100)).filter((e) => e.type === 'wallet.credited').length,
    1,
    'one credit event',
  );
  await ledgerClean(core, accountId);
});

test('copies of several transfers, at once and out of order, credit each once', async ({ core, gateway, paystack }) => {
  const { accountId, number } = await openAccount(core);
  const amounts = [100_000, 200_000, 300_000, 400_000, 500_000];
  const sent = amounts.map((amount, i) => paystack.transfer(number, amount, `ref_gw_mix_${i}`));
  // Ten copies of each, interleaved so that no transfer's copies arrive together.
  const copies = Array.from({ length: 10 }, (_, round) => sent.map((_, i) => sent[(i + round) % sent.length]!)).flat();
  const answers = await Promise.all(
    copies.map((s) => post(gateway, '/callbacks/paystack', s.body, { 'x-paystack-signature': s.signature })),
  );
  assert.equal([...new Set(answers.map((a) => a.status))], [200]);
  assert.is(await balance(core, accountId), 1_500_000n);
  const credits = (await core.store.events.listFeed(accountId, 'live', 0, 100)).filter(
    (e) => e.type === 'wallet.credited',
  );
  assert.is(credits.length, 5, 'one credit event per transfer');
  await ledgerClean(core, accountId);
});

test('a bad, missing or foreign signature and a tampered body are 401 and change nothing', async ({
  core,
  gateway,
  paystack,
}) => {
  const { accountId, number } = await openAccount(core);
  const sent = paystack.transfer(number, 100_000, 'ref_gw_0002');
  const tampered = sent.body.replace('"amount":100000', '"amount":900000');
  assert.is.not(tampered, sent.body);
  for (const [body, headers] of [
    [sent.body, {}],
    [sent.body, { 'x-paystack-signature': 'ab'.repeat(64) }],
    [sent.body, { 'x-paystack-signature': signHmacSha512Hex('sk_test_someone_else', sent.body) }],
    [tampered, { 'x-paystack-signature': sent.signature }],
  ] as const) {
    const answer = await post(gateway, '/callbacks/paystack', body, headers);
    assert.is(answer.status, 401);
  }
  assert.is(await core.store.funding.findInflow('paystack', 'ref_gw_0002'), null, 'nothing recorded');
  assert.is(await balance(core, accountId), 0n);
  await ledgerClean(core, accountId);
});

test('an event not handled is 200 and ignored; a body that is not JSON is 400; GET is 405', async ({
  core,
  gateway,
  paystack,
}) => {
  const other = JSON.stringify({ event: 'transfer.success', data: { reference: 'TRF_1', amount: 100 } });
  assert.is(
    (
      await post(gateway, '/callbacks/paystack', other, {
        'x-paystack-signature': signHmacSha512Hex(paystack.secretKey, other),
      })
    ).status,
    200,
  );
  const notJson = 'amount=5000';
  assert.is(
    (
      await post(gateway, '/callbacks/paystack', notJson, {
        'x-paystack-signature': signHmacSha512Hex(paystack.secretKey, notJson),
      })
    ).status,
    400,
  );
  assert.is((await fetch(`http://127.0.0.1:${gateway.port}/callbacks/paystack`)).status, 405);
  // Monnify is not configured here: nothing it sends is believed.
  assert.is((await post(gateway, '/callbacks/monnify', '{}', { 'monnify-signature': 'ab'.repeat(64) })).status, 401);
  void core;
});

test('a replay with another amount than Paystack confirms is not credited', async ({ core, gateway, paystack }) => {
  const { accountId, number } = await openAccount(core);
  const sent = paystack.transfer(number, 100_000, 'ref_gw_0003');
  paystack.setVerify('ref_gw_0003', { amount: 50_000 });
  assert.is(
    (await post(gateway, '/callbacks/paystack', sent.body, { 'x-paystack-signature': sent.signature })).status,
    200,
  );
  assert.is((await core.store.funding.findInflow('paystack', 'ref_gw_0003'))?.status, 'unmatched');
  assert.is(await balance(core, accountId), 0n);
  await ledgerClean(core, accountId);
});

test('FUNDING_CALLBACK_ALLOW refuses other addresses with 403 before reading anything', async ({ core, paystack }) => {
  const strict = await startTestGateway(core, { fundingCallbackAllow: ['52.31.139.75'] });
  try {
    const { accountId, number } = await openAccount(core);
    const sent = paystack.transfer(number, 100_000, 'ref_gw_0004');
    assert.is(
      (await post(strict, '/callbacks/paystack', sent.body, { 'x-paystack-signature': sent.signature })).status,
      403,
    );
    assert.is(await balance(core, accountId), 0n);
    await ledgerClean(core, accountId);
  } finally {
    await strict.close();
  }
});

test.run();
