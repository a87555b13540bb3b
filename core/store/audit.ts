/**
 * The ledger check's rules, once for every adapter. Each adapter runs its own queries (SQL
 * on SQLite, aggregation pipelines on MongoDB) in one snapshot and hands what they found
 * here, already as plain numbers; this file decides what kind of violation each finding
 * is, words it for people, and keeps at most MAX_AUDIT_VIOLATIONS of them.
 */
import type { AuditViolation, LedgerAudit, ModeAudit } from '../domain/audit.js';
import type { Mode } from '../domain/mode.js';
import { isRefunded } from '../domain/transactions.js';

/** A checker that finds a million broken rows should still answer in one message. */
const MAX_AUDIT_VIOLATIONS = 1_000;

/** An account whose balance differs from the sum of its entries, or is negative. */
export interface BalanceFinding {
  accountId: string;
  mode: Mode;
  balanceKobo: number;
  entriesKobo: number;
}

/** A ledger entry whose recorded balance is not the running sum of the entries up to it. */
export interface RunningBalanceFinding {
  accountId: string;
  mode: Mode;
  entryId: number;
  reference: string;
  balanceAfterKobo: number;
  runningKobo: number;
}

/** A purchase whose debit and refund entries do not match its charge and its status. */
export interface PurchaseFinding {
  accountId: string;
  mode: Mode;
  reference: string;
  status: string;
  chargedKobo: number;
  debits: number;
  debitKobo: number;
  refunds: number;
  refundKobo: number;
}

/** A debit or refund entry with no purchase of the same account behind it. */
export interface OrphanFinding {
  accountId: string;
  mode: Mode;
  reference: string;
  kind: string;
}

/** The books out of balance: one entry (entryId set) or a mode's whole trial balance. */
export interface UnbalancedFinding {
  mode: Mode;
  entryId: string | null;
  reference: string;
  sumKobo: number;
  /** Postings whose entry was never written: a set no store guard has checked. */
  unclosed?: boolean;
}

/** A holder's wallet beside the sum of its postings (minus: a wallet is owed, a credit balance). */
export interface WalletBooksFinding {
  accountId: string;
  mode: Mode;
  balanceKobo: number;
  postingsKobo: number;
}

/** A purchase and the entries the books hold for it. */
export interface PurchaseBooksFinding {
  accountId: string;
  mode: Mode;
  reference: string;
  status: string;
  reserves: number;
  settles: number;
  refunds: number;
  reverses: number;
}

/** A proposal marked applied, whether its move is in the books and its approval in the audit log. */
export interface ProposalBooksFinding {
  proposalId: string;
  accountId: string;
  kind: string;
  booked: boolean;
  audited: boolean;
}

/** The entries each status needs: one reserve always, a settle once delivered, a refund or reversal once undone. */
function expectedEntries(status: string): Pick<PurchaseBooksFinding, 'reserves' | 'settles' | 'refunds' | 'reverses'> {
  return {
    reserves: 1,
    settles: status === 'success' || status === 'reversed' ? 1 : 0,
    refunds: status === 'failed' ? 1 : 0,
    reverses: status === 'reversed' ? 1 : 0,
  };
}

/** The counts an audit reports beside its violations, in all and for each mode. */
export type AuditCounts = Omit<LedgerAudit, 'violations' | 'violationCount' | 'modes'> & {
  modes: Record<Mode, Omit<ModeAudit, 'violationCount'>>;
};

/** A mode's counts, all zero, for an adapter to add to as it reads. */
export function emptyModeCounts(): Record<Mode, Omit<ModeAudit, 'violationCount'>> {
  const zero = () => ({ transactionsChecked: 0, entriesChecked: 0, pendingCount: 0, needsAttentionCount: 0 });
  return { live: zero(), test: zero() };
}

/** Gathers an audit's findings as violations, keeping the first MAX_AUDIT_VIOLATIONS. */
export class AuditCollector {
  private readonly violations: AuditViolation[] = [];
  private violationCount = 0;
  private readonly violationsByMode: Record<Mode, number> = { live: 0, test: 0 };

  balance(row: BalanceFinding): void {
    this.found({
      kind: row.balanceKobo < 0 ? 'negative_balance' : 'balance_mismatch',
      accountId: row.accountId,
      mode: row.mode,
      reference: '',
      detail: `balance is ${row.balanceKobo} kobo but the ledger entries add up to ${row.entriesKobo} kobo`,
    });
  }

  runningBalance(row: RunningBalanceFinding): void {
    this.found({
      kind: row.runningKobo < 0 ? 'negative_balance' : 'running_balance_mismatch',
      accountId: row.accountId,
      mode: row.mode,
      reference: row.reference,
      detail:
        `entry ${row.entryId} records a balance of ${row.balanceAfterKobo} kobo; the ` +
        `entries up to it add up to ${row.runningKobo} kobo`,
    });
  }

  purchase(row: PurchaseFinding): void {
    let kind: AuditViolation['kind'];
    if (row.debits !== 1 || row.debitKobo !== row.chargedKobo) kind = 'debit_missing_or_wrong';
    else if (isRefunded(row.status)) kind = 'not_refunded_once';
    else kind = 'refund_without_failure';
    this.found({
      kind,
      accountId: row.accountId,
      mode: row.mode,
      reference: row.reference,
      detail:
        `${row.status} purchase charged ${row.chargedKobo} kobo has ${row.debits} ` +
        `debit(s) of ${row.debitKobo} kobo and ${row.refunds} refund(s) of ` +
        `${row.refundKobo} kobo`,
    });
  }

  orphan(row: OrphanFinding): void {
    this.found({
      kind: 'orphan_entry',
      accountId: row.accountId,
      mode: row.mode,
      reference: row.reference,
      detail: `${row.kind} entry with no purchase of this account and mode`,
    });
  }

  unbalanced(row: UnbalancedFinding): void {
    if (row.sumKobo === 0 && row.unclosed !== true) return;
    this.found({
      kind: 'books_unbalanced',
      accountId: '',
      mode: row.mode,
      reference: row.reference,
      detail:
        row.entryId === null
          ? `the ${row.mode} trial balance is ${row.sumKobo} kobo, not zero`
          : row.unclosed === true
            ? `postings of entry ${row.entryId} (${row.sumKobo} kobo) have no journal row`
            : `entry ${row.entryId} (${row.reference}) sums to ${row.sumKobo} kobo, not zero`,
    });
  }

  walletBooks(row: WalletBooksFinding): void {
    if (row.balanceKobo === row.postingsKobo) return;
    this.found({
      kind: 'wallet_books_mismatch',
      accountId: row.accountId,
      mode: row.mode,
      reference: '',
      detail: `balance is ${row.balanceKobo} kobo but the books hold ${row.postingsKobo} kobo for this wallet`,
    });
  }

  purchaseBooks(row: PurchaseBooksFinding): void {
    const expected = expectedEntries(row.status);
    const { reserves, settles, refunds, reverses } = row;
    if (
      reserves === expected.reserves &&
      settles === expected.settles &&
      refunds === expected.refunds &&
      reverses === expected.reverses
    )
      return;
    this.found({
      kind: 'purchase_books_wrong',
      accountId: row.accountId,
      mode: row.mode,
      reference: row.reference,
      detail:
        `${row.status} purchase has ${reserves} reserve(s), ${settles} settle(s), ${refunds} refund(s) and ` +
        `${reverses} reversal(s) in the books; it needs ${expected.reserves}, ${expected.settles}, ` +
        `${expected.refunds} and ${expected.reverses}`,
    });
  }

  proposalBooks(row: ProposalBooksFinding): void {
    if (row.booked && row.audited) return;
    const missing = [row.booked ? '' : 'no entry in the books', row.audited ? '' : 'no approval in the audit log'];
    this.found({
      kind: 'proposal_unbooked',
      accountId: row.accountId,
      mode: 'live',
      reference: row.proposalId,
      detail: `${row.kind} proposal marked applied has ${missing.filter((m) => m !== '').join(' and ')}`,
    });
  }

  result(counts: AuditCounts): LedgerAudit {
    const modes = {
      live: { ...counts.modes.live, violationCount: this.violationsByMode.live },
      test: { ...counts.modes.test, violationCount: this.violationsByMode.test },
    };
    return { ...counts, modes, violations: this.violations, violationCount: this.violationCount };
  }

  private found(violation: AuditViolation): void {
    this.violationCount += 1;
    this.violationsByMode[violation.mode] += 1;
    if (this.violations.length < MAX_AUDIT_VIOLATIONS) this.violations.push(violation);
  }
}
