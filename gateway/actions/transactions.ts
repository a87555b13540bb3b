/**
 * GET ?action=transactions[&limit=20][&cursor=...]: the caller's transactions, newest
 * first, one page at a time; `next_cursor` is null on the last page.
 */
import type { Action } from './action.js';
import { FieldReader } from './params.js';
import { transactionView } from './views.js';

/** Page size when `limit` is not given. */
const DEFAULT_LIMIT = 20;
/** The core's bound on a page (ListTransactionsRequest.page_size), so one call stays cheap. */
const MAX_LIMIT = 100;

export const transactions: Action = {
  method: 'GET',
  async handle({ caller, query, core }) {
    const fields = new FieldReader(query);
    const limit = fields.optionalInteger('limit', DEFAULT_LIMIT);
    const cursor = fields.optionalString('cursor');
    // Checked here rather than left to the core because the RPC reads 0 as "the default"
    // and the public API has no such meaning for it.
    if (limit < 1 || limit > MAX_LIMIT) fields.reject('limit', `limit must be between 1 and ${MAX_LIMIT}.`);
    fields.done();

    const res = await core.purchase.listTransactions({ accountId: caller.accountId, pageSize: limit, pageToken: cursor });
    return {
      httpStatus: 200,
      body: {
        status: 'success',
        transactions: res.transactions.map(transactionView),
        next_cursor: res.nextPageToken === '' ? null : res.nextPageToken,
      },
    };
  },
};
