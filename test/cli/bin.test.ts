import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import * as assert from 'uvu/assert';
import { startCore, type TestCore } from '../helpers/core.js';
import { suite } from '../helpers/suite.js';

const BIN = fileURLToPath(new URL('../../bin/prepaid.js', import.meta.url));
const PROJECT_DIR = fileURLToPath(new URL('../../', import.meta.url));

/** A bound on one run of the bin: starting node and tsx takes a second or two here. */
const SPAWN_TIMEOUT_MS = 30_000;

const test = suite<{ core: TestCore }>('prepaid bin');

test.before(async (ctx) => {
  ctx.core = await startCore();
});
test.after(async (ctx) => {
  await ctx.core.close();
});

/** Runs `node bin/prepaid.js ...args` as its own process, as npx would. */
function runBin(
  args: string[],
  env: Record<string, string>,
): Promise<{ code: number | null; stdout: string; stderr: string }> {
  // The test process's own ADMIN_TOKEN or CORE_* must not decide where the bin goes.
  const inherited = Object.fromEntries(
    Object.entries(process.env).filter(([name]) => !/^(ADMIN_TOKEN|CORE_|DATA_DIR)/.test(name)),
  );
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [BIN, ...args], {
      cwd: PROJECT_DIR,
      env: { ...inherited, ...env },
      timeout: SPAWN_TIMEOUT_MS,
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, stdout, stderr }));
  });
}

test('node bin/prepaid.js creates an API-tier account end to end and exits with the CLI status', async ({ core }) => {
  const env = { CORE_URL: core.url, DATA_DIR: core.dataDir };
  const created = await runBin(['--json', 'accounts', 'create', '--name', 'Spawned Shop', '--tier', 'api'], env);
  assert.is(created.code, 0, created.stderr);
  const json = JSON.parse(created.stdout) as Record<string, unknown>;
  assert.match(String(json['public_key']), /^pk_/);
  assert.match(String(json['secret_key']), /^sk_/);
  assert.ok(created.stderr.includes('shown only this once'));
  const { account } = await core.admin.getAccount({ accountId: String(json['account_id']) });
  assert.is(account!.name, 'Spawned Shop');
  assert.is(account!.tierId, 'api');

  // The exit status reaches the shell: 2 for a bad command line.
  const bad = await runBin(['wallet', 'credit', String(json['account_id']), '1.001'], env);
  assert.is(bad.code, 2);
  assert.match(bad.stderr, /^error: AMOUNT_NAIRA must have at most two decimals/);
});

test.run();
