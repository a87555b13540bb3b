/** Requests for API access, on MongoDB: one document per account (its id is the account's). */
import type { UpgradeRequestRecord } from '../../domain/records.js';
import type { UpgradeStore } from '../port.js';
import type { MongoContext } from './context.js';
import { UPGRADE_REQUESTS_COLLECTION } from './schema.js';

interface UpgradeDoc {
  /** The account. */
  _id: string;
  status: UpgradeRequestRecord['status'];
  requested_by: string;
  note: string;
  created_at: Date;
  decided_at: Date | null;
  key_issued_at: Date | null;
}

const DUPLICATE_KEY = 11000;

function fromDoc(doc: UpgradeDoc): UpgradeRequestRecord {
  return {
    accountId: doc._id,
    status: doc.status,
    requestedBy: doc.requested_by,
    note: doc.note,
    createdAt: doc.created_at,
    decidedAt: doc.decided_at,
    keyIssuedAt: doc.key_issued_at,
  };
}

export function createUpgradeStore(ctx: MongoContext): UpgradeStore {
  const requests = ctx.db.collection<UpgradeDoc>(UPGRADE_REQUESTS_COLLECTION);
  return {
    async open(request) {
      ctx.live();
      try {
        // Matches only a refused request (or none: then the upsert inserts). A pending or
        // approved one does not match, and the upsert's insert then meets its _id: kept as it is.
        await requests.updateOne(
          { _id: request.accountId, status: 'refused' },
          {
            $set: {
              status: 'pending',
              requested_by: request.requestedBy,
              note: request.note,
              created_at: request.at,
              decided_at: null,
              key_issued_at: null,
            },
          },
          { upsert: true },
        );
      } catch (error) {
        if ((error as { code?: unknown }).code !== DUPLICATE_KEY) throw error;
      }
      const doc = await requests.findOne({ _id: request.accountId });
      if (doc === null) throw new Error(`store: upgrade request of ${request.accountId} vanished`);
      return fromDoc(doc);
    },
    async get(accountId) {
      ctx.live();
      const doc = await requests.findOne({ _id: accountId });
      return doc === null ? null : fromDoc(doc);
    },
    async listPending(limit) {
      ctx.live();
      return (await requests.find({ status: 'pending' }).sort({ created_at: 1, _id: 1 }).limit(limit).toArray()).map(
        fromDoc,
      );
    },
    async decide(accountId, status, at) {
      ctx.live();
      const doc = await requests.findOneAndUpdate(
        { _id: accountId, status: 'pending' },
        { $set: { status, decided_at: at } },
        { returnDocument: 'after' },
      );
      return doc === null ? null : fromDoc(doc);
    },
    async claimFirstKey(accountId, at) {
      ctx.live();
      const result = await requests.updateOne(
        { _id: accountId, status: 'approved', key_issued_at: null },
        { $set: { key_issued_at: at } },
      );
      return result.modifiedCount === 1;
    },
  };
}
