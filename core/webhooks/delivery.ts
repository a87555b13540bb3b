/**
 * The delivery worker: takes due events from the store (a lease per event, so several
 * cores never attempt one event at the same time), signs each body and POSTs it to its
 * account's webhook, and records the outcome: delivered on any 2xx within the timeout,
 * else retried on the schedule (core/domain/events.ts) until the retry window closes.
 *
 * Bounds, so that a slow or dead receiver never holds up anything else: at most
 * `concurrency` events held (claimed and not yet answered) in this core, at most
 * `perDestination` attempts at once to one account's webhook, and as many waiting behind
 * them, and at most `perDestination` attempts at once of one account, its live and test
 * webhooks together, over connections of its own (the poster keeps a pool per account): an
 * account whose webhooks point at another's origin takes none of that origin's connections
 * from it. Nothing here is on the purchase path: a purchase only writes its event, and the
 * store's write tells the worker (`nudge`) which destination has something due.
 *
 * Claims, so that their cost stays flat whatever waits elsewhere: a destination claims its
 * own due events (an index on the destination) when one was recorded and whenever one of
 * its attempts ends; a sweep every `pollIntervalMs` claims for the rest (retries that fell
 * due, events recorded by another core), leaving out the destinations that are full. A
 * slot is the HTTP attempt only: the outcome is written after the slot is given back, in
 * the group commit beside the purchases, while the event is still leased.
 *
 * It survives restarts because everything it needs is in the store: an event claimed by a
 * core that then died is due again when its lease runs out.
 */

import { randomBytes } from 'node:crypto';
import { hostname } from 'node:os';
import type { Logger } from '../../runtime/log.js';
import {
  type DeliverySchedule,
  type EventRecord,
  type Mode,
  nextDeliveryAt,
  type WebhookEndpointRecord,
} from '../domain/events.js';
import type { ClaimedWithEndpoint, EventStore, WebhookStore } from '../store/event-port.js';
import type { Poster, PostResult } from './destination.js';
import { signatureHeader } from './signing.js';

export interface DeliveryWorkerOptions {
  events: EventStore;
  webhooks: WebhookStore;
  poster: Poster;
  log: Logger;
  clock: () => Date;
  schedule: DeliverySchedule;
  /** Events held at once in this core: claimed, waiting for a slot or being attempted. */
  concurrency: number;
  /** Deliveries in flight at once to one account's webhook. */
  perDestination: number;
  /** How long one attempt may take; the lease is sized from it. */
  attemptTimeoutMs: number;
  /** How often the store is asked for due events when nothing nudged the worker. */
  pollIntervalMs: number;
  /** Counts each attempt's outcome (core/metrics.ts). */
  observe?: (outcome: 'delivered' | 'retry' | 'failed') => void;
}

export interface DeliveryWorker {
  start(): void;
  /** Something of `destination` is due now: an event was just recorded, queued again, or a ping recorded. */
  nudge(destination: { accountId: string; mode: Mode }): void;
  /** Stops claiming, and waits for the attempts in flight. */
  stop(): Promise<void>;
  /** Claims and delivers until nothing is due (tests). */
  drain(): Promise<void>;
}

/**
 * One attempt of one leased event: sign, POST, record the outcome, log it (never the secret,
 * the signature or the body).
 */
async function attempt(
  options: DeliveryWorkerOptions,
  owner: string,
  { event, endpoint }: Claimed,
  answered: () => void,
): Promise<void> {
  const { events, log, clock, schedule } = options;
  let result: PostResult;
  try {
    result = await post(options, event, endpoint);
  } finally {
    // The receiver's slot is free once it answered; the outcome is written after.
    answered();
  }
  const { status, error } = result;
  const done = clock();
  const attempts = event.attempts + 1;
  const next = error === null ? null : nextDeliveryAt(attempts, event.queuedAt, done, schedule);
  const delivery = error === null ? 'delivered' : next === null ? 'failed' : 'pending';
  const recorded = await events.recordAttempt(event.eventId, owner, {
    delivery,
    status,
    error,
    at: done,
    nextAttemptAt: next,
  });
  options.observe?.(delivery === 'pending' ? 'retry' : delivery);
  // Names the event, never the secret, the signature or the body. A delivery is a debug line
  // (`webhook.delivered`): the store keeps each attempt and the metric counts them, while a
  // retry or a failure (`webhook.attempt`) is what an operator looks for in the log.
  log(delivery === 'delivered' ? 'webhook.delivered' : 'webhook.attempt', {
    event_id: event.eventId,
    account: event.accountId,
    type: event.type,
    attempts,
    outcome: delivery === 'pending' ? 'retry' : delivery,
    status,
    ...(error === null ? {} : { error }),
    ...(next === null ? {} : { next_attempt_at: next.toISOString() }),
    ...(recorded ? {} : { lease_lost: true }),
  });
}

/** Signs the event's body with every valid secret of its destination and POSTs it. */
async function post(
  options: DeliveryWorkerOptions,
  event: EventRecord,
  endpoint: WebhookEndpointRecord | null,
): Promise<PostResult> {
  if (endpoint === null || !endpoint.enabled) return { status: 0, error: 'no enabled webhook URL' };
  const at = options.clock();
  const timestamp = Math.floor(at.getTime() / 1000);
  const secrets = [endpoint.secret];
  if (endpoint.previousSecret !== null && endpoint.previousSecretUntil !== null && endpoint.previousSecretUntil > at)
    secrets.push(endpoint.previousSecret);
  return options.poster.post(
    endpoint.url,
    event.body,
    {
      'Content-Type': 'application/json',
      'User-Agent': 'prepaid-webhooks/1',
      'Prepaid-Event-Id': event.eventId,
      'Prepaid-Signature': signatureHeader(secrets, timestamp, event.body),
    },
    event.accountId,
  );
}

/**
 * A claimed event with its destination's webhook as read with the claim (in its transaction,
 * for a destination's own claim; right after it, for a sweep's): once per destination and
 * claim, not once per event (a claim takes up to 2 x perDestination of them).
 * A URL changed or disabled after the claim is in force from the next claim, within one round
 * of the destination's attempts.
 */
interface Claimed {
  event: EventRecord;
  endpoint: WebhookEndpointRecord | null;
}

/** Each claimed event with its destination's webhook, read once per destination. */
async function withEndpoints(webhooks: WebhookStore, claimed: readonly EventRecord[]): Promise<Claimed[]> {
  const endpoints = new Map<string, Promise<WebhookEndpointRecord | null>>();
  return Promise.all(
    claimed.map(async (event) => {
      const key = `${event.accountId}\u0000${event.mode}`;
      let endpoint = endpoints.get(key);
      if (endpoint === undefined) {
        endpoint = webhooks.get(event.accountId, event.mode);
        endpoints.set(key, endpoint);
      }
      return { event, endpoint: await endpoint };
    }),
  );
}

/** One account's webhook of one mode, as this core's worker holds it. */
interface Destination {
  accountId: string;
  mode: Mode;
  /** Claimed events waiting for one of its slots. */
  waiting: Claimed[];
  /** Attempts waiting for the receiver's answer. */
  running: number;
  claiming: boolean;
  claimAgain: boolean;
}

const held = (d: Destination) => d.waiting.length + d.running;

/**
 * The destinations this core holds events of, by account and mode; one is forgotten once it
 * holds none. Each may have `perDestination` attempts running, and so may each account, its
 * live and test webhooks together.
 */
function destinationTable(perDestination: number) {
  const table = new Map<string, Destination>();
  const keyOf = (accountId: string, mode: Mode) => `${accountId}\u0000${mode}`;
  const accounts = runningPerAccount();
  return {
    hasSlot: (d: Destination) => d.running < perDestination && accounts.running(d.accountId) < perDestination,
    begin(d: Destination): void {
      d.running += 1;
      accounts.count(d.accountId, 1);
    },
    /** An attempt of `d` was answered; the account's other destination, if this core holds it. */
    end(d: Destination): Destination | undefined {
      d.running -= 1;
      accounts.count(d.accountId, -1);
      return table.get(keyOf(d.accountId, d.mode === 'live' ? 'test' : 'live'));
    },
    of(accountId: string, mode: Mode): Destination {
      const key = keyOf(accountId, mode);
      let destination = table.get(key);
      if (destination === undefined) {
        destination = { accountId, mode, waiting: [], running: 0, claiming: false, claimAgain: false };
        table.set(key, destination);
      }
      return destination;
    },
    forget(d: Destination): void {
      if (held(d) === 0 && !d.claiming) table.delete(keyOf(d.accountId, d.mode));
    },
    all: () => [...table.values()],
    /** Accounts with a destination that holds more than `count` events or is claiming. */
    accountsHolding: (count: number) =>
      [...table.values()].filter((d) => held(d) > count || d.claiming).map((d) => d.accountId),
  };
}

/** A count per account, forgotten at zero. */
function runningPerAccount() {
  const counts = new Map<string, number>();
  const running = (accountId: string) => counts.get(accountId) ?? 0;
  return {
    running,
    count(accountId: string, by: 1 | -1): void {
      const now = running(accountId) + by;
      if (now === 0) counts.delete(accountId);
      else counts.set(accountId, now);
    },
  };
}

/** Waits until `busy()` turns false, letting the attempts in flight end. */
async function settled(inFlight: Set<Promise<void>>, busy: () => boolean): Promise<void> {
  while (busy()) {
    await Promise.allSettled([...inFlight]);
    await new Promise((resolve) => setImmediate(resolve));
  }
}

/**
 * A claimed event may wait behind its destination's other deliveries before its own
 * attempt starts. A destination holds at most 2 x perDestination events (perDestination
 * attempts and as many waiting), so an event waits at most one round of attempts, then
 * takes its own: a lease of four attempt timeouts covers it with room to spare.
 */
const LEASE_IN_ATTEMPTS = 4;

/** A claim's time and the end of its lease: LEASE_IN_ATTEMPTS attempt timeouts from now. */
function leaseFromNow(options: DeliveryWorkerOptions): { now: Date; leaseUntil: Date } {
  const now = options.clock();
  return { now, leaseUntil: new Date(now.getTime() + options.attemptTimeoutMs * LEASE_IN_ATTEMPTS) };
}

/** Leases up to `limit` due events of every account not excluded to `owner` (a sweep). */
function claimDue(
  options: DeliveryWorkerOptions,
  owner: string,
  limit: number,
  excludeAccounts: readonly string[],
): Promise<EventRecord[]> {
  return options.events.claimDue({ ...leaseFromNow(options), owner, limit, excludeAccounts });
}

/**
 * Leases up to `limit` due events of one destination to `owner` (after a nudge or an ended
 * attempt), with its webhook read in the claim's transaction (EventStore.claimDueWithEndpoint).
 */
function claimForDestination(
  options: DeliveryWorkerOptions,
  owner: string,
  limit: number,
  d: { accountId: string; mode: Mode },
): Promise<ClaimedWithEndpoint> {
  const destination = { accountId: d.accountId, mode: d.mode };
  return options.events.claimDueWithEndpoint({
    ...leaseFromNow(options),
    owner,
    limit,
    excludeAccounts: [],
    destination,
  });
}

export function createDeliveryWorker(options: DeliveryWorkerOptions): DeliveryWorker {
  const { log, perDestination } = options;
  const owner = `${hostname()}:${process.pid}:${randomBytes(4).toString('hex')}`;
  const holdLimit = 2 * perDestination;
  const destinations = destinationTable(perDestination);
  /** Attempts and the writes of their outcomes, for stop() and drain(). */
  const inFlight = new Set<Promise<void>>();
  /** Events claimed and not yet answered, in all destinations. */
  let heldTotal = 0;
  let sweeping = false;
  let sweepAgain = false;
  /** Read by the lifecycle too: set by stop(), cleared by start() and during drain(). */
  const state = { stopped: true };

  /** How many more events a claim may take for `d`: its own bound, and this core's. */
  const room = (d: Destination) => Math.min(holdLimit - held(d), options.concurrency - heldTotal);

  /** Takes claimed events into their destinations, and starts what each allows. */
  function take(claimed: readonly Claimed[]): void {
    for (const one of claimed) {
      const d = destinations.of(one.event.accountId, one.event.mode);
      d.waiting.push(one);
      heldTotal += 1;
      start(d);
    }
  }

  /**
   * Starts the destination's waiting events while it has free slots. A slot is the HTTP
   * attempt only: it is given back when the receiver has answered, and the outcome is
   * written beside the next attempts (the event stays leased until it is).
   */
  function start(d: Destination): void {
    // Once stopped, claimed events that have not started stay leased: the next start (here
    // or on another core) takes them when the lease runs out.
    while (!state.stopped && d.waiting.length > 0 && destinations.hasSlot(d)) {
      const claimed = d.waiting.shift()!;
      const { event } = claimed;
      destinations.begin(d);
      const task = attempt(options, owner, claimed, () => {
        const sibling = destinations.end(d);
        heldTotal -= 1;
        // Claims first, so the destination is still known while its claim runs.
        claimFor(d);
        start(d);
        // The account's other webhook may have been waiting for the account's slot.
        if (sibling !== undefined) start(sibling);
      })
        .catch((error: unknown) => {
          // The store failed to record the attempt: the lease runs out and the event is tried again.
          log('webhook.attempt_error', {
            event_id: event.eventId,
            error: error instanceof Error ? error.message : String(error),
          });
        })
        .finally(() => inFlight.delete(task));
      inFlight.add(task);
    }
    destinations.forget(d);
  }

  /**
   * Claims for one destination while it has room: after an event of its was recorded, and
   * each time one of its attempts ends, once no more than half its slots' worth wait. Only
   * its own events are read (an index on the destination), so a backlog elsewhere costs
   * this nothing. The claim runs on the next turn: the events recorded by one batch of
   * purchases, and the attempts that ended together, make one claim.
   */
  function claimFor(d: Destination): void {
    if (state.stopped || room(d) <= 0 || d.waiting.length > perDestination / 2) {
      destinations.forget(d);
      return;
    }
    if (d.claiming) {
      d.claimAgain = true;
      return;
    }
    d.claiming = true;
    setImmediate(async () => {
      try {
        do {
          d.claimAgain = false;
          const limit = room(d);
          if (state.stopped || limit <= 0) break;
          const { events, endpoint } = await claimForDestination(options, owner, limit, d);
          take(events.map((event) => ({ event, endpoint })));
          // A full claim may have left more behind.
          if (events.length === limit) d.claimAgain = true;
        } while (d.claimAgain);
      } catch (error) {
        log('webhook.claim_error', { error: error instanceof Error ? error.message : String(error) });
      } finally {
        d.claiming = false;
        destinations.forget(d);
      }
    });
  }

  /**
   * Claims due events of every destination that has room (the ones at their bound are left
   * out): retries that fell due, resends, pings, and events recorded by another core.
   */
  async function sweep(): Promise<void> {
    if (sweeping) {
      sweepAgain = true;
      return;
    }
    sweeping = true;
    try {
      do {
        sweepAgain = false;
        while (!state.stopped && heldTotal < options.concurrency) {
          // A sweep adds at most perDestination to a destination, so none holds more than holdLimit.
          const full = destinations.accountsHolding(perDestination);
          const limit = Math.min(options.concurrency - heldTotal, perDestination);
          const claimed = await claimDue(options, owner, limit, full);
          take(await withEndpoints(options.webhooks, claimed));
          if (claimed.length < limit) break;
        }
      } while (sweepAgain && !state.stopped);
    } catch (error) {
      log('webhook.claim_error', { error: error instanceof Error ? error.message : String(error) });
    } finally {
      sweeping = false;
    }
  }

  function nudge(destination: { accountId: string; mode: Mode }): void {
    if (state.stopped) return;
    claimFor(destinations.of(destination.accountId, destination.mode));
  }

  const busy = () => sweeping || inFlight.size > 0 || destinations.all().some((d) => d.claiming);

  return { nudge, ...lifecycle({ state, sweep, busy, inFlight, held: () => heldTotal }, options.pollIntervalMs) };
}

/** start(), stop() and drain() of a worker: the periodic sweep, and waiting for what is in flight. */
function lifecycle(
  worker: {
    state: { stopped: boolean };
    sweep: () => Promise<void>;
    busy: () => boolean;
    inFlight: Set<Promise<void>>;
    held: () => number;
  },
  pollIntervalMs: number,
): Omit<DeliveryWorker, 'nudge'> {
  const { state, sweep, busy, inFlight } = worker;
  let timer: NodeJS.Timeout | undefined;
  return {
    start() {
      if (!state.stopped) return;
      state.stopped = false;
      timer = setInterval(() => void sweep(), pollIntervalMs);
      timer.unref();
      void sweep();
    },
    async stop() {
      state.stopped = true;
      if (timer !== undefined) clearInterval(timer);
      timer = undefined;
      await settled(inFlight, busy);
    },
    async drain() {
      const wasStopped = state.stopped;
      state.stopped = false;
      try {
        for (;;) {
          await sweep();
          await settled(inFlight, busy);
          await sweep();
          if (!busy() && worker.held() === 0) return;
        }
      } finally {
        state.stopped = wasStopped;
      }
    },
  };
}
