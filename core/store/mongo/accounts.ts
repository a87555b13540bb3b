/** Accounts on MongoDB: one document per account, holding its balance and ledger sequence. */
import { requireLimit } from '../bounds.js';
import type { AccountStore } from '../port.js';
import type { MongoContext } from './context.js';
import { accountFromDoc, accountToDoc, tierFromDoc } from './documents.js';

export function createAccountStore({ live }: MongoContext): AccountStore {
  return {
    async create(account) {
      const doc = accountToDoc(account);
      await live().accounts.insertOne(doc);
      return accountFromDoc(doc);
    },
    async get(accountId) {
      const doc = await live().accounts.findOne({ _id: accountId });
      return doc === null ? null : accountFromDoc(doc);
    },
    async getWithTier(accountId) {
      // Two reads: a document read takes no lock worth saving here, unlike SQLite's.
      const doc = await live().accounts.findOne({ _id: accountId });
      if (doc === null) return null;
      const tier = await live().tiers.findOne({ _id: doc.tier_id });
      return { account: accountFromDoc(doc), tier: tier === null ? null : tierFromDoc(tier) };
    },
    async setTier(accountId, tierId) {
      const doc = await live().accounts.findOneAndUpdate(
        { _id: accountId },
        { $set: { tier_id: tierId } },
        { returnDocument: 'after' },
      );
      return doc === null ? null : accountFromDoc(doc);
    },
    async listIdsOnTier(tierId, afterId, limit) {
      requireLimit(limit);
      const docs = await live()
        .accounts.find({ tier_id: tierId, _id: { $gt: afterId } }, { projection: { _id: 1 } })
        .sort({ _id: 1 })
        .limit(limit)
        .toArray();
      return docs.map((doc) => doc._id);
    },
    async setSuspension(accountId, suspension) {
      const doc = await live().accounts.findOneAndUpdate(
        { _id: accountId },
        suspension ? { $set: { suspension: { ...suspension } } } : { $unset: { suspension: '' } },
        { returnDocument: 'after' },
      );
      return doc === null ? null : accountFromDoc(doc);
    },
    async searchByName(fragment, limit) {
      requireLimit(limit);
      if (fragment === '') return [];
      // A bounded scan: no index serves a substring. The fragment is matched literally
      // (escaped), ignoring case.
      const literal = fragment.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
      const docs = await live()
        .accounts.find({ name: { $regex: literal, $options: 'i' } })
        .sort({ _id: 1 })
        .limit(limit)
        .toArray();
      return docs.map(accountFromDoc);
    },
  };
}
