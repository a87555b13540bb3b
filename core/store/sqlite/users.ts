/**
 * The people of the developer area on SQLite: persons (the users table), their memberships
 * of accounts, invitations and sessions. Tokens are stored as their SHA-256 only; the use
 * cases (core/people/) hash them before calling. The users table's account_id, role and
 * disabled columns are no longer read (schema step 15 moved them into memberships).
 */
import type Database from 'better-sqlite3';
import { MAX_OPEN_INVITATIONS } from '../../domain/people.js';
import type {
  InvitationRecord,
  MemberRecord,
  MembershipRecord,
  SessionRecord,
  UserRecord,
  UserRole,
} from '../../domain/records.js';
import type { PeopleStore, UserChange } from '../port.js';
import { fromMs, toFlag, toMs } from './rows.js';

interface UserRow {
  user_id: string;
  email: string;
  password_hash: string;
  totp_secret: string | null;
  totp_pending_secret: string | null;
  totp_last_step: number;
  /** A JSON array of SHA-256 hex strings. */
  recovery_code_hashes: string;
  created_at: number;
}

/** What a new person's row also carries: the legacy columns of schema step 7 (see step 15). */
interface NewUserRow extends UserRow {
  account_id: string;
  role: string;
  disabled: number;
}

interface MembershipRow {
  user_id: string;
  account_id: string;
  role: string;
  disabled: number;
  created_at: number;
}

/** A member as the join reads it: the person's columns and the membership's, prefixed m_. */
interface MemberRow extends UserRow {
  m_account_id: string;
  m_role: string;
  m_disabled: number;
  m_created_at: number;
}

interface InvitationRow {
  token_hash: string;
  account_id: string;
  email: string;
  role: string;
  invited_by: string;
  created_at: number;
  expires_at: number;
  used_at: number | null;
  revoked_at: number | null;
}

interface SessionRow {
  token_hash: string;
  stage: string;
  user_id: string;
  account_id: string;
  created_at: number;
  last_seen_at: number;
  absolute_expires_at: number;
}

function userFromRow(row: UserRow): UserRecord {
  return {
    userId: row.user_id,
    email: row.email,
    passwordHash: row.password_hash,
    totpSecret: row.totp_secret,
    totpPendingSecret: row.totp_pending_secret,
    totpLastStep: row.totp_last_step,
    recoveryCodeHashes: JSON.parse(row.recovery_code_hashes) as string[],
    createdAt: fromMs(row.created_at),
  };
}

function membershipFromRow(row: MembershipRow): MembershipRecord {
  return {
    userId: row.user_id,
    accountId: row.account_id,
    role: row.role as UserRole,
    disabled: row.disabled === 1,
    createdAt: fromMs(row.created_at),
  };
}

function memberFromRow(row: MemberRow): MemberRecord {
  return {
    user: userFromRow(row),
    membership: membershipFromRow({
      user_id: row.user_id,
      account_id: row.m_account_id,
      role: row.m_role,
      disabled: row.m_disabled,
      created_at: row.m_created_at,
    }),
  };
}

/** A new person's row; `first` is the membership that brings them (for the legacy columns). */
function userToRow(user: UserRecord, first: { accountId: string; role: UserRole }): NewUserRow {
  return {
    user_id: user.userId,
    account_id: first.accountId,
    email: user.email,
    role: first.role,
    password_hash: user.passwordHash,
    disabled: 0,
    totp_secret: user.totpSecret,
    totp_pending_secret: user.totpPendingSecret,
    totp_last_step: user.totpLastStep,
    recovery_code_hashes: JSON.stringify(user.recoveryCodeHashes),
    created_at: toMs(user.createdAt),
  };
}

function invitationFromRow(row: InvitationRow): InvitationRecord {
  return {
    tokenHash: row.token_hash,
    accountId: row.account_id,
    email: row.email,
    role: row.role as UserRole,
    invitedBy: row.invited_by,
    createdAt: fromMs(row.created_at),
    expiresAt: fromMs(row.expires_at),
    usedAt: row.used_at === null ? null : fromMs(row.used_at),
    revokedAt: row.revoked_at === null ? null : fromMs(row.revoked_at),
  };
}

function sessionFromRow(row: SessionRow): SessionRecord {
  return {
    tokenHash: row.token_hash,
    stage: row.stage as SessionRecord['stage'],
    userId: row.user_id,
    accountId: row.account_id,
    createdAt: fromMs(row.created_at),
    lastSeenAt: fromMs(row.last_seen_at),
    absoluteExpiresAt: fromMs(row.absolute_expires_at),
  };
}

function prepare(db: Database.Database) {
  return {
    insertInvitation: db.prepare<InvitationRow>(
      `INSERT INTO invitations (token_hash, account_id, email, role, invited_by, created_at, expires_at, used_at,
         revoked_at)
       VALUES (@token_hash, @account_id, @email, @role, @invited_by, @created_at, @expires_at, @used_at, @revoked_at)`,
    ),
    getInvitation: db.prepare<[string], InvitationRow>('SELECT * FROM invitations WHERE token_hash = ?'),
    openInvitations: db.prepare<{ account_id: string; at: number }, InvitationRow>(
      `SELECT * FROM invitations
       WHERE account_id = @account_id AND used_at IS NULL AND revoked_at IS NULL AND expires_at > @at
       ORDER BY created_at, token_hash LIMIT ${MAX_OPEN_INVITATIONS}`,
    ),
    revokeInvitations: db.prepare<{ account_id: string; email: string; at: number }>(
      `UPDATE invitations SET revoked_at = @at
       WHERE account_id = @account_id AND email = @email AND used_at IS NULL AND revoked_at IS NULL
         AND expires_at > @at`,
    ),
    useInvitation: db.prepare<{ token_hash: string; at: number }, InvitationRow>(
      `UPDATE invitations SET used_at = @at
       WHERE token_hash = @token_hash AND used_at IS NULL AND revoked_at IS NULL AND expires_at > @at RETURNING *`,
    ),
    upsertMembership: db.prepare<MembershipRow>(
      `INSERT INTO memberships (user_id, account_id, role, disabled, created_at)
       VALUES (@user_id, @account_id, @role, @disabled, @created_at)
       ON CONFLICT (user_id, account_id) DO UPDATE SET role = excluded.role, disabled = excluded.disabled`,
    ),
    getMembership: db.prepare<{ user_id: string; account_id: string }, MembershipRow>(
      'SELECT * FROM memberships WHERE user_id = @user_id AND account_id = @account_id',
    ),
    listMemberships: db.prepare<[string], MembershipRow>(
      'SELECT * FROM memberships WHERE user_id = ? ORDER BY created_at, account_id',
    ),
    setMembershipDisabled: db.prepare<{ user_id: string; account_id: string; disabled: number }, MembershipRow>(
      `UPDATE memberships SET disabled = @disabled
       WHERE user_id = @user_id AND account_id = @account_id RETURNING *`,
    ),
    listMembers: db.prepare<[string], MemberRow>(
      `SELECT u.user_id, u.email, u.password_hash, u.totp_secret, u.totp_pending_secret, u.totp_last_step,
              u.recovery_code_hashes, u.created_at,
              m.account_id AS m_account_id, m.role AS m_role, m.disabled AS m_disabled, m.created_at AS m_created_at
       FROM memberships m JOIN users u ON u.user_id = m.user_id
       WHERE m.account_id = ? ORDER BY m.created_at, m.user_id`,
    ),
    insertUser: db.prepare<NewUserRow>(
      `INSERT INTO users (user_id, account_id, email, role, password_hash, disabled, totp_secret, totp_pending_secret,
         totp_last_step, recovery_code_hashes, created_at)
       VALUES (@user_id, @account_id, @email, @role, @password_hash, @disabled, @totp_secret, @totp_pending_secret,
         @totp_last_step, @recovery_code_hashes, @created_at)`,
    ),
    getUser: db.prepare<[string], UserRow>('SELECT * FROM users WHERE user_id = ?'),
    userByEmail: db.prepare<[string], UserRow>('SELECT * FROM users WHERE email = ?'),
    setRecoveryCodes: db.prepare<{ user_id: string; hashes: string }>(
      'UPDATE users SET recovery_code_hashes = @hashes WHERE user_id = @user_id',
    ),
    claimStep: db.prepare<{ user_id: string; step: number }>(
      'UPDATE users SET totp_last_step = @step WHERE user_id = @user_id AND totp_last_step < @step',
    ),
    insertSession: db.prepare<SessionRow>(
      `INSERT INTO sessions (token_hash, stage, user_id, account_id, created_at, last_seen_at, absolute_expires_at)
       VALUES (@token_hash, @stage, @user_id, @account_id, @created_at, @last_seen_at, @absolute_expires_at)`,
    ),
    getSession: db.prepare<[string], SessionRow>('SELECT * FROM sessions WHERE token_hash = ?'),
    touchSession: db.prepare<{ token_hash: string; at: number }, SessionRow>(
      'UPDATE sessions SET last_seen_at = MAX(last_seen_at, @at) WHERE token_hash = @token_hash RETURNING *',
    ),
    setSessionAccount: db.prepare<{ token_hash: string; account_id: string }, SessionRow>(
      'UPDATE sessions SET account_id = @account_id WHERE token_hash = @token_hash RETURNING *',
    ),
    deleteSession: db.prepare<[string]>('DELETE FROM sessions WHERE token_hash = ?'),
    deleteUserSessions: db.prepare<[string]>('DELETE FROM sessions WHERE user_id = ?'),
    deleteAccountSessions: db.prepare<{ user_id: string; account_id: string }>(
      'DELETE FROM sessions WHERE user_id = @user_id AND account_id = @account_id',
    ),
    deleteExpired: db.prepare<{ absolute: number; idle: number }>(
      'DELETE FROM sessions WHERE absolute_expires_at <= @absolute OR last_seen_at <= @idle',
    ),
  };
}

/** The columns updateUser may set, by the record's field name. */
const CHANGE_COLUMNS: Readonly<Record<keyof UserChange, keyof UserRow>> = {
  totpSecret: 'totp_secret',
  totpPendingSecret: 'totp_pending_secret',
  passwordHash: 'password_hash',
  recoveryCodeHashes: 'recovery_code_hashes',
};

type Statements = ReturnType<typeof prepare>;

type InvitationMethods =
  | 'insertInvitation'
  | 'findInvitation'
  | 'listOpenInvitations'
  | 'revokeInvitations'
  | 'acceptInvitation'
  | 'listMembers'
  | 'listMemberships'
  | 'getMembership'
  | 'setMembershipDisabled';
type SessionMethods =
  | 'insertSession'
  | 'findSession'
  | 'touchSession'
  | 'setSessionAccount'
  | 'deleteSession'
  | 'deleteUserSessions'
  | 'deleteExpiredSessions';

export function createPeopleStore(db: Database.Database): PeopleStore {
  const sql = prepare(db);
  return { ...invitationsAndMemberships(db, sql), ...persons(db, sql), ...sessions(sql) };
}

/** Invitations, their acceptance, and the memberships a person has of accounts. */
function invitationsAndMemberships(db: Database.Database, sql: Statements): Pick<PeopleStore, InvitationMethods> {
  const accept = db.transaction((tokenHash: string, user: UserRecord, at: Date) => {
    const holder = sql.userByEmail.get(user.email);
    if (holder && holder.user_id !== user.userId) return { outcome: 'email_taken' as const };
    const used = sql.useInvitation.get({ token_hash: tokenHash, at: toMs(at) });
    if (!used) return { outcome: 'invalid' as const };
    // The invitation is for one email: a person of another email cannot use it.
    if (used.email !== user.email) throw new Error('acceptInvitation: the person and the invitation differ in email');
    if (!holder) sql.insertUser.run(userToRow(user, { accountId: used.account_id, role: used.role as UserRole }));
    sql.upsertMembership.run({
      user_id: user.userId,
      account_id: used.account_id,
      role: used.role,
      disabled: 0,
      created_at: toMs(at),
    });
    return {
      outcome: 'accepted' as const,
      user: userFromRow(sql.getUser.get(user.userId)!),
      membership: membershipFromRow(sql.getMembership.get({ user_id: user.userId, account_id: used.account_id })!),
    };
  });

  return {
    async insertInvitation(invitation) {
      sql.insertInvitation.run({
        token_hash: invitation.tokenHash,
        account_id: invitation.accountId,
        email: invitation.email,
        role: invitation.role,
        invited_by: invitation.invitedBy,
        created_at: toMs(invitation.createdAt),
        expires_at: toMs(invitation.expiresAt),
        used_at: invitation.usedAt === null ? null : toMs(invitation.usedAt),
        revoked_at: invitation.revokedAt === null ? null : toMs(invitation.revokedAt),
      });
    },
    async findInvitation(tokenHash) {
      const row = sql.getInvitation.get(tokenHash);
      return row ? invitationFromRow(row) : null;
    },
    async listOpenInvitations(accountId, at) {
      return sql.openInvitations.all({ account_id: accountId, at: toMs(at) }).map(invitationFromRow);
    },
    async revokeInvitations(accountId, email, at) {
      return sql.revokeInvitations.run({ account_id: accountId, email, at: toMs(at) }).changes;
    },
    async acceptInvitation(tokenHash, user, at = user.createdAt) {
      // IMMEDIATE: the email check and the insert see one state, whatever another process does.
      return accept.immediate(tokenHash, user, at);
    },
    async listMembers(accountId) {
      return sql.listMembers.all(accountId).map(memberFromRow);
    },
    async listMemberships(userId) {
      return sql.listMemberships.all(userId).map(membershipFromRow);
    },
    async getMembership(userId, accountId) {
      const row = sql.getMembership.get({ user_id: userId, account_id: accountId });
      return row ? membershipFromRow(row) : null;
    },
    async setMembershipDisabled(userId, accountId, disabled) {
      const row = sql.setMembershipDisabled.get({ user_id: userId, account_id: accountId, disabled: toFlag(disabled) });
      return row ? membershipFromRow(row) : null;
    },
  };
}

/** The person: their record, a change to it, TOTP steps and recovery codes. */
function persons(db: Database.Database, sql: Statements): Omit<PeopleStore, InvitationMethods | SessionMethods> {
  // IMMEDIATE below: the read and the write of the list see one state, whatever another process does.
  const useCode = db.transaction((userId: string, codeHash: string) => {
    const row = sql.getUser.get(userId);
    if (!row) return false;
    const left = (JSON.parse(row.recovery_code_hashes) as string[]).filter((hash) => hash !== codeHash);
    if (left.length === (JSON.parse(row.recovery_code_hashes) as string[]).length) return false;
    sql.setRecoveryCodes.run({ user_id: userId, hashes: JSON.stringify(left) });
    return true;
  });

  const store: Omit<PeopleStore, InvitationMethods | SessionMethods> = {
    async getUser(userId) {
      const row = sql.getUser.get(userId);
      return row ? userFromRow(row) : null;
    },
    async findUserByEmail(email) {
      const row = sql.userByEmail.get(email);
      return row ? userFromRow(row) : null;
    },
    async updateUser(userId, change) {
      const sets: string[] = [];
      const values: Record<string, unknown> = { user_id: userId };
      for (const [field, column] of Object.entries(CHANGE_COLUMNS) as [keyof UserChange, keyof UserRow][]) {
        const value = change[field];
        if (value === undefined) continue;
        sets.push(`${column} = @${column}`);
        values[column] = Array.isArray(value) ? JSON.stringify(value) : value;
      }
      if (sets.length === 0) return store.getUser(userId);
      const row = db.prepare(`UPDATE users SET ${sets.join(', ')} WHERE user_id = @user_id RETURNING *`).get(values) as
        | UserRow
        | undefined;
      return row ? userFromRow(row) : null;
    },
    async claimTotpStep(userId, step) {
      return sql.claimStep.run({ user_id: userId, step }).changes === 1;
    },
    async useRecoveryCode(userId, codeHash) {
      return useCode.immediate(userId, codeHash);
    },
  };
  return store;
}

/** Sessions of the developer area. */
function sessions(sql: Statements): Pick<PeopleStore, SessionMethods> {
  return {
    async insertSession(session) {
      sql.insertSession.run({
        token_hash: session.tokenHash,
        stage: session.stage,
        user_id: session.userId,
        account_id: session.accountId,
        created_at: toMs(session.createdAt),
        last_seen_at: toMs(session.lastSeenAt),
        absolute_expires_at: toMs(session.absoluteExpiresAt),
      });
    },
    async findSession(tokenHash) {
      const row = sql.getSession.get(tokenHash);
      return row ? sessionFromRow(row) : null;
    },
    async touchSession(tokenHash, at) {
      const row = sql.touchSession.get({ token_hash: tokenHash, at: toMs(at) });
      return row ? sessionFromRow(row) : null;
    },
    async setSessionAccount(tokenHash, accountId) {
      const row = sql.setSessionAccount.get({ token_hash: tokenHash, account_id: accountId });
      return row ? sessionFromRow(row) : null;
    },
    async deleteSession(tokenHash) {
      return sql.deleteSession.run(tokenHash).changes === 1;
    },
    async deleteUserSessions(userId, accountId) {
      if (accountId !== undefined)
        return sql.deleteAccountSessions.run({ user_id: userId, account_id: accountId }).changes;
      return sql.deleteUserSessions.run(userId).changes;
    },
    async deleteExpiredSessions(absoluteBefore, idleBefore) {
      return sql.deleteExpired.run({ absolute: toMs(absoluteBefore), idle: toMs(idleBefore) }).changes;
    },
  };
}
