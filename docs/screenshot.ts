/**
 * `npm run docs:screenshot`: retakes docs/dashboard-overview.png, the developer area's overview
 * as the README shows it, from the real service.
 *
 * It builds dist/ and starts the service as `npm start` runs it (node dist/bin/start.js) on a
 * fresh temporary data directory and free ports, makes an account with the admin CLI
 * (bin/prepaid.js: an `api` account, 10,000 Naira, an owner invited), buys through the public
 * API (airtime, data, electricity, cable, bulk SMS, one purchase left pending), accepts the
 * invitation and signs in with Debian's Chromium (/usr/bin/chromium, through playwright-core),
 * and saves the overview at 1280 pixels wide. Then it stops the service with SIGTERM and
 * removes the data directory. Nothing of the machine's ./data is touched.
 */
import { type ChildProcess, spawn, spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { acceptInvitation, CHROMIUM, launchChromium, signIn } from '../test/helpers/browser.js';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const OUTPUT = path.join(ROOT, 'docs', 'dashboard-overview.png');
const EMAIL = 'ada@adastores.ng';
const PASSWORD = 'a long password for the screenshot';

interface Running {
  child: ChildProcess;
  apiBase: string;
  dashboardUrl: string;
  coreUrl: string;
}

/** Starts node dist/bin/start.js and waits for the three listening lines. */
function startService(dataDir: string): Promise<Running> {
  const child = spawn(process.execPath, ['--enable-source-maps', 'dist/bin/start.js'], {
    cwd: ROOT,
    env: {
      ...process.env,
      DATA_DIR: dataDir,
      PORT: '0',
      HOST: '127.0.0.1',
      DASHBOARD_PORT: '0',
      DASHBOARD_HOST: '127.0.0.1',
      CORE_PORT: '0',
      CORE_METRICS_PORT: 'off',
    },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  return new Promise((resolve, reject) => {
    const found: Partial<Running> = { child };
    let buffered = '';
    child.on('exit', (code) => reject(new Error(`the service exited with status ${code} before it listened`)));
    child.stdout!.on('data', (chunk: Buffer) => {
      buffered += chunk.toString('utf8');
      let newline = buffered.indexOf('\n');
      while (newline >= 0) {
        const line = buffered.slice(0, newline);
        buffered = buffered.slice(newline + 1);
        newline = buffered.indexOf('\n');
        let entry: Record<string, unknown>;
        try {
          entry = JSON.parse(line);
        } catch {
          continue;
        }
        if (entry['event'] === 'core.listening') found.coreUrl = `http://${entry['address']}`;
        if (entry['event'] === 'gateway.listening') found.apiBase = String(entry['url']);
        if (entry['event'] === 'dashboard.listening') found.dashboardUrl = String(entry['url']);
        if (found.coreUrl && found.apiBase && found.dashboardUrl) {
          child.removeAllListeners('exit');
          resolve(found as Running);
        }
      }
    });
  });
}

/** Runs the admin CLI with --json against the running core; its parsed answer. */
function cli(service: Running, dataDir: string, ...args: string[]): Record<string, unknown> {
  const run = spawnSync(process.execPath, ['bin/prepaid.js', '--core', service.coreUrl, '--json', ...args], {
    cwd: ROOT,
    env: { ...process.env, DATA_DIR: dataDir },
    encoding: 'utf8',
  });
  if (run.status !== 0) throw new Error(`prepaid ${args.join(' ')} failed (${run.status}): ${run.stdout}${run.stderr}`);
  return JSON.parse(run.stdout);
}

/** One request to the public API with the account's key pair. */
async function api(service: Running, keys: { pk: string; sk: string }, action: string, body?: unknown): Promise<void> {
  const answer = await fetch(`${service.apiBase}?action=${action}`, {
    method: body === undefined ? 'GET' : 'POST',
    headers: {
      'X-Public-Key': keys.pk,
      'X-Secret-Key': keys.sk,
      ...(body === undefined ? {} : { 'Content-Type': 'application/json' }),
    },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  if (answer.status !== 200 && answer.status !== 202)
    throw new Error(`${action}: HTTP ${answer.status} ${await answer.text()}`);
}

async function main(): Promise<void> {
  const build = spawnSync(process.execPath, ['bin/build.js'], { cwd: ROOT, stdio: 'inherit' });
  if (build.status !== 0) throw new Error('npm run build failed');
  const dataDir = mkdtempSync(path.join(tmpdir(), 'prepaid-screenshot-'));
  let service: Running | undefined;
  const browser = await launchChromium();
  try {
    service = await startService(dataDir);
    const account = cli(service, dataDir, 'accounts', 'create', '--name', 'Ada Stores', '--tier', 'api');
    const accountId = String(account['account_id']);
    const keys = { pk: String(account['public_key']), sk: String(account['secret_key']) };
    cli(
      service,
      dataDir,
      'wallet',
      'credit',
      accountId,
      '10000',
      '--memo',
      'Bank transfer',
      '--reference',
      'GTB-000001',
    );
    const invitation = cli(service, dataDir, 'users', 'invite', accountId, '--email', EMAIL);

    await api(service, keys, 'airtime', { network: 'mtn', phone: '08031234567', amount: 100 });
    await api(service, keys, 'airtime', { network: 'airtel', phone: '08021234567', amount: 500 });
    await api(service, keys, 'data', { plan_id: 3, phone: '08031234567' });
    await api(service, keys, 'electricity', {
      disco: 'ikedc',
      meter_number: '45031234567',
      meter_type: 'prepaid',
      amount: 2000,
    });
    await api(service, keys, 'cable', { provider: 'gotv', smart_card: '7012345678', package_code: 'GOTV JINJA' });
    await api(service, keys, 'bulksms', {
      sender: 'AdaStores',
      recipients: ['08031234567', '08051234567'],
      message: 'Your order has shipped.',
    });
    await api(service, keys, 'airtime', { network: 'glo', phone: '08051238888', amount: 200 });

    const page = await browser.newPage({ viewport: { width: 1280, height: 900 } });
    await acceptInvitation(page, service.dashboardUrl, String(invitation['invite_url']), PASSWORD);
    await signIn(page, service.dashboardUrl, EMAIL, PASSWORD);
    await page.waitForURL(`${service.dashboardUrl}/`);
    await page.screenshot({ path: OUTPUT, fullPage: true });
    console.log(`Saved ${path.relative(ROOT, OUTPUT)} (the overview of ${accountId}, from ${CHROMIUM}).`);
  } finally {
    await browser.close();
    if (service !== undefined) {
      const exited = new Promise((resolve) => service!.child.once('exit', resolve));
      service.child.kill('SIGTERM');
      await exited;
    }
    rmSync(dataDir, { recursive: true, force: true });
  }
}

await main();
