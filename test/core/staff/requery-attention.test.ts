/**
 * The console's re-query follows the same attention deadline as the recovery worker
 * (`RECOVERY_ATTENTION_AFTER_MS`): a purchase still pending past it stays in the queue after a
 * person asks the upstream again and hears nothing new.
 */
import * as assert from 'uvu/assert';
import { DEFAULT_RETRY_SCHEDULE } from '../../../core/domain/transactions.js';
import { startCore } from '../../helpers/core.js';
import { startTestGateway } from '../../helpers/gateway.js';
import { consoleClients, signedInStaff, TestClock } from '../../helpers/staff.js';
import { suite } from '../../helpers/suite.js';

const test = suite('re-query and the attention deadline');

const MINUTE_MS = 60_000;

test('a re-query that hears nothing keeps a purchase past the deadline in the queue', async () => {
  const clock = new TestClock();
  // Every upstream call outlasts the time-out, so every answer, the re-query's too, is unknown.
  const core = await startCore({
    clock: clock.now,
    providerDelayMs: 2_000,
    providerTimeoutMs: 100,
    recoveryAttentionAfterMs: 5 * MINUTE_MS,
  });
  const gateway = await startTestGateway(core);
  try {
    const { publicKey, secretKey } = await core.createApiAccount({ balanceKobo: 1_000_000 });
    const reply = await gateway.request({
      query: { action: 'airtime' },
      keys: { publicKey, secretKey },
      body: { network: 'mtn', phone: '08031234567', amount: 100 },
    });
    assert.is(reply.status, 202);
    const staff = await signedInStaff(core, clock, 'support');
    const { console } = consoleClients(core);
    const flagged = async () =>
      (await core.admin.listPendingTransactions({ needsAttentionOnly: true })).transactions.map((t) => t.reference);

    clock.advance(2 * MINUTE_MS);
    await console.requeryPurchase({
      sessionToken: staff.token,
      clientAddress: '127.0.0.1',
      reference: reply.json.reference,
    });
    assert.equal(await flagged(), [], 'under the deadline: not yet for a person');

    // Past 5 minutes, far under the 24 hours built into the default schedule.
    clock.advance(4 * MINUTE_MS);
    await console.requeryPurchase({
      sessionToken: staff.token,
      clientAddress: '127.0.0.1',
      reference: reply.json.reference,
    });
    assert.equal(await flagged(), [reply.json.reference], 'past the deadline the re-query flags it');
    clock.advance(MINUTE_MS);
    await console.requeryPurchase({
      sessionToken: staff.token,
      clientAddress: '127.0.0.1',
      reference: reply.json.reference,
    });
    assert.equal(await flagged(), [reply.json.reference], 'a second re-query keeps it in the queue');
    assert.is((await core.admin.checkLedger({})).violationCount, 0n);
  } finally {
    await gateway.close();
    await core.close();
  }
});

test("the sandbox's 4444 stays pending and reaches the queue at the default deadline, and stays there", async () => {
  const clock = new TestClock();
  const core = await startCore({ clock: clock.now, recoveryAttentionAfterMs: DEFAULT_RETRY_SCHEDULE.attentionAfterMs });
  const gateway = await startTestGateway(core);
  try {
    const { publicKey, secretKey } = await core.createApiAccount({ balanceKobo: 1_000_000 });
    const reply = await gateway.request({
      query: { action: 'airtime' },
      keys: { publicKey, secretKey },
      body: { network: 'mtn', phone: '08031234444', amount: 100 },
    });
    assert.is(reply.status, 202, reply.text);
    const { console } = consoleClients(core);
    // A session ends after its idle time, so each re-query is a person signing in anew.
    const requery = async () => {
      const staff = await signedInStaff(core, clock, 'support');
      await console.requeryPurchase({
        sessionToken: staff.token,
        clientAddress: '127.0.0.1',
        reference: reply.json.reference,
      });
    };
    const flagged = async () =>
      (await core.admin.listPendingTransactions({ needsAttentionOnly: true })).transactions.map((t) => t.reference);

    // Each sign-in moves the clock a little (its two-step code), so the steps keep a margin.
    clock.advance(25 * MINUTE_MS);
    await requery();
    assert.equal(await flagged(), [], 'under 30 minutes: the recovery keeps asking');
    clock.advance(5 * MINUTE_MS);
    await requery();
    assert.equal(await flagged(), [reply.json.reference], 'past 30 minutes it is for a person');
    await requery();
    assert.equal(await flagged(), [reply.json.reference], 'asking again hears "processing" and keeps it there');
    const tx = await gateway.request({
      query: { action: 'transaction', reference: reply.json.reference },
      keys: { publicKey, secretKey },
    });
    assert.is(tx.json.transaction?.status ?? tx.json.status, 'pending', tx.text);
    assert.is((await core.admin.checkLedger({})).violationCount, 0n);
  } finally {
    await gateway.close();
    await core.close();
  }
});

test.run();
