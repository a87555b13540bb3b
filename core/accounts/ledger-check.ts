/**
 * The ledger check an operator runs (`prepaid ledger check`): every wallet against its
 * ledger and every purchase against its entries, read from one snapshot beside the running
 * service (the store's audit), one check at a time.
 */
import type { Logger } from '../../runtime/log.js';
import type { LedgerAudit } from '../domain/audit.js';
import { DomainError } from '../domain/errors.js';
import type { WalletStore } from '../store/port.js';

export function createLedgerCheck(deps: { wallet: WalletStore; log: Logger }) {
  // One check at a time: each reads the whole ledger, and an operator retrying an impatient
  // check must not stack a second read beside the first.
  let checking = false;
  return {
    /**
     * Checks the books beside the running service (the store reads a snapshot without holding
     * up purchases). `signal` is the caller's: when the caller goes away the check stops too.
     */
    async check(signal?: AbortSignal): Promise<LedgerAudit> {
      if (checking) {
        throw new DomainError(
          'FAILED_PRECONDITION',
          'A ledger check is already running; wait for it to finish, then check again.',
        );
      }
      checking = true;
      const started = Date.now();
      try {
        const audit = await deps.wallet.audit({
          ...(signal ? { signal } : {}),
          onProgress: (progress) =>
            deps.log('ledger.check_progress', { rows_read: progress.rowsRead, rows_total: progress.rowsTotal }),
        });
        deps.log('ledger.checked', {
          ms: Date.now() - started,
          entries: audit.entriesChecked,
          violations: audit.violationCount,
        });
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

export type LedgerCheck = ReturnType<typeof createLedgerCheck>;
