/**
 * GET ?action=transactions[&limit=20][&cursor=...]: the caller's transactions, newest
 * first, one page at a time; `next_cursor` is null on the last page. The page-size bounds
 * are the core's (core/domain/paging.ts): the gateway only checks that `limit` is an integer
 * and passes it on, absent when the caller gave none.
 */
import { type Action, accountOf } from './action.js';
import { FieldReader } from './params.js';
import { transactionView } from './views.js';

/**
 * The range of the contract's int32 `page_size`. A limit beyond it is sent as the nearest
 * int32, which the core refuses like any other size out of its bounds; it cannot be encoded
 * as it is.
 */
const INT32_MIN = -(2 ** 31);
const INT32_MAX = 2 ** 31 - 1;

export const transactions: Action = {
  method: 'GET',
  async handle({ caller, query, core }) {
    const fields = new FieldReader(query);
    const limit = fields.optionalInteger('limit');
    const cursor = fields.optionalString('cursor');
    fields.done();

    const pageSize = limit === undefined ? undefined : Math.min(INT32_MAX, Math.max(INT32_MIN, limit));
    const res = await core.purchase.listTransactions({ ...accountOf(caller), pageSize, pageToken: cursor });
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
