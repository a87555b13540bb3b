/**
 * VTpass's `POST pay` (docs/compat.md, VTpass) mapped onto the main API's purchase RPCs, with
 * their prices, limits, idempotency (`request_id` is the key) and money rules. The serviceID
 * names the product: airtime (`mtn`...), data (`mtn-data`..., `variation_code` our plan_id or
 * the account's alias), electricity (`ikeja-electric`..., `variation_code` prepaid or postpaid,
 * `billersCode` the meter), cable (`dstv`..., `variation_code` our package code, `billersCode`
 * the smart card, `subscription_type` change or renew, `quantity` months). A purchase the core
 * answers pending is waited for (wait.ts); still in flight when the wait runs out it is 099,
 * which VTpass's clients requery; a failed one was refunded by the core and is answered 016.
 */
import { allowsScope, purchaseScope, scopeDenied } from '../../../core/domain/key-controls.js';
import { CABLE_MAX_MONTHS, RENEWABLE_CABLE_PROVIDERS } from '../../../core/domain/products.js';
import { soldProductWord } from '../../../core/domain/words.js';
import { Product } from '../../../gen/prepaid/v1/types_pb.js';
import { purchaserOf } from '../../actions/action.js';
import type { PurchaseOutcome } from '../../actions/views.js';
import { type ApiError, keyScopeDenied, toApiError } from '../../errors.js';
import type { CompatAnswer, CompatRequest } from '../dialect.js';
import { bought } from '../wait.js';
import { purchaseAnswer } from './answers.js';
import { VtpassInput } from './input.js';
import { coded, vtpassRefusal } from './refusals.js';
import { serviceOf, type VtpassProduct, type VtpassService } from './services.js';

/** The longest request_id taken: the main API's idempotency keys (core/domain/validation.ts). */
const REQUEST_ID = /^[A-Za-z0-9_-]{1,64}$/;

/** Runs a purchase and answers it as VTpass would. */
async function answered(
  request: CompatRequest,
  requestId: string,
  buy: () => Promise<PurchaseOutcome>,
): Promise<CompatAnswer> {
  const { tx, failure } = await bought(request, buy);
  return tx === undefined ? payRefusal(failure) : purchaseAnswer(tx, requestId);
}

/**
 * A refusal of `pay`. VTpass's 015 ("invalid request id") is a requery's answer; a purchase's
 * order naming something we do not have is its 010 ("variation code does not exist").
 */
function payRefusal(error: ApiError): CompatAnswer {
  if (error.key === 'NOT_FOUND')
    return coded({ code: '010', description: 'VARIATION CODE DOES NOT EXIST' }, [error.message]);
  return vtpassRefusal(error);
}

/** `POST pay`: one purchase of the product the serviceID names. */
export async function pay(request: CompatRequest): Promise<CompatAnswer> {
  const input = new VtpassInput(request.body);
  const requestId = input.text('request_id', true);
  if (requestId !== '' && !REQUEST_ID.test(requestId)) {
    input.reject('request_id', 'request_id must be 1 to 64 letters, digits, dashes or underscores.');
  }
  const serviceText = input.text('serviceID', true);
  const service = serviceOf(serviceText);
  if (service === undefined) {
    if (serviceText === '') input.done();
    return coded({ code: '012', description: 'PRODUCT DOES NOT EXIST' }, [
      `serviceID ${serviceText} is not sold here.`,
    ]);
  }
  if (!allowsScope(request.caller.scopes, purchaseScope(soldProductWord(service.product)))) {
    return vtpassRefusal(keyScopeDenied(scopeDenied(purchaseScope(soldProductWord(service.product))).message));
  }
  try {
    const buy = BUY[service.product](request, input, service, requestId);
    input.done();
    return await answered(request, requestId, buy);
  } catch (error) {
    return payRefusal(toApiError(error, request.log));
  }
}

type Buy = (
  request: CompatRequest,
  input: VtpassInput,
  service: VtpassService,
  requestId: string,
) => () => Promise<PurchaseOutcome>;

const buyAirtime: Buy = (request, input, service, requestId) => {
  const phone = input.text('phone', true);
  const amountKobo = input.amountKobo('amount', true);
  return () =>
    request.core.purchase.buyAirtime({
      ...purchaserOf(request.caller),
      network: service.ours,
      phone,
      amountKobo: BigInt(amountKobo),
      requestId,
    });
};

/** Data: `billersCode` is the number to top up (VTpass's), else `phone`; `amount` is ignored, the plan sets it. */
const buyData: Buy = (request, input, _service, requestId) => {
  const phone = input.text('billersCode', false) || input.text('phone', true);
  const code = input.text('variation_code', true);
  // The account's alias first, then our own plan_id; anything else is refused, never guessed.
  const aliased = request.caller.planAliases.get(code);
  const planId = aliased ?? (/^[1-9]\d{0,14}$/.test(code) ? Number(code) : undefined);
  if (code !== '' && planId === undefined) input.reject('variation_code', `variation_code ${code} does not exist.`);
  return () =>
    request.core.purchase.buyData({ ...purchaserOf(request.caller), planId: BigInt(planId!), phone, requestId });
};

const buyElectricity: Buy = (request, input, service, requestId) => {
  const meterNumber = input.text('billersCode', true);
  const meterType = input.text('variation_code', true).toLowerCase();
  if (meterType !== '' && meterType !== 'prepaid' && meterType !== 'postpaid') {
    input.reject('variation_code', 'variation_code must be prepaid or postpaid.');
  }
  const amountKobo = input.amountKobo('amount', true);
  const phone = input.text('phone', false);
  return () =>
    request.core.purchase.payElectricity({
      ...purchaserOf(request.caller),
      disco: service.ours,
      meterNumber,
      meterType,
      amountKobo: BigInt(amountKobo),
      phone,
      requestId,
    });
};

/**
 * Cable: the bouquet's price is ours, so `amount` is not read. `subscription_type` `renew`
 * renews the card's current bouquet (DStv and GOtv; StarTimes has none: VTpass's documentation),
 * `change` (the default) buys the one named.
 */
const buyCable: Buy = (request, input, service, requestId) => {
  const smartCard = input.text('billersCode', true);
  const packageCode = input.text('variation_code', true);
  const phone = input.text('phone', false);
  const renewable = (RENEWABLE_CABLE_PROVIDERS as readonly string[]).includes(service.ours);
  const type = input.text('subscription_type', false).toLowerCase();
  if (type !== '' && type !== 'change' && type !== 'renew') {
    input.reject('subscription_type', 'subscription_type must be change or renew.');
  }
  const months = input.count('quantity', CABLE_MAX_MONTHS, 1);
  return () =>
    request.core.purchase.payCable({
      ...purchaserOf(request.caller),
      provider: service.ours,
      smartCard,
      packageCode,
      phone,
      requestId,
      subscriptionType: renewable ? type : '',
      months: input.raw('quantity') === undefined ? 0 : months,
    });
};

const BUY: Record<VtpassProduct, Buy> = {
  [Product.AIRTIME]: buyAirtime,
  [Product.DATA]: buyData,
  [Product.ELECTRICITY]: buyElectricity,
  [Product.CABLE]: buyCable,
};
