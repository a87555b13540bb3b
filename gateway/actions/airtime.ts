/** POST ?action=airtime: buys airtime of `amount` Naira on `network` for `phone`. */
import { type Action, accountOf } from './action.js';
import { FieldReader, idempotencyKey } from './params.js';
import { purchaseAnswer } from './views.js';

export const airtime: Action = {
  method: 'POST',
  async handle({ caller, body, headers, core }) {
    const fields = new FieldReader(body);
    const network = fields.string('network');
    const phone = fields.string('phone');
    const amountKobo = fields.amount('amount');
    const requestId = idempotencyKey(fields, body, headers);
    fields.done();

    const outcome = await core.purchase.buyAirtime({
      ...accountOf(caller),
      network,
      phone,
      amountKobo: BigInt(amountKobo),
      requestId,
    });
    return purchaseAnswer(outcome);
  },
};
