/**
 * Paystack dedicated accounts through a real core against the fake Paystack (built from
 * Paystack's documentation): the account is opened with Paystack, a signed charge.success credits once
 * (50 copies at once too), a re-query that contradicts the notification or says unpaid
 * credits nothing, a transfer never announced is credited by the sweeper, and the signature
 * check holds the test vector of Paystack's documentation.
 */
import * as assert from 'uvu/assert';
import { kobo } from '../../../core/domain/money.js';
import { createPaystackFunding, paystackHint } from '../../../core/funding/paystack.js';
import { verifyHmacSha512Hex } from '../../../core/funding/signature.js';
import { FundingService } from '../../../gen/prepaid/v1/funding_pb.js';
import { assertLedgerInvariant, startCore, type TestCore } from '../../helpers/core.js';
import { type FakePaystack, startFakePaystack } from '../../helpers/fake-paystack.js';
import { suite } from '../../helpers/suite.js';

const test = suite<{ core: TestCore; paystack: FakePaystack }>('funding: paystack');

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
});
test.after(async (ctx) => {
  await ctx.core.close();
  await ctx.paystack.stop();
});

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
  assert.is(opened.accounts.length, 1);
  assert.equal([opened.accounts[0]!.provider, opened.accounts[0]!.bankName], ['paystack', 'Test Bank']);
  return { accountId, number: opened.accounts[0]!.accountNumber };
}

async function balance(core: TestCore, accountId: string): Promise<bigint> {
  return (await core.admin.getAccount({ accountId })).account!.balanceKobo;
}

async function ledgerClean(core: TestCore, accountId: string): Promise<void> {
  await assertLedgerInvariant(core, accountId);
  assert.is((await core.admin.checkLedger({})).violationCount, 0n);
}

test('the signature check holds the test vector Paystack documents, and refuses a tampered body or a bad header', () => {
  const body = Buffer.from(
    '{"event":"charge.success","data":{"id":1001,"domain":"test","status":"success",' +
      '"reference":"ref_example_1","amount":500000,"currency":"NGN",' +
      '"channel":"dedicated_nuban","fees":5000}}',
  );
  assert.is(body.length, 181);
  const signature =
    '538b5f5adb5535bfdd89c3fc151f24cc1e5197f22a7e3df00e747a24f80c50a01a498bcde18bf9b6' +
    '7e4fa09648bc048e4bb40f220a774e28c1a3223315b3493a';
  assert.ok(verifyHmacSha512Hex('sk_test_example', body, signature));
  assert.not.ok(
    verifyHmacSha512Hex('sk_test_example', Buffer.from(body.toString().replace('500000', '900000')), signature),
  );
  assert.not.ok(verifyHmacSha512Hex('sk_test_other', body, signature));
  assert.not.ok(verifyHmacSha512Hex('sk_test_example', body, undefined));
  assert.not.ok(verifyHmacSha512Hex('sk_test_example', body, signature.toUpperCase()));
  assert.equal(paystackHint(JSON.parse(body.toString())), {
    providerReference: 'ref_example_1',
    accountNumber: '',
    amountPaidKobo: 500_000,
  });
  assert.is(paystackHint({ event: 'transfer.success', data: {} }), 'ignored');
  assert.is(paystackHint({ nothing: true }), null);
});

test('a signed charge.success credits once, 50 copies at once too, with the verified facts', async ({
  core,
  paystack,
}) => {
  const { accountId, number } = await openAccount(core);
  const sent = paystack.transfer(number, 500_000, 'ref_dva_0001');
  const hint = paystackHint(JSON.parse(sent.body));
  assert.ok(hint !== null && hint !== 'ignored');
  const outcomes = await Promise.all(Array.from({ length: 50 }, () => core.core.funding.notify('paystack', hint)));
  assert.is(outcomes.filter((o) => o === 'credited').length, 1);
  assert.is(outcomes.filter((o) => o === 'already_credited').length, 49);
  assert.is(await balance(core, accountId), 500_000n);
  const event = (await core.store.events.listFeed(accountId, 'live', 0, 10)).find((e) => e.type === 'wallet.credited');
  assert.equal(JSON.parse(event!.body).data.funding, {
    provider: 'paystack',
    provider_reference: 'ref_dva_0001',
    amount_paid: 5000,
    fee: 0,
    payer_name: 'RANDALL AKANBI HORTON',
  });
  await ledgerClean(core, accountId);
});

test('a re-query that contradicts the amount, or says unpaid, credits nothing', async ({ core, paystack }) => {
  const { accountId, number } = await openAccount(core);
  const replayed = paystack.transfer(number, 100_000, 'ref_dva_0002');
  paystack.setVerify('ref_dva_0002', { amount: 900_000 });
  const hint = paystackHint(JSON.parse(replayed.body));
  assert.ok(hint !== null && hint !== 'ignored');
  assert.is(await core.core.funding.notify('paystack', hint), 'unmatched');
  assert.is((await core.store.funding.findInflow('paystack', 'ref_dva_0002'))?.status, 'unmatched');

  const unpaid = paystack.transfer(number, 100_000, 'ref_dva_0003');
  paystack.setVerify('ref_dva_0003', { status: 'reversed' });
  const unpaidHint = paystackHint(JSON.parse(unpaid.body));
  assert.ok(unpaidHint !== null && unpaidHint !== 'ignored');
  assert.is(await core.core.funding.notify('paystack', unpaidHint), 'not_paid');
  // A reference Paystack never had (a forged notification that got past the signature).
  assert.is(
    await core.core.funding.notify('paystack', {
      providerReference: 'ref_forged',
      accountNumber: number,
      amountPaidKobo: kobo(100_000),
    }),
    'not_paid',
  );
  assert.is(await balance(core, accountId), 0n);
  await ledgerClean(core, accountId);
});

test('a transfer never announced is credited by the sweeper, once', async ({ core, paystack }) => {
  const { accountId, number } = await openAccount(core);
  paystack.transfer(number, 250_000, 'ref_dva_quiet');
  await core.core.fundingSweeper.runOnce();
  await core.core.fundingSweeper.runOnce();
  assert.is(await balance(core, accountId), 250_000n);
  assert.is((await core.store.funding.findInflow('paystack', 'ref_dva_quiet'))?.status, 'credited');
  await ledgerClean(core, accountId);
});

test('a wrong secret key gets 401 from Paystack and the answer counts as unknown: nothing credited', async ({
  paystack,
}) => {
  const wrong = createPaystackFunding({ secretKey: 'sk_test_wrong', baseUrl: paystack.url });
  const verified = await wrong.verify('ref_dva_0001', AbortSignal.timeout(5_000));
  assert.is(verified.kind, 'unknown');
});

test.run();
