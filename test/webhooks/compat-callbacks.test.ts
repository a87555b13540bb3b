/**
 * The Adex compat callback (core/webhooks/compat-callbacks.ts) against a real receiver, over
 * the webhook poster and the real SQLite store: a final purchase of an account with a callback
 * is posted once in the family's body; a receiver that fails is tried again, a bounded number
 * of times; an account without a callback, or a purchase still pending, is posted nothing.
 */
import * as assert from 'uvu/assert';
import { kobo } from '../../core/domain/money.js';
import type { TransactionRecord } from '../../core/domain/records.js';
import { createCompatCallbacks } from '../../core/webhooks/compat-callbacks.js';
import { createPoster } from '../../core/webhooks/destination.js';
import { startCore, type TestCore } from '../helpers/core.js';
import { type Receiver, startReceiver } from '../helpers/receiver.js';
import { suite } from '../helpers/suite.js';

const test = suite<{ core: TestCore; receiver: Receiver }>('compat callbacks');

test.before(async (ctx) => {
  ctx.core = await startCore();
  ctx.receiver = await startReceiver();
});
test.after(async (ctx) => {
  await ctx.receiver.stop();
  await ctx.core.close();
});

function purchase(accountId: string, status: TransactionRecord['status'], requestId: string | null): TransactionRecord {
  const at = new Date();
  return {
    reference: `REF${Math.random().toString(36).slice(2, 12).toUpperCase()}`,
    accountId,
    mode: 'live',
    product: 'data',
    status,
    service: 'mtn',
    recipient: '08031231234',
    faceValueKobo: kobo(0),
    chargedKobo: kobo(47_000),
    balanceAfterKobo: kobo(0),
    details: {},
    result: null,
    failureReason: null,
    requestId,
    requestHash: null,
    attempts: 1,
    nextAttemptAt: at,
    needsAttention: false,
    createdAt: at,
    updatedAt: at,
  } as TransactionRecord;
}

test('posted in the family body, retried after a failure, bounded, and only when there is a callback', async ({
  core,
  receiver,
}) => {
  const logged: string[] = [];
  const poster = createPoster({ allowPrivate: true, timeoutMs: 2_000 });
  const callbacks = createCompatCallbacks({
    store: core.store,
    poster,
    log: (event) => logged.push(event),
    retryDelaysMs: [20, 20],
  });
  try {
    const { accountId } = await core.createApiAccount();
    const { accountId: without } = await core.createApiAccount();
    await core.store.compat.setCallback({
      accountId,
      dialect: 'adex',
      url: `${receiver.url}/hook`,
      updatedAt: new Date(),
    });
    receiver.answers.push(500);
    const start = receiver.received.length;
    callbacks.told(purchase(without, 'success', '111'));
    callbacks.told(purchase(accountId, 'pending', '222'));
    callbacks.told(purchase(accountId, 'failed', '333'));
    await receiver.waitFor(start + 2, 'callbacks');
    const bodies = receiver.received.slice(start).map((r) => r.json);
    assert.equal(bodies, [
      { status: 'fail', 'request-id': '333' },
      { status: 'fail', 'request-id': '333' },
    ]);
    assert.is(receiver.received[start]!.headers['content-type'], 'application/json');

    // A receiver that keeps failing is tried three times in all, then given up.
    receiver.answers.push(500, 500, 500, 500);
    const tx = purchase(accountId, 'success', null);
    callbacks.told(tx);
    await receiver.waitFor(start + 5, 'callbacks');
    for (let i = 0; i < 100 && !logged.includes('compat.callback_failed'); i++)
      await new Promise((r) => setTimeout(r, 20));
    assert.ok(logged.includes('compat.callback_failed'), logged.join(' '));
    assert.equal(receiver.received[start + 2]!.json, { status: 'success', 'request-id': tx.reference });
    assert.is(receiver.received.length, start + 5, 'no fourth try');
  } finally {
    await callbacks.stop();
    poster.close();
  }
});

test.run();
