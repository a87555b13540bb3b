/**
 * GET ?action=funding through the real gateway and core: an account without virtual accounts
 * sees `[]` and the fee (1.5%, capped at 300 Naira); once its owner opens them, the live key
 * pair sees its live account and the test key pair its own sandbox account, never the other's;
 * POST is 405.
 */
import * as assert from 'uvu/assert';
import { kobo } from '../../core/domain/money.js';
import { FundingService } from '../../gen/prepaid/v1/funding_pb.js';
import { Mode } from '../../gen/prepaid/v1/types_pb.js';
import { startCore, type TestCore } from '../helpers/core.js';
import { startTestGateway, type TestGateway } from '../helpers/gateway.js';
import { suite } from '../helpers/suite.js';

const test = suite<{ core: TestCore; gateway: TestGateway }>('gateway: ?action=funding');

test.before(async (ctx) => {
  // The sandbox bank stands in for a live funding provider here (FUNDING_SANDBOX_LIVE=on).
  ctx.core = await startCore({ funding: { sandboxLive: true, fee: { basisPoints: 150, capKobo: kobo(30_000) } } });
  ctx.gateway = await startTestGateway(ctx.core);
});
test.after(async (ctx) => {
  await ctx.gateway.close();
  await ctx.core.close();
});

const KYC = {
  kind: 'bvn',
  number: '22222222222',
  firstName: 'Ada',
  lastName: 'Obi',
  phone: '08031234567',
  email: 'ada@example.com',
  bankCode: '',
  bankAccount: '',
};

test('the accounts of the key pair’s own wallet and the fee, before and after they are opened', async ({
  core,
  gateway,
}) => {
  const live = await core.createApiAccount();
  const issued = await core.admin.createApiKey({ accountId: live.accountId, mode: Mode.TEST });
  const testKeys = { publicKey: issued.issuedKey!.publicKey, secretKey: issued.issuedKey!.secretKey };

  const before = await gateway.request({ query: { action: 'funding' }, keys: live });
  assert.is(before.status, 200);
  assert.equal(before.json, { status: 'success', accounts: [], fee: { percent: 1.5, cap: 300 } });

  const admin = core.clientWithToken(FundingService, core.adminToken);
  const liveOpened = await admin.openFundingAccounts({ accountId: live.accountId, mode: Mode.LIVE, kyc: KYC });
  const testOpened = await admin.openFundingAccounts({ accountId: live.accountId, mode: Mode.TEST, kyc: KYC });
  const liveNumber = liveOpened.accounts[0]!.accountNumber;
  const testNumber = testOpened.accounts[0]!.accountNumber;
  assert.is.not(liveNumber, testNumber);

  const after = await gateway.request({ query: { action: 'funding' }, keys: live });
  assert.equal(after.json, {
    status: 'success',
    accounts: [
      {
        provider: 'sandbox',
        bank: 'Sandbox Bank',
        account_number: liveNumber,
        account_name: 'PREPAID / ADA OBI',
        status: 'active',
      },
    ],
    fee: { percent: 1.5, cap: 300 },
  });
  const inTest = await gateway.request({ query: { action: 'funding' }, keys: testKeys });
  assert.equal(
    (inTest.json as { accounts: { account_number: string }[] }).accounts.map((a) => a.account_number),
    [testNumber],
  );
  const posted = await gateway.request({ query: { action: 'funding' }, keys: live, body: {} });
  assert.is(posted.status, 405);
});

test.run();
