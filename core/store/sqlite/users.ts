/**
 * The people of the developer area on SQLite: users, invitations and sessions. Tokens are
 * stored as their SHA-256 only; the use cases (core/people/) hash them before calling.
 */
import type Database from 'better-sqlite3';
import type { InvitationRecord, SessionRecord, UserRecord, UserRole } from '../../domain/records.js';
import type { PeopleStore, UserChange } from '../port.js';
import { fromMs, toFlag, toMs } from './rows.js';

interface UserRow {
  user_id: string;
  account_id: string;
  email: string;
  role: string;
  password_hash: string;
  disabled: number;
  totp_secret: string | null;
  totp_pending_secret: string | null;
  totp_last_step: number;
  /** A JSON array of SHA-256 hex strings. */
  recovery_code_hashes: string;
  created_at: number;
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
    accountId: row.account_id,
    email: row.email,
    role: row.role as UserRole,
    passwordHash: row.password_hash,
    disabled: row.disabled === 1,
    totpSecret: row.totp_secret,
    totpPendingSecret: row.totp_pending_secret,
    totpLastStep: row.totp_last_step,
    recoveryCodeHashes: JSON.parse(row.recovery_code_hashes) as string[],
    createdAt: fromMs(row.created_at),
  };
}

function userToRow(user: UserRecord): UserRow {
  return {
    user_id: user.userId,
    account_id: user.accountId,
    email: user.email,
    role: user.role,
    password_hash: user.passwordHash,
    disabled: toFlag(user.disabled),
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
      `INSERT INTO invitations (token_hash, account_id, email, role, invited_by, created_at, expires_at, used_at)
       VALUES (@token_hash, @account_id, @email, @role, @invited_by, @created_at, @expires_at, @used_at)`,
    ),
    getInvitation: db.prepare<[string], InvitationRow>('SELECT * FROM invitations WHERE token_hash = ?'),
    useInvitation: db.prepare<{ token_hash: string; at: number }>(
      'UPDATE invitations SET used_at = @at WHERE token_hash = @token_hash AND used_at IS NULL AND expires_at > @at',
    ),
    insertUser: db.prepare<UserRow>(
      `INSERT INTO users (user_id, account_id, email, role, password_hash, disabled, totp_secret, totp_pending_secret, totp_last_step, recovery_code_hashes, created_at)
       VALUES (@user_id, @account_id, @email, @role, @password_hash, @disabled, @totp_secret, @totp_pending_secret, @totp_last_step, @recovery_code_hashes, @created_at)`,
    ),
    getUser: db.prepare<[string], UserRow>('SELECT * FROM users WHERE user_id = ?'),
    userByEmail: db.prepare<[string], UserRow>('SELECT * FROM users WHERE email = ?'),
    listUsers: db.prepare<[string], UserRow>('SELECT * FROM users WHERE account_id = ? ORDER BY created_at, user_id'),
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
    deleteSession: db.prepare<[string]>('DELETE FROM sessions WHERE token_hash = ?'),
    deleteUserSessions: db.prepare<[string]>('DELETE FROM sessions WHERE user_id = ?'),
    deleteExpired: db.prepare<{ absolute: number; idle: number }>(
      'DELETE FROM sessions WHERE absolute_expires_at <= @absolute OR last_seen_at <= @idle',
    ),
  };
}

/** The columns updateUser may set, by the record's field name. */
const CHANGE_COLUMNS: Readonly<Record<keyof UserChange, keyof UserRow>> = {
  disabled: 'disabled',
  totpSecret: 'totp_secret',
  totpPendingSecret: 'totp_pending_secret',
  passwordHash: 'password_hash',
  recoveryCodeHashes: 'recovery_code_hashes',
};

export function createPeopleStore(db: Database.Database): PeopleStore {
  const sql = prepare(db);

  const accept = db.transaction((tokenHash: string, user: UserRecord) => {
    if (sql.userByEmail.get(user.email)) return { outcome: 'email_taken' as const };
    const used = sql.useInvitation.run({ token_hash: tokenHash, at: toMs(user.createdAt) });
    if (used.changes !== 1) return { outcome: 'invalid' as const };
    sql.insertUser.run(userToRow(user));
    return { outcome: 'accepted' as const, user: userFromRow(sql.getUser.get(user.userId)!) };
  });

  // IMMEDIATE below: the read and the write of the list see one state, whatever another process does.
  const useCode = db.transaction((userId: string, codeHash: string) => {
    const row = sql.getUser.get(userId);
    if (!row) return false;
    const left = (JSON.parse(row.recovery_code_hashes) as string[]).filter((hash) => hash !== codeHash);
    if (left.length === (JSON.parse(row.recovery_code_hashes) as string[]).length) return false;
    sql.setRecoveryCodes.run({ user_id: userId, hashes: JSON.stringify(left) });
    return true;
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
      });
    },
    async findInvitation(tokenHash) {
      const row = sql.getInvitation.get(tokenHash);
      return row ? invitationFromRow(row) : null;
    },
    async acceptInvitation(tokenHash, user) {
      // IMMEDIATE: the email check and the insert see one state, whatever another process does.
      return accept.immediate(tokenHash, user);
    },
    async getUser(userId) {
      const row = sql.getUser.get(userId);
      return row ? userFromRow(row) : null;
    },
    async findUserByEmail(email) {
      const row = sql.userByEmail.get(email);
      return row ? userFromRow(row) : null;
    },
    async listUsers(accountId) {
      return sql.listUsers.all(accountId).map(userFromRow);
    },
    async updateUser(userId, change) {
      const sets: string[] = [];
      const values: Record<string, unknown> = { user_id: userId };
      for (const [field, column] of Object.entries(CHANGE_COLUMNS) as [keyof UserChange, keyof UserRow][]) {
        const value = change[field];
        if (value === undefined) continue;
        sets.push(`${column} = @${column}`);
        values[column] =
          typeof value === 'boolean' ? toFlag(value) : Array.isArray(value) ? JSON.stringify(value) : value;
      }
      if (sets.length === 0) return this.getUser(userId);
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
    async deleteSession(tokenHash) {
      return sql.deleteSession.run(tokenHash).changes === 1;
    },
    async deleteUserSessions(userId) {
      return sql.deleteUserSessions.run(userId).changes;
    },
    async deleteExpiredSessions(absoluteBefore, idleBefore) {
      return sql.deleteExpired.run({ absolute: toMs(absoluteBefore), idle: toMs(idleBefore) }).changes;
    },
  };
}
