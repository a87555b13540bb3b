/**
 * GET ?action=transactions[&limit=20][&cursor=...]: the caller's transactions, newest
 * first, one page at a time; `next_cursor` is null on the last page. The page-size bounds
 * are the core's (core/domain/paging.ts): the gateway only checks that `limit` is an integer
 * and passes it on, absent when the caller gave none.
 */
import { type Action, accountOf } from './action.js';
import { FieldReader, pageQuery } from './params.js';
import { transactionView } from './views.js';

export const transactions: Action = {
  method: 'GET',
  async handle({ caller, query, core }) {
    const fields = new FieldReader(query);
    const page = pageQuery(fields);
    fields.done();

    const res = await core.purchase.listTransactions({ ...accountOf(caller), ...page });
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
