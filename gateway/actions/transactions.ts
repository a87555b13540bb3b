/**
 * GET ?action=transactions[&limit=20][&cursor=...]: the caller's transactions, newest
 * first, one page at a time; `next_cursor` is null on the last page. The page-size bounds
 * are the core's (core/domain/paging.ts): the gateway only checks that `limit` is an integer
 * and passes it on, absent when the caller gave none. The answer is written straight from
 * the core's reply bytes (page-json.ts), the same JSON the transaction views would make.
 */
import { replyBytes } from '../../runtime/grpc-transport.js';
import { EncodedJson } from '../reply.js';
import { type Action, accountOf } from './action.js';
import { transactionsPageJson } from './page-json.js';
import { FieldReader, pageQuery } from './params.js';

export const transactions: Action = {
  method: 'GET',
  scope: 'read',
  async handle({ caller, query, core }) {
    const fields = new FieldReader(query);
    const page = pageQuery(fields);
    fields.done();

    const bytes = await replyBytes((options) =>
      core.purchase.listTransactions({ ...accountOf(caller), ...page }, options),
    );
    return { httpStatus: 200, body: new EncodedJson(transactionsPageJson(bytes)) };
  },
};
