/** POST ?action=data: buys the data plan `plan_id` for `phone`; answers the plan's label. */
import { purchaseScope } from '../../core/domain/key-controls.js';
import { soldProductWord } from '../../core/domain/words.js';
import { Product } from '../../gen/prepaid/v1/types_pb.js';
import { type Action, purchaserOf } from './action.js';
import { FieldReader, idempotencyKey } from './params.js';
import { purchaseAnswer } from './views.js';

export const data: Action = {
  method: 'POST',
  scope: purchaseScope(soldProductWord(Product.DATA)),
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
