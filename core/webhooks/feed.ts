/**
 * The events feed (`?action=events`): an account's events oldest first, for partners who
 * cannot receive callbacks. The cursor names the last event a page showed by its id (the
 * account's own, which the page already showed), never by its seq: the seq counts every
 * account's events, and a cursor made of it let any partner read the platform's volume. A
 * page always hands a cursor back (the same one when nothing new was recorded), so a partner
 * polls with the cursor it was last given and never skips nor repeats an event: events of an
 * account commit in seq order (see EventStore.listFeed), and the cursor's event is found by
 * its id, in the caller's own account and mode, to learn where to go on from.
 */
import { notFound } from '../domain/errors.js';
import type { EventRecord } from '../domain/events.js';
import type { Mode } from '../domain/mode.js';
import { cursorRefused, historyPageSize, InvalidCursorError } from '../domain/paging.js';
import type { EventStore } from '../store/event-port.js';
import { decodeFeedCursor, encodeFeedCursor } from '../store/paging.js';
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
      const afterId = pageToken === '' ? null : feedCursor(pageToken);
      if ((await deps.accounts.get(accountId)) === null) throw notFound(`Account ${accountId}`);
      const afterSeq = afterId === null ? 0 : await seqOf(deps.events, afterId, accountId, mode);
      const events = await deps.events.listFeed(accountId, mode, afterSeq, limit);
      return { events, next: encodeFeedCursor(events.at(-1)?.eventId ?? afterId) };
    },
  };
}

/** The event id a feed cursor names (null: the feed's start); a cursor this service did not issue is the client's error. */
function feedCursor(pageToken: string): string | null {
  try {
    return decodeFeedCursor(pageToken);
  } catch (error) {
    if (error instanceof InvalidCursorError) throw cursorRefused('cursor');
    throw error;
  }
}

/** Where the feed goes on after the cursor's event: only an event of the caller's own account and mode names a place. */
async function seqOf(events: EventStore, eventId: string, accountId: string, mode: Mode): Promise<number> {
  const event = await events.get(eventId);
  if (event === null || event.accountId !== accountId || event.mode !== mode) throw cursorRefused('cursor');
  return event.seq;
}

export type EventFeed = ReturnType<typeof createEventFeed>;
