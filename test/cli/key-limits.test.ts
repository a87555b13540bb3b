/**
 * `prepaid keys create --scopes/--cap-*` and `prepaid keys limits`: the limits reach the core
 * (the key-pair check reports them), a change replaces only what it names, and bad values are
 * refused by name before anything changes.
 */
import * as assert from 'uvu/assert';
import { startCore, type TestCore } from '../helpers/core.js';
import { suite } from '../helpers/suite.js';
import { runAgainst, runJson } from './run.js';

const test = suite<{ core: TestCore }>('prepaid keys limits');

test.before(async (ctx) => {
  ctx.core = await startCore();
});
test.after(async (ctx) => {
  await ctx.core.close();
});

test('a key created with scopes and caps is checked with them; limits changes only what it names', async ({ core }) => {
  const { accountId } = await core.createApiAccount();
  const created = await runJson(core, [
    'keys',
    'create',
    accountId,
    '--scopes',
    'purchase:airtime,balance',
    '--cap-per-purchase',
    '500',
    '--cap-per-day',
    '2000.50',
  ]);
  assert.is(created.code, 0, created.stderr);
  const publicKey = String(created.json['public_key']);
  const secretKey = String(created.json['secret_key']);
  const verified = await core.auth.verifyKeyPair({ publicKey, secretKey, clientIp: '203.0.113.7' });
  assert.equal(verified.scopes, ['balance', 'purchase:airtime']);
  assert.is(verified.spendCapped, true);

  const changed = await runJson(core, ['keys', 'limits', publicKey, '--cap-per-purchase', '0']);
  assert.is(changed.code, 0, changed.stderr);
  assert.equal(changed.json['scopes'], ['balance', 'purchase:airtime'], 'the scopes stay');
  assert.is(changed.json['cap_per_purchase_kobo'], 0);
  assert.is(changed.json['cap_per_day_kobo'], 200_050, 'the day cap stays');

  const table = await runAgainst(core, ['keys', 'list', accountId]);
  assert.match(
    table.stdout,
    new RegExp(
      `${publicKey}\\s+live\\s+active\\s+any IP\\s+balance,purchase:airtime\\s+none\\s+NGN 2,000.50\\s+NGN 0.00`,
    ),
  );

  const cleared = await runJson(core, ['keys', 'limits', publicKey, '--scopes', 'all', '--cap-per-day', '0']);
  assert.is(cleared.code, 0, cleared.stderr);
  const after = await core.auth.verifyKeyPair({ publicKey, secretKey, clientIp: '203.0.113.7' });
  assert.equal(after.scopes, ['all']);
  assert.is(after.spendCapped, false);
  assert.is((await core.store.keys.find(publicKey))?.controls, undefined, 'no limits left to keep');
});

test('an unknown scope or a cap that is not an amount is refused, and the key is left as it was', async ({ core }) => {
  const { accountId, publicKey } = await core.createApiAccount();
  const scope = await runAgainst(core, ['keys', 'limits', publicKey, '--scopes', 'balance,purchase:gold']);
  assert.is.not(scope.code, 0);
  assert.match(scope.stderr, /"purchase:gold" is not a scope/);
  const cap = await runAgainst(core, ['keys', 'limits', publicKey, '--cap-per-day', '1.234']);
  assert.is.not(cap.code, 0);
  assert.match(cap.stderr, /--cap-per-day/);
  const created = await runAgainst(core, ['keys', 'create', accountId, '--scopes', 'everything']);
  assert.is.not(created.code, 0);
  assert.is((await core.store.keys.find(publicKey))?.controls, undefined);
});

test('keys roll prints the new pair once and the old one with its end', async ({ core }) => {
  const { publicKey } = await core.createApiAccount();
  const rolled = await runJson(core, ['keys', 'roll', publicKey, '--grace-hours', '6']);
  assert.is(rolled.code, 0, rolled.stderr);
  assert.match(String(rolled.json['secret_key']), /^sk_/);
  const old = rolled.json['old_key'] as Record<string, unknown>;
  assert.is(old['public_key'], publicKey);
  const endsInMs = Date.parse(String(old['expires_at'])) - Date.now();
  assert.ok(endsInMs > 5.9 * 3_600_000 && endsInMs <= 6 * 3_600_000, String(old['expires_at']));
  const bad = await runAgainst(core, ['keys', 'roll', String(rolled.json['public_key']), '--grace-hours', 'x']);
  assert.is.not(bad.code, 0);
});

test.run();
