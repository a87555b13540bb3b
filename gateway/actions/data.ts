/** POST ?action=data: buys the data plan `plan_id` for `phone`; answers the plan's label. */
import { purchaseScope } from '../../core/domain/key-controls.js';
import { type Action, purchaserOf } from './action.js';
import { FieldReader, idempotencyKey } from './params.js';
import { purchaseAnswer } from './views.js';

export const data: Action = {
  method: 'POST',
  scope: purchaseScope('data'),
  async handle({ caller, body, headers, core }) {
    const fields = new FieldReader(body);
    const planId = fields.integer('plan_id');
    const phone = fields.string('phone');
    const requestId = idempotencyKey(fields, body, headers);
    fields.done();

    const outcome = await core.purchase.buyData({ ...purchaserOf(caller), planId: BigInt(planId), phone, requestId });
    return purchaseAnswer(outcome, { known: (tx) => ({ plan: tx.planLabel }) });
  },
};
