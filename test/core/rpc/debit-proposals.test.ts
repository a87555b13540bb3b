/**
 * Debit proposals through the console service of a real core: support cannot propose one; a
 * crash between the approval and the move (the proposal approved, nothing moved) is finished by
 * approving again, and a crash after the move but before it was marked applied moves nothing
 * twice (the debit's reference is the proposal's id); expired proposals move nothing.
 */
import { Code } from '@connectrpc/connect';
import * as assert from 'uvu/assert';
import { kobo } from '../../../core/domain/money.js';
import { startCore, type TestCore } from '../../helpers/core.js';
import { consoleClients, signedInStaff, TestClock } from '../../helpers/staff.js';
import { suite } from '../../helpers/suite.js';
import { rejection } from './support.js';

const test = suite<{ core: TestCore; clock: TestClock }>('console service: debit proposals');

test.before(async (ctx) => {
  ctx.clock = new TestClock();
  ctx.core = await startCore({ clock: ctx.clock.now });
});
test.after(async (ctx) => {
  await ctx.core.close();
});

test('an approval interrupted before or after the move takes the money exactly once', async ({ core, clock }) => {
  const { console } = consoleClients(core);
  const ada = await signedInStaff(core, clock, 'finance');
  const bola = await signedInStaff(core, clock, 'finance');
  const sade = await signedInStaff(core, clock, 'support');
  const { accountId } = await core.createApiAccount({ balanceKobo: 1_000_00 });
  const balance = async () => (await core.admin.getAccount({ accountId })).account!.balanceKobo;
  const propose = (token: string, amountKobo: bigint) =>
    console.proposeMoneyMove({
      sessionToken: token,
      clientAddress: '127.0.0.1',
      kind: 'debit',
      accountId,
      amountKobo,
      note: 'Chargeback',
    });
  const approve = (token: string, proposalId: string) =>
    console.decideProposal({ sessionToken: token, clientAddress: '127.0.0.1', proposalId, approve: true, note: '' });

  assert.is((await rejection(propose(sade.token, 100n))).code, Code.PermissionDenied, 'support proposes no debit');

  // Crash after the approval was recorded, before the move: approving again makes the move.
  const first = (await propose(ada.token, 300_00n)).proposal!;
  assert.ok(await core.store.proposals.decide(first.proposalId, 'approved', `staff:${bola.email}`, clock.now()));
  assert.is(await balance(), 1_000_00n, 'nothing moved yet');
  await approve(bola.token, first.proposalId);
  assert.is(await balance(), 700_00n);
  assert.match((await rejection(approve(bola.token, first.proposalId))).message, /already approved/);
  assert.is(await balance(), 700_00n, 'moved once');

  // Crash after the move, before it was marked applied: approving again writes nothing.
  const second = (await propose(ada.token, 200_00n)).proposal!;
  assert.ok(await core.store.proposals.decide(second.proposalId, 'approved', `staff:${bola.email}`, clock.now()));
  const moved = await core.store.ledger.post({
    kind: 'debit',
    debit: {
      accountId,
      mode: 'live',
      amountKobo: kobo(200_00),
      reference: second.proposalId,
      reason: 'Chargeback',
      at: clock.now(),
    },
  });
  assert.is(moved.outcome, 'debited');
  await approve(bola.token, second.proposalId);
  assert.is(await balance(), 500_00n, 'the move was not made twice');
  assert.ok((await core.store.proposals.get(second.proposalId))?.appliedAt, 'and it is marked applied now');

  // One not approved within 24 hours moves nothing.
  const late = (await propose(ada.token, 100_00n)).proposal!;
  clock.advance(24 * 3_600_000 + 1);
  const cleo = await signedInStaff(core, clock, 'finance');
  assert.match((await rejection(approve(cleo.token, late.proposalId))).message, /expired/);
  assert.is(await balance(), 500_00n);
  assert.is((await core.admin.checkLedger({})).violationCount, 0n);
});

test.run();
