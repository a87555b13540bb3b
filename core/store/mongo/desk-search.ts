/**
 * The transactions desk's search on MongoDB (HistoryStore.searchDesk): live purchases in a time
 * range, newest first, filtered (transactions_by_time, or one account's history); an upstream
 * is a lookup of each candidate's attempts by reference, before the limit.
 */
import type { Document } from 'mongodb';
import type { DeskTransactionQuery } from '../../domain/desk-search.js';
import type { Page, PageRequest } from '../../domain/paging.js';
import type { TransactionRecord } from '../../domain/records.js';
import { requireLimit } from '../bounds.js';
import { encodeTransactionCursor, toPage } from '../paging.js';
import { SUPPLY_COLLECTIONS } from './collections.js';
import type { MongoContext } from './context.js';
import { type TransactionDoc, transactionFromDoc } from './documents.js';

/** `historyFilter` is history.ts's filter of one wallet's search (passed in, so neither file imports the other). */
export async function searchDesk(
  { live }: MongoContext,
  historyFilter: (
    accountId: string,
    query: Omit<DeskTransactionQuery, 'accountId' | 'upstream'>,
    after: string | undefined,
  ) => Document,
  query: DeskTransactionQuery,
  page: PageRequest,
): Promise<Page<TransactionRecord>> {
  const limit = requireLimit(page.limit);
  const { accountId, upstream, ...rest } = query;
  // The history's filter, for one account or (its account and mode dropped) across them, live only.
  const { account_id: _account, ...filter } = historyFilter(accountId ?? '', rest, page.after);
  const match: Document = accountId === undefined ? filter : { ...filter, account_id: accountId };
  const pipeline: Document[] = [{ $match: match }, { $sort: { created_at: -1, _id: -1 } }];
  if (upstream !== undefined) {
    pipeline.push(
      {
        $lookup: { from: SUPPLY_COLLECTIONS.attempts, localField: '_id', foreignField: 'reference', as: 'to_upstream' },
      },
      { $match: { 'to_upstream.upstream': upstream } },
      { $project: { to_upstream: 0 } },
    );
  }
  pipeline.push({ $limit: limit + 1 });
  const docs = await live().transactions.aggregate<TransactionDoc>(pipeline).toArray();
  return toPage(docs, limit, transactionFromDoc, (doc) => encodeTransactionCursor(doc.created_at, doc._id));
}
