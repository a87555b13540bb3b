/**
 * `prepaid kyc` against a real core whose sandbox bank stands in for a live funding provider:
 * the levels' limits listed and set (audited), an account lowered to level 1 whose transfer
 * over its limit is partly held, the request queue, and a raise that credits the held money
 * once; bad arguments never reach the core.
 */
import * as assert from 'uvu/assert';
import { assertLedgerInvariant, startCore, type TestCore } from '../helpers/core.js';
import { suite } from '../helpers/suite.js';
import { runAgainst, runJson } from './run.js';

const test = suite<{ core: TestCore }>('prepaid kyc');

test.before(async (ctx) => {
  ctx.core = await startCore({ funding: { sandboxLive: true, kycKey: 'k'.repeat(32) } });
});
test.after(async (ctx) => {
  await ctx.core.close();
});

const OPEN = ['--bvn', '22222222222', '--first-name', 'Ada', '--last-name', 'Obi'];
const CONTACT = ['--phone', '08031234567', '--email', 'ada@example.com'];

test('kyc levels lists the CBN tiers, level 3 without limits', async ({ core }) => {
  const listed = await runAgainst(core, ['kyc', 'levels']);
  assert.is(listed.code, 0, listed.stderr);
  assert.match(listed.stdout, /1\s+NGN 300,000.00\s+NGN 300,000.00\s+NGN 30,000.00/);
  assert.match(listed.stdout, /3\s+no limit\s+no limit\s+no limit/);
});

test('bad arguments are usage errors and change nothing', async ({ core }) => {
  const wrongLevel = await runAgainst(core, [
    'kyc',
    'set-level',
    '4',
    '--max-balance',
    '1',
    '--max-inflow',
    '1',
    '--max-daily-spend',
    '1',
  ]);
  assert.is.not(wrongLevel.code, 0);
  assert.match(wrongLevel.stderr, /LEVEL must be 1, 2 or 3/);
  const missing = await runAgainst(core, ['kyc', 'set-level', '2', '--max-balance', '1000']);
  assert.is.not(missing.code, 0);
  assert.match(missing.stderr, /--max-inflow is required/);
  const listed = await runJson(core, ['kyc', 'levels']);
  assert.is((listed.json['levels'] as { max_balance_kobo: number }[])[1]!.max_balance_kobo, 50_000_000);
  const noRequest = await runAgainst(core, ['kyc', 'refuse', 'acct-none', '--reason', 'no']);
  assert.is.not(noRequest.code, 0, 'refusing where nothing is open is refused');
});

test('a transfer over level 1 is partly held; kyc approve to level 2 credits the held money once', async ({ core }) => {
  const set = await runJson(core, [
    'kyc',
    'set-level',
    '1',
    '--max-balance',
    '1000',
    '--max-inflow',
    'none',
    '--max-daily-spend',
    '500',
  ]);
  assert.is(set.code, 0, set.stderr);
  assert.equal(set.json, { level: 1, max_balance_kobo: 100_000, max_inflow_kobo: null, max_daily_spend_kobo: 50_000 });
  const audit = await core.store.auditLog.list({ action: 'kyc.set_level', limit: 5 });
  assert.is(audit[0]?.actor, 'cli', 'the change is audited');

  const { accountId } = await core.createApiAccount({ balanceKobo: 0 });
  const lowered = await runJson(core, ['kyc', 'approve', accountId, '--level', '1', '--note', 'new reseller']);
  assert.is(lowered.code, 0, lowered.stderr);
  assert.equal([lowered.json['before'], lowered.json['level']], [3, 1]);
  const opened = await runJson(core, ['funding', 'open', accountId, ...OPEN, ...CONTACT]);
  assert.is(opened.code, 0, opened.stderr);
  const number = (opened.json['accounts'] as { account_number: string }[])[0]!.account_number;
  const sent = await runJson(core, ['funding', 'simulate-transfer', number, '3000', '--reference', 'SIM-KYC-1']);
  assert.is(sent.code, 0, sent.stderr);
  assert.is((await core.purchase.getBalance({ accountId })).balanceKobo, 100_000n, 'credited up to the limit');

  const queue = await runJson(core, ['kyc', 'requests']);
  assert.equal(
    (queue.json['held'] as { account_id: string; amount_kobo: number }[]).filter((h) => h.account_id === accountId),
    [
      {
        inflow_id: (sent.json['inflow'] as { inflow_id: string }).inflow_id,
        account_id: accountId,
        amount_kobo: 200_000,
      },
    ],
  );
  const raised = await runAgainst(core, ['kyc', 'approve', accountId, '--level', '2', '--note', 'BVN checked']);
  assert.is(raised.code, 0, raised.stderr);
  assert.match(raised.stdout, new RegExp(`${accountId} is at level 2 \\(was 1\\)`));
  assert.match(raised.stdout, /Credited NGN 2,000.00 that was held/);
  assert.is((await core.purchase.getBalance({ accountId })).balanceKobo, 300_000n);
  const again = await runJson(core, ['kyc', 'approve', accountId, '--level', '2', '--note', 'again']);
  assert.equal(again.json['released'], [], 'released once');
  assert.is((await core.purchase.getBalance({ accountId })).balanceKobo, 300_000n);
  await assertLedgerInvariant(core, accountId);
  assert.is((await core.admin.checkLedger({})).violationCount, 0n);
});

test.run();
