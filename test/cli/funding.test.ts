/**
 * `prepaid funding ...` against a real core with the sandbox funding provider: open gives
 * the wallet a Sandbox Bank account (the BVN is never printed nor logged), simulate-transfer
 * credits it once less the fee, an unknown account number waits as unmatched until assign
 * credits it once, reject keeps money out, and low-balance sets the threshold.
 */
import * as assert from 'uvu/assert';
import { kobo } from '../../core/domain/money.js';
import { assertLedgerInvariant, startCore, type TestCore } from '../helpers/core.js';
import { suite } from '../helpers/suite.js';
import { runAgainst, runJson } from './run.js';

const BVN = '22222222222';
const logged: string[] = [];

const test = suite<{ core: TestCore }>('prepaid funding');

test.before(async (ctx) => {
  // 1.5% capped at ₦300.
  // The sandbox bank stands in for a live funding provider here (FUNDING_SANDBOX_LIVE=on).
  ctx.core = await startCore({
    funding: { sandboxLive: true, fee: { basisPoints: 150, capKobo: kobo(30_000) }, kycKey: 'k'.repeat(32) },
    log: (event, fields) => logged.push(JSON.stringify({ event, ...fields })),
  });
});
test.after(async (ctx) => {
  await ctx.core.close();
});

const OPEN = [
  '--bvn',
  BVN,
  '--first-name',
  'Ada',
  '--last-name',
  'Obi',
  '--phone',
  '08031234567',
  '--email',
  'ada@example.com',
];

async function ledgerClean(core: TestCore, accountId: string): Promise<void> {
  await assertLedgerInvariant(core, accountId);
  const check = await core.admin.checkLedger({});
  assert.is(check.violationCount, 0n);
}

test('open, accounts, simulate-transfer credits once less the fee; the BVN is never printed nor logged', async ({
  core,
}) => {
  const { accountId } = await core.createApiAccount();
  const opened = await runJson(core, ['funding', 'open', accountId, ...OPEN]);
  assert.is(opened.code, 0, opened.stderr);
  const accounts = opened.json['accounts'] as { provider: string; bank: string; account_number: string; kyc: string }[];
  assert.is(accounts.length, 1);
  assert.equal(
    [accounts[0]!.provider, accounts[0]!.bank, accounts[0]!.kyc],
    ['sandbox', 'Sandbox Bank', 'bvn ending 2222'],
  );
  const number = accounts[0]!.account_number;
  assert.match(number, /^99\d{8}$/);

  // Opening again keeps the same account.
  const again = await runJson(core, ['funding', 'open', accountId, ...OPEN]);
  assert.equal(
    (again.json['accounts'] as { account_number: string }[]).map((a) => a.account_number),
    [number],
  );

  const sent = await runJson(core, [
    'funding',
    'simulate-transfer',
    number,
    '10000',
    '--reference',
    'SIM-1',
    '--payer',
    'CHIDI OKEKE',
  ]);
  assert.is(sent.code, 0, sent.stderr);
  assert.is(sent.json['outcome'], 'credited');
  const inflow = sent.json['inflow'] as Record<string, unknown>;
  // ₦10,000 at 1.5% is ₦150, under the ₦300 cap.
  assert.equal(
    [inflow['amount_paid'], inflow['fee'], inflow['credited'], inflow['payer_name']],
    [10_000, 150, 9_850, 'CHIDI OKEKE'],
  );
  const repeated = await runJson(core, ['funding', 'simulate-transfer', number, '10000', '--reference', 'SIM-1']);
  assert.is(repeated.json['outcome'], 'already_credited');
  const big = await runJson(core, ['funding', 'simulate-transfer', number, '50000', '--reference', 'SIM-2']);
  assert.is((big.json['inflow'] as Record<string, unknown>)['fee'], 300, 'the fee stops at its cap');

  const { account } = await core.admin.getAccount({ accountId });
  assert.is(account!.balanceKobo, 985_000n + 4_970_000n);
  const listed = await runJson(core, ['funding', 'accounts', accountId]);
  assert.equal(listed.json['fee'], { percent: 1.5, cap: 300 });
  assert.equal(
    (listed.json['recent_credits'] as { provider_reference: string }[]).map((c) => c.provider_reference),
    ['SIM-2', 'SIM-1'],
  );
  const events = await core.store.events.listFeed(accountId, 'live', 0, 100);
  const credits = events.filter((e) => e.type === 'wallet.credited').map((e) => JSON.parse(e.body).data);
  assert.is(credits.length, 2, 'one event per credited transfer');
  assert.equal(credits[0].funding, {
    provider: 'sandbox',
    provider_reference: 'SIM-1',
    amount_paid: 10_000,
    fee: 150,
    payer_name: 'CHIDI OKEKE',
  });
  assert.is(credits[0].source, 'bank_transfer');

  for (const output of [opened.stdout, opened.stderr, again.stdout, listed.stdout, ...logged])
    assert.not.ok(output.includes(BVN), 'the BVN is nowhere');
  const text = await runAgainst(core, ['funding', 'accounts', accountId]);
  assert.not.ok(text.stdout.includes(BVN));
  await ledgerClean(core, accountId);
});

test('a bad BVN is a field error and opens nothing', async ({ core }) => {
  const { accountId } = await core.createApiAccount();
  const bad = await runAgainst(core, ['funding', 'open', accountId, ...OPEN.map((v) => (v === BVN ? '2222' : v))]);
  assert.is.not(bad.code, 0);
  assert.match(bad.stderr, /bvn/i);
  assert.not.ok(bad.stderr.includes('2222 '), 'the number given is not echoed');
  const listed = await runJson(core, ['funding', 'accounts', accountId]);
  assert.equal(listed.json['accounts'], []);
  await ledgerClean(core, accountId);
});

test('a transfer to an unknown number is unmatched; assign credits it once; reject keeps money out', async ({
  core,
}) => {
  const { accountId } = await core.createApiAccount();
  const lost = await runJson(core, ['funding', 'simulate-transfer', '9912345678', '2000', '--reference', 'LOST-1']);
  assert.is(lost.json['outcome'], 'unmatched');
  const inflowId = (lost.json['inflow'] as Record<string, string>)['inflow_id']!;
  assert.ok(
    logged.some((l) => l.includes('"funding.unmatched"') && l.includes(inflowId) && l.includes('"warn"')),
    'a warn line names it',
  );
  const unmatched = await runJson(core, ['funding', 'unmatched']);
  assert.ok((unmatched.json['inflows'] as { inflow_id: string }[]).some((i) => i.inflow_id === inflowId));

  const assigned = await Promise.all([1, 2, 3].map(() => runJson(core, ['funding', 'assign', inflowId, accountId])));
  for (const run of assigned) assert.is(run.code, 0, run.stderr);
  const { account } = await core.admin.getAccount({ accountId });
  // ₦2,000 less 1.5% (₦30).
  assert.is(account!.balanceKobo, 197_000n);
  const reject = await runAgainst(core, ['funding', 'reject', inflowId, '--reason', 'too late']);
  assert.is.not(reject.code, 0, 'a credited inflow cannot be rejected');

  const other = await runJson(core, ['funding', 'simulate-transfer', '9912345679', '500', '--reference', 'LOST-2']);
  const otherId = (other.json['inflow'] as Record<string, string>)['inflow_id']!;
  const rejected = await runJson(core, ['funding', 'reject', otherId, '--reason', 'returned to the sender']);
  assert.equal([rejected.json['status'], rejected.json['reason']], ['rejected', 'returned to the sender']);
  const late = await runAgainst(core, ['funding', 'assign', otherId, accountId]);
  assert.is.not(late.code, 0);
  assert.is((await core.admin.getAccount({ accountId })).account!.balanceKobo, 197_000n);
  await ledgerClean(core, accountId);
});

test('low-balance sets the threshold; one wallet.low_balance event per crossing', async ({ core }) => {
  const { accountId } = await core.createApiAccount({ balanceKobo: 30_000 });
  const set = await runJson(core, ['funding', 'low-balance', accountId, '200']);
  assert.is(set.code, 0, set.stderr);
  assert.is(set.json['low_balance_threshold'], 200);
  const buy = (requestId: string) =>
    core.purchase.buyAirtime({ accountId, network: 'mtn', phone: '08031234567', amountKobo: 10_000n, requestId });
  const lowEvents = async () =>
    (await core.store.events.listFeed(accountId, 'live', 0, 100))
      .filter((e) => e.type === 'wallet.low_balance')
      .map((e) => JSON.parse(e.body).data);
  await buy('lb-1'); // about ₦200 left: at or above
  await buy('lb-2'); // below: the crossing
  await buy('lb-3'); // further below: no second event
  const first = await lowEvents();
  assert.is(first.length, 1);
  assert.is(first[0].threshold, 200);
  assert.ok(first[0].balance < 200 && first[0].balance > 0);
  await core.admin.creditWallet({ accountId, amountKobo: 30_000n, memo: 'top-up' });
  await buy('lb-4');
  await buy('lb-5');
  await buy('lb-6');
  assert.is((await lowEvents()).length, 2, 'back above, then below again: a second event');
  const removed = await runJson(core, ['funding', 'low-balance', accountId, '0']);
  assert.is(removed.json['low_balance_threshold'], null);
  await ledgerClean(core, accountId);
});

test.run();
