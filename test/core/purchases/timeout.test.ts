/**
 * A provider slower than the timeout: the outcome is unknown, so the purchase stays pending
 * with the money debited and is never refunded on a timeout (the provider may have
 * delivered). Recovery keeps re-querying while the provider stays slow, and settles the
 * purchase once the provider answers.
 */

import { Code } from '@connectrpc/connect';
import * as assert from 'uvu/assert';
import { DEFAULT_RETRY_SCHEDULE } from '../../../core/domain/transactions.js';
import { createSandbox } from '../../../core/providers/sandbox/index.js';
import type { PurchaseDeps } from '../../../core/purchases/flow.js';
import { Background } from '../../../core/purchases/receipts.js';
import { createRecoveryWorker } from '../../../core/purchases/recovery.js';
import { TransactionStatus } from '../../../gen/prepaid/v1/types_pb.js';
import { assertLedgerInvariant, startCore, type TestCore } from '../../helpers/core.js';
import { suite } from '../../helpers/suite.js';
import { entriesFor, eventually, rejection, walletOf } from '../rpc/support.js';

const PROVIDER_DELAY_MS = 2_000;
const PROVIDER_TIMEOUT_MS = 200;

let core!: TestCore;

const test = suite('a provider slower than the timeout');
test.before(async () => {
  core = await startCore({ providerDelayMs: PROVIDER_DELAY_MS, providerTimeoutMs: PROVIDER_TIMEOUT_MS });
});
test.after(async () => {
  await core.close();
});

test('the purchase answers PENDING after the timeout, keeps the money debited; a timeout never refunds', async () => {
  const { accountId } = await core.createApiAccount({ balanceKobo: 1_000_00 });
  const started = Date.now();
  const { transaction } = await core.purchase.buyAirtime({
    accountId,
    network: 'mtn',
    phone: '08031234567',
    amountKobo: 100_00n,
  });
  const tookMs = Date.now() - started;
  assert.ok(tookMs >= PROVIDER_TIMEOUT_MS && tookMs < PROVIDER_DELAY_MS, `answered after ${tookMs} ms`);
  assert.is(transaction!.status, TransactionStatus.PENDING);
  const reference = transaction!.reference;

  const pending = await walletOf(core, accountId);
  assert.is(pending.balanceKobo, 1_000_00n - 97_00n);
  assert.equal(entriesFor(pending, reference), [['debit', -97_00n]]);
  await assertLedgerInvariant(core, accountId);

  // The provider is still slow: the re-query times out too, and that is no reason to refund.
  await core.recoverNow();
  const stillPending = (await core.purchase.getTransaction({ accountId, reference })).transaction!;
  assert.is(stillPending.status, TransactionStatus.PENDING);
  assert.equal(entriesFor(await walletOf(core, accountId), reference), [['debit', -97_00n]]);
  assert.ok(
    core.sandbox.queries.some((q) => q.reference === reference),
    'the provider was re-queried',
  );

  // The provider recovers: a recovery pass over the same store, with a provider that answers
  // in time, settles the purchase as delivered.
  const fastProvider = createSandbox();
  const deps: PurchaseDeps = {
    store: core.store,
    providers: { live: fastProvider, test: createSandbox() },
    clock: () => new Date(),
    providerTimeoutMs: PROVIDER_TIMEOUT_MS,
    inFlight: new Set(),
    background: new Background(),
    log: () => {},
  };
  const worker = createRecoveryWorker({ ...deps, retrySchedule: DEFAULT_RETRY_SCHEDULE }, { intervalMs: 60_000 });
  assert.is(await worker.runOnce(new Date(Date.now() + 86_400_000)), 1);
  assert.equal(
    fastProvider.queries.map((q) => q.reference),
    [reference],
  );

  const settled = (await core.purchase.getTransaction({ accountId, reference })).transaction!;
  assert.is(settled.status, TransactionStatus.SUCCESS);
  const after = await walletOf(core, accountId);
  assert.is(after.balanceKobo, 1_000_00n - 97_00n);
  assert.equal(entriesFor(after, reference), [['debit', -97_00n]], 'settled without a refund');
  await assertLedgerInvariant(core, accountId);
});

test('a retry while the first call is with the provider is ABORTED, REQUEST_IN_PROGRESS; nothing debited', async () => {
  const { accountId } = await core.createApiAccount({ balanceKobo: 1_000_00 });
  const request = { accountId, network: 'glo', phone: '08051234567', amountKobo: 100_00n, requestId: 'in-flight-1' };
  const callsBefore = core.sandbox.purchases.length;
  const first = core.purchase.buyAirtime(request);
  assert.ok(
    await eventually(() => core.sandbox.purchases.length > callsBefore, PROVIDER_TIMEOUT_MS),
    'the first call reached the provider',
  );
  const retry = await rejection(core.purchase.buyAirtime(request));
  assert.is(retry.code, Code.Aborted);
  assert.is(retry.reason, 'REQUEST_IN_PROGRESS');
  const { transaction } = await first;
  assert.is(retry.metadata.reference, transaction!.reference);
  assert.is((await core.purchase.getBalance({ accountId })).balanceKobo, 1_000_00n - 95_00n);
  // Once the first call has answered, the retry is a replay of that answer.
  const later = await core.purchase.buyAirtime(request);
  assert.equal(
    [later.replayed, later.transaction!.reference, later.transaction!.status],
    [true, transaction!.reference, TransactionStatus.PENDING],
  );
  await assertLedgerInvariant(core, accountId);
});

test('recovery leaves a purchase alone while its first provider call is still running', async () => {
  const { accountId } = await core.createApiAccount({ balanceKobo: 1_000_00 });
  const callsBefore = core.sandbox.purchases.length;
  const buying = core.purchase.buyAirtime({ accountId, network: 'airtel', phone: '08021234567', amountKobo: 100_00n });
  assert.ok(
    await eventually(() => core.sandbox.purchases.length > callsBefore, PROVIDER_TIMEOUT_MS),
    'the call reached the provider',
  );
  const queriesBefore = core.sandbox.queries.length;
  const inFlight = core.sandbox.purchases.at(-1)!;
  await core.recoverNow();
  assert.not.ok(
    core.sandbox.queries.slice(queriesBefore).some((q) => q.reference === inFlight.reference),
    'no re-query of a call in flight',
  );
  const { transaction } = await buying;
  assert.is(transaction!.reference, inFlight.reference);
  assert.is(transaction!.status, TransactionStatus.PENDING);
  await assertLedgerInvariant(core, accountId);
});

test.run();
