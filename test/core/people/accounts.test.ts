/**
 * One person in several accounts, over a real core on port 0 with real gRPC clients: an
 * invitation to an email that signs in elsewhere answers exactly as any other, the person
 * joins with the password they have, one sign-in reaches every account through the switcher,
 * each account's role is its own, a membership disabled in one account leaves the others, a
 * disabled member invited again comes back, and waiting invitations are listed and revoked.
 */
import { Code } from '@connectrpc/connect';
import * as assert from 'uvu/assert';
import { HolderService, SignInOutcome, UserAdminService, UserRole } from '../../../gen/prepaid/v1/holder_pb.js';
import { startCore, type TestCore } from '../../helpers/core.js';
import { suite } from '../../helpers/suite.js';
import { rejection } from '../rpc/support.js';

const PASSWORD = 'correct horse battery';
const ADDRESS = '198.51.100.7';

let core: TestCore;
let holder: ReturnType<typeof holderClient>;
let admin: ReturnType<typeof adminClient>;
const holderClient = () => core.clientWithToken(HolderService, core.serviceToken);
const adminClient = () => core.clientWithToken(UserAdminService, core.adminToken);

/**
 * A clock that moves only when a new account is made, so two invitations made one after the
 * other expire at the same instant, and memberships of later accounts are later.
 */
let now = Date.UTC(2026, 0, 5, 9, 0, 0);

let sequence = 0;
function newEmail(): string {
  sequence += 1;
  return `member${sequence}@example.com`;
}

async function signIn(email: string): Promise<string> {
  const answer = await holder.signIn({ email, password: PASSWORD, clientIp: ADDRESS });
  assert.is(answer.outcome, SignInOutcome.SIGNED_IN, `${email} signs in`);
  return answer.sessionToken;
}

/** A new account with a new owner, signed in. */
async function accountWithOwner(name: string) {
  now += 1000;
  const { accountId } = await core.createApiAccount({ name });
  const email = newEmail();
  const { invitation } = await admin.inviteUser({ accountId, email, role: UserRole.OWNER });
  await holder.acceptInvitation({ invitationToken: invitation!.invitationToken, password: PASSWORD });
  return { accountId, email, token: await signIn(email) };
}

/** Everything of an invitation answer but what differs by nature (email, token, link). */
function shape(invitation: { email: string; invitationToken: string; inviteUrl: string } & Record<string, unknown>) {
  const { email, invitationToken, inviteUrl, $typeName, ...rest } = invitation;
  return {
    ...rest,
    fields: Object.keys(invitation).sort(),
    tokenLength: invitationToken.length,
    link: inviteUrl.replace(invitationToken, 'TOKEN'),
    email: email.length > 0,
    $typeName,
  };
}

const people = suite('people: one person in several accounts');
people.before(async () => {
  core = await startCore({ clock: () => new Date(now), dashboardPublicUrl: 'https://dash.example.com' });
  holder = holderClient();
  admin = adminClient();
});
people.after(async () => {
  await core.close();
});

people(
  'inviting an email of another account answers as for a new one; the person joins with their password',
  async () => {
    const ada = await accountWithOwner('Ada Stores');
    const bayo = await accountWithOwner('Bayo Telecoms');
    const known = (await holder.inviteUser({ sessionToken: bayo.token, email: ada.email, role: UserRole.VIEWER }))
      .invitation!;
    const fresh = (await holder.inviteUser({ sessionToken: bayo.token, email: newEmail(), role: UserRole.VIEWER }))
      .invitation!;
    assert.equal(shape(known as never), shape(fresh as never), 'the inviter sees no difference');
    assert.equal(
      (await holder.listInvitations({ sessionToken: bayo.token })).invitations.map((one) => one.email).sort(),
      [ada.email, fresh.email].sort(),
    );

    // The link's holder (the email's owner) is asked for the password they have.
    assert.is((await holder.getInvitation({ invitationToken: known.invitationToken })).hasPassword, true);
    assert.is((await holder.getInvitation({ invitationToken: fresh.invitationToken })).hasPassword, false);
    const wrong = await rejection(
      holder.acceptInvitation({
        invitationToken: known.invitationToken,
        password: 'a brand new password',
        clientIp: ADDRESS,
      }),
    );
    assert.equal([wrong.code, wrong.violations.map((v) => v.field)], [Code.InvalidArgument, ['password']]);
    const { user } = await holder.acceptInvitation({
      invitationToken: known.invitationToken,
      password: PASSWORD,
      clientIp: ADDRESS,
    });
    assert.equal([user!.email, user!.accountId, user!.role], [ada.email, bayo.accountId, UserRole.VIEWER]);
    assert.is(
      (await holder.signIn({ email: ada.email, password: 'a brand new password', clientIp: ADDRESS })).outcome,
      SignInOutcome.INVALID_CREDENTIALS,
      'the password did not change',
    );

    // One sign-in; the oldest account first, the other one step away.
    const token = await signIn(ada.email);
    const session = await holder.getSession({ sessionToken: token });
    assert.is(session.session!.accountName, 'Ada Stores');
    assert.equal(
      session.accounts.map((one) => [one.name, one.role]),
      [
        ['Ada Stores', UserRole.OWNER],
        ['Bayo Telecoms', UserRole.VIEWER],
      ],
    );
    const switched = await holder.switchAccount({ sessionToken: token, accountId: bayo.accountId });
    assert.equal([switched.session!.accountName, switched.session!.user!.role], ['Bayo Telecoms', UserRole.VIEWER]);
    assert.equal(
      (await holder.listUsers({ sessionToken: token })).users.map((one) => one.email).sort(),
      [bayo.email, ada.email].sort(),
      "the session reads the new account's people",
    );
    const denied = await rejection(
      holder.inviteUser({ sessionToken: token, email: newEmail(), role: UserRole.VIEWER }),
    );
    assert.is(denied.code, Code.PermissionDenied, 'a viewer in this account, whatever they are elsewhere');
    await holder.switchAccount({ sessionToken: token, accountId: ada.accountId });
    assert.ok((await holder.inviteUser({ sessionToken: token, email: newEmail(), role: UserRole.VIEWER })).invitation);

    const stranger = await accountWithOwner('Chidi Ventures');
    for (const accountId of [stranger.accountId, 'acc_nobody', '']) {
      const refused = await rejection(holder.switchAccount({ sessionToken: token, accountId }));
      assert.is(refused.code, Code.NotFound, `no switch to ${accountId || '(empty)'}`);
    }
    assert.is((await holder.getSession({ sessionToken: token })).session!.accountName, 'Ada Stores');
  },
);

people('a membership disabled in one account leaves the others; re-invited, the person comes back', async () => {
  const home = await accountWithOwner('Home Ltd');
  const shop = await accountWithOwner('Shop Ltd');
  const { invitation } = await holder.inviteUser({
    sessionToken: shop.token,
    email: home.email,
    role: UserRole.VIEWER,
  });
  const { user } = await holder.acceptInvitation({ invitationToken: invitation!.invitationToken, password: PASSWORD });
  const inShop = await signIn(home.email);
  await holder.switchAccount({ sessionToken: inShop, accountId: shop.accountId });

  const again = await rejection(
    holder.inviteUser({ sessionToken: shop.token, email: home.email, role: UserRole.OWNER }),
  );
  assert.is(again.reason, 'FAILED_PRECONDITION', 'an active member of this account is a plain refusal');

  const { user: off } = await holder.disableUser({ sessionToken: shop.token, userId: user!.userId });
  assert.equal([off!.disabled, off!.accountId], [true, shop.accountId]);
  assert.is((await rejection(holder.getSession({ sessionToken: inShop }))).code, Code.Unauthenticated);
  assert.is(
    (await holder.getSession({ sessionToken: home.token })).session!.accountName,
    'Home Ltd',
    'the session in the other account goes on',
  );
  const back = await signIn(home.email);
  assert.equal(
    (await holder.getSession({ sessionToken: back })).accounts.map((one) => one.name),
    ['Home Ltd'],
  );
  assert.is(
    (await rejection(holder.switchAccount({ sessionToken: back, accountId: shop.accountId }))).code,
    Code.NotFound,
  );

  const reinvited = await holder.inviteUser({ sessionToken: shop.token, email: home.email, role: UserRole.OWNER });
  await holder.acceptInvitation({ invitationToken: reinvited.invitation!.invitationToken, password: PASSWORD });
  const member = (await holder.listUsers({ sessionToken: shop.token })).users.find((one) => one.email === home.email);
  assert.equal([member?.disabled, member?.role], [false, UserRole.OWNER]);
  const switched = await holder.switchAccount({ sessionToken: back, accountId: shop.accountId });
  assert.is(switched.session!.user!.role, UserRole.OWNER);
  assert.ok((await holder.inviteUser({ sessionToken: back, email: newEmail(), role: UserRole.VIEWER })).invitation);

  // The operator's disable shuts the person out of every account.
  await admin.disableUser({ userId: user!.userId });
  assert.is(
    (await holder.signIn({ email: home.email, password: PASSWORD, clientIp: ADDRESS })).outcome,
    SignInOutcome.INVALID_CREDENTIALS,
  );
  assert.is((await rejection(holder.getSession({ sessionToken: home.token }))).code, Code.Unauthenticated);
});

people("a call made for the account a session acted for before its switch is refused, naming today's", async () => {
  const ada = await accountWithOwner('Ada Form Ltd');
  const bayo = await accountWithOwner('Bayo Form Ltd');
  const { invitation } = await holder.inviteUser({ sessionToken: bayo.token, email: ada.email, role: UserRole.OWNER });
  await holder.acceptInvitation({ invitationToken: invitation!.invitationToken, password: PASSWORD });
  await holder.switchAccount({ sessionToken: ada.token, accountId: bayo.accountId });
  const refused = await rejection(
    holder.inviteUser({
      sessionToken: ada.token,
      email: newEmail(),
      role: UserRole.VIEWER,
      formAccountId: ada.accountId,
    }),
  );
  assert.equal(
    [refused.code, refused.reason, refused.metadata],
    [
      Code.FailedPrecondition,
      'FAILED_PRECONDITION',
      { active_account_id: bayo.accountId, active_account_name: 'Bayo Form Ltd' },
    ],
  );
  assert.match(refused.message, 'Nothing was done');
  assert.equal((await holder.listInvitations({ sessionToken: ada.token })).invitations, []);
  // Made for the account the session acts for now, or naming none, the same call goes through.
  await holder.inviteUser({
    sessionToken: ada.token,
    email: newEmail(),
    role: UserRole.VIEWER,
    formAccountId: bayo.accountId,
  });
  await holder.inviteUser({ sessionToken: ada.token, email: newEmail(), role: UserRole.VIEWER });
  assert.is((await holder.listInvitations({ sessionToken: ada.token })).invitations.length, 2);
});

people('waiting invitations are listed with who invited; an owner revokes one and its link works no more', async () => {
  const owner = await accountWithOwner('Listed Ltd');
  const email = newEmail();
  const first = await holder.inviteUser({ sessionToken: owner.token, email, role: UserRole.VIEWER });
  const second = await holder.inviteUser({ sessionToken: owner.token, email, role: UserRole.OWNER });
  const { invitations } = await holder.listInvitations({ sessionToken: owner.token });
  assert.equal(
    invitations.map((one) => [one.email, one.role, one.invitedBy]),
    [[email, UserRole.OWNER, owner.email]],
    'the newer invitation of an email replaces the older',
  );
  assert.is(
    (await rejection(holder.getInvitation({ invitationToken: first.invitation!.invitationToken }))).code,
    Code.NotFound,
  );

  const viewerEmail = newEmail();
  const forViewer = await holder.inviteUser({ sessionToken: owner.token, email: viewerEmail, role: UserRole.VIEWER });
  await holder.acceptInvitation({ invitationToken: forViewer.invitation!.invitationToken, password: PASSWORD });
  const viewer = await signIn(viewerEmail);
  assert.equal(
    (await holder.listInvitations({ sessionToken: viewer })).invitations.map((one) => one.email),
    [email],
  );
  assert.is((await rejection(holder.revokeInvitation({ sessionToken: viewer, email }))).code, Code.PermissionDenied);

  await holder.revokeInvitation({ sessionToken: owner.token, email: ` ${email.toUpperCase()} ` });
  assert.equal((await holder.listInvitations({ sessionToken: owner.token })).invitations, []);
  const token = second.invitation!.invitationToken;
  const dead = await rejection(holder.acceptInvitation({ invitationToken: token, password: PASSWORD }));
  const unknown = await rejection(holder.acceptInvitation({ invitationToken: 'made-up-token', password: PASSWORD }));
  assert.equal([dead.code, dead.message], [unknown.code, unknown.message], 'a revoked link reads as any invalid one');
  assert.is((await rejection(holder.revokeInvitation({ sessionToken: owner.token, email }))).code, Code.NotFound);
  const other = await accountWithOwner('Other Ltd');
  const foreign = await holder.inviteUser({ sessionToken: other.token, email: newEmail(), role: UserRole.VIEWER });
  const cross = await rejection(
    holder.revokeInvitation({ sessionToken: owner.token, email: foreign.invitation!.email }),
  );
  assert.is(cross.code, Code.NotFound, "another account's invitation is out of reach");
  assert.ok(await holder.getInvitation({ invitationToken: foreign.invitation!.invitationToken }));
});

people.run();
