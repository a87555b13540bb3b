/**
 * The Adex purchases (docs/compat.md, Adex paths): `POST /api/data/`, `/api/topup/`, `/api/bill`
 * and `/api/cable`, mapped onto the main API's purchase RPCs with their prices, limits,
 * idempotency (`request-id` is the key) and money rules. A purchase the core answers pending is
 * waited for (wait.ts); one still in flight when the wait runs out is 200 with the token's
 * in-flight word, which the family's clients take as failed (docs/compat.md says what that
 * costs), and told by the account's compat callback once it settles.
 */
import { purchaseScope } from '../../../core/domain/key-controls.js';
import { soldProductWord } from '../../../core/domain/words.js';
import { Product } from '../../../gen/prepaid/v1/types_pb.js';
import { purchaserOf } from '../../actions/action.js';
import type { PurchaseOutcome } from '../../actions/views.js';
import type { CompatAnswer, CompatRequest } from '../dialect.js';
import { lookUp, meterTypeOf } from '../msorg/ids.js';
import { amountOf, MsorgInput } from '../msorg/input.js';
import { bought } from '../wait.js';
import { failAnswer, purchaseAnswer, refusalAnswer } from './answers.js';
import { CABLE_FIELD, CABLE_IDS, DISCO_IDS, NETWORK_IDS } from './ids.js';

/** The Adex purchase paths, by their first segment. */
export const PURCHASE_PRODUCTS = {
  topup: Product.AIRTIME,
  data: Product.DATA,
  bill: Product.ELECTRICITY,
  cable: Product.CABLE,
} as const;

export type PurchasePath = keyof typeof PURCHASE_PRODUCTS;

/** The scope a purchase path needs. */
export function purchasePathScope(path: PurchasePath): string {
  return purchaseScope(soldProductWord(PURCHASE_PRODUCTS[path]));
}

const NETWORK_HELP = 'A valid network id is required (1 MTN, 2 AIRTEL, 3 GLO, 4 9MOBILE).';

/** The client's idempotency key: `request-id`, the family's, or its other spellings. */
const requestIdOf = (input: MsorgInput) => input.text(['request-id', 'request_id', 'requestId'], false);

/**
 * Runs a purchase and answers it in the family's shape; every refusal, before the purchase or
 * from the core, echoes the client's `request-id` too.
 */
async function answered(
  request: CompatRequest,
  input: MsorgInput,
  buy: (requestId: string) => Promise<PurchaseOutcome>,
): Promise<CompatAnswer> {
  const requestId = requestIdOf(input);
  const inFlight = request.caller.inFlight;
  const { tx, failure } = await bought(request, async () => {
    input.done();
    return buy(requestId);
  });
  if (tx !== undefined) return purchaseAnswer(tx, inFlight, requestId);
  // The same key's first request is still being bought: in flight, as it is.
  if (failure.key === 'REQUEST_IN_PROGRESS') {
    return {
      status: 200,
      body: { status: inFlight, 'request-id': requestId, message: failure.message, msg: failure.message },
    };
  }
  if (failure.status >= 500) throw failure;
  const refused = refusalAnswer(failure);
  return failAnswer(refused.status, (refused.body as { message: string }).message, requestId);
}

export function buyTopup(request: CompatRequest): Promise<CompatAnswer> {
  const input = new MsorgInput(request.body);
  const network = lookUp(NETWORK_IDS, input.raw('network'));
  if (network === undefined) input.reject('network', NETWORK_HELP);
  const phone = input.text(['phone', 'mobile_number'], true);
  const amountKobo = amountOf(input, 'amount');
  const type = input.text(['plan_type', 'airtime_type'], false);
  if (type !== '' && type.toUpperCase() !== 'VTU') input.reject('plan_type', 'Only VTU airtime is sold here.');
  return answered(request, input, (requestId) =>
    request.core.purchase.buyAirtime({
      ...purchaserOf(request.caller),
      network: network!.ours,
      phone,
      amountKobo: BigInt(amountKobo),
      requestId,
    }),
  );
}

export function buyData(request: CompatRequest): Promise<CompatAnswer> {
  const input = new MsorgInput(request.body);
  const networkValue = input.raw('network');
  if (networkValue !== undefined && lookUp(NETWORK_IDS, networkValue) === undefined) {
    input.reject('network', NETWORK_HELP);
  }
  const phone = input.text(['phone', 'mobile_number'], true);
  const planText = input.text(['data_plan', 'plan'], true);
  // The account's alias first, then our own plan_id; anything else is refused, never guessed.
  const planId =
    request.caller.planAliases.get(planText) ?? (/^[1-9]\d{0,14}$/.test(planText) ? Number(planText) : undefined);
  if (planText !== '' && planId === undefined) input.reject('data_plan', `Invalid data plan "${planText}".`);
  return answered(request, input, (requestId) =>
    request.core.purchase.buyData({ ...purchaserOf(request.caller), planId: BigInt(planId!), phone, requestId }),
  );
}

export function payBill(request: CompatRequest): Promise<CompatAnswer> {
  const input = new MsorgInput(request.body);
  const disco = lookUp(DISCO_IDS, input.raw('disco', 'disco_id', 'disco_name'));
  if (disco === undefined) input.reject('disco', 'A valid disco id is required (1 to 10).');
  const meterNumber = input.text(['meter_number', 'meternumber'], true);
  const meterType = meterTypeOf(input.raw('meter_type', 'MeterType', 'mtype'));
  if (meterType === undefined) input.reject('meter_type', 'meter_type must be 1 or prepaid, 2 or postpaid.');
  const amountKobo = amountOf(input, 'amount');
  const phone = input.text(['phone', 'Customer_Phone'], false);
  return answered(request, input, (requestId) =>
    request.core.purchase.payElectricity({
      ...purchaserOf(request.caller),
      disco: disco!.ours,
      meterNumber,
      meterType: meterType!,
      amountKobo: BigInt(amountKobo),
      phone,
      requestId,
    }),
  );
}

export function subscribeCable(request: CompatRequest): Promise<CompatAnswer> {
  const input = new MsorgInput(request.body);
  const cable = lookUp(CABLE_IDS, input.raw(CABLE_FIELD, 'cable_id', 'cablename'));
  if (cable === undefined) input.reject(CABLE_FIELD, 'A valid cable id is required (1 GOTV, 2 DSTV, 3 STARTIME).');
  const packageCode = input.text(['cable_plan', 'cableplan'], true);
  const smartCard = input.text(['iuc', 'smart_card_number'], true);
  const phone = input.text(['phone', 'Customer_Phone'], false);
  return answered(request, input, (requestId) =>
    request.core.purchase.payCable({
      ...purchaserOf(request.caller),
      provider: cable!.ours,
      smartCard,
      packageCode,
      phone,
      requestId,
      subscriptionType: '',
      months: 0,
    }),
  );
}
