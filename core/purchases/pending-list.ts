/**
 * The pending list: transactions whose provider outcome is not known yet, oldest first, and
 * above all those the recovery worker flagged for a person (past the recovery deadline).
 */
import { type Page, PENDING_PAGES, pageSize, readPage } from '../domain/paging.js';
import type { TransactionRecord } from '../domain/records.js';
import type { TransactionStore } from '../store/port.js';

export function createPendingList(deps: { transactions: TransactionStore }) {
  return {
    /** One page, oldest first; `requestedSize` undefined means the default. */
    async list(
      needsAttentionOnly: boolean,
      requestedSize: number | undefined,
      pageToken: string,
    ): Promise<Page<TransactionRecord>> {
      const limit = pageSize(requestedSize, PENDING_PAGES, 'page_size');
      return readPage('page_token', () =>
        deps.transactions.listPending({ needsAttentionOnly }, { limit, ...(pageToken ? { after: pageToken } : {}) }),
      );
    },
  };
}

export type PendingList = ReturnType<typeof createPendingList>;
