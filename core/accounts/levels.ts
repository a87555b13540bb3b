/**
 * Identity levels (docs/kyc.md): the operator's limits per level, a holder's request for the
 * next level with its evidence (a BVN or NIN kept only as its last four digits and a keyed hash,
 * a CAC number with a document reference), and the decisions of staff and the operator. A level
 * change is the `level_change` move of the one door: it releases the credits held over the old
 * limits in its own transaction. Every decision is audited in the store's transaction.
 */
import { randomUUID } from 'node:crypto';
import { DomainError, invalid } from '../domain/errors.js';
import {
  checkEvidence,
  checkLimit,
  type HoldRecord,
  isLevel,
  type Level,
  type LevelLimits,
  type LevelRequestRecord,
  levelOfEvidence,
} from '../domain/levels.js';
import { hasControlCharacters } from '../domain/validation.js';
import { kycHash } from '../funding/kyc.js';
import type { LedgerStore } from '../store/moves.js';
import type { LevelChanged, Store } from '../store/port.js';

/** Who decides, for the audit row. */
interface Decider {
  actor: string;
  address: string | null;
}

/** The queues list this many at most, oldest first. */
const MAX_LISTED = 200;
/** A decision's note or reason: a sentence or two. */
const MAX_NOTE_CHARS = 500;

export interface LevelDeps {
  store: Pick<Store, 'kyc' | 'accounts'>;
  ledger: LedgerStore;
  clock: () => Date;
  /** The key of the identity numbers' keyed hash (FUNDING_KYC_KEY, core/funding/kyc.ts). */
  kycKey: string;
}

/** What the holder's Verify page shows: the level, its limits, the open request, the last decision, held credits. */
export interface LevelStanding {
  level: Level;
  inflowKobo: number;
  limits: LevelLimits;
  nextLimits: LevelLimits | null;
  open: LevelRequestRecord | null;
  last: LevelRequestRecord | null;
  held: HoldRecord[];
}

function checkNote(field: string, text: string, required: boolean): string {
  const note = text.trim();
  if (required && note === '') throw invalid(field, `Say why (${field} is required).`);
  if (note.length > MAX_NOTE_CHARS) throw invalid(field, `Write at most ${MAX_NOTE_CHARS} characters.`);
  if (hasControlCharacters(note)) throw invalid(field, 'Write one line without control characters.');
  return note;
}

export function createLevels(deps: LevelDeps) {
  const { store, ledger, clock } = deps;

  async function levelOf(accountId: string) {
    const found = await store.kyc.levelOf(accountId);
    if (found === null) throw new DomainError('NOT_FOUND', `Account ${accountId} was not found.`);
    return found;
  }

  return {
    levels: (): Promise<LevelLimits[]> => store.kyc.levels(),

    /** The operator sets one level's limits (null: none), audited with before and after. */
    async setLimits(
      level: number,
      limits: { maxBalanceKobo: number | null; maxInflowKobo: number | null; maxDailySpendKobo: number | null },
      who: Decider,
    ): Promise<LevelLimits> {
      if (!isLevel(level)) throw invalid('level', 'The level must be 1, 2 or 3.');
      const checked: LevelLimits = {
        level,
        maxBalanceKobo: checkLimit('max_balance', limits.maxBalanceKobo),
        maxInflowKobo: checkLimit('max_inflow', limits.maxInflowKobo),
        maxDailySpendKobo: checkLimit('max_daily_spend', limits.maxDailySpendKobo),
      };
      const set = await store.kyc.setLimits(checked, { ...who, at: clock(), note: '' });
      if (set === null) throw new DomainError('NOT_FOUND', `Level ${level} does not exist.`);
      return set;
    },

    async standing(accountId: string): Promise<LevelStanding> {
      const { level, inflowKobo } = await levelOf(accountId);
      const levels = await store.kyc.levels();
      const [last] = await store.kyc.requestsOf(accountId, 1);
      return {
        level,
        inflowKobo,
        limits: levels.find((l) => l.level === level)!,
        nextLimits: levels.find((l) => l.level === level + 1) ?? null,
        open: last?.status === 'pending' ? last : null,
        last: last ?? null,
        held: (await store.kyc.holdsOf(accountId, MAX_LISTED)).filter((h) => h.status === 'held'),
      };
    },

    /**
     * A holder asks for the next level: a BVN or NIN for level 2, a CAC number and a document
     * reference for level 3. The number is kept only as its last four and a keyed hash.
     */
    async request(
      accountId: string,
      requestedBy: string,
      input: { kind: string; number: string; documentReference: string },
    ): Promise<{ opened: boolean; request: LevelRequestRecord }> {
      const evidence = checkEvidence(input.kind, input.number, input.documentReference);
      const { level } = await levelOf(accountId);
      // Level 1 is the proven email and phone: a level above it is asked for once both are proven.
      const account = await store.accounts.get(accountId);
      if (account?.emailVerifiedAt === null || account?.phoneVerifiedAt === null)
        throw new DomainError('FAILED_PRECONDITION', 'Verify your email address and mobile number first.');
      const wanted = levelOfEvidence(evidence.kind);
      if (wanted <= level)
        throw new DomainError('FAILED_PRECONDITION', `This account is at level ${level} already: nothing to ask.`);
      if (wanted > level + 1)
        throw new DomainError('FAILED_PRECONDITION', `Ask for level ${level + 1} first (a BVN or NIN).`);
      return store.kyc.openRequest({
        requestId: randomUUID(),
        accountId,
        level: wanted,
        kind: evidence.kind,
        numberLast4: evidence.number.slice(-4),
        numberHash: kycHash(deps.kycKey, evidence.kind, evidence.number),
        documentReference: evidence.documentReference,
        requestedBy,
        status: 'pending',
        createdAt: clock(),
        decidedAt: null,
        decidedBy: null,
        note: '',
      });
    },

    pending: (): Promise<LevelRequestRecord[]> => store.kyc.pendingRequests(MAX_LISTED),
    held: (): Promise<HoldRecord[]> => store.kyc.heldCredits(MAX_LISTED),

    /**
     * Sets the account's level (the open request's, or the one given), approves its open request and
     * releases what the new level allows, in one move.
     */
    async approve(
      accountId: string,
      level: number,
      note: string,
      who: Decider,
    ): Promise<LevelChanged & { outcome: 'changed' }> {
      const text = checkNote('note', note, true);
      const [open] = (await store.kyc.requestsOf(accountId, 1)).filter((r) => r.status === 'pending');
      const to = level === 0 && open !== undefined ? open.level : level;
      if (!isLevel(to)) throw invalid('level', 'The level must be 1, 2 or 3.');
      const changed = await ledger.post({
        kind: 'level_change',
        accountId,
        level: to,
        decision: { ...who, note: text, at: clock() },
      });
      if (changed.outcome !== 'changed') throw new DomainError('NOT_FOUND', `Account ${accountId} was not found.`);
      return changed;
    },

    /** Refuses the account's open request with the reason the holder is shown. */
    async refuse(accountId: string, reason: string, who: Decider): Promise<LevelRequestRecord> {
      const text = checkNote('reason', reason, true);
      const refused = await store.kyc.refuse(accountId, { ...who, note: text, at: clock() });
      if (refused === null)
        throw new DomainError('FAILED_PRECONDITION', `Account ${accountId} has no open request for a level.`);
      return refused;
    },
  };
}

export type Levels = ReturnType<typeof createLevels>;
