/**
 * The books on MongoDB (docs/money.md, The books): the `journal` collection, one document per
 * entry with its postings inside, so the collection's validator (validators.ts,
 * JOURNAL_VALIDATOR) sees a whole entry at once and refuses one that does not balance. Every
 * money operation of the other sub-ports writes its entry with `bookIn`, inside its own
 * transaction, with exactly the postings core/domain/books.ts returns; this file also reads
 * the books and books the operator's own entries.
 *
 * An entry's _id names what it books, so the same move is booked at most once however often
 * its transaction runs, and the history step (books-history.ts) and a live move name the same
 * thing alike (a core still migrating beside one already serving cannot book it twice):
 * - `l:<ledger entry _id>`: the entry of a move that writes a ledger entry (a reserve, a
 *   refund or reversal, a credit, an inflow's credit, a manual debit);
 * - `settle:<reference>` and `cost_known:<reference>`: a purchase's settle, its cost learnt later;
 * - `inflow_received:<inflow id>` and `inflow_returned:<inflow id>`: a transfer's receipt, its return;
 * - `<kind>:<reference>`: the operator's own entries (one per kind and reference).
 *
 * Its entryId orders entries: the 24 hex digits of an ObjectId (its creation second first),
 * then ':' and a digit. A move's id is made by the core that writes it, before the
 * transaction, so entries of one core come in the order it wrote them; the history's ids
 * come from the ledger entries behind them (a purchase's reserve, settle and refund share
 * their debit's id with :0, :1 and :2, so they stay in that order).
 */
import { type ClientSession, type Collection, type Long, ObjectId } from 'mongodb';
import type { EntryKind, Posting } from '../../domain/books.js';
import type { Mode } from '../../domain/mode.js';
import type { BooksMoney, BooksStore, JournalEntryRecord, OwnEntry } from '../port.js';
import { appendAuditIn, auditDocOf } from './audit-log.js';
import { JOURNAL_COLLECTION } from './collections.js';
import { bounded, followUpRead, MAX_LIST_ITEMS, type MongoContext } from './context.js';
import { readInteger, readMode, toDate, toLong } from './documents.js';
import { DUPLICATE_KEY_CODE, isUnknownCommitResult } from './errors.js';

export interface JournalDoc {
  /** What the entry books (see the header): written once. */
  _id: string;
  /** The entry's place in the books (see the header). */
  entryId: string;
  kind: EntryKind;
  mode: Mode;
  reference: string;
  at: Date;
  /** Debit positive; the validator requires two or more, none zero, summing to zero. */
  postings: { account: string; amountKobo: Long }[];
}

/** The _ids of the entries (see the header). */
export const journalIds = {
  ofLedgerEntry: (ledgerId: ObjectId): string => `l:${ledgerId.toHexString()}`,
  settle: (reference: string): string => `settle:${reference}`,
  costKnown: (reference: string): string => `cost_known:${reference}`,
  received: (inflowId: string): string => `inflow_received:${inflowId}`,
  returned: (inflowId: string): string => `inflow_returned:${inflowId}`,
  own: (kind: EntryKind, reference: string): string => `${kind}:${reference}`,
};

/** An entryId from an ObjectId made for the move (or the ledger entry behind it), and its place among its siblings. */
export function entryIdOf(id: ObjectId, place = 0): string {
  return `${id.toHexString()}:${place}`;
}

/** One entry to write. */
export interface NewJournalEntry {
  id: string;
  entryId: string;
  kind: EntryKind;
  mode: Mode;
  reference: string;
  at: Date;
  postings: readonly Posting[];
}

export function journalDoc(entry: NewJournalEntry): JournalDoc {
  return {
    _id: entry.id,
    entryId: entry.entryId,
    kind: entry.kind,
    mode: entry.mode,
    reference: entry.reference,
    at: toDate(entry.at, 'at'),
    postings: entry.postings.map((p) => ({ account: p.account, amountKobo: toLong(p.amountKobo, 'amountKobo') })),
  };
}

export function journalOf(ctx: MongoContext): Collection<JournalDoc> {
  ctx.live();
  return ctx.db.collection<JournalDoc>(JOURNAL_COLLECTION);
}

/**
 * Writes one entry inside the caller's transaction. The validator refuses it unless it
 * balances, and a second entry of the same _id is a duplicate key: either error aborts the
 * caller's whole transaction, so the move is never made without its entry.
 */
export async function bookIn(ctx: MongoContext, session: ClientSession, entry: NewJournalEntry): Promise<void> {
  await journalOf(ctx).insertOne(journalDoc(entry), { session });
}

/**
 * An own entry (a top-up, a settlement) booked inside the caller's transaction (a staff
 * approval's), or the one of its kind and reference booked before, which writes nothing.
 */
export async function bookOwnIn(
  ctx: MongoContext,
  session: ClientSession,
  entry: OwnEntry,
  entryId: ObjectId,
): Promise<{ entry: JournalEntryRecord; replayed: boolean }> {
  const journal = journalOf(ctx);
  const id = journalIds.own(entry.kind, entry.reference);
  const earlier = await journal.findOne({ _id: id }, { session });
  if (earlier !== null) return { entry: entryFromDoc(earlier), replayed: true };
  const doc = journalDoc({ id, entryId: entryIdOf(entryId), ...entry });
  await journal.insertOne(doc, { session });
  return { entry: entryFromDoc(doc), replayed: false };
}

export function postingsFromDoc(doc: Pick<JournalDoc, 'postings'>): Posting[] {
  return doc.postings.map((p) => ({
    account: p.account as Posting['account'],
    amountKobo: readInteger(p.amountKobo, 'journal.postings.amountKobo'),
  }));
}

/** The postings of one entry, read in the caller's transaction; null when there is none. */
export async function postingsIn(ctx: MongoContext, session: ClientSession, id: string): Promise<Posting[] | null> {
  const doc = await journalOf(ctx).findOne({ _id: id }, { session });
  return doc === null ? null : postingsFromDoc(doc);
}

function entryFromDoc(doc: JournalDoc): JournalEntryRecord {
  return {
    entryId: doc.entryId,
    kind: doc.kind,
    mode: readMode(doc.mode, 'journal.mode'),
    reference: doc.reference,
    at: doc.at,
    postings: postingsFromDoc(doc),
  };
}

interface SumRow {
  _id: { account: string; mode: string };
  sum: unknown;
}

/** Every account's sum per mode, of the entries before `until` when given. */
function sumsPipeline(until: Date | undefined) {
  return [
    ...(until === undefined ? [] : [{ $match: { at: { $lt: toDate(until, 'until') } } }]),
    { $unwind: '$postings' },
    { $group: { _id: { account: '$postings.account', mode: '$mode' }, sum: { $sum: '$postings.amountKobo' } } },
    { $sort: { '_id.mode': 1, '_id.account': 1 } },
  ];
}

export function createBooksStore(ctx: MongoContext): BooksStore & BooksMoney {
  return {
    async sums(until) {
      const rows = await journalOf(ctx).aggregate<SumRow>(sumsPipeline(until), { allowDiskUse: true }).toArray();
      return rows.map((row) => ({
        account: row._id.account,
        mode: readMode(row._id.mode, 'journal.mode'),
        sumKobo: readInteger(row.sum, 'sum of postings'),
      }));
    },
    async entriesOf(reference) {
      // journal_by_reference serves the match; a reference has a handful of entries.
      const docs = await journalOf(ctx)
        .find({ reference })
        .sort({ entryId: 1 })
        .limit(MAX_LIST_ITEMS + 1)
        .toArray();
      return bounded(docs, `entries of ${reference}`).map(entryFromDoc);
    },
    async sumOf(account, mode, until) {
      // journal_by_account finds the entries with a line of the account; only those lines are summed.
      const rows = await journalOf(ctx)
        .aggregate<{ sum: unknown }>([
          {
            $match: {
              'postings.account': account,
              mode,
              ...(until === undefined ? {} : { at: { $lt: toDate(until, 'until') } }),
            },
          },
          { $unwind: '$postings' },
          { $match: { 'postings.account': account } },
          { $group: { _id: null, sum: { $sum: '$postings.amountKobo' } } },
        ])
        .toArray();
      return rows.length === 0 ? 0 : readInteger(rows[0]!.sum, 'sum of postings');
    },
    async entriesBetween(kind, mode, from, until, limit) {
      const docs = await journalOf(ctx)
        .find({ kind, mode, at: { $gte: toDate(from, 'from'), $lt: toDate(until, 'until') } })
        .sort({ at: 1, entryId: 1 })
        .limit(limit)
        .toArray();
      return docs.map(entryFromDoc);
    },
    async bookOwn(entry, audit) {
      // Everything written is fixed before the first attempt, so a retried transaction writes the same.
      const doc = journalDoc({
        id: journalIds.own(entry.kind, entry.reference),
        entryId: entryIdOf(new ObjectId()),
        ...entry,
      });
      const auditDoc = auditDocOf(audit);
      const journal = journalOf(ctx);
      return ctx.inTransaction(
        async (session) => {
          const earlier = await journal.findOne({ _id: doc._id }, { session });
          if (earlier !== null) return { entry: entryFromDoc(earlier), replayed: true };
          await journal.insertOne(doc, { session });
          await appendAuditIn(ctx, session, auditDoc);
          return { entry: entryFromDoc(doc), replayed: false };
        },
        async (error, session) => {
          // Another call booked this kind and reference first (a duplicate _id), or this one's
          // commit is unknown: the entry a majority has answers, and its entryId says whose it is.
          const duplicate = typeof error === 'object' && error !== null && 'code' in error;
          if (!isUnknownCommitResult(error) && !(duplicate && error.code === DUPLICATE_KEY_CODE)) return undefined;
          const earlier = await journal.findOne({ _id: doc._id }, followUpRead(session));
          if (earlier === null) return undefined;
          return { entry: entryFromDoc(earlier), replayed: earlier.entryId !== doc.entryId };
        },
      );
    },
  };
}
