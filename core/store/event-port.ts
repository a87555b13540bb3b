/**
 * The store's sub-ports for events and webhook endpoints. Events are written by
 * the wallet's own operations, in the transaction of the change they announce (see
 * WalletStore in port.ts); these sub-ports read them, lease them to a delivery worker and
 * record what each attempt did.
 */
import type { AttemptOutcome, EventRecord, Mode, NewEvent, WebhookEndpointRecord } from '../domain/events.js';
import type { Page, PageRequest } from '../domain/paging.js';

/** A batch of due events for one delivery worker. */
interface EventClaim {
  now: Date;
  /** Who claims: only this owner may record the attempts' outcomes. */
  owner: string;
  /**
   * Until when the claim holds. A claimed event is not due again before then, so another
   * core (or this one after a crash) picks it up only once the lease has run out.
   */
  leaseUntil: Date;
  limit: number;
  /** Accounts whose receivers are busy with as many deliveries as they may have: none of theirs. */
  excludeAccounts: readonly string[];
  /**
   * Only this destination's events (one account's webhook of one mode): the worker's claim
   * when one of its receivers has room, answered from an index on the destination, so its
   * cost does not grow with other destinations' backlogs.
   */
  destination?: { accountId: string; mode: Mode };
}

/** A claim of one destination's due events (EventStore.claimDueWithEndpoint). */
type DestinationClaim = EventClaim & { destination: { accountId: string; mode: Mode } };

/** The events one destination's claim leased, and its webhook as read in the same transaction. */
export interface ClaimedWithEndpoint {
  events: EventRecord[];
  endpoint: WebhookEndpointRecord | null;
}

/** How many events wait for delivery, and since when the oldest of them exists. */
/** A webhook destination (an account's endpoint of one mode) with events still undelivered since `oldestCreatedAt`. */
export interface FailingDestination {
  accountId: string;
  mode: Mode;
  oldestCreatedAt: Date;
  /** Its events still pending delivery. */
  undelivered: number;
  /** What the last attempt of its oldest undelivered event met (HTTP status, error), null before any. */
  lastStatus: number | null;
  lastError: string | null;
}

export interface UndeliveredSummary {
  count: number;
  oldestCreatedAt: Date | null;
}

export interface EventStore {
  /**
   * The account's events of one mode with seq > afterSeq, oldest first, at most `limit`.
   * An event becomes visible only once committed, and commits in seq order within an
   * account, so polling after the last seq seen never skips nor repeats one.
   */
  listFeed(accountId: string, mode: Mode, afterSeq: number, limit: number): Promise<EventRecord[]>;
  get(eventId: string): Promise<EventRecord | null>;
  /** Records an event that announces no change of money (a ping), queued for delivery at once. */
  insertPing(event: NewEvent): Promise<EventRecord>;
  /** Leases the due pending events, oldest due first; each is then owned by `claim.owner` until the lease ends. */
  claimDue(claim: EventClaim): Promise<EventRecord[]>;
  /**
   * claimDue for one destination, with that destination's webhook endpoint (null when it has
   * none) read with the claim, in its transaction where the store has one: the worker needs
   * both for every claim, and on SQLite a read in a transaction of its own, right after
   * commits, costs many times one inside the claim's. With nothing claimed the
   * endpoint may be left unread (null).
   */
  claimDueWithEndpoint(claim: DestinationClaim): Promise<ClaimedWithEndpoint>;
  /** Records an attempt of a leased event; false (nothing written) when `owner` no longer holds it. */
  recordAttempt(eventId: string, owner: string, outcome: AttemptOutcome): Promise<boolean>;
  /** Queues an event for delivery again from `at` (a resend). Null when it does not exist. */
  requeue(eventId: string, at: Date): Promise<EventRecord | null>;
  /** The account's events that were to be delivered (not `none`), newest first. */
  listDeliveries(
    accountId: string,
    mode: Mode,
    filter: { failedOnly: boolean },
    page: PageRequest,
  ): Promise<Page<EventRecord>>;
  undeliveredSummary(): Promise<UndeliveredSummary>;
  /**
   * A purchase's own events (transaction.success, .failed, .reversed about its reference), oldest
   * first, at most `limit`: read on the index that keeps one of each per purchase
   * (events_once_per_move), so however old the purchase, they are found.
   */
  listAboutSubject(accountId: string, mode: Mode, subject: string, limit: number): Promise<EventRecord[]>;
  /**
   * The destinations whose oldest event still pending delivery was created before `before`
   * (the console's "failing for over a day"), oldest first, at most `limit`; only the
   * account's when `accountId` is given (its page's webhooks state).
   */
  failingDestinations(before: Date, limit: number, accountId?: string): Promise<FailingDestination[]>;
}

export interface WebhookStore {
  get(accountId: string, mode: Mode): Promise<WebhookEndpointRecord | null>;
  /** Writes the endpoint whole (insert or replace). The account must exist. */
  put(endpoint: WebhookEndpointRecord): Promise<void>;
}
