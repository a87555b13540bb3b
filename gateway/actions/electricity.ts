/**
 * POST ?action=electricity: pays `amount` Naira to a meter. A delivered prepaid payment
 * answers the token and units, and the key-change and bonus tokens that came with it (arrays,
 * possibly empty); a postpaid one has no token or units, and answers them as null.
 */
import { purchaseScope } from '../../core/domain/key-controls.js';
import { ELECTRICITY_MIN_KOBO, electricityOrder } from '../../core/domain/orders.js';
import { soldProductWord } from '../../core/domain/words.js';
import { Product } from '../../gen/prepaid/v1/types_pb.js';
import { type Action, NO_PRICING, purchaserOf } from './action.js';
import { FieldReader, idempotencyKey } from './params.js';
import { purchaseAnswer } from './views.js';

export const electricity: Action = {
  method: 'POST',
  scope: purchaseScope(soldProductWord(Product.ELECTRICITY)),
  async handle({ caller, body, headers, core }) {
    const fields = new FieldReader(body);
    const disco = fields.string('disco');
    const meterNumber = fields.string('meter_number');
    const meterType = fields.string('meter_type');
    const amountKobo = fields.amount('amount');
    const phone = fields.optionalString('phone');
    const requestId = idempotencyKey(fields, body, headers);
    fields.done(() =>
      electricityOrder(
        {
          disco,
          meterNumber,
          meterType,
          phone,
          amountKobo: fields.failed('amount') ? ELECTRICITY_MIN_KOBO : amountKobo,
        },
        NO_PRICING,
      ),
    );

    const outcome = await core.purchase.payElectricity({
      ...purchaserOf(caller),
      disco,
      meterNumber,
      meterType,
      amountKobo: BigInt(amountKobo),
      phone,
      requestId,
    });
    return purchaseAnswer(outcome, {
      delivered: (tx) => ({
        token: tx.token === '' ? null : tx.token,
        units: tx.units === '' ? null : tx.units,
        kct_tokens: [...tx.kctTokens],
        bonus_tokens: [...tx.bonusTokens],
      }),
    });
  },
};
