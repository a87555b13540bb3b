/** The holder's reads of an account's purchases on MongoDB: filtered history, spend per day, the pending count. */
import type { Filter } from 'mongodb';
import type { Mode } from '../../domain/mode.js';
import { kobo } from '../../domain/money.js';
import type { ProductName } from '../../domain/products.js';
import { prefixRange } from '../../domain/recipient-search.js';
import type { TransactionQuery } from '../../domain/records.js';
import { requireLimit } from '../bounds.js';
import { decodeTransactionCursor, encodeTransactionCursor, toPage } from '../paging.js';
import type { HistoryStore } from '../port.js';
import type { MongoContext } from './context.js';
import { searchDesk } from './desk-search.js';
import { developerRead } from './developer-reads.js';
import { readInteger, type TransactionDoc, transactionFromDoc } from './documents.js';

const DAY_MS = 86_400_000;

const cursorOf = (doc: TransactionDoc) => encodeTransactionCursor(doc.created_at, doc._id);

/**
 * The filter of a holder's history search. A search by idempotency key states the string
 * type, as the purchase's own lookup does (wallet.ts, sameRequestQuery): the planner uses the
 * partial unique index on (account_id, mode, request_id) only when the query implies its
 * `$type: 'string'` filter, and would otherwise walk the wallet's whole history.
 */
export function historySearchFilter(
  accountId: string,
  mode: Mode,
  query: TransactionQuery,
  after: string | undefined,
): Filter<TransactionDoc> {
  const filter: Filter<TransactionDoc> = { account_id: accountId, mode };
  if (query.product !== undefined) filter.product = query.product;
  if (query.status !== undefined) filter.status = query.status;
  if (query.recipient !== undefined) filter.recipient = query.recipient;
  if (query.recipientPrefix !== undefined) {
    // A range on the string, which the transactions_by_recipient index answers directly.
    const range = prefixRange(query.recipientPrefix);
    filter.recipient = { $gte: range.from, $lt: range.until };
  }
  if (query.reference !== undefined) filter._id = query.reference;
  if (query.requestId !== undefined) filter.request_id = { $eq: query.requestId, $type: 'string' };
  const createdAt: { $gte?: Date; $lt?: Date; $lte?: Date } = {};
  if (query.from !== undefined) createdAt.$gte = query.from;
  if (query.until !== undefined) createdAt.$lt = query.until;
  if (after !== undefined) {
    // Strictly older than the cursor in (created_at desc, _id desc) order, as in transactions.ts.
    const cursor = decodeTransactionCursor(after);
    const at = new Date(cursor.createdAtMs);
    if (createdAt.$lt === undefined || createdAt.$lt > at) {
      delete createdAt.$lt;
      createdAt.$lte = at;
    }
    filter.$nor = [{ created_at: at, _id: { $gte: cursor.reference } }];
  }
  if (Object.keys(createdAt).length > 0) filter.created_at = createdAt;
  return filter;
}

export function createHistoryStore(ctx: MongoContext): HistoryStore {
  const { live } = ctx;
  return {
    searchDesk: (query, page) =>
      searchDesk(ctx, (accountId, rest, after) => historySearchFilter(accountId, 'live', rest, after), query, page),
    async search(accountId, mode, query, page) {
      const limit = requireLimit(page.limit);
      const filter = historySearchFilter(accountId, mode, query, page.after);
      const docs = await live()
        .transactions.find(filter, developerRead())
        .sort({ created_at: -1, _id: -1 })
        .limit(limit + 1)
        .toArray();
      return toPage(docs, limit, transactionFromDoc, cursorOf);
    },
    async spendByDay(accountId, mode, from, until, offsetMs) {
      const rows = await live()
        .transactions.aggregate<{ _id: { day: unknown; product: ProductName }; spent: unknown }>(
          [
            {
              $match: {
                account_id: accountId,
                mode,
                created_at: { $gte: from, $lt: until },
                status: { $in: ['pending', 'success'] },
              },
            },
            {
              $group: {
                _id: {
                  day: { $floor: { $divide: [{ $add: [{ $toLong: '$created_at' }, offsetMs] }, DAY_MS] } },
                  product: '$product',
                },
                spent: { $sum: '$charged_kobo' },
              },
            },
            { $sort: { '_id.day': 1, '_id.product': 1 } },
          ],
          developerRead(),
        )
        .toArray();
      return rows.map((row) => ({
        day: Number(row._id.day),
        product: row._id.product,
        spentKobo: kobo(readInteger(row.spent, 'spend')),
      }));
    },
    async pendingCount(accountId, mode) {
      return live().transactions.countDocuments({ account_id: accountId, mode, status: 'pending' }, developerRead());
    },
  };
}
