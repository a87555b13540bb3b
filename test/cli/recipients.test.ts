/**
 * `prepaid recipients ...`: the platform's and an account's blocklists and an account's
 * per-recipient limits reach the core, and bad values are refused by name.
 */
import * as assert from 'uvu/assert';
import { startCore, type TestCore } from '../helpers/core.js';
import { suite } from '../helpers/suite.js';
import { runAgainst, runJson } from './run.js';

const test = suite<{ core: TestCore }>('prepaid recipients');

test.before(async (ctx) => {
  ctx.core = await startCore();
});
test.after(async (ctx) => {
  await ctx.core.close();
});

test("block, list and unblock on the platform's list and an account's", async ({ core }) => {
  const { accountId } = await core.createApiAccount();
  const platform = await runJson(core, ['recipients', 'block', '08031112222', '--reason', 'fraud reports']);
  assert.is(platform.code, 0, platform.stderr);
  assert.is(platform.json['account_id'], null);
  const own = await runJson(core, ['recipients', 'block', '45011112222', '--reason', 'x', '--account', accountId]);
  assert.is(own.code, 0, own.stderr);
  const listed = await runJson(core, ['recipients', 'list']);
  assert.equal(
    (listed.json['blocks'] as Array<Record<string, unknown>>).map((b) => [b['value'], b['reason'], b['blocked_by']]),
    [['08031112222', 'fraud reports', 'cli']],
  );
  const text = await runAgainst(core, ['recipients', 'list', '--account', accountId]);
  assert.match(text.stdout, /45011112222\s+x\s+cli/);
  assert.is((await core.store.accounts.get(accountId))?.recipientControls?.blocklist, true);
  const lifted = await runJson(core, ['recipients', 'unblock', '08031112222']);
  assert.is(lifted.json['removed'], true);
  assert.equal((await runJson(core, ['recipients', 'list'])).json['blocks'], []);
});

test('limit sets the per-recipient limits and the guard; bad values are refused', async ({ core }) => {
  const { accountId } = await core.createApiAccount();
  const set = await runJson(core, [
    'recipients',
    'limit',
    accountId,
    '--per-day-count',
    '3',
    '--per-day-naira',
    '5000',
    '--duplicate-guard',
    'on',
  ]);
  assert.is(set.code, 0, set.stderr);
  assert.equal(
    { count: set.json['per_day_count'], kobo: set.json['per_day_kobo'], guard: set.json['duplicate_guard'] },
    { count: 3, kobo: 500_000, guard: true },
  );
  assert.equal((await core.store.accounts.get(accountId))?.recipientControls, {
    blocklist: false,
    perDayCount: 3,
    perDayKobo: 500_000,
    duplicateGuard: true,
  });
  const bad = await runAgainst(core, ['recipients', 'block', 'not-a-number', '--reason', 'x']);
  assert.is.not(bad.code, 0);
  assert.match(bad.stderr, /6 to 20 digits/);
  const guard = await runAgainst(core, ['recipients', 'limit', accountId, '--duplicate-guard', 'maybe']);
  assert.is.not(guard.code, 0);
});

test.run();
