import type { Mode } from './mode.js';

/**
 * What the ledger check reports: every way the money can fail to add up, named, with the
 * account and reference concerned. The rules that find them are the store's
 * (core/store/audit.ts), since they read every wallet in one snapshot.
 */

/** One way the money does not add up, as found by `WalletStore.audit`. */
export interface AuditViolation {
  kind:
    | 'balance_mismatch'
    | 'negative_balance'
    | 'running_balance_mismatch'
    | 'debit_missing_or_wrong'
    | 'not_refunded_once'
    | 'refund_without_failure'
    | 'orphan_entry'
    /** The books: an entry or a mode's trial balance that does not sum to zero. */
    | 'books_unbalanced'
    /** A holder's balance that is not minus the sum of its wallet's postings. */
    | 'wallet_books_mismatch'
    /** A purchase without its reserve, or without exactly the settle, refund or reversal its status needs. */
    | 'purchase_books_wrong'
    /** A proposal marked applied whose move has no entry in the books, or no approval in the audit log. */
    | 'proposal_unbooked';
  accountId: string;
  /** The wallet concerned: the account's live or test one. */
  mode: Mode;
  /** The transaction or ledger reference concerned, when there is one. */
  reference: string;
  /** What was found, a human sentence. */
  detail: string;
}

export interface LedgerAudit {
  accountsChecked: number;
  transactionsChecked: number;
  entriesChecked: number;
  /** Transactions not final yet, and those among them flagged for a person. */
  pendingCount: number;
  needsAttentionCount: number;
  /** At most MAX_AUDIT_VIOLATIONS; `violationCount` tells how many there were in all. */
  violations: AuditViolation[];
  violationCount: number;
  /** The same figures for each mode apart, so that test money is never read as live. */
  modes: Record<Mode, ModeAudit>;
}

/** What the ledger check found in one mode's wallets (every account has one of each). */
export interface ModeAudit {
  transactionsChecked: number;
  entriesChecked: number;
  pendingCount: number;
  needsAttentionCount: number;
  violationCount: number;
}

/** How far a running ledger check has read, for operators watching a long one. */
export interface AuditProgress {
  rowsRead: number;
  /** Rows the check will read in all (accounts, ledger entries, purchases and their entries). */
  rowsTotal: number;
}

/** How a caller steers a ledger check: cancel it, hear how far it is. */
export interface AuditOptions {
  /** Aborting ends the check at once; its promise rejects with the signal's reason. */
  signal?: AbortSignal;
  onProgress?: (progress: AuditProgress) => void;
}
