/**
 * A suspended account is refused on every PurchaseService call naming it, whether the use
 * case refuses it on its own read of the account (balance, purchases, lists: no read of its own) or
 * the RPC reads the account for it (one transaction, a customer lookup), and nothing is
 * debited; resumed, it buys again at once.
 */

import { Code } from '@connectrpc/connect';
import * as assert from 'uvu/assert';
import { startCore, type TestCore } from '../../helpers/core.js';
import { suite } from '../../helpers/suite.js';
import { PRODUCT_CASES } from '../purchases/orders.js';
import { rejection, walletOf } from './support.js';

let core!: TestCore;

const test = suite('a suspended account on the purchase service');
test.before(async () => {
  core = await startCore();
});
test.after(async () => {
  await core.close();
});

async function assertSuspended(call: Promise<unknown>, what: string): Promise<void> {
  const refused = await rejection(call);
  assert.is(refused.code, Code.Unauthenticated, what);
  assert.is(refused.reason, 'ACCOUNT_SUSPENDED', what);
}

test('every call naming a suspended account is refused, nothing debited; a resume takes effect at once', async () => {
  const { accountId } = await core.createApiAccount({ balanceKobo: 100_000_00 });
  const [first] = PRODUCT_CASES;
  const bought = await first!.buy(core, accountId, '0001');
  const reference = bought.transaction!.reference;
  const before = await walletOf(core, accountId);
  await core.store.accounts.setSuspension(accountId, { at: new Date(), by: 'cli', note: 'KYC documents expired' });

  await assertSuspended(core.purchase.getBalance({ accountId }), 'balance');
  for (const { product, buy } of PRODUCT_CASES) await assertSuspended(buy(core, accountId, '0002'), product);
  await assertSuspended(
    core.purchase.sendBulkSms({ accountId, sender: 'Shop', recipients: ['08031234567'], message: 'Hello' }),
    'bulk SMS',
  );
  await assertSuspended(core.purchase.listTransactions({ accountId }), 'history');
  await assertSuspended(core.purchase.listPlans({ accountId, network: 'mtn' }), 'plans');
  await assertSuspended(core.purchase.listPackages({ accountId, provider: 'dstv' }), 'packages');
  await assertSuspended(core.purchase.getTransaction({ accountId, reference }), 'one transaction');
  await assertSuspended(
    core.purchase.verifyCustomer({ accountId, disco: 'ikedc', meterNumber: '45012345678', meterType: 'prepaid' }),
    'customer lookup',
  );

  await core.store.accounts.setSuspension(accountId, null);
  const after = await walletOf(core, accountId);
  assert.is(after.balanceKobo, before.balanceKobo, 'nothing was debited');
  assert.equal(after.entries, before.entries);
  assert.is(after.providerPurchases, before.providerPurchases, 'no upstream was called');
  const again = await first!.buy(core, accountId, '0003');
  assert.ok(again.transaction!.reference, 'resumed, it buys again');
});

test.run();
