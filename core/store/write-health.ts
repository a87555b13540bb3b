/**
 * The store's write health, kept once for both adapters: each adapter says which of its
 * errors mean the disk refused a write (SQLite: sqlite/write-faults.ts) and how it probes;
 * this file keeps the fault, tells listeners when it starts and ends, and turns the refused
 * write into the one error callers see, STORE_UNAVAILABLE.
 */
import { DomainError } from '../domain/errors.js';
import type { StoreFault, StoreWriteHealth } from './port.js';

/** What an adapter hands in: why an error means "cannot write" (null when it does not), and its probe write. */
export interface WriteFaultRules {
  reasonOf(error: unknown): string | null;
  /** One small write that needs room on the disk; throws as any write would. */
  probeWrite(): Promise<void>;
  clock?: () => Date;
}

export interface WriteHealthState extends StoreWriteHealth {
  /**
   * The error a failed write should reject with: STORE_UNAVAILABLE (and the fault recorded)
   * when the disk refused it, else the error itself.
   */
  refused(error: unknown): unknown;
}

function storeUnavailable(reason: string): DomainError {
  return new DomainError(
    'STORE_UNAVAILABLE',
    `The store cannot write (${reason}); nothing was written. Try again once it can; the service finds that by itself.`,
    { metadata: { store_fault: reason } },
  );
}

export function createWriteHealth(rules: WriteFaultRules): WriteHealthState {
  const clock = rules.clock ?? (() => new Date());
  let fault: StoreFault | null = null;
  const listeners: ((fault: StoreFault | null) => void)[] = [];
  const set = (next: StoreFault | null) => {
    if ((fault === null) === (next === null)) return;
    fault = next;
    for (const listener of listeners) listener(next);
  };
  const state: WriteHealthState = {
    fault: () => fault,
    onChange: (listener) => {
      listeners.push(listener);
    },
    refused(error) {
      if (error instanceof DomainError) return error;
      const reason = rules.reasonOf(error);
      if (reason === null) return error;
      set({ reason, since: clock() });
      return storeUnavailable(reason);
    },
    async probe() {
      try {
        await rules.probeWrite();
      } catch (error) {
        const refused = state.refused(error);
        if (refused instanceof DomainError && refused.code === 'STORE_UNAVAILABLE') return false;
        throw refused;
      }
      set(null);
      return true;
    },
  };
  return state;
}
