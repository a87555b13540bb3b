/**
 * The platform's staff (the operator's console): who they are, what each role may do, and
 * the four-eyes proposals money moves wait in. Pure rules; the use cases are in core/staff/.
 */
import type { Kobo } from './money.js';

/**
 * support: read everything, re-query, resolve pendings as delivered; finance: money moves; admin: all of it and
 * staff.
 */
export const STAFF_ROLES = ['admin', 'support', 'finance'] as const;
export type StaffRole = (typeof STAFF_ROLES)[number];

/** What a staff member may be asked to do; each is allowed to some roles only (`STAFF_POWERS`). */
export type StaffPower =
  | 'read'
  | 'resolve'
  | 'propose'
  | 'propose_money'
  | 'approve'
  | 'upgrades'
  | 'suspend'
  | 'staff'
  | 'settings'
  | 'reports'
  | 'recipients'
  | 'accounts'
  | 'users';

/**
 * Which roles hold which power. Support may look, re-query and resolve a pending purchase as
 * delivered (no money moves), and propose a pending resolved as failed (`propose`: a refund a
 * finance member approves). Finance proposes the other money moves (`propose_money`: credits,
 * forced refunds, inflow assignments) and approves; admin does everything, and alone manages
 * staff and changes the catalogue and settings (`settings`: tiers, prices, plans, the SMS rate,
 * routes, float alerts), which every role may read. The reports (sales,
 * cost, margin, money in) are the business's figures: finance and admin read them, support does not.
 */
const STAFF_POWERS: Readonly<Record<StaffPower, readonly StaffRole[]>> = {
  read: ['admin', 'support', 'finance'],
  resolve: ['admin', 'support', 'finance'],
  propose: ['admin', 'support', 'finance'],
  propose_money: ['admin', 'finance'],
  approve: ['admin', 'finance'],
  upgrades: ['admin'],
  // Not a money move, but it stops a business's sales at once: the platform's administrators only.
  suspend: ['admin'],
  staff: ['admin'],
  settings: ['admin'],
  reports: ['admin', 'finance'],
  // The platform's blocklist: like a suspension, a block stops sales (to one number, of every
  // account) at once, so only administrators change it; every role reads it.
  recipients: ['admin'],
  // Making an account, changing its tier (its prices) and revoking a key pair (which stops its
  // sales): the platform's administrators only, as a suspension.
  accounts: ['admin'],
  // An account's people: inviting, disabling, a password reset link or two-step sign-in turned
  // off for someone locked out. Support's daily work, and admins'; finance moves money, not people.
  users: ['admin', 'support'],
};

/** Whether a member counts as an admin who can still act: not disabled, and set up. */
export function isActiveAdmin(member: Pick<StaffMemberRecord, 'role' | 'disabled' | 'passwordHash'>): boolean {
  return member.role === 'admin' && !member.disabled && member.passwordHash !== '';
}

export function mayDo(role: StaffRole, power: StaffPower): boolean {
  return STAFF_POWERS[power].includes(role);
}

/** A set-up link works this long after the invitation. */
export const STAFF_SETUP_TTL_MS = 72 * 3_600_000;
/** A console session ends after 15 idle minutes, and after 8 hours whatever happens. */
const STAFF_SESSION_IDLE_MS = 15 * 60_000;
export const STAFF_SESSION_ABSOLUTE_MS = 8 * 3_600_000;
/** A proposal nobody approved within a day lapses: the facts it was made on may have changed. */
export const PROPOSAL_TTL_MS = 24 * 3_600_000;
/** A note explains a decision to the second person and to the audit log; bounded like a memo. */
export const MAX_NOTE_CHARS = 500;

export interface StaffMemberRecord {
  staffId: string;
  /** Lower-case. */
  email: string;
  role: StaffRole;
  /** scrypt hash; empty until the member has used their set-up link. */
  passwordHash: string;
  /** The TOTP secret: made at invitation, shown on the set-up page, required at every sign-in. */
  totpSecret: string;
  /** The last TOTP step accepted, so a code works once. */
  totpLastStep: number;
  disabled: boolean;
  /** SHA-256 of the one-time set-up token; null once used. */
  setupTokenHash: string | null;
  setupExpiresAt: Date | null;
  createdAt: Date;
  /** Who invited them: `staff:<email>` or `cli`; empty for members invited before this was kept. */
  invitedBy: string;
  /** Who last changed their role, in the same form; empty when nobody has since the invitation. */
  roleSetBy: string;
  /** When they were last invited, set up or given a role: the four-eyes cooling time runs from it. */
  powersSince: Date;
}

/** FOUR_EYES_COOLING_H's default: three days, longer than a weekend. */
export const DEFAULT_FOUR_EYES_COOLING_MS = 72 * 3_600_000;

/**
 * Why this member may not be the second pair of eyes on this proposal, or null when they may.
 * Never on a proposal made before they existed (a second identity invited to approve it), and,
 * while they are new to their powers (invited, set up or given a role less than `coolingMs`
 * ago), never on one by whoever invited them or gave them their role: otherwise one person with
 * the power to invite would satisfy four eyes alone.
 */
export function approvalBar(
  member: Pick<StaffMemberRecord, 'createdAt' | 'invitedBy' | 'roleSetBy' | 'powersSince'>,
  proposal: Pick<ProposalRecord, 'proposedAt' | 'proposedBy'>,
  coolingMs: number,
  now: Date,
): string | null {
  if (proposal.proposedAt.getTime() < member.createdAt.getTime())
    return 'This proposal was made before you joined the staff; a colleague who was there must approve it.';
  const fresh = now.getTime() - member.powersSince.getTime() < coolingMs;
  const vouchedBy = [member.invitedBy, member.roleSetBy].filter((by) => by !== '');
  if (fresh && vouchedBy.includes(proposal.proposedBy)) {
    const hours = Math.round(coolingMs / 3_600_000);
    return (
      `You were invited, set up or given your role less than ${hours} hours ago by ${proposal.proposedBy}, ` +
      'who made this proposal; another colleague must approve it.'
    );
  }
  return null;
}

/** Whether a member is still new to their powers (the console flags their approvals). */
export function isNewToPowers(member: Pick<StaffMemberRecord, 'powersSince'>, coolingMs: number, now: Date): boolean {
  return now.getTime() - member.powersSince.getTime() < coolingMs;
}

export interface StaffSessionRecord {
  tokenHash: string;
  staffId: string;
  createdAt: Date;
  lastSeenAt: Date;
  absoluteExpiresAt: Date;
}

/** When a staff session ends: idle past the limit, or its absolute end, whichever comes first. */
export function staffSessionEndsAt(session: StaffSessionRecord): Date {
  return new Date(Math.min(session.lastSeenAt.getTime() + STAFF_SESSION_IDLE_MS, session.absoluteExpiresAt.getTime()));
}

/**
 * The money moves that need a second person: a manual credit, a forced refund of a delivered
 * purchase (a reversal), a pending purchase resolved as failed (its refund), an unmatched
 * inflow credited to an account and a manual debit (money taken out with a reason); and the
 * platform's own money: an upstream's top-up from our bank and a funding provider's settlement
 * to it (`OWN_MONEY_KINDS`: no wallet moves, the books do).
 */
export const PROPOSAL_KINDS = [
  'credit',
  'refund',
  'pending_failed',
  'inflow_assign',
  'debit',
  'upstream_topup',
  'provider_settlement',
  /** A credit held over an identity level's limits returned to its payer (docs/kyc.md); target: the inflow. */
  'hold_return',
] as const;
export type ProposalKind = (typeof PROPOSAL_KINDS)[number];

/** The proposals of the platform's own money: booked in the books, no account's wallet; the reference is required. */
export const OWN_MONEY_KINDS: readonly ProposalKind[] = ['upstream_topup', 'provider_settlement'];

export type ProposalStatus = 'pending' | 'approved' | 'refused';

export interface ProposalRecord {
  proposalId: string;
  kind: ProposalKind;
  /** The account whose wallet moves; empty for the platform's own money (OWN_MONEY_KINDS). */
  accountId: string;
  /**
   * What it is done to: the account (credit, debit), the purchase's reference, the inflow's id,
   * the upstream instance (upstream_topup), the funding provider (provider_settlement) or the inflow
   * whose held credit is returned (hold_return).
   */
  target: string;
  /** The amount of a credit, debit, top-up or settlement; 0 where the amount is the purchase's or the inflow's own. */
  amountKobo: Kobo;
  /** What a funding provider kept of a settlement (provider_settlement); 0 for every other kind. */
  feeKobo: Kobo;
  note: string;
  /**
   * The ledger reference a credit or debit is made under, as its proposer gave it (a bank
   * transfer's id); unique per account and kind among proposals, so a retried proposal is the
   * same proposal. Empty: the proposal's own id is the reference. A top-up's or settlement's
   * is required: the operator's bank reference its entry is booked under, once.
   */
  reference: string;
  /** A credit's memo, kept on its ledger entry; empty for the default ("Manual credit"). */
  memo: string;
  /** `staff:<email>` or `cli`. */
  proposedBy: string;
  proposedAt: Date;
  expiresAt: Date;
  status: ProposalStatus;
  decidedBy: string | null;
  decidedAt: Date | null;
  /** When the approved move was made; null while pending, refused, or approved but not yet applied. */
  appliedAt: Date | null;
}
