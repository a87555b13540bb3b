/**
 * A full disk under the embedded store, for real: the core's SQLite file lives on a small
 * tmpfs that the test fills (CI runs as root; where mount is refused the test says SKIPPED and
 * why). While it is full a purchase is refused with 503 STORE_UNAVAILABLE before any debit and
 * the core reports not ready; a purchase whose upstream delivered while the disk filled behind
 * it is answered 202 pending with its reference and settled by the recovery worker once room
 * is back; and purchases succeed again once space is freed, with no restart and the ledger
 * exact.
 */
import { execFileSync } from 'node:child_process';
import { closeSync, mkdtempSync, openSync, rmSync, writeSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import Database from 'better-sqlite3';
import * as assert from 'uvu/assert';
import { createCoreMetrics } from '../../core/metrics.js';
import type { Providers } from '../../core/providers/port.js';
import { createSandbox } from '../../core/providers/sandbox/index.js';
import { operationsAlerts } from '../../core/storage/alerts.js';
import { Health, HealthCheckResponse_ServingStatus } from '../../gen/grpc/health/v1/health_pb.js';
import { balanceKobo } from '../gateway/fields.js';
import { assertLedgerInvariant, startCore, type TestCore } from '../helpers/core.js';
import { startTestGateway, type TestGateway } from '../helpers/gateway.js';
import { suite } from '../helpers/suite.js';

const test = suite('storage: a full disk under the embedded store');

/** Room for the schema, the seeded catalogue and a few hundred purchases, small enough to fill at once. */
const TMPFS_SIZE = '48m';
const FILLER = 'filler';

let mountPoint = '';
let skipped: string | null = null;
let core: TestCore;
let gateway: TestGateway;
/** When set, the upstream fills the disk after it delivered and before it answers. */
let fillOnDelivery = false;
const metrics = createCoreMetrics();
const logged: { event: string; fields: Record<string, unknown> }[] = [];

async function storeWritable(): Promise<number> {
  const line = (await metrics.registry.metrics()).split('\n').find((l) => l.startsWith('prepaid_core_store_writable '));
  return Number(line?.split(' ')[1]);
}

function mountTmpfs(): string | null {
  mountPoint = mkdtempSync(path.join(tmpdir(), 'prepaid-full-'));
  try {
    execFileSync('mount', ['-t', 'tmpfs', '-o', `size=${TMPFS_SIZE},mode=0700`, 'tmpfs', mountPoint], {
      stdio: ['ignore', 'ignore', 'pipe'],
    });
    return null;
  } catch (error) {
    rmSync(mountPoint, { recursive: true, force: true });
    return `cannot mount a tmpfs (${(error as Error).message.split('\n')[0]}); run as root to test a full disk`;
  }
}

/** Writes zeroes until the file system says ENOSPC. */
function fillDisk(): void {
  const fd = openSync(path.join(mountPoint, FILLER), 'a');
  const block = Buffer.alloc(1 << 20);
  try {
    for (;;) writeSync(fd, block);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ENOSPC') throw error;
  } finally {
    closeSync(fd);
  }
}

function freeDisk(): void {
  rmSync(path.join(mountPoint, FILLER), { force: true });
}

/**
 * The WAL emptied and truncated (another connection may checkpoint), so that the next commit
 * has to grow it: with room left in the WAL a commit would still fit on a full disk.
 */
function truncateWal(file: string): void {
  const db = new Database(file);
  try {
    db.pragma('wal_checkpoint(TRUNCATE)');
  } finally {
    db.close();
  }
}

test.before(async () => {
  skipped = mountTmpfs();
  if (skipped !== null) return;
  const sandbox = createSandbox();
  const providers = (): Providers => ({
    ...sandbox,
    airtime: {
      ...sandbox.airtime,
      async purchase(request, signal) {
        const outcome = await sandbox.airtime.purchase(request, signal);
        if (fillOnDelivery) fillDisk();
        return outcome;
      },
    },
  });
  core = await startCore({
    storeFile: path.join(mountPoint, 'prepaid.sqlite'),
    providers,
    metrics,
    log: (event, fields) => logged.push({ event, fields }),
  });
  gateway = await startTestGateway(core);
});

test.after(async () => {
  if (skipped !== null) return;
  await gateway?.close();
  await core?.close();
  freeDisk();
  execFileSync('umount', [mountPoint]);
  rmSync(mountPoint, { recursive: true, force: true });
});

const storeFile = () => path.join(mountPoint, 'prepaid.sqlite');
const buy = (keys: { publicKey: string; secretKey: string }, phone: string) =>
  gateway.request({ query: { action: 'airtime' }, keys, body: { network: 'mtn', phone, amount: 100 } });

async function coreServing(): Promise<boolean> {
  const health = core.clientWithToken(Health, core.serviceToken);
  const answer = await health.check({ service: '' });
  return answer.status === HealthCheckResponse_ServingStatus.SERVING;
}

test('full: 503 STORE_UNAVAILABLE with nothing debited, not ready; freed: sales again with no restart', async () => {
  if (skipped !== null) {
    console.log(`SKIPPED: ${skipped}`);
    return;
  }
  const account = await core.createApiAccount({ balanceKobo: 100_000_00 });
  const first = await buy(account, '08031234501');
  assert.is(first.status, 200, first.text);
  const before = await balanceKobo(core, account.accountId);

  truncateWal(storeFile());
  fillDisk();
  const refused = await buy(account, '08031234502');
  assert.is(refused.status, 503, refused.text);
  const body = refused.json as { code: string; message: string; reference?: string };
  assert.is(body.code, 'STORE_UNAVAILABLE');
  assert.match(body.message, /nothing was charged/);
  assert.is(body.reference, undefined, 'no purchase was made, so none is named');
  assert.is(await balanceKobo(core, account.accountId), before, 'nothing debited');
  assert.is(core.store.writes.fault()?.reason, 'the disk is full');
  assert.is(await coreServing(), false, 'the core reports not ready while it cannot write');
  assert.is(await storeWritable(), 0, 'and its metric says so');
  const warned = logged.find((l) => l.event === 'store.write_warning');
  assert.is(warned?.fields['reason'], 'the disk is full', 'the log says why');
  assert.equal(
    operationsAlerts(core.store.writes, undefined).map((a) => a.kind),
    ['store_cannot_write'],
    "the console's queue lists it under the platform",
  );
  // The probe finds no room either.
  assert.is(await core.core.storeWatch.runOnce(), false);
  const again = await buy(account, '08031234503');
  assert.is(again.status, 503);

  freeDisk();
  assert.is(await core.core.storeWatch.runOnce(), true, 'the probe writes once room is back');
  assert.is(core.store.writes.fault(), null);
  assert.is(await coreServing(), true, 'ready again, no restart');
  assert.is(await storeWritable(), 1);
  assert.ok(logged.some((l) => l.event === 'store.writable_again'));
  const after = await buy(account, '08031234504');
  assert.is(after.status, 200, after.text);
  assert.is(await balanceKobo(core, account.accountId), before - 97_00n, 'one more sale, one more debit');
  await assertLedgerInvariant(core, account.accountId);
  const check = await core.admin.checkLedger({});
  assert.is(check.violationCount, 0n);
});

test('the disk fills after the reserve: 202 pending with the reference, settled once it can write', async () => {
  if (skipped !== null) {
    console.log(`SKIPPED: ${skipped}`);
    return;
  }
  const account = await core.createApiAccount({ balanceKobo: 10_000_00 });
  const before = await balanceKobo(core, account.accountId);
  truncateWal(storeFile());
  fillOnDelivery = true;
  let reply: Awaited<ReturnType<typeof buy>>;
  try {
    reply = await buy(account, '08031234505');
  } finally {
    fillOnDelivery = false;
  }
  assert.is(reply.status, 202, reply.text);
  const body = reply.json as { status: string; reference: string; charged: number };
  assert.is(body.status, 'pending');
  assert.match(body.reference, /^\d{12}[A-Z0-9]{10}$/);
  assert.is(await balanceKobo(core, account.accountId), before - 97_00n, 'the money is held, not lost');

  // Still full: the recovery worker cannot settle it, and it stays pending (never refunded).
  await core.recoverNow().catch(() => 0);
  assert.is((await core.store.transactions.get(body.reference))?.status, 'pending');

  freeDisk();
  await core.core.storeWatch.runOnce();
  await core.recoverNow();
  const settled = await core.store.transactions.get(body.reference);
  assert.is(settled?.status, 'success', 'the delivered purchase is settled, once');
  assert.is(await balanceKobo(core, account.accountId), before - 97_00n, 'charged once');
  await assertLedgerInvariant(core, account.accountId);
});

test.run();
