/**
 * What operators watch: the pending transactions (above all those the recovery worker
 * flagged for a person) and the ledger check that proves every kobo adds up.
 */
import { invalid } from '../domain/errors.js';
import type { TransactionRecord } from '../domain/records.js';
import { InvalidCursorError, type Page } from '../domain/paging.js';
import type { LedgerAudit } from '../domain/audit.js';
import type { Store } from '../store/port.js';

export const DEFAULT_PENDING_PAGE_SIZE = 100;
export const MAX_PENDING_PAGE_SIZE = 500;

export function createOversightService(deps: { store: Pick<Store, 'wallet' | 'transactions'> }) {
  return {
    async listPending(needsAttentionOnly: boolean, pageSize: number, pageToken: string): Promise<Page<TransactionRecord>> {
      if (!Number.isInteger(pageSize) || pageSize < 0 || pageSize > MAX_PENDING_PAGE_SIZE) {
        throw invalid('page_size', `page_size must be between 1 and ${MAX_PENDING_PAGE_SIZE}.`);
      }
      try {
        return await deps.store.transactions.listPending(
          { needsAttentionOnly },
          { limit: pageSize || DEFAULT_PENDING_PAGE_SIZE, ...(pageToken ? { after: pageToken } : {}) },
        );
      } catch (error) {
        if (error instanceof InvalidCursorError) throw invalid('page_token', 'page_token is not one this service issued.');
        throw error;
      }
    },

    checkLedger(): Promise<LedgerAudit> {
      return deps.store.wallet.audit();
    },
  };
}

export type OversightService = ReturnType<typeof createOversightService>;
