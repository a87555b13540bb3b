/**
 * The attacks on two-step sign-in and step-up codes, replayed over gRPC against a real core
 * on an injected clock: a signed-in session cannot put a new authenticator in place of the
 * owner's; wrong step-up codes are limited per person and per session (the sixth within the
 * minute is not even checked); sign-in failures count per IPv6 /64; inviting an owner needs a
 * code; a mistyped code during set-up keeps the secret just scanned.
 */
import { Code } from '@connectrpc/connect';
import * as assert from 'uvu/assert';
import { addressBudgetKey } from '../../../core/domain/addresses.js';
import { FREE_FAILURES_PER_USER_ADDRESS, STEP_UP_FAILURES_PER_MINUTE } from '../../../core/people/throttle.js';
import { newTotpSecret, totpCode } from '../../../core/people/totp.js';
import { HolderService, SignInOutcome, UserAdminService, UserRole } from '../../../gen/prepaid/v1/holder_pb.js';
import { startCore, type TestCore } from '../../helpers/core.js';
import { suite } from '../../helpers/suite.js';
import { rejection } from '../rpc/support.js';

const PASSWORD = 'correct horse battery';
const clock = {
  now: Date.UTC(2025, 5, 10, 9, 0, 0),
  advance(ms: number) {
    this.now += ms;
  },
};
const now = () => new Date(clock.now);

const test = suite<{ core: TestCore }>('people: step-up codes and two-step sign-in', {} as never);

test.before(async (context) => {
  context.core = await startCore({ clock: now });
});
test.after(async ({ core }) => core.close());

let sequence = 0;

/** An owner of a new account, signed in, with two-step sign-in on; the secret is returned. */
async function ownerWithTotp(core: TestCore) {
  const h = core.clientWithToken(HolderService, core.serviceToken);
  const u = core.clientWithToken(UserAdminService, core.adminToken);
  const { accountId } = await core.createApiAccount();
  sequence += 1;
  const email = `owner${sequence}@example.com`;
  const { invitation } = await u.inviteUser({ accountId, email, role: UserRole.OWNER });
  await h.acceptInvitation({ invitationToken: invitation!.invitationToken, password: PASSWORD });
  const signIn = await h.signIn({ email, password: PASSWORD, clientIp: '198.51.100.1' });
  const token = signIn.sessionToken;
  const { secret } = await h.beginTotpSetup({ sessionToken: token });
  const { recoveryCodes } = await h.confirmTotp({ sessionToken: token, totpCode: totpCode(secret, now()) });
  clock.advance(30_000);
  return { h, u, token, secret, email, accountId, recoveryCodes };
}

/** A 6-digit code that is not the right one now (nor one step either side). */
function wrongCode(secret: string): string {
  const near = new Set([-30_000, 0, 30_000].map((d) => totpCode(secret, new Date(clock.now + d))));
  for (let n = 0; ; n++) {
    const code = String(n).padStart(6, '0');
    if (!near.has(code)) return code;
  }
}

test('a signed-in session cannot replace the authenticator: set-up is refused while two-step sign-in is on', async ({
  core,
}) => {
  const { h, token, secret, email } = await ownerWithTotp(core);
  const begin = await rejection(h.beginTotpSetup({ sessionToken: token }));
  assert.is(begin.code, Code.FailedPrecondition);
  assert.match(begin.message, /turn it off with a current code first/);
  // A code of some other secret does not confirm anything either.
  const other = newTotpSecret();
  const confirm = await rejection(h.confirmTotp({ sessionToken: token, totpCode: totpCode(other, now()) }));
  assert.is(confirm.code, Code.FailedPrecondition);
  // The owner's own app still signs in.
  const signIn = await h.signIn({
    email,
    password: PASSWORD,
    totpCode: totpCode(secret, now()),
    clientIp: '198.51.100.1',
  });
  assert.is(signIn.outcome, SignInOutcome.SIGNED_IN);
});

test('the sixth wrong step-up code in a minute is refused unchecked, with a wait; per person, all sessions', async ({
  core,
}) => {
  const { h, token, secret, email } = await ownerWithTotp(core);
  for (let i = 0; i < STEP_UP_FAILURES_PER_MINUTE; i++) {
    const wrong = await rejection(h.disableTotp({ sessionToken: token, totpCode: wrongCode(secret) }));
    assert.match(wrong.violations[0]!.description, /not right/);
  }
  // The right code now: not checked, so not accepted either.
  const sixth = await rejection(h.createApiKey({ sessionToken: token, totpCode: totpCode(secret, now()) }));
  assert.equal(
    sixth.violations.map((v) => v.field),
    ['totp_code'],
  );
  assert.match(sixth.violations[0]!.description, /^Too many wrong codes\. Wait \d+ seconds/);
  // A second session of the same person is held to the same budget.
  clock.advance(30_000);
  const again = await h.signIn({
    email,
    password: PASSWORD,
    totpCode: totpCode(secret, now()),
    clientIp: '198.51.100.1',
  });
  assert.is(again.outcome, SignInOutcome.SIGNED_IN);
  clock.advance(1_000);
  const other = await rejection(
    h.createApiKey({ sessionToken: again.sessionToken, totpCode: totpCode(secret, now()) }),
  );
  assert.match(other.violations[0]!.description, /^Too many wrong codes/);
  // A minute after the first failures, the right code works again.
  clock.advance(60_000);
  const made = await h.createApiKey({ sessionToken: token, totpCode: totpCode(secret, now()) });
  assert.match(made.issuedKey!.secretKey, /^sk_/);
});

test('sign-in failures count per IPv6 /64: addresses of one network share one budget', async ({ core }) => {
  const h = core.clientWithToken(HolderService, core.serviceToken);
  const u = core.clientWithToken(UserAdminService, core.adminToken);
  const { accountId } = await core.createApiAccount();
  const { invitation } = await u.inviteUser({ accountId, email: 'slash64@example.com', role: UserRole.OWNER });
  await h.acceptInvitation({ invitationToken: invitation!.invitationToken, password: PASSWORD });
  for (let i = 1; i <= FREE_FAILURES_PER_USER_ADDRESS; i++) {
    const failed = await h.signIn({
      email: 'slash64@example.com',
      password: 'wrong password!',
      clientIp: `2001:db8:7:9::${i}`,
    });
    assert.is(failed.outcome, SignInOutcome.INVALID_CREDENTIALS);
  }
  const next = await h.signIn({ email: 'slash64@example.com', password: PASSWORD, clientIp: '2001:db8:7:9:ffff::99' });
  assert.is(next.outcome, SignInOutcome.THROTTLED, 'a new address of the same /64 is not a fresh budget');
  const elsewhere = await h.signIn({ email: 'slash64@example.com', password: PASSWORD, clientIp: '2001:db8:7:a::1' });
  assert.is(elsewhere.outcome, SignInOutcome.SIGNED_IN, 'another /64 is not slowed');
  assert.is(addressBudgetKey('2001:db8:7:9::1'), addressBudgetKey('2001:0db8:0007:0009:ffff:0:0:99'));
});

test('inviting an owner needs a step-up code when two-step sign-in is on; a viewer does not', async ({ core }) => {
  const { h, token, secret } = await ownerWithTotp(core);
  const without = await rejection(
    h.inviteUser({ sessionToken: token, email: 'new-owner@example.com', role: UserRole.OWNER }),
  );
  assert.equal(
    without.violations.map((v) => v.field),
    ['totp_code'],
  );
  const invited = await h.inviteUser({
    sessionToken: token,
    email: 'new-owner@example.com',
    role: UserRole.OWNER,
    totpCode: totpCode(secret, now()),
  });
  assert.is(invited.invitation!.role, UserRole.OWNER);
  const viewer = await h.inviteUser({ sessionToken: token, email: 'new-viewer@example.com', role: UserRole.VIEWER });
  assert.is(viewer.invitation!.role, UserRole.VIEWER);
});

test('a mistyped code during set-up keeps the secret just scanned, and the message says so', async ({ core }) => {
  const h = core.clientWithToken(HolderService, core.serviceToken);
  const u = core.clientWithToken(UserAdminService, core.adminToken);
  const { accountId } = await core.createApiAccount();
  const { invitation } = await u.inviteUser({ accountId, email: 'mistype@example.com', role: UserRole.OWNER });
  await h.acceptInvitation({ invitationToken: invitation!.invitationToken, password: PASSWORD });
  const { sessionToken } = await h.signIn({
    email: 'mistype@example.com',
    password: PASSWORD,
    clientIp: '198.51.100.1',
  });
  const first = await h.beginTotpSetup({ sessionToken });
  const wrong = await rejection(h.confirmTotp({ sessionToken, totpCode: wrongCode(first.secret) }));
  assert.match(wrong.violations[0]!.description, /the same as before/);
  const shownAgain = await h.beginTotpSetup({ sessionToken, keepPending: true });
  assert.is(shownAgain.secret, first.secret);
  const confirmed = await h.confirmTotp({ sessionToken, totpCode: totpCode(first.secret, now()) });
  assert.is(confirmed.user!.totpEnabled, true);
});

test('a password change needs the current password and a code; other sessions end, the new password signs in', async ({
  core,
}) => {
  const { h, token, secret, email } = await ownerWithTotp(core);
  const other = await h.signIn({
    email,
    password: PASSWORD,
    totpCode: totpCode(secret, now()),
    clientIp: '198.51.100.2',
  });
  assert.is(other.outcome, SignInOutcome.SIGNED_IN);
  clock.advance(30_000);
  const wrong = await rejection(
    h.changePassword({
      sessionToken: token,
      currentPassword: 'not my password',
      newPassword: 'a brand new passphrase',
      totpCode: totpCode(secret, now()),
    }),
  );
  assert.equal(
    wrong.violations.map((v) => v.field),
    ['current_password'],
  );
  const noCode = await rejection(
    h.changePassword({ sessionToken: token, currentPassword: PASSWORD, newPassword: 'a brand new passphrase' }),
  );
  assert.equal(
    noCode.violations.map((v) => v.field),
    ['totp_code'],
  );
  const short = await rejection(
    h.changePassword({
      sessionToken: token,
      currentPassword: PASSWORD,
      newPassword: 'short',
      totpCode: totpCode(secret, now()),
    }),
  );
  assert.equal(
    short.violations.map((v) => v.field),
    ['new_password'],
  );
  clock.advance(30_000);
  const changed = await h.changePassword({
    sessionToken: token,
    currentPassword: PASSWORD,
    newPassword: 'a brand new passphrase',
    totpCode: totpCode(secret, now()),
  });
  assert.match(changed.sessionToken, /^[A-Za-z0-9_-]{43}$/);
  for (const ended of [token, other.sessionToken])
    assert.is((await rejection(h.getSession({ sessionToken: ended }))).code, Code.Unauthenticated);
  assert.is((await h.getSession({ sessionToken: changed.sessionToken })).session!.user!.email, email);
  clock.advance(30_000);
  const old = await h.signIn({
    email,
    password: PASSWORD,
    totpCode: totpCode(secret, now()),
    clientIp: '198.51.100.1',
  });
  assert.is(old.outcome, SignInOutcome.INVALID_CREDENTIALS);
  const fresh = await h.signIn({
    email,
    password: 'a brand new passphrase',
    totpCode: totpCode(secret, now()),
    clientIp: '198.51.100.1',
  });
  assert.is(fresh.outcome, SignInOutcome.SIGNED_IN);
});

test('ten recovery codes at set-up: each signs in or steps up once, then not; two-step sign-in off ends them', async ({
  core,
}) => {
  const { h, token, email, recoveryCodes } = await ownerWithTotp(core);
  assert.is(recoveryCodes.length, 10);
  assert.is(new Set(recoveryCodes).size, 10);
  for (const code of recoveryCodes) assert.match(code, /^[a-z2-7]{5}-[a-z2-7]{5}$/);
  const kept = await core.store.people.findUserByEmail(email);
  assert.is(kept!.recoveryCodeHashes.length, 10);
  for (const code of recoveryCodes)
    assert.is(JSON.stringify(kept).includes(code.replace('-', '')), false, 'only hashes are stored');
  const [first, second, third] = recoveryCodes as [string, string, string];
  // At sign-in, in the second step, written loosely (upper case, no hyphen).
  const challenge = await h.signIn({ email, password: PASSWORD, clientIp: '198.51.100.1' });
  const signedIn = await h.completeSignIn({
    challengeToken: challenge.challengeToken,
    totpCode: first.toUpperCase().replace('-', ''),
    clientIp: '198.51.100.1',
  });
  assert.is(signedIn.outcome, SignInOutcome.SIGNED_IN);
  const again = await h.signIn({ email, password: PASSWORD, totpCode: first, clientIp: '198.51.100.1' });
  assert.is(again.outcome, SignInOutcome.INVALID_CREDENTIALS, 'a recovery code works once');
  // As a step-up code.
  const made = await h.createApiKey({ sessionToken: token, totpCode: second });
  assert.match(made.issuedKey!.secretKey, /^sk_/);
  const twice = await rejection(h.createApiKey({ sessionToken: token, totpCode: second }));
  assert.equal(
    twice.violations.map((v) => v.field),
    ['totp_code'],
  );
  // Turning two-step sign-in off with one; the rest end with it.
  const off = await h.disableTotp({ sessionToken: token, totpCode: third });
  assert.is(off.user!.totpEnabled, false);
  const stored = await core.store.people.findUserByEmail(email);
  assert.equal(stored!.recoveryCodeHashes, []);
});

test.run();
