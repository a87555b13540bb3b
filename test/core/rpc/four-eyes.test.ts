/**
 * Four eyes under pressure, over real gRPC: approvers racing each other (only the one whose
 * decision took effect is told they approved; the others are told by whom), and members too
 * new to be the second pair of eyes of whoever brought them in. Every money case ends with the
 * ledger check.
 */
import { Code } from '@connectrpc/connect';
import * as assert from 'uvu/assert';
import { startCore, type TestCore } from '../../helpers/core.js';
import { consoleClients, type SignedInStaff, signedInStaff, signInAgain, TestClock } from '../../helpers/staff.js';
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

test.run();
