/** Accounts on MongoDB: one document per account, holding its balance and ledger sequence. */
import type { AccountStore } from '../port.js';
import type { MongoContext } from './context.js';
import { accountFromDoc, accountToDoc } from './documents.js';

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
    async setTier(accountId, tierId) {
      const doc = await live().accounts.findOneAndUpdate(
        { _id: accountId },
        { $set: { tier_id: tierId } },
        { returnDocument: 'after' },
      );
      return doc === null ? null : accountFromDoc(doc);
    },
  };
}
