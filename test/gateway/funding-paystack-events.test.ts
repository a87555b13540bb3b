/**
 * Paystack's asynchronous account events through the real gateway and core, against the fake
 * Paystack (bodies from Paystack's documentation): after the identification step, a signed
 * customeridentification.success opens the dedicated account (once, however often it is sent)
 * and a transfer to it credits; a customeridentification.failed is kept for the owner with
 * Paystack's reason; a dedicatedaccount.assign.success gives the account Paystack names, read
 * back from Paystack; a bad signature is 401 and opens nothing. The ledger check passes.
 */
import * as assert from 'uvu/assert';
import { createPaystackFunding } from '../../core/funding/paystack.js';
import { signHmacSha512Hex } from '../../core/funding/signature.js';
import { FundingService } from '../../gen/prepaid/v1/funding_pb.js';
import { assertLedgerInvariant, startCore, type TestCore } from '../helpers/core.js';
import { type FakePaystack, startFakePaystack } from '../helpers/fake-paystack.js';
import { startTestGateway, type TestGateway } from '../helpers/gateway.js';
import { suite } from '../helpers/suite.js';

const test = suite<{ core: TestCore; gateway: TestGateway; paystack: FakePaystack }>(
  'gateway: paystack account events',
);

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

async function post(gateway: TestGateway, sent: { body: string; signature: string }): Promise<number> {
  const response = await fetch(`http://127.0.0.1:${gateway.port}/callbacks/paystack`, {
    method: 'POST',
    body: sent.body,
    headers: { 'Content-Type': 'application/json', 'x-paystack-signature': sent.signature },
  });
  await response.text();
  return response.status;
}

/** Opens with a bank account linked to the BVN: Paystack's identification step, answered later. */
async function openPending(core: TestCore, paystack: FakePaystack): Promise<{ accountId: string; code: string }> {
  const { accountId } = await core.createApiAccount();
  const opened = await core.clientWithToken(FundingService, core.adminToken).openFundingAccounts({
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
  assert.is(opened.accounts.length, 0);
  assert.match(opened.pending.join(' '), 'paystack');
  const code = paystack.customerCodes().at(-1)!;
  assert.ok(paystack.identificationsAsked().includes(code));
  return { accountId, code };
}

const accountsOf = async (core: TestCore, accountId: string) =>
  (await core.clientWithToken(FundingService, core.adminToken).getFunding({ accountId })).accounts;

test('a validated BVN opens the account once; a transfer to it then credits', async ({ core, gateway, paystack }) => {
  const { accountId, code } = await openPending(core, paystack);
  const success = paystack.identify(code, true);
  const answers = await Promise.all([post(gateway, success), post(gateway, success)]);
  assert.equal(answers, [200, 200]);
  assert.is(await post(gateway, success), 200);
  const accounts = await accountsOf(core, accountId);
  assert.is(accounts.length, 1, 'one account however often the event came');
  assert.equal([accounts[0]!.provider, accounts[0]!.kycKind, accounts[0]!.kycLast4], ['paystack', 'bvn', '2222']);
  const sent = paystack.transfer(accounts[0]!.accountNumber, 300_000, 'ref_after_identification');
  assert.is(await post(gateway, sent), 200);
  assert.is((await core.admin.getAccount({ accountId })).account!.balanceKobo, 300_000n);
  await assertLedgerInvariant(core, accountId);
  assert.is((await core.admin.checkLedger({})).violationCount, 0n);
});

test("a failed identification opens nothing and keeps Paystack's reason for the owner", async ({
  core,
  gateway,
  paystack,
}) => {
  const { accountId, code } = await openPending(core, paystack);
  assert.is(await post(gateway, paystack.identify(code, false, 'Account number or BVN is incorrect')), 200);
  assert.is((await accountsOf(core, accountId)).length, 0);
  const overview = await core.core.funding.overview(accountId, 'live');
  assert.equal(
    overview.refusals.map((r) => [r.provider, r.step, r.reason]),
    [['paystack', 'identification', 'Account number or BVN is incorrect']],
  );
  const audit = await core.store.auditLog.list({ action: 'funding.opening_failed', target: accountId, limit: 5 });
  assert.equal(
    audit.map((a) => a.actor),
    ['system'],
  );
  // Validated on a second try: the account opens and the problem is no longer shown.
  assert.is(await post(gateway, paystack.identify(code, true)), 200);
  assert.is((await accountsOf(core, accountId)).length, 1);
  assert.equal((await core.core.funding.overview(accountId, 'live')).refusals, []);
});

test('an assignment event gives the account Paystack names, read back from Paystack', async ({
  core,
  gateway,
  paystack,
}) => {
  const { accountId, code } = await openPending(core, paystack);
  const assigned = paystack.assign(code, true);
  assert.is(await post(gateway, assigned), 200);
  const accounts = await accountsOf(core, accountId);
  assert.equal(
    accounts.map((a) => a.accountNumber),
    [assigned.accountNumber],
  );
  const other = await openPending(core, paystack);
  assert.is(await post(gateway, paystack.assign(other.code, false)), 200);
  assert.is((await accountsOf(core, other.accountId)).length, 0);
  const [refusal] = (await core.core.funding.overview(other.accountId, 'live')).refusals;
  assert.match(refusal!.reason, 'could not assign');
});

test('an account event with a bad signature is 401 and opens nothing', async ({ core, gateway, paystack }) => {
  const { accountId, code } = await openPending(core, paystack);
  const success = paystack.identify(code, true);
  assert.is(
    await post(gateway, { body: success.body, signature: signHmacSha512Hex('sk_test_other', success.body) }),
    401,
  );
  assert.is((await accountsOf(core, accountId)).length, 0);
});

test.run();
