/**
 * `prepaid users ...` against a real core: the invitation link is printed (and only
 * printed: the core's log never holds the token), it works once through HolderService,
 * and list and disable show and end what they should.
 */
import * as assert from 'uvu/assert';
import { totpCode } from '../../core/people/totp.js';
import { HolderService, SignInOutcome } from '../../gen/prepaid/v1/holder_pb.js';
import { startCore, type TestCore } from '../helpers/core.js';
import { suite } from '../helpers/suite.js';
import { runAgainst, runJson } from './run.js';

/** Whether a call was refused (any error). */
async function refused(call: Promise<unknown>): Promise<boolean> {
  try {
    await call;
    return false;
  } catch {
    return true;
  }
}

const test = suite<{ core: TestCore; logged: string[] }>('prepaid users against a real core');

test.before(async (ctx) => {
  ctx.logged = [];
  ctx.core = await startCore({
    dashboardPublicUrl: 'https://dash.example.com',
    log: (event, fields) => ctx.logged.push(JSON.stringify({ event, ...fields })),
  });
});
test.after(async (ctx) => {
  await ctx.core.close();
});

test('users invite prints the link once; it sets a password and signs in; list and disable follow', async ({
  core,
  logged,
}) => {
  const { accountId } = await core.createApiAccount();
  const invited = await runJson(core, ['users', 'invite', accountId, '--email', 'Ada@Example.com']);
  assert.is(invited.code, 0, invited.stderr);
  const url = String(invited.json['invite_url']);
  assert.match(url, /^https:\/\/dash\.example\.com\/invite\/[A-Za-z0-9_-]{43}$/);
  assert.equal(
    [invited.json['email'], invited.json['role'], invited.json['account_id']],
    ['ada@example.com', 'owner', accountId],
  );
  assert.match(invited.stderr, /send it to the invitee only/);
  const token = url.slice(url.lastIndexOf('/') + 1);
  assert.not.ok(
    logged.some((line) => line.includes(token)),
    'the core never logs the invitation token',
  );

  const holder = core.clientWithToken(HolderService, core.serviceToken);
  await holder.acceptInvitation({ invitationToken: token, password: 'a long enough password' });
  const signedIn = await holder.signIn({
    email: 'ada@example.com',
    password: 'a long enough password',
    clientIp: '127.0.0.1',
  });
  assert.is(signedIn.outcome, SignInOutcome.SIGNED_IN);

  const viewer = await runAgainst(core, [
    'users',
    'invite',
    accountId,
    '--email',
    'bayo@example.com',
    '--role',
    'viewer',
  ]);
  assert.is(viewer.code, 0);
  assert.match(viewer.stdout, /Invited bayo@example\.com to acc_\w+ as viewer\./);
  assert.match(viewer.stdout, /https:\/\/dash\.example\.com\/invite\//);

  const listed = await runJson(core, ['users', 'list', accountId]);
  const users = listed.json['users'] as Record<string, unknown>[];
  assert.equal(
    users.map((u) => [u['email'], u['role'], u['disabled']]),
    [['ada@example.com', 'owner', false]],
    'an invitation not yet accepted is not a user',
  );
  const disabled = await runJson(core, ['users', 'disable', String(users[0]!['user_id'])]);
  assert.is(disabled.json['disabled'], true);
  const after = await holder.signIn({
    email: 'ada@example.com',
    password: 'a long enough password',
    clientIp: '127.0.0.1',
  });
  assert.is(after.outcome, SignInOutcome.INVALID_CREDENTIALS);
});

test('users reset-2fa turns two-step sign-in off, ends the sessions and is recorded in the core log', async ({
  core,
  logged,
}) => {
  const { accountId } = await core.createApiAccount();
  const invited = await runJson(core, ['users', 'invite', accountId, '--email', 'lost-phone@example.com']);
  const url = String(invited.json['invite_url']);
  const holder = core.clientWithToken(HolderService, core.serviceToken);
  const { user } = await holder.acceptInvitation({
    invitationToken: url.slice(url.lastIndexOf('/') + 1),
    password: 'a long enough password',
  });
  const { sessionToken } = await holder.signIn({
    email: 'lost-phone@example.com',
    password: 'a long enough password',
    clientIp: '127.0.0.1',
  });
  const { secret } = await holder.beginTotpSetup({ sessionToken });
  await holder.confirmTotp({ sessionToken, totpCode: totpCode(secret, new Date()) });
  const challenged = await holder.signIn({
    email: 'lost-phone@example.com',
    password: 'a long enough password',
    clientIp: '127.0.0.1',
  });
  assert.is(challenged.outcome, SignInOutcome.TOTP_REQUIRED);

  const reset = await runAgainst(core, ['users', 'reset-2fa', user!.userId]);
  assert.is(reset.code, 0, reset.stderr);
  assert.match(reset.stdout, /Two-step sign-in is off for lost-phone@example\.com/);
  const line = logged
    .map((text) => JSON.parse(text) as Record<string, unknown>)
    .find((entry) => entry['event'] === 'people.two_step_reset');
  assert.equal(
    [line?.['user_id'], line?.['account_id'], line?.['was_on'], line?.['by']],
    [user!.userId, accountId, true, 'operator'],
  );
  assert.ok(Number(line?.['sessions_ended']) >= 1);
  assert.is((await core.store.people.getUser(user!.userId))?.recoveryCodeHashes.length, 0);
  const oneStep = await holder.signIn({
    email: 'lost-phone@example.com',
    password: 'a long enough password',
    clientIp: '127.0.0.1',
  });
  assert.is(oneStep.outcome, SignInOutcome.SIGNED_IN, 'the password alone signs in again');
  const unknown = await runAgainst(core, ['users', 'reset-2fa', 'usr_nobody']);
  assert.is(unknown.code, 1);
  assert.match(unknown.stderr, /NOT_FOUND/);
});

test('users reset-password prints a one-hour link: sets the password once, ends sessions; audited, not logged', async ({
  core,
  logged,
}) => {
  const { accountId } = await core.createApiAccount();
  const invited = await runJson(core, ['users', 'invite', accountId, '--email', 'forgot@example.com']);
  const inviteUrl = String(invited.json['invite_url']);
  const holder = core.clientWithToken(HolderService, core.serviceToken);
  const { user } = await holder.acceptInvitation({
    invitationToken: inviteUrl.slice(inviteUrl.lastIndexOf('/') + 1),
    password: 'the password I forgot',
  });
  const { sessionToken } = await holder.signIn({
    email: 'forgot@example.com',
    password: 'the password I forgot',
    clientIp: '127.0.0.1',
  });

  const issued = await runJson(core, ['users', 'reset-password', user!.userId]);
  assert.is(issued.code, 0, issued.stderr);
  const url = String(issued.json['reset_url']);
  assert.match(url, /^https:\/\/dash\.example\.com\/reset\/[A-Za-z0-9_-]{43}$/);
  assert.is(issued.json['mailed'], false, 'no SMTP_URL: nothing mailed');
  assert.match(issued.stderr, /It works once, for one hour/);
  const text = await runAgainst(core, ['users', 'reset-password', user!.userId]);
  assert.match(text.stdout, /pass the link on yourself/);
  const token = url.slice(url.lastIndexOf('/') + 1);
  assert.not.ok(
    logged.some((line) => line.includes(token)),
    'the core never logs the reset token',
  );
  const audit = await core.store.auditLog.list({ action: 'users.reset_password', target: user!.userId, limit: 5 });
  assert.is(audit.length, 2);
  assert.is(audit[0]?.actor, 'cli');
  assert.not.ok(JSON.stringify(audit).includes(token), 'the audit row holds no link');

  assert.is((await holder.getPasswordReset({ resetToken: token })).email, 'forgot@example.com');
  await holder.resetPassword({ resetToken: token, password: 'a brand new password' });
  assert.ok(await refused(holder.getSession({ sessionToken })), 'the old session has ended');
  assert.ok(
    await refused(holder.resetPassword({ resetToken: token, password: 'another new password' })),
    'the link works once',
  );
  const signedIn = await holder.signIn({
    email: 'forgot@example.com',
    password: 'a brand new password',
    clientIp: '127.0.0.1',
  });
  assert.is(signedIn.outcome, SignInOutcome.SIGNED_IN);
  const unknown = await runAgainst(core, ['users', 'reset-password', 'usr_nobody']);
  assert.is(unknown.code, 1);
  assert.match(unknown.stderr, /NOT_FOUND/);
});

test('users invite refuses a bad role before calling the core, and the core refuses a bad email', async ({ core }) => {
  const { accountId } = await core.createApiAccount();
  const role = await runAgainst(core, ['users', 'invite', accountId, '--email', 'x@example.com', '--role', 'admin']);
  assert.is(role.code, 2);
  assert.match(role.stderr, /--role must be owner or viewer/);
  const email = await runAgainst(core, ['users', 'invite', accountId, '--email', 'nope']);
  assert.is(email.code, 1);
  assert.match(email.stderr, /INVALID_PARAMETER/);
  const missing = await runAgainst(core, ['users', 'invite', accountId]);
  assert.is(missing.code, 2);
  const unknown = await runAgainst(core, ['users', 'list', 'acc_nobody']);
  assert.is(unknown.code, 1);
  assert.match(unknown.stderr, /NOT_FOUND/);
});

test.run();
