/**
 * What operators watch: the pending transactions (above all those the recovery worker
 * flagged for a person) and the ledger check that proves every kobo adds up.
 */
import { invalid } from '../domain/errors.js';
import type { TransactionRecord } from '../domain/records.js';
import { InvalidCursorError, type Page } from '../domain/paging.js';
import type { LedgerAudit } from '../domain/audit.js';
import type { Store } from '../store/port.js';
import { DomainError } from '../domain/errors.js';
import type { Logger } from '../../runtime/log.js';

export const DEFAULT_PENDING_PAGE_SIZE = 100;
export const MAX_PENDING_PAGE_SIZE = 500;

export function createOversightService(deps: { store: Pick<Store, 'wallet' | 'transactions'>; log: Logger }) {
  // One check at a time: each reads the whole ledger, and an operator retrying an impatient
  // check must not stack a second read beside the first.
  let checking = false;
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

    /**
     * Checks the books beside the running service (the store reads a snapshot without holding
     * up purchases). `signal` is the caller's: when the caller goes away the check stops too.
     */
    async checkLedger(signal?: AbortSignal): Promise<LedgerAudit> {
      if (checking) {
        throw new DomainError('FAILED_PRECONDITION', 'A ledger check is already running; wait for it to finish, then check again.');
      }
      checking = true;
      const started = Date.now();
      try {
        const audit = await deps.store.wallet.audit({
          ...(signal ? { signal } : {}),
          onProgress: (progress) => deps.log('ledger.check_progress', { rows_read: progress.rowsRead, rows_total: progress.rowsTotal }),
        });
        deps.log('ledger.checked', { ms: Date.now() - started, entries: audit.entriesChecked, violations: audit.violationCount });
        return audit;
      } catch (error) {
        if (signal?.aborted) deps.log('ledger.check_cancelled', { ms: Date.now() - started });
        throw error;
      } finally {
        checking = false;
      }
    },
  };
}

export type OversightService = ReturnType<typeof createOversightService>;
