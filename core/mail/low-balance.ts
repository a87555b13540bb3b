/**
 * The low-balance alert by mail, read from the events the wallet already writes: the store's
 * debit that crosses an account's threshold writes a `wallet.low_balance` event in its own
 * transaction (the outbox the webhooks read), and this worker reads those events back and
 * mails the account's owners. There is no second record of "balance is low" to drift from the
 * first. Each event is claimed once in the store (`low_balance:<event id>`) before its mail is
 * queued, so several cores, or a restart that reads the same day again, never mail it twice;
 * a core that dies between the claim and the send loses that one mail (at most once, by
 * choice: a duplicate alert is noise, a missed one is followed by the next crossing).
 *
 * Live wallets only: a test wallet's alert is for trying a webhook, not for anyone's inbox.
 */
import type { Logger } from '../../runtime/log.js';
import type { NoticeStore } from '../store/port.js';
import type { Notices } from './notices.js';

/** How far back a pass reads: a day, so that a core that was down for hours still mails what it missed. */
const LOOKBACK_MS = 86_400_000;
/** Events read per store call. */
const PAGE = 200;
/** Passes read again this far before the newest event seen: a transaction that committed late has an earlier time. */
const OVERLAP_MS = 5 * 60_000;

export interface LowBalanceMail {
  start(): void;
  /** One pass now; the number of mails queued (tests). */
  runOnce(): Promise<number>;
  stop(): Promise<void>;
}

/** `1234.5` -> `1,234.50`. */
function naira(value: unknown): string {
  const amount = typeof value === 'number' && Number.isFinite(value) ? value : 0;
  return amount.toLocaleString('en-NG', { minimumFractionDigits: 2, maximumFractionDigits: 2 });
}

export function createLowBalanceMail(deps: {
  notices: Notices;
  store: NoticeStore;
  clock: () => Date;
  log: Logger;
  intervalMs: number;
}): LowBalanceMail {
  const { notices, store, clock, log } = deps;
  let newestSeenMs: number | null = null;
  let timer: NodeJS.Timeout | undefined;
  let running: Promise<number> | undefined;

  async function pass(): Promise<number> {
    const nowMs = clock().getTime();
    let sinceMs = Math.max(nowMs - LOOKBACK_MS, newestSeenMs === null ? 0 : newestSeenMs - OVERLAP_MS);
    let queued = 0;
    for (;;) {
      const events = await store.lowBalanceSince(new Date(sinceMs), PAGE);
      for (const event of events) {
        newestSeenMs = Math.max(newestSeenMs ?? 0, event.createdAt.getTime());
        if (!(await store.claimOnce(`low_balance:${event.eventId}`, clock()))) continue;
        const data = (JSON.parse(event.body) as { data?: { balance?: unknown; threshold?: unknown } }).data ?? {};
        queued += await notices.lowBalance({
          accountId: event.accountId,
          balance: naira(data.balance),
          threshold: naira(data.threshold),
          at: event.createdAt,
        });
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
      if (!notices.enabled || timer !== undefined) return;
      timer = setInterval(() => {
        runOnce().catch((error: unknown) =>
          log('mail.send_warning', {
            kind: 'low_balance',
            reason: error instanceof Error ? error.message : String(error),
          }),
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
