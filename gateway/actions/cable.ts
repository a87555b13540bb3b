/** POST ?action=cable: pays the cable package `package_code` on a smart card; answers the package name. */
import { type Action, accountOf } from './action.js';
import { FieldReader, idempotencyKey } from './params.js';
import { purchaseAnswer } from './views.js';

export const cable: Action = {
  method: 'POST',
  async handle({ caller, body, headers, core }) {
    const fields = new FieldReader(body);
    const provider = fields.string('provider');
    const smartCard = fields.string('smart_card');
    const packageCode = fields.string('package_code');
    const phone = fields.optionalString('phone');
    const requestId = idempotencyKey(fields, body, headers);
    fields.done();

    const outcome = await core.purchase.payCable({
      ...accountOf(caller),
      provider,
      smartCard,
      packageCode,
      phone,
      requestId,
    });
    return purchaseAnswer(outcome, { known: (tx) => ({ package: tx.planLabel }) });
  },
};
