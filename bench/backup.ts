/**
 * The "airtime during a backup" scenario: purchases go on while `prepaid backup` copies the
 * live store (docs/operating.md, Backups). The same account buys airtime in PAIRED_ROUNDS
 * rounds of two windows in turn: one alone, one while the core takes backups back to back
 * (each one written, checked and then deleted, so the disk does not fill). Target: the
 * purchases' p99 during backups at most twice their p99 alone, at the median of the rounds'
 * ratios; the rate is reported beside it.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { type adminOf, airtimeLoad, fundedAccount, http, inTurn, PAIRED_WINDOW } from './harness.js';
import { type Figures, median, percents } from './stats.js';

export const BACKUP_SCENARIO = 'scenario: airtime during a backup';
/** The most a backup may lift the purchases' p99, as a factor of their p99 without one. */
const BACKUP_MAX_P99_FACTOR = 2;

interface BackupScenarioDeps {
  port: number;
  cpuPid: number;
  admin: ReturnType<typeof adminOf>;
  record(name: string, figures: Figures): void;
  target(met: boolean, text: string): void;
}

/** Runs the scenario on a service the caller started, and judges its target. */
export async function backupScenario(deps: BackupScenarioDeps): Promise<void> {
  const { port, cpuPid, admin } = deps;
  const { keys } = await fundedAccount(admin, 'Bench Backups');
  const dir = mkdtempSync(path.join(tmpdir(), 'prepaid-bench-backups-'));
  let taken = 0;
  const alone = () => http(port, [airtimeLoad(keys)], { cpuPid, ...PAIRED_WINDOW });
  const duringBackups = async () => {
    let running = true;
    const backups = (async () => {
      while (running) {
        const { path: written } = await admin.takeBackup({ toDir: dir });
        taken += 1;
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
  try {
    const pairs = await inTurn('backups', alone, duringBackups);
    const factors = pairs.map(([a, b]) => b.p99Ms / a.p99Ms);
    const rates = pairs.map(([a, b]) => b.requestsPerSecond / a.requestsPerSecond - 1);
    deps.record(BACKUP_SCENARIO, pairs[pairs.length - 1]![1]);
    const factor = median(factors);
    console.error(
      `  backups, in turn: p99 x${factor.toFixed(2)} at the median of ${pairs.length} rounds ` +
        `(${factors.map((f) => `x${f.toFixed(2)}`).join(', ')}); rate ${percents(rates, { signed: true })}; ` +
        `${taken} backups taken`,
    );
    deps.target(
      factor <= BACKUP_MAX_P99_FACTOR && taken > 0,
      `airtime's p99 while backups run is x${factor.toFixed(2)} its p99 alone, at the median of ${pairs.length} ` +
        `rounds in turn (at most x${BACKUP_MAX_P99_FACTOR}; ${taken} backups taken during the windows)`,
    );
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
