/**
 * POST ?action=cable: pays the cable package `package_code` on a smart card; answers the
 * package name. DStv and GOtv payments renew the card's current bouquet or change it
 * (`subscription_type`, by default renew when the package is the current bouquet) and may
 * pay for up to 12 `months`; the answer says which was done and for how many months.
 */
import { purchaseScope } from '../../core/domain/key-controls.js';
import { soldProductWord } from '../../core/domain/words.js';
import { Product } from '../../gen/prepaid/v1/types_pb.js';
import { type Action, purchaserOf } from './action.js';
import { FieldReader, idempotencyKey } from './params.js';
import { purchaseAnswer } from './views.js';

export const cable: Action = {
  method: 'POST',
  scope: purchaseScope(soldProductWord(Product.CABLE)),
  async handle({ caller, body, headers, core }) {
    const fields = new FieldReader(body);
    const provider = fields.string('provider');
    const smartCard = fields.string('smart_card');
    const packageCode = fields.string('package_code');
    const phone = fields.optionalString('phone');
    const subscriptionType = fields.optionalString('subscription_type');
    const months = fields.optionalInteger('months');
    // 0 is the core's "not given": a caller's explicit 0 is out of range, not the default.
    if (months !== undefined && months < 1) fields.reject('months', 'months must be a whole number from 1 to 12.');
    const requestId = idempotencyKey(fields, body, headers);
    fields.done();

    const outcome = await core.purchase.payCable({
      ...purchaserOf(caller),
      provider,
      smartCard,
      packageCode,
      phone,
      requestId,
      subscriptionType,
      // Past int32 is out of range anyway; the core says so with its own message.
      months: months === undefined ? 0 : Math.min(months, 2 ** 31 - 1),
    });
    return purchaseAnswer(outcome, {
      known: (tx) => ({
        package: tx.planLabel,
        subscription_type: tx.subscriptionType === '' ? null : tx.subscriptionType,
        months: tx.months,
      }),
    });
  },
};
