/**
 * The holder's webhook over a real core on port 0 with real gRPC clients and a real receiver:
 * an owner sets, reads, rotates, disables and tests the account's own webhook per mode; a
 * viewer reads it but every change is refused by the core; another account's event is not
 * found. The rules are the webhook service's own (the operator's), so the answers match.
 */
import { Code } from '@connectrpc/connect';
import * as assert from 'uvu/assert';
import { HolderService, SignInOutcome, UserAdminService, UserRole } from '../../../gen/prepaid/v1/holder_pb.js';
import { Mode } from '../../../gen/prepaid/v1/types_pb.js';
import { WebhookService } from '../../../gen/prepaid/v1/webhooks_pb.js';
import { startCore, type TestCore } from '../../helpers/core.js';
import { type Receiver, signedWith, startReceiver } from '../../helpers/receiver.js';
import { suite } from '../../helpers/suite.js';
import { rejection } from './support.js';

const PASSWORD = 'correct horse battery';

let core: TestCore;
let receiver: Receiver;
const holder = () => core.clientWithToken(HolderService, core.serviceToken);
const operator = () => core.clientWithToken(WebhookService, core.adminToken);

let sequence = 0;
async function signedIn(accountId: string, role: UserRole): Promise<string> {
  sequence += 1;
  const email = `hooks${sequence}@example.com`;
  const { invitation } = await core
    .clientWithToken(UserAdminService, core.adminToken)
    .inviteUser({ accountId, email, role });
  await holder().acceptInvitation({ invitationToken: invitation!.invitationToken, password: PASSWORD });
  const answer = await holder().signIn({ email, password: PASSWORD, clientIp: '198.51.100.7' });
  assert.is(answer.outcome, SignInOutcome.SIGNED_IN);
  return answer.sessionToken;
}

/** Waits until the account has no delivery of the mode still pending. */
async function settled(accountId: string, mode: 'live' | 'test' = 'live'): Promise<void> {
  for (let i = 0; i < 400; i++) {
    const page = await core.store.events.listDeliveries(accountId, mode, { failedOnly: false }, { limit: 100 });
    if (page.items.every((e) => e.delivery !== 'pending')) return;
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
  throw new Error('deliveries did not settle');
}

const test = suite("holder: the account's own webhook");

test.before(async () => {
  core = await startCore({ webhooks: { allowPrivate: true, retryBaseMs: 60_000, pollIntervalMs: 25 } });
  receiver = await startReceiver();
});

test.after(async () => {
  await receiver?.stop();
  await core?.close();
});

test('an owner sets the URL (secret once), sends a test event the receiver verifies, rotates, disables', async () => {
  const { accountId } = await core.createApiAccount();
  const session = await signedIn(accountId, UserRole.OWNER);

  const before = await holder().getWebhook({ sessionToken: session });
  assert.is(before.webhook, undefined, 'no webhook yet is an answer, not an error');

  const set = await holder().setWebhook({ sessionToken: session, url: receiver.url });
  assert.match(set.secret, /^whsec_[A-Za-z0-9_-]{43}$/);
  assert.equal(
    [set.webhook?.accountId, set.webhook?.mode, set.webhook?.url, set.webhook?.enabled],
    [accountId, Mode.LIVE, receiver.url, true],
  );
  assert.is(set.webhook?.secretHint, `…${set.secret.slice(-4)}`, 'the hint is the end of the secret');

  const read = await holder().getWebhook({ sessionToken: session, mode: Mode.LIVE });
  assert.is(read.webhook?.url, receiver.url);
  assert.is(read.webhook?.secretHint, set.webhook?.secretHint);
  assert.not.match(
    JSON.stringify(read.webhook, (_k, v) => (typeof v === 'bigint' ? String(v) : v)),
    set.secret,
    'the secret is never read back',
  );
  const asOperatorSees = await operator().getWebhook({ accountId });
  assert.is(asOperatorSees.webhook?.url, receiver.url, 'the same endpoint the operator manages');

  const seen = receiver.received.length;
  const ping = await holder().sendTestEvent({ sessionToken: session });
  assert.is(ping.delivery?.type, 'ping');
  await receiver.waitFor(seen + 1);
  const got = receiver.received[seen]!;
  assert.is(got.json.id, ping.delivery!.eventId);
  assert.ok(signedWith(got.headers['prepaid-signature'], got.raw, set.secret), 'signed with the secret shown once');
  await settled(accountId);
  const log = await holder().listDeliveries({ sessionToken: session });
  assert.equal(
    log.deliveries.map((d) => [d.eventId, d.state, d.attempts, d.lastStatus]),
    [[ping.delivery!.eventId, 'delivered', 1, 200]],
  );

  const rotated = await holder().rotateWebhookSecret({ sessionToken: session });
  assert.match(rotated.secret, /^whsec_/);
  assert.is.not(rotated.secret, set.secret);
  assert.ok(rotated.webhook?.previousSecretUntil, 'the old secret keeps signing for a while');
  const next = await holder().sendTestEvent({ sessionToken: session });
  await receiver.waitFor(seen + 2);
  const second = receiver.received.find((r) => r.json.id === next.delivery!.eventId)!;
  assert.ok(signedWith(second.headers['prepaid-signature'], second.raw, rotated.secret), 'signed with the new secret');
  assert.ok(
    signedWith(second.headers['prepaid-signature'], second.raw, set.secret),
    'and with the old one during the rotation',
  );

  const disabled = await holder().disableWebhook({ sessionToken: session });
  assert.is(disabled.webhook?.enabled, false);
  const noPing = await rejection(holder().sendTestEvent({ sessionToken: session }));
  assert.is(noPing.code, Code.FailedPrecondition, 'no test event to a disabled webhook');
  await settled(accountId);
  const noResend = await rejection(holder().resendEvent({ sessionToken: session, eventId: ping.delivery!.eventId }));
  assert.is(noResend.code, Code.FailedPrecondition, 'no resend to a disabled webhook');
  const again = await holder().setWebhook({ sessionToken: session, url: receiver.url });
  assert.is(again.webhook?.enabled, true, 'setting the URL again enables it');
  assert.match(again.secret, /^whsec_/);
});

test("live and test are separate endpoints; the URL is checked by the same rule as the operator's", async () => {
  const { accountId } = await core.createApiAccount();
  const session = await signedIn(accountId, UserRole.OWNER);
  const test = await holder().setWebhook({ sessionToken: session, mode: Mode.TEST, url: `${receiver.url}/test` });
  assert.is(test.webhook?.mode, Mode.TEST);
  assert.is((await holder().getWebhook({ sessionToken: session })).webhook, undefined, 'the live one is still unset');
  const seen = receiver.received.length;
  await holder().sendTestEvent({ sessionToken: session, mode: Mode.TEST });
  await receiver.waitFor(seen + 1);
  assert.is(receiver.received[seen]!.json.livemode, false);
  await settled(accountId, 'test');
  assert.is((await holder().listDeliveries({ sessionToken: session, mode: Mode.TEST })).deliveries.length, 1);
  assert.is((await holder().listDeliveries({ sessionToken: session, mode: Mode.LIVE })).deliveries.length, 0);

  for (const url of ['ftp://example.com/hooks', 'not a url', `https://user:pw@example.com/hooks`]) {
    const refused = await rejection(holder().setWebhook({ sessionToken: session, url }));
    assert.is(refused.code, Code.InvalidArgument, url);
    assert.is(refused.violations[0]?.field, 'url', url);
    const operatorSays = await rejection(operator().setWebhook({ accountId, url }));
    assert.is(refused.violations[0]?.description, operatorSays.violations[0]?.description, 'the very same sentence');
  }
  const badCursor = await rejection(holder().listDeliveries({ sessionToken: session, pageToken: 'forged' }));
  assert.is(badCursor.code, Code.InvalidArgument);
});

test('deliveries come newest first, page by page, and the failed-only filter keeps only failed ones', async () => {
  const { accountId } = await core.createApiAccount();
  const session = await signedIn(accountId, UserRole.OWNER);
  await holder().setWebhook({ sessionToken: session, url: receiver.url });
  const ids: string[] = [];
  for (let i = 0; i < 3; i++) {
    ids.push((await holder().sendTestEvent({ sessionToken: session })).delivery!.eventId);
    await settled(accountId);
  }
  const first = await holder().listDeliveries({ sessionToken: session, pageSize: 2 });
  assert.equal(
    first.deliveries.map((d) => d.eventId),
    [ids[2], ids[1]],
  );
  assert.ok(first.nextPageToken);
  const rest = await holder().listDeliveries({ sessionToken: session, pageSize: 2, pageToken: first.nextPageToken });
  assert.equal(
    rest.deliveries.map((d) => d.eventId),
    [ids[0]],
  );
  assert.is(rest.nextPageToken, '');
  assert.is((await holder().listDeliveries({ sessionToken: session, failedOnly: true })).deliveries.length, 0);
});

test('a viewer reads the webhook and its deliveries but the core refuses every change', async () => {
  const { accountId } = await core.createApiAccount();
  const owner = await signedIn(accountId, UserRole.OWNER);
  const viewer = await signedIn(accountId, UserRole.VIEWER);
  const set = await holder().setWebhook({ sessionToken: owner, url: receiver.url });
  const ping = await holder().sendTestEvent({ sessionToken: owner });
  await settled(accountId);

  assert.is((await holder().getWebhook({ sessionToken: viewer })).webhook?.url, receiver.url);
  assert.is((await holder().listDeliveries({ sessionToken: viewer })).deliveries.length, 1);

  const seen = receiver.received.length;
  const calls = [
    holder().setWebhook({ sessionToken: viewer, url: `${receiver.url}/elsewhere` }),
    holder().rotateWebhookSecret({ sessionToken: viewer }),
    holder().disableWebhook({ sessionToken: viewer }),
    holder().resendEvent({ sessionToken: viewer, eventId: ping.delivery!.eventId }),
    holder().sendTestEvent({ sessionToken: viewer }),
  ];
  for (const call of calls) {
    const refused = await rejection(call);
    assert.is(refused.code, Code.PermissionDenied);
    assert.is(refused.reason, 'PERMISSION_DENIED');
  }
  const after = await holder().getWebhook({ sessionToken: owner });
  assert.equal(
    [after.webhook?.url, after.webhook?.enabled, after.webhook?.secretHint],
    [receiver.url, true, set.webhook?.secretHint],
    'nothing changed',
  );
  assert.is((await holder().listDeliveries({ sessionToken: owner })).deliveries.length, 1, 'no event was recorded');
  assert.is(receiver.received.length, seen, 'nothing was sent');

  const signedOut = await rejection(holder().getWebhook({ sessionToken: 'not-a-session' }));
  assert.is(signedOut.code, Code.Unauthenticated);
});

test("an owner resends the account's own event; another account's or the other mode's is not found", async () => {
  const mine = await core.createApiAccount();
  const theirs = await core.createApiAccount();
  const owner = await signedIn(mine.accountId, UserRole.OWNER);
  const other = await signedIn(theirs.accountId, UserRole.OWNER);
  await holder().setWebhook({ sessionToken: owner, url: receiver.url });
  await holder().setWebhook({ sessionToken: other, url: receiver.url });
  await holder().setWebhook({ sessionToken: owner, mode: Mode.TEST, url: receiver.url });
  const own = (await holder().sendTestEvent({ sessionToken: owner })).delivery!.eventId;
  const foreign = (await holder().sendTestEvent({ sessionToken: other })).delivery!.eventId;
  const ownTest = (await holder().sendTestEvent({ sessionToken: owner, mode: Mode.TEST })).delivery!.eventId;
  await settled(mine.accountId);
  await settled(theirs.accountId);
  await settled(mine.accountId, 'test');

  const seen = receiver.received.length;
  for (const [eventId, mode] of [
    [foreign, Mode.LIVE],
    [ownTest, Mode.LIVE],
    ['evt_does_not_exist', Mode.LIVE],
    ['', Mode.LIVE],
  ] as const) {
    const refused = await rejection(holder().resendEvent({ sessionToken: owner, mode, eventId }));
    assert.is(refused.code, Code.NotFound, eventId);
  }
  const foreignAfter = await operator().listDeliveries({ accountId: theirs.accountId });
  assert.equal(
    foreignAfter.deliveries.map((d) => [d.state, d.attempts]),
    [['delivered', 1]],
    "the other account's event was not queued again",
  );

  const resent = await holder().resendEvent({ sessionToken: owner, eventId: own });
  assert.is(resent.delivery?.eventId, own);
  await receiver.waitFor(seen + 1);
  assert.equal(
    receiver.received.slice(seen).map((r) => r.json.id),
    [own],
    'only the own event went out again',
  );
  await settled(mine.accountId);
  const [delivery] = (await holder().listDeliveries({ sessionToken: owner })).deliveries;
  assert.equal([delivery?.eventId, delivery?.state, delivery?.attempts], [own, 'delivered', 2]);
});

test.run();
