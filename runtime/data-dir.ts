/**
 * The core's data directory is private: the directory is 0700 and the files the service
 * keeps there (the embedded database and its WAL, the token files, the lock) are 0600, also
 * when DATA_DIR existed before with looser permissions. And one core at a time: a lock file
 * names the process that holds the directory, so a second core started on it refuses to
 * start instead of sharing the embedded database behind the first one's back.
 */
import { chmodSync, closeSync, lstatSync, mkdirSync, openSync, readFileSync, rmSync, writeSync } from 'node:fs';
import path from 'node:path';

/** The lock file in DATA_DIR; it holds the pid (and start time) of the core that holds the directory. */
export const LOCK_FILE = 'core.lock';

/** Owner only: read, write and enter. */
const PRIVATE_DIR_MODE = 0o700;
/** Owner only: read and write. */
const PRIVATE_FILE_MODE = 0o600;

/** Thrown when DATA_DIR cannot be made private or is held by another running core. */
class DataDirError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'DataDirError';
  }
}

/**
 * Creates `dir` (0700) or tightens it to 0700, and tightens each of `files` in it that
 * exists to 0600. Only the named files are touched: DATA_DIR may be a directory that holds
 * other things of the operator's. A file that is missing is left to be created (callers
 * create theirs 0600).
 */
export function makePrivate(dir: string, files: readonly string[]): void {
  mkdirSync(dir, { recursive: true, mode: PRIVATE_DIR_MODE });
  tighten(dir, PRIVATE_DIR_MODE, 'directory');
  for (const file of files) {
    const full = path.join(dir, file);
    let isFile: boolean;
    try {
      isFile = lstatSync(full).isFile();
    } catch {
      continue;
    }
    // A symbolic link or anything else is not ours to chmod (its target may be anywhere).
    if (!isFile) throw new DataDirError(`${full} is not a regular file; the service keeps only its own files there.`);
    tighten(full, PRIVATE_FILE_MODE, 'file');
  }
}

/** Creates `file` in `dir` empty and 0600 unless it exists, so that what opens it later inherits the mode. */
export function createPrivateFile(dir: string, file: string): void {
  closeSync(openSync(path.join(dir, file), 'a', PRIVATE_FILE_MODE));
}

function tighten(target: string, mode: number, what: string): void {
  const current = lstatSync(target).mode & 0o777;
  if ((current & ~mode) === 0) return;
  try {
    chmodSync(target, mode);
  } catch (error) {
    throw new DataDirError(
      `the ${what} ${target} is readable by other users (mode ${current.toString(8)}) and cannot be made ` +
        `private: ${(error as Error).message}.`,
    );
  }
}

/** A held lock on a data directory. */
export interface DirLock {
  /** Gives the directory up (the lock file is removed); calling it again does nothing. */
  release(): void;
}

/**
 * Takes the lock of `dir`, or throws a DataDirError naming the process that holds it. The
 * lock file is created with O_EXCL, so two cores starting together cannot both take it. A
 * lock left by a process that is gone (kill -9, a power cut) is stale: it is removed and the
 * lock taken, so a crash never blocks a restart. A process counts as the holder only while
 * it runs with the start time the lock recorded, so a pid reused after a reboot does not.
 */
export function lockDir(dir: string, service = 'core'): DirLock {
  const file = path.join(dir, LOCK_FILE);
  const me: LockOwner = { pid: process.pid, started: processStartTime(process.pid) };
  for (let attempt = 0; attempt < 2; attempt++) {
    let fd: number;
    try {
      fd = openSync(file, 'wx', PRIVATE_FILE_MODE);
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
      const holder = readOwner(file);
      if (holder !== undefined && isRunning(holder)) {
        throw new DataDirError(
          `DATA_DIR ${dir} is in use by another ${service} (pid ${holder.pid}); stop that one first, or give ` +
            `this one a DATA_DIR of its own.`,
        );
      }
      // Stale: its process is gone. Removed, then taken with O_EXCL like any other time.
      rmSync(file, { force: true });
      continue;
    }
    writeSync(fd, `${JSON.stringify(me)}\n`);
    closeSync(fd);
    let held = true;
    return {
      release() {
        if (!held) return;
        held = false;
        // Only our own lock is removed: a lock file someone replaced is theirs.
        const owner = readOwner(file);
        if (owner?.pid === me.pid && owner.started === me.started) rmSync(file, { force: true });
      },
    };
  }
  throw new DataDirError(
    `DATA_DIR ${dir}: the lock file ${file} keeps reappearing; another ${service} is starting on it.`,
  );
}

interface LockOwner {
  pid: number;
  /** The process's start time in clock ticks since boot (Linux), or null where it cannot be read. */
  started: string | null;
}

function readOwner(file: string): LockOwner | undefined {
  try {
    const parsed = JSON.parse(readFileSync(file, 'utf8')) as Partial<LockOwner>;
    if (typeof parsed.pid === 'number' && Number.isInteger(parsed.pid) && parsed.pid > 0)
      return { pid: parsed.pid, started: parsed.started ?? null };
  } catch {
    // A lock file that cannot be read or parsed (a crash while writing it) names no live holder.
  }
  return undefined;
}

function isRunning(owner: LockOwner): boolean {
  try {
    process.kill(owner.pid, 0);
  } catch (error) {
    // EPERM: the pid exists but belongs to another user; it is running.
    if ((error as NodeJS.ErrnoException).code !== 'EPERM') return false;
  }
  const state = processStat(owner.pid);
  // A zombie has exited; it only waits for its parent to read its status.
  if (state?.state === 'Z') return false;
  return owner.started === null || state === undefined || state.started === owner.started;
}

/** The state and start time of a process from /proc (Linux); undefined elsewhere. */
function processStat(pid: number): { state: string; started: string } | undefined {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    // The command name (field 2) is in parentheses and may hold spaces; fields count after it.
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return { state: fields[0] ?? '', started: fields[19] ?? '' };
  } catch {
    return undefined;
  }
}

function processStartTime(pid: number): string | null {
  return processStat(pid)?.started ?? null;
}
