/**
 * The "airtime during a backup" scenario: purchases go on while `prepaid backup` copies the
 * live store (docs/operating.md, Backups). A service of its own, on a store filled first
 * through the store's port (bench/servers/scale-fill.ts) with BENCH_BACKUP_STORE purchases
 * (default 250k, about 400 MB: a little more than the full run's store held by the time the
 * scenario ran on it, 373 MB; so it measures the same alone and in the full run, and a
 * backup's cost grows with the store). One fresh account buys airtime in PAIRED_ROUNDS
 * rounds of two windows in turn: one alone, one while the core takes backups back to back
 * (each one written, checked and then deleted, so the disk does not fill). Target: the
 * purchases' p99 during backups at most twice their p99 alone, at the median of the rounds'
 * ratios; the rate is reported beside it, and so are the backups' durations.
 */
import { copyFileSync, existsSync, mkdtempSync, renameSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { type BackupManifest, STORE_COPY_FILE } from '../core/storage/backup-files.js';
import { SQLITE_FILE } from '../core/store/index.js';
import { adminOf, airtimeLoad, fundedAccount, http, inTurn, PAIRED_WINDOW, startService, stop } from './harness.js';
import { fill, parseSize } from './scale.js';
import { type Figures, median, percents } from './stats.js';

export const BACKUP_SCENARIO = 'scenario: airtime during a backup';
/** The most a backup may lift the purchases' p99, as a factor of their p99 without one. */
const BACKUP_MAX_P99_FACTOR = 2;

/** The purchases in the store before the scenario's own (BENCH_BACKUP_STORE). */
const STORE_PURCHASES = parseSize('BENCH_BACKUP_STORE', process.env['BENCH_BACKUP_STORE'] ?? '250k');

/**
 * The filled store in `dataDir`: filled once per size and kept in the temporary directory
 * (a fill of 250k takes one to six minutes on a 2-core machine), then copied for each run.
 */
function filledStore(dataDir: string): void {
  const kept = path.join(tmpdir(), `prepaid-bench-backup-store-${STORE_PURCHASES}.sqlite`);
  if (!existsSync(kept)) {
    const { fillMs } = fill(dataDir, STORE_PURCHASES);
    console.error(`  filled in ${(fillMs / 1000).toFixed(0)} s; kept as ${kept} for the next runs`);
    // The filler closed its store, which checkpoints its WAL into the file and removes it.
    if (existsSync(path.join(dataDir, `${SQLITE_FILE}-wal`))) throw new Error('the filled store still has a WAL');
    copyFileSync(path.join(dataDir, SQLITE_FILE), `${kept}.partial`);
    renameSync(`${kept}.partial`, kept);
    return;
  }
  copyFileSync(kept, path.join(dataDir, SQLITE_FILE));
  console.error(`  the store filled before, from ${kept}`);
}

interface BackupScenarioDeps {
  record(name: string, figures: Figures): void;
  target(met: boolean, text: string): void;
}

/** Fills a store, starts a service on it, runs the scenario and judges its target. */
export async function backupScenario(deps: BackupScenarioDeps): Promise<void> {
  console.error(`the service on a store of ${STORE_PURCHASES} purchases, taking backups`);
  const dataDir = mkdtempSync(path.join(tmpdir(), 'prepaid-bench-backup-store-'));
  const dir = mkdtempSync(path.join(tmpdir(), 'prepaid-bench-backups-'));
  try {
    filledStore(dataDir);
    const { service, port, corePort } = await startService(dataDir);
    try {
      await measure(deps, { port, cpuPid: service.pid!, admin: adminOf(dataDir, corePort), dir });
    } finally {
      await stop(service);
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
    rmSync(dataDir, { recursive: true, force: true });
  }
}

async function measure(
  deps: BackupScenarioDeps,
  { port, cpuPid, admin, dir }: { port: number; cpuPid: number; admin: ReturnType<typeof adminOf>; dir: string },
): Promise<void> {
  const { keys } = await fundedAccount(admin, 'Bench Backups');
  let taken = 0;
  const seconds: number[] = [];
  let held = { bytes: 0, transactions: 0 };
  const alone = () => http(port, [airtimeLoad(keys)], { cpuPid, ...PAIRED_WINDOW });
  const duringBackups = async () => {
    let running = true;
    const backups = (async () => {
      while (running) {
        const { path: written, manifestJson } = await admin.takeBackup({ toDir: dir });
        taken += 1;
        const manifest = JSON.parse(manifestJson) as BackupManifest;
        seconds.push((Date.parse(manifest.finishedAt) - Date.parse(manifest.startedAt)) / 1000);
        held = {
          bytes: manifest.files[STORE_COPY_FILE]?.bytes ?? 0,
          transactions: manifest.facts.rows['transactions'] ?? 0,
        };
        rmSync(written, { recursive: true, force: true });
      }
    })();
    try {
      return await alone();
    } finally {
      running = false;
      await backups;
    }
  };
  const pairs = await inTurn('backups', alone, duringBackups);
  const factors = pairs.map(([a, b]) => b.p99Ms / a.p99Ms);
  const rates = pairs.map(([a, b]) => b.requestsPerSecond / a.requestsPerSecond - 1);
  deps.record(BACKUP_SCENARIO, pairs[pairs.length - 1]![1]);
  const factor = median(factors);
  console.error(
    `  backups, in turn: p99 x${factor.toFixed(2)} at the median of ${pairs.length} rounds ` +
      `(${factors.map((f) => `x${f.toFixed(2)}`).join(', ')}); rate ${percents(rates, { signed: true })}; ` +
      `${taken} backups taken, ${median(seconds).toFixed(1)} s each at the median, of a store of ` +
      `${(held.bytes / 1e6).toFixed(0)} MB (${held.transactions} transactions)`,
  );
  deps.target(
    factor <= BACKUP_MAX_P99_FACTOR && taken > 0,
    `airtime's p99 while backups run is x${factor.toFixed(2)} its p99 alone, at the median of ${pairs.length} ` +
      `rounds in turn (at most x${BACKUP_MAX_P99_FACTOR}; ${taken} backups taken during the windows)`,
  );
}
