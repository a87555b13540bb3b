/**
 * The delivery worker: takes due events from the store (a lease per event, so several
 * cores never attempt one event at the same time), signs each body and POSTs it to its
 * account's webhook, and records the outcome: delivered on any 2xx within the timeout,
 * else retried on the schedule (core/domain/events.ts) until the retry window closes.
 *
 * Bounds, so that a slow or dead receiver never holds up anything else: at most
 * `concurrency` deliveries at once in this core, and at most `perDestination` of them for
 * one account's webhook; an account that has as many as it may is left out of the next
 * claim, so the other accounts' events go on being claimed. Nothing here is on the
 * purchase path: a purchase only writes its event, and the store's write tells the
 * worker (`nudge`) that something is due.
 *
 * It survives restarts because everything it needs is in the store: an event claimed by a
 * core that then died is due again when its lease runs out.
 */

import { randomBytes } from 'node:crypto';
import { hostname } from 'node:os';
import type { Logger } from '../../runtime/log.js';
import { type DeliverySchedule, type EventRecord, nextDeliveryAt } from '../domain/events.js';
import type { EventStore, WebhookStore } from '../store/event-port.js';
import type { Poster } from './destination.js';
import { signatureHeader } from './signing.js';

export interface DeliveryWorkerOptions {
  events: EventStore;
  webhooks: WebhookStore;
  poster: Poster;
  log: Logger;
  clock: () => Date;
  schedule: DeliverySchedule;
  /** Deliveries in flight at once in this core. */
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
  /** Something is due now (an event was just recorded, or queued again). */
  nudge(): void;
  /** Stops claiming, and waits for the attempts in flight. */
  stop(): Promise<void>;
  /** Claims and delivers until nothing is due (tests). */
  drain(): Promise<void>;
}

/** One attempt of one leased event: sign, POST, record the outcome, log it (never the secret, the signature or the body). */
async function attempt(options: DeliveryWorkerOptions, owner: string, event: EventRecord): Promise<void> {
  const { events, webhooks, poster, log, clock, schedule } = options;
  const endpoint = await webhooks.get(event.accountId, event.mode);
  const at = clock();
  let status = 0;
  let error: string | null;
  if (endpoint === null || !endpoint.enabled) {
    error = 'no enabled webhook URL';
  } else {
    const timestamp = Math.floor(at.getTime() / 1000);
    const secrets = [endpoint.secret];
    if (endpoint.previousSecret !== null && endpoint.previousSecretUntil !== null && endpoint.previousSecretUntil > at) secrets.push(endpoint.previousSecret);
    const result = await poster.post(endpoint.url, event.body, {
      'Content-Type': 'application/json',
      'User-Agent': 'prepaid-webhooks/1',
      'Prepaid-Event-Id': event.eventId,
      'Prepaid-Signature': signatureHeader(secrets, timestamp, event.body),
    });
    status = result.status;
    error = result.error;
  }
  const done = clock();
  const attempts = event.attempts + 1;
  const next = error === null ? null : nextDeliveryAt(attempts, event.queuedAt, done, schedule);
  const delivery = error === null ? 'delivered' : next === null ? 'failed' : 'pending';
  const recorded = await events.recordAttempt(event.eventId, owner, { delivery, status, error, at: done, nextAttemptAt: next });
  options.observe?.(delivery === 'pending' ? 'retry' : delivery);
  // Names the event, never the secret, the signature or the body.
  log('webhook.attempt', {
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

export function createDeliveryWorker(options: DeliveryWorkerOptions): DeliveryWorker {
  const { events, log, clock } = options;
  const owner = `${hostname()}:${process.pid}:${randomBytes(4).toString('hex')}`;
  /**
   * A claimed event may wait behind its destination's other deliveries before its own
   * attempt starts. A destination holds fewer than 2 x perDestination events (a claim takes
   * at most perDestination, and none for a destination already holding that many), so an
   * event waits at most two rounds of attempts, then takes its own: four attempt timeouts
   * cover it with room to spare.
   */
  const leaseMs = options.attemptTimeoutMs * 4;
  /** Events claimed and not finished, by destination (account and mode). */
  const held = new Map<string, number>();
  /** Per destination, the events waiting for one of its slots. */
  const waiting = new Map<string, EventRecord[]>();
  const running = new Map<string, number>();
  const inFlight = new Set<Promise<void>>();
  let heldTotal = 0;
  let timer: NodeJS.Timeout | undefined;
  let claiming = false;
  let again = false;
  let stopped = true;

  const destinationOf = (event: EventRecord) => `${event.accountId}\u0000${event.mode}`;

  function startWaiting(destination: string): void {
    const queue = waiting.get(destination);
    // Once stopped, claimed events that have not started stay leased: the next start (here
    // or on another core) takes them when the lease runs out.
    while (!stopped && queue !== undefined && queue.length > 0 && (running.get(destination) ?? 0) < options.perDestination) {
      const event = queue.shift()!;
      running.set(destination, (running.get(destination) ?? 0) + 1);
      const task = attempt(options, owner, event)
        .catch((error: unknown) => {
          // The store failed to record the attempt: the lease runs out and the event is tried again.
          log('webhook.attempt_error', { event_id: event.eventId, error: error instanceof Error ? error.message : String(error) });
        })
        .finally(() => {
          inFlight.delete(task);
          running.set(destination, running.get(destination)! - 1);
          const left = held.get(destination)! - 1;
          if (left === 0) held.delete(destination);
          else held.set(destination, left);
          heldTotal -= 1;
          startWaiting(destination);
          nudge();
        });
      inFlight.add(task);
    }
    if (queue !== undefined && queue.length === 0) waiting.delete(destination);
  }

  /** Claims due events while this core has free slots, and starts what its destinations allow. */
  async function claimLoop(): Promise<void> {
    if (claiming) {
      again = true;
      return;
    }
    claiming = true;
    try {
      do {
        again = false;
        while (!stopped && heldTotal < options.concurrency) {
          const full = [...held].filter(([, n]) => n >= options.perDestination).map(([destination]) => destination.split('\u0000')[0]!);
          const now = clock();
          const limit = Math.min(options.concurrency - heldTotal, options.perDestination);
          const claimed = await events.claimDue({ now, owner, leaseUntil: new Date(now.getTime() + leaseMs), limit, excludeAccounts: full });
          for (const event of claimed) {
            const destination = destinationOf(event);
            held.set(destination, (held.get(destination) ?? 0) + 1);
            heldTotal += 1;
            const queue = waiting.get(destination) ?? [];
            queue.push(event);
            waiting.set(destination, queue);
            startWaiting(destination);
          }
          if (claimed.length < limit) break;
        }
      } while (again && !stopped);
    } catch (error) {
      log('webhook.claim_error', { error: error instanceof Error ? error.message : String(error) });
    } finally {
      claiming = false;
    }
  }

  function nudge(): void {
    if (stopped) return;
    void claimLoop();
  }

  return {
    start() {
      if (!stopped) return;
      stopped = false;
      timer = setInterval(nudge, options.pollIntervalMs);
      timer.unref();
      nudge();
    },
    nudge,
    async stop() {
      stopped = true;
      if (timer !== undefined) clearInterval(timer);
      timer = undefined;
      while (claiming || inFlight.size > 0) {
        await Promise.allSettled([...inFlight]);
        if (claiming) await new Promise((resolve) => setImmediate(resolve));
      }
    },
    async drain() {
      const wasStopped = stopped;
      stopped = false;
      try {
        for (;;) {
          await claimLoop();
          if (inFlight.size === 0 && !claiming) {
            await claimLoop();
            if (inFlight.size === 0) return;
          }
          await Promise.race([...inFlight]);
        }
      } finally {
        stopped = wasStopped;
      }
    },
  };
}
