/**
 * Identity levels (docs/kyc.md): what an account has proven about who stands behind it, and
 * the limits of its live wallet at each level. Pure rules: both stores read the limits and
 * apply `creditRoom` and `spendRefusal` inside the transaction of the move, so concurrent
 * credits or purchases cannot pass them together.
 *
 * - Level 1: the owner's email and phone are proven (a self-signed-up account; until both are,
 *   live money is refused anyway, VERIFICATION_REQUIRED).
 * - Level 2: a BVN or NIN, checked by the platform's staff against the evidence.
 * - Level 3: a business: a CAC registration number and a document reference, staff-reviewed.
 *
 * An account the operator makes starts at level 3 (the operator vouched for it), and so did
 * every account that existed before levels, so nothing that worked before is limited now.
 */
import { DomainError, invalid } from './errors.js';
import { formatNaira, type Kobo } from './money.js';

export type Level = 1 | 2 | 3;

/** Where an account the operator makes, and every account older than levels, starts. */
export const OPERATOR_LEVEL: Level = 3;

/** Where a self-signed-up account starts. */
export const SIGN_UP_LEVEL: Level = 1;

export function isLevel(value: unknown): value is Level {
  return value === 1 || value === 2 || value === 3;
}

/** The live wallet's limits at one level; null: no limit. */
export interface LevelLimits {
  level: Level;
  /** The most the live wallet may hold. */
  maxBalanceKobo: Kobo | null;
  /** The most the funding providers may credit to it in all (the wallet's cumulative inflow). */
  maxInflowKobo: Kobo | null;
  /** The most its purchases may charge in one Lagos day (failed and reversed ones given back). */
  maxDailySpendKobo: Kobo | null;
}

const naira = (value: number) => (value * 100) as Kobo;

/**
 * The defaults, from the CBN's tiered KYC (circular FPR/DIR/CIR/GEN/06/002 of 1 July 2016 as
 * reported: Tier I cumulative balance ₦300,000, Tier II ₦500,000, Tier III no balance limit;
 * daily limits as banks quote them, ₦30,000 for Tier 1 and ₦200,000 for Tier 2, are unsure).
 * The cumulative inflow is bounded like the balance. Level 3 has no limit, so the accounts
 * that start there do exactly what they did before; the operator may set any of them.
 */
export const DEFAULT_LEVEL_LIMITS: readonly LevelLimits[] = [
  { level: 1, maxBalanceKobo: naira(300_000), maxInflowKobo: naira(300_000), maxDailySpendKobo: naira(30_000) },
  { level: 2, maxBalanceKobo: naira(500_000), maxInflowKobo: naira(500_000), maxDailySpendKobo: naira(200_000) },
  { level: 3, maxBalanceKobo: null, maxInflowKobo: null, maxDailySpendKobo: null },
];

/** The highest limit the operator may set: ₦10 billion, well inside the safe integers. */
const MAX_LIMIT_KOBO = 1_000_000_000_000;

/** Checks a limit the operator sets (null: no limit). */
export function checkLimit(field: string, value: number | null): Kobo | null {
  if (value === null) return null;
  if (!Number.isSafeInteger(value) || value < 0 || value > MAX_LIMIT_KOBO)
    throw invalid(field, 'must be a whole number of kobo from 0 to ₦10,000,000,000, or none');
  return value as Kobo;
}

/**
 * How much of a credit of `amountKobo` the live wallet may take now: the least of the amount,
 * the room under the balance limit and the room under the cumulative inflow limit. The rest
 * is held (docs/kyc.md).
 */
export function creditRoom(
  limits: Pick<LevelLimits, 'maxBalanceKobo' | 'maxInflowKobo'>,
  balanceKobo: number,
  inflowKobo: number,
  amountKobo: number,
): number {
  let room = amountKobo;
  if (limits.maxBalanceKobo !== null) room = Math.min(room, limits.maxBalanceKobo - balanceKobo);
  if (limits.maxInflowKobo !== null) room = Math.min(room, limits.maxInflowKobo - inflowKobo);
  return Math.max(0, room);
}

/** A purchase the day's spend limit refuses: the limit and what the day has spent already. */
export interface SpendRefusal {
  limitKobo: Kobo;
  spentKobo: Kobo;
}

/** Whether a charge passes the level's daily spend limit, given what the Lagos day has spent. */
export function spendRefusal(limitKobo: Kobo | null, spentKobo: number, chargedKobo: number): SpendRefusal | null {
  if (limitKobo === null || spentKobo + chargedKobo <= limitKobo) return null;
  return { limitKobo, spentKobo: spentKobo as Kobo };
}

/** The evidence a holder gives for the next level. */
export type LevelEvidenceKind = 'bvn' | 'nin' | 'cac';

export function levelOfEvidence(kind: LevelEvidenceKind): Level {
  return kind === 'cac' ? 3 : 2;
}

/** A BVN and a NIN are both 11 digits. */
const IDENTITY_NUMBER = /^\d{11}$/;

/**
 * A CAC registration number: RC (a company), BN (a business name), IT (an incorporated trustee)
 * or LP/LLP, then 1 to 8 digits; written with or without the space, kept upper-cased without it.
 */
const CAC_NUMBER = /^(RC|BN|IT|LP|LLP) ?(\d{1,8})$/;

/** A document reference: one line, 3 to 100 printable characters (the file's name, a link, a number). */
const DOCUMENT_REFERENCE = /^[\p{L}\p{N}][\p{L}\p{N} ./:_#()-]{2,99}$/u;

export interface LevelEvidence {
  kind: LevelEvidenceKind;
  /** The BVN, the NIN or the CAC number as checked (a CAC number upper-cased, no space). */
  number: string;
  /** The document's reference for a CAC number; "" otherwise. */
  documentReference: string;
}

/** Checks the evidence field by field; an identity number is never echoed in the error. */
export function checkEvidence(kind: string, number: string, documentReference: string): LevelEvidence {
  if (kind === 'bvn' || kind === 'nin') {
    const digits = number.replace(/[ -]/g, '');
    if (!IDENTITY_NUMBER.test(digits)) throw invalid('number', `must be the 11 digits of your ${kind.toUpperCase()}`);
    return { kind, number: digits, documentReference: '' };
  }
  if (kind === 'cac') {
    const match = CAC_NUMBER.exec(number.trim().toUpperCase());
    if (match === null) throw invalid('number', 'must be a CAC number such as RC 1234567 or BN 2345678');
    const reference = documentReference.trim();
    if (!DOCUMENT_REFERENCE.test(reference))
      throw invalid('document_reference', 'must name the registration document (3 to 100 letters, digits, ./:_#()-)');
    return { kind, number: `${match[1]}${match[2]}`, documentReference: reference };
  }
  throw invalid('kind', 'must be bvn, nin or cac');
}

/** How a number is shown once kept: its kind and last four characters only. */
export function maskedNumber(kind: LevelEvidenceKind, last4: string): string {
  return `${kind.toUpperCase()} ••••${last4}`;
}

/** What the holder is told of a credit held over the limits. */
export function heldNotice(creditedKobo: number, heldKobo: number, level: Level, limits: LevelLimits): string {
  const next = level === 1 ? 'verify your BVN or NIN' : 'verify your business (CAC)';
  const bound = limits.maxInflowKobo ?? limits.maxBalanceKobo;
  const more = bound === null ? '' : ` more than ${formatWholeNaira(bound)}`;
  return (
    `${formatWholeNaira(creditedKobo)} received, ${formatWholeNaira(heldKobo)} held: ` +
    `${next} to receive${more}. The held money is credited when your level rises.`
  );
}

function formatWholeNaira(value: number): string {
  const naira = Math.floor(value / 100);
  const kobo = value % 100;
  return `₦${naira.toLocaleString('en-NG')}${kobo === 0 ? '' : `.${String(kobo).padStart(2, '0')}`}`;
}

/** A holder's request for the next level, as kept: the number only masked and keyed-hashed. */
export interface LevelRequestRecord {
  requestId: string;
  accountId: string;
  level: Level;
  kind: LevelEvidenceKind;
  numberLast4: string;
  /** HMAC-SHA256 of the number under the core's KYC key (core/funding/kyc.ts). */
  numberHash: string;
  documentReference: string;
  requestedBy: string;
  status: 'pending' | 'approved' | 'refused';
  createdAt: Date;
  decidedAt: Date | null;
  decidedBy: string | null;
  note: string;
}

/** A credit held over a live wallet's limits: the part of one inflow its wallet could not take. */
export interface HoldRecord {
  inflowId: string;
  accountId: string;
  provider: string;
  amountKobo: Kobo;
  status: 'held' | 'released' | 'returned';
  createdAt: Date;
  updatedAt: Date;
}

/** An account's level and what its live wallet has taken from the funding providers so far. */
export interface AccountLevel {
  accountId: string;
  level: Level;
  inflowKobo: Kobo;
}

/** The refusal of a purchase over the account's daily spend limit (LEVEL_LIMIT); nothing was debited. */
export function levelLimitExceeded(refusal: SpendRefusal, chargeKobo: Kobo): DomainError {
  const left = Math.max(0, refusal.limitKobo - refusal.spentKobo) as Kobo;
  return new DomainError(
    'LEVEL_LIMIT',
    `The charge of ${formatNaira(chargeKobo)} Naira is over this account's identity level limit of ` +
      `${formatNaira(refusal.limitKobo)} Naira a day: ${formatNaira(left)} Naira is left today (Africa/Lagos). ` +
      'Verify the account for a higher level in the developer area; nothing was charged.',
    {
      metadata: {
        limit_kobo: String(refusal.limitKobo),
        spent_today_kobo: String(refusal.spentKobo),
        charge_kobo: String(chargeKobo),
      },
    },
  );
}
