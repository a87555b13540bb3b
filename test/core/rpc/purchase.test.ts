/**
 * PurchaseService over real gRPC: every RPC's success path, with `charged` at the API tier
 * prices of core/catalog/defaults.ts and `balance_after` equal to what GetBalance says.
 */

import { Code } from '@connectrpc/connect';
import * as assert from 'uvu/assert';
import { REFERENCE_PATTERN } from '../../../core/domain/reference.js';
import { Product, type Transaction, TransactionStatus } from '../../../gen/prepaid/v1/types_pb.js';
import { assertLedgerInvariant, startCore, type TestCore } from '../../helpers/core.js';
import { suite } from '../../helpers/suite.js';
import { rejection, walletOf } from './support.js';

const FUNDS_KOBO = 1_000_000_00;
const TOKEN = /^\d{4}-\d{4}-\d{4}-\d{4}-\d{4}$/;

let core!: TestCore;

const test = suite('PurchaseService success paths');
test.before(async () => {
  core = await startCore();
});
test.after(async () => {
  await core.close();
});

async function funded(): Promise<string> {
  return (await core.createApiAccount({ balanceKobo: FUNDS_KOBO })).accountId;
}

/** The transaction a purchase answered: settled, priced as expected, and agreeing with GetBalance and the ledger. */
async function assertSettled(
  accountId: string,
  tx: Transaction | undefined,
  expected: { product: Product; faceKobo: number; chargedKobo: number; balanceBeforeKobo: bigint },
) {
  assert.ok(tx, 'the response carries the transaction');
  assert.is(tx!.status, TransactionStatus.SUCCESS);
  assert.is(tx!.product, expected.product);
  assert.is(tx!.accountId, accountId);
  assert.match(tx!.reference, REFERENCE_PATTERN);
  assert.is(tx!.faceValueKobo, BigInt(expected.faceKobo));
  assert.is(tx!.chargedKobo, BigInt(expected.chargedKobo));
  const { balanceKobo } = await core.purchase.getBalance({ accountId });
  assert.is(balanceKobo, expected.balanceBeforeKobo - BigInt(expected.chargedKobo));
  assert.is(tx!.balanceAfterKobo, balanceKobo);
  const after = await walletOf(core, accountId);
  const debits = after.entries.filter((e) => e.reference === tx!.reference);
  assert.equal(
    debits.map((e) => [e.kind, e.amountKobo]),
    [['debit', -BigInt(expected.chargedKobo)]],
  );
  await assertLedgerInvariant(core, accountId);
}

test('GetBalance answers the balance and the tier', async () => {
  const accountId = await funded();
  const balance = await core.purchase.getBalance({ accountId });
  assert.is(balance.balanceKobo, BigInt(FUNDS_KOBO));
  assert.is(balance.tierId, 'api');
  assert.is(balance.tierName, 'API Client');
});

/** [network, charged kobo for 100 Naira]: the API tier's airtime discounts. */
const AIRTIME: ReadonlyArray<readonly [string, number]> = [
  ['mtn', 97_00],
  ['glo', 95_00],
  ['airtel', 97_00],
  ['9mobile', 96_00],
];

for (const [network, chargedKobo] of AIRTIME) {
  test(`BuyAirtime: 100 Naira of ${network} charges ${chargedKobo / 100} Naira`, async () => {
    const accountId = await funded();
    const res = await core.purchase.buyAirtime({ accountId, network, phone: '08031234567', amountKobo: 100_00n });
    assert.is(res.replayed, false);
    assert.is(res.transaction!.service, network);
    assert.is(res.transaction!.recipient, '08031234567');
    await assertSettled(accountId, res.transaction, {
      product: Product.AIRTIME,
      faceKobo: 100_00,
      chargedKobo,
      balanceBeforeKobo: BigInt(FUNDS_KOBO),
    });
  });
}

test('BuyData: MTN 500MB (plan 1, 500 Naira) charges the API price of 470 Naira', async () => {
  const accountId = await funded();
  const res = await core.purchase.buyData({ accountId, planId: 1n, phone: '08031234567' });
  assert.is(res.transaction!.planId, 1n);
  assert.is(res.transaction!.planLabel, '500MB (7 days)');
  assert.is(res.transaction!.service, 'mtn');
  await assertSettled(accountId, res.transaction, {
    product: Product.DATA,
    faceKobo: 500_00,
    chargedKobo: 470_00,
    balanceBeforeKobo: BigInt(FUNDS_KOBO),
  });
});

test('ListPlans: active plans of every network at the API price', async () => {
  const accountId = await funded();
  const { plans } = await core.purchase.listPlans({ accountId, network: '' });
  assert.equal([...new Set(plans.map((p) => p.network))].sort(), ['9mobile', 'airtel', 'glo', 'mtn']);
  const plan1 = plans.find((p) => p.planId === 1n)!;
  assert.equal(
    [plan1.network, plan1.label, plan1.validity, plan1.faceValueKobo, plan1.priceKobo],
    ['mtn', '500MB', '7 days', 500_00n, 470_00n],
  );
});

test('ListPlans: the network filter returns only that network', async () => {
  const accountId = await funded();
  const { plans } = await core.purchase.listPlans({ accountId, network: 'glo' });
  assert.ok(plans.length >= 1);
  assert.ok(plans.every((p) => p.network === 'glo'));
  const bad = await rejection(core.purchase.listPlans({ accountId, network: 'etisalat' }));
  assert.is(bad.code, Code.InvalidArgument);
  assert.equal(
    bad.violations.map((v) => v.field),
    ['network'],
  );
});

test('PayElectricity: 1,000 Naira prepaid charges 995 Naira and returns a token and units', async () => {
  const accountId = await funded();
  const res = await core.purchase.payElectricity({
    accountId,
    disco: 'ikedc',
    meterNumber: '45012345678',
    meterType: 'prepaid',
    amountKobo: 1_000_00n,
  });
  assert.match(res.transaction!.token, TOKEN);
  assert.match(res.transaction!.units, /^\d+\.\d kWh$/);
  assert.is(res.transaction!.meterType, 'prepaid');
  await assertSettled(accountId, res.transaction, {
    product: Product.ELECTRICITY,
    faceKobo: 1_000_00,
    chargedKobo: 995_00,
    balanceBeforeKobo: BigInt(FUNDS_KOBO),
  });
});

test('PayCable: DStv Padi (2,500 Naira) charges 2,475 Naira and names the package', async () => {
  const accountId = await funded();
  const res = await core.purchase.payCable({
    accountId,
    provider: 'dstv',
    smartCard: '7041234567',
    packageCode: 'DSTV PADI',
  });
  assert.is(res.transaction!.packageCode, 'DSTV PADI');
  assert.is(res.transaction!.planLabel, 'DStv Padi');
  await assertSettled(accountId, res.transaction, {
    product: Product.CABLE,
    faceKobo: 2_500_00,
    chargedKobo: 2_475_00,
    balanceBeforeKobo: BigInt(FUNDS_KOBO),
  });
});

test('SendBulkSms: 161 characters to 3 numbers is 2 pages x 3 x 3.50 Naira = 21 Naira', async () => {
  const accountId = await funded();
  const recipients = ['08031234567', '08021234567', '07061234567'];
  const res = await core.purchase.sendBulkSms({ accountId, sender: 'ShopRite', recipients, message: 'a'.repeat(161) });
  assert.is(res.transaction!.smsSent, 3);
  assert.is(res.transaction!.smsPages, 2);
  await assertSettled(accountId, res.transaction, {
    product: Product.BULK_SMS,
    faceKobo: 21_00,
    chargedKobo: 21_00,
    balanceBeforeKobo: BigInt(FUNDS_KOBO),
  });
});

test('GetTransaction: answers the purchase as it was settled', async () => {
  const accountId = await funded();
  const bought = (
    await core.purchase.buyAirtime({ accountId, network: 'glo', phone: '08051234567', amountKobo: 200_00n })
  ).transaction!;
  const { transaction } = await core.purchase.getTransaction({ accountId, reference: bought.reference });
  assert.is(transaction!.reference, bought.reference);
  assert.is(transaction!.status, TransactionStatus.SUCCESS);
  assert.is(transaction!.chargedKobo, 190_00n);
  assert.is(transaction!.balanceAfterKobo, bought.balanceAfterKobo);
  assert.is(transaction!.recipient, '08051234567');
});

test("ListTransactions: the account's purchases, newest first", async () => {
  const accountId = await funded();
  const first = (
    await core.purchase.buyAirtime({ accountId, network: 'mtn', phone: '08031234567', amountKobo: 100_00n })
  ).transaction!;
  await new Promise((resolve) => setTimeout(resolve, 5));
  const second = (await core.purchase.buyData({ accountId, planId: 101n, phone: '08051234567' })).transaction!;
  const { transactions, nextPageToken } = await core.purchase.listTransactions({ accountId });
  assert.equal(
    transactions.map((t) => t.reference),
    [second.reference, first.reference],
  );
  assert.is(nextPageToken, '');
  await assertLedgerInvariant(core, accountId);
});

test.run();
