/**
 * The events feed (`?action=events`): an account's events oldest first, for partners who
 * cannot receive callbacks. The cursor is the seq of the last event a page showed, and a
 * page always hands one back (the same one when nothing new was recorded), so a partner
 * polls with the cursor it was last given and never skips nor repeats an event: events of
 * an account commit in seq order (see EventStore.listFeed).
 */
import { notFound } from '../domain/errors.js';
import type { EventRecord } from '../domain/events.js';
import type { Mode } from '../domain/mode.js';
import { cursorRefused, historyPageSize, InvalidCursorError } from '../domain/paging.js';
import type { EventStore } from '../store/event-port.js';
import { decodeEventCursor, encodeEventCursor } from '../store/paging.js';
import type { AccountStore } from '../store/port.js';

export interface FeedPage {
  events: EventRecord[];
  /** Where the next poll starts; always set. */
  next: string;
}

export function createEventFeed(deps: { accounts: AccountStore; events: EventStore }) {
  return {
    async list(accountId: string, mode: Mode, pageSize: number | undefined, pageToken: string): Promise<FeedPage> {
      const limit = historyPageSize(pageSize);
      const afterSeq = pageToken === '' ? 0 : feedCursor(pageToken);
      if ((await deps.accounts.get(accountId)) === null) throw notFound(`Account ${accountId}`);
      const events = await deps.events.listFeed(accountId, mode, afterSeq, limit);
      const last = events.at(-1);
      return { events, next: encodeEventCursor(last === undefined ? afterSeq : last.seq) };
    },
  };
}

/** The seq a feed cursor names; a cursor this service did not issue is the client's error. */
function feedCursor(pageToken: string): number {
  let seq = -1;
  try {
    seq = decodeEventCursor(pageToken);
  } catch (error) {
    if (!(error instanceof InvalidCursorError)) throw error;
  }
  if (seq < 0) throw cursorRefused('cursor');
  return seq;
}

export type EventFeed = ReturnType<typeof createEventFeed>;
