/**
 * What bounds the developer area's reads on MongoDB (a holder's history search, spend per
 * day, the pending count, deliveries, the events feed and the ledger pages): a time limit on
 * the server, and an index for every shape of filter and order they send, so that no read
 * walks a wallet's whole history.
 *
 * A read that reaches the limit fails with MaxTimeMSExpired (code 50): the page answers with
 * an error instead of holding a server thread and the caller for as long as the scan takes.
 */
import type { IndexDescription } from 'mongodb';
import type { Mode } from '../../domain/mode.js';

/**
 * The longest a developer-area read may run on the server. An indexed page takes
 * milliseconds; the bound is for a degraded server or an unforeseen plan, and is well
 * inside the developer area's own request time-outs.
 */
export const DEVELOPER_READ_MAX_TIME_MS = 5_000;

/** Options every developer-area read sends. */
export function developerRead(): { maxTimeMS: number } {
  return { maxTimeMS: DEVELOPER_READ_MAX_TIME_MS };
}

/** The delivery states of events that were meant for a webhook (everything but 'none'). */
const DELIVERY_STATES_SHOWN = ['pending', 'delivered', 'failed'] as const;

/**
 * The filter of a wallet's deliveries, newest first (seq descending): failed ones only, or
 * every event meant for a webhook. Listed by $in rather than `$ne: 'none'`, so that the
 * query implies the partial index's filter and the server reads only those events (with
 * `$ne`, an account without a webhook would have its whole feed walked to show nothing).
 */
export function deliveriesFilter(
  accountId: string,
  mode: Mode,
  failedOnly: boolean,
): { account_id: string; mode: Mode; delivery: unknown } {
  return { account_id: accountId, mode, delivery: failedOnly ? 'failed' : { $in: [...DELIVERY_STATES_SHOWN] } };
}

/** A holder's history searched by status (and the pending count), newest first (schema step 11). */
export const TRANSACTIONS_BY_STATUS_INDEX: IndexDescription = {
  name: 'transactions_by_status',
  key: { account_id: 1, mode: 1, status: 1, created_at: -1, _id: -1 },
};

/** A holder's history searched by product, newest first (schema step 11). */
export const TRANSACTIONS_BY_PRODUCT_INDEX: IndexDescription = {
  name: 'transactions_by_product',
  key: { account_id: 1, mode: 1, product: 1, created_at: -1, _id: -1 },
};

/** A wallet's failed deliveries, newest first, touching only failed events (schema step 11). */
export const FAILED_DELIVERIES_INDEX: IndexDescription = {
  name: 'events_failed_deliveries',
  key: { account_id: 1, mode: 1, seq: -1 },
  partialFilterExpression: { delivery: 'failed' },
};

/** A wallet's events meant for a webhook, newest first, touching only those (schema step 11). */
export const DELIVERIES_INDEX: IndexDescription = {
  name: 'events_deliveries',
  key: { account_id: 1, mode: 1, seq: -1 },
  partialFilterExpression: { delivery: { $in: [...DELIVERY_STATES_SHOWN] } },
};
