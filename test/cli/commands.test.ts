import { ConnectError } from '@connectrpc/connect';
import * as assert from 'uvu/assert';
import { SECRET_SHOWN_ONCE_WARNING } from '../../cli/format.js';
import { ErrorInfoSchema } from '../../gen/google/rpc/error_details_pb.js';
import { assertLedgerInvariant, ledgerOf, startCore, type TestCore } from '../helpers/core.js';
import { suite } from '../helpers/suite.js';
import { runAgainst, runJson } from './run.js';

const test = suite<{ core: TestCore }>('prepaid CLI commands against a real core');

test.before(async (ctx) => {
  ctx.core = await startCore();
});
test.after(async (ctx) => {
  await ctx.core.close();
});

/** The ErrorInfo reason of a failed call, or 'OK' when it succeeded. */
async function verifyReason(
  core: TestCore,
  publicKey: string,
  secretKey: string,
  clientIp = '203.0.113.7',
): Promise<string> {
  try {
    await core.auth.verifyKeyPair({ publicKey, secretKey, clientIp });
    return 'OK';
  } catch (error) {
    if (!(error instanceof ConnectError)) throw error;
    return error.findDetails(ErrorInfoSchema)[0]?.reason ?? `no reason (${error.code})`;
  }
}

async function createAccount(core: TestCore, tier: string): Promise<Record<string, unknown>> {
  const { code, json } = await runJson(core, ['accounts', 'create', '--name', `Shop on ${tier}`, '--tier', tier]);
  assert.is(code, 0);
  return json;
}

test('accounts create on the API tier prints a working key pair once, with a warning on stderr', async ({ core }) => {
  const { code, json, stderr } = await runJson(core, ['accounts', 'create', '--name', 'Ada Stores', '--tier', 'api']);
  assert.is(code, 0);
  assert.match(String(json['account_id']), /^acc_/);
  assert.is(json['name'], 'Ada Stores');
  assert.is(json['tier'], 'api');
  assert.is(json['balance'], 0);
  assert.is(json['balance_kobo'], 0);
  assert.match(String(json['public_key']), /^pk_/);
  assert.match(String(json['secret_key']), /^sk_/);
  assert.ok(stderr.includes(SECRET_SHOWN_ONCE_WARNING));
  assert.is(await verifyReason(core, String(json['public_key']), String(json['secret_key'])), 'OK');

  // Nothing afterwards shows the secret again.
  const secret = String(json['secret_key']);
  const later = [
    await runJson(core, ['accounts', 'get', String(json['account_id'])]),
    await runJson(core, ['keys', 'list', String(json['account_id'])]),
    await runAgainst(core, ['keys', 'list', String(json['account_id'])]),
  ];
  for (const run of later) assert.not.ok(run.stdout.includes(secret) || run.stderr.includes(secret));
});

test('accounts create in text mode prints the pair for a person; on the default tier there is none', async ({
  core,
}) => {
  const api = await runAgainst(core, ['accounts', 'create', '--name', 'Bola Ventures', '--tier', 'api']);
  assert.is(api.code, 0);
  assert.match(
    api.stdout,
    /^Created account acc_\w+ \(Bola Ventures\) on tier api\.\nPublic key: pk_\w+\nSecret key: sk_[\w-]+\n$/,
  );

  const basic = await runJson(core, ['accounts', 'create', '--name', 'Chidi Kiosk']);
  assert.is(basic.code, 0);
  assert.is(basic.json['tier'], 'basic');
  assert.not.ok('public_key' in basic.json);
  assert.not.ok('secret_key' in basic.json);
  assert.is(basic.stderr, '');
});

test('wallet credit takes Naira, prints the balance, and writes one ledger entry', async ({ core }) => {
  const account = await createAccount(core, 'basic');
  const id = String(account['account_id']);
  const credited = await runJson(core, ['wallet', 'credit', id, '1500.50', '--memo', 'GTB transfer 42']);
  assert.is(credited.code, 0);
  assert.equal(
    { ...credited.json, reference: undefined, entry_id: undefined },
    {
      account_id: id,
      mode: 'live',
      amount: 1500.5,
      amount_kobo: 150_050,
      balance: 1500.5,
      balance_kobo: 150_050,
      reference: undefined,
      entry_id: undefined,
      replayed: false,
    },
  );
  assert.match(String(credited.json['reference']), /^CR/);

  const text = await runAgainst(core, ['wallet', 'credit', id, '0.5']);
  assert.is(text.code, 0);
  assert.ok(text.stdout.includes('Credited NGN 0.50'), text.stdout);
  assert.ok(text.stdout.includes('Balance: NGN 1,501.00'), text.stdout);

  const { account: stored } = await core.admin.getAccount({ accountId: id });
  assert.is(stored!.balanceKobo, 150_100n);
  const entries = await ledgerOf(core, id);
  assert.is(entries.length, 2);
  assert.is(entries[0]!.memo, 'GTB transfer 42');
  await assertLedgerInvariant(core, id);
});

test('wallet credit --reference credits once however often it is retried, and says so', async ({ core }) => {
  const id = String((await createAccount(core, 'basic'))['account_id']);
  const first = await runJson(core, ['wallet', 'credit', id, '200', '--reference', 'ZENITH-771']);
  assert.is(first.code, 0);
  assert.equal(
    [first.json['reference'], first.json['replayed'], first.json['balance_kobo']],
    ['ZENITH-771', false, 20_000],
  );
  const again = await runAgainst(core, ['wallet', 'credit', id, '200', '--reference', 'ZENITH-771']);
  assert.is(again.code, 0);
  assert.ok(again.stdout.includes('Already credited: NGN 200.00'), again.stdout);
  assert.ok(again.stdout.includes('nothing new was written'), again.stdout);
  const other = await runAgainst(core, ['wallet', 'credit', id, '300', '--reference', 'ZENITH-771']);
  assert.is.not(other.code, 0);
  assert.match(other.stderr, /ZENITH-771 already credited 20000 kobo to the live wallet/);
  const { account: stored } = await core.admin.getAccount({ accountId: id });
  assert.is(stored!.balanceKobo, 20_000n);
  assert.is((await ledgerOf(core, id)).length, 1);
});

test('accounts get shows name, tier and balance in Naira with two decimals', async ({ core }) => {
  const id = String((await createAccount(core, 'reseller'))['account_id']);
  await core.admin.creditWallet({ accountId: id, amountKobo: 1_234_567n, memo: '' });
  const { json } = await runJson(core, ['accounts', 'get', id]);
  assert.is(json['account_id'], id);
  assert.is(json['tier'], 'reseller');
  assert.is(json['balance'], 12_345.67);
  assert.is(json['balance_kobo'], 1_234_567);
  const text = await runAgainst(core, ['accounts', 'get', id]);
  assert.ok(text.stdout.includes('Balance:  NGN 12,345.67'), text.stdout);
  assert.ok(text.stdout.includes('Tier:     reseller'), text.stdout);
});

test('set-tier from basic to api issues the first key pair once; coming back issues none', async ({ core }) => {
  const id = String((await createAccount(core, 'basic'))['account_id']);
  const first = await runJson(core, ['accounts', 'set-tier', id, 'api']);
  assert.is(first.code, 0);
  assert.is(first.json['tier'], 'api');
  assert.match(String(first.json['secret_key']), /^sk_/);
  assert.ok(first.stderr.includes(SECRET_SHOWN_ONCE_WARNING));
  assert.is(await verifyReason(core, String(first.json['public_key']), String(first.json['secret_key'])), 'OK');

  const down = await runJson(core, ['accounts', 'set-tier', id, 'basic']);
  assert.is(down.json['tier'], 'basic');
  assert.not.ok('public_key' in down.json);
  // Off the API tier the same pair no longer authenticates.
  assert.is(
    await verifyReason(core, String(first.json['public_key']), String(first.json['secret_key'])),
    'INVALID_API_KEY',
  );

  const again = await runJson(core, ['accounts', 'set-tier', id, 'api']);
  assert.not.ok('secret_key' in again.json);
  assert.is(again.stderr, '');
  assert.is((await core.admin.listApiKeys({ accountId: id })).keys.length, 1);
});

test('keys create, list and revoke: a revoked pair stops authenticating', async ({ core }) => {
  const account = await createAccount(core, 'api');
  const id = String(account['account_id']);
  const created = await runJson(core, ['keys', 'create', id]);
  assert.is(created.code, 0);
  assert.is(created.json['account_id'], id);
  assert.ok(created.stderr.includes(SECRET_SHOWN_ONCE_WARNING));
  const publicKey = String(created.json['public_key']);
  const secretKey = String(created.json['secret_key']);
  assert.is(await verifyReason(core, publicKey, secretKey), 'OK');
  // The use is noted in memory; the background write is due in a few seconds, so write it now.
  await core.core.keyUses.flush();

  const listed = await runJson(core, ['keys', 'list', id]);
  const keys = listed.json['keys'] as Array<Record<string, unknown>>;
  assert.is(keys.length, 2);
  assert.equal(keys.map((k) => k['public_key']).sort(), [String(account['public_key']), publicKey].sort());
  for (const key of keys) {
    assert.equal(Object.keys(key).sort(), [
      'account_id',
      'allowed_ips',
      'cap_per_day',
      'cap_per_day_kobo',
      'cap_per_purchase',
      'cap_per_purchase_kobo',
      'created_at',
      'expires_at',
      'frozen_at',
      'frozen_reason',
      'last_used_at',
      'mode',
      'public_key',
      'revoked',
      'scopes',
      'spent_today',
      'spent_today_kobo',
    ]);
    assert.is(key['mode'], 'live');
    assert.is(key['revoked'], false);
  }
  // The pair just checked has a last use; the account's first pair was never used.
  const lastUsed = new Map(keys.map((k) => [k['public_key'], k['last_used_at']]));
  assert.match(String(lastUsed.get(publicKey)), /^\d{4}-\d\d-\d\dT/);
  assert.is(lastUsed.get(String(account['public_key'])), null);
  const table = await runAgainst(core, ['keys', 'list', id]);
  assert.match(table.stdout, /LAST USED/);
  assert.match(table.stdout, new RegExp(`${String(account['public_key'])}\\s.*\\snever$`, 'm'));

  const revoked = await runJson(core, ['keys', 'revoke', publicKey]);
  assert.is(revoked.code, 0);
  assert.is(revoked.json['public_key'], publicKey);
  assert.is(revoked.json['revoked'], true);
  assert.is(await verifyReason(core, publicKey, secretKey), 'INVALID_API_KEY');
  // The account's other pair is untouched.
  assert.is(await verifyReason(core, String(account['public_key']), String(account['secret_key'])), 'OK');
  const text = await runAgainst(core, ['keys', 'list', id]);
  assert.match(text.stdout, new RegExp(`${publicKey}\\s+live\\s+revoked`));
});

test('test mode from the CLI: a test pair, test money, the test ledger, and live left alone', async ({ core }) => {
  const account = await createAccount(core, 'api');
  const id = String(account['account_id']);
  const created = await runJson(core, ['keys', 'create', id, '--mode', 'test']);
  assert.is(created.code, 0);
  assert.is(created.json['mode'], 'test');
  assert.match(String(created.json['public_key']), /^pk_test_/);
  assert.match(String(created.json['secret_key']), /^sk_test_/);
  assert.ok(created.stderr.includes(SECRET_SHOWN_ONCE_WARNING));
  assert.is(await verifyReason(core, String(created.json['public_key']), String(created.json['secret_key'])), 'OK');
  const listed = await runAgainst(core, ['keys', 'list', id]);
  assert.match(listed.stdout, new RegExp(`${String(created.json['public_key'])}\\s+test\\s+active`));

  const credited = await runJson(core, ['wallet', 'credit', id, '250', '--mode', 'test']);
  assert.is(credited.code, 0);
  assert.is(credited.json['mode'], 'test');
  assert.is(credited.json['balance_kobo'], 25_000);
  const text = await runAgainst(core, ['wallet', 'credit', id, '0.5', '--mode', 'test']);
  assert.ok(text.stdout.includes('to the test wallet of'), text.stdout);
  assert.ok(text.stdout.includes('Test balance: NGN 250.50'), text.stdout);

  const { account: stored } = await core.admin.getAccount({ accountId: id });
  assert.is(stored!.balanceKobo, 0n, 'the live wallet got nothing');
  assert.is(stored!.testBalanceKobo, 25_050n);
  assert.equal(await ledgerOf(core, id), [], 'the live ledger is empty');
  const ledger = await runJson(core, ['wallet', 'ledger', id, '--mode', 'test']);
  assert.is(ledger.json['mode'], 'test');
  assert.equal(
    (ledger.json['entries'] as Array<Record<string, unknown>>).map((e) => [e['mode'], e['kind'], e['amount_kobo']]),
    [
      ['test', 'credit', 50],
      ['test', 'credit', 25_000],
    ],
  );
  const shown = await runAgainst(core, ['wallet', 'ledger', id, '--mode', 'test']);
  assert.ok(shown.stdout.includes(`The test wallet of ${id}:`), shown.stdout);
  const got = await runJson(core, ['accounts', 'get', id]);
  assert.equal([got.json['balance_kobo'], got.json['test_balance_kobo']], [0, 25_050]);

  const bad = await runAgainst(core, ['wallet', 'credit', id, '1', '--mode', 'sandbox']);
  assert.is(bad.code, 2);
  assert.match(bad.stderr, /--mode must be live or test/);
});

test('keys lock-ip limits a pair to the listed IPs and unlock-ip lifts the lock', async ({ core }) => {
  const account = await createAccount(core, 'api');
  const publicKey = String(account['public_key']);
  const secretKey = String(account['secret_key']);

  const locked = await runJson(core, ['keys', 'lock-ip', publicKey, '198.51.100.10', '2001:db8::1']);
  assert.is(locked.code, 0);
  assert.equal(locked.json['allowed_ips'], ['198.51.100.10', '2001:db8::1']);
  assert.is(await verifyReason(core, publicKey, secretKey, '198.51.100.10'), 'OK');
  assert.is(await verifyReason(core, publicKey, secretKey, '2001:db8::1'), 'OK');
  assert.is(await verifyReason(core, publicKey, secretKey, '203.0.113.7'), 'IP_NOT_ALLOWED');

  const unlocked = await runJson(core, ['keys', 'unlock-ip', publicKey]);
  assert.is(unlocked.code, 0);
  assert.equal(unlocked.json['allowed_ips'], []);
  assert.is(await verifyReason(core, publicKey, secretKey, '203.0.113.7'), 'OK');
});

test('keys lock-ip with an address that is not an IP is refused by the core with the field listed', async ({
  core,
}) => {
  const account = await createAccount(core, 'api');
  const run = await runAgainst(core, ['keys', 'lock-ip', String(account['public_key']), '10.0.0.1', 'not-an-ip']);
  assert.is(run.code, 1);
  assert.ok(run.stderr.includes('[INVALID_PARAMETER]'), run.stderr);
  assert.ok(run.stderr.includes('  - allowed_ips[1]: '), run.stderr);
  assert.equal((await core.admin.listApiKeys({ accountId: String(account['account_id']) })).keys[0]!.allowedIps, []);
});

test('pricing set-sms-rate takes Naira per page and get-sms-rate reads it back', async ({ core }) => {
  const set = await runJson(core, ['pricing', 'set-sms-rate', '3.25']);
  assert.is(set.code, 0);
  assert.equal(set.json, { naira_per_page: 3.25, kobo_per_page: 325 });
  assert.is((await core.admin.getSmsRate({})).koboPerPage, 325n);
  const got = await runJson(core, ['pricing', 'get-sms-rate']);
  assert.equal(got.json, { naira_per_page: 3.25, kobo_per_page: 325 });
  const text = await runAgainst(core, ['pricing', 'get-sms-rate']);
  assert.is(text.stdout, 'SMS page rate is NGN 3.25 per page per recipient.\n');
});

test('wallet ledger lists the newest entries first and honours --limit', async ({ core }) => {
  const id = String((await createAccount(core, 'basic'))['account_id']);
  for (const [naira, memo] of [
    ['100', 'first'],
    ['200', 'second'],
    ['300.25', 'third'],
  ] as const) {
    assert.is((await runAgainst(core, ['wallet', 'credit', id, naira, '--memo', memo])).code, 0);
  }
  const all = await runJson(core, ['wallet', 'ledger', id]);
  const entries = all.json['entries'] as Array<Record<string, unknown>>;
  assert.equal(
    entries.map((e) => e['memo']),
    ['third', 'second', 'first'],
  );
  assert.equal(
    entries.map((e) => e['amount_kobo']),
    [30_025, 20_000, 10_000],
  );
  assert.equal(
    entries.map((e) => e['balance_after']),
    [600.25, 300, 100],
  );
  assert.is(entries[0]!['kind'], 'credit');
  assert.is(all.json['has_more'], false);

  const two = await runJson(core, ['wallet', 'ledger', id, '--limit', '2']);
  assert.is((two.json['entries'] as unknown[]).length, 2);
  assert.is(two.json['has_more'], true);

  const text = await runAgainst(core, ['wallet', 'ledger', id, '--limit', '1']);
  assert.ok(text.stdout.includes('NGN 300.25'), text.stdout);
  assert.ok(text.stdout.includes('third'), text.stdout);
  assert.not.ok(text.stdout.includes('second'), text.stdout);
  assert.ok(text.stdout.includes('older entries not shown'), text.stdout);
});

test('tiers list and plans list show the catalog with snake_case fields and integer kobo', async ({ core }) => {
  const tiers = (await runJson(core, ['tiers', 'list'])).json['tiers'] as Array<Record<string, unknown>>;
  const api = tiers.find((t) => t['tier_id'] === 'api');
  assert.ok(api);
  assert.is(api['api_access'], true);
  const discounts = api['discounts'] as Array<Record<string, unknown>>;
  assert.ok(discounts.some((d) => d['product'] === 'airtime' && d['service'] === 'mtn' && d['basis_points'] === 300));
  assert.is(tiers.find((t) => t['tier_id'] === 'basic')!['api_access'], false);

  const mtn = await runJson(core, ['plans', 'list', '--network', 'mtn']);
  assert.is(mtn.json['network'], 'mtn');
  const plans = mtn.json['plans'] as Array<Record<string, unknown>>;
  assert.ok(plans.length > 0);
  for (const plan of plans) {
    assert.is(plan['network'], 'mtn');
    assert.ok(Number.isInteger(plan['plan_id']));
    assert.ok(Number.isInteger(plan['face_value_kobo']));
    assert.is(plan['face_value'], (plan['face_value_kobo'] as number) / 100);
  }
  const text = await runAgainst(core, ['plans', 'list', '--network', 'glo']);
  assert.ok(text.stdout.includes('NGN 350.00'), text.stdout);
  assert.not.ok(text.stdout.includes(' mtn '), text.stdout);
});

test.run();
