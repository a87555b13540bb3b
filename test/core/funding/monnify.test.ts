/**
 * The Monnify adapter against the fake Monnify (built from Monnify's documentation): the signature check
 * holds the official test vector of Monnify's documentation; the token is logged in once and shared by many
 * calls at once, renewed before it expires and after a 401; a reservation asks for every
 * available bank and finds an existing one again; the re-query credits only PAID reserved-account
 * transfers; a notification that is not a reserved-account transfer is ignored.
 */
import * as assert from 'uvu/assert';
import { createMonnifyFunding, monnifyHint } from '../../../core/funding/monnify.js';
import { verifyHmacSha512Hex } from '../../../core/funding/signature.js';
import { type FakeMonnify, startFakeMonnify } from '../../helpers/fake-monnify.js';
import { suite } from '../../helpers/suite.js';

const test = suite<{ monnify: FakeMonnify }>('funding: monnify adapter');

test.before(async (ctx) => {
  ctx.monnify = await startFakeMonnify();
});
test.after(async (ctx) => {
  await ctx.monnify.stop();
});

const KYC = {
  kind: 'bvn' as const,
  number: '21212121212',
  firstName: 'Ada',
  lastName: 'Lovelace',
  phone: '08031234567',
  email: 'ada@example.com',
  bankCode: '',
  bankAccount: '',
};

function adapter(monnify: FakeMonnify, clock?: () => Date) {
  return createMonnifyFunding({
    apiKey: monnify.apiKey,
    secretKey: monnify.secretKey,
    contractCode: monnify.contractCode,
    baseUrl: monnify.url,
    ...(clock === undefined ? {} : { clock }),
  });
}

const signal = () => AbortSignal.timeout(10_000);

test("the signature check holds the official test vector of Monnify's documentation, and only it", () => {
  const body = Buffer.from(
    '{"eventData":{"product":{"reference":"111222333","type":"OFFLINE_PAYMENT_AGENT"},' +
      '"transactionReference":"MNFY|76|20211117154810|000001",' +
      '"paymentReference":"0.01462001097368737","paidOn":"17/11/2021 3:48:10 PM",' +
      '"paymentDescription":"Mockaroo Jesse","metaData":{},"destinationAccountInformation":{},' +
      '"paymentSourceInformation":{},"amountPaid":78000,"totalPayable":78000,' +
      '"offlineProductInformation":{"code":"41470","type":"DYNAMIC"},"cardDetails":{},' +
      '"paymentMethod":"CASH","currency":"NGN","settlementAmount":77600,"paymentStatus":"PAID",' +
      '"customer":{"name":"Mockaroo Jesse","email":"111222333@ZZAMZ4WT4Y3E.monnify"}},' +
      '"eventType":"SUCCESSFUL_TRANSACTION"}',
  );
  const signature =
    'f04fb635e04d71648bd3cc7999003da6861483342c856d05ddfa9b2dafacb873b0de1d0f8f67405d' +
    '0010b4348b721c49fa171d317972618debba6b638aedcd3c';
  const secret = '91MUDL9N6U3BQRXBQ2PJ9M0PW4J22M1Y';
  assert.ok(verifyHmacSha512Hex(secret, body, signature));
  const pretty = Buffer.from(JSON.stringify(JSON.parse(body.toString()), null, 2));
  assert.not.ok(verifyHmacSha512Hex(secret, pretty, signature), 'a re-serialised body does not match');
  // An offline agent payment is not a transfer into a reserved account: ignored, never credited.
  assert.is(monnifyHint(JSON.parse(body.toString())), 'ignored');
  assert.is(monnifyHint({ eventType: 'SETTLEMENT', eventData: {} }), 'ignored');
  assert.is(monnifyHint({ hello: 'world' }), null);
  assert.equal(
    monnifyHint({
      eventType: 'SUCCESSFUL_TRANSACTION',
      eventData: {
        product: { reference: 'R', type: 'RESERVED_ACCOUNT' },
        transactionReference: 'MNFY|04|20211117112842|000170',
        destinationAccountInformation: { accountNumber: '6000140770' },
        amountPaid: '3000.50',
      },
    }),
    { providerReference: 'MNFY|04|20211117112842|000170', accountNumber: '6000140770', amountPaidKobo: 300_050 },
  );
});

test('one login serves 20 calls at once; a token is renewed before it expires and after a 401', async ({ monnify }) => {
  let now = Date.now();
  const provider = adapter(monnify, () => new Date(now));
  const before = monnify.logins();
  await Promise.all(Array.from({ length: 20 }, () => provider.verify('MNFY|nothing', signal())));
  assert.is(monnify.logins() - before, 1, 'one login for twenty calls at once');
  // 3599 s lifetime: still good after 58 minutes, renewed within the last minute.
  now += 58 * 60_000;
  await provider.verify('MNFY|nothing', signal());
  assert.is(monnify.logins() - before, 1);
  now += 60_000;
  await Promise.all(Array.from({ length: 5 }, () => provider.verify('MNFY|nothing', signal())));
  assert.is(monnify.logins() - before, 2, 'renewed once, before expiry');
  monnify.expireTokens();
  const answer = await provider.verify('MNFY|nothing', signal());
  assert.is(answer.kind, 'not_paid', 'the call went through after a fresh login');
  assert.is(monnify.logins() - before, 3);
});

test('wrong credentials: the login fails and the re-query counts as unknown', async ({ monnify }) => {
  const wrong = createMonnifyFunding({
    apiKey: 'MK_TEST_WRONG',
    secretKey: 'WRONGSECRET',
    contractCode: monnify.contractCode,
    baseUrl: monnify.url,
  });
  assert.is((await wrong.verify('MNFY|1', signal())).kind, 'unknown');
});

test('a reservation takes every available bank, the BVN goes to Monnify, and a lost answer is found again', async ({
  monnify,
}) => {
  const provider = adapter(monnify);
  const first = await provider.open({ accountId: 'acct_monnify_1', mode: 'live', kyc: KYC }, signal());
  assert.is(first.kind, 'opened');
  if (first.kind !== 'opened') return;
  assert.is(first.accounts.length, 2);
  assert.equal(
    first.accounts.map((a) => a.bankCode),
    ['035', '50515'],
  );
  assert.is(first.accounts[0]!.providerCustomerRef, 'PREPAID-acct_monnify_1-live');
  assert.equal(monnify.reservation('PREPAID-acct_monnify_1-live')?.kyc, ['bvn:21212121212']);
  const again = await provider.open({ accountId: 'acct_monnify_1', mode: 'live', kyc: KYC }, signal());
  assert.equal(again, first, 'the same reservation, read back');
  const nin = await provider.open(
    { accountId: 'acct_monnify_2', mode: 'test', kyc: { ...KYC, kind: 'nin', number: '12345678901' } },
    signal(),
  );
  assert.is(nin.kind, 'opened');
  assert.equal(monnify.reservation('PREPAID-acct_monnify_2-test')?.kyc, ['nin:12345678901']);
});

test('the re-query: PAID in Naira strings becomes kobo; other statuses are unpaid; the list feeds the sweeper', async ({
  monnify,
}) => {
  const provider = adapter(monnify);
  const opened = await provider.open({ accountId: 'acct_monnify_3', mode: 'live', kyc: KYC }, signal());
  if (opened.kind !== 'opened') throw new Error('not opened');
  const nuban = opened.accounts[1]!.accountNumber;
  const sent = monnify.transfer(nuban, 300_050, undefined, 'MONNIFY LIMITED');
  const verified = await provider.verify(sent.reference, signal());
  assert.is(verified.kind, 'paid');
  if (verified.kind !== 'paid') return;
  assert.is(verified.inflow.amountPaidKobo, 300_050);
  assert.is(verified.inflow.customerRef, 'PREPAID-acct_monnify_3-live');
  assert.is(verified.inflow.payerName, 'MONNIFY LIMITED');
  monnify.setStatus(sent.reference, { paymentStatus: 'REVERSED' });
  assert.is((await provider.verify(sent.reference, signal())).kind, 'not_paid');
  monnify.setStatus(sent.reference, { paymentStatus: 'PAID' });
  const listed = await provider.recentInflows(
    {
      provider: 'monnify',
      accountNumber: nuban,
      accountId: 'acct_monnify_3',
      mode: 'live',
      bankName: '',
      bankCode: '',
      accountName: '',
      providerCustomerRef: 'PREPAID-acct_monnify_3-live',
      status: 'active',
      kycKind: 'bvn',
      kycLast4: '1212',
      kycHash: '',
      createdAt: new Date(),
    },
    new Date(Date.now() - 3_600_000),
    signal(),
  );
  assert.equal(
    listed.map((i) => [i.providerReference, i.amountPaidKobo, i.customerRef]),
    [[sent.reference, 300_050, 'PREPAID-acct_monnify_3-live']],
  );
});

test.run();
