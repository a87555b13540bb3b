/**
 * The mails about an account's money and access, against a real SMTP receiver on port 0: a
 * credit to the live wallet and the operator's manual debit are mailed to the owners once each,
 * read from the events the money move wrote (however often the worker reads them), a test
 * wallet's credit is not mailed, API access approved is mailed, and a person who turned a mail
 * off on the Mail settings (HolderService.SetMailSettings) is not sent it while others still are.
 */
import { ConnectError } from '@connectrpc/connect';
import * as assert from 'uvu/assert';
import { DEFAULT_TIER_ID } from '../../../core/catalog/defaults.js';
import { parseSmtpUrl } from '../../../core/mail/smtp.js';
import { ApiAccessAdminService, ApiAccessService } from '../../../gen/prepaid/v1/access_pb.js';
import { HolderService, UserAdminService, UserRole } from '../../../gen/prepaid/v1/holder_pb.js';
import { Mode } from '../../../gen/prepaid/v1/types_pb.js';
import { startCore, type TestCore } from '../../helpers/core.js';
import { type SmtpReceiver, startSmtpReceiver } from '../../helpers/smtp.js';
import { suite } from '../../helpers/suite.js';

interface State {
  smtp: SmtpReceiver;
  core: TestCore;
}

const test = suite<State>('holder mail: wallet money and API access, and the Mail settings', {} as State);
const PASSWORD = 'a long enough password';

test.before(async (state) => {
  state.smtp = await startSmtpReceiver();
  const server = parseSmtpUrl(state.smtp.url);
  if ('problem' in server) throw new Error(server.problem);
  state.core = await startCore({
    dashboardPublicUrl: 'https://dash.example.ng',
    mail: { server, from: 'Prepaid <no-reply@prepaid.example.ng>' },
  });
});
test.after(async (state) => {
  await state.core?.close();
  await state.smtp?.close();
});

/** An owner of `accountId` who accepted the invitation from its mail and signed in: their session. */
async function owner(state: State, accountId: string, email: string): Promise<string> {
  const { core, smtp } = state;
  const holder = core.clientWithToken(HolderService, core.serviceToken);
  await core.clientWithToken(UserAdminService, core.adminToken).inviteUser({ accountId, email, role: UserRole.OWNER });
  const link = /\/invite\/([A-Za-z0-9_-]{43})/.exec((await smtp.next(email, 'You are invited')).text);
  await holder.acceptInvitation({ invitationToken: link![1]!, password: PASSWORD });
  const { sessionToken } = await holder.signIn({ email, password: PASSWORD, clientIp: '10.0.0.1', userAgent: 'test' });
  await smtp.next(email, 'New sign-in');
  return sessionToken;
}

test('a live credit and a manual debit are mailed to the owners once each; a test credit is not', async (state) => {
  const { core, smtp } = state;
  const { account } = await core.admin.createAccount({ name: 'Jos Top-up', tierId: DEFAULT_TIER_ID });
  const accountId = account!.accountId;
  await owner(state, accountId, 'bola@example.ng');
  await core.admin.creditWallet({ accountId, amountKobo: 250_000n, memo: 'cash at the office', reference: 'CR-JOS-1' });
  await core.admin.creditWallet({ accountId, amountKobo: 9_000n, memo: 'test', reference: 'T-1', mode: Mode.TEST });
  assert.is(await core.core.walletMail.runOnce(), 1, 'one mail: the live credit, to the one owner');
  const credited = await smtp.next('bola@example.ng', 'arrived in your wallet');
  assert.is(credited.subject, '₦2,500.00 arrived in your wallet');
  assert.match(credited.text, `credited to the live wallet of account ${accountId}`);
  assert.match(credited.text, '(cash at the office)');
  assert.match(credited.text, 'Reference: CR-JOS-1');
  assert.match(credited.text, 'Balance after it: ₦2,500.00');
  assert.match(credited.text, 'Mail settings');
  assert.is(await core.core.walletMail.runOnce(), 0, 'read again: not mailed again');

  await core.admin.debitWallet({
    accountId,
    amountKobo: 50_000n,
    reason: 'duplicate credit reversed',
    reference: 'DB-1',
  });
  assert.is(await core.core.walletMail.runOnce(), 1);
  const debited = await smtp.next('bola@example.ng', 'taken out');
  assert.is(debited.subject, '₦500.00 was taken out of your wallet by the platform');
  assert.match(debited.text, 'Why: duplicate credit reversed');
  assert.match(debited.text, 'Balance after it: ₦2,000.00');
});

test('a person who turned a mail off is not sent it; the other owner and the other mails still are', async (state) => {
  const { core, smtp } = state;
  const holder = core.clientWithToken(HolderService, core.serviceToken);
  const { account } = await core.admin.createAccount({ name: 'Enugu Top-up', tierId: DEFAULT_TIER_ID });
  const accountId = account!.accountId;
  const quiet = await owner(state, accountId, 'chidi@example.ng');
  await owner(state, accountId, 'uche@example.ng');
  assert.equal((await holder.getMailSettings({ sessionToken: quiet })).off, [], 'every mail is on at first');
  await holder.setMailSettings({ sessionToken: quiet, off: ['wallet_credited'] });
  assert.equal((await holder.getMailSettings({ sessionToken: quiet })).off, ['wallet_credited']);
  const refused = await holder.setMailSettings({ sessionToken: quiet, off: ['everything'] }).catch((e) => e);
  assert.instance(refused, ConnectError, 'an unknown mail is refused');
  assert.equal((await holder.getMailSettings({ sessionToken: quiet })).off, ['wallet_credited'], 'and nothing changed');

  await core.admin.creditWallet({ accountId, amountKobo: 100_000n, memo: 'float', reference: 'CR-ENU-1' });
  await core.admin.debitWallet({ accountId, amountKobo: 10_000n, reason: 'fee owed', reference: 'DB-ENU-1' });
  assert.is(await core.core.walletMail.runOnce(), 3, 'the credit to one owner, the debit to both');
  assert.match((await smtp.next('uche@example.ng', 'arrived')).subject, '₦1,000.00 arrived');
  await smtp.next('uche@example.ng', 'taken out');
  // Chidi's next money mail is the debit: the credit was never queued for them.
  const next = await smtp.next('chidi@example.ng', '₦');
  assert.match(next.subject, 'taken out');
  assert.not.ok(
    smtp.mails.some((m) => m.to.includes('chidi@example.ng') && m.subject.includes('arrived')),
    'no credit mail reached chidi',
  );
});

test('API access approved is mailed to the owners who did not turn it off', async (state) => {
  const { core, smtp } = state;
  const { account } = await core.admin.createAccount({ name: 'Aba Top-up', tierId: DEFAULT_TIER_ID });
  const accountId = account!.accountId;
  const session = await owner(state, accountId, 'ngozi@example.ng');
  const other = await owner(state, accountId, 'obi@example.ng');
  const holder = core.clientWithToken(HolderService, core.serviceToken);
  await holder.setMailSettings({ sessionToken: other, off: ['api_access_approved'] });
  await core.clientWithToken(ApiAccessService, core.serviceToken).requestApiAccess({ sessionToken: session, note: '' });
  await core.clientWithToken(ApiAccessAdminService, core.adminToken).approveApiAccess({ accountId, tierId: '' });
  const approved = await smtp.next('ngozi@example.ng', 'API access');
  assert.is(approved.subject, 'Your API access is approved');
  assert.match(approved.text, `Account ${accountId} has API access since`);
  assert.match(approved.text, 'API keys page');
  // Obi's next mail is a sign-in noticed after the approval, not the approval.
  await holder.signIn({ email: 'obi@example.ng', password: PASSWORD, clientIp: '10.0.0.2', userAgent: 'test' });
  assert.match((await smtp.next('obi@example.ng')).subject, 'New sign-in');
});

test.run();
