/**
 * The sequence of a wallet's events (one account in one mode), kept in a counter document
 * of its own in the `counters` collection, one per account and mode.
 *
 * An event takes the next value in the transaction that writes it, so two transactions that
 * write events of one wallet both update that counter: they conflict, the later one is
 * re-run after the first commits, and a wallet's events therefore commit in seq order. A
 * feed poller reading after the last seq it saw never skips one.
 *
 * The counter used to be a field of the account document (`event_seq`), which made every
 * settle write the account: one account's purchases then conflicted with each other from
 * reserve to settle, and test traffic with live traffic. Now a purchase writes the account
 * once, in its reserve's conditional debit; a settle writes only its transaction, its event
 * and this wallet's counter. A counter starts, the first time a wallet writes an event under
 * this build, from the account's old `event_seq`, so a wallet's seq keeps growing across the
 * upgrade.
 */
import { type ClientSession, type Document, Long } from 'mongodb';
import type { Mode } from '../../domain/mode.js';
import type { MongoContext } from './context.js';
import { readInteger, toLong } from './documents.js';

/** The counter document's id for one wallet's events. */
export function eventSeqCounterId(accountId: string, mode: Mode): string {
  return `event_seq:${accountId}:${mode}`;
}

/** The update that takes the next value of a counter that exists. */
export const NEXT_SEQ_UPDATE = { $inc: { value: Long.ONE } } as const;

/**
 * The update (a pipeline, so that it can compare with what is there) that starts a counter at
 * the account's old per-account sequence plus one. Run as an upsert: if another transaction
 * started the counter first, the two conflict and this one re-runs, finding it.
 */
export function startSeqUpdate(previousSeq: number): Document[] {
  return [
    {
      $set: {
        value: { $add: [{ $max: [{ $ifNull: ['$value', Long.ZERO] }, toLong(previousSeq, 'event_seq')] }, Long.ONE] },
      },
    },
  ];
}

/**
 * Takes the next seq of the wallet's events inside the caller's transaction. Throws (aborting it) when the account does
 * not exist.
 */
export async function nextEventSeq(
  ctx: MongoContext,
  session: ClientSession,
  accountId: string,
  mode: Mode,
): Promise<number> {
  const c = ctx.live();
  const _id = eventSeqCounterId(accountId, mode);
  const next = await c.counters.findOneAndUpdate({ _id }, NEXT_SEQ_UPDATE, {
    session,
    returnDocument: 'after',
    projection: { value: 1 },
  });
  if (next !== null) return readInteger(next.value, 'counters.value');
  // The wallet's first event under this build: start from the account's old counter, if any.
  const account = await c.accounts.findOne({ _id: accountId }, { session, projection: { event_seq: 1 } });
  if (account === null) throw new Error(`store: account ${accountId} of an event does not exist`);
  const previous = (account as unknown as { event_seq?: unknown }).event_seq;
  const started = await c.counters.findOneAndUpdate(
    { _id },
    startSeqUpdate(previous === undefined ? 0 : readInteger(previous, 'accounts.event_seq')),
    {
      session,
      upsert: true,
      returnDocument: 'after',
      projection: { value: 1 },
    },
  );
  return readInteger(started!.value, 'counters.value');
}
