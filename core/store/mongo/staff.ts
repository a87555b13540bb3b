/**
 * The platform's staff on MongoDB: members, their sessions and the four-eyes proposals, one
 * collection each. Tokens are stored as their SHA-256 only (a session's _id). A unique index
 * on staff_members.email keeps one member per email; the set-up token's unique partial index
 * keeps a link to one member. Every change is one single-document update, so each is atomic.
 */
import { type Filter, MongoServerError } from 'mongodb';
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
import { STAFF_COLLECTIONS } from './collections.js';
import { bounded, MAX_LIST_ITEMS, type MongoContext } from './context.js';
import { DUPLICATE_KEY_CODE, isDuplicateKeyOn } from './errors.js';
import { PROPOSAL_REFERENCE_INDEX } from './indexes.js';

interface MemberDoc {
  _id: string;
  email: string;
  role: StaffRole;
  password_hash: string;
  totp_secret: string;
  totp_last_step: number;
  disabled: boolean;
  setup_token_hash: string | null;
  setup_expires_at: Date | null;
  created_at: Date;
  /** Absent on members invited before this was kept: nobody known, powers since created_at. */
  invited_by?: string;
  role_set_by?: string;
  powers_since?: Date;
}

interface SessionDoc {
  _id: string;
  staff_id: string;
  created_at: Date;
  last_seen_at: Date;
  absolute_expires_at: Date;
}

export interface ProposalDoc {
  _id: string;
  kind: ProposalKind;
  account_id: string;
  target: string;
  amount_kobo: number;
  note: string;
  /** Absent on proposals made before step 26: their id was the ledger's reference. */
  reference?: string;
  memo?: string;
  /** A settlement's fee; absent on proposals made before step 31 (none was a settlement). */
  fee_kobo?: number;
  proposed_by: string;
  proposed_at: Date;
  expires_at: Date;
  status: ProposalStatus;
  decided_by: string | null;
  decided_at: Date | null;
  applied_at: Date | null;
}

function memberFromDoc(doc: MemberDoc): StaffMemberRecord {
  return {
    staffId: doc._id,
    email: doc.email,
    role: doc.role,
    passwordHash: doc.password_hash,
    totpSecret: doc.totp_secret,
    totpLastStep: doc.totp_last_step,
    disabled: doc.disabled,
    setupTokenHash: doc.setup_token_hash,
    setupExpiresAt: doc.setup_expires_at,
    createdAt: doc.created_at,
    invitedBy: doc.invited_by ?? '',
    roleSetBy: doc.role_set_by ?? '',
    powersSince: doc.powers_since ?? doc.created_at,
  };
}

function sessionFromDoc(doc: SessionDoc): StaffSessionRecord {
  return {
    tokenHash: doc._id,
    staffId: doc.staff_id,
    createdAt: doc.created_at,
    lastSeenAt: doc.last_seen_at,
    absoluteExpiresAt: doc.absolute_expires_at,
  };
}

export function proposalFromDoc(doc: ProposalDoc): ProposalRecord {
  return {
    proposalId: doc._id,
    kind: doc.kind,
    accountId: doc.account_id,
    target: doc.target,
    amountKobo: kobo(doc.amount_kobo),
    note: doc.note,
    reference: doc.reference ?? '',
    memo: doc.memo ?? '',
    feeKobo: kobo(doc.fee_kobo ?? 0),
    proposedBy: doc.proposed_by,
    proposedAt: doc.proposed_at,
    expiresAt: doc.expires_at,
    status: doc.status,
    decidedBy: doc.decided_by,
    decidedAt: doc.decided_at,
    appliedAt: doc.applied_at,
  };
}

export function createStaffStore(ctx: MongoContext): StaffStore {
  const members = ctx.db.collection<MemberDoc>(STAFF_COLLECTIONS.members);
  const sessions = ctx.db.collection<SessionDoc>(STAFF_COLLECTIONS.sessions);
  const member = (doc: MemberDoc | null) => (doc === null ? null : memberFromDoc(doc));
  return {
    async insertMember(record) {
      ctx.live();
      try {
        await members.insertOne({
          _id: record.staffId,
          email: record.email,
          role: record.role,
          password_hash: record.passwordHash,
          totp_secret: record.totpSecret,
          totp_last_step: record.totpLastStep,
          disabled: record.disabled,
          setup_token_hash: record.setupTokenHash,
          setup_expires_at: record.setupExpiresAt,
          created_at: record.createdAt,
          invited_by: record.invitedBy,
          role_set_by: record.roleSetBy,
          powers_since: record.powersSince,
        });
        return true;
      } catch (error) {
        if (error instanceof MongoServerError && error.code === DUPLICATE_KEY_CODE) return false;
        throw error;
      }
    },
    async getMember(staffId) {
      ctx.live();
      return member(await members.findOne({ _id: staffId }));
    },
    async findMemberByEmail(email) {
      ctx.live();
      return member(await members.findOne({ email }));
    },
    async findMemberBySetup(tokenHash) {
      ctx.live();
      return member(await members.findOne({ setup_token_hash: tokenHash }));
    },
    async listMembers() {
      ctx.live();
      const docs = await members
        .find({})
        .sort({ created_at: 1, _id: 1 })
        .limit(MAX_LIST_ITEMS + 1)
        .toArray();
      return bounded(docs, 'staff members').map(memberFromDoc);
    },
    async completeSetup(tokenHash, passwordHash, totpStep, at) {
      ctx.live();
      return member(
        await members.findOneAndUpdate(
          { setup_token_hash: tokenHash, setup_expires_at: { $gt: at }, disabled: false },
          {
            $set: { password_hash: passwordHash, setup_token_hash: null, setup_expires_at: null },
            $max: { totp_last_step: totpStep, powers_since: at },
          },
          { returnDocument: 'after' },
        ),
      );
    },
    async setDisabled(staffId, disabled) {
      ctx.live();
      return member(
        await members.findOneAndUpdate({ _id: staffId }, { $set: { disabled } }, { returnDocument: 'after' }),
      );
    },
    async setRole(staffId, role, by, at) {
      ctx.live();
      return member(
        await members.findOneAndUpdate(
          { _id: staffId },
          { $set: { role, role_set_by: by }, $max: { powers_since: at } },
          { returnDocument: 'after' },
        ),
      );
    },
    async claimTotpStep(staffId, step) {
      ctx.live();
      const result = await members.updateOne(
        { _id: staffId, totp_last_step: { $lt: step } },
        { $set: { totp_last_step: step } },
      );
      return result.modifiedCount === 1;
    },
    async insertSession(session) {
      ctx.live();
      await sessions.insertOne({
        _id: session.tokenHash,
        staff_id: session.staffId,
        created_at: session.createdAt,
        last_seen_at: session.lastSeenAt,
        absolute_expires_at: session.absoluteExpiresAt,
      });
    },
    async findSession(tokenHash) {
      ctx.live();
      const doc = await sessions.findOne({ _id: tokenHash });
      return doc === null ? null : sessionFromDoc(doc);
    },
    async touchSession(tokenHash, at) {
      ctx.live();
      const doc = await sessions.findOneAndUpdate(
        { _id: tokenHash },
        { $max: { last_seen_at: at } },
        { returnDocument: 'after' },
      );
      return doc === null ? null : sessionFromDoc(doc);
    },
    async deleteSession(tokenHash) {
      ctx.live();
      return (await sessions.deleteOne({ _id: tokenHash })).deletedCount === 1;
    },
    async deleteMemberSessions(staffId) {
      ctx.live();
      return (await sessions.deleteMany({ staff_id: staffId })).deletedCount;
    },
  };
}

export function createProposalStore(ctx: MongoContext): ProposalStore {
  const proposals = ctx.db.collection<ProposalDoc>(STAFF_COLLECTIONS.proposals);
  return {
    async insert(proposal) {
      ctx.live();
      try {
        await proposals.insertOne({
          _id: proposal.proposalId,
          kind: proposal.kind,
          account_id: proposal.accountId,
          target: proposal.target,
          amount_kobo: proposal.amountKobo,
          note: proposal.note,
          reference: proposal.reference,
          memo: proposal.memo,
          fee_kobo: proposal.feeKobo,
          proposed_by: proposal.proposedBy,
          proposed_at: proposal.proposedAt,
          expires_at: proposal.expiresAt,
          status: proposal.status,
          decided_by: proposal.decidedBy,
          decided_at: proposal.decidedAt,
          applied_at: proposal.appliedAt,
        });
        return proposal;
      } catch (error) {
        if (!isDuplicateKeyOn(error, PROPOSAL_REFERENCE_INDEX.name, PROPOSAL_REFERENCE_INDEX.fields)) throw error;
        // A proposal of this reference was written first (a retry, or two at once): that one is the answer.
        const earlier = await proposals.findOne({
          account_id: proposal.accountId,
          kind: proposal.kind,
          reference: proposal.reference,
        });
        if (earlier === null) throw error;
        return proposalFromDoc(earlier);
      }
    },
    async get(proposalId) {
      ctx.live();
      const doc = await proposals.findOne({ _id: proposalId });
      return doc === null ? null : proposalFromDoc(doc);
    },
    async listOpen(now, limit) {
      ctx.live();
      const docs = await proposals
        .find({ status: 'pending', expires_at: { $gt: now } })
        .sort({ proposed_at: 1, _id: 1 })
        .limit(limit)
        .toArray();
      return docs.map(proposalFromDoc);
    },
    async decide(proposalId, status, by, at) {
      ctx.live();
      // One document, one update: the proposer check, the expiry and the move happen together.
      const filter: Filter<ProposalDoc> = { _id: proposalId, status: 'pending', expires_at: { $gt: at } };
      if (status === 'approved') filter.proposed_by = { $ne: by };
      const doc = await proposals.findOneAndUpdate(
        filter,
        { $set: { status, decided_by: by, decided_at: at } },
        { returnDocument: 'after' },
      );
      return doc === null ? null : proposalFromDoc(doc);
    },
    async markApplied(proposalId, at) {
      ctx.live();
      const result = await proposals.updateOne(
        { _id: proposalId, status: 'approved', applied_at: null },
        { $set: { applied_at: at } },
      );
      return result.modifiedCount === 1;
    },
  };
}
