/**
 * The wallet decides: a purchase the balance does not cover is refused before anything
 * happens, and a balance that covers it exactly is spent down to zero, never below.
 */

import { Code } from '@connectrpc/connect';
import * as assert from 'uvu/assert';
import { TransactionStatus } from '../../../gen/prepaid/v1/types_pb.js';
import { assertLedgerInvariant, startCore, type TestCore } from '../../helpers/core.js';
import { suite } from '../../helpers/suite.js';
import { rejection, walletOf } from '../rpc/support.js';
import { PRODUCT_CASES } from './orders.js';

let core!: TestCore;

const test = suite('wallet balance and the charge');
test.before(async () => {
  core = await startCore();
});
test.after(async () => {
  await core.close();
});

for (const { product, chargedKobo, buy } of PRODUCT_CASES) {
  test(`${product}: one kobo short, the purchase is refused and nothing is debited or sent`, async () => {
    const { accountId } = await core.createApiAccount({ balanceKobo: Number(chargedKobo - 1n) });
    const before = await walletOf(core, accountId);

    const refused = await rejection(buy(core, accountId, '1234'));
    assert.is(refused.code, Code.FailedPrecondition);
    assert.is(refused.reason, 'INSUFFICIENT_BALANCE');
    assert.is(refused.metadata.charge_kobo, String(chargedKobo));

    const after = await walletOf(core, accountId);
    assert.is(after.balanceKobo, chargedKobo - 1n);
    assert.equal(after.entries, before.entries);
    assert.is(after.providerPurchases, before.providerPurchases, 'the provider was not called');
    assert.equal((await core.purchase.listTransactions({ accountId })).transactions, [], 'no transaction was recorded');
    await assertLedgerInvariant(core, accountId);
  });

  test(`${product}: a balance that exactly covers the charge is spent down to zero`, async () => {
    const { accountId } = await core.createApiAccount({ balanceKobo: Number(chargedKobo) });
    const { transaction } = await buy(core, accountId, '1234');
    assert.is(transaction!.status, TransactionStatus.SUCCESS);
    assert.is(transaction!.chargedKobo, chargedKobo);
    assert.is(transaction!.balanceAfterKobo, 0n);
    assert.is((await core.purchase.getBalance({ accountId })).balanceKobo, 0n);
    await assertLedgerInvariant(core, accountId);

    const again = await rejection(buy(core, accountId, '1234'));
    assert.is(again.reason, 'INSUFFICIENT_BALANCE');
    assert.is((await core.purchase.getBalance({ accountId })).balanceKobo, 0n);
    await assertLedgerInvariant(core, accountId);
  });
}

test('an empty wallet refuses even the smallest purchase', async () => {
  const { accountId } = await core.createApiAccount();
  const refused = await rejection(
    core.purchase.buyAirtime({ accountId, network: 'glo', phone: '08051234567', amountKobo: 50_00n }),
  );
  assert.is(refused.reason, 'INSUFFICIENT_BALANCE');
  assert.equal(refused.metadata, { balance_kobo: '0', charge_kobo: '4750' });
  await assertLedgerInvariant(core, accountId);
});

test('concurrent purchases never take the balance below zero', async () => {
  // Ten purchases of 97 Naira race for 500 Naira: exactly five can be paid.
  const { accountId } = await core.createApiAccount({ balanceKobo: 500_00 });
  const results = await Promise.allSettled(
    Array.from({ length: 10 }, () =>
      core.purchase.buyAirtime({ accountId, network: 'mtn', phone: '08031234567', amountKobo: 100_00n }),
    ),
  );
  const paid = results.filter((r) => r.status === 'fulfilled').length;
  assert.is(paid, 5);
  for (const r of results) {
    if (r.status === 'rejected') assert.is((await rejection(Promise.reject(r.reason))).reason, 'INSUFFICIENT_BALANCE');
  }
  assert.is((await core.purchase.getBalance({ accountId })).balanceKobo, 500_00n - 5n * 97_00n);
  await assertLedgerInvariant(core, accountId);
});

test.run();
