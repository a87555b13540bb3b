/**
 * POST /callbacks/monnify through the real gateway and core, against the fake Monnify built
 * from Monnify's documentation, with a 1% fee capped at 20 Naira: a signed SUCCESSFUL_TRANSACTION credits
 * once with the fee (50 copies at once too); a bad signature, a tampered body, a replay with
 * another amount, or a re-query that says unpaid or another amount credits nothing; a transfer
 * never announced is credited by the sweeper; a transfer to a number no wallet has is unmatched
 * and `funding assign` credits it once. The ledger check passes after each.
 */
import * as assert from 'uvu/assert';
import { kobo } from '../../core/domain/money.js';
import { createMonnifyFunding } from '../../core/funding/monnify.js';
import { signHmacSha512Hex } from '../../core/funding/signature.js';
import { FundingService } from '../../gen/prepaid/v1/funding_pb.js';
import { KycAdminService } from '../../gen/prepaid/v1/kyc_pb.js';
import { assertLedgerInvariant, startCore, type TestCore } from '../helpers/core.js';
import { type FakeMonnify, startFakeMonnify } from '../helpers/fake-monnify.js';
import { startTestGateway, type TestGateway } from '../helpers/gateway.js';
import { suite } from '../helpers/suite.js';

const test = suite<{ core: TestCore; gateway: TestGateway; monnify: FakeMonnify }>('gateway: monnify notifications');

test.before(async (ctx) => {
  ctx.monnify = await startFakeMonnify();
  ctx.core = await startCore({
    funding: {
      providers: [
        createMonnifyFunding({
          apiKey: ctx.monnify.apiKey,
          secretKey: ctx.monnify.secretKey,
          contractCode: ctx.monnify.contractCode,
          baseUrl: ctx.monnify.url,
        }),
      ],
      fee: { basisPoints: 100, capKobo: kobo(2_000) },
    },
  });
  ctx.gateway = await startTestGateway(ctx.core);
});
test.after(async (ctx) => {
  await ctx.gateway.close();
  await ctx.core.close();
  await ctx.monnify.stop();
});

async function post(
  gateway: TestGateway,
  body: string,
  headers: Record<string, string> = {},
): Promise<{ status: number; json: unknown }> {
  const response = await fetch(`http://127.0.0.1:${gateway.port}/callbacks/monnify`, {
    method: 'POST',
    body,
    headers: { 'Content-Type': 'application/json', ...headers },
  });
  const text = await response.text();
  return { status: response.status, json: text === '' ? null : JSON.parse(text) };
}

const KYC = {
  kind: 'nin',
  number: '12345678901',
  firstName: 'Ada',
  lastName: 'Obi',
  phone: '08031234567',
  email: 'ada@example.com',
  bankCode: '',
  bankAccount: '',
};

async function openAccount(core: TestCore): Promise<{ accountId: string; numbers: string[] }> {
  const { accountId } = await core.createApiAccount();
  const opened = await core
    .clientWithToken(FundingService, core.adminToken)
    .openFundingAccounts({ accountId, kyc: KYC });
  assert.equal(
    opened.accounts.map((a) => [a.provider, a.kycKind, a.kycLast4]),
    [
      ['monnify', 'nin', '8901'],
      ['monnify', 'nin', '8901'],
    ],
  );
  return { accountId, numbers: opened.accounts.map((a) => a.accountNumber) };
}

async function balance(core: TestCore, accountId: string): Promise<bigint> {
  return (await core.admin.getAccount({ accountId })).account!.balanceKobo;
}

async function ledgerClean(core: TestCore, accountId: string): Promise<void> {
  await assertLedgerInvariant(core, accountId);
  assert.is((await core.admin.checkLedger({})).violationCount, 0n);
}

async function creditEvents(core: TestCore, accountId: string): Promise<Record<string, unknown>[]> {
  return (await core.store.events.listFeed(accountId, 'live', 0, 100))
    .filter((e) => e.type === 'wallet.credited')
    .map((e) => JSON.parse(e.body).data as Record<string, unknown>);
}

test('a live wallet below identity level 2 gets no Monnify account; at level 2 it does', async ({ core }) => {
  const { accountId } = await core.createApiAccount();
  const kyc = core.clientWithToken(KycAdminService, core.adminToken);
  await kyc.approveLevel({ accountId, level: 1, note: 'as a signed-up wallet' });
  const funding = core.clientWithToken(FundingService, core.adminToken);
  const refused = await funding.openFundingAccounts({ accountId, kyc: KYC }).then(
    () => null,
    (error: Error) => error.message,
  );
  assert.match(refused ?? '', /opens at identity level 2/);
  assert.equal((await funding.getFunding({ accountId })).accounts, [], 'nothing was opened');
  await kyc.approveLevel({ accountId, level: 2, note: 'NIN seen' });
  const opened = await funding.openFundingAccounts({ accountId, kyc: KYC });
  assert.is(opened.accounts.length, 2, 'both Monnify accounts, once the identity is verified');
});

test('a signed notification credits once with the fee, even 50 copies at once', async ({ core, gateway, monnify }) => {
  const { accountId, numbers } = await openAccount(core);
  // 1% of 1,500.00 Naira is 15.00; the second NUBAN (Moniepoint) is paid.
  const sent = monnify.transfer(numbers[1]!, 150_000, undefined, 'MONNIFY LIMITED');
  const answers = await Promise.all(
    Array.from({ length: 50 }, () => post(gateway, sent.body, { 'monnify-signature': sent.signature })),
  );
  assert.equal([...new Set(answers.map((a) => a.status))], [200]);
  assert.is(await balance(core, accountId), 148_500n);
  const events = await creditEvents(core, accountId);
  assert.is(events.length, 1, 'one credit event');
  assert.is(events[0]!['source'], 'bank_transfer');
  assert.equal(events[0]!['funding'], {
    provider: 'monnify',
    provider_reference: sent.reference,
    amount_paid: 1500,
    fee: 15,
    payer_name: 'MONNIFY LIMITED',
  });
  // The cap: 1% of 5,000 Naira would be 50; the cap keeps it at 20.
  const big = monnify.transfer(numbers[0]!, 500_000);
  assert.is((await post(gateway, big.body, { 'monnify-signature': big.signature })).status, 200);
  assert.is(await balance(core, accountId), 148_500n + 498_000n);
  await ledgerClean(core, accountId);
});

test('a missing, bad or foreign signature and a tampered body are 401 and record nothing', async ({
  core,
  gateway,
  monnify,
}) => {
  const { accountId, numbers } = await openAccount(core);
  const sent = monnify.transfer(numbers[0]!, 100_000);
  const tampered = sent.body.replace('"amountPaid":1000,', '"amountPaid":9000,');
  assert.is.not(tampered, sent.body);
  for (const [body, headers] of [
    [sent.body, {}],
    [sent.body, { 'monnify-signature': 'ab'.repeat(64) }],
    [sent.body, { 'monnify-signature': signHmacSha512Hex('ANOTHER_MERCHANTS_SECRET', sent.body) }],
    [tampered, { 'monnify-signature': sent.signature }],
  ] as const) {
    assert.is((await post(gateway, body, headers)).status, 401);
  }
  assert.is(await core.store.funding.findInflow('monnify', sent.reference), null);
  assert.is(await balance(core, accountId), 0n);
  await ledgerClean(core, accountId);
});

test('a settlement is 200 and ignored; a body that is not JSON is 400', async ({ core, gateway, monnify }) => {
  const settlement = JSON.stringify({ eventType: 'SETTLEMENT', eventData: { amount: 5000, transactionsCount: 2 } });
  const ignored = await post(gateway, settlement, {
    'monnify-signature': signHmacSha512Hex(monnify.secretKey, settlement),
  });
  assert.is(ignored.status, 200);
  const notJson = 'eventType=SUCCESSFUL_TRANSACTION';
  assert.is(
    (await post(gateway, notJson, { 'monnify-signature': signHmacSha512Hex(monnify.secretKey, notJson) })).status,
    400,
  );
  assert.is((await core.admin.checkLedger({})).violationCount, 0n);
});

test('a replay with another amount, or a re-query saying unpaid or another amount, credits nothing', async ({
  core,
  gateway,
  monnify,
}) => {
  const { accountId, numbers } = await openAccount(core);
  // The genuine notification credits; a signed replay of the reference with another amount does not.
  const sent = monnify.transfer(numbers[0]!, 100_000);
  assert.is((await post(gateway, sent.body, { 'monnify-signature': sent.signature })).status, 200);
  const replay = sent.body.replace(/"amountPaid":1000,/g, '"amountPaid":2000,');
  assert.is(
    (await post(gateway, replay, { 'monnify-signature': signHmacSha512Hex(monnify.secretKey, replay) })).status,
    200,
  );
  assert.is(await balance(core, accountId), 99_000n);

  const unpaid = monnify.transfer(numbers[0]!, 70_000);
  monnify.setStatus(unpaid.reference, { paymentStatus: 'PENDING' });
  assert.is((await post(gateway, unpaid.body, { 'monnify-signature': unpaid.signature })).status, 200);
  assert.is(await core.store.funding.findInflow('monnify', unpaid.reference), null, 'not paid: nothing recorded');

  const other = monnify.transfer(numbers[0]!, 70_000);
  monnify.setStatus(other.reference, { amountKobo: 700_000 });
  assert.is((await post(gateway, other.body, { 'monnify-signature': other.signature })).status, 200);
  const unmatched = await core.store.funding.findInflow('monnify', other.reference);
  assert.is(unmatched?.status, 'unmatched');
  assert.match(unmatched!.reason, 'amount');
  assert.is(await balance(core, accountId), 99_000n);
  assert.is((await creditEvents(core, accountId)).length, 1);
  await ledgerClean(core, accountId);
});

test('a transfer never announced is credited by the sweeper, once', async ({ core, monnify }) => {
  const { accountId, numbers } = await openAccount(core);
  const quiet = monnify.transfer(numbers[1]!, 250_000);
  await core.core.fundingSweeper.runOnce();
  await core.core.fundingSweeper.runOnce();
  assert.is(await balance(core, accountId), 248_000n, '25 Naira fee capped at 20');
  assert.is((await core.store.funding.findInflow('monnify', quiet.reference))?.status, 'credited');
  await ledgerClean(core, accountId);
});

test('a transfer to a number no wallet has is unmatched; assign credits it once', async ({
  core,
  gateway,
  monnify,
}) => {
  const { accountId } = await openAccount(core);
  const stray = monnify.transfer('6099999999', 40_000, undefined, 'LOST PAYER');
  assert.is((await post(gateway, stray.body, { 'monnify-signature': stray.signature })).status, 200);
  const inflow = await core.store.funding.findInflow('monnify', stray.reference);
  assert.is(inflow?.status, 'unmatched');
  assert.is(inflow?.accountId, null);
  const funding = core.clientWithToken(FundingService, core.adminToken);
  const listed = await funding.listInflows({});
  assert.ok(listed.inflows.some((i) => i.inflowId === inflow!.inflowId));
  const results = await Promise.allSettled(
    Array.from({ length: 5 }, () => funding.assignInflow({ inflowId: inflow!.inflowId, accountId })),
  );
  assert.ok(results.every((r) => r.status === 'fulfilled'));
  assert.is(await balance(core, accountId), 39_600n);
  assert.is((await creditEvents(core, accountId)).length, 1);
  await ledgerClean(core, accountId);
});

test.run();
