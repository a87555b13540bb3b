/**
 * Which SQLite errors mean that the disk refused a write, and in what words. SQLite answers a
 * full disk with SQLITE_FULL, a read-only file or file system with SQLITE_READONLY (and its
 * extended codes), and a write the kernel failed with SQLITE_IOERR_*; in each case the
 * statement or the COMMIT failed and its transaction was rolled back (better-sqlite3 rolls
 * back a transaction function whose COMMIT threw), so nothing of it is in the file. The
 * connection stays usable: once room returns, the next write goes through.
 * https://www.sqlite.org/rescode.html
 */
import Database from 'better-sqlite3';

/** Node's own codes, for the WAL sync that runs outside SQLite (index.ts). */
const ERRNO_REASONS: Readonly<Record<string, string>> = {
  ENOSPC: 'the disk is full',
  EDQUOT: 'the disk quota is used up',
  EROFS: 'the file system is read-only',
  EIO: 'the disk reported an I/O error',
};

export function sqliteWriteFault(error: unknown): string | null {
  if (error instanceof Database.SqliteError) {
    const code = error.code;
    if (code === 'SQLITE_FULL') return 'the disk is full';
    if (code.startsWith('SQLITE_READONLY')) return 'the database file or its disk is read-only';
    if (code.startsWith('SQLITE_IOERR')) return `the disk refused a write (${code})`;
    return null;
  }
  const errno = (error as NodeJS.ErrnoException | null)?.code;
  return typeof errno === 'string' ? (ERRNO_REASONS[errno] ?? null) : null;
}
