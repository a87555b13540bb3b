/**
 * What the provider's answer does to the money, for every product, through the sandbox:
 *   9999: a definitive failure, refunded in full exactly once, the transaction failed;
 *   8888: no answer in time, the money stays debited, recovery finds it delivered;
 *   7777: no answer in time, recovery finds it failed and refunds it exactly once.
 * After each: a second recovery pass changes nothing and the ledger adds up.
 */

import { Code } from '@connectrpc/connect';
import * as assert from 'uvu/assert';
import { TransactionStatus } from '../../../gen/prepaid/v1/types_pb.js';
import { assertLedgerInvariant, startCore, type TestCore } from '../../helpers/core.js';
import { suite } from '../../helpers/suite.js';
import { entriesFor, rejection, walletOf } from '../rpc/support.js';
import { PRODUCT_CASES } from './orders.js';

const FUNDS_KOBO = 10_000_00;

let core!: TestCore;

const test = suite('provider outcomes and the money');
test.before(async () => {
  core = await startCore();
});
test.after(async () => {
  await core.close();
});

async function statusOf(accountId: string, reference: string) {
  return (await core.purchase.getTransaction({ accountId, reference })).transaction!;
}

for (const { product, chargedKobo, buy } of PRODUCT_CASES) {
  test(`${product} to a number ending 9999: ABORTED, refunded once, failed, recovery changes nothing`, async () => {
    const { accountId } = await core.createApiAccount({ balanceKobo: FUNDS_KOBO });
    const purchasesBefore = core.sandbox.purchases.length;

    const refused = await rejection(buy(core, accountId, '9999'));
    assert.is(refused.code, Code.Aborted);
    assert.is(refused.reason, 'PROVIDER_FAILED');
    const reference = refused.metadata.reference!;
    assert.is(core.sandbox.purchases.length, purchasesBefore + 1, 'the provider was called once');

    const after = await walletOf(core, accountId);
    assert.is(after.balanceKobo, BigInt(FUNDS_KOBO), 'the balance is restored');
    assert.equal(entriesFor(after, reference), [
      ['debit', -chargedKobo],
      ['refund', chargedKobo],
    ]);
    const tx = await statusOf(accountId, reference);
    assert.is(tx.status, TransactionStatus.FAILED);
    assert.match(tx.failureReason, /9999/);
    await assertLedgerInvariant(core, accountId);

    await core.recoverNow();
    const later = await walletOf(core, accountId);
    assert.equal(later.entries, after.entries, 'recovery wrote nothing');
    assert.is(later.providerQueries, after.providerQueries, 'recovery did not re-query a final transaction');
    assert.is((await statusOf(accountId, reference)).status, TransactionStatus.FAILED);
    await assertLedgerInvariant(core, accountId);
  });

  test(`${product} to a number ending 8888: PENDING, money debited, recovery settles it, no refund`, async () => {
    const { accountId } = await core.createApiAccount({ balanceKobo: FUNDS_KOBO });
    const { transaction } = await buy(core, accountId, '8888');
    assert.is(transaction!.status, TransactionStatus.PENDING);
    const reference = transaction!.reference;
    const pending = await walletOf(core, accountId);
    assert.is(
      pending.balanceKobo,
      BigInt(FUNDS_KOBO) - chargedKobo,
      'the money stays debited while the outcome is unknown',
    );
    assert.equal(entriesFor(pending, reference), [['debit', -chargedKobo]]);

    await core.recoverNow();
    const settled = await statusOf(accountId, reference);
    assert.is(settled.status, TransactionStatus.SUCCESS);
    if (product === 'electricity') assert.match(settled.token, /^\d{4}(-\d{4}){4}$/);
    if (product === 'bulksms') assert.is(settled.smsSent, 2);
    const after = await walletOf(core, accountId);
    assert.is(after.balanceKobo, BigInt(FUNDS_KOBO) - chargedKobo);
    assert.equal(entriesFor(after, reference), [['debit', -chargedKobo]], 'no refund');
    assert.ok(
      core.sandbox.queries.some((q) => q.reference === reference),
      'the provider was re-queried by our reference',
    );
    await assertLedgerInvariant(core, accountId);

    await core.recoverNow();
    assert.equal((await walletOf(core, accountId)).entries, after.entries);
    assert.is((await statusOf(accountId, reference)).status, TransactionStatus.SUCCESS);
  });

  test(`${product} to a number ending 7777: PENDING, then recovery finds it failed and refunds once`, async () => {
    const { accountId } = await core.createApiAccount({ balanceKobo: FUNDS_KOBO });
    const { transaction } = await buy(core, accountId, '7777');
    assert.is(transaction!.status, TransactionStatus.PENDING);
    const reference = transaction!.reference;
    assert.is((await walletOf(core, accountId)).balanceKobo, BigInt(FUNDS_KOBO) - chargedKobo);

    await core.recoverNow();
    const failed = await statusOf(accountId, reference);
    assert.is(failed.status, TransactionStatus.FAILED);
    assert.match(failed.failureReason, /7777/);
    const after = await walletOf(core, accountId);
    assert.is(after.balanceKobo, BigInt(FUNDS_KOBO));
    assert.equal(entriesFor(after, reference), [
      ['debit', -chargedKobo],
      ['refund', chargedKobo],
    ]);
    await assertLedgerInvariant(core, accountId);

    await core.recoverNow();
    const again = await walletOf(core, accountId);
    assert.equal(again.entries, after.entries, 'a second recovery pass refunds nothing more');
    assert.is(again.providerQueries, after.providerQueries, 'and does not re-query');
    await assertLedgerInvariant(core, accountId);
  });
}

test('recovery reports how many pending purchases it finished', async () => {
  const { accountId } = await core.createApiAccount({ balanceKobo: FUNDS_KOBO });
  await core.purchase.buyAirtime({ accountId, network: 'mtn', phone: '08031238888', amountKobo: 100_00n });
  await core.purchase.buyAirtime({ accountId, network: 'mtn', phone: '08031237777', amountKobo: 100_00n });
  assert.is(await core.recoverNow(), 2);
  assert.is(await core.recoverNow(), 0);
  await assertLedgerInvariant(core, accountId);
});

test.run();
