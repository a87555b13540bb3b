/**
 * POST ?action=bulksms: sends `message` from `sender` to every recipient; answers how many
 * unique recipients were sent to and how many pages the message takes.
 */
import { type Action, accountOf } from './action.js';
import { FieldReader, idempotencyKey } from './params.js';
import { purchaseAnswer } from './views.js';

export const bulksms: Action = {
  method: 'POST',
  async handle({ caller, body, headers, core }) {
    const fields = new FieldReader(body);
    const sender = fields.string('sender');
    const recipients = fields.stringArray('recipients');
    const message = fields.string('message');
    const requestId = idempotencyKey(fields, body, headers);
    fields.done();

    const outcome = await core.purchase.sendBulkSms({ ...accountOf(caller), sender, recipients, message, requestId });
    return purchaseAnswer(outcome, { known: (tx) => ({ sent: tx.smsSent, pages: tx.smsPages }) });
  },
};
