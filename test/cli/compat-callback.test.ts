/**
 * `prepaid keys compat-callback ACCOUNT_ID URL` and `--clear`: the account's Adex callback is
 * set, replaced and removed through the admin service; a URL the webhooks' rules refuse, and a
 * dialect with no callback, are refused before anything is kept.
 */
import * as assert from 'uvu/assert';
import { startCore, type TestCore } from '../helpers/core.js';
import { suite } from '../helpers/suite.js';
import { runAgainst, runJson } from './run.js';

const test = suite<{ core: TestCore }>('prepaid keys compat-callback');

test.before(async (ctx) => {
  ctx.core = await startCore();
});
test.after(async (ctx) => {
  await ctx.core.close();
});

test('a callback is set, replaced and cleared; bad ones are refused and nothing is kept', async ({ core }) => {
  const { accountId } = await core.createApiAccount();
  const first = await runJson(core, [
    'keys',
    'compat-callback',
    accountId,
    'https://shop.example.com/webhook/ours.php',
  ]);
  assert.is(first.code, 0, first.stderr);
  assert.is(first.json['url'], 'https://shop.example.com/webhook/ours.php');
  assert.is(first.json['previous_url'], null);
  const second = await runJson(core, ['keys', 'compat-callback', accountId, 'https://shop.example.com/b.php']);
  assert.is(second.json['previous_url'], 'https://shop.example.com/webhook/ours.php');
  assert.is((await core.store.compat.getCallback(accountId, 'adex'))?.url, 'https://shop.example.com/b.php');

  const refused = await runAgainst(core, ['keys', 'compat-callback', accountId, 'http://10.0.0.5/hook']);
  assert.is.not(refused.code, 0);
  assert.match(refused.stderr, /https|public/);
  const msorg = await runAgainst(core, [
    'keys',
    'compat-callback',
    accountId,
    'https://a.example.com/',
    '--dialect',
    'msorg',
  ]);
  assert.is.not(msorg.code, 0);
  assert.match(msorg.stderr, /adex/);
  const bare = await runAgainst(core, ['keys', 'compat-callback', accountId]);
  assert.is.not(bare.code, 0);
  assert.is((await core.store.compat.getCallback(accountId, 'adex'))?.url, 'https://shop.example.com/b.php');

  const cleared = await runJson(core, ['keys', 'compat-callback', accountId, '--clear']);
  assert.is(cleared.code, 0, cleared.stderr);
  assert.is(cleared.json['url'], null);
  assert.is(await core.store.compat.getCallback(accountId, 'adex'), null);
});

test.run();
