/**
 * A credit held over an identity level's limits returned to its payer under four eyes, over a
 * real core with the sandbox bank standing in for a live funding provider: one finance member
 * proposes, another approves; the hold leaves the books through the provider's clearing once,
 * the ledger check finds the proposal booked, and a later raise has nothing to release.
 */
import { Code } from '@connectrpc/connect';
import * as assert from 'uvu/assert';
import { KycAdminService } from '../../../gen/prepaid/v1/kyc_pb.js';
import { runJson } from '../../cli/run.js';
import { startCore, type TestCore } from '../../helpers/core.js';
import { consoleClients, signedInStaff, TestClock } from '../../helpers/staff.js';
import { suite } from '../../helpers/suite.js';
import { rejection } from './support.js';

const test = suite('kyc: a held credit returned under four eyes');
const clock = new TestClock();
let core: TestCore;

test.before(async () => {
  core = await startCore({ clock: clock.now, funding: { sandboxLive: true, kycKey: 'k'.repeat(32) } });
});
test.after(async () => {
  await core.close();
});

test('proposed by one member, approved by another: returned once, through the clearing', async () => {
  const kyc = core.clientWithToken(KycAdminService, core.adminToken);
  await kyc.setLevelLimits({ limits: { level: 1, maxBalanceKobo: 100_000n } });
  const { accountId } = await core.createApiAccount({ balanceKobo: 0 });
  await kyc.approveLevel({ accountId, level: 1, note: 'limited' });
  const bvn = ['--bvn', '22222222222', '--first-name', 'Ada', '--last-name', 'Obi'];
  const opened = await runJson(core, [
    'funding',
    'open',
    accountId,
    ...bvn,
    '--phone',
    '08031234567',
    '--email',
    'a@b.ng',
  ]);
  const number = (opened.json['accounts'] as { account_number: string }[])[0]!.account_number;
  const sent = await runJson(core, ['funding', 'simulate-transfer', number, '3000', '--reference', 'SIM-RET-1']);
  const inflowId = (sent.json['inflow'] as { inflow_id: string }).inflow_id;
  const clearingBefore = await core.store.books.sumOf('funding:sandbox:clearing', 'live');

  const a = await signedInStaff(core, clock, 'finance');
  const b = await signedInStaff(core, clock, 'finance');
  const { console } = consoleClients(core);
  const at = (m: { token: string }) => ({ sessionToken: m.token, clientAddress: '127.0.0.1' });
  const noHold = await rejection(
    console.proposeMoneyMove({ ...at(a), kind: 'hold_return', accountId, target: 'inf_nothing', note: 'x' }),
  );
  assert.is(noHold.code, Code.NotFound);
  const { proposal } = await console.proposeMoneyMove({
    ...at(a),
    kind: 'hold_return',
    accountId,
    target: inflowId,
    note: 'The payer asked for it back',
  });
  const own = await rejection(console.decideProposal({ ...at(a), proposalId: proposal!.proposalId, approve: true }));
  assert.is(own.code, Code.PermissionDenied, 'not the proposer');
  await console.decideProposal({ ...at(b), proposalId: proposal!.proposalId, approve: true });

  const [hold] = await core.store.kyc.holdsOf(accountId, 10);
  assert.is(hold?.status, 'returned');
  assert.is(await core.store.books.sumOf('held:over_limit', 'live'), 0, 'nothing held any more');
  assert.is(
    await core.store.books.sumOf('funding:sandbox:clearing', 'live'),
    clearingBefore - 200_000,
    'it left through the clearing it came by',
  );
  assert.is((await core.purchase.getBalance({ accountId })).balanceKobo, 100_000n, 'the wallet is untouched');
  assert.is((await core.admin.checkLedger({})).violationCount, 0n, 'the ledger check finds the proposal booked');

  const again = await rejection(
    console.proposeMoneyMove({ ...at(a), kind: 'hold_return', accountId, target: inflowId, note: 'twice' }),
  );
  assert.is(again.code, Code.FailedPrecondition);
  const raised = await kyc.approveLevel({ accountId, level: 3, note: 'business checked' });
  assert.equal(raised.change?.released, [], 'a returned credit is not released');
  assert.is((await core.purchase.getBalance({ accountId })).balanceKobo, 100_000n);
});

test.run();
