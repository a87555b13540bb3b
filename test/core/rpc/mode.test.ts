/**
 * Mode over real gRPC, as internal services use it: a request that names no mode is live
 * (every caller written before test mode keeps working as it did), MODE_TEST acts on the
 * test wallet and the test history only, and a mode this core does not know is refused.
 */
import { Code } from '@connectrpc/connect';
import * as assert from 'uvu/assert';
import { Mode, TransactionStatus } from '../../../gen/prepaid/v1/types_pb.js';
import { startCore, type TestCore } from '../../helpers/core.js';
import { suite } from '../../helpers/suite.js';
import { rejection } from './support.js';

let core!: TestCore;

const test = suite('gRPC: the mode of a request');
test.before(async () => {
  core = await startCore();
});
test.after(async () => {
  await core.close();
});

/** An API account with ₦1,000 live and ₦300 of test money. */
async function account(): Promise<string> {
  const { accountId } = await core.createApiAccount({ balanceKobo: 100_000 });
  const credited = await core.admin.creditWallet({
    accountId,
    amountKobo: 30_000n,
    memo: 'test money',
    mode: Mode.TEST,
  });
  assert.is(credited.balanceKobo, 30_000n, 'a test credit answers the test balance');
  assert.is(credited.entry?.mode, Mode.TEST);
  return accountId;
}

test('a request without a mode is live, as before test mode', async () => {
  const accountId = await account();
  const balance = await core.purchase.getBalance({ accountId });
  assert.is(balance.balanceKobo, 100_000n);
  assert.is(balance.mode, Mode.LIVE, 'the answer says live explicitly');
  const bought = await core.purchase.buyAirtime({
    accountId,
    network: 'mtn',
    phone: '08031234567',
    amountKobo: 10_000n,
  });
  assert.is(bought.transaction?.livemode, true);
  const after = (await core.admin.getAccount({ accountId })).account!;
  assert.is(after.balanceKobo, 100_000n - bought.transaction!.chargedKobo);
  assert.is(after.testBalanceKobo, 30_000n);
});

test('MODE_TEST buys from the test wallet; each mode reads only its own purchases', async () => {
  const accountId = await account();
  const testBuy = await core.purchase.buyAirtime({
    accountId,
    network: 'mtn',
    phone: '08031234567',
    amountKobo: 10_000n,
    mode: Mode.TEST,
  });
  const tx = testBuy.transaction!;
  assert.is(tx.status, TransactionStatus.SUCCESS);
  assert.is(tx.livemode, false);
  assert.is(tx.balanceAfterKobo, 30_000n - tx.chargedKobo);
  assert.is((await core.purchase.getBalance({ accountId, mode: Mode.TEST })).balanceKobo, 30_000n - tx.chargedKobo);
  assert.is((await core.purchase.getBalance({ accountId })).balanceKobo, 100_000n, 'live untouched');

  assert.is(
    (await core.purchase.getTransaction({ accountId, reference: tx.reference, mode: Mode.TEST })).transaction
      ?.reference,
    tx.reference,
  );
  const crossed = await rejection(core.purchase.getTransaction({ accountId, reference: tx.reference }));
  assert.is(crossed.code, Code.NotFound, 'a test purchase is not found in live');
  assert.equal(
    (await core.purchase.listTransactions({ accountId, mode: Mode.TEST })).transactions.map((t) => t.reference),
    [tx.reference],
  );
  assert.equal((await core.purchase.listTransactions({ accountId })).transactions, []);
  // The test ledger has the credit and the debit; the live ledger only the opening credit.
  const testLedger = await core.admin.listLedgerEntries({ accountId, mode: Mode.TEST });
  assert.equal(
    testLedger.entries.map((e) => e.kind),
    ['debit', 'credit'],
  );
  assert.equal(
    (await core.admin.listLedgerEntries({ accountId })).entries.map((e) => e.kind),
    ['credit'],
  );
});

test('a test purchase short of test money is refused, whatever the live wallet holds', async () => {
  const accountId = await account();
  const refused = await rejection(
    core.purchase.buyAirtime({ accountId, network: 'mtn', phone: '08031234567', amountKobo: 50_000n, mode: Mode.TEST }),
  );
  assert.is(refused.reason, 'INSUFFICIENT_BALANCE');
  assert.is(refused.metadata['balance_kobo'], '30000');
});

test('a mode the core does not know is refused, never taken as live', async () => {
  const accountId = await account();
  const refused = await rejection(
    core.purchase.buyAirtime({ accountId, network: 'mtn', phone: '08031234567', amountKobo: 10_000n, mode: 7 as Mode }),
  );
  assert.is(refused.code, Code.InvalidArgument);
  assert.equal(
    refused.violations.map((v) => v.field),
    ['mode'],
  );
  assert.is((await core.purchase.getBalance({ accountId })).balanceKobo, 100_000n, 'nothing was debited');
});

test('a test pair is pk_test_/sk_test_, verifies as MODE_TEST; a new API account gets a live pair', async () => {
  const { accountId, publicKey } = await core.createApiAccount();
  assert.match(publicKey, /^pk_[0-9a-f]{24}$/);
  const issued = (await core.admin.createApiKey({ accountId, mode: Mode.TEST })).issuedKey!;
  assert.match(issued.publicKey, /^pk_test_/);
  assert.match(issued.secretKey, /^sk_test_/);
  assert.is(issued.mode, Mode.TEST);
  const verified = await core.auth.verifyKeyPair({
    publicKey: issued.publicKey,
    secretKey: issued.secretKey,
    clientIp: '203.0.113.9',
  });
  assert.equal([verified.accountId, verified.mode], [accountId, Mode.TEST]);
  const live = (await core.admin.createApiKey({ accountId })).issuedKey!;
  assert.is(live.mode, Mode.LIVE);
  assert.is(
    (await core.auth.verifyKeyPair({ publicKey: live.publicKey, secretKey: live.secretKey, clientIp: '203.0.113.9' }))
      .mode,
    Mode.LIVE,
  );
});

test.run();
