/**
 * The platform's staff on SQLite: members, their sessions, and the four-eyes proposals.
 * Tokens are stored as their SHA-256 only; core/staff/ hashes them before calling.
 */
import type Database from 'better-sqlite3';
import { kobo } from '../../domain/money.js';
import type {
  ProposalKind,
  ProposalRecord,
  ProposalStatus,
  StaffMemberRecord,
  StaffRole,
  StaffSessionRecord,
} from '../../domain/staff.js';
import type { ProposalStore, StaffStore } from '../port.js';
import { fromMs, toFlag, toMs } from './rows.js';

interface MemberRow {
  staff_id: string;
  email: string;
  role: string;
  password_hash: string;
  totp_secret: string;
  totp_last_step: number;
  disabled: number;
  setup_token_hash: string | null;
  setup_expires_at: number | null;
  created_at: number;
  invited_by: string;
  role_set_by: string;
  powers_since: number;
}

interface SessionRow {
  token_hash: string;
  staff_id: string;
  created_at: number;
  last_seen_at: number;
  absolute_expires_at: number;
}

export interface ProposalRow {
  proposal_id: string;
  kind: string;
  account_id: string;
  target: string;
  amount_kobo: number;
  note: string;
  reference: string;
  memo: string;
  fee_kobo: number;
  proposed_by: string;
  proposed_at: number;
  expires_at: number;
  status: string;
  decided_by: string | null;
  decided_at: number | null;
  applied_at: number | null;
}

const orNull = (ms: number | null) => (ms === null ? null : fromMs(ms));

function memberFromRow(row: MemberRow): StaffMemberRecord {
  return {
    staffId: row.staff_id,
    email: row.email,
    role: row.role as StaffRole,
    passwordHash: row.password_hash,
    totpSecret: row.totp_secret,
    totpLastStep: row.totp_last_step,
    disabled: row.disabled === 1,
    setupTokenHash: row.setup_token_hash,
    setupExpiresAt: orNull(row.setup_expires_at),
    createdAt: fromMs(row.created_at),
    invitedBy: row.invited_by,
    roleSetBy: row.role_set_by,
    powersSince: fromMs(row.powers_since),
  };
}

function sessionFromRow(row: SessionRow): StaffSessionRecord {
  return {
    tokenHash: row.token_hash,
    staffId: row.staff_id,
    createdAt: fromMs(row.created_at),
    lastSeenAt: fromMs(row.last_seen_at),
    absoluteExpiresAt: fromMs(row.absolute_expires_at),
  };
}

export function proposalFromRow(row: ProposalRow): ProposalRecord {
  return {
    proposalId: row.proposal_id,
    kind: row.kind as ProposalKind,
    accountId: row.account_id,
    target: row.target,
    amountKobo: kobo(row.amount_kobo),
    note: row.note,
    reference: row.reference,
    memo: row.memo,
    feeKobo: kobo(row.fee_kobo),
    proposedBy: row.proposed_by,
    proposedAt: fromMs(row.proposed_at),
    expiresAt: fromMs(row.expires_at),
    status: row.status as ProposalStatus,
    decidedBy: row.decided_by,
    decidedAt: orNull(row.decided_at),
    appliedAt: orNull(row.applied_at),
  };
}

export function createStaffStore(db: Database.Database): StaffStore {
  const insertMember = db.prepare<MemberRow>(
    `INSERT INTO staff_members (staff_id, email, role, password_hash, totp_secret, totp_last_step, disabled,
       setup_token_hash, setup_expires_at, created_at, invited_by, role_set_by, powers_since)
     VALUES (@staff_id, @email, @role, @password_hash, @totp_secret, @totp_last_step, @disabled,
       @setup_token_hash, @setup_expires_at, @created_at, @invited_by, @role_set_by, @powers_since)
     ON CONFLICT (email) DO NOTHING`,
  );
  const byId = db.prepare<[string], MemberRow>('SELECT * FROM staff_members WHERE staff_id = ?');
  const byEmail = db.prepare<[string], MemberRow>('SELECT * FROM staff_members WHERE email = ?');
  const bySetup = db.prepare<[string], MemberRow>('SELECT * FROM staff_members WHERE setup_token_hash = ?');
  const all = db.prepare<[], MemberRow>('SELECT * FROM staff_members ORDER BY created_at, staff_id');
  const completeSetup = db.prepare<{ hash: string; password_hash: string; step: number; at: number }, MemberRow>(
    `UPDATE staff_members SET password_hash = @password_hash, totp_last_step = MAX(totp_last_step, @step),
       setup_token_hash = NULL, setup_expires_at = NULL, powers_since = MAX(powers_since, @at)
     WHERE setup_token_hash = @hash AND setup_expires_at > @at AND disabled = 0 RETURNING *`,
  );
  const setDisabled = db.prepare<{ staff_id: string; disabled: number }, MemberRow>(
    'UPDATE staff_members SET disabled = @disabled WHERE staff_id = @staff_id RETURNING *',
  );
  const setRole = db.prepare<{ staff_id: string; role: string; by: string; at: number }, MemberRow>(
    `UPDATE staff_members SET role = @role, role_set_by = @by, powers_since = MAX(powers_since, @at)
     WHERE staff_id = @staff_id RETURNING *`,
  );
  const claimStep = db.prepare<{ staff_id: string; step: number }>(
    'UPDATE staff_members SET totp_last_step = @step WHERE staff_id = @staff_id AND totp_last_step < @step',
  );
  const insertSession = db.prepare<SessionRow>(
    `INSERT INTO staff_sessions (token_hash, staff_id, created_at, last_seen_at, absolute_expires_at)
     VALUES (@token_hash, @staff_id, @created_at, @last_seen_at, @absolute_expires_at)`,
  );
  const findSession = db.prepare<[string], SessionRow>('SELECT * FROM staff_sessions WHERE token_hash = ?');
  const touchSession = db.prepare<{ token_hash: string; at: number }, SessionRow>(
    `UPDATE staff_sessions SET last_seen_at = MAX(last_seen_at, @at) WHERE token_hash = @token_hash RETURNING *`,
  );
  const deleteSession = db.prepare<[string]>('DELETE FROM staff_sessions WHERE token_hash = ?');
  const deleteMemberSessions = db.prepare<[string]>('DELETE FROM staff_sessions WHERE staff_id = ?');
  return {
    async insertMember(member) {
      const row: MemberRow = {
        staff_id: member.staffId,
        email: member.email,
        role: member.role,
        password_hash: member.passwordHash,
        totp_secret: member.totpSecret,
        totp_last_step: member.totpLastStep,
        disabled: toFlag(member.disabled),
        setup_token_hash: member.setupTokenHash,
        setup_expires_at: member.setupExpiresAt === null ? null : toMs(member.setupExpiresAt),
        created_at: toMs(member.createdAt),
        invited_by: member.invitedBy,
        role_set_by: member.roleSetBy,
        powers_since: toMs(member.powersSince),
      };
      return insertMember.run(row).changes === 1;
    },
    async getMember(staffId) {
      const row = byId.get(staffId);
      return row === undefined ? null : memberFromRow(row);
    },
    async findMemberByEmail(email) {
      const row = byEmail.get(email);
      return row === undefined ? null : memberFromRow(row);
    },
    async findMemberBySetup(tokenHash) {
      const row = bySetup.get(tokenHash);
      return row === undefined ? null : memberFromRow(row);
    },
    async listMembers() {
      return all.all().map(memberFromRow);
    },
    async completeSetup(tokenHash, passwordHash, totpStep, at) {
      const row = completeSetup.get({ hash: tokenHash, password_hash: passwordHash, step: totpStep, at: toMs(at) });
      return row === undefined ? null : memberFromRow(row);
    },
    async setDisabled(staffId, disabled) {
      const row = setDisabled.get({ staff_id: staffId, disabled: toFlag(disabled) });
      return row === undefined ? null : memberFromRow(row);
    },
    async setRole(staffId, role, by, at) {
      const row = setRole.get({ staff_id: staffId, role, by, at: toMs(at) });
      return row === undefined ? null : memberFromRow(row);
    },
    async claimTotpStep(staffId, step) {
      return claimStep.run({ staff_id: staffId, step }).changes === 1;
    },
    async insertSession(session) {
      insertSession.run({
        token_hash: session.tokenHash,
        staff_id: session.staffId,
        created_at: toMs(session.createdAt),
        last_seen_at: toMs(session.lastSeenAt),
        absolute_expires_at: toMs(session.absoluteExpiresAt),
      });
    },
    async findSession(tokenHash) {
      const row = findSession.get(tokenHash);
      return row === undefined ? null : sessionFromRow(row);
    },
    async touchSession(tokenHash, at) {
      const row = touchSession.get({ token_hash: tokenHash, at: toMs(at) });
      return row === undefined ? null : sessionFromRow(row);
    },
    async deleteSession(tokenHash) {
      return deleteSession.run(tokenHash).changes === 1;
    },
    async deleteMemberSessions(staffId) {
      return deleteMemberSessions.run(staffId).changes;
    },
  };
}

export function createProposalStore(db: Database.Database): ProposalStore {
  const insert = db.prepare<ProposalRow>(
    `INSERT INTO proposals (proposal_id, kind, account_id, target, amount_kobo, note, reference, memo, fee_kobo,
       proposed_by, proposed_at, expires_at, status, decided_by, decided_at, applied_at)
     VALUES (@proposal_id, @kind, @account_id, @target, @amount_kobo, @note, @reference, @memo, @fee_kobo,
       @proposed_by, @proposed_at, @expires_at, @status, @decided_by, @decided_at, @applied_at)
     ON CONFLICT (account_id, kind, reference) WHERE reference <> '' DO NOTHING`,
  );
  const byReference = db.prepare<{ account_id: string; kind: string; reference: string }, ProposalRow>(
    'SELECT * FROM proposals WHERE account_id = @account_id AND kind = @kind AND reference = @reference',
  );
  const get = db.prepare<[string], ProposalRow>('SELECT * FROM proposals WHERE proposal_id = ?');
  const open = db.prepare<{ now: number; limit: number }, ProposalRow>(
    `SELECT * FROM proposals WHERE status = 'pending' AND expires_at > @now
     ORDER BY proposed_at, proposal_id LIMIT @limit`,
  );
  const decide = db.prepare<{ id: string; status: string; by: string; at: number }, ProposalRow>(
    `UPDATE proposals SET status = @status, decided_by = @by, decided_at = @at
     WHERE proposal_id = @id AND status = 'pending' AND expires_at > @at
       AND (@status = 'refused' OR proposed_by <> @by)
     RETURNING *`,
  );
  const applied = db.prepare<{ id: string; at: number }>(
    `UPDATE proposals SET applied_at = @at WHERE proposal_id = @id AND status = 'approved' AND applied_at IS NULL`,
  );
  return {
    async insert(proposal) {
      const written = insert.run({
        proposal_id: proposal.proposalId,
        kind: proposal.kind,
        account_id: proposal.accountId,
        target: proposal.target,
        amount_kobo: proposal.amountKobo,
        note: proposal.note,
        reference: proposal.reference,
        memo: proposal.memo,
        fee_kobo: proposal.feeKobo,
        proposed_by: proposal.proposedBy,
        proposed_at: toMs(proposal.proposedAt),
        expires_at: toMs(proposal.expiresAt),
        status: proposal.status,
        decided_by: proposal.decidedBy,
        decided_at: proposal.decidedAt === null ? null : toMs(proposal.decidedAt),
        applied_at: proposal.appliedAt === null ? null : toMs(proposal.appliedAt),
      });
      if (written.changes === 1) return proposal;
      const earlier = byReference.get({
        account_id: proposal.accountId,
        kind: proposal.kind,
        reference: proposal.reference,
      });
      return proposalFromRow(earlier!);
    },
    async get(proposalId) {
      const row = get.get(proposalId);
      return row === undefined ? null : proposalFromRow(row);
    },
    async listOpen(now, limit) {
      return open.all({ now: toMs(now), limit }).map(proposalFromRow);
    },
    async decide(proposalId, status, by, at) {
      const row = decide.get({ id: proposalId, status, by, at: toMs(at) });
      return row === undefined ? null : proposalFromRow(row);
    },
    async markApplied(proposalId, at) {
      return applied.run({ id: proposalId, at: toMs(at) }).changes === 1;
    },
  };
}
