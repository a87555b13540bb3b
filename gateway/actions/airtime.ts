/** POST ?action=airtime: buys airtime of `amount` Naira on `network` for `phone`. */
import { purchaseScope } from '../../core/domain/key-controls.js';
import { AIRTIME_MIN_KOBO, airtimeOrder } from '../../core/domain/orders.js';
import { soldProductWord } from '../../core/domain/words.js';
import { Product } from '../../gen/prepaid/v1/types_pb.js';
import { type Action, NO_PRICING, purchaserOf } from './action.js';
import { FieldReader, idempotencyKey } from './params.js';
import { purchaseAnswer } from './views.js';

export const airtime: Action = {
  method: 'POST',
  scope: purchaseScope(soldProductWord(Product.AIRTIME)),
  async handle({ caller, body, headers, core }) {
    const fields = new FieldReader(body);
    const network = fields.string('network');
    const phone = fields.string('phone');
    const amountKobo = fields.amount('amount');
    const requestId = idempotencyKey(fields, body, headers);
    fields.done(() =>
      airtimeOrder({ network, phone, amountKobo: fields.failed('amount') ? AIRTIME_MIN_KOBO : amountKobo }, NO_PRICING),
    );

    const outcome = await core.purchase.buyAirtime({
      ...purchaserOf(caller),
      network,
      phone,
      amountKobo: BigInt(amountKobo),
      requestId,
    });
    return purchaseAnswer(outcome);
  },
};
