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
