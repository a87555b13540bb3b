/**
 * `prepaid accounts suspend` and `resume` against a real core: the reason is required, a
 * suspended account's key pair is refused by the core's key check with ACCOUNT_SUSPENDED,
 * `accounts get` says so, resuming lets the pair in again, and both are audited as cli.
 */
import * as assert from 'uvu/assert';
import { startCore, type TestCore } from '../helpers/core.js';
import { suite } from '../helpers/suite.js';
import { runJson } from './run.js';

const test = suite<{ core: TestCore }>('prepaid accounts suspend and resume against a real core');

test.before(async (ctx) => {
  ctx.core = await startCore();
});
test.after(async (ctx) => {
  await ctx.core.close();
});

test('suspend refuses the keys at the core, resume lets them in; both audited as cli', async ({ core }) => {
  const { accountId, publicKey, secretKey } = await core.createApiAccount({ balanceKobo: 1_000_00 });
  const verify = () => core.auth.verifyKeyPair({ publicKey, secretKey, clientIp: '203.0.113.9' });

  const noReason = await runJson(core, ['accounts', 'suspend', accountId]);
  assert.is.not(noReason.code, 0, 'the reason is required');
  assert.is((await verify()).accountId, accountId);

  const suspended = await runJson(core, ['accounts', 'suspend', accountId, '--reason', 'KYC documents expired']);
  assert.is(suspended.code, 0, suspended.stderr);
  assert.is(suspended.json['suspended'], true);
  assert.is(suspended.json['suspended_by'], 'cli');
  await verify().then(
    () => assert.unreachable('a suspended account’s keys are refused'),
    (error: Error) => assert.match(error.message, /This account is suspended\. Contact support\./),
  );
  const again = await runJson(core, ['accounts', 'suspend', accountId, '--reason', 'twice']);
  assert.is.not(again.code, 0, 'suspending a suspended account is refused');
  const shown = await runJson(core, ['accounts', 'get', accountId]);
  assert.is(shown.json['suspension_note'], 'KYC documents expired');

  const resumed = await runJson(core, ['accounts', 'resume', accountId]);
  assert.is(resumed.code, 0, resumed.stderr);
  assert.is(resumed.json['suspended'], false);
  assert.is((await verify()).accountId, accountId);
  assert.is((await core.admin.getAccount({ accountId })).account!.balanceKobo, 1_000_00n, 'no money moved');

  const rows = await core.store.auditLog.list({ target: accountId, action: 'account.', limit: 10 });
  assert.equal(rows.map((r) => [r.action, r.actor]).sort(), [
    ['account.resume', 'cli'],
    ['account.suspend', 'cli'],
  ]);
});

test.run();
