/**
 * The low-balance alert by mail, read from the events the wallet already writes: the store's
 * debit that crosses an account's threshold writes a `wallet.low_balance` event in its own
 * transaction, and this worker (event-mail.ts) reads those events back and mails the account's
 * owners, each event claimed once (`low_balance:<event id>`): a duplicate alert is noise, a
 * missed one is followed by the next crossing.
 *
 * Live wallets only: a test wallet's alert is for trying a webhook, not for anyone's inbox.
 */
import type { Logger } from '../../runtime/log.js';
import type { NoticeStore } from '../store/port.js';
import { createEventMail, type EventMail, eventData, naira } from './event-mail.js';
import type { Notices } from './notices.js';

export type LowBalanceMail = EventMail;

export function createLowBalanceMail(deps: {
  notices: Notices;
  store: NoticeStore;
  clock: () => Date;
  log: Logger;
  intervalMs: number;
}): LowBalanceMail {
  const { notices, store } = deps;
  return createEventMail(
    { ...deps, enabled: notices.enabled },
    {
      kind: 'low_balance',
      read: (since, limit) => store.lowBalanceSince(since, limit),
      send: (event) => {
        const data = eventData(event);
        return notices.lowBalance({
          accountId: event.accountId,
          balance: naira(data.balance),
          threshold: naira(data.threshold),
          at: event.createdAt,
        });
      },
    },
  );
}
