/**
 * Mail read from the events the money moves already write: a move writes its event in its own
 * store transaction (the outbox the webhooks read), and a worker reads those events back and
 * mails the account's owners. There is no second record of what happened to drift from the
 * first. Each event is claimed once in the store (`<kind>:<event id>`) before its mail is
 * queued, so several cores, or a restart that reads the same day again, never mail it twice; a
 * core that dies between the claim and the send loses that one mail (at most once, by choice:
 * a duplicate money mail is worse than a missed one, which the statement and webhooks still show).
 * The low-balance alert (low-balance.ts) and the wallet's credit and debit mails (wallet-mail.ts)
 * are two such workers.
 */
import type { Logger } from '../../runtime/log.js';
import type { EventRecord } from '../domain/events.js';
import type { NoticeStore } from '../store/port.js';

/** How far back a pass reads: a day, so that a core that was down for hours still mails what it missed. */
const LOOKBACK_MS = 86_400_000;
/** Events read per store call. */
const PAGE = 200;
/** Passes read again this far before the newest event seen: a transaction that committed late has an earlier time. */
const OVERLAP_MS = 5 * 60_000;

export interface EventMail {
  start(): void;
  /** One pass now; the number of mails queued (tests). */
  runOnce(): Promise<number>;
  stop(): Promise<void>;
}

export interface EventMailDeps {
  /** Whether mail goes out at all; without it the worker never starts. */
  enabled: boolean;
  store: Pick<NoticeStore, 'claimOnce'>;
  clock: () => Date;
  log: Logger;
  intervalMs: number;
}

/** `1234.5` -> `1,234.50`. */
export function naira(value: unknown): string {
  const amount = typeof value === 'number' && Number.isFinite(value) ? value : 0;
  return amount.toLocaleString('en-NG', { minimumFractionDigits: 2, maximumFractionDigits: 2 });
}

/** The `data` of an event's body, as the webhooks get it. */
export function eventData(event: EventRecord): Record<string, unknown> {
  const data = (JSON.parse(event.body) as { data?: unknown }).data;
  return typeof data === 'object' && data !== null ? (data as Record<string, unknown>) : {};
}

export function createEventMail(
  deps: EventMailDeps,
  mail: {
    /** The claim's prefix and the warning's kind. */
    kind: string;
    read: (since: Date, limit: number) => Promise<EventRecord[]>;
    /** Queues the event's mails; how many. */
    send: (event: EventRecord) => Promise<number>;
  },
): EventMail {
  const { store, clock, log } = deps;
  let newestSeenMs: number | null = null;
  let timer: NodeJS.Timeout | undefined;
  let running: Promise<number> | undefined;

  async function pass(): Promise<number> {
    const nowMs = clock().getTime();
    let sinceMs = Math.max(nowMs - LOOKBACK_MS, newestSeenMs === null ? 0 : newestSeenMs - OVERLAP_MS);
    let queued = 0;
    for (;;) {
      const events = await mail.read(new Date(sinceMs), PAGE);
      for (const event of events) {
        newestSeenMs = Math.max(newestSeenMs ?? 0, event.createdAt.getTime());
        if (!(await store.claimOnce(`${mail.kind}:${event.eventId}`, clock()))) continue;
        queued += await mail.send(event);
      }
      const last = events.at(-1);
      // A full page moves on from its last time; a page of one instant only is the end (claims dedupe).
      if (events.length < PAGE || last === undefined || last.createdAt.getTime() === sinceMs) return queued;
      sinceMs = last.createdAt.getTime();
    }
  }

  const runOnce = (): Promise<number> => {
    running ??= pass().finally(() => {
      running = undefined;
    });
    return running;
  };

  return {
    start() {
      if (!deps.enabled || timer !== undefined) return;
      timer = setInterval(() => {
        runOnce().catch((error: unknown) =>
          log('mail.send_warning', { kind: mail.kind, reason: error instanceof Error ? error.message : String(error) }),
        );
      }, deps.intervalMs);
      timer.unref();
    },
    runOnce,
    async stop() {
      if (timer !== undefined) clearInterval(timer);
      timer = undefined;
      await running?.catch(() => undefined);
    },
  };
}
