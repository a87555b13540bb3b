/**
 * Exactly one event per state change under concurrency: many purchases at once with mixed
 * outcomes, recovery passes racing each other, credits in between; then the records are
 * counted against the state changes, and the receiver against the records.
 */
import { randomBytes } from 'node:crypto';
import * as assert from 'uvu/assert';
import { WebhookService } from '../../gen/prepaid/v1/webhooks_pb.js';
import { startCore, type TestCore } from '../helpers/core.js';
import { type Receiver, startReceiver } from '../helpers/receiver.js';
import { suite } from '../helpers/suite.js';

const test = suite('events under concurrent load');

let core: TestCore;
let receiver: Receiver;

test.before(async () => {
  core = await startCore({
    providerTimeoutMs: 200,
    webhooks: { allowPrivate: true, retryBaseMs: 20, pollIntervalMs: 25 },
  });
  receiver = await startReceiver();
});

test.after(async () => {
  await receiver?.stop();
  await core?.close();
});

const PURCHASES = 150;

test('no state change without its event, no event without its state change, none twice', async () => {
  const { accountId } = await core.createApiAccount({ balanceKobo: 100_000_000 });
  await core.clientWithToken(WebhookService, core.adminToken).setWebhook({ accountId, url: receiver.url });
  const tails = ['1234', '9999', '8888', '7777', '5678'];
  const buys = Array.from({ length: PURCHASES }, (_, i) =>
    core.purchase
      .buyAirtime({
        accountId,
        network: 'mtn',
        phone: `0803123${tails[i % tails.length]}`,
        amountKobo: 10_000n,
        requestId: randomBytes(8).toString('hex'),
      })
      .catch(() => undefined),
  );
  const credits = Array.from({ length: 5 }, () =>
    core.admin.creditWallet({ accountId, amountKobo: 1_000n, memo: 'top-up' }),
  );
  await Promise.all([...buys, ...credits]);
  await Promise.all([core.recoverNow(), core.recoverNow(), core.recoverNow()]);

  const recorded = await core.store.events.listFeed(accountId, 'live', 0, 1_000);
  const moves = recorded.filter((e) => e.type.startsWith('transaction.'));
  const transactions = (await core.store.transactions.listByAccount(accountId, 'live', { limit: 1_000 })).items;
  assert.is(transactions.length, PURCHASES);
  for (const tx of transactions) assert.is.not(tx.status, 'pending', 'recovery settled every purchase');
  assert.equal(
    moves.map((e) => `${e.type} ${e.subject}`).sort(),
    transactions.map((t) => `transaction.${t.status} ${t.reference}`).sort(),
    'one event per final state',
  );
  const creditEntries = (await core.store.wallet.listLedger(accountId, 'live', { limit: 1_000 })).items.filter(
    (e) => e.kind === 'credit',
  );
  assert.equal(
    recorded
      .filter((e) => e.type === 'wallet.credited')
      .map((e) => e.subject)
      .sort(),
    creditEntries.map((e) => e.reference).sort(),
    'one event per credit',
  );
  assert.is(new Set(recorded.map((e) => e.eventId)).size, recorded.length, 'no event id twice');

  // The opening credit came before the webhook was set: recorded for the feed only.
  assert.equal(
    recorded.filter((e) => e.delivery === 'none').map((e) => e.type),
    ['wallet.credited'],
  );
  const expected = new Set(recorded.filter((e) => e.delivery !== 'none').map((e) => e.eventId));
  await receiver.waitFor(expected.size, 'events');
  for (let i = 0; i < 400 && [...expected].some((id) => !receiver.received.some((r) => r.json.id === id)); i++) {
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
  const got = new Set(receiver.received.map((r) => r.json.id as string));
  assert.equal(
    [...expected].filter((id) => !got.has(id)),
    [],
    'every event was delivered',
  );
  assert.equal(
    [...got].filter((id) => !expected.has(id)),
    [],
    'nothing was delivered that was not recorded',
  );
});

test.run();
