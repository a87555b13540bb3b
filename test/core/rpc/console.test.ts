/**
 * The staff's console over real gRPC: set-up and sign-in with the mandatory code, the role
 * check in the core, four eyes on money (a proposal moves nothing until a different finance
 * member approves; its proposer cannot), a pending purchase resolved, and the audit rows.
 */
import { Code } from '@connectrpc/connect';
import * as assert from 'uvu/assert';
import { StaffSignInOutcome } from '../../../gen/prepaid/v1/console_pb.js';
import { TransactionStatus } from '../../../gen/prepaid/v1/types_pb.js';
import { startCore, type TestCore } from '../../helpers/core.js';
import { consoleClients, STAFF_PASSWORD, signedInStaff, signInAgain, TestClock } from '../../helpers/staff.js';
import { suite } from '../../helpers/suite.js';
import { rejection } from './support.js';

const test = suite('console rpc');
const clock = new TestClock();
let core: TestCore;

test.before(async () => {
  core = await startCore({ clock: clock.now });
});
test.after(async () => {
  await core.close();
});

const at = '198.51.100.4';

test('a member sets up once with a code, signs in only with password and a fresh code, and is throttled', async () => {
  const { console, staffAdmin } = consoleClients(core);
  const invited = await staffAdmin.inviteStaff({ email: 'Ngozi@Ops.example.ng', role: 'support' });
  assert.match(invited.setupUrl, /^http:\/\/localhost:8082\/setup\/[A-Za-z0-9_-]{43}$/);
  assert.is(invited.member!.setUp, false);
  const setupToken = invited.setupUrl.split('/setup/')[1]!;
  const setup = await console.getStaffSetup({ setupToken });
  assert.is(setup.email, 'ngozi@ops.example.ng');
  assert.match(setup.totpQrSvg, /^<svg/);
  const wrong = await rejection(
    console.completeStaffSetup({ setupToken, password: STAFF_PASSWORD, totpCode: '000000', clientAddress: at }),
  );
  assert.is(wrong.code, Code.InvalidArgument);
  const done = await console.completeStaffSetup({
    setupToken,
    password: STAFF_PASSWORD,
    totpCode: clock.nextCode(setup.totpSecret),
    clientAddress: at,
  });
  assert.is(done.member!.setUp, true);
  assert.is((await rejection(console.getStaffSetup({ setupToken }))).code, Code.NotFound, 'the link works once');

  const noCode = await console.staffSignIn({
    email: 'ngozi@ops.example.ng',
    password: STAFF_PASSWORD,
    totpCode: '',
    clientAddress: at,
  });
  assert.is(noCode.outcome, StaffSignInOutcome.INVALID_CREDENTIALS, 'the code is mandatory');
  const code = clock.nextCode(setup.totpSecret);
  const ok = await console.staffSignIn({
    email: 'ngozi@ops.example.ng',
    password: STAFF_PASSWORD,
    totpCode: code,
    clientAddress: at,
  });
  assert.is(ok.outcome, StaffSignInOutcome.SIGNED_IN);
  const again = await console.staffSignIn({
    email: 'ngozi@ops.example.ng',
    password: STAFF_PASSWORD,
    totpCode: code,
    clientAddress: at,
  });
  assert.is(again.outcome, StaffSignInOutcome.INVALID_CREDENTIALS, 'a code works once');
  const session = await console.getStaffSession({ sessionToken: ok.sessionToken, clientAddress: at });
  assert.is(session.member!.role, 'support');

  // Guesses from one /64, each at another address of it: the budget is the network's.
  let last = StaffSignInOutcome.UNSPECIFIED;
  for (let i = 0; i < 8; i++) {
    last = (
      await console.staffSignIn({
        email: 'ngozi@ops.example.ng',
        password: 'wrong password here',
        totpCode: '123456',
        clientAddress: `2001:db8:1:2::${i + 1}`,
      })
    ).outcome;
  }
  assert.is(last, StaffSignInOutcome.THROTTLED);

  await staffAdmin.disableStaff({ email: 'ngozi@ops.example.ng' });
  const ended = await rejection(console.getStaffSession({ sessionToken: ok.sessionToken, clientAddress: at }));
  assert.is(ended.code, Code.Unauthenticated, 'disabling ends the sessions');
  const members = (await staffAdmin.listStaff({})).members.filter((m) => m.email === 'ngozi@ops.example.ng');
  assert.is(members[0]!.disabled, true);
});

test('a credit proposed by finance moves nothing until another finance member approves, not its proposer', async () => {
  const { console } = consoleClients(core);
  const { accountId } = await core.createApiAccount({ balanceKobo: 1_000_00 });
  const ada = await signedInStaff(core, clock, 'finance');
  const bola = await signedInStaff(core, clock, 'finance');
  const sade = await signedInStaff(core, clock, 'support');
  const balance = async () => (await core.admin.getAccount({ accountId })).account!.balanceKobo;

  const noNote = await rejection(
    console.proposeMoneyMove({
      sessionToken: ada.token,
      clientAddress: at,
      kind: 'credit',
      accountId,
      amountKobo: 500_00n,
      note: ' ',
    }),
  );
  assert.is(noNote.code, Code.InvalidArgument);
  const { proposal } = await console.proposeMoneyMove({
    sessionToken: ada.token,
    clientAddress: at,
    kind: 'credit',
    accountId,
    amountKobo: 500_00n,
    note: 'Goodwill after the MTN outage, ticket 4411',
  });
  assert.is(proposal!.status, 'pending');
  assert.is(await balance(), 1_000_00n, 'no money moved yet');

  const own = await rejection(
    console.decideProposal({
      sessionToken: ada.token,
      clientAddress: at,
      proposalId: proposal!.proposalId,
      approve: true,
    }),
  );
  assert.is(own.code, Code.PermissionDenied, 'the proposer cannot approve');
  const support = await rejection(
    console.decideProposal({
      sessionToken: sade.token,
      clientAddress: at,
      proposalId: proposal!.proposalId,
      approve: true,
    }),
  );
  assert.is(support.code, Code.PermissionDenied, 'support cannot approve');
  assert.is(await balance(), 1_000_00n);
  clock.advance(1_000);

  const approved = await console.decideProposal({
    sessionToken: bola.token,
    clientAddress: at,
    proposalId: proposal!.proposalId,
    approve: true,
    note: 'checked the ticket',
  });
  assert.is(approved.proposal!.status, 'approved');
  assert.is(approved.proposal!.applied, true);
  assert.is(await balance(), 1_500_00n, 'moved once approved');
  const twice = await rejection(
    console.decideProposal({
      sessionToken: bola.token,
      clientAddress: at,
      proposalId: proposal!.proposalId,
      approve: true,
    }),
  );
  assert.is(twice.code, Code.FailedPrecondition);
  assert.is(await balance(), 1_500_00n, 'never twice');

  const audit = await console.listAuditEntries({
    sessionToken: sade.token,
    clientAddress: at,
    filter: { target: proposal!.proposalId },
  });
  assert.equal(
    audit.entries.map((e) => [e.action, e.actor, e.address]),
    [
      ['proposal.approve', `staff:${bola.email}`, at],
      ['proposal.credit', `staff:${ada.email}`, at],
    ],
  );
  const after = JSON.parse(audit.entries[0]!.after) as { balance_kobo: number };
  assert.is(after.balance_kobo, 1_500_00);
});

test('a proposal expires after 24 hours', async () => {
  const { console } = consoleClients(core);
  const { accountId } = await core.createApiAccount();
  const ada = await signedInStaff(core, clock, 'finance');
  const { proposal } = await console.proposeMoneyMove({
    sessionToken: ada.token,
    clientAddress: at,
    kind: 'credit',
    accountId,
    amountKobo: 100n,
    note: 'a test of expiry',
  });
  clock.advance(24 * 3_600_000);
  const bola = await signedInStaff(core, clock, 'admin');
  const late = await rejection(
    console.decideProposal({
      sessionToken: bola.token,
      clientAddress: at,
      proposalId: proposal!.proposalId,
      approve: true,
    }),
  );
  assert.is(late.code, Code.FailedPrecondition);
  assert.match(late.message, /expired/);
  assert.is((await core.admin.getAccount({ accountId })).account!.balanceKobo, 0n);
});

test('support resolves a pending purchase as delivered, with a note; failed is a proposal for finance', async () => {
  const { console } = consoleClients(core);
  const { accountId } = await core.createApiAccount({ balanceKobo: 5_000_00 });
  const sade = await signedInStaff(core, clock, 'support');
  const bola = await signedInStaff(core, clock, 'finance');
  const pending = async () => {
    const bought = await core.purchase.buyAirtime({
      accountId,
      network: 'mtn',
      phone: '08031238888',
      amountKobo: 100_00n,
    });
    const reference = bought.transaction!.reference;
    await core.store.wallet.recordAttempt(reference, {
      attempts: 12,
      nextAttemptAt: new Date(clock.ms + 3_600_000),
      needsAttention: true,
      at: clock.now(),
    });
    return reference;
  };
  const first = await pending();
  const second = await pending();
  const queue = await console.getAttention({ sessionToken: sade.token, clientAddress: at });
  assert.ok(queue.pending.some((item) => item.transaction!.reference === first && item.attempts === 12));

  const noNote = await rejection(
    console.resolveDelivered({ sessionToken: sade.token, clientAddress: at, reference: first, note: '' }),
  );
  assert.is(noNote.code, Code.InvalidArgument);
  const resolved = await console.resolveDelivered({
    sessionToken: sade.token,
    clientAddress: at,
    reference: first,
    note: 'MTN confirmed delivery by email, 09:12',
  });
  assert.is(resolved.transaction!.status, TransactionStatus.SUCCESS);

  const before = (await core.admin.getAccount({ accountId })).account!.balanceKobo;
  const { proposal } = await console.proposeMoneyMove({
    sessionToken: sade.token,
    clientAddress: at,
    kind: 'pending_failed',
    target: second,
    note: 'MTN says never delivered',
  });
  assert.is(proposal!.accountId, accountId);
  assert.is(
    (await core.purchase.getTransaction({ accountId, reference: second })).transaction!.status,
    TransactionStatus.PENDING,
  );
  await console.decideProposal({
    sessionToken: bola.token,
    clientAddress: at,
    proposalId: proposal!.proposalId,
    approve: true,
  });
  const failed = (await core.purchase.getTransaction({ accountId, reference: second })).transaction!;
  assert.is(failed.status, TransactionStatus.FAILED);
  assert.ok((await core.admin.getAccount({ accountId })).account!.balanceKobo > before, 'refunded once approved');

  const rows = await console.listAuditEntries({
    sessionToken: sade.token,
    clientAddress: at,
    filter: { target: first },
  });
  assert.equal(
    rows.entries.map((e) => [e.action, e.note]),
    [['purchase.resolve_delivered', 'MTN confirmed delivery by email, 09:12']],
  );
});

test('every RPC checks the role in the core: support cannot decide upgrades, no session cannot read', async () => {
  const { console } = consoleClients(core);
  const sade = await signedInStaff(core, clock, 'support');
  const denied = await rejection(
    console.decideUpgrade({ sessionToken: sade.token, clientAddress: at, accountId: 'acct_x', approve: true }),
  );
  assert.is(denied.code, Code.PermissionDenied);
  const reject = await rejection(
    console.rejectUnmatchedInflow({ sessionToken: sade.token, clientAddress: at, inflowId: 'inf_x', note: 'x' }),
  );
  assert.is(reject.code, Code.PermissionDenied);
  const credit = await rejection(
    console.proposeMoneyMove({
      sessionToken: sade.token,
      clientAddress: at,
      kind: 'credit',
      accountId: 'acct_x',
      amountKobo: 100n,
      note: 'support may not propose credits',
    }),
  );
  assert.is(credit.code, Code.PermissionDenied);
  const anonymous = await rejection(console.getAttention({ sessionToken: 'nope', clientAddress: at }));
  assert.is(anonymous.code, Code.Unauthenticated);
});

test("the admin token's changes are audited as actor cli; CLI_MONEY_MOVES=proposals holds a live credit", async () => {
  const { staffAdmin } = consoleClients(core);
  const { accountId } = await core.createApiAccount({ balanceKobo: 700_00 });
  const rows = await staffAdmin.listAudit({ filter: { actor: 'cli', target: accountId } });
  assert.equal(rows.entries.map((e) => e.action).sort(), ['admin.createAccount', 'admin.creditWallet']);
  assert.is(JSON.parse(rows.entries.find((e) => e.action === 'admin.creditWallet')!.after).amountKobo, '70000');

  const strict = await startCore({ clock: clock.now, cliMoneyMoves: 'proposals' });
  try {
    // The approver was invited (by the CLI) longer ago than the four-eyes cooling time.
    const joined = await signedInStaff(strict, clock, 'finance');
    clock.advance(73 * 3_600_000);
    const ada = await signInAgain(strict, clock, joined);
    const created = await strict.admin.createAccount({ name: 'Strict', tierId: 'api' });
    const id = created.account!.accountId;
    const answer = await strict.admin.creditWallet({ accountId: id, amountKobo: 900_00n, memo: 'float top-up' });
    assert.match(answer.proposalId, /^prp_/);
    assert.is((await strict.admin.getAccount({ accountId: id })).account!.balanceKobo, 0n, 'nothing moved');
    await consoleClients(strict).console.decideProposal({
      sessionToken: ada.token,
      clientAddress: at,
      proposalId: answer.proposalId,
      approve: true,
    });
    assert.is((await strict.admin.getAccount({ accountId: id })).account!.balanceKobo, 900_00n);
  } finally {
    await strict.close();
  }
});

test.run();
