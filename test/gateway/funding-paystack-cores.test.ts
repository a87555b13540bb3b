/**
 * Paystack's identification answered later, with two cores (each with its own gateway) sharing
 * one SQLite file, as a deployment with several cores shares one store: the same
 * customeridentification.success delivered 20 times at once, half to each core, asks Paystack
 * for one dedicated account and records one; the account carries the BVN's last four digits and
 * keyed hash from the request that started the identification; the BVN is in no log line and
 * nowhere in the store's files. A transfer to the account then credits once; the ledger check
 * passes.
 */
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import * as assert from 'uvu/assert';
import { kycHash } from '../../core/funding/kyc.js';
import { createPaystackFunding } from '../../core/funding/paystack.js';
import { FundingService } from '../../gen/prepaid/v1/funding_pb.js';
import { assertLedgerInvariant, startCore, type TestCore } from '../helpers/core.js';
import { type FakePaystack, startFakePaystack } from '../helpers/fake-paystack.js';
import { startTestGateway, type TestGateway } from '../helpers/gateway.js';
import { suite } from '../helpers/suite.js';

/** Shared by both cores, as FUNDING_KYC_KEY is by a deployment's cores. */
const KYC_KEY = 'kyc-key-shared-by-both-cores';
const BVN = '22198765432';

const test = suite<{
  cores: [TestCore, TestCore];
  gateways: [TestGateway, TestGateway];
  paystack: FakePaystack;
  logged: string[];
}>('gateway: paystack account events at two cores on one store');

test.before(async (ctx) => {
  ctx.paystack = await startFakePaystack();
  ctx.logged = [];
  const options = () => ({
    funding: {
      providers: [
        createPaystackFunding({
          secretKey: ctx.paystack.secretKey,
          baseUrl: ctx.paystack.url,
          preferredBank: 'test-bank',
        }),
      ],
      kycKey: KYC_KEY,
    },
    log: (event: string, fields: Record<string, unknown>) => {
      ctx.logged.push(JSON.stringify({ event, ...fields }));
    },
  });
  const first = await startCore(options());
  const second = await startCore({ ...options(), storeFile: path.join(first.dataDir, 'prepaid.sqlite') });
  ctx.cores = [first, second];
  ctx.gateways = [await startTestGateway(first), await startTestGateway(second)];
});
test.after(async (ctx) => {
  for (const gateway of ctx.gateways) await gateway.close();
  await ctx.cores[1].close();
  await ctx.cores[0].close();
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

test('20 copies of one identification event at two cores record one account, the BVN kept as when direct', async ({
  cores,
  gateways,
  paystack,
  logged,
}) => {
  const [first, second] = cores;
  const { accountId } = await first.createApiAccount();
  const opened = await first.clientWithToken(FundingService, first.adminToken).openFundingAccounts({
    accountId,
    kyc: {
      kind: 'bvn',
      number: BVN,
      firstName: 'Ada',
      lastName: 'Obi',
      phone: '08031234567',
      email: `${accountId}@example.com`,
      bankCode: '007',
      bankAccount: '0123456789',
    },
  });
  assert.is(opened.accounts.length, 0, 'the identification answers later');
  const code = paystack.customerCodes().at(-1)!;
  const createdBefore = paystack.calls.filter((c) => c === 'POST /dedicated_account').length;

  const success = paystack.identify(code, true);
  const answers = await Promise.all(Array.from({ length: 20 }, (_, i) => post(gateways[i % 2]!, success)));
  assert.equal(answers, Array(20).fill(200));

  assert.is(
    paystack.calls.filter((c) => c === 'POST /dedicated_account').length - createdBefore,
    1,
    'Paystack was asked for one dedicated account',
  );
  const accounts = await first.store.funding.listVirtualAccounts(accountId, 'live');
  assert.is(accounts.length, 1, 'one account recorded');
  const [account] = accounts;
  assert.equal(
    [account!.provider, account!.kycKind, account!.kycLast4, account!.kycHash],
    ['paystack', 'bvn', '5432', kycHash(KYC_KEY, 'bvn', BVN)],
  );
  assert.equal(await second.store.funding.listVirtualAccounts(accountId, 'live'), accounts);
  assert.is((await first.store.funding.getOpening('paystack', code))?.status, 'opened');

  // A transfer to it credits once, whichever core hears it.
  const sent = paystack.transfer(account!.accountNumber, 250_000, 'ref_two_cores');
  assert.equal(await Promise.all([post(gateways[0], sent), post(gateways[1], sent)]), [200, 200]);
  assert.is((await first.admin.getAccount({ accountId })).account!.balanceKobo, 250_000n);
  await assertLedgerInvariant(first, accountId);
  assert.is((await first.admin.checkLedger({})).violationCount, 0n);

  // The number itself: in no log line, and nowhere in the store's files (database and journal).
  assert.ok(logged.length > 0);
  assert.not.ok(
    logged.some((line) => line.includes(BVN)),
    'the BVN is never logged',
  );
  for (const file of readdirSync(first.dataDir).filter((f) => f.startsWith('prepaid.sqlite'))) {
    assert.not.ok(readFileSync(path.join(first.dataDir, file)).includes(BVN), `the BVN is not in ${file}`);
  }
});

test('a claim released after a failed creation lets the next copy open the account', async ({
  cores,
  gateways,
  paystack,
}) => {
  const [first] = cores;
  const { accountId } = await first.createApiAccount();
  await first.clientWithToken(FundingService, first.adminToken).openFundingAccounts({
    accountId,
    kyc: {
      kind: 'bvn',
      number: BVN,
      firstName: 'Ada',
      lastName: 'Obi',
      phone: '08031234567',
      email: `${accountId}@example.com`,
      bankCode: '007',
      bankAccount: '0123456789',
    },
  });
  const code = paystack.customerCodes().at(-1)!;
  const success = paystack.identify(code, true);
  paystack.failNext('POST /dedicated_account');
  assert.is.not(await post(gateways[1], success), 200, 'not opened: Paystack retries');
  assert.is((await first.store.funding.getOpening('paystack', code))?.status, 'pending');
  assert.is(await post(gateways[0], success), 200);
  const accounts = await first.store.funding.listVirtualAccounts(accountId, 'live');
  assert.equal(
    accounts.map((a) => [a.kycLast4, a.kycHash]),
    [['5432', kycHash(KYC_KEY, 'bvn', BVN)]],
  );
});

test.run();
