/**
 * The live wallet's credit and manual-debit mails, read from the `wallet.credited` and
 * `wallet.debited` events each money move writes in its own store transaction (the outbox),
 * each event claimed once (`wallet_money:<event id>`, event-mail.ts) before its mail is queued.
 * Test wallets are not mailed: their money is not money.
 */
import type { Logger } from '../../runtime/log.js';
import type { EventRecord } from '../domain/events.js';
import type { NoticeStore } from '../store/port.js';
import { createEventMail, type EventMail, eventData, naira } from './event-mail.js';
import type { Notices } from './notices.js';

/** Who paid a bank transfer, or the operator's memo of a credit. */
function creditDetail(data: Record<string, unknown>): string {
  const funding = data.funding as { payer_name?: unknown } | undefined;
  if (typeof funding?.payer_name === 'string' && funding.payer_name !== '')
    return `bank transfer from ${funding.payer_name}`;
  return typeof data.memo === 'string' ? data.memo : '';
}

export function createWalletMail(deps: {
  notices: Notices;
  store: NoticeStore;
  clock: () => Date;
  log: Logger;
  intervalMs: number;
}): EventMail {
  const { notices, store } = deps;
  const send = (event: EventRecord): Promise<number> => {
    const data = eventData(event);
    const base = {
      accountId: event.accountId,
      reference: event.subject,
      amount: naira(data.amount),
      balance: naira(data.balance),
      at: event.createdAt,
    };
    if (event.type === 'wallet.debited') {
      const reason = typeof data.reason === 'string' ? data.reason : '';
      return notices.walletDebited({ ...base, detail: '', reason });
    }
    return notices.walletCredited({ ...base, detail: creditDetail(data) });
  };
  return createEventMail(
    { ...deps, enabled: notices.enabled },
    { kind: 'wallet_money', read: (since, limit) => store.walletMoneySince(since, limit), send },
  );
}
