/**
 * What operators watch: the pending transactions (above all those the recovery worker
 * flagged for a person) and the ledger check that proves every kobo adds up.
 */
import { invalid } from '../domain/errors.js';
import { InvalidCursorError, type LedgerAudit, type Page, type Store, type TransactionRecord } from '../store/port.js';

export const DEFAULT_PENDING_PAGE_SIZE = 100;
export const MAX_PENDING_PAGE_SIZE = 500;

export function createOversightService(deps: { store: Store }) {
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
