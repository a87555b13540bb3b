/**
 * Money under concurrency and retries, end to end over HTTP through the gateway
 * to the core: a wallet that covers exactly 50 purchases sells exactly 50 however many
 * arrive at once; one idempotency key debits and calls the provider once however often it
 * is sent; unknown outcomes stay debited until the provider answers, then settle or refund
 * exactly once; one still unknown past the deadline is flagged for a person, not refunded.
 */

import * as assert from 'uvu/assert';
import { TransactionStatus } from '../../gen/prepaid/v1/types_pb.js';
import { assertLedgerInvariant, ledgerOf, startCore, type TestCore } from '../helpers/core.js';
import { startTestGateway, type TestGateway } from '../helpers/gateway.js';
import { suite } from '../helpers/suite.js';

/** 100 Naira of MTN airtime costs the API tier 97 Naira (3% discount in the default catalog). */
const AIRTIME = { network: 'mtn', phone: '08031234567', amount: 100 };
const AIRTIME_CHARGE_KOBO = 9_700;

async function withService(
  options: Parameters<typeof startCore>[0],
  body: (core: TestCore, gateway: TestGateway) => Promise<void>,
): Promise<void> {
  const core = await startCore(options);
  // The per-key limit is what other tests pin; here it would only hide the races.
  const gateway = await startTestGateway(core, { rateLimitPerMinute: 100_000 });
  try {
    await body(core, gateway);
    const check = await core.admin.checkLedger({});
    assert.is(check.violationCount, 0n, JSON.stringify(check.violations.slice(0, 3)));
  } finally {
    await gateway.close();
    await core.close();
  }
}

const test = suite('money under concurrency');

test('200 concurrent purchases against a balance for 50: 50 succeed, 150 are 402, balance ends at 0', async () => {
  await withService({}, async (core, gateway) => {
    const { accountId, publicKey, secretKey } = await core.createApiAccount({ balanceKobo: 50 * AIRTIME_CHARGE_KOBO });
    const keys = { publicKey, secretKey };
    const replies = await Promise.all(
      Array.from({ length: 200 }, () => gateway.request({ query: { action: 'airtime' }, keys, body: AIRTIME })),
    );
    const byStatus = new Map<number, number>();
    for (const reply of replies) byStatus.set(reply.status, (byStatus.get(reply.status) ?? 0) + 1);
    assert.equal(Object.fromEntries(byStatus), { 200: 50, 402: 150 });
    assert.ok(replies.filter((r) => r.status === 402).every((r) => r.json.code === 'INSUFFICIENT_BALANCE'));
    const { account } = await core.admin.getAccount({ accountId });
    assert.is(account!.balanceKobo, 0n);
    const balances = replies
      .filter((r) => r.status === 200)
      .map((r) => r.json.balance as number)
      .sort((a, b) => a - b);
    assert.equal(
      balances,
      Array.from({ length: 50 }, (_, i) => (i * AIRTIME_CHARGE_KOBO) / 100),
      'each success saw its own balance',
    );
    assert.is(core.sandbox.purchases.length, 50, 'the provider was called only for the 50 reserved');
    await assertLedgerInvariant(core, accountId);
  });
});

test('50 concurrent requests with one idempotency key: one debit, one provider call; others replay, 409', async () => {
  await withService({ providerDelayMs: 300 }, async (core, gateway) => {
    const { accountId, publicKey, secretKey } = await core.createApiAccount({ balanceKobo: 1_000_000 });
    const keys = { publicKey, secretKey };
    const replies = await Promise.all(
      Array.from({ length: 50 }, () =>
        gateway.request({
          query: { action: 'airtime' },
          keys,
          body: AIRTIME,
          headers: { 'Idempotency-Key': 'order-1001' },
        }),
      ),
    );
    const fresh = replies.filter((r) => r.status === 200 && r.headers['idempotent-replayed'] === undefined);
    const replayed = replies.filter((r) => r.status === 200 && r.headers['idempotent-replayed'] === 'true');
    const inProgress = replies.filter((r) => r.status === 409);
    assert.is(fresh.length, 1, 'exactly one request did the purchase');
    assert.is(
      fresh.length + replayed.length + inProgress.length,
      50,
      `statuses: ${replies.map((r) => r.status).join(',')}`,
    );
    assert.ok(inProgress.length > 0, 'requests that arrived during the slow provider call were told it is in progress');
    assert.ok(inProgress.every((r) => r.json.code === 'REQUEST_IN_PROGRESS'));
    assert.ok(replayed.every((r) => r.json.reference === fresh[0]!.json.reference && r.json.charged === 97));
    assert.is(core.sandbox.purchases.length, 1, 'one provider call');
    const debits = (await ledgerOf(core, accountId)).filter((e) => e.kind === 'debit');
    assert.is(debits.length, 1, 'one debit');

    // After the first finished, every retry replays it, marked as a replay.
    const late = await gateway.request({
      query: { action: 'airtime' },
      keys,
      body: AIRTIME,
      headers: { 'Idempotency-Key': 'order-1001' },
    });
    assert.is(late.status, 200);
    assert.is(late.headers['idempotent-replayed'], 'true');
    assert.is(late.json.reference, fresh[0]!.json.reference);
  });
});

test('the same key with a different request is 422 and has no side effect', async () => {
  await withService({}, async (core, gateway) => {
    const { accountId, publicKey, secretKey } = await core.createApiAccount({ balanceKobo: 1_000_000 });
    const keys = { publicKey, secretKey };
    const first = await gateway.request({
      query: { action: 'airtime' },
      keys,
      body: { ...AIRTIME, request_id: 'k-1' },
    });
    assert.is(first.status, 200);
    const entriesBefore = (await ledgerOf(core, accountId)).length;
    const changed = await gateway.request({
      query: { action: 'airtime' },
      keys,
      body: { ...AIRTIME, amount: 200, request_id: 'k-1' },
    });
    assert.is(changed.status, 422);
    assert.is(changed.json.code, 'IDEMPOTENCY_KEY_REUSED');
    assert.is(changed.json.reference, first.json.reference);
    // The same key on another product is a different request too.
    const otherAction = await gateway.request({
      query: { action: 'data' },
      keys,
      body: { plan_id: 1, phone: '08031234567', request_id: 'k-1' },
    });
    assert.is(otherAction.json.code, 'IDEMPOTENCY_KEY_REUSED');
    assert.is((await ledgerOf(core, accountId)).length, entriesBefore, 'no ledger entry');
    assert.is(core.sandbox.purchases.length, 1, 'no provider call');
  });
});

test('unknown outcomes answer 202 with the money debited, then the worker settles or refunds once', async () => {
  await withService({}, async (core, gateway) => {
    const { accountId, publicKey, secretKey } = await core.createApiAccount({ balanceKobo: 1_000_000 });
    const keys = { publicKey, secretKey };
    const delivered = await gateway.request({
      query: { action: 'airtime' },
      keys,
      body: { ...AIRTIME, phone: '08031238888', request_id: 'pend-1' },
    });
    const failed = await gateway.request({
      query: { action: 'airtime' },
      keys,
      body: { ...AIRTIME, phone: '08031237777' },
    });
    assert.is(delivered.status, 202);
    assert.is(failed.status, 202);
    assert.is(delivered.json.status, 'pending');
    assert.is(
      (await core.admin.getAccount({ accountId })).account!.balanceKobo,
      BigInt(1_000_000 - 2 * AIRTIME_CHARGE_KOBO),
      'both stay debited',
    );

    assert.is(await core.recoverNow(), 2, 'both became final');
    assert.is(await core.recoverNow(), 0, 'a second pass finds nothing to do');
    const status = async (reference: string) =>
      (await core.purchase.getTransaction({ accountId, reference })).transaction!.status;
    assert.is(await status(delivered.json.reference), TransactionStatus.SUCCESS);
    assert.is(await status(failed.json.reference), TransactionStatus.FAILED);
    const entries = await ledgerOf(core, accountId);
    assert.equal(
      entries.filter((e) => e.kind === 'refund').map((e) => [e.reference, e.amountKobo]),
      [[failed.json.reference, BigInt(AIRTIME_CHARGE_KOBO)]],
    );
    assert.is(
      (await core.admin.getAccount({ accountId })).account!.balanceKobo,
      BigInt(1_000_000 - AIRTIME_CHARGE_KOBO),
    );

    // A replay of a purchase first answered 202 repeats that answer even after it settled;
    // the requery tells the current state.
    const replay = await gateway.request({
      query: { action: 'airtime' },
      keys,
      body: { ...AIRTIME, phone: '08031238888', request_id: 'pend-1' },
    });
    assert.is(replay.status, 202);
    assert.is(replay.headers['idempotent-replayed'], 'true');
    assert.is(replay.json.reference, delivered.json.reference);
    const requery = await gateway.request({
      query: { action: 'transaction', reference: delivered.json.reference },
      keys,
    });
    assert.is(requery.json.transaction.status, 'success');
    assert.is(core.sandbox.purchases.length, 2, 'the replay called no provider');
  });
});

test('a purchase still unknown past the deadline is flagged for a person and never refunded', async () => {
  // Every provider call outlasts the timeout, so every answer is unknown.
  await withService(
    { providerDelayMs: 2_000, providerTimeoutMs: 100, recoveryAttentionAfterMs: 0 },
    async (core, gateway) => {
      const { accountId, publicKey, secretKey } = await core.createApiAccount({ balanceKobo: 1_000_000 });
      const reply = await gateway.request({
        query: { action: 'airtime' },
        keys: { publicKey, secretKey },
        body: AIRTIME,
      });
      assert.is(reply.status, 202);
      await core.recoverNow();
      const flagged = await core.admin.listPendingTransactions({ needsAttentionOnly: true });
      assert.equal(
        flagged.transactions.map((t) => t.reference),
        [reply.json.reference],
      );
      assert.ok(flagged.transactions[0]!.needsAttention);
      assert.is(
        (await core.admin.getAccount({ accountId })).account!.balanceKobo,
        BigInt(1_000_000 - AIRTIME_CHARGE_KOBO),
        'still debited',
      );
      assert.equal(
        (await ledgerOf(core, accountId)).filter((e) => e.kind === 'refund'),
        [],
      );
      const check = await core.admin.checkLedger({});
      assert.is(check.needsAttentionCount, 1n);
    },
  );
});

test.run();
