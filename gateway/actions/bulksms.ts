/**
 * POST ?action=bulksms: sends `message` from `sender` to every recipient; answers how many
 * unique recipients were sent to and how many pages the message takes.
 */
import { purchaseScope } from '../../core/domain/key-controls.js';
import { ZERO_KOBO } from '../../core/domain/money.js';
import { bulkSmsOrder } from '../../core/domain/orders.js';
import { soldProductWord } from '../../core/domain/words.js';
import { Product } from '../../gen/prepaid/v1/types_pb.js';
import { type Action, NO_PRICING, purchaserOf } from './action.js';
import { FieldReader, idempotencyKey } from './params.js';
import { purchaseAnswer } from './views.js';

export const bulksms: Action = {
  method: 'POST',
  scope: purchaseScope(soldProductWord(Product.BULK_SMS)),
  async handle({ caller, body, headers, core }) {
    const fields = new FieldReader(body);
    const sender = fields.string('sender');
    const recipients = fields.stringArray('recipients');
    const message = fields.string('message');
    const requestId = idempotencyKey(fields, body, headers);
    // A broken message is refused here (the core would see it mended to U+FFFD); the other
    // fields' problems are listed with it. The stand-in message passes the core's rules.
    fields.done(() =>
      bulkSmsOrder({ sender, recipients, message: fields.failed('message') ? 'x' : message }, ZERO_KOBO, NO_PRICING),
    );

    const outcome = await core.purchase.sendBulkSms({ ...purchaserOf(caller), sender, recipients, message, requestId });
    return purchaseAnswer(outcome, { known: (tx) => ({ sent: tx.smsSent, pages: tx.smsPages }) });
  },
};
