/**
 * Buying from the developer area: what a signed-in owner buys is bought for the session's
 * account through the very purchase service the public API uses (the same validation, prices,
 * idempotency by request id, providers and two-phase flow). Nothing here is a rule of its own;
 * this file only adds what a page needs beside a purchase: the purchase's own ledger entries,
 * so a failed or reversed purchase shows its refund and the balance right after it.
 */
import type { Mode } from '../domain/mode.js';
import type { LedgerEntryRecord } from '../domain/records.js';
import type { HolderContext } from '../people/service.js';
import type { PurchaseService } from '../purchases/service.js';
import type { Store } from '../store/port.js';

export interface ShopDeskDeps {
  store: Pick<Store, 'wallet'>;
  purchases: PurchaseService;
}

export function createShopDesk(deps: ShopDeskDeps) {
  const { store, purchases } = deps;
  return {
    /** The debit and refund of one of the account's purchases; another account's reference is not found. */
    async purchaseEntries(context: HolderContext, mode: Mode, reference: string): Promise<LedgerEntryRecord[]> {
      const transaction = await purchases.transaction(context.account.accountId, mode, reference);
      return store.wallet.ledgerOf(transaction.accountId, mode, transaction.reference);
    },
  };
}

export type ShopDesk = ReturnType<typeof createShopDesk>;
