/**
 * POST ?action=verify: who owns a meter (`disco`, `meter_number`, `meter_type`) or a cable
 * smart card (`provider`, `smart_card`), before paying for it. Which group applies, and
 * every field rule, is the core's to say; this only checks the JSON types. Nothing is
 * charged. An unknown number is the core's 404.
 *
 * Every answer has the same keys; what the provider did not tell is null:
 * {"status":"success","product":"electricity","service":"ikedc","customer_number":"...",
 *  "meter_type":"prepaid","customer_name":"...","address":"...","minimum_amount":1000,
 *  "arrears":null,"current_bouquet":null,"due_date":null,"renewal_amount":null}
 */
import { productWord } from '../../core/domain/words.js';
import { Product } from '../../gen/prepaid/v1/types_pb.js';
import { type Action, accountOf } from './action.js';
import { FieldReader } from './params.js';
import { naira } from './views.js';

/** The `verify` action. */
export const verify: Action = {
  method: 'POST',
  scope: 'verify',
  async handle({ caller, body, core }) {
    const fields = new FieldReader(body);
    const disco = fields.optionalString('disco');
    const meterNumber = fields.optionalString('meter_number');
    const meterType = fields.optionalString('meter_type');
    const provider = fields.optionalString('provider');
    const smartCard = fields.optionalString('smart_card');
    fields.done();

    const res = await core.purchase.verifyCustomer({
      ...accountOf(caller),
      disco,
      meterNumber,
      meterType,
      provider,
      smartCard,
    });
    const amount = (kobo: bigint | undefined) => (kobo === undefined ? null : naira(kobo));
    return {
      httpStatus: 200,
      body: {
        status: 'success',
        product: res.product === Product.ELECTRICITY || res.product === Product.CABLE ? productWord(res.product) : null,
        service: res.service,
        customer_number: res.customerNumber,
        meter_type: res.meterType === '' ? null : res.meterType,
        customer_name: res.customerName,
        address: res.address ?? null,
        minimum_amount: amount(res.minimumAmountKobo),
        arrears: amount(res.arrearsKobo),
        current_bouquet: res.currentBouquet ?? null,
        due_date: res.dueDate ?? null,
        renewal_amount: amount(res.renewalAmountKobo),
      },
    };
  },
};
