/**
 * The pending list: transactions whose provider outcome is not known yet, oldest first, and
 * above all those the recovery worker flagged for a person (past the recovery deadline).
 */
import { invalid } from '../domain/errors.js';
import { InvalidCursorError, type Page } from '../domain/paging.js';
import type { TransactionRecord } from '../domain/records.js';
import type { TransactionStore } from '../store/port.js';

export const DEFAULT_PENDING_PAGE_SIZE = 100;
export const MAX_PENDING_PAGE_SIZE = 500;

export function createPendingList(deps: { transactions: TransactionStore }) {
  return {
    /** One page, oldest first; `pageSize` 0 means the default. */
    async list(needsAttentionOnly: boolean, pageSize: number, pageToken: string): Promise<Page<TransactionRecord>> {
      if (!Number.isInteger(pageSize) || pageSize < 0 || pageSize > MAX_PENDING_PAGE_SIZE) {
        throw invalid('page_size', `page_size must be between 1 and ${MAX_PENDING_PAGE_SIZE}.`);
      }
      try {
        return await deps.transactions.listPending(
          { needsAttentionOnly },
          { limit: pageSize || DEFAULT_PENDING_PAGE_SIZE, ...(pageToken ? { after: pageToken } : {}) },
        );
      } catch (error) {
        if (error instanceof InvalidCursorError) throw invalid('page_token', 'page_token is not one this service issued.');
        throw error;
      }
    },
  };
}

export type PendingList = ReturnType<typeof createPendingList>;
