/**
 * A backup taken while the service sells, checked and brought back: 50 connections buy
 * airtime through the gateway while `prepaid backup` runs; `prepaid backup verify` passes; the
 * backup restores into a new data directory with its secrets; a core started on the restored
 * store finds every purchase committed before the backup began, with its exact charge and the
 * balance its ledger adds up to, and the ledger check is clean. A backup with one byte changed
 * fails verify; a restore into a non-empty directory, or one a service holds, is refused.
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import * as assert from 'uvu/assert';
import { lockDir } from '../../runtime/data-dir.js';
import { ADMIN_TOKEN_FILE, SERVICE_TOKEN_FILE } from '../../runtime/tokens.js';
import { runAgainst, runWith } from '../cli/run.js';
import { assertLedgerInvariant, ledgerOf, startCore, type TestCore } from '../helpers/core.js';
import { startTestGateway, type TestGateway } from '../helpers/gateway.js';
import { suite } from '../helpers/suite.js';

const test = suite('storage: backup while selling, verify, restore');

const CONNECTIONS = 50;
/** Each connection's purchases after the backup answered: sales go on around it, then stop. */
const AFTER_BACKUP = 3;
const PASSPHRASE = 'correct horse battery staple';

let core: TestCore;
let gateway: TestGateway;
let work: string;

test.before(async () => {
  core = await startCore({ providerDelayMs: 2 });
  gateway = await startTestGateway(core, { rateLimitPerMinute: 100_000 });
  work = mkdtempSync(path.join(tmpdir(), 'prepaid-backup-'));
});

test.after(async () => {
  await gateway?.close();
  await core?.close();
  rmSync(work, { recursive: true, force: true });
});

interface Sale {
  reference: string;
  charged: number;
  /** When its answer arrived: it was committed, and on disk, before then. */
  answeredAtMs: number;
}

test('a backup taken while 50 connections buy restores every sale committed before it, exactly', async () => {
  const account = await core.createApiAccount({ balanceKobo: 10_000_000_00 });
  const sales: Sale[] = [];
  let backupAnswered = false;
  const buyer = async (n: number) => {
    let after = 0;
    for (let i = 0; after < AFTER_BACKUP && i < 1_000; i++) {
      if (backupAnswered) after += 1;
      const reply = await gateway.request({
        query: { action: 'airtime' },
        keys: account,
        body: { network: 'mtn', phone: `0803${String(n).padStart(3, '0')}${String(i).padStart(4, '0')}`, amount: 100 },
      });
      assert.is(reply.status, 200, reply.text);
      const body = reply.json as { reference: string; charged: number };
      sales.push({ reference: body.reference, charged: body.charged, answeredAtMs: Date.now() });
    }
  };
  const buying = Promise.all(Array.from({ length: CONNECTIONS }, (_, n) => buyer(n)));
  // Sales are under way on every connection before the backup begins.
  while (sales.length < CONNECTIONS * 2) await new Promise((resolve) => setTimeout(resolve, 5));
  const startedAtMs = Date.now();
  const before = sales.filter((sale) => sale.answeredAtMs < startedAtMs).map((sale) => ({ ...sale }));
  const taken = await runWith(['--json', 'backup', '--to', path.join(work, 'backups')], {
    CORE_URL: core.url,
    DATA_DIR: core.dataDir,
    BACKUP_PASSPHRASE: PASSPHRASE,
  });
  backupAnswered = true;
  await buying;
  assert.is(taken.code, 0, taken.stderr);
  const backup = (JSON.parse(taken.stdout) as { path: string }).path;
  assert.ok(sales.length > before.length, 'purchases went on during the backup');

  const verified = await runWith(['backup', 'verify', backup], { BACKUP_PASSPHRASE: PASSPHRASE });
  assert.is(verified.code, 0, verified.stdout + verified.stderr);
  assert.match(verified.stdout, /The backup verifies/);
  assert.match(verified.stdout, /the passphrase opens them/);

  const restoredDir = path.join(work, 'restored');
  const restored = await runWith(['restore', backup, '--data-dir', restoredDir], { BACKUP_PASSPHRASE: PASSPHRASE });
  assert.is(restored.code, 0, restored.stdout + restored.stderr);
  assert.is(readFileSync(path.join(restoredDir, ADMIN_TOKEN_FILE), 'utf8').trim(), core.adminToken);
  assert.is(readFileSync(path.join(restoredDir, SERVICE_TOKEN_FILE), 'utf8').trim(), core.serviceToken);

  const again = await startCore({ storeFile: path.join(restoredDir, 'prepaid.sqlite') });
  try {
    for (const sale of before) {
      const tx = await again.store.transactions.get(sale.reference);
      assert.ok(tx !== null, `${sale.reference}, answered before the backup began, is in it`);
      assert.is(tx!.status, 'success');
      assert.is(tx!.chargedKobo, Math.round(sale.charged * 100));
    }
    const { account: back } = await again.admin.getAccount({ accountId: account.accountId });
    await assertLedgerInvariant(again, account.accountId);
    // One credit, then one debit of 97 Naira per sale the copy holds: each whole, none half.
    const debits = (await ledgerOf(again, account.accountId)).filter((entry) => entry.amountKobo < 0n);
    assert.ok(debits.length >= before.length, `${debits.length} sales in the copy, ${before.length} before it began`);
    assert.ok(debits.length <= sales.length);
    assert.ok(debits.every((entry) => entry.amountKobo === -97_00n));
    assert.is(back!.balanceKobo, 10_000_000_00n - BigInt(debits.length) * 97_00n, 'the exact balance of those sales');
    const check = await again.admin.checkLedger({});
    assert.is(check.violationCount, 0n, 'the ledger check is clean on the restored store');
  } finally {
    await again.close();
  }
});

/** A fresh backup of the test core, without its secrets. */
async function freshBackup(): Promise<string> {
  const taken = await runAgainst(core, ['--json', 'backup', '--to', path.join(work, 'more')]);
  assert.is(taken.code, 0, taken.stderr);
  assert.match(taken.stderr, /secrets the store needs are not in this backup/, 'the warning says what is left out');
  return (JSON.parse(taken.stdout) as { path: string }).path;
}

test('a backup with one byte changed fails verify, and so does a changed manifest', async () => {
  const backup = await freshBackup();
  assert.is((await runWith(['backup', 'verify', backup], {})).code, 0);
  const file = path.join(backup, 'prepaid.sqlite');
  const bytes = readFileSync(file);
  // A byte in the middle of the file: a page of data, not the header.
  const middle = Math.floor(bytes.length / 2);
  bytes[middle] = bytes[middle]! ^ 0xff;
  writeFileSync(file, bytes);
  const tampered = await runWith(['backup', 'verify', backup], {});
  assert.is(tampered.code, 1, tampered.stdout);
  assert.match(tampered.stdout, /does NOT verify/);
  assert.match(tampered.stdout, /SHA-256/);

  const other = await freshBackup();
  const manifestFile = path.join(other, 'manifest.json');
  const manifest = JSON.parse(readFileSync(manifestFile, 'utf8')) as { facts: { lastLedgerEntryId: number } };
  manifest.facts.lastLedgerEntryId += 1;
  writeFileSync(manifestFile, JSON.stringify(manifest));
  const lied = await runWith(['backup', 'verify', manifestFile], {});
  assert.is(lied.code, 1);
  assert.match(lied.stdout, /last_ledger_entry_id/);
});

test('a restore into a non-empty directory, or one a service holds, is refused and writes nothing', async () => {
  const backup = await freshBackup();
  const full = path.join(work, 'full');
  rmSync(full, { recursive: true, force: true });
  await runWith(['restore', backup, '--data-dir', full], {});
  const twice = await runWith(['restore', backup, '--data-dir', full], {});
  assert.is(twice.code, 1);
  assert.match(twice.stderr, /is not empty/);

  const held = mkdtempSync(path.join(work, 'held-'));
  // What core/main.ts takes on its data directory while it runs.
  const lock = lockDir(held);
  try {
    const refused = await runWith(['restore', backup, '--data-dir', held], {});
    assert.is(refused.code, 1);
    assert.match(refused.stderr, /in use by another/);
  } finally {
    lock.release();
  }
  const noSecrets = await runWith(['restore', backup, '--data-dir', held], {});
  assert.is(noSecrets.code, 0, noSecrets.stderr);
  assert.match(noSecrets.stderr, /holds no secrets/);
});

test('the wrong passphrase opens nothing, and a restore with it is refused', async () => {
  const taken = await runWith(['--json', 'backup', '--to', path.join(work, 'sealed')], {
    CORE_URL: core.url,
    DATA_DIR: core.dataDir,
    BACKUP_PASSPHRASE: PASSPHRASE,
  });
  const backup = (JSON.parse(taken.stdout) as { path: string }).path;
  const wrong = { BACKUP_PASSPHRASE: 'not the passphrase at all' };
  const verified = await runWith(['backup', 'verify', backup], wrong);
  assert.is(verified.code, 1);
  assert.match(verified.stdout, /passphrase does not open/);
  const target = path.join(work, 'wrong-pass');
  const refused = await runWith(['restore', backup, '--data-dir', target], wrong);
  assert.is(refused.code, 1);
  assert.equal(
    readFileSync(path.join(backup, 'manifest.json'), 'utf8').includes(core.adminToken),
    false,
    'no secret in the manifest',
  );
  const missing = await runWith(['restore', backup, '--data-dir', target], {});
  assert.is(missing.code, 1);
  assert.match(missing.stderr, /give the passphrase/);
});

test.run();
