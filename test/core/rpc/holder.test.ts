/**
 * HolderService and UserAdminService over a real core on port 0 with real gRPC clients:
 * invitations, passwords, sign-in and its throttle, session expiry on an injected clock,
 * the viewer refused by the server, TOTP with codes the test computes, keys that work at
 * the real gateway, prices equal to what the API charges, and the history's filters and pages.
 */
import { Code } from '@connectrpc/connect';
import * as assert from 'uvu/assert';
import { kobo } from '../../../core/domain/money.js';
import { totpCode } from '../../../core/people/totp.js';
import { HolderService, SignInOutcome, UserAdminService, UserRole } from '../../../gen/prepaid/v1/holder_pb.js';
import { Mode, Product, TransactionStatus } from '../../../gen/prepaid/v1/types_pb.js';
import { assertError } from '../../gateway/fields.js';
import { startCore, type TestCore } from '../../helpers/core.js';
import { startTestGateway, type TestGateway } from '../../helpers/gateway.js';
import { suite } from '../../helpers/suite.js';
import { rejection } from './support.js';

const DASHBOARD = 'https://dash.example.com';
const PASSWORD = 'correct horse battery';

/** A clock the test moves by hand. */
const clock = {
  now: Date.UTC(2025, 5, 10, 9, 0, 0),
  advance(ms: number) {
    this.now += ms;
  },
};
const MINUTE = 60_000;

let core: TestCore;
let gateway: TestGateway;
let holder: ReturnType<typeof holderClient>;
let users: ReturnType<typeof usersClient>;
const holderClient = () => core.clientWithToken(HolderService, core.serviceToken);
const usersClient = () => core.clientWithToken(UserAdminService, core.adminToken);

let sequence = 0;
function email(): string {
  sequence += 1;
  return `person${sequence}@example.com`;
}

/** Invites, accepts and signs in a person; returns the session token and who it is. */
async function signedIn(accountId: string, role: UserRole = UserRole.OWNER, address = '198.51.100.1') {
  const address_ = email();
  const { invitation } = await users.inviteUser({ accountId, email: address_, role });
  const { user } = await holder.acceptInvitation({ invitationToken: invitation!.invitationToken, password: PASSWORD });
  const signIn = await holder.signIn({ email: address_, password: PASSWORD, clientIp: address });
  assert.is(signIn.outcome, SignInOutcome.SIGNED_IN);
  return { token: signIn.sessionToken, user: user!, email: address_ };
}

const setup = async () => {
  core = await startCore({ clock: () => new Date(clock.now), dashboardPublicUrl: DASHBOARD });
  // No key cache at the gateway: a lock or revocation made here must show on the next request
  // (with the default AUTH_CACHE_TTL_MS it shows within 5 seconds).
  gateway = await startTestGateway(core, { authCacheTtlMs: 0 });
  holder = holderClient();
  users = usersClient();
};
const teardown = async () => {
  await gateway.close();
  await core.close();
};

const invitations = suite('holder: invitations and passwords');
invitations.before(setup);
invitations.after(teardown);

invitations('an invitation link is made from DASHBOARD_PUBLIC_URL, shows what it is for, and works once', async () => {
  const { accountId } = await core.createApiAccount({ name: 'Ada Stores' });
  const { invitation } = await users.inviteUser({ accountId, email: '  Ada@Example.COM ', role: UserRole.VIEWER });
  assert.ok(invitation);
  assert.ok(invitation.inviteUrl.startsWith(`${DASHBOARD}/invite/`), invitation.inviteUrl);
  assert.ok(invitation.inviteUrl.endsWith(invitation.invitationToken));
  assert.is(invitation.email, 'ada@example.com');
  assert.is(Number(invitation.expiresAt!.seconds) * 1000, clock.now + 72 * 3_600_000);
  const about = await holder.getInvitation({ invitationToken: invitation.invitationToken });
  assert.equal([about.email, about.role, about.accountName], ['ada@example.com', UserRole.VIEWER, 'Ada Stores']);

  const short = await rejection(
    holder.acceptInvitation({ invitationToken: invitation.invitationToken, password: 'elevenchars' }),
  );
  assert.is(short.code, Code.InvalidArgument);
  assert.equal(
    short.violations.map((v) => v.field),
    ['password'],
  );
  const { user } = await holder.acceptInvitation({
    invitationToken: invitation.invitationToken,
    password: 'twelve chars',
  });
  assert.equal(
    [user!.email, user!.role, user!.accountId, user!.disabled],
    ['ada@example.com', UserRole.VIEWER, accountId, false],
  );

  const again = await rejection(
    holder.acceptInvitation({ invitationToken: invitation.invitationToken, password: PASSWORD }),
  );
  assert.equal([again.code, again.reason], [Code.NotFound, 'NOT_FOUND']);
  assert.is(
    (await rejection(holder.getInvitation({ invitationToken: invitation.invitationToken }))).code,
    Code.NotFound,
  );
  const taken = await rejection(users.inviteUser({ accountId, email: 'ada@example.com', role: UserRole.OWNER }));
  assert.is(taken.reason, 'FAILED_PRECONDITION');
  const listed = await users.listUsers({ accountId });
  assert.equal(
    listed.users.map((u) => u.email),
    ['ada@example.com'],
  );
});

invitations('an invitation expires after 72 hours; bad emails, roles and accounts are refused', async () => {
  const { accountId } = await core.createApiAccount();
  const { invitation } = await users.inviteUser({ accountId, email: email(), role: UserRole.OWNER });
  clock.advance(72 * 3_600_000);
  const expired = await rejection(
    holder.acceptInvitation({ invitationToken: invitation!.invitationToken, password: PASSWORD }),
  );
  assert.is(expired.code, Code.NotFound);
  assert.is(
    (await rejection(users.inviteUser({ accountId, email: 'not an email', role: UserRole.OWNER }))).violations[0]
      ?.field,
    'email',
  );
  assert.is(
    (await rejection(users.inviteUser({ accountId: 'acc_nobody', email: email(), role: UserRole.OWNER }))).code,
    Code.NotFound,
  );
  assert.is(
    (await rejection(holder.acceptInvitation({ invitationToken: 'made-up', password: PASSWORD }))).code,
    Code.NotFound,
  );
  // The operator's token is needed for UserAdminService: the service token is refused.
  const wrong = await rejection(core.clientWithToken(UserAdminService, core.serviceToken).listUsers({ accountId }));
  assert.is(wrong.code, Code.PermissionDenied);
});

const sessions = suite('holder: sign-in and sessions');
sessions.before(setup);
sessions.after(teardown);

sessions('sign-in answers invalid credentials alike for a wrong password and an unknown email', async () => {
  const { accountId } = await core.createApiAccount();
  const me = await signedIn(accountId);
  const wrong = await holder.signIn({ email: me.email, password: 'not the password', clientIp: '198.51.100.2' });
  const unknown = await holder.signIn({ email: 'nobody@example.com', password: PASSWORD, clientIp: '198.51.100.2' });
  assert.equal([wrong.outcome, wrong.sessionToken], [SignInOutcome.INVALID_CREDENTIALS, '']);
  assert.equal([unknown.outcome, unknown.sessionToken], [SignInOutcome.INVALID_CREDENTIALS, '']);
  const session = (await holder.getSession({ sessionToken: me.token })).session!;
  assert.equal([session.user!.email, session.tierId, session.apiAccess], [me.email, 'api', true]);
  assert.is(Number(session.absoluteExpiresAt!.seconds) * 1000, clock.now + 12 * 3_600_000);
});

sessions('a session ends after 30 idle minutes, use extends it, and it ends at 12 hours whatever happens', async () => {
  const { accountId } = await core.createApiAccount();
  const idle = await signedIn(accountId);
  clock.advance(29 * MINUTE);
  await holder.getSession({ sessionToken: idle.token });
  clock.advance(29 * MINUTE);
  await holder.getOverview({ sessionToken: idle.token });
  clock.advance(30 * MINUTE);
  const ended = await rejection(holder.getSession({ sessionToken: idle.token }));
  assert.equal([ended.code, ended.reason], [Code.Unauthenticated, 'UNAUTHENTICATED']);

  const busy = await signedIn(accountId);
  for (let minutes = 0; minutes < 12 * 60 - 20; minutes += 20) {
    clock.advance(20 * MINUTE);
    await holder.getSession({ sessionToken: busy.token });
  }
  clock.advance(20 * MINUTE);
  assert.is((await rejection(holder.getSession({ sessionToken: busy.token }))).code, Code.Unauthenticated);
});

sessions('sign-out ends the session in the store; a disabled user is signed out and cannot sign in', async () => {
  const { accountId } = await core.createApiAccount();
  const me = await signedIn(accountId);
  await holder.signOut({ sessionToken: me.token });
  assert.is((await rejection(holder.getSession({ sessionToken: me.token }))).code, Code.Unauthenticated);
  await holder.signOut({ sessionToken: me.token });

  const other = await signedIn(accountId, UserRole.VIEWER);
  await users.disableUser({ userId: other.user.userId });
  assert.is((await rejection(holder.getSession({ sessionToken: other.token }))).code, Code.Unauthenticated);
  const refused = await holder.signIn({ email: other.email, password: PASSWORD, clientIp: '198.51.100.1' });
  assert.is(refused.outcome, SignInOutcome.INVALID_CREDENTIALS);
  assert.is((await rejection(holder.getSession({ sessionToken: '' }))).code, Code.Unauthenticated);
});

sessions('failures from one address are slowed there, and the owner still signs in from their own', async () => {
  const { accountId } = await core.createApiAccount();
  const owner = await signedIn(accountId, UserRole.OWNER, '203.0.113.50');
  const attacker = '192.0.2.66';
  for (let i = 0; i < 5; i++) {
    assert.is(
      (await holder.signIn({ email: owner.email, password: `guess number ${i}`, clientIp: attacker })).outcome,
      SignInOutcome.INVALID_CREDENTIALS,
    );
  }
  const slowed = await holder.signIn({ email: owner.email, password: PASSWORD, clientIp: attacker });
  assert.is(slowed.outcome, SignInOutcome.THROTTLED, 'even the right password is not checked while throttled');
  assert.ok(slowed.retryAfterSeconds >= 1);
  const home = await holder.signIn({ email: owner.email, password: PASSWORD, clientIp: '203.0.113.50' });
  assert.is(home.outcome, SignInOutcome.SIGNED_IN, 'no lockout from elsewhere');
  clock.advance(slowed.retryAfterSeconds * 1000);
  assert.is(
    (await holder.signIn({ email: owner.email, password: PASSWORD, clientIp: attacker })).outcome,
    SignInOutcome.SIGNED_IN,
  );
});

const roles = suite('holder: owners and viewers');
roles.before(setup);
roles.after(teardown);

roles('a viewer reads everything and is refused by the server on every owner RPC', async () => {
  const { accountId, publicKey } = await core.createApiAccount();
  const owner = await signedIn(accountId);
  const viewer = await signedIn(accountId, UserRole.VIEWER);
  const t = viewer.token;
  const refusals = [
    holder.createApiKey({ sessionToken: t }),
    holder.revokeApiKey({ sessionToken: t, publicKey }),
    holder.setApiKeyIpLock({ sessionToken: t, publicKey, allowedIps: ['203.0.113.7'] }),
    holder.setApiKeyLimits({ sessionToken: t, publicKey, scopes: 'balance', capPerDayKobo: 100n }),
    holder.rollApiKey({ sessionToken: t, publicKey }),
    holder.inviteUser({ sessionToken: t, email: email(), role: UserRole.VIEWER }),
    holder.disableUser({ sessionToken: t, userId: owner.user.userId }),
    holder.createApiKey({ sessionToken: t, mode: Mode.TEST }),
    holder.addTestFunds({ sessionToken: t, amountKobo: 100_000n, reference: 'viewer-form-0001' }),
  ];
  for (const refused of refusals) {
    const r = await rejection(refused);
    assert.equal([r.code, r.reason], [Code.PermissionDenied, 'PERMISSION_DENIED']);
  }
  const keys = await holder.listApiKeys({ sessionToken: t });
  assert.equal(
    keys.keys.map((k) => [k.publicKey, k.revoked, k.allowedIps.length, k.limits?.scopes, k.expiresAt]),
    [[publicKey, false, 0, ['all'], undefined]],
    'nothing changed',
  );
  assert.is((await holder.listUsers({ sessionToken: t })).users.length, 2);
  await holder.getOverview({ sessionToken: t });
  await holder.getPrices({ sessionToken: t });
  await holder.listTransactions({ sessionToken: t });
  await holder.listStatement({ sessionToken: t });
});

roles('an owner invites and disables people of their own account only, never themselves', async () => {
  const { accountId } = await core.createApiAccount();
  const other = await core.createApiAccount();
  const owner = await signedIn(accountId);
  const stranger = await signedIn(other.accountId);
  const { invitation } = await holder.inviteUser({ sessionToken: owner.token, email: email(), role: UserRole.VIEWER });
  assert.is(invitation!.accountId, accountId);
  assert.ok(invitation!.inviteUrl.startsWith(`${DASHBOARD}/invite/`));
  assert.is(
    (await rejection(holder.disableUser({ sessionToken: owner.token, userId: stranger.user.userId }))).code,
    Code.NotFound,
  );
  assert.is(
    (await rejection(holder.disableUser({ sessionToken: owner.token, userId: owner.user.userId }))).reason,
    'FAILED_PRECONDITION',
  );
  const viewer = await signedIn(accountId, UserRole.VIEWER);
  const { user } = await holder.disableUser({ sessionToken: owner.token, userId: viewer.user.userId });
  assert.is(user!.disabled, true);
});

const keys = suite('holder: keys at the real gateway, TOTP');
keys.before(setup);
keys.after(teardown);

keys(
  'a key created here is shown once, buys through the gateway, obeys its IP lock and dies when revoked',
  async () => {
    const { accountId } = await core.createApiAccount({ balanceKobo: 100_000 });
    const owner = await signedIn(accountId);
    const created = await holder.createApiKey({ sessionToken: owner.token });
    const pair = { publicKey: created.issuedKey!.publicKey, secretKey: created.issuedKey!.secretKey };
    assert.match(pair.secretKey, /^sk_/);
    const listed = (await holder.listApiKeys({ sessionToken: owner.token })).keys;
    assert.ok(listed.some((k) => k.publicKey === pair.publicKey));
    assert.not.ok(
      JSON.stringify(listed, (_, v) => (typeof v === 'bigint' ? String(v) : v)).includes(pair.secretKey),
      'never listed with its secret',
    );

    const bought = await gateway.request({
      query: { action: 'airtime' },
      keys: pair,
      body: { network: 'mtn', phone: '08031234567', amount: 100 },
    });
    assert.is(bought.status, 200, bought.text);

    const badLock = await rejection(
      holder.setApiKeyIpLock({ sessionToken: owner.token, publicKey: pair.publicKey, allowedIps: ['999.1.1.1'] }),
    );
    assert.equal(
      badLock.violations.map((v) => v.field),
      ['allowed_ips[0]'],
    );
    await holder.setApiKeyIpLock({ sessionToken: owner.token, publicKey: pair.publicKey, allowedIps: ['203.0.113.9'] });
    assertError(await gateway.request({ query: { action: 'balance' }, keys: pair }), 401, 'IP_NOT_ALLOWED');

    const other = await core.createApiAccount();
    const theirs = await rejection(holder.revokeApiKey({ sessionToken: owner.token, publicKey: other.publicKey }));
    assert.is(theirs.code, Code.NotFound, "another account's key is not found");
    await holder.revokeApiKey({ sessionToken: owner.token, publicKey: pair.publicKey });
    assertError(await gateway.request({ query: { action: 'balance' }, keys: pair }), 401, 'INVALID_API_KEY');
  },
);

keys("an owner sets a key's limits and rolls it by the admin's rules; another account's key is not found", async () => {
  const { accountId, publicKey } = await core.createApiAccount();
  const owner = await signedIn(accountId);
  const t = owner.token;
  const bad = await rejection(
    holder.setApiKeyLimits({ sessionToken: t, publicKey, scopes: 'balance,nothing', capPerDayKobo: -5n }),
  );
  assert.equal(
    [bad.code, bad.violations.map((v) => v.field).sort()],
    [Code.InvalidArgument, ['cap_per_day', 'scopes']],
  );
  const { key } = await holder.setApiKeyLimits({
    sessionToken: t,
    formAccountId: accountId,
    publicKey,
    scopes: 'balance,purchase:airtime',
    capPerDayKobo: 50_000n,
  });
  assert.equal([key!.limits?.scopes, key!.limits?.capPerDayKobo], [['balance', 'purchase:airtime'], 50_000n]);
  const listed = (await holder.listApiKeys({ sessionToken: t })).keys.find((k) => k.publicKey === publicKey);
  assert.equal([listed?.limits?.capPerDayKobo, listed?.spentTodayKobo], [50_000n, 0n]);

  const other = await core.createApiAccount();
  for (const call of [
    holder.setApiKeyLimits({ sessionToken: t, publicKey: other.publicKey, scopes: 'balance' }),
    holder.rollApiKey({ sessionToken: t, publicKey: other.publicKey }),
  ]) {
    assert.is((await rejection(call)).code, Code.NotFound, "another account's key is not found");
  }
  const switched = await rejection(holder.rollApiKey({ sessionToken: t, formAccountId: other.accountId, publicKey }));
  assert.is(switched.code, Code.FailedPrecondition, 'a form made for another account does nothing');
  const tooLong = await rejection(holder.rollApiKey({ sessionToken: t, publicKey, graceHours: 169 }));
  assert.equal(
    tooLong.violations.map((v) => v.field),
    ['grace_hours'],
  );
  const rolled = await holder.rollApiKey({ sessionToken: t, publicKey });
  assert.match(rolled.issuedKey!.secretKey, /^sk_/);
  assert.is(
    Number(rolled.oldKey!.expiresAt!.seconds) * 1000,
    Math.floor(clock.now / 1000) * 1000 + 24 * 3_600_000,
    'the old pair works for 24 hours by default',
  );
  const next = (await holder.listApiKeys({ sessionToken: t })).keys.find(
    (k) => k.publicKey === rolled.issuedKey!.publicKey,
  );
  assert.equal(next?.limits?.scopes, ['balance', 'purchase:airtime'], "the new pair has the old one's limits");
});

keys(
  'TOTP: set up with a computed code, then required at sign-in and again before a key is created; a code works once',
  async () => {
    const { accountId } = await core.createApiAccount();
    const me = await signedIn(accountId);
    const setupAnswer = await holder.beginTotpSetup({ sessionToken: me.token });
    assert.match(setupAnswer.otpauthUri, /^otpauth:\/\/totp\/Prepaid:/);
    assert.ok(setupAnswer.otpauthUri.includes(`secret=${setupAnswer.secret}`));
    assert.match(setupAnswer.qrSvg, /^<svg[\s>]/);
    const now = () => new Date(clock.now);
    const wrongCode = await rejection(
      holder.confirmTotp({
        sessionToken: me.token,
        totpCode: '000000' === totpCode(setupAnswer.secret, now()) ? '111111' : '000000',
      }),
    );
    assert.equal(
      wrongCode.violations.map((v) => v.field),
      ['totp_code'],
    );
    const confirmed = await holder.confirmTotp({
      sessionToken: me.token,
      totpCode: totpCode(setupAnswer.secret, now()),
    });
    assert.is(confirmed.user!.totpEnabled, true);

    const first = await holder.signIn({ email: me.email, password: PASSWORD, clientIp: '198.51.100.1' });
    assert.equal([first.outcome, first.sessionToken], [SignInOutcome.TOTP_REQUIRED, '']);
    // The code just used to confirm is refused: same time step.
    const replay = await holder.completeSignIn({
      challengeToken: first.challengeToken,
      totpCode: totpCode(setupAnswer.secret, now()),
      clientIp: '198.51.100.1',
    });
    assert.is(replay.outcome, SignInOutcome.INVALID_CREDENTIALS);
    assert.is(
      (
        await holder.completeSignIn({
          challengeToken: first.challengeToken,
          totpCode: totpCode(setupAnswer.secret, now()),
          clientIp: '198.51.100.1',
        })
      ).outcome,
      SignInOutcome.INVALID_CREDENTIALS,
      'a challenge is used once',
    );
    clock.advance(30_000);
    const second = await holder.signIn({ email: me.email, password: PASSWORD, clientIp: '198.51.100.1' });
    const done = await holder.completeSignIn({
      challengeToken: second.challengeToken,
      totpCode: totpCode(setupAnswer.secret, now()),
      clientIp: '198.51.100.1',
    });
    assert.is(done.outcome, SignInOutcome.SIGNED_IN);
    const token = done.sessionToken;

    const noCode = await rejection(holder.createApiKey({ sessionToken: token }));
    assert.equal(
      noCode.violations.map((v) => v.field),
      ['totp_code'],
    );
    clock.advance(30_000);
    const code = totpCode(setupAnswer.secret, now());
    const made = await holder.createApiKey({ sessionToken: token, totpCode: code });
    assert.match(made.issuedKey!.secretKey, /^sk_/);
    for (const call of [
      holder.setApiKeyLimits({ sessionToken: token, publicKey: made.issuedKey!.publicKey, scopes: 'balance' }),
      holder.rollApiKey({ sessionToken: token, publicKey: made.issuedKey!.publicKey }),
    ]) {
      assert.equal(
        (await rejection(call)).violations.map((v) => v.field),
        ['totp_code'],
        'limits and rolls need a code too',
      );
    }
    assert.equal(
      (await rejection(holder.createApiKey({ sessionToken: token, totpCode: code }))).violations.map((v) => v.field),
      ['totp_code'],
      'not twice',
    );

    // With the code in the first call, sign-in takes one step.
    clock.advance(30_000);
    const oneStep = await holder.signIn({
      email: me.email,
      password: PASSWORD,
      totpCode: totpCode(setupAnswer.secret, now()),
      clientIp: '198.51.100.1',
    });
    assert.is(oneStep.outcome, SignInOutcome.SIGNED_IN);
    clock.advance(30_000);
    const off = await holder.disableTotp({ sessionToken: token, totpCode: totpCode(setupAnswer.secret, now()) });
    assert.is(off.user!.totpEnabled, false);
    assert.is(
      (await holder.signIn({ email: me.email, password: PASSWORD, clientIp: '198.51.100.1' })).outcome,
      SignInOutcome.SIGNED_IN,
    );
  },
);

const reads = suite('holder: prices, history, statement, overview');
reads.before(setup);
reads.after(teardown);

reads('prices are the very numbers the API charges this account', async () => {
  const { accountId, publicKey, secretKey } = await core.createApiAccount({ balanceKobo: 5_000_000 });
  const owner = await signedIn(accountId);
  const prices = await holder.getPrices({ sessionToken: owner.token });
  assert.is(prices.tierId, 'api');
  const keysPair = { publicKey, secretKey };

  const mtn = prices.airtime.find((p) => p.service === 'mtn')!;
  const airtime = await gateway.request({
    query: { action: 'airtime' },
    keys: keysPair,
    body: { network: 'mtn', phone: '08031234567', amount: 1000 },
  });
  assert.is(airtime.status, 200, airtime.text);
  const airtimeTx = await core.purchase.getTransaction({ accountId, reference: airtime.json.reference });
  assert.is(
    airtimeTx.transaction!.chargedKobo,
    mtn.examplePriceKobo,
    'airtime at the example face value of 1,000 Naira',
  );

  const apiPlans = await core.purchase.listPlans({ accountId, network: '' });
  const byId = (a: readonly bigint[], b: readonly bigint[]) => Number(a[0]! - b[0]!);
  assert.equal(
    prices.dataPlans.map((p) => [p.planId, p.priceKobo]).sort(byId),
    apiPlans.plans.map((p) => [p.planId, p.priceKobo]).sort(byId),
    'the same plans at the same prices as the API',
  );
  // Listed MTN, Airtel, Glo, 9mobile/T2, the cheapest first within a network.
  const order = ['mtn', 'airtel', 'glo', '9mobile'];
  const listed = prices.dataPlans.map((p) => [order.indexOf(p.network), Number(p.priceKobo)] as const);
  assert.equal([...new Set(listed.map(([rank]) => rank))], [0, 1, 2, 3], 'every network, in that order');
  for (let i = 1; i < listed.length; i++) {
    const [rank, price] = listed[i]!;
    const [prevRank, prevPrice] = listed[i - 1]!;
    assert.ok(
      rank > prevRank || (rank === prevRank && price >= prevPrice),
      `plan ${i} is in order: ${JSON.stringify(listed)}`,
    );
  }
  const plan = prices.dataPlans[0]!;
  const data = await core.purchase.buyData({
    accountId,
    planId: plan.planId,
    phone: '08031234567',
    requestId: 'price-data',
  });
  assert.is(data.transaction!.chargedKobo, plan.priceKobo);

  const apiPackages = await core.purchase.listPackages({ accountId, provider: '' });
  assert.equal(
    prices.cablePackages.map((p) => [p.provider, p.packageCode, p.priceKobo]),
    apiPackages.packages.map((p) => [p.provider, p.packageCode, p.priceKobo]),
  );

  const ikedc = prices.electricity.find((p) => p.service === 'ikedc')!;
  const power = await core.purchase.payElectricity({
    accountId,
    disco: 'ikedc',
    meterNumber: '12345678901',
    meterType: 'prepaid',
    amountKobo: ikedc.exampleFaceValueKobo,
    requestId: 'price-power',
  });
  assert.is(power.transaction!.chargedKobo, ikedc.examplePriceKobo);

  const sms = await core.purchase.sendBulkSms({
    accountId,
    sender: 'Shop',
    recipients: ['08031234567'],
    message: 'hello',
    requestId: 'price-sms',
  });
  assert.is(sms.transaction!.chargedKobo, prices.smsPagePriceKobo);
});

reads(
  'transactions filter by product, status, dates, recipient, reference and request id, in keyset pages',
  async () => {
    const { accountId } = await core.createApiAccount({ balanceKobo: 10_000_000 });
    const other = await core.createApiAccount({ balanceKobo: 100_000 });
    const owner = await signedIn(accountId);
    const refs: string[] = [];
    for (let i = 0; i < 7; i++) {
      const phone = i % 2 === 0 ? '08031110000' : '08032220000';
      const bought = await core.purchase.buyAirtime({
        accountId,
        network: 'mtn',
        phone,
        amountKobo: 10_000n,
        requestId: `air-${i}`,
      });
      refs.push(bought.transaction!.reference);
      clock.advance(MINUTE);
    }
    clock.advance(24 * 60 * MINUTE);
    const data = await core.purchase.buyData({ accountId, planId: 1n, phone: '08031110000', requestId: 'data-1' });
    refs.push(data.transaction!.reference);
    // A day later the first session has ended; sign in again.
    const t = (await holder.signIn({ email: owner.email, password: PASSWORD, clientIp: '198.51.100.1' })).sessionToken;
    await core.purchase.buyAirtime({
      accountId: other.accountId,
      network: 'mtn',
      phone: '08031110000',
      amountKobo: 10_000n,
      requestId: 'theirs',
    });

    const all = async (filter: Record<string, unknown> = {}, pageSize = 3) => {
      const seen: string[] = [];
      let pageToken = '';
      do {
        const page = await holder.listTransactions({ sessionToken: t, filter, pageSize, pageToken });
        assert.ok(page.transactions.length <= pageSize);
        seen.push(...page.transactions.map((tx) => tx.reference));
        pageToken = page.nextPageToken;
      } while (pageToken);
      return seen;
    };
    const newestFirst = [...refs].reverse();
    assert.equal(await all(), newestFirst);
    assert.equal(await all({}, 1), newestFirst);
    assert.equal(await all({ product: Product.DATA }), [data.transaction!.reference]);
    assert.equal(await all({ product: Product.AIRTIME, recipient: '08032220000' }), [refs[5], refs[3], refs[1]]);
    assert.equal(await all({ reference: refs[2] }), [refs[2]]);
    assert.equal(await all({ requestId: 'air-4' }), [refs[4]]);
    assert.equal(await all({ status: TransactionStatus.SUCCESS }), newestFirst);
    assert.equal(await all({ status: TransactionStatus.FAILED }), []);
    const lagosDay = (ms: number) => new Date(ms + 3_600_000).toISOString().slice(0, 10);
    assert.equal(await all({ fromDate: lagosDay(clock.now), toDate: lagosDay(clock.now) }), [
      data.transaction!.reference,
    ]);
    assert.equal(await all({ toDate: lagosDay(clock.now - 24 * 60 * MINUTE) }), newestFirst.slice(1));
    const badDate = await rejection(holder.listTransactions({ sessionToken: t, filter: { fromDate: '2025-02-30' } }));
    assert.equal(
      badDate.violations.map((v) => v.field),
      ['filter.from_date'],
    );
    const badSize = await rejection(holder.listTransactions({ sessionToken: t, pageSize: 501 }));
    assert.equal(
      badSize.violations.map((v) => v.field),
      ['page_size'],
    );
    const badToken = await rejection(holder.listTransactions({ sessionToken: t, pageToken: 'forged' }));
    assert.equal(
      badToken.violations.map((v) => v.field),
      ['page_token'],
    );

    const one = await holder.getTransaction({ sessionToken: t, reference: refs[0]! });
    assert.is(one.transaction!.reference, refs[0]);
    const theirs = (await core.purchase.listTransactions({ accountId: other.accountId })).transactions[0]!;
    assert.is(
      (await rejection(holder.getTransaction({ sessionToken: t, reference: theirs.reference }))).code,
      Code.NotFound,
    );
  },
);

reads('an export reads a long history in bounded pages of 500, every row once, newest first', async () => {
  const { accountId } = await core.createApiAccount({ balanceKobo: 100_000_000 });
  const owner = await signedIn(accountId);
  // Written through the store's own reserve, as a year of purchases would have been.
  const total = 1_234;
  for (let i = 0; i < total; i++) {
    const result = await core.store.ledger.post({
      kind: 'reserve',
      tx: {
        reference: `EXP${String(i).padStart(6, '0')}`,
        accountId,
        mode: 'live',
        product: 'airtime',
        service: 'glo',
        recipient: '08051234567',
        faceValueKobo: kobo(5_000),
        chargedKobo: kobo(5_000),
        details: {},
        requestId: null,
        requestHash: null,
        nextAttemptAt: new Date(clock.now + 86_400_000),
        createdAt: new Date(clock.now - (total - i) * 60_000),
      },
    });
    assert.is(result.outcome, 'reserved');
  }
  const seen: string[] = [];
  let pages = 0;
  let pageToken = '';
  do {
    const page = await holder.listTransactions({
      sessionToken: owner.token,
      pageSize: 500,
      pageToken,
      filter: { product: Product.AIRTIME },
    });
    pages += 1;
    seen.push(...page.transactions.map((tx) => tx.reference));
    pageToken = page.nextPageToken;
  } while (pageToken);
  assert.is(pages, 3);
  assert.is(seen.length, total);
  assert.is(new Set(seen).size, total);
  assert.is(seen[0], `EXP${String(total - 1).padStart(6, '0')}`);

  const statement: bigint[] = [];
  pageToken = '';
  do {
    const page = await holder.listStatement({ sessionToken: owner.token, pageSize: 500, pageToken });
    statement.push(...page.entries.map((e) => e.balanceAfterKobo));
    pageToken = page.nextPageToken;
  } while (pageToken);
  assert.is(statement.length, total + 1, 'every debit and the opening credit');
  assert.is(statement[0], 100_000_000n - BigInt(total) * 5_000n, 'newest first, with the running balance');

  const overview = await holder.getOverview({ sessionToken: owner.token });
  assert.is(overview.pendingCount, BigInt(total));
  assert.is(overview.balanceKobo, 100_000_000n - BigInt(total) * 5_000n);
});

reads('the overview counts today, this month and 30 Lagos days of spend per product, refunds left out', async () => {
  const { accountId } = await core.createApiAccount({ balanceKobo: 1_000_000 });
  const owner = await signedIn(accountId);
  await core.purchase.buyAirtime({
    accountId,
    network: 'mtn',
    phone: '08031234567',
    amountKobo: 10_000n,
    requestId: 'ov-1',
  });
  await core.purchase.buyData({ accountId, planId: 1n, phone: '08031234567', requestId: 'ov-2' });
  const overview = await holder.getOverview({ sessionToken: owner.token });
  assert.is(overview.daily.length, 30);
  const today = overview.daily[29]!;
  assert.is(today.date, new Date(clock.now + 3_600_000).toISOString().slice(0, 10));
  const charged = (await core.purchase.listTransactions({ accountId })).transactions.reduce(
    (sum, tx) => sum + tx.chargedKobo,
    0n,
  );
  assert.is(today.totalKobo, charged);
  assert.is(overview.todaySpentKobo, charged);
  assert.ok(overview.monthSpentKobo >= charged);
  assert.equal(today.products.map((p) => p.product).sort(), [Product.AIRTIME, Product.DATA]);
  assert.is(overview.daily[0]!.totalKobo, 0n);
  assert.is(overview.pendingCount, 0n);
});

invitations.run();
sessions.run();
roles.run();
keys.run();
reads.run();

const testMode = suite('holder: test mode');
testMode.before(setup);
testMode.after(teardown);

const json = (value: unknown) => JSON.stringify(value, (_, v) => (typeof v === 'bigint' ? String(v) : v));

testMode(
  'an owner adds test money (never live), makes a test key, buys with it, and reads only test data in test mode',
  async () => {
    const { accountId, publicKey } = await core.createApiAccount({ balanceKobo: 250_000 });
    const owner = await signedIn(accountId);
    const t = owner.token;
    const liveBefore = await holder.getOverview({ sessionToken: t });
    const liveStatementBefore = (await holder.listStatement({ sessionToken: t })).entries;

    const added = await holder.addTestFunds({ sessionToken: t, amountKobo: 500_000n, reference: 'form-0001-abcdef' });
    assert.equal(
      [added.balanceKobo, added.replayed, added.entry!.mode, added.entry!.kind, added.entry!.amountKobo],
      [500_000n, false, Mode.TEST, 'credit', 500_000n],
    );
    assert.ok(added.entry!.memo.includes(owner.email), 'the memo says who added it');
    const again = await holder.addTestFunds({ sessionToken: t, amountKobo: 500_000n, reference: 'form-0001-abcdef' });
    assert.equal(
      [again.balanceKobo, again.replayed, again.entry!.entryId],
      [500_000n, true, added.entry!.entryId],
      'a resubmitted form credits once',
    );
    const edited = await rejection(
      holder.addTestFunds({ sessionToken: t, amountKobo: 700_000n, reference: 'form-0001-abcdef' }),
    );
    assert.is(edited.reason, 'FAILED_PRECONDITION');

    const testOverview = await holder.getOverview({ sessionToken: t, mode: Mode.TEST });
    assert.equal([testOverview.mode, testOverview.balanceKobo], [Mode.TEST, 500_000n]);
    const liveAfterCredit = await holder.getOverview({ sessionToken: t });
    assert.equal(
      [liveAfterCredit.mode, liveAfterCredit.balanceKobo],
      [Mode.LIVE, liveBefore.balanceKobo],
      'the live wallet is untouched',
    );

    const created = await holder.createApiKey({ sessionToken: t, mode: Mode.TEST });
    const pair = { publicKey: created.issuedKey!.publicKey, secretKey: created.issuedKey!.secretKey };
    assert.match(pair.publicKey, /^pk_test_/);
    assert.match(pair.secretKey, /^sk_test_/);
    assert.is(created.key!.mode, Mode.TEST);
    const testKeys = (await holder.listApiKeys({ sessionToken: t, mode: Mode.TEST })).keys;
    assert.equal(
      testKeys.map((k) => [k.publicKey, k.mode]),
      [[pair.publicKey, Mode.TEST]],
    );
    const liveKeys = (await holder.listApiKeys({ sessionToken: t })).keys;
    assert.equal(
      liveKeys.map((k) => [k.publicKey, k.mode]),
      [[publicKey, Mode.LIVE]],
      'the live list has no test key',
    );
    assert.not.ok(json(testKeys).includes(pair.secretKey));

    const bought = await gateway.request({
      query: { action: 'airtime' },
      keys: pair,
      body: { network: 'mtn', phone: '08031234567', amount: 100 },
    });
    assert.is(bought.status, 200, bought.text);
    const reference = bought.json.reference as string;
    const charged = BigInt(Math.round(Number(bought.json.charged) * 100));

    const testList = (await holder.listTransactions({ sessionToken: t, mode: Mode.TEST })).transactions;
    assert.equal(
      testList.map((x) => [x.reference, x.livemode]),
      [[reference, false]],
    );
    assert.is(
      (await holder.listTransactions({ sessionToken: t })).transactions.length,
      0,
      'no test purchase among live ones',
    );
    assert.is(
      (await holder.getTransaction({ sessionToken: t, reference, mode: Mode.TEST })).transaction!.reference,
      reference,
    );
    assert.is(
      (await rejection(holder.getTransaction({ sessionToken: t, reference }))).code,
      Code.NotFound,
      'a test reference is not found live',
    );

    const testStatement = (await holder.listStatement({ sessionToken: t, mode: Mode.TEST })).entries;
    assert.equal(
      testStatement.map((e) => [e.kind, e.mode]),
      [
        ['debit', Mode.TEST],
        ['credit', Mode.TEST],
      ],
    );
    assert.is(testStatement[0]!.amountKobo, -charged, 'the test wallet paid what the API said it charged');
    assert.is(testStatement[0]!.balanceAfterKobo, 500_000n + testStatement[0]!.amountKobo);
    assert.equal(
      (await holder.listStatement({ sessionToken: t })).entries,
      liveStatementBefore,
      'the live statement is unchanged',
    );
    const liveAfter = await holder.getOverview({ sessionToken: t });
    assert.equal(
      [liveAfter.balanceKobo, liveAfter.todaySpentKobo],
      [liveBefore.balanceKobo, 0n],
      'live balance and spend unchanged to the kobo',
    );
    const testAfter = await holder.getOverview({ sessionToken: t, mode: Mode.TEST });
    assert.is(testAfter.todaySpentKobo, -testStatement[0]!.amountKobo);

    const feed = await gateway.request({ query: { action: 'events', limit: '100' }, keys: pair });
    assert.is(feed.status, 200, feed.text);
    const credited = (feed.json.events as { type: string; livemode: boolean }[]).filter(
      (e) => e.type === 'wallet.credited',
    );
    assert.equal(
      credited.map((e) => e.livemode),
      [false],
      'one wallet.credited test event for the credit and its replay',
    );
  },
);

testMode(
  'test funds are bounded, need a reference of the form and an owner; another account is never reached',
  async () => {
    const { accountId } = await core.createApiAccount();
    const other = await core.createApiAccount();
    const owner = await signedIn(accountId);
    const t = owner.token;
    const fields = async (amountKobo: bigint, reference: string) =>
      (await rejection(holder.addTestFunds({ sessionToken: t, amountKobo, reference }))).violations.map((v) => [
        v.field,
        v.description,
      ]);
    const tooMuch = await fields(100_000_001n, 'form-0002-abcdef');
    assert.equal(
      tooMuch.map(([f]) => f),
      ['amount_kobo'],
    );
    assert.match(tooMuch[0]![1]!, /At most ₦1,000,000\.00/);
    assert.equal(
      (await fields(0n, 'form-0002-abcdef')).map(([f]) => f),
      ['amount_kobo'],
    );
    assert.equal(
      (await fields(-5n, 'form-0002-abcdef')).map(([f]) => f),
      ['amount_kobo'],
    );
    assert.equal(
      (await fields(100n, 'short')).map(([f]) => f),
      ['reference'],
    );
    assert.equal(
      (await fields(100n, 'has space in it')).map(([f]) => f),
      ['reference'],
    );
    const max = await holder.addTestFunds({ sessionToken: t, amountKobo: 100_000_000n, reference: 'form-0003-abcdef' });
    assert.is(max.balanceKobo, 100_000_000n, 'exactly the bound is accepted');
    assert.is((await holder.getOverview({ sessionToken: t, mode: Mode.TEST })).balanceKobo, 100_000_000n);
    assert.is((await holder.getOverview({ sessionToken: t })).balanceKobo, 0n);
    const otherOwner = await signedIn(other.accountId);
    assert.is(
      (await holder.getOverview({ sessionToken: otherOwner.token, mode: Mode.TEST })).balanceKobo,
      0n,
      'the same reference in another account is its own',
    );
    const unauthenticated = await rejection(
      holder.addTestFunds({ sessionToken: 'nope', amountKobo: 100n, reference: 'form-0004-abcdef' }),
    );
    assert.is(unauthenticated.code, Code.Unauthenticated);
    const viewer = await signedIn(accountId, UserRole.VIEWER);
    assert.is(
      (
        await rejection(
          holder.addTestFunds({ sessionToken: viewer.token, amountKobo: 100n, reference: 'form-0005-abcdef' }),
        )
      ).code,
      Code.PermissionDenied,
    );
    assert.is(
      (await holder.getOverview({ sessionToken: viewer.token, mode: Mode.TEST })).balanceKobo,
      100_000_000n,
      'the viewer changed nothing, and reads test mode',
    );
  },
);
testMode.run();
