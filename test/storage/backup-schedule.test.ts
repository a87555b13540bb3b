/**
 * Scheduled backups under a test clock: a backup when one is due and none before, the newest
 * BACKUP_KEEP kept, the newest good backup's age as a metric, and a failure that is a warning,
 * a count and an item in the console's attention queue until the next good backup.
 */
import { mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import * as assert from 'uvu/assert';
import { createCoreMetrics } from '../../core/metrics.js';
import { startCore, type TestCore } from '../helpers/core.js';
import { consoleClients, signedInStaff, TestClock } from '../helpers/staff.js';
import { suite } from '../helpers/suite.js';

const test = suite('storage: scheduled backups');

const HOUR_MS = 3_600_000;
const EVERY_MS = 6 * HOUR_MS;
const KEEP = 2;

let core: TestCore;
let work: string;
const clock = new TestClock();
const metrics = createCoreMetrics();
const logged: { event: string; fields: Record<string, unknown> }[] = [];

test.before(async () => {
  work = mkdtempSync(path.join(tmpdir(), 'prepaid-schedule-'));
  const dir = path.join(work, 'backups');
  core = await startCore({
    clock: clock.now,
    metrics,
    log: (event, fields) => logged.push({ event, fields }),
    backups: { dir, schedule: { dir, everyMs: EVERY_MS, keep: KEEP, passphrase: undefined } },
  });
});

test.after(async () => {
  await core?.close();
  rmSync(work, { recursive: true, force: true });
});

async function series(name: string): Promise<number> {
  const text = await metrics.registry.metrics();
  const line = text.split('\n').find((l) => l.startsWith(`${name} `) || l.startsWith(`${name}{`));
  assert.ok(line !== undefined, `${name} is exposed`);
  return Number(line!.split(' ').at(-1));
}

const backupsIn = (dir: string) => readdirSync(dir).filter((name) => name.startsWith('prepaid-backup-'));

test('a backup when due, none before; the newest BACKUP_KEEP kept; the age metric follows the clock', async () => {
  const schedule = core.core.backups.scheduled!;
  const dir = path.join(work, 'backups');
  assert.ok((await schedule.runner.runOnce()) !== null, 'the first pass takes one: none was there');
  assert.is(backupsIn(dir).length, 1);
  clock.advance(HOUR_MS);
  assert.is(await schedule.runner.runOnce(), null, 'an hour later none is due');
  assert.is(await series('prepaid_core_backup_newest_age_seconds'), 3_600);
  for (let i = 0; i < 3; i++) {
    clock.advance(EVERY_MS);
    assert.ok((await schedule.runner.runOnce()) !== null);
  }
  const kept = backupsIn(dir);
  assert.is(kept.length, KEEP, `${kept.join(', ')}`);
  assert.is(await series('prepaid_core_backup_newest_age_seconds'), 0);
  assert.is(await series('prepaid_core_backups_total{result="ok"}'), 4);
  assert.ok(logged.some((l) => l.event === 'backup.pruned'));
  assert.ok(
    logged.some((l) => l.event === 'backup.warning' && String(l.fields['message']).includes('not in this backup')),
    'without a passphrase each says the secrets are left out',
  );
});

test("a failed backup is a warning, a count and an item in the console's queue until one succeeds", async () => {
  const schedule = core.core.backups.scheduled!;
  const dir = path.join(work, 'backups');
  // The directory replaced by a file: the next backup cannot be written.
  rmSync(dir, { recursive: true, force: true });
  writeFileSync(dir, 'not a directory');
  clock.advance(EVERY_MS);
  assert.is(await schedule.runner.runOnce(), null);
  assert.ok(schedule.lastFailure() !== null);
  assert.ok(logged.some((l) => l.event === 'backup.warning' && l.fields['problem'] === 'backup_failed'));
  assert.is(await series('prepaid_core_backups_total{result="failed"}'), 1);
  assert.ok((await series('prepaid_core_backup_newest_age_seconds')) >= EVERY_MS / 1000, 'the age goes on growing');
  const staff = await signedInStaff(core, clock, 'support');
  const { console } = consoleClients(core);
  const asked = () => console.getAttention({ sessionToken: staff.token, clientAddress: '127.0.0.1' });
  const queue = await asked();
  assert.equal(
    queue.operations.map((a) => a.kind),
    ['backup_failed'],
  );
  assert.match(queue.operations[0]!.detail, /scheduled backup failed/);

  rmSync(dir, { force: true });
  assert.ok((await schedule.runner.runOnce()) !== null, 'room again: the next pass takes one');
  assert.is(schedule.lastFailure(), null);
  assert.equal((await asked()).operations, [], 'the item is gone once a backup succeeds');
});

test.run();
