/**
 * The identity-level RPCs over a real core and real gRPC clients: a holder's request (a number
 * of the wrong shape refused field by field, the number kept only masked and keyed-hashed, a
 * viewer refused), the console's queue (every role reads it, support may not decide, finance
 * may), the operator's decisions, and API access waiting for level 2.
 */
import { Code } from '@connectrpc/connect';
import * as assert from 'uvu/assert';
import { ApiAccessService } from '../../../gen/prepaid/v1/access_pb.js';
import { HolderService, SignInOutcome, UserAdminService, UserRole } from '../../../gen/prepaid/v1/holder_pb.js';
import { KycAdminService, KycConsoleService, KycService } from '../../../gen/prepaid/v1/kyc_pb.js';
import { startCore, type TestCore } from '../../helpers/core.js';
import { signedInStaff, TestClock } from '../../helpers/staff.js';
import { suite } from '../../helpers/suite.js';
import { rejection } from './support.js';

const test = suite('kyc rpc');
const clock = new TestClock();
const PASSWORD = 'correct horse battery';
let core: TestCore;
let sequence = 0;

test.before(async () => {
  core = await startCore({ clock: clock.now });
});
test.after(async () => {
  await core.close();
});

const kyc = () => core.clientWithToken(KycService, core.serviceToken);
const kycAdmin = () => core.clientWithToken(KycAdminService, core.adminToken);
const kycConsole = () => core.clientWithToken(KycConsoleService, core.serviceToken);

/** An account at level 1 with a signed-in person of the role given. */
async function holderAt1(role: UserRole = UserRole.OWNER) {
  const { accountId } = await core.createApiAccount({ balanceKobo: 0 });
  await kycAdmin().approveLevel({ accountId, level: 1, note: 'a new reseller' });
  sequence += 1;
  const email = `kyc${sequence}@example.com`;
  const users = core.clientWithToken(UserAdminService, core.adminToken);
  const holder = core.clientWithToken(HolderService, core.serviceToken);
  const { invitation } = await users.inviteUser({ accountId, email, role });
  await holder.acceptInvitation({ invitationToken: invitation!.invitationToken, password: PASSWORD });
  const signIn = await holder.signIn({ email, password: PASSWORD, clientIp: '198.51.100.7' });
  assert.is(signIn.outcome, SignInOutcome.SIGNED_IN);
  return { accountId, token: signIn.sessionToken };
}

test('a holder asks for level 2: a bad number is a field error, the kept number only masked and hashed', async () => {
  const { accountId, token } = await holderAt1();
  const bad = await rejection(kyc().requestLevel({ sessionToken: token, kind: 'bvn', number: '2234' }));
  assert.is(bad.code, Code.InvalidArgument);
  assert.equal(
    bad.violations.map((v) => v.field),
    ['number'],
  );
  assert.not.match(bad.message, /2234/, 'the number is never echoed');
  const cac = await rejection(
    kyc().requestLevel({ sessionToken: token, kind: 'cac', number: 'RC 12', documentReference: 'x' }),
  );
  assert.is(cac.code, Code.InvalidArgument);
  const asked = await kyc().requestLevel({ sessionToken: token, kind: 'bvn', number: '223 4567 8901' });
  assert.is(asked.opened, true);
  assert.is(asked.request!.maskedNumber, 'BVN ••••8901');
  const [kept] = await core.store.kyc.requestsOf(accountId, 1);
  assert.is(kept!.numberLast4, '8901');
  assert.match(kept!.numberHash, /^[0-9a-f]{64}$/);
  assert.not.ok(JSON.stringify(kept).includes('22345678901'), 'the whole number is kept nowhere');
  const standing = await kyc().getLevel({ sessionToken: token });
  assert.is(standing.level, 1);
  assert.is(standing.open?.status, 'pending');
  assert.is(standing.nextLimits?.level, 2);
  const twice = await kyc().requestLevel({ sessionToken: token, kind: 'nin', number: '12345678901' });
  assert.is(twice.opened, false, 'one open request at a time');
});

test('a viewer may read the level but not ask', async () => {
  const { token } = await holderAt1(UserRole.VIEWER);
  assert.is((await kyc().getLevel({ sessionToken: token })).level, 1);
  const refused = await rejection(kyc().requestLevel({ sessionToken: token, kind: 'bvn', number: '22345678901' }));
  assert.is(refused.code, Code.PermissionDenied);
});

test('the console: support reads the queue but may not decide; finance approves and the holder is at level 2', async () => {
  const { accountId, token } = await holderAt1();
  await kyc().requestLevel({ sessionToken: token, kind: 'nin', number: '12345678901' });
  const support = await signedInStaff(core, clock, 'support');
  const finance = await signedInStaff(core, clock, 'finance');
  const as = (member: { token: string }) => ({ sessionToken: member.token, clientAddress: '127.0.0.1' });
  const queue = await kycConsole().listLevelQueue(as(support));
  const listed = queue.requests.find((r) => r.accountId === accountId);
  assert.is(listed?.maskedNumber, 'NIN ••••8901');
  const denied = await rejection(
    kycConsole().approveLevelAsStaff({ ...as(support), accountId, level: 0, note: 'looks right' }),
  );
  assert.is(denied.code, Code.PermissionDenied);
  const deniedRefusal = await rejection(kycConsole().refuseLevelAsStaff({ ...as(support), accountId, reason: 'no' }));
  assert.is(deniedRefusal.code, Code.PermissionDenied);
  assert.is((await core.store.kyc.levelOf(accountId))?.level, 1, 'nothing changed');
  const noNote = await rejection(kycConsole().approveLevelAsStaff({ ...as(finance), accountId, level: 0, note: ' ' }));
  assert.is(noNote.code, Code.InvalidArgument);
  const approved = await kycConsole().approveLevelAsStaff({ ...as(finance), accountId, level: 0, note: 'NIN matches' });
  assert.equal([approved.change?.before, approved.change?.level, approved.change?.request?.status], [1, 2, 'approved']);
  const rows = await core.store.auditLog.list({ action: 'kyc.level', target: accountId, limit: 5 });
  assert.is(rows[0]!.actor, `staff:${finance.email}`);
  assert.is(rows[0]!.note, 'NIN matches');
  assert.is((await kyc().getLevel({ sessionToken: token })).level, 2);
});

test('the operator refuses with a reason the holder sees; a bad level is refused', async () => {
  const { accountId, token } = await holderAt1();
  await kyc().requestLevel({ sessionToken: token, kind: 'bvn', number: '22345678901' });
  const badLevel = await rejection(kycAdmin().approveLevel({ accountId, level: 7, note: 'x' }));
  assert.is(badLevel.code, Code.InvalidArgument);
  const refused = await kycAdmin().refuseLevel({ accountId, reason: 'The BVN is not in your name.' });
  assert.is(refused.request?.status, 'refused');
  const standing = await kyc().getLevel({ sessionToken: token });
  assert.is(standing.open, undefined);
  assert.is(standing.last?.note, 'The BVN is not in your name.');
  const again = await rejection(kycAdmin().refuseLevel({ accountId, reason: 'twice' }));
  assert.is(again.code, Code.FailedPrecondition);
});

test('API access waits for level 2', async () => {
  const { accountId, token } = await holderAt1();
  const access = core.clientWithToken(ApiAccessService, core.serviceToken);
  // The API tier already has access; move the account to the default tier to ask.
  await core.admin.setAccountTier({ accountId, tierId: 'basic' });
  const early = await rejection(access.requestApiAccess({ sessionToken: token, note: 'resale' }));
  assert.is(early.code, Code.FailedPrecondition);
  assert.match(early.message, /identity level 2/);
  await kycAdmin().approveLevel({ accountId, level: 2, note: 'BVN checked' });
  const asked = await access.requestApiAccess({ sessionToken: token, note: 'resale' });
  assert.is(asked.request?.accountId, accountId);
});

test.run();
