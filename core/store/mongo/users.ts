/**
 * The people of the developer area on MongoDB: users, invitations and sessions, one
 * collection each. Tokens are stored as their SHA-256 only (the documents' _id).
 *
 * Accepting an invitation is one transaction (the invitation marked used and the user
 * inserted together); the unique index on users.email makes a second user with the same
 * email fail even when two invitations for it are accepted at once.
 */
import { type Collection, MongoServerError } from 'mongodb';
import type {
  AcceptInvitationResult,
  InvitationRecord,
  SessionRecord,
  UserRecord,
  UserRole,
} from '../../domain/records.js';
import type { PeopleStore, UserChange } from '../port.js';
import { bounded, MAX_LIST_ITEMS, type MongoContext } from './context.js';
import { DUPLICATE_KEY_CODE } from './errors.js';
import { PEOPLE_COLLECTIONS } from './schema.js';

interface UserDoc {
  _id: string;
  account_id: string;
  email: string;
  role: UserRole;
  password_hash: string;
  disabled: boolean;
  totp_secret: string | null;
  totp_pending_secret: string | null;
  totp_last_step: number;
  /** Absent on users written before recovery codes existed: none. */
  recovery_code_hashes?: string[];
  created_at: Date;
}

interface InvitationDoc {
  _id: string;
  account_id: string;
  email: string;
  role: UserRole;
  invited_by: string;
  created_at: Date;
  expires_at: Date;
  used_at: Date | null;
}

interface SessionDoc {
  _id: string;
  stage: SessionRecord['stage'];
  user_id: string;
  account_id: string;
  created_at: Date;
  last_seen_at: Date;
  absolute_expires_at: Date;
}

function userFromDoc(doc: UserDoc): UserRecord {
  return {
    userId: doc._id,
    accountId: doc.account_id,
    email: doc.email,
    role: doc.role,
    passwordHash: doc.password_hash,
    disabled: doc.disabled,
    totpSecret: doc.totp_secret,
    totpPendingSecret: doc.totp_pending_secret,
    totpLastStep: Number(doc.totp_last_step),
    recoveryCodeHashes: doc.recovery_code_hashes ?? [],
    createdAt: doc.created_at,
  };
}

function userToDoc(user: UserRecord): UserDoc {
  return {
    _id: user.userId,
    account_id: user.accountId,
    email: user.email,
    role: user.role,
    password_hash: user.passwordHash,
    disabled: user.disabled,
    totp_secret: user.totpSecret,
    totp_pending_secret: user.totpPendingSecret,
    totp_last_step: user.totpLastStep,
    recovery_code_hashes: [...user.recoveryCodeHashes],
    created_at: user.createdAt,
  };
}

function invitationFromDoc(doc: InvitationDoc): InvitationRecord {
  return {
    tokenHash: doc._id,
    accountId: doc.account_id,
    email: doc.email,
    role: doc.role,
    invitedBy: doc.invited_by,
    createdAt: doc.created_at,
    expiresAt: doc.expires_at,
    usedAt: doc.used_at,
  };
}

function sessionFromDoc(doc: SessionDoc): SessionRecord {
  return {
    tokenHash: doc._id,
    stage: doc.stage,
    userId: doc.user_id,
    accountId: doc.account_id,
    createdAt: doc.created_at,
    lastSeenAt: doc.last_seen_at,
    absoluteExpiresAt: doc.absolute_expires_at,
  };
}

const CHANGE_FIELDS: Readonly<Record<keyof UserChange, keyof UserDoc>> = {
  disabled: 'disabled',
  totpSecret: 'totp_secret',
  totpPendingSecret: 'totp_pending_secret',
  passwordHash: 'password_hash',
  recoveryCodeHashes: 'recovery_code_hashes',
};

/** Thrown inside the accept transaction to abort it with an answer (never caught inside it). */
class Refused extends Error {
  constructor(readonly result: AcceptInvitationResult) {
    super(result.outcome);
  }
}

export function createPeopleStore(ctx: MongoContext): PeopleStore {
  const users = ctx.db.collection<UserDoc>(PEOPLE_COLLECTIONS.users);
  const invitations = ctx.db.collection<InvitationDoc>(PEOPLE_COLLECTIONS.invitations);
  const sessions = ctx.db.collection<SessionDoc>(PEOPLE_COLLECTIONS.sessions);
  /** The collections of a store that is still open (the driver would quietly reconnect after close). */
  const live = <D extends { _id: string }>(collection: Collection<D>): Collection<D> => {
    ctx.live();
    return collection;
  };

  return {
    async insertInvitation(invitation) {
      await live(invitations).insertOne({
        _id: invitation.tokenHash,
        account_id: invitation.accountId,
        email: invitation.email,
        role: invitation.role,
        invited_by: invitation.invitedBy,
        created_at: invitation.createdAt,
        expires_at: invitation.expiresAt,
        used_at: invitation.usedAt,
      });
    },
    async findInvitation(tokenHash) {
      const doc = await live(invitations).findOne({ _id: tokenHash });
      return doc === null ? null : invitationFromDoc(doc);
    },
    async acceptInvitation(tokenHash, user) {
      try {
        return await ctx.inTransaction(async (session) => {
          if ((await users.findOne({ email: user.email }, { session })) !== null)
            throw new Refused({ outcome: 'email_taken' });
          const used = await invitations.updateOne(
            { _id: tokenHash, used_at: null, expires_at: { $gt: user.createdAt } },
            { $set: { used_at: user.createdAt } },
            { session },
          );
          if (used.modifiedCount !== 1) throw new Refused({ outcome: 'invalid' });
          await users.insertOne(userToDoc(user), { session });
          return { outcome: 'accepted' as const, user: { ...user } };
        });
      } catch (error) {
        if (error instanceof Refused) return error.result;
        if (error instanceof MongoServerError && error.code === DUPLICATE_KEY_CODE) return { outcome: 'email_taken' };
        throw error;
      }
    },
    async getUser(userId) {
      const doc = await live(users).findOne({ _id: userId });
      return doc === null ? null : userFromDoc(doc);
    },
    async findUserByEmail(email) {
      const doc = await live(users).findOne({ email });
      return doc === null ? null : userFromDoc(doc);
    },
    async listUsers(accountId) {
      const docs = await live(users)
        .find({ account_id: accountId })
        .sort({ created_at: 1, _id: 1 })
        .limit(MAX_LIST_ITEMS + 1)
        .toArray();
      return bounded(docs, `users of account ${accountId}`).map(userFromDoc);
    },
    async updateUser(userId, change) {
      const set: Partial<UserDoc> = {};
      for (const [field, name] of Object.entries(CHANGE_FIELDS) as [keyof UserChange, keyof UserDoc][]) {
        const value = change[field];
        if (value !== undefined) (set as Record<string, unknown>)[name] = value;
      }
      if (Object.keys(set).length === 0) return this.getUser(userId);
      const doc = await live(users).findOneAndUpdate({ _id: userId }, { $set: set }, { returnDocument: 'after' });
      return doc === null ? null : userFromDoc(doc);
    },
    async claimTotpStep(userId, step) {
      const result = await live(users).updateOne(
        { _id: userId, totp_last_step: { $lt: step } },
        { $set: { totp_last_step: step } },
      );
      return result.modifiedCount === 1;
    },
    async useRecoveryCode(userId, codeHash) {
      // One document, one update: matching the code and pulling it happen together.
      const result = await live(users).updateOne(
        { _id: userId, recovery_code_hashes: codeHash },
        { $pull: { recovery_code_hashes: codeHash } },
      );
      return result.modifiedCount === 1;
    },
    async insertSession(session) {
      await live(sessions).insertOne({
        _id: session.tokenHash,
        stage: session.stage,
        user_id: session.userId,
        account_id: session.accountId,
        created_at: session.createdAt,
        last_seen_at: session.lastSeenAt,
        absolute_expires_at: session.absoluteExpiresAt,
      });
    },
    async findSession(tokenHash) {
      const doc = await live(sessions).findOne({ _id: tokenHash });
      return doc === null ? null : sessionFromDoc(doc);
    },
    async touchSession(tokenHash, at) {
      const doc = await live(sessions).findOneAndUpdate(
        { _id: tokenHash },
        { $max: { last_seen_at: at } },
        { returnDocument: 'after' },
      );
      return doc === null ? null : sessionFromDoc(doc);
    },
    async deleteSession(tokenHash) {
      return (await live(sessions).deleteOne({ _id: tokenHash })).deletedCount === 1;
    },
    async deleteUserSessions(userId) {
      return (await live(sessions).deleteMany({ user_id: userId })).deletedCount;
    },
    async deleteExpiredSessions(absoluteBefore, idleBefore) {
      const result = await live(sessions).deleteMany({
        $or: [{ absolute_expires_at: { $lte: absoluteBefore } }, { last_seen_at: { $lte: idleBefore } }],
      });
      return result.deletedCount;
    },
  };
}
