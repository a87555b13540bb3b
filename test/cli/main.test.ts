import { mkdtempSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import * as assert from 'uvu/assert';
import { COMMAND_GROUPS, EXIT_FAILURE, EXIT_OK, EXIT_USAGE } from '../../cli/main.js';
import { ledgerOf, startCore, type TestCore } from '../helpers/core.js';
import { suite } from '../helpers/suite.js';
import { coreEnv, runAgainst, runJson, runWith } from './run.js';

const test = suite<{ core: TestCore; accountId: string }>('prepaid CLI: help, usage errors and core errors');

test.before(async (ctx) => {
  ctx.core = await startCore();
  const { account } = await ctx.core.admin.createAccount({ name: 'Usage Test Shop', tierId: 'basic' });
  ctx.accountId = account!.accountId;
});
test.after(async (ctx) => {
  await ctx.core.close();
});

/** A local port nothing listens on: bound once by us, then released. */
async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

/** An environment in which any call would fail (no core, no token): exit 2 proves nothing was attempted. */
async function nowhereEnv(): Promise<Record<string, string>> {
  return {
    CORE_URL: `http://127.0.0.1:${await closedPort()}`,
    DATA_DIR: path.join(tmpdir(), 'prepaid-cli-no-such-dir'),
  };
}

test('--help, help and GROUP --help list every command with one line each, on stdout, exit 0', async () => {
  const env = await nowhereEnv();
  const full = await runWith(['--help'], env);
  assert.is(full.code, EXIT_OK);
  assert.is(full.stderr, '');
  assert.is((await runWith(['help'], env)).stdout, full.stdout);
  assert.is((await runWith(['-h'], env)).stdout, full.stdout);
  for (const group of COMMAND_GROUPS) {
    const groupHelp = await runWith([group.name, '--help'], env);
    assert.is(groupHelp.code, EXIT_OK);
    assert.is((await runWith(['help', group.name], env)).stdout, groupHelp.stdout);
    for (const command of group.commands) {
      // A group's own command (named '') is written without a name: `prepaid backup [--to DIR]`.
      const words = command.name === '' ? group.name : `${group.name} ${command.name}`;
      const others = group.commands
        .filter((c) => c.name !== '' && c !== command)
        .map((c) => `  ${group.name} ${c.name} `);
      const line = full.stdout
        .split('\n')
        .filter((l) => (l.startsWith(`  ${words} `) || l === `  ${words}`) && !others.some((o) => l.startsWith(o)))
        .filter((l) => command.name !== '' || l.includes(command.summary));
      assert.is(line.length, 1, `${words} is listed once in --help`);
      assert.ok(line[0]!.includes(command.summary));
      assert.ok(groupHelp.stdout.includes(`prepaid ${words}`));
      // A group's own command is shown with its group's (above).
      if (command.name === '') continue;
      const commandHelp = await runWith([...words.split(' '), '--help'], env);
      assert.is(commandHelp.code, EXIT_OK);
      assert.ok(commandHelp.stdout.startsWith(`Usage: prepaid ${words}`));
    }
  }
  // The commands docs/cli.md names are all there.
  for (const required of [
    'accounts create --name NAME [--tier TIER]',
    'accounts set-tier ACCOUNT_ID TIER',
    'keys create ACCOUNT_ID',
    'keys revoke PUBLIC_KEY',
    'keys lock-ip PUBLIC_KEY IP',
    'keys unlock-ip PUBLIC_KEY',
    'keys freeze PUBLIC_KEY --reason TEXT',
    'keys unfreeze PUBLIC_KEY',
    'wallet credit ACCOUNT_ID AMOUNT_NAIRA',
    'pricing set-sms-rate NAIRA_PER_PAGE',
  ]) {
    assert.ok(full.stdout.includes(`  ${required}`), required);
  }
});

test('a bad amount is a usage error (exit 2) and never reaches the core', async ({ core, accountId }) => {
  const before = (await ledgerOf(core, accountId)).length;
  const rateBefore = (await core.admin.getSmsRate({})).koboPerPage;
  const cases: string[][] = [
    ['wallet', 'credit', accountId, '1.234'],
    ['wallet', 'credit', accountId, '-5'],
    ['wallet', 'credit', accountId, 'ten'],
    ['wallet', 'credit', accountId, '0'],
    ['wallet', 'credit', accountId, '1e3'],
    ['pricing', 'set-sms-rate', '2.555'],
    ['pricing', 'set-sms-rate', '0.00'],
  ];
  for (const argv of cases) {
    const run = await runAgainst(core, argv);
    assert.is(run.code, EXIT_USAGE, argv.join(' '));
    assert.is(run.stdout, '');
    assert.match(run.stderr, /^error: .+\nusage: prepaid (wallet credit|pricing set-sms-rate) /);
    // Where any call would fail, the answer is still the usage error: no call was tried.
    const nowhere = await runWith(argv, await nowhereEnv());
    assert.is(nowhere.code, EXIT_USAGE, argv.join(' '));
  }
  assert.is((await ledgerOf(core, accountId)).length, before);
  assert.is((await core.admin.getSmsRate({})).koboPerPage, rateBefore);
  const twoDecimals = await runAgainst(core, ['wallet', 'credit', accountId, '1.234']);
  assert.ok(twoDecimals.stderr.includes('AMOUNT_NAIRA must have at most two decimals'), twoDecimals.stderr);
});

test('unknown commands, missing or extra arguments and bad flags are usage errors (exit 2)', async () => {
  const env = await nowhereEnv();
  const cases: Array<[string[], RegExp]> = [
    [[], /^error: missing command\./],
    [['nope'], /^error: unknown command "nope"/],
    [['accounts'], /^error: missing the accounts command\./],
    [['accounts', 'delete', 'acc_1'], /^error: unknown command "accounts delete"/],
    [['accounts', 'get'], /^error: missing ACCOUNT_ID\.\nusage: prepaid accounts get ACCOUNT_ID\n/],
    [['accounts', 'get', 'acc_1', 'acc_2'], /^error: unexpected argument "acc_2"\./],
    [['accounts', 'set-tier', 'acc_1'], /^error: missing TIER\./],
    [['accounts', 'create'], /^error: missing --name NAME\./],
    [['accounts', 'create', '--name'], /^error: Option '--name <value>' argument missing/],
    [['accounts', 'get', 'acc_1', '--name', 'x'], /^error: accounts get does not take --name\./],
    [['accounts', 'get', 'acc_1', '--verbose'], /^error: unknown option --verbose\./],
    [['keys', 'lock-ip', 'pk_1'], /^error: missing IP\./],
    [['wallet', 'credit', 'acc_1'], /^error: missing AMOUNT_NAIRA\./],
    [['wallet', 'ledger', 'acc_1', '--limit', '0'], /^error: --limit must be a whole number from 1 to 500/],
    [['wallet', 'ledger', 'acc_1', '--limit', '501'], /^error: --limit must be a whole number/],
    [['tiers', 'list', 'extra'], /^error: unexpected argument "extra"\./],
    [['--json=yes', 'tiers', 'list'], /^error: /],
    [['--core', 'ftp://example.com', 'tiers', 'list'], /^error: --core must start with http:\/\/ or https:\/\//],
  ];
  for (const [argv, stderr] of cases) {
    const run = await runWith(argv, env);
    assert.is(run.code, EXIT_USAGE, argv.join(' '));
    assert.match(run.stderr, stderr);
    assert.ok(run.stderr.includes("Run 'prepaid --help'"), argv.join(' '));
    assert.not.match(run.stderr, /\n\s+at /, 'no stack trace');
    assert.is(run.stdout, '');
  }
  const json = await runWith(['--json', 'accounts', 'get'], env);
  assert.is(json.code, EXIT_USAGE);
  assert.equal(JSON.parse(json.stdout), {
    error: { code: 'USAGE', grpc_code: null, message: 'missing ACCOUNT_ID.', field_violations: [] },
  });
});

test('an unknown account is exit 1 with the NOT_FOUND reason, in text and in JSON', async ({ core }) => {
  const text = await runAgainst(core, ['accounts', 'get', 'acc_doesnotexist']);
  assert.is(text.code, EXIT_FAILURE);
  assert.is(text.stdout, '');
  assert.is(text.stderr, 'error: Account acc_doesnotexist was not found. [NOT_FOUND]\n');

  const json = await runJson(core, ['wallet', 'credit', 'acc_doesnotexist', '10']);
  assert.is(json.code, EXIT_FAILURE);
  assert.equal(json.json, {
    error: {
      code: 'NOT_FOUND',
      grpc_code: 'NOT_FOUND',
      message: 'Account acc_doesnotexist was not found.',
      field_violations: [],
    },
  });
});

test('an invalid parameter is exit 1 with the reason and every field violation', async ({ core }) => {
  const text = await runAgainst(core, ['accounts', 'create', '--name', 'Shop', '--tier', 'gold']);
  assert.is(text.code, EXIT_FAILURE);
  assert.match(text.stderr, /^error: .*gold.* \[INVALID_PARAMETER\]\n {2}- tier_id: /);
  const json = await runJson(core, ['accounts', 'create', '--name', '   ']);
  const error = json.json['error'] as Record<string, unknown>;
  assert.is(error['code'], 'INVALID_PARAMETER');
  assert.is(error['grpc_code'], 'INVALID_ARGUMENT');
  assert.equal(
    (error['field_violations'] as Array<Record<string, unknown>>).map((v) => v['field']),
    ['name'],
  );
});

test('an unreachable core is exit 1 with a message that says what to do', async () => {
  const port = await closedPort();
  const env = { CORE_URL: `http://127.0.0.1:${port}`, ADMIN_TOKEN: 'an-admin-token-of-some-length' };
  const run = await runWith(['accounts', 'get', 'acc_1'], env, [env.ADMIN_TOKEN]);
  assert.is(run.code, EXIT_FAILURE);
  assert.is(run.stderr, `error: cannot reach the core at http://127.0.0.1:${port}: is it running? (npm start)\n`);
  const json = await runWith(['--json', 'tiers', 'list'], env, [env.ADMIN_TOKEN]);
  assert.is(json.code, EXIT_FAILURE);
  assert.is((JSON.parse(json.stdout) as { error: { code: string } }).error.code, 'CORE_UNREACHABLE');
});

test('without ADMIN_TOKEN or a token file the CLI says how to get one (exit 1)', async () => {
  const emptyDataDir = mkdtempSync(path.join(tmpdir(), 'prepaid-cli-'));
  try {
    const run = await runWith(['tiers', 'list'], {
      CORE_URL: `http://127.0.0.1:${await closedPort()}`,
      DATA_DIR: emptyDataDir,
    });
    assert.is(run.code, EXIT_FAILURE);
    assert.ok(run.stderr.includes(path.join(emptyDataDir, 'admin.token')), run.stderr);
    assert.ok(run.stderr.includes('Start the core once (npm start)'), run.stderr);
    assert.ok(run.stderr.includes('ADMIN_TOKEN'), run.stderr);
  } finally {
    rmSync(emptyDataDir, { recursive: true, force: true });
  }
});

test('a wrong ADMIN_TOKEN is refused by the core, and the CLI never prints a token', async ({ core }) => {
  const wrong = 'not-the-admin-token-but-long-enough';
  const run = await runWith(['tiers', 'list'], { CORE_URL: core.url, DATA_DIR: core.dataDir, ADMIN_TOKEN: wrong }, [
    wrong,
    core.adminToken,
  ]);
  assert.is(run.code, EXIT_FAILURE);
  assert.match(run.stderr, /\[(UNAUTHENTICATED|PERMISSION_DENIED)\]/);
  assert.ok(run.stderr.includes('refused the admin token from ADMIN_TOKEN'), run.stderr);
});

test('ADMIN_TOKEN wins over the file, CORE_HOST and CORE_PORT are honoured, and --core overrides CORE_URL', async ({
  core,
}) => {
  const fromEnv = await runWith(['tiers', 'list'], {
    CORE_URL: core.url,
    ADMIN_TOKEN: core.adminToken,
    DATA_DIR: '/nonexistent',
  });
  assert.is(fromEnv.code, EXIT_OK, fromEnv.stderr);
  const byPort = await runWith(['tiers', 'list'], {
    CORE_PORT: String(core.port),
    CORE_HOST: '0.0.0.0',
    DATA_DIR: core.dataDir,
  });
  assert.is(byPort.code, EXIT_OK, byPort.stderr);
  const badUrl = `http://127.0.0.1:${await closedPort()}`;
  const overridden = await runWith(['--core', core.url, 'tiers', 'list'], { ...coreEnv(core), CORE_URL: badUrl });
  assert.is(overridden.code, EXIT_OK, overridden.stderr);
  const badPort = await runWith(['tiers', 'list'], { CORE_PORT: 'fifty', DATA_DIR: core.dataDir });
  assert.is(badPort.code, EXIT_FAILURE);
  assert.ok(badPort.stderr.includes('CORE_PORT must be a port number'), badPort.stderr);
});

test('flags may come before or after the command words', async ({ core, accountId }) => {
  for (const argv of [
    ['--json', 'accounts', 'get', accountId],
    ['accounts', '--json', 'get', accountId],
    ['accounts', 'get', accountId, '--json'],
  ]) {
    const run = await runAgainst(core, argv);
    assert.is(run.code, EXIT_OK);
    assert.is((JSON.parse(run.stdout) as Record<string, unknown>)['account_id'], accountId);
  }
});

test.run();
