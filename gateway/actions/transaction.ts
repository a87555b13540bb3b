/**
 * GET ?action=transaction&reference=...: one of the caller's transactions in its current
 * state, for following up a pending purchase. Another account's reference is 404, exactly
 * like one that does not exist.
 */
import { type Action, accountOf } from './action.js';
import { FieldReader } from './params.js';
import { requireTransaction, transactionView } from './views.js';

export const transaction: Action = {
  method: 'GET',
  scope: 'read',
  async handle({ caller, query, core }) {
    const fields = new FieldReader(query);
    const reference = fields.string('reference');
    fields.done();

    const res = await core.purchase.getTransaction({ ...accountOf(caller), reference });
    return {
      httpStatus: 200,
      body: { status: 'success', transaction: transactionView(requireTransaction(res.transaction)) },
    };
  },
};
