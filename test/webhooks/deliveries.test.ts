/**
 * Signed webhook deliveries, end to end: a real core delivering to a real HTTP receiver on
 * port 0, purchases made through a real gateway. Each test verifies signatures the way a
 * partner would (test/helpers/receiver.ts), from the contract alone.
 */
import { Code, ConnectError } from '@connectrpc/connect';
import * as assert from 'uvu/assert';
import { DEFAULT_PER_DESTINATION } from '../../core/config.js';
import { kobo } from '../../core/domain/money.js';
import { Mode } from '../../gen/prepaid/v1/types_pb.js';
import { WebhookService } from '../../gen/prepaid/v1/webhooks_pb.js';
import { startCore, type TestCore } from '../helpers/core.js';
import { type ApiKeys, startTestGateway, type TestGateway } from '../helpers/gateway.js';
import { type Received, type Receiver, signedWith, startReceiver } from '../helpers/receiver.js';
import { suite } from '../helpers/suite.js';

const test = suite('webhook deliveries');

let core: TestCore;
let gateway: TestGateway;
let receivers: Receiver[] = [];
const logged: Array<[string, Record<string, unknown>]> = [];

test.before(async () => {
  core = await startCore({
    providerTimeoutMs: 300,
    webhooks: { allowPrivate: true, retryBaseMs: 20, pollIntervalMs: 25 },
    log: (event, fields) => logged.push([event, fields]),
  });
  gateway = await startTestGateway(core);
});

test.after.each(async () => {
  for (const receiver of receivers) await receiver.stop();
  receivers = [];
});

test.after(async () => {
  await gateway?.close();
  await core?.close();
});

const webhooks = () => core.clientWithToken(WebhookService, core.adminToken);

async function receiver(): Promise<Receiver> {
  const r = await startReceiver();
  receivers.push(r);
  return r;
}

/** An API account whose live webhook points at `to`; its secret, shown once. */
async function accountWithWebhook(to: Receiver): Promise<{ accountId: string; keys: ApiKeys; secret: string }> {
  const { accountId, publicKey, secretKey } = await core.createApiAccount();
  const set = await webhooks().setWebhook({ accountId, url: to.url });
  assert.match(set.secret, /^whsec_[A-Za-z0-9_-]{43}$/);
  assert.is(set.webhook?.enabled, true);
  return { accountId, keys: { publicKey, secretKey }, secret: set.secret };
}

const buy = (keys: ApiKeys, phone: string) =>
  gateway.request({ query: { action: 'airtime' }, keys, body: { network: 'mtn', phone, amount: 100 } });

function assertSigned(request: Received, secret: string): void {
  assert.is(request.headers['content-type'], 'application/json');
  assert.is(request.headers['prepaid-event-id'], request.json.id, 'the event id header names the body');
  assert.ok(
    signedWith(request.headers['prepaid-signature'], request.raw, secret),
    `signed with the secret: ${request.headers['prepaid-signature']}`,
  );
  assert.not.ok(
    signedWith(request.headers['prepaid-signature'], request.raw, 'whsec_wrong'),
    'a wrong secret does not verify',
  );
  assert.not.ok(
    signedWith(request.headers['prepaid-signature'], `${request.raw} `, secret),
    'a changed body does not verify',
  );
}

/** Waits until the store says the account has no event waiting, then returns what the receiver got. */
async function settled(accountId: string): Promise<void> {
  for (let i = 0; i < 400; i++) {
    const page = await core.store.events.listDeliveries(accountId, 'live', { failedOnly: false }, { limit: 100 });
    if (page.items.every((e) => e.delivery !== 'pending')) return;
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
  throw new Error('deliveries did not settle');
}

test('every event type arrives signed: credit, delivery, failure, a settled 8888, a reversal and a ping', async () => {
  const to = await receiver();
  const { accountId, keys, secret } = await accountWithWebhook(to);
  await core.admin.creditWallet({ accountId, amountKobo: 1_000_000n, memo: 'funding' });
  const delivered = await buy(keys, '08031234567');
  const failed = await buy(keys, '08031239999');
  const pending = await buy(keys, '08031238888');
  assert.equal([delivered.status, failed.status, pending.status], [200, 502, 202]);
  await core.recoverNow();
  await core.recoverNow();
  await core.store.ledger.post({
    kind: 'reverse',
    reference: delivered.json.reference,
    reason: 'the provider reversed it',
    at: new Date(),
  });
  const ping = await webhooks().sendTestEvent({ accountId });
  assert.is(ping.delivery?.type, 'ping');
  await to.waitFor(6, 'events');
  await settled(accountId);

  const got = to.received.map((r) => [
    r.json.type,
    r.json.data.transaction?.reference ?? r.json.data.reference ?? null,
  ]);
  assert.equal(
    got.sort(),
    [
      ['ping', null],
      ['transaction.failed', failed.json.reference],
      ['transaction.reversed', delivered.json.reference],
      ['transaction.success', delivered.json.reference],
      ['transaction.success', pending.json.reference],
      ['wallet.credited', got.find(([type]) => type === 'wallet.credited')![1]],
    ].sort(),
    'each change once: the 8888 purchase yields one success after its requery, however often recovery runs',
  );
  for (const request of to.received) {
    assertSigned(request, secret);
    assert.is(request.json.livemode, true);
  }
  const credit = to.received.find((r) => r.json.type === 'wallet.credited')!;
  assert.equal(credit.json.data, {
    reference: credit.json.data.reference,
    amount: 10_000,
    balance: 10_000,
    memo: 'funding',
    source: 'operator',
  });
  const failure = to.received.find((r) => r.json.type === 'transaction.failed')!;
  assert.is(failure.json.data.transaction.status, 'failed');
  const shown = await gateway.request({ query: { action: 'transaction', reference: failed.json.reference }, keys });
  assert.equal(
    failure.json.data.transaction,
    shown.json.transaction,
    'the transaction as ?action=transaction shows it',
  );

  const deliveries = await webhooks().listDeliveries({ accountId });
  assert.is(deliveries.deliveries.length, 6);
  for (const d of deliveries.deliveries) assert.equal([d.state, d.attempts, d.lastStatus], ['delivered', 1, 200]);
});

test('a receiver that answers 500 twice gets the same event, same id and body, on the third attempt', async () => {
  const to = await receiver();
  to.answers = [500, 500];
  const { accountId, secret } = await accountWithWebhook(to);
  const ping = await webhooks().sendTestEvent({ accountId });
  await to.waitFor(3);
  await settled(accountId);
  assert.is(to.received.length, 3, 'no attempt after the 2xx');
  const ids = to.received.map((r) => r.headers['prepaid-event-id']);
  assert.equal(ids, [ping.delivery!.eventId, ping.delivery!.eventId, ping.delivery!.eventId]);
  assert.is(new Set(to.received.map((r) => r.raw)).size, 1, 'the very same body each time');
  for (const request of to.received) assertSigned(request, secret);
  const [delivery] = (await webhooks().listDeliveries({ accountId })).deliveries;
  assert.equal([delivery?.state, delivery?.attempts, delivery?.lastStatus], ['delivered', 3, 200]);
  const attempts = logged.filter(
    ([event, fields]) =>
      (event === 'webhook.attempt' || event === 'webhook.delivered') && fields['event_id'] === ping.delivery!.eventId,
  );
  assert.equal(
    attempts.map(([event, fields]) => [event, fields['outcome']]),
    [
      ['webhook.attempt', 'retry'],
      ['webhook.attempt', 'retry'],
      ['webhook.delivered', 'delivered'],
    ],
  );
});

test('a rotation signs with both secrets for a day, each verifiable on its own', async () => {
  const to = await receiver();
  const { accountId, secret: first } = await accountWithWebhook(to);
  const rotated = await webhooks().rotateWebhookSecret({ accountId });
  const second = rotated.secret;
  assert.match(second, /^whsec_/);
  assert.is.not(second, first);
  assert.ok(rotated.webhook?.previousSecretUntil, 'the overlap is shown');
  const until = Number(rotated.webhook!.previousSecretUntil!.seconds) * 1000 - Date.now();
  assert.ok(until > 23.9 * 3600_000 && until <= 24 * 3600_000, 'the old secret signs for 24 hours');
  const got = await webhooks().getWebhook({ accountId });
  assert.is(got.webhook?.secretHint, `…${second.slice(-4)}`);
  assert.not.ok(
    JSON.stringify(got, (_, v) => (typeof v === 'bigint' ? String(v) : v)).includes(second),
    'the secret is never shown again',
  );
  await webhooks().sendTestEvent({ accountId });
  await to.waitFor(1);
  const [request] = to.received;
  assert.is((request!.headers['prepaid-signature'] as string).split(',').filter((p) => p.startsWith('v1=')).length, 2);
  assert.ok(signedWith(request!.headers['prepaid-signature'], request!.raw, first), 'verifiable with the old secret');
  assert.ok(signedWith(request!.headers['prepaid-signature'], request!.raw, second), 'verifiable with the new secret');
});

test('a disabled webhook gets nothing, the feed still records; resend delivers an event again', async () => {
  const to = await receiver();
  const { accountId, keys } = await accountWithWebhook(to);
  await webhooks().disableWebhook({ accountId });
  await core.admin.creditWallet({ accountId, amountKobo: 100_000n, memo: 'while disabled' });
  const feed = await gateway.request({ query: { action: 'events' }, keys });
  assert.is(feed.json.events.length, 1, 'recorded for the feed');
  const refused = await webhooks()
    .sendTestEvent({ accountId })
    .then(
      () => null,
      (error: unknown) => ConnectError.from(error).code,
    );
  assert.is(refused, Code.FailedPrecondition, 'no test event to a disabled webhook');
  const enabled = await webhooks().setWebhook({ accountId, url: to.url });
  assert.is(enabled.webhook?.enabled, true);
  const resent = await webhooks().resendEvent({ eventId: feed.json.events[0].id });
  assert.is(resent.delivery?.state, 'pending');
  await to.waitFor(1);
  assert.is(to.received[0]!.json.id, feed.json.events[0].id);
  assert.ok(signedWith(to.received[0]!.headers['prepaid-signature'], to.received[0]!.raw, enabled.secret));
});

test('a hung receiver holds at most its own slots: another account is delivered meanwhile', async () => {
  const slow = await receiver();
  slow.hang = true;
  const fast = await receiver();
  const stuck = await accountWithWebhook(slow);
  const other = await accountWithWebhook(fast);
  // More than the destination may hold (its slots and as many waiting).
  for (let i = 0; i < DEFAULT_PER_DESTINATION * 3; i++) await webhooks().sendTestEvent({ accountId: stuck.accountId });
  for (let i = 0; i < 100 && slow.hung < DEFAULT_PER_DESTINATION; i++)
    await new Promise((resolve) => setTimeout(resolve, 20));
  await webhooks().sendTestEvent({ accountId: other.accountId });
  await fast.waitFor(1);
  assert.is(fast.received.length, 1);
  await new Promise((resolve) => setTimeout(resolve, 100));
  assert.is(slow.hung, DEFAULT_PER_DESTINATION, 'the hung receiver has as many requests open as its slots, no more');
  const stuckPending = await core.store.events.listDeliveries(
    stuck.accountId,
    'live',
    { failedOnly: false },
    { limit: 100 },
  );
  assert.ok(
    stuckPending.items.every((e) => e.delivery === 'pending'),
    'the hung receiver has taken nothing',
  );
  slow.hang = false;
  await slow.stop();
});

test('test mode has its own webhook URL: test events go there, with livemode false', async () => {
  const live = await receiver();
  const testing = await receiver();
  const { accountId, secret } = await accountWithWebhook(live);
  const set = await webhooks().setWebhook({ accountId, mode: Mode.TEST, url: testing.url });
  assert.is(set.webhook?.mode, Mode.TEST);
  assert.is.not(set.secret, secret, 'each mode has its own secret');
  await core.store.ledger.post({
    kind: 'credit',
    credit: {
      accountId,
      amountKobo: kobo(5_000),
      reference: 'TEST-1',
      memo: 'test money',
      at: new Date(),
      mode: 'test',
    },
  });
  await testing.waitFor(1);
  const [request] = testing.received;
  assert.equal(
    [request!.json.type, request!.json.livemode, request!.json.data.reference],
    ['wallet.credited', false, 'TEST-1'],
  );
  assert.ok(signedWith(request!.headers['prepaid-signature'], request!.raw, set.secret));
  await settled(accountId);
  assert.is(live.received.length, 0, 'nothing of the test world reaches the live URL');
  assert.is((await webhooks().getWebhook({ accountId })).webhook?.url, live.url);
});

test('the admin calls refuse what is wrong: unknown account, no webhook, a bad URL, a bad mode', async () => {
  const expectCode = async (call: Promise<unknown>, code: Code, what: string) => {
    try {
      await call;
    } catch (error) {
      assert.is(ConnectError.from(error).code, code, what);
      return;
    }
    assert.unreachable(`${what}: no error`);
  };
  const { accountId } = await core.createApiAccount();
  await expectCode(
    webhooks().setWebhook({ accountId: 'nobody', url: 'https://example.com/h' }),
    Code.NotFound,
    'unknown account',
  );
  await expectCode(webhooks().getWebhook({ accountId }), Code.NotFound, 'no webhook yet');
  await expectCode(
    webhooks().setWebhook({ accountId, url: 'ftp://example.com/h' }),
    Code.InvalidArgument,
    'a scheme other than https',
  );
  await expectCode(webhooks().setWebhook({ accountId, url: 'not a url' }), Code.InvalidArgument, 'not a URL');
  await expectCode(
    webhooks().setWebhook({ accountId, url: 'https://user:pw@example.com/h' }),
    Code.InvalidArgument,
    'credentials in the URL',
  );
  await expectCode(
    webhooks().setWebhook({ accountId, mode: 99 as Mode, url: 'https://example.com/h' }),
    Code.InvalidArgument,
    'a bad mode',
  );
  await expectCode(webhooks().resendEvent({ eventId: 'evt_missing' }), Code.NotFound, 'an unknown event');
  await expectCode(
    core.clientWithToken(WebhookService, core.serviceToken).getWebhook({ accountId }),
    Code.PermissionDenied,
    'the service token',
  );
});

test('no log line carries a secret or a signature', async () => {
  const to = await receiver();
  const { accountId, secret } = await accountWithWebhook(to);
  const rotated = await webhooks().rotateWebhookSecret({ accountId });
  await webhooks().sendTestEvent({ accountId });
  await to.waitFor(1);
  await settled(accountId);
  const text = JSON.stringify(logged);
  const signature = to.received[0]!.headers['prepaid-signature'] as string;
  for (const [what, value] of [
    ['the first secret', secret],
    ['the rotated secret', rotated.secret],
    ['a signature', signature.split('v1=')[1]!.split(',')[0]!],
  ] as const) {
    assert.not.ok(text.includes(value), `${what} is not logged`);
  }
  assert.ok(
    logged.some(([event]) => event === 'webhook.delivered'),
    'attempts are logged',
  );
});

test.run();
