/**
 * The people of the developer area on MongoDB: persons (users), their memberships of
 * accounts, invitations and sessions, one collection each. Tokens are stored as their
 * SHA-256 only (the documents' _id). A membership's _id is "<user id> <account id>", so one
 * person has at most one membership per account by the _id index alone.
 *
 * Accepting an invitation is one transaction (the invitation marked used, the person
 * inserted when new, the membership written); the unique index on users.email makes a
 * second person with the same email fail even when two invitations for it are accepted at
 * once. Users written before schema step 15 keep their account_id, role and disabled fields;
 * nothing reads them any more (the step copied them into memberships).
 */
import { type Collection, MongoServerError } from 'mongodb';
import { MAX_OPEN_INVITATIONS } from '../../domain/people.js';
import type {
  AcceptInvitationResult,
  InvitationRecord,
  MemberRecord,
  MembershipRecord,
  SessionRecord,
  UserRecord,
  UserRole,
} from '../../domain/records.js';
import type { PeopleStore, UserChange } from '../port.js';
import { bounded, MAX_LIST_ITEMS, type MongoContext } from './context.js';
import { DUPLICATE_KEY_CODE } from './errors.js';
import { MEMBERSHIPS_COLLECTION, PEOPLE_COLLECTIONS } from './schema.js';

export interface UserDoc {
  _id: string;
  email: string;
  password_hash: string;
  totp_secret: string | null;
  totp_pending_secret: string | null;
  totp_last_step: number;
  /** Absent on users written before recovery codes existed: none. */
  recovery_code_hashes?: string[];
  created_at: Date;
}

interface MembershipDoc {
  /** membershipId(user_id, account_id). */
  _id: string;
  user_id: string;
  account_id: string;
  role: UserRole;
  disabled: boolean;
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
  /** Absent on invitations written before schema step 15: not revoked. */
  revoked_at?: Date | null;
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
    email: doc.email,
    passwordHash: doc.password_hash,
    totpSecret: doc.totp_secret,
    totpPendingSecret: doc.totp_pending_secret,
    totpLastStep: Number(doc.totp_last_step),
    recoveryCodeHashes: doc.recovery_code_hashes ?? [],
    createdAt: doc.created_at,
  };
}

export function userToDoc(user: UserRecord): UserDoc {
  return {
    _id: user.userId,
    email: user.email,
    password_hash: user.passwordHash,
    totp_secret: user.totpSecret,
    totp_pending_secret: user.totpPendingSecret,
    totp_last_step: user.totpLastStep,
    recovery_code_hashes: [...user.recoveryCodeHashes],
    created_at: user.createdAt,
  };
}

/** A membership's _id: a space never occurs in our ids (usr_..., and account ids are one token). */
export function membershipId(userId: string, accountId: string): string {
  return `${userId} ${accountId}`;
}

function membershipFromDoc(doc: MembershipDoc): MembershipRecord {
  return {
    userId: doc.user_id,
    accountId: doc.account_id,
    role: doc.role,
    disabled: doc.disabled,
    createdAt: doc.created_at,
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
    revokedAt: doc.revoked_at ?? null,
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

/** The people store's collections, each through `live` (a closed store is refused, not reopened). */
function peopleCollections(ctx: MongoContext) {
  const users = ctx.db.collection<UserDoc>(PEOPLE_COLLECTIONS.users);
  const memberships = ctx.db.collection<MembershipDoc>(MEMBERSHIPS_COLLECTION);
  const invitations = ctx.db.collection<InvitationDoc>(PEOPLE_COLLECTIONS.invitations);
  const sessions = ctx.db.collection<SessionDoc>(PEOPLE_COLLECTIONS.sessions);
  /** The collections of a store that is still open (the driver would quietly reconnect after close). */
  const live = <D extends { _id: string }>(collection: Collection<D>): Collection<D> => {
    ctx.live();
    return collection;
  };
  return { users, memberships, invitations, sessions, live };
}

export function createPeopleStore(ctx: MongoContext): PeopleStore {
  const { users, memberships, live } = peopleCollections(ctx);
  const getUser = async (userId: string) => {
    const doc = await live(users).findOne({ _id: userId });
    return doc === null ? null : userFromDoc(doc);
  };

  return {
    ...invitationMethods(ctx),
    getUser,
    async findUserByEmail(email) {
      const doc = await live(users).findOne({ email });
      return doc === null ? null : userFromDoc(doc);
    },
    async listMembers(accountId) {
      const docs = await live(memberships)
        .find({ account_id: accountId })
        .sort({ created_at: 1, user_id: 1 })
        .limit(MAX_LIST_ITEMS + 1)
        .toArray();
      const found = bounded(docs, `members of account ${accountId}`);
      const persons = await users.find({ _id: { $in: found.map((doc) => doc.user_id) } }).toArray();
      const byId = new Map(persons.map((doc) => [doc._id, userFromDoc(doc)]));
      return found.flatMap((doc): MemberRecord[] => {
        const user = byId.get(doc.user_id);
        return user === undefined ? [] : [{ user, membership: membershipFromDoc(doc) }];
      });
    },
    async listMemberships(userId) {
      const docs = await live(memberships)
        .find({ user_id: userId })
        .sort({ created_at: 1, account_id: 1 })
        .limit(MAX_LIST_ITEMS + 1)
        .toArray();
      return bounded(docs, `memberships of ${userId}`).map(membershipFromDoc);
    },
    async getMembership(userId, accountId) {
      const doc = await live(memberships).findOne({ _id: membershipId(userId, accountId) });
      return doc === null ? null : membershipFromDoc(doc);
    },
    async setMembershipDisabled(userId, accountId, disabled) {
      const doc = await live(memberships).findOneAndUpdate(
        { _id: membershipId(userId, accountId) },
        { $set: { disabled } },
        { returnDocument: 'after' },
      );
      return doc === null ? null : membershipFromDoc(doc);
    },
    async updateUser(userId, change) {
      const set: Partial<UserDoc> = {};
      for (const [field, name] of Object.entries(CHANGE_FIELDS) as [keyof UserChange, keyof UserDoc][]) {
        const value = change[field];
        if (value !== undefined) (set as Record<string, unknown>)[name] = value;
      }
      if (Object.keys(set).length === 0) return getUser(userId);
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
    ...sessionMethods(ctx),
  };
}

/** Invitations, and accepting one (the person, the invitation's use and the membership together). */
function invitationMethods(
  ctx: MongoContext,
): Pick<
  PeopleStore,
  'insertInvitation' | 'listOpenInvitations' | 'revokeInvitations' | 'findInvitation' | 'acceptInvitation'
> {
  const { users, memberships, invitations, live } = peopleCollections(ctx);
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
        revoked_at: invitation.revokedAt,
      });
    },
    async listOpenInvitations(accountId, at) {
      // revoked_at: null matches the field's absence too (invitations older than step 15).
      const docs = await live(invitations)
        .find({ account_id: accountId, used_at: null, revoked_at: null, expires_at: { $gt: at } })
        .sort({ created_at: 1, _id: 1 })
        .limit(MAX_OPEN_INVITATIONS)
        .toArray();
      return docs.map(invitationFromDoc);
    },
    async revokeInvitations(accountId, email, at) {
      const result = await live(invitations).updateMany(
        { account_id: accountId, email, used_at: null, revoked_at: null, expires_at: { $gt: at } },
        { $set: { revoked_at: at } },
      );
      return result.modifiedCount;
    },
    async findInvitation(tokenHash) {
      const doc = await live(invitations).findOne({ _id: tokenHash });
      return doc === null ? null : invitationFromDoc(doc);
    },
    async acceptInvitation(tokenHash, user, at = user.createdAt) {
      try {
        return await ctx.inTransaction(async (session) => {
          const holder = await users.findOne({ email: user.email }, { session });
          if (holder !== null && holder._id !== user.userId) throw new Refused({ outcome: 'email_taken' });
          const used = await invitations.findOneAndUpdate(
            { _id: tokenHash, used_at: null, revoked_at: null, expires_at: { $gt: at } },
            { $set: { used_at: at } },
            { session, returnDocument: 'after' },
          );
          if (used === null) throw new Refused({ outcome: 'invalid' });
          if (used.email !== user.email)
            throw new Error('acceptInvitation: the person and the invitation differ in email');
          if (holder === null) await users.insertOne(userToDoc(user), { session });
          // An upsert keyed by _id: a membership disabled before is enabled with the new role,
          // and keeps the date the person first joined.
          const membership = await memberships.findOneAndUpdate(
            { _id: membershipId(user.userId, used.account_id) },
            {
              $set: { role: used.role, disabled: false },
              $setOnInsert: { user_id: user.userId, account_id: used.account_id, created_at: at },
            },
            { session, upsert: true, returnDocument: 'after' },
          );
          const person = holder === null ? { ...user } : userFromDoc(holder);
          return { outcome: 'accepted' as const, user: person, membership: membershipFromDoc(membership!) };
        });
      } catch (error) {
        if (error instanceof Refused) return error.result;
        if (error instanceof MongoServerError && error.code === DUPLICATE_KEY_CODE) return { outcome: 'email_taken' };
        throw error;
      }
    },
  };
}

/** The developer area's sessions. */
function sessionMethods(
  ctx: MongoContext,
): Pick<
  PeopleStore,
  | 'insertSession'
  | 'findSession'
  | 'touchSession'
  | 'setSessionAccount'
  | 'deleteSession'
  | 'deleteUserSessions'
  | 'deleteExpiredSessions'
> {
  const { sessions, live } = peopleCollections(ctx);
  return {
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
    async setSessionAccount(tokenHash, accountId) {
      const doc = await live(sessions).findOneAndUpdate(
        { _id: tokenHash },
        { $set: { account_id: accountId } },
        { returnDocument: 'after' },
      );
      return doc === null ? null : sessionFromDoc(doc);
    },
    async deleteSession(tokenHash) {
      return (await live(sessions).deleteOne({ _id: tokenHash })).deletedCount === 1;
    },
    async deleteUserSessions(userId, accountId) {
      const filter = accountId === undefined ? { user_id: userId } : { user_id: userId, account_id: accountId };
      return (await live(sessions).deleteMany(filter)).deletedCount;
    },
    async deleteExpiredSessions(absoluteBefore, idleBefore) {
      const result = await live(sessions).deleteMany({
        $or: [{ absolute_expires_at: { $lte: absoluteBefore } }, { last_seen_at: { $lte: idleBefore } }],
      });
      return result.deletedCount;
    },
  };
}
