/**
 * Four eyes under pressure, over real gRPC: approvers racing each other (only the one whose
 * decision took effect is told they approved; the others are told by whom), and members too
 * new to be the second pair of eyes of whoever brought them in. Every money case ends with the
 * ledger check.
 */
import { Code } from '@connectrpc/connect';
import * as assert from 'uvu/assert';
import { parseSmtpUrl } from '../../../core/mail/smtp.js';
import { startCore, type TestCore } from '../../helpers/core.js';
import { startSmtpReceiver } from '../../helpers/smtp.js';
import {
  consoleClients,
  type SignedInStaff,
  STAFF_PASSWORD,
  signedInStaff,
  signInAgain,
  TestClock,
} from '../../helpers/staff.js';
import { suite } from '../../helpers/suite.js';
import { rejection } from './support.js';

const test = suite('four eyes');
const clock = new TestClock();
let core: TestCore;
/** Longer than FOUR_EYES_COOLING_H's default (72 hours). */
const SETTLED_IN_MS = 73 * 3_600_000;

test.before(async () => {
  core = await startCore({ clock: clock.now });
});
test.after(async () => {
  await core.close();
});

const at = '198.51.100.7';

/** Members who joined long enough ago to approve anyone's proposal, signed in now. */
async function settledStaff(roles: ('admin' | 'finance' | 'support')[]): Promise<SignedInStaff[]> {
  const joined = [];
  for (const role of roles) joined.push(await signedInStaff(core, clock, role));
  clock.advance(SETTLED_IN_MS);
  const signedIn = [];
  for (const member of joined) signedIn.push(await signInAgain(core, clock, member));
  return signedIn;
}

async function proposeCredit(by: SignedInStaff, accountId: string, amountKobo: bigint) {
  const { proposal } = await consoleClients(core).console.proposeMoneyMove({
    sessionToken: by.token,
    clientAddress: at,
    kind: 'credit',
    accountId,
    amountKobo,
    note: 'Goodwill after the outage, ticket 5120',
  });
  return proposal!.proposalId;
}

test('approvers racing: one is told they approved, the others by whom; the money moves once', async () => {
  const { console } = consoleClients(core);
  const { accountId } = await core.createApiAccount({ balanceKobo: 0 });
  const [ada, bola, chidi, dayo] = await settledStaff(['finance', 'finance', 'admin', 'finance']);
  const proposalId = await proposeCredit(ada!, accountId, 250_00n);
  const approvers = [bola!, chidi!, dayo!];
  const results = await Promise.allSettled(
    approvers.map((m) =>
      console.decideProposal({ sessionToken: m.token, clientAddress: at, proposalId, approve: true }),
    ),
  );
  const won = results.flatMap((r, i) => (r.status === 'fulfilled' ? [approvers[i]!] : []));
  assert.is(won.length, 1, 'exactly one approver is told they approved');
  const winner = `staff:${won[0]!.email}`;
  for (const [i, r] of results.entries()) {
    if (r.status === 'fulfilled') {
      assert.equal([r.value.proposal?.status, r.value.proposal?.decidedBy], ['approved', winner]);
      continue;
    }
    const told = await rejection(Promise.reject(r.reason));
    assert.is(told.code, Code.FailedPrecondition, approvers[i]!.email);
    assert.match(told.message, `already approved by ${winner}`);
  }
  assert.is((await core.admin.getAccount({ accountId })).account!.balanceKobo, 250_00n, 'moved once');
  const audit = await console.listAuditEntries({
    sessionToken: chidi!.token,
    clientAddress: at,
    filter: { action: 'proposal.approve', target: proposalId },
  });
  assert.equal(
    audit.entries.map((e) => e.actor),
    [winner],
    'one approval in the audit log, by the one who approved',
  );
  // A refusal after the approval is told the same, and changes nothing.
  const late = await rejection(
    console.decideProposal({ sessionToken: ada!.token, clientAddress: at, proposalId, approve: false }),
  );
  assert.match(late.message, `already approved by ${winner}`);
  assert.is((await core.admin.checkLedger({})).violationCount, 0n);
});

/** A member invited from the console by `by`, set up and signed in through the real RPCs. */
async function invitedBy(by: SignedInStaff, role: 'admin' | 'finance' | 'support', name: string) {
  const { console } = consoleClients(core);
  const email = `${name}-${Math.random().toString(36).slice(2, 8)}@ops.example.ng`;
  const invited = await console.inviteStaffMember({ sessionToken: by.token, clientAddress: at, email, role });
  const setupToken = invited.setupUrl.split('/setup/')[1]!;
  const setup = await console.getStaffSetup({ setupToken });
  await console.completeStaffSetup({
    setupToken,
    password: STAFF_PASSWORD,
    totpCode: clock.nextCode(setup.totpSecret),
    clientAddress: at,
  });
  return signInAgain(core, clock, { email, secret: setup.totpSecret, token: '', setupUrl: invited.setupUrl });
}

const approve = (member: SignedInStaff, proposalId: string) =>
  consoleClients(core).console.decideProposal({
    sessionToken: member.token,
    clientAddress: at,
    proposalId,
    approve: true,
  });

test('a member new to their powers cannot approve the proposals of whoever invited them or gave them the role', async () => {
  const { accountId } = await core.createApiAccount({ balanceKobo: 0 });
  const [root, other, sade] = await settledStaff(['admin', 'finance', 'support']);
  // One admin invites a second identity and proposes: the second identity's approval is refused.
  const second = await invitedBy(root!, 'finance', 'second');
  const mine = await proposeCredit(root!, accountId, 900_00n);
  const refused = await rejection(approve(second, mine));
  assert.is(refused.code, Code.PermissionDenied);
  assert.match(refused.message, `less than 72 hours ago by staff:${root!.email}`);
  // Support made finance by the admin: a role given is the same as an invitation.
  await consoleClients(core).console.setStaffRole({
    sessionToken: root!.token,
    clientAddress: at,
    email: sade!.email,
    role: 'finance',
  });
  assert.is((await rejection(approve(sade!, mine))).code, Code.PermissionDenied, 'a role just given by the proposer');
  const balance = async () => (await core.admin.getAccount({ accountId })).account!.balanceKobo;
  assert.is(await balance(), 0n, 'nothing moved');

  // Another colleague's proposal the new member may approve, and the console flags it.
  const theirs = await proposeCredit(other!, accountId, 100_00n);
  await approve(second, theirs);
  assert.is(await balance(), 100_00n);
  const { console } = consoleClients(core);
  const audit = await console.listAuditEntries({
    sessionToken: root!.token,
    clientAddress: at,
    filter: { action: 'proposal.approve', target: theirs },
  });
  assert.match(audit.entries[0]!.flag, /^Approved by a member new to their powers since /);
  const staff = await console.listStaffMembers({ sessionToken: root!.token, clientAddress: at });
  const shown = staff.members.find((m) => m.email === second.email)!;
  assert.equal([shown.newToPowers, shown.invitedBy], [true, `staff:${root!.email}`]);

  // The settled colleague approves the admin's proposal; the money moves once.
  await approve(other!, mine);
  assert.is(await balance(), 1_000_00n);
  // Past the cooling time, the invitee may approve the inviter's proposals like anyone's.
  clock.advance(SETTLED_IN_MS);
  const later = await signInAgain(core, clock, second);
  const rootAgain = await signInAgain(core, clock, root!);
  const next = await proposeCredit(rootAgain, accountId, 50_00n);
  await approve(later, next);
  assert.is(await balance(), 1_050_00n);
  const settledAudit = await console.listAuditEntries({
    sessionToken: rootAgain.token,
    clientAddress: at,
    filter: { action: 'proposal.approve', target: next },
  });
  assert.is(settledAudit.entries[0]!.flag, '', 'no flag once settled in');
  assert.is((await core.admin.checkLedger({})).violationCount, 0n);
});

test('no member approves a proposal made before they joined, whoever invited them', async () => {
  const { accountId } = await core.createApiAccount({ balanceKobo: 0 });
  const [ada, chidi] = await settledStaff(['finance', 'admin']);
  const early = await proposeCredit(ada!, accountId, 300_00n);
  clock.advance(1_000);
  // Invited by the CLI, not by the proposer: still refused, since the proposal is older than them.
  const late = await signedInStaff(core, clock, 'finance');
  const refused = await rejection(approve(late, early));
  assert.is(refused.code, Code.PermissionDenied);
  assert.match(refused.message, /made before you joined/);
  assert.is((await core.admin.getAccount({ accountId })).account!.balanceKobo, 0n);
  await approve(chidi!, early);
  assert.is((await core.admin.getAccount({ accountId })).account!.balanceKobo, 300_00n);
  assert.is((await core.admin.checkLedger({})).violationCount, 0n);
});

test('with SMTP, a finance or admin set-up link is mailed to the invitee and never shown to the inviter', async () => {
  const smtp = await startSmtpReceiver();
  const server = parseSmtpUrl(smtp.url);
  if ('problem' in server) throw new Error(server.problem);
  const mailing = await startCore({ clock: clock.now, mail: { server, from: 'ops@example.ng' } });
  try {
    const { console, staffAdmin } = consoleClients(mailing);
    const root = await signedInStaff(mailing, clock, 'support');
    assert.match(root.setupUrl, /\/setup\//, 'a support link is shown: it cannot move money');
    const admin = await staffAdmin.inviteStaff({ email: 'boss@ops.example.ng', role: 'admin' });
    assert.equal([admin.setupUrl, admin.mailed], ['', true], 'the CLI does not see it either');
    const mail = await smtp.next('boss@ops.example.ng');
    const link = /https?:\/\/\S+\/setup\/[A-Za-z0-9_-]{43}/.exec(mail.text)?.[0];
    assert.ok(link, 'the mail holds the set-up link');
    const setup = await console.getStaffSetup({ setupToken: link.split('/setup/')[1]! });
    assert.equal([setup.email, setup.role], ['boss@ops.example.ng', 'admin']);
    const boss = await (async () => {
      await console.completeStaffSetup({
        setupToken: link.split('/setup/')[1]!,
        password: STAFF_PASSWORD,
        totpCode: clock.nextCode(setup.totpSecret),
        clientAddress: at,
      });
      return signInAgain(mailing, clock, {
        email: 'boss@ops.example.ng',
        secret: setup.totpSecret,
        token: '',
        setupUrl: '',
      });
    })();
    const invited = await console.inviteStaffMember({
      sessionToken: boss.token,
      clientAddress: at,
      email: 'cash@ops.example.ng',
      role: 'finance',
    });
    assert.equal([invited.setupUrl, invited.mailed], ['', true], 'the inviting admin never sees a finance link');
    assert.match((await smtp.next('cash@ops.example.ng')).text, /\/setup\/[A-Za-z0-9_-]{43}/);
    const support = await console.inviteStaffMember({
      sessionToken: boss.token,
      clientAddress: at,
      email: 'help@ops.example.ng',
      role: 'support',
    });
    assert.equal([support.mailed, /\/setup\//.test(support.setupUrl)], [false, true]);
  } finally {
    await mailing.close();
    await smtp.close();
  }
});

test.run();
