/**
 * The velocity brake through the real gateway and core: a burst far over a key's allowance
 * freezes it (its calls 403 KEY_FROZEN, every one of them), its owner's mail arrives at a real
 * SMTP receiver, key.frozen is in the account's feed; the owner unfreezes it in the developer
 * area only with a right two-step code, and the key works again.
 */
import { Code } from '@connectrpc/connect';
import * as assert from 'uvu/assert';
import { kobo } from '../../core/domain/money.js';
import { parseSmtpUrl } from '../../core/mail/smtp.js';
import { totpCode } from '../../core/people/totp.js';
import { HolderService, SignInOutcome, UserAdminService, UserRole } from '../../gen/prepaid/v1/holder_pb.js';
import { Mode } from '../../gen/prepaid/v1/types_pb.js';
import { rejection } from '../core/rpc/support.js';
import { startCore, type TestCore } from '../helpers/core.js';
import { startTestGateway, type TestGateway } from '../helpers/gateway.js';
import { type SmtpReceiver, startSmtpReceiver } from '../helpers/smtp.js';
import { suite } from '../helpers/suite.js';
import { assertError, balanceKobo } from './fields.js';

const PASSWORD = 'correct horse battery';
const OWNER = 'ngozi@example.ng';
/** A clock the test moves by hand, so that two-step codes fall in the steps it chooses. */
const clock = { now: Date.UTC(2026, 10, 30, 9, 0, 0) };

const test = suite('gateway: the velocity brake');
let core: TestCore;
let gateway: TestGateway;
let smtp: SmtpReceiver;

test.before(async () => {
  smtp = await startSmtpReceiver();
  const server = parseSmtpUrl(smtp.url);
  if ('problem' in server) throw new Error(server.problem);
  core = await startCore({
    clock: () => new Date(clock.now),
    dashboardPublicUrl: 'https://dash.example.ng',
    mail: { server, from: 'Prepaid <no-reply@prepaid.example.ng>' },
    // A new key may spend ₦1,000 in a 10-minute window.
    velocity: { enabled: true, windowMin: 10, factor: 5, newKeyWindowKobo: kobo(100_000) },
  });
  // No key cache at the gateway: the store's freeze shows on the next request.
  gateway = await startTestGateway(core, { authCacheTtlMs: 0, rateLimitPerMinute: 10_000 });
});

test.after(async () => {
  await gateway?.close();
  await core?.close();
  await smtp?.close();
});

const airtime = (amount: number, phone = '08031234567') => ({
  method: 'POST' as const,
  query: { action: 'airtime' },
  body: { network: 'mtn', phone, amount },
});

/** An account with an owner who accepted the mailed invitation, signed in, with two-step sign-in on. */
async function ownedAccount() {
  const holder = core.clientWithToken(HolderService, core.serviceToken);
  const users = core.clientWithToken(UserAdminService, core.adminToken);
  const { accountId, publicKey, secretKey } = await core.createApiAccount({ balanceKobo: 5_000_000 });
  await users.inviteUser({ accountId, email: OWNER, role: UserRole.OWNER });
  const link = /\/invite\/([A-Za-z0-9_-]{43})/.exec((await smtp.next(OWNER)).text);
  assert.ok(link, 'the invitation mail carries its link');
  await holder.acceptInvitation({ invitationToken: link![1]!, password: PASSWORD });
  const signIn = await holder.signIn({ email: OWNER, password: PASSWORD, clientIp: '198.51.100.1' });
  assert.is(signIn.outcome, SignInOutcome.SIGNED_IN);
  const session = signIn.sessionToken;
  const { secret } = await holder.beginTotpSetup({ sessionToken: session });
  await holder.confirmTotp({ sessionToken: session, totpCode: totpCode(secret, new Date(clock.now)) });
  return { accountId, keys: { publicKey, secretKey }, holder, session, secret };
}

/** Waits (bounded) until the store holds the key's freeze: the brake writes it in the background. */
async function frozenInStore(publicKey: string): Promise<void> {
  for (let i = 0; i < 200; i++) {
    if ((await core.store.keys.find(publicKey))?.frozen !== undefined) return;
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
  assert.unreachable('the key was never frozen in the store');
}

test('a burst far over a new key allowance freezes it: KEY_FROZEN, the owner mailed, key.frozen in the feed; the owner unfreezes it only with the code', async () => {
  const { accountId, keys, holder, session, secret } = await ownedAccount();
  // Ten purchases of ₦100 are the allowance; the eleventh passes it and is the last one reserved.
  for (let i = 0; i < 11; i++) {
    const bought = await gateway.request({ ...airtime(100, `0803123${String(4000 + i)}`), keys });
    assert.is(bought.status, 200, bought.text);
  }
  const refused = await gateway.request({ ...airtime(100), keys });
  assertError(refused, 403, 'KEY_FROZEN');
  await frozenInStore(keys.publicKey);
  const history = await core.purchase.listTransactions({ accountId });
  assert.is(history.transactions.length, 11, 'nothing reserved after the freeze');
  const charged = history.transactions.reduce((sum, tx) => sum + tx.chargedKobo, 0n);
  assert.is(await balanceKobo(core, accountId), 5_000_000n - charged, 'nothing charged after the freeze');
  // Every call of a frozen key is refused, not only purchases.
  assertError(await gateway.request({ query: { action: 'balance' }, keys }), 403, 'KEY_FROZEN');

  const mail = await smtp.next(OWNER, 'frozen');
  assert.match(mail.text, keys.publicKey);
  assert.match(mail.text, /spent in 10 minutes/);
  const feed = await core.store.events.listFeed(accountId, 'live', 0, 100);
  const frozenEvent = feed.find((e) => e.type === 'key.frozen');
  assert.ok(frozenEvent, 'key.frozen is in the feed');
  assert.is((JSON.parse(frozenEvent!.body) as { data: { public_key: string } }).data.public_key, keys.publicKey);
  const listed = (await holder.listApiKeys({ sessionToken: session })).keys.find((k) => k.publicKey === keys.publicKey);
  assert.ok(listed?.frozenAt, 'the keys page sees the freeze');

  // A wrong code refuses, and the key stays frozen.
  clock.now += 30_000;
  const right = totpCode(secret, new Date(clock.now));
  const wrong = await rejection(
    holder.unfreezeApiKey({
      sessionToken: session,
      publicKey: keys.publicKey,
      totpCode: right === '000000' ? '111111' : '000000',
    }),
  );
  assert.is(wrong.code, Code.InvalidArgument, wrong.message);
  const noCode = await rejection(holder.unfreezeApiKey({ sessionToken: session, publicKey: keys.publicKey }));
  assert.is(noCode.code, Code.InvalidArgument, noCode.message);
  assertError(await gateway.request({ query: { action: 'balance' }, keys }), 403, 'KEY_FROZEN');

  const { key } = await holder.unfreezeApiKey({
    sessionToken: session,
    publicKey: keys.publicKey,
    totpCode: right,
    formAccountId: accountId,
  });
  assert.is(key?.frozenAt, undefined);
  assert.is((await gateway.request({ query: { action: 'balance' }, keys })).status, 200);
  assert.is((await gateway.request({ ...airtime(100), keys })).status, 200, 'the unfreeze forgot the burst');
  const events = await gateway.request({ query: { action: 'events' }, keys });
  assert.is(events.status, 200, events.text);
  const types = (events.json['events'] as { type: string }[]).map((e) => e.type);
  assert.ok(types.includes('key.frozen') && types.includes('key.unfrozen'), types.join(', '));
  const audit = await core.store.auditLog.list({ target: keys.publicKey, limit: 10 });
  assert.equal(
    audit.map((r) => [r.action, r.actor]),
    [
      ['key.unfreeze', `owner:${OWNER}`],
      ['key.freeze', 'system'],
    ],
  );
});

test('a key under its allowance is never frozen, and a test key is never counted', async () => {
  const { accountId, publicKey, secretKey } = await core.createApiAccount({ balanceKobo: 5_000_000 });
  const keys = { publicKey, secretKey };
  for (let i = 0; i < 5; i++) assert.is((await gateway.request({ ...airtime(200), keys })).status, 200);
  assert.is((await gateway.request({ query: { action: 'balance' }, keys })).status, 200);
  assert.is((await core.store.keys.find(publicKey))?.frozen, undefined);
  const test = await core.admin.createApiKey({ accountId, mode: Mode.TEST });
  await core.admin.creditWallet({ accountId, amountKobo: 5_000_000n, memo: 'test money', mode: Mode.TEST });
  const testKeys = { publicKey: test.issuedKey!.publicKey, secretKey: test.issuedKey!.secretKey };
  for (let i = 0; i < 12; i++) assert.is((await gateway.request({ ...airtime(100), keys: testKeys })).status, 200);
  assert.is((await core.store.keys.find(testKeys.publicKey))?.frozen, undefined, 'test money is not guarded');
});

test.run();
