/**
 * The recipient controls' RPCs of the developer area and the console, over real gRPC to a real
 * core: the core decides who may change them, whatever a page showed. An owner blocks, lifts a
 * block and sets limits for the session's account only; a viewer is refused; with two-step
 * sign-in on, lifting a block and changing the limits need a current code (blocking does not).
 * In the console every role reads the platform's list, only an admin changes it, a reason is
 * required, and each change is in the audit log with the member as the actor.
 */
import { Code } from '@connectrpc/connect';
import * as assert from 'uvu/assert';
import { HolderService, SignInOutcome, UserAdminService, UserRole } from '../../../gen/prepaid/v1/holder_pb.js';
import { startCore, type TestCore } from '../../helpers/core.js';
import { consoleClients, signedInStaff, TestClock } from '../../helpers/staff.js';
import { suite } from '../../helpers/suite.js';
import { rejection } from './support.js';

const PASSWORD = 'correct horse battery';
const test = suite('recipient controls: who may change them, checked by the core');
const clock = new TestClock();
let core: TestCore;
let holder: ReturnType<typeof holderClient>;
const holderClient = () => core.clientWithToken(HolderService, core.serviceToken);

test.before(async () => {
  core = await startCore({ clock: clock.now });
  holder = holderClient();
});
test.after(async () => {
  await core.close();
});

let sequence = 0;
async function person(accountId: string, role: UserRole) {
  sequence += 1;
  const email = `recipients${sequence}@example.com`;
  const users = core.clientWithToken(UserAdminService, core.adminToken);
  const { invitation } = await users.inviteUser({ accountId, email, role });
  await holder.acceptInvitation({ invitationToken: invitation!.invitationToken, password: PASSWORD });
  const signIn = await holder.signIn({ email, password: PASSWORD, clientIp: '198.51.100.7' });
  assert.is(signIn.outcome, SignInOutcome.SIGNED_IN);
  return { token: signIn.sessionToken, email };
}

test("an owner blocks for the session's account only, a viewer is refused every change", async () => {
  const { accountId } = await core.createApiAccount();
  const other = await core.createApiAccount();
  const owner = await person(accountId, UserRole.OWNER);
  const viewer = await person(accountId, UserRole.VIEWER);

  const { block } = await holder.blockRecipient({ sessionToken: owner.token, value: ' 08035551234 ', reason: 'x' });
  assert.equal([block?.accountId, block?.value, block?.blockedBy], [accountId, '08035551234', `owner:${owner.email}`]);
  const own = await core.admin.listRecipientBlocks({ accountId });
  assert.equal(
    own.blocks.map((b) => b.value),
    ['08035551234'],
  );
  assert.is((await core.admin.listRecipientBlocks({ accountId: other.accountId })).blocks.length, 0);
  assert.is((await core.admin.listRecipientBlocks({})).blocks.length, 0, "the platform's list is not touched");

  const seen = await holder.getRecipientControls({ sessionToken: viewer.token });
  assert.equal(
    seen.blocks.map((b) => b.value),
    ['08035551234'],
    'a viewer reads the list',
  );
  assert.is(seen.duplicateWindowSeconds, 30);
  for (const call of [
    holder.blockRecipient({ sessionToken: viewer.token, value: '08035559999' }),
    holder.unblockRecipient({ sessionToken: viewer.token, value: '08035551234' }),
    holder.setRecipientLimits({ sessionToken: viewer.token, perDayCount: 100 }),
  ]) {
    assert.is((await rejection(call)).code, Code.PermissionDenied);
  }
  assert.is((await holder.getRecipientControls({ sessionToken: owner.token })).perDayCount, 0, 'nothing changed');

  const set = await holder.setRecipientLimits({
    sessionToken: owner.token,
    perDayCount: 3,
    perDayKobo: 500_000n,
    duplicateGuard: true,
  });
  assert.equal([set.perDayCount, set.perDayKobo, set.duplicateGuard], [3, 500_000n, true]);
  const account = (await core.store.accounts.get(accountId))!;
  assert.equal(account.recipientControls, {
    blocklist: true,
    perDayCount: 3,
    perDayKobo: 500_000,
    duplicateGuard: true,
  });
  assert.is((await holder.unblockRecipient({ sessionToken: owner.token, value: '08035551234' })).removed, true);
  assert.is((await holder.unblockRecipient({ sessionToken: owner.token, value: '08035551234' })).removed, false);
});

test('bad values are refused by field, never a crash', async () => {
  const { accountId } = await core.createApiAccount();
  const owner = await person(accountId, UserRole.OWNER);
  const fieldOf = async (call: Promise<unknown>) => {
    const refused = await rejection(call);
    assert.is(refused.code, Code.InvalidArgument, refused.message);
    return refused.violations.map((v) => v.field);
  };
  assert.equal(await fieldOf(holder.blockRecipient({ sessionToken: owner.token, value: '' })), ['value']);
  assert.equal(await fieldOf(holder.blockRecipient({ sessionToken: owner.token, value: '0803-555' })), ['value']);
  assert.equal(
    await fieldOf(holder.blockRecipient({ sessionToken: owner.token, value: '08035551234', reason: 'x'.repeat(201) })),
    ['reason'],
  );
  assert.equal(await fieldOf(holder.setRecipientLimits({ sessionToken: owner.token, perDayCount: -1 })), [
    'per_day_count',
  ]);
  assert.equal(await fieldOf(holder.setRecipientLimits({ sessionToken: owner.token, perDayKobo: -1n })), [
    'per_day_naira',
  ]);
});

test('with two-step sign-in on, lifting a block and changing the limits need a current code; blocking does not', async () => {
  const { accountId } = await core.createApiAccount();
  const owner = await person(accountId, UserRole.OWNER);
  const setup = await holder.beginTotpSetup({ sessionToken: owner.token });
  await holder.confirmTotp({ sessionToken: owner.token, totpCode: clock.nextCode(setup.secret) });
  const first = await holder.signIn({ email: owner.email, password: PASSWORD, clientIp: '198.51.100.7' });
  const signedIn = await holder.completeSignIn({
    challengeToken: first.challengeToken,
    totpCode: clock.nextCode(setup.secret),
    clientIp: '198.51.100.7',
  });
  const token = signedIn.sessionToken;
  await holder.blockRecipient({ sessionToken: token, value: '08035552222' });

  const noCode = await rejection(holder.unblockRecipient({ sessionToken: token, value: '08035552222' }));
  assert.equal(
    noCode.violations.map((v) => v.field),
    ['totp_code'],
  );
  const limitsNoCode = await rejection(holder.setRecipientLimits({ sessionToken: token, perDayCount: 9 }));
  assert.equal(
    limitsNoCode.violations.map((v) => v.field),
    ['totp_code'],
  );
  assert.is((await holder.getRecipientControls({ sessionToken: token })).blocks.length, 1, 'still blocked');
  assert.is((await holder.getRecipientControls({ sessionToken: token })).perDayCount, 0, 'limits unchanged');

  await holder.setRecipientLimits({ sessionToken: token, perDayCount: 9, totpCode: clock.nextCode(setup.secret) });
  const unblocked = await holder.unblockRecipient({
    sessionToken: token,
    value: '08035552222',
    totpCode: clock.nextCode(setup.secret),
  });
  assert.is(unblocked.removed, true);
  assert.is((await holder.getRecipientControls({ sessionToken: token })).perDayCount, 9);
});

test("the platform's list: every role reads it, support and finance are refused changes, an admin's are audited", async () => {
  const { console } = consoleClients(core);
  const admin = await signedInStaff(core, clock, 'admin');
  const support = await signedInStaff(core, clock, 'support');
  const finance = await signedInStaff(core, clock, 'finance');
  const as = (member: { token: string }) => ({ sessionToken: member.token, clientAddress: '203.0.113.9' });

  for (const member of [support, finance]) {
    const refused = await rejection(
      console.blockPlatformRecipient({ ...as(member), value: '08035553333', reason: 'fraud reports' }),
    );
    assert.is(refused.code, Code.PermissionDenied, refused.message);
    assert.is(refused.reason, 'PERMISSION_DENIED');
  }
  assert.is((await core.admin.listRecipientBlocks({})).blocks.length, 0, 'nothing was blocked');

  const missingReason = await rejection(console.blockPlatformRecipient({ ...as(admin), value: '08035553333' }));
  assert.equal(
    missingReason.violations.map((v) => v.field),
    ['reason'],
  );
  const { block } = await console.blockPlatformRecipient({ ...as(admin), value: '08035553333', reason: 'fraud' });
  assert.equal([block?.accountId, block?.blockedBy], ['', `staff:${admin.email}`]);
  for (const member of [support, finance]) {
    const listed = await console.listPlatformBlocks(as(member));
    assert.equal(
      listed.blocks.map((b) => b.value),
      ['08035553333'],
    );
    const refused = await rejection(console.unblockPlatformRecipient({ ...as(member), value: '08035553333' }));
    assert.is(refused.code, Code.PermissionDenied);
  }
  // A second later, so the audit log's newest-first order is the order of the changes.
  clock.advance(1_000);
  assert.is((await console.unblockPlatformRecipient({ ...as(admin), value: '08035553333' })).removed, true);

  const { entries } = await console.listAuditEntries({ ...as(admin), filter: { action: 'recipient.' } });
  assert.equal(
    entries.map((e) => [e.action, e.actor, e.target, e.address]),
    [
      ['recipient.unblock', `staff:${admin.email}`, '08035553333', '203.0.113.9'],
      ['recipient.block', `staff:${admin.email}`, '08035553333', '203.0.113.9'],
    ],
  );
  assert.is(JSON.parse(entries[1]!.after).reason, 'fraud');
});

test("the admin token's block of a platform number is audited with the number as its target", async () => {
  await core.admin.blockRecipient({ value: '08035554444', reason: 'chargebacks' });
  const { console } = consoleClients(core);
  const admin = await signedInStaff(core, clock, 'admin');
  const { entries } = await console.listAuditEntries({
    sessionToken: admin.token,
    clientAddress: '203.0.113.9',
    filter: { action: 'admin.blockRecipient' },
  });
  assert.equal(
    entries.map((e) => [e.actor, e.target, JSON.parse(e.after)]),
    [['cli', '08035554444', { value: '08035554444', reason: 'chargebacks' }]],
  );
});
test.run();
