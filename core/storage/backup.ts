/**
 * Backups of the embedded store, taken by the core that holds it: `prepaid backup` (an admin
 * RPC) and the schedule (BACKUP_DIR, BACKUP_EVERY, BACKUP_KEEP) on the core's periodic runner.
 * A backup is written into a hidden directory beside its final name, verified there exactly
 * as `prepaid backup verify` would (backup-files.ts), and only then renamed: a backup under
 * its final name is complete and was good when written. The copy and its checks run on a
 * worker thread, so purchases go on meanwhile.
 */
import { mkdirSync, readdirSync, readFileSync, renameSync, rmSync, statSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import type { Logger } from '../../runtime/log.js';
import { createPeriodicRunner, type PeriodicRunner } from '../../runtime/periodic.js';
import { DomainError } from '../domain/errors.js';
import type { StorageObserver } from '../metrics.js';
import { openBackupThread } from '../store/sqlite/backup-runner.js';
import { type BackupManifest, MANIFEST_FILE, SECRETS_FILE, STORE_COPY_FILE, verifyBackup } from './backup-files.js';
import { passphraseProblem, sealSecrets } from './secrets-archive.js';

/** A finished backup's directory name; the time sorts as text. */
const BACKUP_NAME = /^prepaid-backup-(\d{8}T\d{6}Z)(-\d+)?$/;
/** Where a backup is written until it verified. */
const PARTIAL_PREFIX = '.partial-';

export interface BackupDeps {
  /** The embedded store's file; null on MongoDB, where these backups do not apply. */
  storeFile: string | null;
  /** The secrets the store needs and its file does not hold, by the file name DATA_DIR keeps them under. */
  secrets: Readonly<Record<string, string>>;
  clock: () => Date;
  log: Logger;
  observer?: StorageObserver | undefined;
}

interface TakenBackup {
  path: string;
  manifest: BackupManifest;
  warnings: string[];
}

/** What `prepaid backup` says on MongoDB. */
const NOT_ON_MONGODB =
  'prepaid backup copies the embedded SQLite store; this core runs on MongoDB, where it does not apply. ' +
  "Back up the replica set with its own tools (mongodump, or your host's snapshots): docs/mongodb.md, Backups.";

function backupName(at: Date, taken: readonly string[]): string {
  const stamp = at
    .toISOString()
    .replace(/[-:]/g, '')
    .replace(/\.\d+Z$/, 'Z');
  let name = `prepaid-backup-${stamp}`;
  for (let n = 2; taken.includes(name); n++) name = `prepaid-backup-${stamp}-${n}`;
  return name;
}

/** The finished backups in `dir`, oldest first. */
function listBackups(dir: string): string[] {
  let names: string[];
  try {
    names = readdirSync(dir);
  } catch {
    return [];
  }
  return names.filter((name) => BACKUP_NAME.test(name)).sort();
}

/**
 * Takes one backup into `toDir`. Without a passphrase the secrets are left out, with a warning
 * saying what a restore then lacks.
 */
async function takeBackup(
  deps: BackupDeps,
  options: { toDir: string; passphrase?: string | undefined },
): Promise<TakenBackup> {
  if (deps.storeFile === null) throw new DomainError('FAILED_PRECONDITION', NOT_ON_MONGODB);
  const problem = options.passphrase === undefined ? null : passphraseProblem(options.passphrase);
  if (problem !== null)
    throw new DomainError('INVALID_PARAMETER', problem, {
      violations: [{ field: 'passphrase', description: problem }],
    });
  try {
    const taken = await writeBackup({ ...deps, storeFile: deps.storeFile }, options);
    deps.observer?.backup(true);
    return taken;
  } catch (error) {
    deps.observer?.backup(false);
    throw error;
  }
}

/** The backup written into a partial directory, verified there, then named (above). */
async function writeBackup(
  deps: BackupDeps & { storeFile: string },
  options: { toDir: string; passphrase?: string | undefined },
): Promise<TakenBackup> {
  const toDir = path.resolve(options.toDir);
  mkdirSync(toDir, { recursive: true, mode: 0o700 });
  const started = deps.clock();
  const name = backupName(started, listBackups(toDir));
  const partial = path.join(toDir, `${PARTIAL_PREFIX}${name}`);
  mkdirSync(partial, { mode: 0o700 });
  const thread = openBackupThread();
  try {
    const copied = await thread.read({ source: deps.storeFile, file: path.join(partial, STORE_COPY_FILE) });
    const { facts } = copied;
    const warnings: string[] = [];
    if (options.passphrase === undefined) {
      warnings.push(
        'No passphrase was given (BACKUP_PASSPHRASE), so the secrets the store needs are not in this backup: keep ' +
          `${Object.keys(deps.secrets).join(', ')} (or the variables they come from) safe apart, or a restore ` +
          'starts with new tokens and cannot recognise identity numbers given before.',
      );
    } else {
      writeFileSync(path.join(partial, SECRETS_FILE), await sealSecrets(deps.secrets, options.passphrase), {
        mode: 0o600,
      });
    }
    const files = Object.fromEntries(
      await Promise.all(
        readdirSync(partial).map(async (file) => {
          const full = path.join(partial, file);
          return [file, { bytes: statSync(full).size, sha256: await thread.hash(full) }] as const;
        }),
      ),
    );
    const manifest: BackupManifest = {
      format: 'prepaid-backup/1',
      store: 'sqlite',
      startedAt: started.toISOString(),
      finishedAt: deps.clock().toISOString(),
      facts,
      secrets: options.passphrase === undefined ? 'left_out' : 'encrypted',
      secretFiles: options.passphrase === undefined ? [] : Object.keys(deps.secrets).sort(),
      files,
    };
    writeFileSync(path.join(partial, MANIFEST_FILE), `${JSON.stringify(manifest, null, 2)}\n`, { mode: 0o600 });
    const verified = await verifyBackup(partial, {
      ...(options.passphrase === undefined ? {} : { passphrase: options.passphrase }),
      inspect: async (file) => (await thread.read({ file })).facts,
      hash: (file) => thread.hash(file),
    });
    if (!verified.ok) throw new Error(`the backup did not verify after writing: ${verified.problems.join(' ')}`);
    const final = path.join(toDir, name);
    renameSync(partial, final);
    deps.log('backup.written', {
      path: final,
      schema_version: facts.schemaVersion,
      last_ledger_entry_id: facts.lastLedgerEntryId,
      secrets: manifest.secrets,
      ms: deps.clock().getTime() - started.getTime(),
      copy_ms: copied.copyMs,
      check_ms: copied.checkMs,
    });
    return { path: final, manifest, warnings };
  } catch (error) {
    rmSync(partial, { recursive: true, force: true });
    throw error;
  } finally {
    await thread.close();
  }
}

/** When the newest finished backup in `dir` was taken, from its manifest; null when there is none. */
function newestBackupAt(dir: string): Date | null {
  for (const name of listBackups(dir).reverse()) {
    try {
      const manifest = JSON.parse(readFileSync(path.join(dir, name, MANIFEST_FILE), 'utf8')) as BackupManifest;
      const at = new Date(manifest.startedAt);
      if (!Number.isNaN(at.getTime())) return at;
    } catch {
      // A directory without a readable manifest is no good backup; look at the one before.
    }
  }
  return null;
}

/** Removes the oldest finished backups in `dir` past the newest `keep`; partial ones of a crash too. */
function prune(dir: string, keep: number, log: Logger): void {
  const finished = listBackups(dir);
  const stale = [
    ...finished.slice(0, Math.max(0, finished.length - keep)),
    ...readdirSync(dir).filter((name) => name.startsWith(PARTIAL_PREFIX)),
  ];
  for (const name of stale) {
    rmSync(path.join(dir, name), { recursive: true, force: true });
    log('backup.pruned', { path: path.join(dir, name) });
  }
}

export interface BackupSchedule {
  dir: string;
  everyMs: number;
  keep: number;
  passphrase: string | undefined;
}

/** What a failed scheduled backup leaves for a person: the console's attention queue shows it. */
interface BackupFailure {
  at: Date;
  reason: string;
}

interface ScheduledBackups {
  runner: PeriodicRunner<[], TakenBackup | null>;
  /** The last scheduled backup's failure, until one succeeds; null while they succeed. */
  lastFailure(): BackupFailure | null;
  newestAt(): Date | null;
}

/**
 * The schedule: a backup every `everyMs` from the newest one found in the directory (a restart
 * does not take one at once when the last is recent), the oldest past `keep` removed after each
 * good one. A failure is a warning in the log, a count in prepaid_core_backups_total{result="failed"}
 * and an item in the console's attention queue until the next good backup.
 */
function scheduleBackups(deps: BackupDeps, schedule: BackupSchedule): ScheduledBackups {
  let newest = newestBackupAt(schedule.dir);
  let failure: BackupFailure | null = null;
  deps.observer?.watchNewestBackup(() => newest, deps.clock);
  const pass = async (): Promise<TakenBackup | null> => {
    if (newest !== null && deps.clock().getTime() - newest.getTime() < schedule.everyMs) return null;
    try {
      const taken = await takeBackup(deps, { toDir: schedule.dir, passphrase: schedule.passphrase });
      newest = new Date(taken.manifest.startedAt);
      failure = null;
      for (const warning of taken.warnings) deps.log('backup.warning', { path: taken.path, message: warning });
      prune(schedule.dir, schedule.keep, deps.log);
      return taken;
    } catch (error) {
      failure = { at: deps.clock(), reason: error instanceof Error ? error.message : String(error) };
      deps.log('backup.warning', { problem: 'backup_failed', dir: schedule.dir, reason: failure.reason });
      return null;
    }
  };
  // The runner looks often and takes a backup only when one is due, so a test clock (or a
  // suspended machine) moving past the due time is noticed within a minute.
  const runner = createPeriodicRunner<[], TakenBackup | null>({
    pass,
    intervalMs: Math.min(schedule.everyMs, SCHEDULE_LOOK_MS),
    onError: (error) => deps.log('backup.warning', { problem: 'backup_failed', reason: String(error) }),
    overlap: 'join',
  });
  return { runner, lastFailure: () => failure, newestAt: () => newest };
}

/** How often the schedule looks whether a backup is due. */
const SCHEDULE_LOOK_MS = 60_000;

/** Backups as the admin service and the console see them. */
export interface Backups {
  /** One backup now into `toDir`, or BACKUP_DIR when it is empty. */
  take(toDir: string, passphrase: string): Promise<TakenBackup>;
  /** The schedule; null without BACKUP_EVERY. */
  readonly scheduled: ScheduledBackups | null;
}

export function createBackups(
  deps: BackupDeps,
  config: { dir: string | null; schedule: BackupSchedule | null },
): Backups {
  const scheduled = config.schedule === null ? null : scheduleBackups(deps, config.schedule);
  return {
    scheduled,
    async take(toDir, passphrase) {
      const dir = toDir === '' ? config.dir : toDir;
      if (dir === null && deps.storeFile !== null)
        throw new DomainError('FAILED_PRECONDITION', 'Say where the backup goes: --to DIR, or BACKUP_DIR on the core.');
      const taken = await takeBackup(deps, {
        toDir: dir ?? '',
        passphrase: passphrase === '' ? undefined : passphrase,
      });
      for (const warning of taken.warnings) deps.log('backup.warning', { path: taken.path, message: warning });
      return taken;
    },
  };
}
