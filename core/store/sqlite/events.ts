/**
 * Events and webhook endpoints on SQLite. The wallet writes events (`writeEvent`) inside
 * its own operations, in the transaction of the change each announces; the event sub-port
 * reads them, leases them to the delivery worker and records attempts. Its writes go
 * through the group commit like the money operations: a delivery's two small writes (its
 * lease and its outcome) ride along in the purchases' batches (`ride`), sharing their fsync
 * and taking none of their places.
 */
import type Database from 'better-sqlite3';
import {
  type DeliveryState,
  type EventRecord,
  type EventType,
  initialDelivery,
  type Mode,
  type NewEvent,
  nextDueAfter,
  type WebhookEndpointRecord,
} from '../../domain/events.js';
import { requireLimit } from '../bounds.js';
import type { ClaimedWithEndpoint, EventStore, WebhookStore } from '../event-port.js';
import { decodeEventCursor, encodeEventCursor, toPage } from '../paging.js';
import type { GroupCommit } from './group-commit.js';
import { fromMs, toFlag, toMs } from './rows.js';

export interface EventRow {
  seq: number;
  event_id: string;
  account_id: string;
  mode: string;
  type: string;
  subject: string;
  body: string;
  created_at: number;
  delivery: string;
  attempts: number;
  next_attempt_at: number | null;
  queued_at: number;
  lease_owner: string | null;
  last_status: number | null;
  last_error: string | null;
  last_attempt_at: number | null;
}

interface EndpointRow {
  account_id: string;
  mode: string;
  url: string;
  secret: string;
  previous_secret: string | null;
  previous_secret_until: number | null;
  enabled: number;
  created_at: number;
  updated_at: number;
}

export function eventFromRow(row: EventRow): EventRecord {
  return {
    seq: row.seq,
    eventId: row.event_id,
    accountId: row.account_id,
    mode: row.mode as Mode,
    type: row.type as EventType,
    subject: row.subject,
    body: row.body,
    createdAt: fromMs(row.created_at),
    delivery: row.delivery as DeliveryState,
    attempts: row.attempts,
    nextAttemptAt: row.next_attempt_at === null ? null : fromMs(row.next_attempt_at),
    queuedAt: fromMs(row.queued_at),
    lastStatus: row.last_status,
    lastError: row.last_error,
    lastAttemptAt: row.last_attempt_at === null ? null : fromMs(row.last_attempt_at),
  };
}

function endpointFromRow(row: EndpointRow): WebhookEndpointRecord {
  return {
    accountId: row.account_id,
    mode: row.mode as Mode,
    url: row.url,
    secret: row.secret,
    previousSecret: row.previous_secret,
    previousSecretUntil: row.previous_secret_until === null ? null : fromMs(row.previous_secret_until),
    enabled: row.enabled === 1,
    createdAt: fromMs(row.created_at),
    updatedAt: fromMs(row.updated_at),
  };
}

type InsertParams = Omit<EventRow, 'seq' | 'lease_owner' | 'last_status' | 'last_error' | 'last_attempt_at'>;

export function prepareEventStatements(db: Database.Database) {
  return {
    insert: db.prepare<InsertParams, EventRow>(
      `INSERT INTO events (event_id, account_id, mode, type, subject, body, created_at, delivery, attempts,
         next_attempt_at, queued_at)
       VALUES (@event_id, @account_id, @mode, @type, @subject, @body, @created_at, @delivery, @attempts,
         @next_attempt_at, @queued_at)
       RETURNING *`,
    ),
    /** The same insert without reading the row back: the money operations need nothing of it. */
    record: db.prepare<InsertParams>(
      `INSERT INTO events (event_id, account_id, mode, type, subject, body, created_at, delivery, attempts,
         next_attempt_at, queued_at)
       VALUES (@event_id, @account_id, @mode, @type, @subject, @body, @created_at, @delivery, @attempts,
         @next_attempt_at, @queued_at)`,
    ),
    endpointEnabled: db.prepare<[string, string], { enabled: number }>(
      'SELECT enabled FROM webhook_endpoints WHERE account_id = ? AND mode = ?',
    ),
    feed: db.prepare<{ account_id: string; mode: string; after: number; limit: number }, EventRow>(
      'SELECT * FROM events WHERE account_id = @account_id AND mode = @mode AND seq > @after ORDER BY seq LIMIT @limit',
    ),
    get: db.prepare<[string], EventRow>('SELECT * FROM events WHERE event_id = ?'),
    due: db.prepare<{ now: number; exclude: string; limit: number }, EventRow>(
      `SELECT * FROM events WHERE delivery = 'pending' AND next_attempt_at <= @now
         AND account_id NOT IN (SELECT value FROM json_each(@exclude))
       ORDER BY next_attempt_at, seq LIMIT @limit`,
    ),
    /** Whether due() would find anything: the worker asks often, and mostly nothing is due. */
    anyDue: db.prepare<{ now: number; exclude: string }, { found: number }>(
      `SELECT 1 AS found FROM events WHERE delivery = 'pending' AND next_attempt_at <= @now
         AND account_id NOT IN (SELECT value FROM json_each(@exclude)) LIMIT 1`,
    ),
    // The literal state matches the partial index events_due_by_destination.
    anyDueFor: db.prepare<{ now: number; account_id: string; mode: string }, { found: number }>(
      `SELECT 1 AS found FROM events
       WHERE delivery = 'pending' AND account_id = @account_id AND mode = @mode AND next_attempt_at <= @now LIMIT 1`,
    ),
    dueFor: db.prepare<{ now: number; account_id: string; mode: string; limit: number }, EventRow>(
      `SELECT * FROM events
       WHERE delivery = 'pending' AND account_id = @account_id AND mode = @mode AND next_attempt_at <= @now
       ORDER BY next_attempt_at, seq LIMIT @limit`,
    ),
    lease: db.prepare<{ seq: number; owner: string; until: number }>(
      `UPDATE events SET lease_owner = @owner, next_attempt_at = @until WHERE seq = @seq AND delivery = 'pending'`,
    ),
    attempt: db.prepare<{
      event_id: string;
      owner: string;
      delivery: string;
      status: number;
      error: string | null;
      at: number;
      next_attempt_at: number | null;
    }>(
      `UPDATE events SET delivery = @delivery, attempts = attempts + 1, last_status = @status, last_error = @error,
         last_attempt_at = @at, next_attempt_at = @next_attempt_at, lease_owner = NULL
       WHERE event_id = @event_id AND lease_owner = @owner AND delivery = 'pending'`,
    ),
    requeue: db.prepare<{ event_id: string; at: number }, EventRow>(
      `UPDATE events SET delivery = 'pending', next_attempt_at = @at, queued_at = @at, lease_owner = NULL
       WHERE event_id = @event_id RETURNING *`,
    ),
    // On events_once_per_move, whose partial filter the type list repeats.
    aboutSubject: db.prepare<{ account_id: string; mode: string; subject: string; scan: number }, EventRow>(
      `SELECT * FROM events INDEXED BY events_once_per_move
        WHERE subject = @subject AND type IN ('transaction.success', 'transaction.failed', 'transaction.reversed')
          AND account_id = @account_id AND mode = @mode
        ORDER BY seq LIMIT @scan`,
    ),
    deliveries: db.prepare<
      { account_id: string; mode: string; before: number; failed_only: number; limit: number },
      EventRow
    >(
      `SELECT * FROM events WHERE account_id = @account_id AND mode = @mode AND seq < @before AND delivery <> 'none'
         AND (@failed_only = 0 OR delivery = 'failed')
       ORDER BY seq DESC LIMIT @limit`,
    ),
    // The literal state matches the partial index events_undelivered.
    undelivered: db.prepare<[], { count: number; oldest: number | null }>(
      `SELECT COUNT(*) AS count, MIN(created_at) AS oldest FROM events WHERE delivery = 'pending'`,
    ),
    // SQLite fills the bare columns from the row holding MIN(created_at): the oldest event's last attempt.
    failing: db.prepare<
      { before: number; limit: number; account_id: string | null },
      {
        account_id: string;
        mode: string;
        oldest: number;
        undelivered: number;
        last_status: number | null;
        last_error: string | null;
      }
    >(
      `SELECT account_id, mode, MIN(created_at) AS oldest, COUNT(*) AS undelivered, last_status, last_error
       FROM events WHERE delivery = 'pending' AND created_at < @before
         AND (@account_id IS NULL OR account_id = @account_id)
       GROUP BY account_id, mode ORDER BY oldest LIMIT @limit`,
    ),
    getEndpoint: db.prepare<[string, string], EndpointRow>(
      'SELECT * FROM webhook_endpoints WHERE account_id = ? AND mode = ?',
    ),
    putEndpoint: db.prepare<EndpointRow>(
      `INSERT INTO webhook_endpoints (account_id, mode, url, secret, previous_secret, previous_secret_until, enabled,
         created_at, updated_at)
       VALUES (@account_id, @mode, @url, @secret, @previous_secret, @previous_secret_until, @enabled, @created_at,
         @updated_at)
       ON CONFLICT (account_id, mode) DO UPDATE SET url = excluded.url, secret = excluded.secret,
         previous_secret = excluded.previous_secret, previous_secret_until = excluded.previous_secret_until,
         enabled = excluded.enabled, updated_at = excluded.updated_at`,
    ),
  };
}

export type EventStatements = ReturnType<typeof prepareEventStatements>;

/**
 * An event's row: queued for delivery when the account has an enabled webhook URL for the
 * event's mode (or when forced), else only recorded for the feed.
 */
function eventParams(sql: EventStatements, event: NewEvent, forceDelivery: boolean): InsertParams {
  const endpoint = forceDelivery ? undefined : sql.endpointEnabled.get(event.accountId, event.mode);
  const start = initialDelivery(endpoint?.enabled === 1, forceDelivery, event.createdAt);
  const createdAt = toMs(event.createdAt);
  return {
    event_id: event.eventId,
    account_id: event.accountId,
    mode: event.mode,
    type: event.type,
    subject: event.subject,
    body: event.body,
    created_at: createdAt,
    delivery: start.delivery,
    attempts: 0,
    next_attempt_at: start.nextAttemptAt === null ? null : toMs(start.nextAttemptAt),
    queued_at: createdAt,
  };
}

/** Writes an event inside the caller's transaction and reads its row back. */
function writeEvent(sql: EventStatements, event: NewEvent, forceDelivery = false): EventRow {
  return sql.insert.get(eventParams(sql, event, forceDelivery))!;
}

/** Writes an event inside the caller's transaction (a money operation's), reading nothing back. */
export function recordEvent(sql: EventStatements, event: NewEvent): void {
  sql.record.run(eventParams(sql, event, false));
}

export function createEventStore(sql: EventStatements, commit: GroupCommit): EventStore {
  return {
    async listFeed(accountId, mode, afterSeq, limit) {
      requireLimit(limit);
      return sql.feed.all({ account_id: accountId, mode, after: afterSeq, limit }).map(eventFromRow);
    },
    async get(eventId) {
      const row = sql.get.get(eventId);
      return row ? eventFromRow(row) : null;
    },
    async insertPing(event) {
      return eventFromRow(await commit.run(() => writeEvent(sql, event, true)));
    },
    async claimDue(claim) {
      return (await claimEvents(sql, commit, claim, false)).events;
    },
    claimDueWithEndpoint: (claim) => claimEvents(sql, commit, claim, true),
    async recordAttempt(eventId, owner, outcome) {
      const nextDue = nextDueAfter(outcome);
      const changes = await commit.ride(
        () =>
          sql.attempt.run({
            event_id: eventId,
            owner,
            delivery: outcome.delivery,
            status: outcome.status,
            error: outcome.error,
            at: toMs(outcome.at),
            next_attempt_at: nextDue === null ? null : toMs(nextDue),
          }).changes,
      );
      return changes === 1;
    },
    async requeue(eventId, at) {
      const row = await commit.run(() => sql.requeue.get({ event_id: eventId, at: toMs(at) }));
      return row ? eventFromRow(row) : null;
    },
    async listDeliveries(accountId, mode, filter, page) {
      const limit = requireLimit(page.limit);
      const before = page.after === undefined ? Number.MAX_SAFE_INTEGER : decodeEventCursor(page.after);
      const rows = sql.deliveries.all({
        account_id: accountId,
        mode,
        before,
        failed_only: toFlag(filter.failedOnly),
        limit: limit + 1,
      });
      return toPage(rows, limit, eventFromRow, (row) => encodeEventCursor(row.seq));
    },
    async listAboutSubject(accountId, mode, subject, scan) {
      return sql.aboutSubject.all({ account_id: accountId, mode, subject, scan: requireLimit(scan) }).map(eventFromRow);
    },
    async failingDestinations(before, limit, accountId) {
      requireLimit(limit);
      return sql.failing.all({ before: toMs(before), limit, account_id: accountId ?? null }).map((row) => ({
        accountId: row.account_id,
        mode: row.mode as Mode,
        oldestCreatedAt: fromMs(row.oldest),
        undelivered: row.undelivered,
        lastStatus: row.last_status,
        lastError: row.last_error,
      }));
    },
    async undeliveredSummary() {
      const row = sql.undelivered.get()!;
      return { count: row.count, oldestCreatedAt: row.oldest === null ? null : fromMs(row.oldest) };
    },
  };
}

/**
 * Leases the due events (EventStore.claimDue); with `readEndpoint`, the destination's webhook
 * is read inside the same transaction (EventStore.claimDueWithEndpoint): measured in place
 * (2026-11-27), that read took about 56 us as an autocommit statement after the batches'
 * commits, and a few inside one. A claim that finds nothing commits nothing: it rides in the
 * next batch, or in one of its own when none comes (an empty COMMIT, then a sync with nothing
 * new to write).
 */
async function claimEvents(
  sql: EventStatements,
  commit: GroupCommit,
  claim: Parameters<EventStore['claimDue']>[0],
  readEndpoint: boolean,
): Promise<ClaimedWithEndpoint> {
  requireLimit(claim.limit);
  const until = toMs(claim.leaseUntil);
  const now = toMs(claim.now);
  const { destination } = claim;
  const nothing = { events: [], endpoint: null };
  if (destination !== undefined && claim.excludeAccounts.includes(destination.accountId)) return nothing;
  const exclude = JSON.stringify(claim.excludeAccounts);
  const forDestination =
    destination === undefined ? undefined : { now, account_id: destination.accountId, mode: destination.mode };
  const due = () =>
    forDestination === undefined
      ? sql.due.all({ now, exclude, limit: claim.limit })
      : sql.dueFor.all({ ...forDestination, limit: claim.limit });
  // A sweep reads first, outside any write: it asks often, and mostly nothing is due. The
  // worker's claim for one destination (readEndpoint) skips that read: it comes after one of
  // the destination's events was recorded or one of its attempts ended, so mostly something
  // is due, and the read would be a transaction of its own (about 40 us measured in place)
  // where the claim's query inside the next batch costs a few.
  if (!readEndpoint) {
    const any = forDestination === undefined ? sql.anyDue.get({ now, exclude }) : sql.anyDueFor.get(forDestination);
    if (any === undefined) return nothing;
  }
  return commit.ride(() => {
    const rows = due();
    for (const row of rows) sql.lease.run({ seq: row.seq, owner: claim.owner, until });
    const events = rows.map((row) => eventFromRow({ ...row, lease_owner: claim.owner, next_attempt_at: until }));
    const endpointRow =
      readEndpoint && destination !== undefined && rows.length > 0
        ? sql.getEndpoint.get(destination.accountId, destination.mode)
        : undefined;
    return { events, endpoint: endpointRow === undefined ? null : endpointFromRow(endpointRow) };
  });
}

export function createWebhookStore(sql: EventStatements): WebhookStore {
  return {
    async get(accountId, mode) {
      const row = sql.getEndpoint.get(accountId, mode);
      return row ? endpointFromRow(row) : null;
    },
    async put(endpoint) {
      sql.putEndpoint.run({
        account_id: endpoint.accountId,
        mode: endpoint.mode,
        url: endpoint.url,
        secret: endpoint.secret,
        previous_secret: endpoint.previousSecret,
        previous_secret_until: endpoint.previousSecretUntil === null ? null : toMs(endpoint.previousSecretUntil),
        enabled: toFlag(endpoint.enabled),
        created_at: toMs(endpoint.createdAt),
        updated_at: toMs(endpoint.updatedAt),
      });
    },
  };
}
