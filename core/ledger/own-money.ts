/**
 * The platform's own money in the books (docs/money.md, The books): the trial balance every
 * account's sum makes, and the two entries no other move makes, an upstream's top-up from our
 * bank and a funding provider's settlement to it. Both are posted through the journal with their
 * audit row in the move's transaction, once per reference.
 */
import {
  accountKind,
  type BookAccountKind,
  type Posting,
  providerSettledPostings,
  upstreamFundedPostings,
} from '../domain/books.js';
import { DomainError, type FieldViolation, throwIfViolations } from '../domain/errors.js';
import { FUNDING_PROVIDERS, isFundingProvider } from '../domain/funding.js';
import { MODES, type Mode } from '../domain/mode.js';
import { isKobo, type Kobo, MAX_AMOUNT_KOBO } from '../domain/money.js';
import type { JournalEntryRecord, OwnEntry, Store } from '../store/port.js';

/** An operator's reference for an entry of our own money (their bank's): printable, no spaces. */
const MAX_OWN_REFERENCE_LENGTH = 100;
const OWN_REFERENCE = new RegExp(`^[\\x21-\\x7E]{1,${MAX_OWN_REFERENCE_LENGTH}}$`);

/** One account's balance on the side it falls: exactly one of the two is above zero. */
interface TrialBalanceLine {
  account: string;
  kind: BookAccountKind;
  debitKobo: number;
  creditKobo: number;
}

/** One mode's books: every account with a balance, and the two sides' totals, which are equal. */
export interface TrialBalanceOfMode {
  mode: Mode;
  lines: TrialBalanceLine[];
  debitTotalKobo: number;
  creditTotalKobo: number;
}

/** An entry booked now, or the one booked before under its reference (`replayed`). */
export interface OwnBooked {
  entry: JournalEntryRecord;
  replayed: boolean;
}

/** Who books an entry, for its audit row: `cli` or `staff:<email>`, and the client address where known. */
interface Actor {
  actor: string;
  address: string | null;
}

export interface OwnMoneyDeps {
  store: Pick<Store, 'books' | 'ledger'>;
  /** The configured upstream instances' names (core/providers/index.ts). */
  upstreams: readonly string[];
  clock: () => Date;
}

/** Why an amount or reference is refused (the bounds of an operator's credit, core/accounts/service.ts). */
function ownViolations(amountKobo: number, reference: string): FieldViolation[] {
  const violations: FieldViolation[] = [];
  if (!isKobo(amountKobo) || amountKobo <= 0 || amountKobo > MAX_AMOUNT_KOBO)
    violations.push({
      field: 'amount',
      description: `amount must be a positive number of kobo up to ${MAX_AMOUNT_KOBO}.`,
    });
  if (!OWN_REFERENCE.test(reference))
    violations.push({
      field: 'reference',
      description: `reference is required: 1 to ${MAX_OWN_REFERENCE_LENGTH} printable ASCII characters without spaces.`,
    });
  return violations;
}

/** Every mode's trial balance from the store's sums: live first, accounts sorted by name. */
function trialBalanceOf(sums: readonly { account: string; mode: Mode; sumKobo: number }[]): TrialBalanceOfMode[] {
  return MODES.map((mode) => {
    const lines = sums
      .filter((sum) => sum.mode === mode && sum.sumKobo !== 0)
      .map((sum) => ({
        account: sum.account,
        // Every name the store holds passed the chart's check when it was written.
        kind: accountKind(sum.account) ?? 'equity',
        debitKobo: Math.max(sum.sumKobo, 0),
        creditKobo: Math.max(-sum.sumKobo, 0),
      }))
      .sort((a, b) => (a.account < b.account ? -1 : a.account > b.account ? 1 : 0));
    const debitTotalKobo = lines.reduce((total, line) => total + line.debitKobo, 0);
    const creditTotalKobo = lines.reduce((total, line) => total + line.creditKobo, 0);
    return { mode, lines, debitTotalKobo, creditTotalKobo };
  });
}

/** An entry's postings as one text whatever their order, to tell a replay from another entry. */
function linesOf(postings: readonly Posting[]): string {
  return postings
    .map((posting) => `${posting.account}=${posting.amountKobo}`)
    .sort()
    .join(' ');
}

/** The amount an entry of our own money moved: its positive lines' sum. */
function amountOf(postings: readonly Posting[]): number {
  return postings.reduce((total, posting) => total + Math.max(posting.amountKobo, 0), 0);
}

export function createOwnMoney(deps: OwnMoneyDeps) {
  async function book(entry: OwnEntry, action: string, who: Actor, after: Record<string, unknown>) {
    const booked = await deps.store.ledger.post({
      kind: 'own_entry',
      entry,
      audit: {
        at: entry.at,
        actor: who.actor,
        action,
        target: entry.reference,
        before: null,
        after: JSON.stringify(after),
        address: who.address,
        note: '',
      },
    });
    const same = booked.entry.mode === entry.mode && linesOf(booked.entry.postings) === linesOf(entry.postings);
    if (booked.replayed && !same) {
      throw new DomainError(
        'IDEMPOTENCY_KEY_REUSED',
        `Reference ${entry.reference} already booked ${amountOf(booked.entry.postings)} kobo as ${booked.entry.kind} ` +
          `(${booked.entry.postings.map((p) => p.account).join(', ')}); a retry must repeat it, ` +
          'and a new entry needs a new reference.',
        { metadata: { reference: entry.reference } },
      );
    }
    return booked;
  }

  /** A top-up's entry, checked: a configured upstream, the amount and reference in bounds (live money). */
  function topUpEntry(upstream: string, amountKobo: Kobo, reference: string, at: Date): OwnEntry {
    const violations = ownViolations(amountKobo, reference);
    if (!deps.upstreams.includes(upstream))
      violations.unshift({
        field: 'upstream',
        description: `upstream must be one of the configured upstreams: ${deps.upstreams.join(', ') || 'none'}.`,
      });
    throwIfViolations(violations);
    return {
      kind: 'upstream_funded',
      mode: 'live',
      reference,
      at,
      postings: upstreamFundedPostings(upstream, amountKobo),
    };
  }

  /** A settlement's entry, checked: a funding provider, the amount, fee and reference in bounds (live money). */
  function settlementEntry(provider: string, amountKobo: Kobo, feeKobo: Kobo, reference: string, at: Date): OwnEntry {
    const violations = ownViolations(amountKobo, reference);
    if (!isFundingProvider(provider))
      violations.unshift({
        field: 'provider',
        description: `provider must be one of the funding providers: ${FUNDING_PROVIDERS.join(', ')}.`,
      });
    if (!isKobo(feeKobo) || feeKobo < 0 || feeKobo > MAX_AMOUNT_KOBO)
      violations.push({
        field: 'fee',
        description: `fee must be 0 or a positive number of kobo up to ${MAX_AMOUNT_KOBO}.`,
      });
    throwIfViolations(violations);
    const postings = providerSettledPostings(provider, amountKobo, feeKobo);
    return { kind: 'provider_settled', mode: 'live', reference, at, postings };
  }

  return {
    topUpEntry,
    settlementEntry,

    /** The entry of this kind booked before under the reference; null when none is. */
    async bookedBefore(kind: OwnEntry['kind'], reference: string): Promise<JournalEntryRecord | null> {
      return (await deps.store.books.entriesOf(reference)).find((entry) => entry.kind === kind) ?? null;
    },

    /** Every account's balance per mode, of the entries before `at` (all of them without). */
    async trialBalance(at?: Date): Promise<TrialBalanceOfMode[]> {
      return trialBalanceOf(await deps.store.books.sums(at));
    },

    /** The operator's top-up of a configured upstream's float from our bank (live money). */
    async fundUpstream(upstream: string, amountKobo: Kobo, reference: string, who: Actor): Promise<OwnBooked> {
      const entry = topUpEntry(upstream, amountKobo, reference, deps.clock());
      return book(entry, 'books.fund_upstream', who, { upstream, amountKobo, reference });
    },

    /** A funding provider's settlement to our bank of what it received, less the fee it kept (live money). */
    async recordSettlement(
      provider: string,
      amountKobo: Kobo,
      feeKobo: Kobo,
      reference: string,
      who: Actor,
    ): Promise<OwnBooked> {
      const entry = settlementEntry(provider, amountKobo, feeKobo, reference, deps.clock());
      return book(entry, 'books.settle', who, { provider, amountKobo, feeKobo, reference });
    },
  };
}

export type OwnMoney = ReturnType<typeof createOwnMoney>;
