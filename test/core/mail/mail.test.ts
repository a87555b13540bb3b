/**
 * The core's mail against a real SMTP receiver on port 0 (smtp-server, AUTH required): the
 * invitation mail carries the link; sign-in, key pair, two-step and password notices reach the
 * person; the operator's two-step reset tells them; a low-balance event is mailed to the owners
 * once, however often the worker reads it; a reset asked for an unknown email mails nothing;
 * a refused login is a warning without SMTP_URL's credentials; and those credentials appear in
 * no log line of the whole run.
 */
import * as assert from 'uvu/assert';
import { readCoreConfig } from '../../../core/config.js';
import { kobo } from '../../../core/domain/money.js';
import { parseSmtpUrl } from '../../../core/mail/smtp.js';
import { totpCode } from '../../../core/people/totp.js';
import { HolderService, SignInOutcome, UserAdminService, UserRole } from '../../../gen/prepaid/v1/holder_pb.js';
import { ConfigError } from '../../../runtime/env-schema.js';
import { startCore, type TestCore } from '../../helpers/core.js';
import { type SmtpReceiver, startSmtpReceiver } from '../../helpers/smtp.js';
import { suite } from '../../helpers/suite.js';

interface State {
  smtp: SmtpReceiver;
  core: TestCore;
  logged: string[];
}

const test = suite<State>('core mail through a real SMTP receiver', {} as State);

const MAIL_FROM = 'Prepaid <no-reply@prepaid.example.ng>';

test.before(async (state) => {
  state.logged = [];
  state.smtp = await startSmtpReceiver();
  const server = parseSmtpUrl(state.smtp.url);
  if ('problem' in server) throw new Error(server.problem);
  state.core = await startCore({
    dashboardPublicUrl: 'https://dash.example.ng',
    log: (event, fields) => state.logged.push(JSON.stringify({ event, ...fields })),
    mail: { server, from: MAIL_FROM },
  });
});
test.after(async (state) => {
  await state.core?.close();
  await state.smtp?.close();
  // Whatever happened, the relay's credentials were never written to a log line.
  for (const secret of [state.smtp.password, encodeURIComponent(state.smtp.password), state.smtp.user]) {
    assert.not.ok(
      state.logged.some((line) => line.includes(secret)),
      `no log line holds ${secret}`,
    );
  }
});

/** An owner who has accepted their invitation (the mail's link) and signed in. */
async function owner(state: State, email: string) {
  const { core, smtp } = state;
  const userAdmin = core.clientWithToken(UserAdminService, core.adminToken);
  const holder = core.clientWithToken(HolderService, core.serviceToken);
  const { accountId } = await core.createApiAccount({ name: 'Kano Top-up Ltd' });
  await userAdmin.inviteUser({ accountId, email, role: UserRole.OWNER });
  const invitation = await smtp.next(email);
  assert.is(invitation.from, 'no-reply@prepaid.example.ng');
  assert.match(invitation.subject, 'You are invited to Kano Top-up Ltd');
  const link = /https:\/\/dash\.example\.ng\/invite\/([A-Za-z0-9_-]{43})/.exec(invitation.text);
  assert.ok(link, 'the invitation mail carries the link');
  const { user } = await holder.acceptInvitation({ invitationToken: link![1]!, password: 'a long enough password' });
  return { accountId, user: user!, holder, userAdmin };
}

test('the invitation mail carries the link; a sign-in is noticed with time, address and browser', async (state) => {
  const { holder } = await owner(state, 'amaka@example.ng');
  const signedIn = await holder.signIn({
    email: 'amaka@example.ng',
    password: 'a long enough password',
    clientIp: '2001:db8::7',
    userAgent: 'Mozilla/5.0 (Test)\r\nBcc: victim@example.ng',
  });
  assert.is(signedIn.outcome, SignInOutcome.SIGNED_IN);
  const notice = await state.smtp.next('amaka@example.ng');
  assert.is(notice.subject, 'New sign-in to the prepaid developer area');
  assert.match(notice.text, /amaka@example\.ng signed in at \d{4}-\d\d-\d\d \d\d:\d\d WAT/);
  assert.match(notice.text, 'Address: 2001:db8::7');
  // The browser's text stays on its own line: no header or line can be forged through it.
  assert.match(notice.text, 'Browser: Mozilla/5.0 (Test) Bcc: victim@example.ng');
  assert.is(state.smtp.mails.filter((mail) => mail.to === 'victim@example.ng').length, 0);
});

test('a key pair, two-step sign-in on and off, and the operator reset each tell the person', async (state) => {
  const { holder, userAdmin, user } = await owner(state, 'bello@example.ng');
  const { sessionToken } = await holder.signIn({
    email: 'bello@example.ng',
    password: 'a long enough password',
    clientIp: '127.0.0.1',
  });
  await state.smtp.next('bello@example.ng'); // the sign-in notice
  const created = await holder.createApiKey({ sessionToken });
  const keyMail = await state.smtp.next('bello@example.ng');
  assert.is(keyMail.subject, 'A new live key pair for Kano Top-up Ltd');
  assert.match(keyMail.text, `Public key: ${created.issuedKey!.publicKey.slice(0, 12)}…`);
  assert.not.ok(keyMail.text.includes(created.issuedKey!.secretKey), 'never the secret key');
  const rolled = await holder.rollApiKey({ sessionToken, publicKey: created.issuedKey!.publicKey });
  const rollMail = await state.smtp.next('bello@example.ng');
  assert.is(rollMail.subject, 'A new live key pair for Kano Top-up Ltd', 'a roll is told as a new pair');
  assert.match(rollMail.text, `Public key: ${rolled.issuedKey!.publicKey.slice(0, 12)}…`);
  assert.not.ok(rollMail.text.includes(rolled.issuedKey!.secretKey), 'never the secret key');

  const { secret } = await holder.beginTotpSetup({ sessionToken });
  await holder.confirmTotp({ sessionToken, totpCode: totpCode(secret, new Date()) });
  assert.is((await state.smtp.next('bello@example.ng')).subject, 'Two-step sign-in turned on');

  await userAdmin.resetTwoStep({ userId: user.userId });
  const reset = await state.smtp.next('bello@example.ng');
  assert.is(reset.subject, 'Two-step sign-in turned off');
  assert.match(reset.text, 'by the operator of the platform');
  const audit = await state.core.store.auditLog.list({ action: 'users.reset_2fa', target: user.userId, limit: 5 });
  assert.equal(
    audit.map((row) => [row.actor, row.after]),
    [['cli', JSON.stringify({ two_step: false, sessions_ended: 1 })]],
  );
});

test('a reset asked for an unknown email mails nothing; for a user, one link that works once', async (state) => {
  const { holder } = await owner(state, 'chidi@example.ng');
  const before = state.smtp.mails.length;
  const unknown = await holder.requestPasswordReset({ email: 'nobody@example.ng', clientIp: '10.0.0.1' });
  const known = await holder.requestPasswordReset({ email: 'Chidi@Example.ng', clientIp: '10.0.0.1' });
  assert.equal([unknown.mailConfigured, unknown.retryAfterSeconds], [known.mailConfigured, known.retryAfterSeconds]);
  const mail = await state.smtp.next('chidi@example.ng');
  assert.is(mail.subject, 'Reset your password for the prepaid developer area');
  const token = /https:\/\/dash\.example\.ng\/reset\/([A-Za-z0-9_-]{43})/.exec(mail.text)?.[1];
  assert.ok(token);
  assert.not.ok(
    state.logged.some((line) => line.includes(token!)),
    'the reset token is never logged',
  );
  // The unknown address was asked first, so anything mailed for it would have arrived already.
  assert.is(state.smtp.mails.length, before + 1);
  assert.is(state.smtp.mails.filter((m) => m.to === 'nobody@example.ng').length, 0);
  await holder.resetPassword({ resetToken: token!, password: 'my new long password' });
  assert.is((await state.smtp.next('chidi@example.ng')).subject, 'Your password was changed');
});

test('asking for reset links is throttled per email, then per /64 of an IPv6 client', async (state) => {
  const holder = state.core.clientWithToken(HolderService, state.core.serviceToken);
  const ask = (email: string, clientIp: string) => holder.requestPasswordReset({ email, clientIp });
  for (let i = 0; i < 3; i += 1) assert.is((await ask('dapo@example.ng', `10.1.0.${i}`)).retryAfterSeconds, 0);
  assert.ok((await ask('dapo@example.ng', '10.1.0.9')).retryAfterSeconds > 0, 'the fourth for one email waits');
  for (let i = 0; i < 10; i += 1)
    assert.is((await ask(`guess${i}@example.ng`, `2001:db8:aa:bb::${i + 1}`)).retryAfterSeconds, 0);
  assert.ok(
    (await ask('guess10@example.ng', '2001:db8:aa:bb:ffff::1')).retryAfterSeconds > 0,
    'another address of the same /64 shares the budget',
  );
  assert.is((await ask('guess11@example.ng', '2001:db8:aa:cc::1')).retryAfterSeconds, 0, 'another /64 does not');
});

test('a low-balance event is mailed to the active owners once, however often it is read', async (state) => {
  const { core, smtp } = state;
  const { accountId } = await owner(state, 'efe@example.ng');
  await core.admin.creditWallet({ accountId, amountKobo: 30_000n, memo: 'float' });
  await core.store.funding.setLowBalanceThreshold(accountId, 'live', kobo(20_000));
  await core.purchase.buyAirtime({ accountId, network: 'mtn', phone: '08031234567', amountKobo: 15_000n });
  assert.is(await core.core.lowBalanceMail.runOnce(), 1);
  const alert = await smtp.next('efe@example.ng');
  assert.match(alert.subject, /^Your balance is low: ₦/);
  assert.match(alert.text, `The live wallet of account ${accountId} fell to`);
  assert.match(alert.text, 'below the ₦200.00 you set');
  assert.is(await core.core.lowBalanceMail.runOnce(), 0, 'read again: not mailed again');
});

test('a relay that refuses the login: a warning naming the server, never its credentials', async () => {
  const refusing = await startSmtpReceiver({ refuseAll: true, user: 'relay-user', password: 'refused-secret-pw' });
  const logged: string[] = [];
  const server = parseSmtpUrl(refusing.url);
  if ('problem' in server) throw new Error(server.problem);
  const core = await startCore({
    log: (event, fields) => logged.push(JSON.stringify({ event, ...fields })),
    mail: { server, from: MAIL_FROM },
  });
  try {
    const userAdmin = core.clientWithToken(UserAdminService, core.adminToken);
    const { accountId } = await core.createApiAccount();
    // The invitation answers at once although its mail cannot go: nothing waits on the relay.
    await userAdmin.inviteUser({ accountId, email: 'femi@example.ng', role: UserRole.OWNER });
    await core.core.mailer!.idle();
    const warning = logged.map((line) => JSON.parse(line)).find((line) => line.event === 'mail.send_warning');
    assert.ok(warning, 'the failure is logged');
    assert.equal(
      [warning.kind, warning.to, warning.server],
      ['invitation', 'f***@example.ng', `smtp://127.0.0.1:${refusing.port}`],
    );
    assert.ok(refusing.refusedLogins >= 1);
    for (const line of logged) {
      assert.not.ok(line.includes('refused-secret-pw'), line);
      assert.not.ok(line.includes('relay-user'), line);
    }
  } finally {
    await core.close();
    await refusing.close();
  }
});

test('SMTP_URL and MAIL_FROM: checked at start, together, and a bad URL is never echoed', () => {
  const base = { DATA_DIR: '/tmp/x' };
  const config = readCoreConfig({ ...base, SMTP_URL: 'smtps://me%40x.ng:p%3Ass@smtp.example.ng', MAIL_FROM: 'a@b.ng' });
  assert.equal(config.mail?.server, {
    secure: true,
    host: 'smtp.example.ng',
    port: 465,
    user: 'me@x.ng',
    password: 'p:ss',
    describe: 'smtps://smtp.example.ng:465',
  });
  assert.is(readCoreConfig(base).mail, null);
  const refusal = (env: Record<string, string>) => {
    try {
      readCoreConfig({ ...base, ...env });
      return '';
    } catch (error) {
      assert.instance(error, ConfigError);
      return (error as Error).message;
    }
  };
  assert.match(refusal({ SMTP_URL: 'smtp://u:pw@smtp.example.ng' }), /MAIL_FROM.*required/);
  assert.match(refusal({ MAIL_FROM: 'a@b.ng' }), /SMTP_URL.*required/);
  const bad = refusal({ SMTP_URL: 'https://u:hunter2-secret@smtp.example.ng', MAIL_FROM: 'a@b.ng' });
  assert.match(bad, /smtp:\/\/ or smtps:\/\//);
  assert.not.ok(bad.includes('hunter2-secret'));
  assert.match(refusal({ SMTP_URL: 'smtp://smtp.example.ng', MAIL_FROM: 'a@b.ng\r\nBcc: x@y.ng' }), /MAIL_FROM/);
});

test.run();
