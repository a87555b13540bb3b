/**
 * Idempotency keys (request_id): a retry of the same request is answered from the first one
 * and never debits twice; the same key with a different request is refused and debits nothing.
 */

import { Code } from '@connectrpc/connect';
import * as assert from 'uvu/assert';
import { TransactionStatus } from '../../../gen/prepaid/v1/types_pb.js';
import { assertLedgerInvariant, startCore, type TestCore } from '../../helpers/core.js';
import { suite } from '../../helpers/suite.js';
import { entriesFor, rejection, walletOf } from '../rpc/support.js';
import { PRODUCT_CASES } from './orders.js';

let core!: TestCore;

const test = suite('idempotency keys');
test.before(async () => {
  core = await startCore();
});
test.after(async () => {
  await core.close();
});

for (const { product, chargedKobo, buy } of PRODUCT_CASES) {
  test(`${product}: the same request_id twice debits once; the second answer is the first, replayed`, async () => {
    const { accountId } = await core.createApiAccount({ balanceKobo: 10_000_00 });
    const first = await buy(core, accountId, '1234', `order-${product}-1`);
    const providerCalls = core.sandbox.purchases.length;
    const second = await buy(core, accountId, '1234', `order-${product}-1`);
    assert.is(first.replayed, false);
    assert.is(second.replayed, true);
    assert.is(second.transaction!.reference, first.transaction!.reference);
    assert.is(second.transaction!.status, TransactionStatus.SUCCESS);
    assert.is(second.transaction!.chargedKobo, chargedKobo);
    assert.is(second.transaction!.requestId, `order-${product}-1`);
    assert.is(core.sandbox.purchases.length, providerCalls, 'the provider was not called again');
    const wallet = await walletOf(core, accountId);
    assert.is(wallet.balanceKobo, 10_000_00n - chargedKobo);
    assert.equal(entriesFor(wallet, first.transaction!.reference), [['debit', -chargedKobo]]);
    assert.is((await core.purchase.listTransactions({ accountId })).transactions.length, 1);
    await assertLedgerInvariant(core, accountId);
  });
}

test('the same request_id with another body is INVALID_ARGUMENT, IDEMPOTENCY_KEY_REUSED; nothing debited', async () => {
  const { accountId } = await core.createApiAccount({ balanceKobo: 10_000_00 });
  const first = await core.purchase.buyAirtime({
    accountId,
    network: 'mtn',
    phone: '08031234567',
    amountKobo: 100_00n,
    requestId: 'order-42',
  });
  const before = await walletOf(core, accountId);
  const changes = [
    core.purchase.buyAirtime({
      accountId,
      network: 'mtn',
      phone: '08031234567',
      amountKobo: 200_00n,
      requestId: 'order-42',
    }),
    core.purchase.buyAirtime({
      accountId,
      network: 'glo',
      phone: '08031234567',
      amountKobo: 100_00n,
      requestId: 'order-42',
    }),
    core.purchase.buyAirtime({
      accountId,
      network: 'mtn',
      phone: '08021234567',
      amountKobo: 100_00n,
      requestId: 'order-42',
    }),
    core.purchase.buyData({ accountId, planId: 1n, phone: '08031234567', requestId: 'order-42' }),
  ];
  for (const change of changes) {
    const refused = await rejection(change);
    assert.is(refused.code, Code.InvalidArgument);
    assert.is(refused.reason, 'IDEMPOTENCY_KEY_REUSED');
    assert.is(refused.metadata.reference, first.transaction!.reference);
  }
  const after = await walletOf(core, accountId);
  assert.is(after.balanceKobo, before.balanceKobo);
  assert.equal(after.entries, before.entries);
  assert.is(after.providerPurchases, before.providerPurchases);
  await assertLedgerInvariant(core, accountId);
});

test('request_ids belong to one account: another account may use the same one', async () => {
  const a = await core.createApiAccount({ balanceKobo: 1_000_00 });
  const b = await core.createApiAccount({ balanceKobo: 1_000_00 });
  const fromA = await core.purchase.buyAirtime({
    accountId: a.accountId,
    network: 'mtn',
    phone: '08031234567',
    amountKobo: 100_00n,
    requestId: 'shared-id',
  });
  const fromB = await core.purchase.buyAirtime({
    accountId: b.accountId,
    network: 'mtn',
    phone: '08031234567',
    amountKobo: 100_00n,
    requestId: 'shared-id',
  });
  assert.is(fromB.replayed, false);
  assert.is.not(fromB.transaction!.reference, fromA.transaction!.reference);
  assert.is((await core.purchase.getBalance({ accountId: b.accountId })).balanceKobo, 1_000_00n - 97_00n);
  await assertLedgerInvariant(core, a.accountId);
  await assertLedgerInvariant(core, b.accountId);
});

test('a retry of a failed, refunded request answers the same failure, with no second debit or refund', async () => {
  const { accountId } = await core.createApiAccount({ balanceKobo: 1_000_00 });
  const first = await rejection(
    core.purchase.buyAirtime({
      accountId,
      network: 'mtn',
      phone: '08031239999',
      amountKobo: 100_00n,
      requestId: 'will-fail',
    }),
  );
  const before = await walletOf(core, accountId);
  const second = await rejection(
    core.purchase.buyAirtime({
      accountId,
      network: 'mtn',
      phone: '08031239999',
      amountKobo: 100_00n,
      requestId: 'will-fail',
    }),
  );
  assert.is(second.code, Code.Aborted);
  assert.is(second.reason, 'PROVIDER_FAILED');
  assert.is(second.metadata.reference, first.metadata.reference);
  const after = await walletOf(core, accountId);
  assert.equal(after.entries, before.entries);
  assert.is(after.providerPurchases, before.providerPurchases);
  assert.is(after.balanceKobo, 1_000_00n);
  await assertLedgerInvariant(core, accountId);
});

test('a retry after a pending purchase settles repeats its pending answer; GetTransaction shows the end', async () => {
  const { accountId } = await core.createApiAccount({ balanceKobo: 1_000_00 });
  const first = await core.purchase.buyAirtime({
    accountId,
    network: 'mtn',
    phone: '08031238888',
    amountKobo: 100_00n,
    requestId: 'slow-one',
  });
  assert.is(first.transaction!.status, TransactionStatus.PENDING);
  await core.recoverNow();
  const retry = await core.purchase.buyAirtime({
    accountId,
    network: 'mtn',
    phone: '08031238888',
    amountKobo: 100_00n,
    requestId: 'slow-one',
  });
  assert.is(retry.replayed, true);
  assert.is(retry.transaction!.reference, first.transaction!.reference);
  assert.is(retry.transaction!.status, TransactionStatus.PENDING);
  const current = (await core.purchase.getTransaction({ accountId, reference: first.transaction!.reference }))
    .transaction!;
  assert.is(current.status, TransactionStatus.SUCCESS);
  assert.is((await core.purchase.getBalance({ accountId })).balanceKobo, 1_000_00n - 97_00n);
  await assertLedgerInvariant(core, accountId);
});

/**
 * A catalog change between a request and its retry: the retry asks for the same thing, so it
 * must be answered from the first request (flow.ts says so of orderHash: "what was asked, not
 * what it cost"), never refused as a different request.
 */
const CATALOG_CHANGES: ReadonlyArray<{
  what: string;
  buy: (accountId: string) => Promise<{ transaction?: { reference: string; chargedKobo: bigint }; replayed: boolean }>;
  change: () => Promise<unknown>;
  undo: () => Promise<unknown>;
}> = [
  {
    what: 'the SMS page rate changes',
    buy: (accountId) =>
      core.purchase.sendBulkSms({
        accountId,
        sender: 'Shop',
        recipients: ['08031234567'],
        message: 'Hi',
        requestId: 'sms-before-rate-change',
      }),
    change: () => core.admin.setSmsRate({ koboPerPage: 400n }),
    undo: () => core.admin.setSmsRate({ koboPerPage: 350n }),
  },
  {
    what: "the data plan's face value changes",
    buy: (accountId) =>
      core.purchase.buyData({ accountId, planId: 2n, phone: '08031234567', requestId: 'data-before-price-change' }),
    change: async () => core.admin.upsertPlan({ plan: { ...(await planOf(2n)), faceValueKobo: 600_00n } }),
    undo: async () => core.admin.upsertPlan({ plan: { ...(await planOf(2n)), faceValueKobo: 500_00n } }),
  },
  {
    what: 'the data plan is renamed',
    buy: (accountId) =>
      core.purchase.buyData({ accountId, planId: 3n, phone: '08031234567', requestId: 'data-before-rename' }),
    change: async () => core.admin.upsertPlan({ plan: { ...(await planOf(3n)), label: '2GB Monthly' } }),
    undo: async () => core.admin.upsertPlan({ plan: { ...(await planOf(3n)), label: '2GB' } }),
  },
  {
    what: 'the cable package price changes',
    buy: (accountId) =>
      core.purchase.payCable({
        accountId,
        provider: 'gotv',
        smartCard: '7041234567',
        packageCode: 'GOTV JINJA',
        requestId: 'cable-before-price-change',
      }),
    change: () =>
      core.admin.upsertCablePackage({
        package: {
          provider: 'gotv',
          packageCode: 'GOTV JINJA',
          name: 'GOtv Jinja',
          priceKobo: 2_900_00n,
          active: true,
        },
      }),
    undo: () =>
      core.admin.upsertCablePackage({
        package: {
          provider: 'gotv',
          packageCode: 'GOTV JINJA',
          name: 'GOtv Jinja',
          priceKobo: 2_715_00n,
          active: true,
        },
      }),
  },
];

async function planOf(planId: bigint) {
  return (await core.admin.listCatalogPlans({})).plans.find((p) => p.planId === planId)!;
}

for (const { what, buy, change, undo } of CATALOG_CHANGES) {
  test(`a retry after ${what} is the same request: replayed, one debit`, async () => {
    const { accountId } = await core.createApiAccount({ balanceKobo: 10_000_00 });
    const first = await buy(accountId);
    await change();
    try {
      const retry = await buy(accountId);
      assert.is(retry.replayed, true);
      assert.is(retry.transaction!.reference, first.transaction!.reference);
      assert.is(retry.transaction!.chargedKobo, first.transaction!.chargedKobo);
    } finally {
      await undo();
    }
    const wallet = await walletOf(core, accountId);
    assert.is(wallet.balanceKobo, 10_000_00n - first.transaction!.chargedKobo);
    assert.equal(entriesFor(wallet, first.transaction!.reference), [['debit', -first.transaction!.chargedKobo]]);
    await assertLedgerInvariant(core, accountId);
  });
}

test('a request refused for a short balance leaves its request_id free for the retry after a top-up', async () => {
  const { accountId } = await core.createApiAccount({ balanceKobo: 50_00 });
  const refused = await rejection(
    core.purchase.buyAirtime({
      accountId,
      network: 'mtn',
      phone: '08031234567',
      amountKobo: 100_00n,
      requestId: 'top-up-first',
    }),
  );
  assert.is(refused.reason, 'INSUFFICIENT_BALANCE');
  await core.admin.creditWallet({ accountId, amountKobo: 100_00n });
  const retry = await core.purchase.buyAirtime({
    accountId,
    network: 'mtn',
    phone: '08031234567',
    amountKobo: 100_00n,
    requestId: 'top-up-first',
  });
  assert.is(retry.replayed, false);
  assert.is(retry.transaction!.status, TransactionStatus.SUCCESS);
  assert.is((await core.purchase.getBalance({ accountId })).balanceKobo, 150_00n - 97_00n);
  await assertLedgerInvariant(core, accountId);
});

test('concurrent requests with one request_id debit once', async () => {
  const { accountId } = await core.createApiAccount({ balanceKobo: 10_000_00 });
  const results = await Promise.allSettled(
    Array.from({ length: 8 }, () =>
      core.purchase.buyAirtime({
        accountId,
        network: 'mtn',
        phone: '08031234567',
        amountKobo: 100_00n,
        requestId: 'burst',
      }),
    ),
  );
  const references = new Set<string>();
  for (const r of results) {
    if (r.status === 'fulfilled') references.add(r.value.transaction!.reference);
    // A retry that arrives while the first is still with the provider is told to retry shortly.
    else assert.is((await rejection(Promise.reject(r.reason))).reason, 'REQUEST_IN_PROGRESS');
  }
  assert.is(references.size, 1);
  assert.is((await core.purchase.getBalance({ accountId })).balanceKobo, 10_000_00n - 97_00n);
  assert.is((await core.purchase.listTransactions({ accountId })).transactions.length, 1);
  await assertLedgerInvariant(core, accountId);
});

test.run();
