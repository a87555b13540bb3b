/** Purchases on MongoDB: the reads of the transactions collection (the wallet changes their status). */
import type { Filter } from 'mongodb';
import { requireLimit } from '../bounds.js';
import { decodeTransactionCursor, encodeTransactionCursor, toPage } from '../paging.js';
import type { TransactionStore } from '../port.js';
import type { MongoContext } from './context.js';
import { readInteger, type TransactionDoc, toDate, transactionFromDoc } from './documents.js';
import { sameRequestQuery } from './wallet.js';

/** A transaction document's page cursor. */
const cursorOf = (doc: TransactionDoc) => encodeTransactionCursor(doc.created_at, doc._id);

/** One aggregation that folds the pending transactions into one row (none when nothing is pending). */
const PENDING_SUMMARY_PIPELINE = [
  // The literal status matches the partial index transactions_pending_by_age, so the
  // $match reads pending documents only.
  { $match: { status: 'pending' } },
  {
    $group: {
      _id: null,
      count: { $sum: 1 },
      attention: { $sum: { $cond: [{ $eq: ['$needs_attention', true] }, 1, 0] } },
      oldest: { $min: '$created_at' },
    },
  },
];

/**
 * The last stages of a history page: a bulk SMS's recipients leave as their count
 * (TransactionStore.listByAccount); `$$REMOVE` adds nothing to any other purchase.
 */
const PAGE_DETAILS_STAGES = [
  {
    $set: {
      'details.recipientCount': {
        $cond: [{ $isArray: '$details.recipients' }, { $size: '$details.recipients' }, '$$REMOVE'],
      },
    },
  },
  { $unset: 'details.recipients' },
];

export function createTransactionStore({ live }: MongoContext): TransactionStore {
  return {
    async get(reference) {
      const doc = await live().transactions.findOne({ _id: reference });
      return doc === null ? null : transactionFromDoc(doc);
    },
    async getByRequestId(accountId, mode, requestId) {
      // sameRequestQuery states the key's type, so the partial unique index
      // transactions_request_id_by_mode (account_id, mode, request_id) serves it.
      const query = sameRequestQuery({ accountId, mode, requestId });
      const doc = query === null ? null : await live().transactions.findOne(query);
      return doc === null ? null : transactionFromDoc(doc);
    },
    async listByAccount(accountId, mode, page) {
      const limit = requireLimit(page.limit);
      const query: Filter<TransactionDoc> = { account_id: accountId, mode };
      if (page.after !== undefined) {
        // Strictly older than the cursor in (created_at desc, _id desc) order, written as one
        // range on created_at so that the history index serves both the filter and the order.
        const cursor = decodeTransactionCursor(page.after);
        const createdAt = new Date(cursor.createdAtMs);
        query.created_at = { $lte: createdAt };
        query.$nor = [{ created_at: createdAt, _id: { $gte: cursor.reference } }];
      }
      // $match, $sort and $limit first, so the history index serves them as it served find().
      const docs = await live()
        .transactions.aggregate<TransactionDoc>([
          { $match: query },
          { $sort: { created_at: -1, _id: -1 } },
          { $limit: limit + 1 },
          ...PAGE_DETAILS_STAGES,
        ])
        .toArray();
      return toPage(docs, limit, transactionFromDoc, cursorOf);
    },
    async listDuePending(now, limit) {
      requireLimit(limit);
      // The literal status matches the partial index transactions_due.
      const docs = await live()
        .transactions.find({ status: 'pending', next_attempt_at: { $lte: toDate(now, 'now') } })
        .sort({ next_attempt_at: 1, created_at: 1, _id: 1 })
        .limit(limit)
        .toArray();
      return docs.map(transactionFromDoc);
    },
    async listPending(filter, page) {
      const limit = requireLimit(page.limit);
      const query: Filter<TransactionDoc> = { status: 'pending' };
      if (filter.needsAttentionOnly) query.needs_attention = true;
      if (page.after !== undefined) {
        // Strictly newer than the cursor in (created_at, _id) order: the oldest-first list.
        const cursor = decodeTransactionCursor(page.after);
        const createdAt = new Date(cursor.createdAtMs);
        query.created_at = { $gte: createdAt };
        query.$nor = [{ created_at: createdAt, _id: { $lte: cursor.reference } }];
      }
      const docs = await live()
        .transactions.find(query)
        .sort({ created_at: 1, _id: 1 })
        .limit(limit + 1)
        .toArray();
      return toPage(docs, limit, transactionFromDoc, cursorOf);
    },
    async pendingSummary() {
      const rows = await live()
        .transactions.aggregate<{ count: unknown; attention: unknown; oldest: unknown }>(PENDING_SUMMARY_PIPELINE)
        .toArray();
      const row = rows[0];
      if (row === undefined) return { count: 0, needsAttentionCount: 0, oldestCreatedAt: null };
      return {
        count: readInteger(row.count, 'pending count'),
        needsAttentionCount: readInteger(row.attention, 'pending needs_attention count'),
        oldestCreatedAt: row.oldest instanceof Date ? row.oldest : null,
      };
    },
  };
}
