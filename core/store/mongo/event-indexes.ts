/**
 * The names and indexes of the events and webhook endpoints collections, apart from the
 * code that reads and writes them (events.ts), so the schema steps (schema.ts) can build
 * them without importing the store, which imports the schema's context.
 */

export const EVENT_COLLECTIONS = { events: 'events', webhooks: 'webhook_endpoints' } as const;

/** Indexes of the two collections (schema step 4). */
export const EVENT_INDEXES = {
  [EVENT_COLLECTIONS.events]: [
    // The feed: an account's events of one mode in seq order; seq is unique per account.
    { name: 'events_feed', key: { account_id: 1, mode: 1, seq: 1 } },
    { name: 'events_seq', key: { account_id: 1, seq: 1 }, unique: true },
    // Partial, so the delivery worker's scan and the metric touch only pending events.
    { name: 'events_due', key: { next_attempt_at: 1, seq: 1 }, partialFilterExpression: { delivery: 'pending' } },
    { name: 'events_undelivered', key: { created_at: 1 }, partialFilterExpression: { delivery: 'pending' } },
    // One event per state change of a purchase, whatever the code above does.
    {
      name: 'events_once_per_move',
      key: { subject: 1, type: 1 },
      unique: true,
      partialFilterExpression: { type: { $in: ['transaction.success', 'transaction.failed', 'transaction.reversed'] } },
    },
  ],
  [EVENT_COLLECTIONS.webhooks]: [],
} as const;

/** Due events of one destination, for the worker's claim when that receiver has room (schema step 8). */
export const EVENTS_DUE_BY_DESTINATION_INDEX = {
  name: 'events_due_by_destination',
  key: { account_id: 1, mode: 1, next_attempt_at: 1, seq: 1 },
  partialFilterExpression: { delivery: 'pending' },
} as const;
