/**
 * Unmatched inflows looked at again, through the real gateway and core against the fake Paystack
 * and the fake Monnify (built from the providers' published facts). A Paystack transfer that
 * arrives before its dedicated account's assignment event is credited once the event comes; when
 * that look fails, Paystack's retry of the notification credits it, and so does the sweeper; the
 * reason kept for one that still cannot be credited is found again and stays true. A transfer the
 * re-query puts above what a wallet takes is kept as unmatched with the provider's answer (Paystack
 * and Monnify alike), never credited and never lost. The ledger check passes after each.
 */
import * as assert from 'uvu/assert';
import { MAX_AMOUNT_KOBO } from '../../core/domain/money.js';
import { createMonnifyFunding } from '../../core/funding/monnify.js';
import { createPaystackFunding } from '../../core/funding/paystack.js';
import { FundingService } from '../../gen/prepaid/v1/funding_pb.js';
import { assertLedgerInvariant, startCore, type TestCore } from '../helpers/core.js';
import { type FakeMonnify, startFakeMonnify } from '../helpers/fake-monnify.js';
import { type FakePaystack, startFakePaystack } from '../helpers/fake-paystack.js';
import { startTestGateway, type TestGateway } from '../helpers/gateway.js';
import { suite } from '../helpers/suite.js';

interface State {
  core: TestCore;
  gateway: TestGateway;
  paystack: FakePaystack;
  monnify: FakeMonnify;
}

const test = suite<State>('gateway: unmatched inflows looked at again');

test.before(async (ctx) => {
  ctx.paystack = await startFakePaystack();
  ctx.monnify = await startFakeMonnify();
  ctx.core = await startCore({
    funding: {
      providers: [
        createPaystackFunding({
          secretKey: ctx.paystack.secretKey,
          baseUrl: ctx.paystack.url,
          preferredBank: 'test-bank',
        }),
        createMonnifyFunding({
          apiKey: ctx.monnify.apiKey,
          secretKey: ctx.monnify.secretKey,
          contractCode: ctx.monnify.contractCode,
          baseUrl: ctx.monnify.url,
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
  await ctx.monnify.stop();
});

async function post(
  gateway: TestGateway,
  provider: 'paystack' | 'monnify',
  sent: { body: string; signature: string },
): Promise<number> {
  const response = await fetch(`http://127.0.0.1:${gateway.port}/callbacks/${provider}`, {
    method: 'POST',
    body: sent.body,
    headers: {
      'Content-Type': 'application/json',
      [provider === 'paystack' ? 'x-paystack-signature' : 'monnify-signature']: sent.signature,
    },
  });
  await response.text();
  return response.status;
}

/**
 * A wallet whose Paystack account is being assigned: Paystack holds the account already (the fake made it), but
 * its `dedicatedaccount.assign.success` has not reached the core. Monnify is refused, so only Paystack opens.
 */
async function assigning(
  ctx: State,
): Promise<{ accountId: string; accountNumber: string; event: () => Promise<number> }> {
  const { core, paystack, monnify, gateway } = ctx;
  const { accountId } = await core.createApiAccount();
  monnify.refuseIdentity('22222222222', 'BVN could not be validated');
  await core.clientWithToken(FundingService, core.adminToken).openFundingAccounts({
    accountId,
    kyc: {
      kind: 'bvn',
      number: '22222222222',
      firstName: 'Ada',
      lastName: 'Obi',
      phone: '08031234567',
      email: `${accountId}@example.com`,
      bankCode: '007',
      bankAccount: '0123456789',
    },
  });
  monnify.refuseIdentity('22222222222', null);
  const assigned = paystack.assign(paystack.customerCodes().at(-1)!, true);
  return { accountId, accountNumber: assigned.accountNumber, event: () => post(gateway, 'paystack', assigned) };
}

const balanceOf = async (core: TestCore, accountId: string) =>
  (await core.admin.getAccount({ accountId })).account!.balanceKobo;

async function ledgerClean(core: TestCore, accountId: string): Promise<void> {
  await assertLedgerInvariant(core, accountId);
  assert.is((await core.admin.checkLedger({})).violationCount, 0n);
}

test('a transfer before its account is assigned is credited once the assignment comes', async (ctx) => {
  const { core, gateway, paystack } = ctx;
  const { accountId, accountNumber, event } = await assigning(ctx);
  const sent = paystack.transfer(accountNumber, 300_000, 'ref_before_assignment');
  assert.is(await post(gateway, 'paystack', sent), 200);
  const early = await core.store.funding.findInflow('paystack', 'ref_before_assignment');
  assert.equal([early?.status, early?.reason], ['unmatched', 'no virtual account has this number']);
  assert.is(await balanceOf(core, accountId), 0n);

  assert.is(await event(), 200);
  const later = await core.store.funding.findInflow('paystack', 'ref_before_assignment');
  assert.equal([later?.status, later?.accountId, later?.reason], ['credited', accountId, '']);
  assert.is(await balanceOf(core, accountId), 300_000n);
  // The event again, Paystack's retry of the transfer and a sweep: still once.
  assert.is(await event(), 200);
  assert.is(await post(gateway, 'paystack', sent), 200);
  await core.core.fundingSweeper.runOnce();
  assert.is(await balanceOf(core, accountId), 300_000n);
  await ledgerClean(core, accountId);
});

test("Paystack's retry credits it when the look at the assignment could not confirm it", async (ctx) => {
  const { core, gateway, paystack } = ctx;
  const { accountId, accountNumber, event } = await assigning(ctx);
  const sent = paystack.transfer(accountNumber, 150_000, 'ref_retried');
  assert.is(await post(gateway, 'paystack', sent), 200);
  paystack.failNext('GET /transaction/verify/ref_retried');
  assert.is(await event(), 200);
  assert.is((await core.store.funding.findInflow('paystack', 'ref_retried'))?.status, 'unmatched');
  assert.is(await balanceOf(core, accountId), 0n, 'nothing credited without a re-query');

  assert.is(await post(gateway, 'paystack', sent), 200);
  assert.is((await core.store.funding.findInflow('paystack', 'ref_retried'))?.status, 'credited');
  assert.is(await balanceOf(core, accountId), 150_000n);
  await ledgerClean(core, accountId);
});

test('the sweeper credits it when neither the assignment nor a retry did', async (ctx) => {
  const { core, gateway, paystack } = ctx;
  const { accountId, accountNumber, event } = await assigning(ctx);
  assert.is(await post(gateway, 'paystack', paystack.transfer(accountNumber, 120_000, 'ref_swept')), 200);
  paystack.failNext('GET /transaction/verify/ref_swept');
  assert.is(await event(), 200);
  assert.is(await balanceOf(core, accountId), 0n);
  await core.core.fundingSweeper.runOnce();
  assert.is((await core.store.funding.findInflow('paystack', 'ref_swept'))?.status, 'credited');
  assert.is(await balanceOf(core, accountId), 120_000n);
  await core.core.fundingSweeper.runOnce();
  assert.is(await balanceOf(core, accountId), 120_000n, 'a second sweep credits nothing more');
  await ledgerClean(core, accountId);
});

test("an unmatched transfer's reason is found again when its account comes, and stays true", async (ctx) => {
  const { core, gateway, paystack } = ctx;
  const { accountId, accountNumber, event } = await assigning(ctx);
  const tooMuch = MAX_AMOUNT_KOBO + 100;
  assert.is(await post(gateway, 'paystack', paystack.transfer(accountNumber, tooMuch, 'ref_too_much')), 200);
  assert.is(
    (await core.store.funding.findInflow('paystack', 'ref_too_much'))?.reason,
    'no virtual account has this number',
  );
  assert.is(await event(), 200);
  const kept = await core.store.funding.findInflow('paystack', 'ref_too_much');
  assert.equal([kept?.status, kept?.reason], ['unmatched', 'the amount is outside what a wallet takes']);
  assert.is(await balanceOf(core, accountId), 0n);
  await ledgerClean(core, accountId);
});

test('a Paystack re-query that puts the amount out of range keeps the transfer unmatched with its answer', async (ctx) => {
  const { core, gateway, paystack } = ctx;
  const { accountId, accountNumber, event } = await assigning(ctx);
  assert.is(await event(), 200);
  const sent = paystack.transfer(accountNumber, 200_000, 'ref_requery_out_of_range');
  paystack.setVerify('ref_requery_out_of_range', { amount: MAX_AMOUNT_KOBO + 1 });
  assert.is(await post(gateway, 'paystack', sent), 200);
  const kept = await core.store.funding.findInflow('paystack', 'ref_requery_out_of_range');
  assert.equal(
    [kept?.status, kept?.amountPaidKobo, kept?.reason],
    ['unmatched', MAX_AMOUNT_KOBO + 1, 'the notification and the provider disagree on the amount'],
  );
  assert.match(kept!.raw, String(MAX_AMOUNT_KOBO + 1));
  // Both sides above what a wallet takes: kept too, with that reason.
  const both = paystack.transfer(accountNumber, MAX_AMOUNT_KOBO + 5, 'ref_both_out_of_range');
  assert.is(await post(gateway, 'paystack', both), 200);
  const second = await core.store.funding.findInflow('paystack', 'ref_both_out_of_range');
  assert.equal([second?.status, second?.reason], ['unmatched', 'the amount is outside what a wallet takes']);
  // A retry and a sweep never credit them.
  assert.is(await post(gateway, 'paystack', sent), 200);
  await core.core.fundingSweeper.runOnce();
  assert.is(await balanceOf(core, accountId), 0n);
  await ledgerClean(core, accountId);
});

test('a Monnify transfer above what a wallet takes is kept as unmatched, not refused as a bad body', async (ctx) => {
  const { core, gateway, monnify } = ctx;
  const { accountId } = await core.createApiAccount();
  const opened = await core.clientWithToken(FundingService, core.adminToken).openFundingAccounts({
    accountId,
    kyc: {
      kind: 'nin',
      number: '12345678901',
      firstName: 'Ada',
      lastName: 'Obi',
      phone: '08031234567',
      email: `${accountId}@example.com`,
      bankCode: '',
      bankAccount: '',
    },
  });
  const number = opened.accounts.find((a) => a.provider === 'monnify')!.accountNumber;
  const sent = monnify.transfer(number, MAX_AMOUNT_KOBO + 100);
  assert.is(await post(gateway, 'monnify', sent), 200);
  const kept = await core.store.funding.findInflow('monnify', sent.reference);
  assert.equal(
    [kept?.status, kept?.amountPaidKobo, kept?.reason],
    ['unmatched', MAX_AMOUNT_KOBO + 100, 'the amount is outside what a wallet takes'],
  );
  assert.match(kept!.raw, 'PAID');
  // In range in the notification, out of range in the re-query: kept as well.
  const small = monnify.transfer(number, 50_000);
  monnify.setStatus(small.reference, { amountKobo: MAX_AMOUNT_KOBO + 1 });
  assert.is(await post(gateway, 'monnify', small), 200);
  assert.is((await core.store.funding.findInflow('monnify', small.reference))?.status, 'unmatched');
  assert.is(await balanceOf(core, accountId), 0n);
  await ledgerClean(core, accountId);
});

test.run();
