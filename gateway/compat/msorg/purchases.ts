/**
 * The MSORG purchases (docs/compat.md): `POST /api/topup/`, `/api/data/`, `/api/billpayment/`
 * and `/api/cablesub/`, mapped onto the main API's purchase RPCs, with their prices, limits,
 * idempotency and money rules. A purchase the core answers pending is waited for (wait.ts);
 * a failed one was refunded by the core and is answered 400 with `Status: "failed"` (one
 * client of the family reads nothing but the HTTP status); one still in flight when the wait
 * runs out is 200 with the token's in-flight word.
 */
import { purchaseScope } from '../../../core/domain/key-controls.js';
import { soldProductWord } from '../../../core/domain/words.js';
import { Product, type Transaction, TransactionStatus } from '../../../gen/prepaid/v1/types_pb.js';
import { purchaserOf } from '../../actions/action.js';
import type { PurchaseOutcome } from '../../actions/views.js';
import type { CompatAnswer, CompatRequest } from '../dialect.js';
import { bought } from '../wait.js';
import { CABLE_IDS, DISCO_IDS, lookUp, meterTypeOf, NETWORK_IDS } from './ids.js';
import { amountOf, MsorgInput, portedFlag } from './input.js';
import { purchaseRecord, type RecordContext } from './records.js';

/** The MSORG purchase paths, by their first segment. */
export const PURCHASE_PRODUCTS = {
  topup: Product.AIRTIME,
  data: Product.DATA,
  billpayment: Product.ELECTRICITY,
  cablesub: Product.CABLE,
} as const;

export type PurchasePath = keyof typeof PURCHASE_PRODUCTS;

/** The scope a purchase path needs. */
export function purchasePathScope(path: PurchasePath): string {
  return purchaseScope(soldProductWord(PURCHASE_PRODUCTS[path]));
}

/** The client's idempotency key: `ident` (the family's), or `request-id` as some of its clients send. */
function identOf(input: MsorgInput): string {
  return input.text(['ident', 'request-id', 'request_id'], false);
}

/** Runs a purchase and answers it in the family's shape. */
async function answered(
  request: CompatRequest,
  context: RecordContext,
  buy: () => Promise<PurchaseOutcome>,
): Promise<CompatAnswer> {
  const { tx, failure } = await bought(request, buy);
  if (tx === undefined) {
    // The same key's first request is still being bought: in flight, as it is.
    if (failure.key === 'REQUEST_IN_PROGRESS') {
      return { status: 200, body: { Status: context.inFlight, ident: context.ident, api_response: failure.message } };
    }
    throw failure;
  }
  if (failure !== undefined) return failedAnswer(tx, context, failure.message);
  if (tx.status === TransactionStatus.FAILED) return failedAnswer(tx, context, tx.failureReason);
  return { status: 200, body: purchaseRecord(tx, context) };
}

function failedAnswer(tx: Transaction, context: RecordContext, message: string): CompatAnswer {
  const reason = message || 'The purchase failed; the wallet was refunded in full.';
  return { status: 400, body: { ...purchaseRecord(tx, context), error: [reason] } };
}

function contextOf(request: CompatRequest, input: MsorgInput): RecordContext {
  return {
    inFlight: request.caller.inFlight,
    ident: identOf(input),
    ported: portedFlag(input.raw('Ported_number', 'ported_number', 'bypass')),
    aliases: request.caller.planAliases,
  };
}

export async function buyTopup(request: CompatRequest): Promise<CompatAnswer> {
  const input = new MsorgInput(request.body);
  const network = lookUp(NETWORK_IDS, input.raw('network'));
  if (network === undefined)
    input.reject('network', 'A valid network id is required (1 MTN, 2 GLO, 3 9MOBILE, 4 AIRTEL).');
  const phone = input.text(['mobile_number', 'phone'], true);
  const amountKobo = amountOf(input, 'amount');
  const type = input.text('airtime_type', false);
  if (type !== '' && type.toUpperCase() !== 'VTU') input.reject('airtime_type', 'Only VTU airtime is sold here.');
  const context = contextOf(request, input);
  input.done();
  return answered(request, context, () =>
    request.core.purchase.buyAirtime({
      ...purchaserOf(request.caller),
      network: network!.ours,
      phone,
      amountKobo: BigInt(amountKobo),
      requestId: context.ident,
    }),
  );
}

export async function buyData(request: CompatRequest): Promise<CompatAnswer> {
  const input = new MsorgInput(request.body);
  const networkValue = input.raw('network');
  if (networkValue !== undefined && lookUp(NETWORK_IDS, networkValue) === undefined)
    input.reject('network', 'A valid network id is required (1 MTN, 2 GLO, 3 9MOBILE, 4 AIRTEL).');
  const phone = input.text(['mobile_number', 'phone'], true);
  const planText = input.text(['plan', 'data_plan'], true);
  // The account's alias first, then our own plan_id; anything else is refused, never guessed.
  const aliased = request.caller.planAliases.get(planText);
  const planId = aliased ?? (/^[1-9]\d{0,14}$/.test(planText) ? Number(planText) : undefined);
  if (planText !== '' && planId === undefined)
    input.reject('plan', `Invalid pk "${planText}" - object does not exist.`);
  const context = { ...contextOf(request, input), planAlias: aliased === undefined ? undefined : planText };
  input.done();
  return answered(request, context, () =>
    request.core.purchase.buyData({
      ...purchaserOf(request.caller),
      planId: BigInt(planId!),
      phone,
      requestId: context.ident,
    }),
  );
}

export async function payBill(request: CompatRequest): Promise<CompatAnswer> {
  const input = new MsorgInput(request.body);
  const disco = lookUp(DISCO_IDS, input.raw('disco_name', 'disco', 'disco_id'));
  if (disco === undefined) input.reject('disco_name', 'A valid disco id is required (1 to 10).');
  const meterNumber = input.text(['meter_number', 'meternumber'], true);
  const meterType = meterTypeOf(input.raw('MeterType', 'meter_type', 'mtype'));
  if (meterType === undefined) input.reject('MeterType', 'MeterType must be 1 (prepaid) or 2 (postpaid).');
  const amountKobo = amountOf(input, 'amount');
  const phone = input.text(['Customer_Phone', 'phone'], false);
  const context = contextOf(request, input);
  input.done();
  return answered(request, context, () =>
    request.core.purchase.payElectricity({
      ...purchaserOf(request.caller),
      disco: disco!.ours,
      meterNumber,
      meterType: meterType!,
      amountKobo: BigInt(amountKobo),
      phone,
      requestId: context.ident,
    }),
  );
}

export async function subscribeCable(request: CompatRequest): Promise<CompatAnswer> {
  const input = new MsorgInput(request.body);
  const cable = lookUp(CABLE_IDS, input.raw('cablename', 'cable_id'));
  if (cable === undefined) input.reject('cablename', 'A valid cable id is required (1 GOTV, 2 DSTV, 3 STARTIME).');
  const packageCode = input.text(['cableplan', 'cable_plan'], true);
  const smartCard = input.text(['smart_card_number', 'iuc'], true);
  const phone = input.text(['Customer_Phone', 'phone'], false);
  const context = contextOf(request, input);
  input.done();
  return answered(request, context, () =>
    request.core.purchase.payCable({
      ...purchaserOf(request.caller),
      provider: cable!.ours,
      smartCard,
      packageCode,
      phone,
      requestId: context.ident,
      subscriptionType: '',
      months: 0,
    }),
  );
}
