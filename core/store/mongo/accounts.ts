/** Accounts on MongoDB: one document per account, holding its balance and ledger sequence. */
import type { Filter } from 'mongodb';
import type { AccountListQuery, AccountSort } from '../../domain/account-list.js';
import { requireLimit } from '../bounds.js';
import { decodeAccountCursor, encodeAccountCursor, toPage } from '../paging.js';
import type { AccountStore } from '../port.js';
import type { MongoContext } from './context.js';
import { type AccountDoc, accountFromDoc, accountToDoc, readInteger, tierFromDoc } from './documents.js';

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
    async list(query) {
      const limit = requireLimit(query.limit);
      const field = FIELD[query.sort];
      const order = query.descending ? -1 : 1;
      const docs = await live()
        .accounts.find(accountListFilter(query, field))
        .sort({ [field]: order, _id: order })
        .limit(limit + 1)
        .toArray();
      return toPage(docs, limit, accountFromDoc, (doc) =>
        encodeAccountCursor(
          field === 'created_at'
            ? doc.created_at.getTime()
            : field === 'name'
              ? doc.name
              : readInteger(doc.balance_kobo, 'accounts.balance_kobo'),
          doc._id,
        ),
      );
    },
  };
}

const FIELD: Record<AccountSort, 'created_at' | 'balance_kobo' | 'name'> = {
  created: 'created_at',
  balance: 'balance_kobo',
  name: 'name',
};

/** The query's filters and its cursor as one MongoDB filter; every value is a value, never an operator. */
function accountListFilter(query: AccountListQuery, field: 'created_at' | 'balance_kobo' | 'name'): Filter<AccountDoc> {
  const and: Filter<AccountDoc>[] = [];
  if (query.tierId !== undefined) and.push({ tier_id: { $eq: query.tierId } });
  if (query.suspended !== undefined) and.push({ suspension: { $exists: query.suspended } });
  const created: Record<string, Date> = {};
  if (query.createdFrom) created.$gte = query.createdFrom;
  if (query.createdBefore) created.$lt = query.createdBefore;
  if (Object.keys(created).length > 0) and.push({ created_at: created });
  const balance: Record<string, number> = {};
  if (query.balanceMinKobo !== undefined) balance.$gte = query.balanceMinKobo;
  if (query.balanceMaxKobo !== undefined) balance.$lte = query.balanceMaxKobo;
  if (Object.keys(balance).length > 0) and.push({ balance_kobo: balance });
  if (query.after !== undefined) {
    const cursor = decodeAccountCursor(query.after, field === 'name' ? 'string' : 'number');
    const value = field === 'created_at' ? new Date(cursor.value as number) : cursor.value;
    const past = query.descending ? '$lt' : '$gt';
    and.push({ $or: [{ [field]: { [past]: value } }, { [field]: { $eq: value }, _id: { [past]: cursor.accountId } }] });
  }
  return and.length === 0 ? {} : { $and: and };
}
