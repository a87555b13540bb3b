/**
 * Events and webhook endpoints on MongoDB. The wallet writes an event (`writeEventIn`)
 * inside the transaction of the change it announces, taking the next seq of its wallet from
 * that wallet's counter document (event-seq.ts explains why that keeps the feed gapless).
 * Whether the event goes to a webhook is read first (`deliversTo`), before the transaction's
 * first write to the account, so a transaction holds its write on the account for as short
 * a time as possible.
 */
import { type ClientSession, type Collection, type Filter, Long } from 'mongodb';
import {
  type AttemptOutcome,
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
import type { EventStore, FailingDestination, WebhookStore } from '../event-port.js';
import { decodeEventCursor, encodeEventCursor, toPage } from '../paging.js';
import type { MongoContext } from './context.js';
import { deliveriesFilter, developerRead } from './developer-reads.js';
import { readInteger, toDate, toLong } from './documents.js';
import { EVENT_COLLECTIONS } from './event-indexes.js';
import { nextEventSeq } from './event-seq.js';

export interface EventDoc {
  /** The event id. */
  _id: string;
  seq: Long | number;
  account_id: string;
  mode: Mode;
  type: EventType;
  subject: string;
  body: string;
  created_at: Date;
  delivery: DeliveryState;
  attempts: Long | number;
  next_attempt_at: Date | null;
  queued_at: Date;
  lease_owner: string | null;
  last_status: number | null;
  last_error: string | null;
  last_attempt_at: Date | null;
}

export interface WebhookEndpointDoc {
  /** account id, a colon, the mode. */
  _id: string;
  account_id: string;
  mode: Mode;
  url: string;
  secret: string;
  previous_secret: string | null;
  previous_secret_until: Date | null;
  enabled: boolean;
  created_at: Date;
  updated_at: Date;
}

export function eventCollections(ctx: MongoContext): {
  events: Collection<EventDoc>;
  webhooks: Collection<WebhookEndpointDoc>;
} {
  ctx.live();
  return {
    events: ctx.db.collection<EventDoc>(EVENT_COLLECTIONS.events),
    webhooks: ctx.db.collection<WebhookEndpointDoc>(EVENT_COLLECTIONS.webhooks),
  };
}

const endpointId = (accountId: string, mode: Mode) => `${accountId}:${mode}`;

export function eventFromDoc(doc: EventDoc): EventRecord {
  return {
    seq: readInteger(doc.seq, 'events.seq'),
    eventId: doc._id,
    accountId: doc.account_id,
    mode: doc.mode,
    type: doc.type,
    subject: doc.subject,
    body: doc.body,
    createdAt: doc.created_at,
    delivery: doc.delivery,
    attempts: readInteger(doc.attempts, 'events.attempts'),
    nextAttemptAt: doc.next_attempt_at,
    queuedAt: doc.queued_at,
    lastStatus: doc.last_status,
    lastError: doc.last_error,
    lastAttemptAt: doc.last_attempt_at,
  };
}

/**
 * Whether an event of this wallet goes to its webhook: the account has an enabled URL for
 * the mode. Read in the caller's transaction before it writes the account.
 */
export async function deliversTo(
  ctx: MongoContext,
  session: ClientSession,
  accountId: string,
  mode: Mode,
): Promise<boolean> {
  const endpoint = await eventCollections(ctx).webhooks.findOne(
    { _id: endpointId(accountId, mode) },
    { session, projection: { enabled: 1 } },
  );
  return endpoint?.enabled === true;
}

/**
 * Writes an event inside the caller's transaction, taking the next seq of its wallet, queued
 * for delivery when `deliver` (what deliversTo said, or true for a ping).
 */
export async function writeEventIn(
  ctx: MongoContext,
  session: ClientSession,
  event: NewEvent,
  deliver: boolean,
): Promise<EventDoc> {
  const seq = await nextEventSeq(ctx, session, event.accountId, event.mode);
  return insertEvent(eventCollections(ctx).events, session, event, seq, deliver);
}

async function insertEvent(
  events: Collection<EventDoc>,
  session: ClientSession,
  event: NewEvent,
  seq: number,
  deliver: boolean,
): Promise<EventDoc> {
  const start = initialDelivery(deliver, false, event.createdAt);
  const createdAt = toDate(event.createdAt, 'createdAt');
  const doc: EventDoc = {
    _id: event.eventId,
    seq: toLong(seq, 'seq'),
    account_id: event.accountId,
    mode: event.mode,
    type: event.type,
    subject: event.subject,
    body: event.body,
    created_at: createdAt,
    delivery: start.delivery,
    attempts: Long.ZERO,
    next_attempt_at: start.nextAttemptAt === null ? null : createdAt,
    queued_at: createdAt,
    lease_owner: null,
    last_status: null,
    last_error: null,
    last_attempt_at: null,
  };
  await events.insertOne(doc, { session });
  return doc;
}

/** The events one purchase has at most one of each (the events_once_per_move index's filter). */
const PURCHASE_EVENT_TYPES = ['transaction.success', 'transaction.failed', 'transaction.reversed'] as const;

export function createEventStore(ctx: MongoContext): EventStore {
  return {
    async listFeed(accountId, mode, afterSeq, limit) {
      requireLimit(limit);
      const docs = await eventCollections(ctx)
        .events.find({ account_id: accountId, mode, seq: { $gt: toLong(afterSeq, 'afterSeq') } }, developerRead())
        .sort({ seq: 1 })
        .limit(limit)
        .toArray();
      return docs.map(eventFromDoc);
    },
    async get(eventId) {
      const doc = await eventCollections(ctx).events.findOne({ _id: eventId });
      return doc === null ? null : eventFromDoc(doc);
    },
    async insertPing(event) {
      const doc = await ctx.inTransaction(
        (session) => writeEventIn(ctx, session, event, true),
        async () => (await eventCollections(ctx).events.findOne({ _id: event.eventId })) ?? undefined,
      );
      return eventFromDoc(doc);
    },
    claimDue: (claim) => claimDueEvents(ctx, claim),
    async claimDueWithEndpoint(claim) {
      // Each event is leased by an update of its own here (no transaction to read in): the
      // endpoint is read right after, as the worker read it before.
      const events = await claimDueEvents(ctx, claim);
      const { accountId, mode } = claim.destination;
      return { events, endpoint: events.length === 0 ? null : await endpointOf(ctx, accountId, mode) };
    },
    async recordAttempt(eventId, owner, outcome: AttemptOutcome) {
      const at = toDate(outcome.at, 'at');
      const nextDue = nextDueAfter(outcome);
      const result = await eventCollections(ctx).events.updateOne(
        { _id: eventId, lease_owner: owner, delivery: 'pending' },
        {
          $set: {
            delivery: outcome.delivery,
            last_status: outcome.status,
            last_error: outcome.error,
            last_attempt_at: at,
            next_attempt_at: nextDue === null ? null : toDate(nextDue, 'nextAttemptAt'),
            lease_owner: null,
          },
          $inc: { attempts: Long.ONE },
        },
      );
      return result.modifiedCount === 1;
    },
    async requeue(eventId, at) {
      const when = toDate(at, 'at');
      const doc = await eventCollections(ctx).events.findOneAndUpdate(
        { _id: eventId },
        { $set: { delivery: 'pending', next_attempt_at: when, queued_at: when, lease_owner: null } },
        { returnDocument: 'after' },
      );
      return doc === null ? null : eventFromDoc(doc);
    },
    async listDeliveries(accountId, mode, filter, page) {
      const limit = requireLimit(page.limit);
      const query = deliveriesFilter(accountId, mode, filter.failedOnly) as Filter<EventDoc>;
      if (page.after !== undefined) query.seq = { $lt: toLong(decodeEventCursor(page.after), 'cursor') };
      const docs = await eventCollections(ctx)
        .events.find(query, developerRead())
        .sort({ seq: -1 })
        .limit(limit + 1)
        .toArray();
      return toPage(docs, limit, eventFromDoc, (doc) => encodeEventCursor(readInteger(doc.seq, 'events.seq')));
    },
    async listAboutSubject(accountId, mode, subject, scan) {
      // On events_once_per_move, whose partial filter the type list repeats.
      const docs = await eventCollections(ctx)
        .events.find({ subject, type: { $in: [...PURCHASE_EVENT_TYPES] }, account_id: accountId, mode })
        .sort({ seq: 1 })
        .limit(requireLimit(scan))
        .toArray();
      return docs.map(eventFromDoc);
    },
    failingDestinations: (before, limit, accountId) => failingDestinationsOf(ctx, before, limit, accountId),
    async undeliveredSummary() {
      const { events } = eventCollections(ctx);
      const [count, oldest] = await Promise.all([
        events.countDocuments({ delivery: 'pending' }),
        events
          .find({ delivery: 'pending' })
          .sort({ created_at: 1 })
          .limit(1)
          .project<{ created_at: Date }>({ created_at: 1 })
          .toArray(),
      ]);
      return { count, oldestCreatedAt: oldest[0]?.created_at ?? null };
    },
  };
}

/** Leases up to `claim.limit` due events to `claim.owner` (EventStore.claimDue). */
async function claimDueEvents(ctx: MongoContext, claim: Parameters<EventStore['claimDue']>[0]): Promise<EventRecord[]> {
  requireLimit(claim.limit);
  const { events } = eventCollections(ctx);
  const leaseUntil = toDate(claim.leaseUntil, 'leaseUntil');
  const { destination } = claim;
  if (destination !== undefined && claim.excludeAccounts.includes(destination.accountId)) return [];
  const claimed: EventRecord[] = [];
  // One conditional update per event: whichever core's update matches first owns it.
  for (let i = 0; i < claim.limit; i++) {
    const filter: Filter<EventDoc> = { delivery: 'pending', next_attempt_at: { $lte: toDate(claim.now, 'now') } };
    if (claim.excludeAccounts.length > 0) filter.account_id = { $nin: [...claim.excludeAccounts] };
    // One destination's: answered from events_due_by_destination.
    if (destination !== undefined) Object.assign(filter, { account_id: destination.accountId, mode: destination.mode });
    const doc = await events.findOneAndUpdate(
      filter,
      { $set: { lease_owner: claim.owner, next_attempt_at: leaseUntil } },
      { sort: { next_attempt_at: 1, seq: 1 }, returnDocument: 'after' },
    );
    if (doc === null) break;
    claimed.push(eventFromDoc(doc));
  }
  return claimed;
}

/** The destinations whose oldest pending event is older than `before` (EventStore.failingDestinations). */
async function failingDestinationsOf(
  ctx: MongoContext,
  before: Date,
  limit: number,
  accountId?: string,
): Promise<FailingDestination[]> {
  requireLimit(limit);
  const { events } = eventCollections(ctx);
  // The pending events older than `before`, by destination: the oldest one's last attempt.
  const rows = await events
    .aggregate<{
      _id: { account_id: string; mode: Mode };
      oldest: Date;
      undelivered: number;
      last_status: number | null;
      last_error: string | null;
    }>([
      {
        $match: {
          delivery: 'pending',
          created_at: { $lt: before },
          ...(accountId === undefined ? {} : { account_id: accountId }),
        },
      },
      { $sort: { created_at: 1 } },
      {
        $group: {
          _id: { account_id: '$account_id', mode: '$mode' },
          oldest: { $first: '$created_at' },
          undelivered: { $sum: 1 },
          last_status: { $first: '$last_status' },
          last_error: { $first: '$last_error' },
        },
      },
      { $sort: { oldest: 1 } },
      { $limit: limit },
    ])
    .toArray();
  return rows.map((row) => ({
    accountId: row._id.account_id,
    mode: row._id.mode,
    oldestCreatedAt: row.oldest,
    undelivered: row.undelivered,
    lastStatus: row.last_status ?? null,
    lastError: row.last_error ?? null,
  }));
}

/** One account's webhook endpoint of one mode (WebhookStore.get). */
async function endpointOf(ctx: MongoContext, accountId: string, mode: Mode): Promise<WebhookEndpointRecord | null> {
  const doc = await eventCollections(ctx).webhooks.findOne({ _id: endpointId(accountId, mode) });
  if (doc === null) return null;
  return {
    accountId: doc.account_id,
    mode: doc.mode,
    url: doc.url,
    secret: doc.secret,
    previousSecret: doc.previous_secret,
    previousSecretUntil: doc.previous_secret_until,
    enabled: doc.enabled,
    createdAt: doc.created_at,
    updatedAt: doc.updated_at,
  };
}

export function createWebhookStore(ctx: MongoContext): WebhookStore {
  return {
    get: (accountId, mode) => endpointOf(ctx, accountId, mode),
    async put(endpoint: WebhookEndpointRecord) {
      const { createdAt, ...rest } = endpoint;
      await eventCollections(ctx).webhooks.updateOne(
        { _id: endpointId(endpoint.accountId, endpoint.mode) },
        {
          $set: {
            account_id: rest.accountId,
            mode: rest.mode,
            url: rest.url,
            secret: rest.secret,
            previous_secret: rest.previousSecret,
            previous_secret_until:
              rest.previousSecretUntil === null ? null : toDate(rest.previousSecretUntil, 'previousSecretUntil'),
            enabled: rest.enabled,
            updated_at: toDate(rest.updatedAt, 'updatedAt'),
          },
          $setOnInsert: { created_at: toDate(createdAt, 'createdAt') },
        },
        { upsert: true },
      );
    },
  };
}
