/**
 * Recipient controls as use cases (docs/security.md, Recipient controls): the platform's and
 * each account's blocklist, each account's per-recipient limits, and the guard the purchase
 * path asks before a reserve. The platform's list is kept in memory for a few seconds (one
 * store read per few seconds, none per purchase), read again at once when this core changes
 * it; an account's controls come with the account the purchase path reads anyway.
 */

import { keptFresh } from '../../runtime/kept-fresh.js';
import { notFound } from '../domain/errors.js';
import type { ProductName } from '../domain/products.js';
import {
  blockedValue,
  blockReason,
  checkPerDayCount,
  checkPerDayKobo,
  hasRecipientChecks,
  recipientControlled,
  recipientRefused,
} from '../domain/recipient-controls.js';
import type { AccountRecord, ReserveChecks } from '../domain/records.js';
import type { RecipientBlock, Store } from '../store/port.js';

/** How long another core's change of the platform's list may take to be in force here. */
const PLATFORM_LIST_FRESH_MS = 5_000;
/** The most values the platform's list holds in memory; a block past it is refused. */
const MAX_PLATFORM_BLOCKS = 100_000;
/** The most blocks one list shows. */
const MAX_LISTED_BLOCKS = 500;

export interface RecipientDeps {
  store: Pick<Store, 'recipients' | 'accounts'>;
  clock: () => Date;
  /** DUPLICATE_WINDOW_S in milliseconds: how long the duplicate guard remembers a purchase. */
  duplicateWindowMs: number;
}

export function createRecipientControls(deps: RecipientDeps) {
  const { store, clock } = deps;
  const platform = keptFresh({
    read: async () => new Set(await store.recipients.platformValues(MAX_PLATFORM_BLOCKS)),
    freshMs: PLATFORM_LIST_FRESH_MS,
    clock,
  });
  const requireAccount = async (accountId: string): Promise<AccountRecord> => {
    const account = accountId === '' ? null : await store.accounts.get(accountId);
    if (account === null) throw notFound(`Account ${accountId || '(empty id)'}`);
    return account;
  };
  return {
    /**
     * The checks a purchase's reserve makes for its recipient, after refusing one the platform
     * blocks (before anything is reserved or asked of an upstream). Undefined: none.
     */
    async checksFor(
      account: AccountRecord,
      order: { product: ProductName; recipient: string },
      checks: ReserveChecks | undefined,
    ): Promise<ReserveChecks | undefined> {
      if (!recipientControlled(order.product)) return checks;
      const blocked = await platform.get();
      if (blocked.size > 0 && blocked.has(order.recipient)) throw recipientRefused({ kind: 'blocked' }, 0);
      const controls = account.recipientControls;
      if (!hasRecipientChecks(controls)) return checks;
      return { ...checks, recipient: { controls, duplicateWindowMs: deps.duplicateWindowMs } };
    },

    /** Blocks a value for the platform (accountId '') or an account. */
    async block(accountId: string, value: string, reason: string, by: string): Promise<RecipientBlock> {
      const block = { accountId, value: blockedValue(value), reason: blockReason(reason), by, at: clock() };
      if (accountId !== '') await requireAccount(accountId);
      await store.recipients.block(block);
      if (accountId === '') await platform.reload();
      return block;
    },

    async unblock(accountId: string, value: string): Promise<boolean> {
      const removed = await store.recipients.unblock(accountId, blockedValue(value));
      if (accountId === '') await platform.reload();
      return removed;
    },

    listBlocks: (accountId: string) => store.recipients.listBlocks(accountId, MAX_LISTED_BLOCKS),

    /** DUPLICATE_WINDOW_S: how long the duplicate guard remembers a purchase, for the pages that explain it. */
    duplicateWindowS: Math.round(deps.duplicateWindowMs / 1000),

    /** Sets the account's per-recipient limits and its duplicate guard. */
    async setLimits(
      accountId: string,
      limits: { perDayCount: number; perDayKobo: number; duplicateGuard: boolean },
    ): Promise<AccountRecord> {
      const checked = {
        perDayCount: checkPerDayCount(limits.perDayCount),
        perDayKobo: checkPerDayKobo(limits.perDayKobo),
        duplicateGuard: limits.duplicateGuard,
      };
      const account = await store.recipients.setLimits(accountId, checked);
      if (account === null) throw notFound(`Account ${accountId || '(empty id)'}`);
      return account;
    },
  };
}

export type RecipientControlsService = ReturnType<typeof createRecipientControls>;
