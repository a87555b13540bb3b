/**
 * The books on SQLite: each money operation writes its entry here, in its own transaction
 * (it runs inside the group commit, as every money operation does). The postings go first and
 * the journal row last, whose trigger refuses an entry that does not balance
 * (migrations-books.ts), so an unbalanced entry rolls its whole operation back.
 */
import type Database from 'better-sqlite3';
import type { EntryKind, Posting } from '../../domain/books.js';
import type { Mode } from '../../domain/mode.js';
import type { BooksMoney, BooksStore, JournalEntryRecord, OwnEntry } from '../port.js';
import { auditAppender } from './audit-log.js';
import type { GroupCommit } from './group-commit.js';
import { fromMs, toMs } from './rows.js';

export function prepareBookStatements(db: Database.Database) {
  return {
    next: db.prepare<[], { next: number }>('SELECT COALESCE(MAX(entry_id), 0) + 1 AS next FROM journal'),
    posting: db.prepare<{ entry_id: number; leg: number; account: string; mode: string; amount_kobo: number }>(
      `INSERT INTO postings (entry_id, leg, account, mode, amount_kobo)
       VALUES (@entry_id, @leg, @account, @mode, @amount_kobo)`,
    ),
    entry: db.prepare<{ entry_id: number; kind: string; mode: string; reference: string; at: number }>(
      'INSERT INTO journal (entry_id, kind, mode, reference, at) VALUES (@entry_id, @kind, @mode, @reference, @at)',
    ),
    postingsOf: db.prepare<{ reference: string; kind: string }, { account: string; amount_kobo: number }>(
      `SELECT p.account, p.amount_kobo FROM journal j JOIN postings p ON p.entry_id = j.entry_id
       WHERE j.reference = @reference AND j.kind = @kind ORDER BY j.entry_id, p.leg`,
    ),
    upstreamOf: db.prepare<{ reference: string; seq: number }, { upstream: string }>(
      'SELECT upstream FROM upstream_attempts WHERE reference = @reference AND seq = @seq',
    ),
    modeOf: db.prepare<[string], { mode: string }>('SELECT mode FROM transactions WHERE reference = ?'),
  };
}

export type BookStatements = ReturnType<typeof prepareBookStatements>;

/** Writes one entry; the store refuses it (and so its operation) unless it balances. */
export function book(
  sql: BookStatements,
  kind: EntryKind,
  mode: Mode,
  reference: string,
  at: Date,
  postings: readonly Posting[],
): void {
  const entryId = sql.next.get()!.next;
  for (const [leg, posting] of postings.entries())
    sql.posting.run({ entry_id: entryId, leg, account: posting.account, mode, amount_kobo: posting.amountKobo });
  sql.entry.run({ entry_id: entryId, kind, mode, reference, at: at.getTime() });
}

/** What the entries of one kind for a reference posted (a purchase's settle, for its reversal). */
export function postingsOf(sql: BookStatements, reference: string, kind: EntryKind): Posting[] {
  return sql.postingsOf
    .all({ reference, kind })
    .map((row) => ({ account: row.account as Posting['account'], amountKobo: row.amount_kobo }));
}

interface JournalRow {
  entry_id: number;
  kind: string;
  mode: string;
  reference: string;
  at: number;
}

/** An own entry booked inside the caller's transaction, or the one of its kind and reference booked before. */
type BookOwnNow = (entry: OwnEntry) => { entry: JournalEntryRecord; replayed: boolean };

/**
 * The books as the rest of the core reads them, and the operator's own entries; `bookOwnNow`
 * books one inside a transaction already open (a staff approval's).
 */
export function createBooksStore(
  db: Database.Database,
  commit: GroupCommit,
): BooksStore & BooksMoney & { bookOwnNow: BookOwnNow } {
  const sql = prepareBookStatements(db);
  const sumsAll = db.prepare<[], { account: string; mode: string; sum_kobo: number }>(
    'SELECT account, mode, SUM(amount_kobo) AS sum_kobo FROM postings GROUP BY account, mode',
  );
  const sumsUntil = db.prepare<[number], { account: string; mode: string; sum_kobo: number }>(
    `SELECT p.account, p.mode, SUM(p.amount_kobo) AS sum_kobo FROM journal j JOIN postings p ON p.entry_id = j.entry_id
     WHERE j.at < ? GROUP BY p.account, p.mode`,
  );
  const entries = db.prepare<[string], JournalRow>('SELECT * FROM journal WHERE reference = ? ORDER BY entry_id');
  const lines = db.prepare<[number], { account: string; amount_kobo: number }>(
    'SELECT account, amount_kobo FROM postings WHERE entry_id = ? ORDER BY leg',
  );
  const ownEntry = db.prepare<{ reference: string; kind: string }, JournalRow>(
    'SELECT * FROM journal WHERE reference = @reference AND kind = @kind ORDER BY entry_id LIMIT 1',
  );
  const sumOfAll = db.prepare<[string, string], { sum_kobo: number }>(
    'SELECT COALESCE(SUM(amount_kobo), 0) AS sum_kobo FROM postings WHERE account = ? AND mode = ?',
  );
  // postings_by_account finds the account's lines; each is joined to its entry for the time.
  const sumOfUntil = db.prepare<[string, string, number], { sum_kobo: number }>(
    `SELECT COALESCE(SUM(p.amount_kobo), 0) AS sum_kobo FROM postings p JOIN journal j ON j.entry_id = p.entry_id
     WHERE p.account = ? AND p.mode = ? AND j.at < ?`,
  );
  const kindBetween = db.prepare<[string, string, number, number, number], JournalRow>(
    `SELECT * FROM journal WHERE kind = ? AND mode = ? AND at >= ? AND at < ? ORDER BY at, entry_id LIMIT ?`,
  );
  const appendAudit = auditAppender(db);
  const record = (row: JournalRow): JournalEntryRecord => ({
    entryId: String(row.entry_id),
    kind: row.kind as EntryKind,
    mode: row.mode as Mode,
    reference: row.reference,
    at: fromMs(row.at),
    postings: lines
      .all(row.entry_id)
      .map((line) => ({ account: line.account as Posting['account'], amountKobo: line.amount_kobo })),
  });
  const bookOwnNow: BookOwnNow = (entry) => {
    const earlier = ownEntry.get({ reference: entry.reference, kind: entry.kind });
    if (earlier !== undefined) return { entry: record(earlier), replayed: true };
    book(sql, entry.kind, entry.mode, entry.reference, entry.at, entry.postings);
    return { entry: record(ownEntry.get({ reference: entry.reference, kind: entry.kind })!), replayed: false };
  };
  return {
    bookOwnNow,
    async sums(until) {
      const rows = until === undefined ? sumsAll.all() : sumsUntil.all(toMs(until));
      return rows.map((row) => ({ account: row.account, mode: row.mode as Mode, sumKobo: row.sum_kobo }));
    },
    async entriesOf(reference) {
      return entries.all(reference).map(record);
    },
    async sumOf(account, mode, until) {
      const row = until === undefined ? sumOfAll.get(account, mode) : sumOfUntil.get(account, mode, toMs(until));
      return row?.sum_kobo ?? 0;
    },
    async entriesBetween(kind, mode, from, until, limit) {
      return kindBetween.all(kind, mode, toMs(from), toMs(until), limit).map(record);
    },
    async bookOwn(entry, auditEntry) {
      return commit.run(() => {
        const booked = bookOwnNow(entry);
        if (!booked.replayed) appendAudit(auditEntry);
        return booked;
      });
    },
  };
}
