/**
 * VTpass's reads (docs/compat.md, VTpass): `POST requery` (a purchase by the client's
 * request_id, in the `pay` answer's shape; 015 for an id not known), `GET service-variations`
 * (a service's plans or bouquets at the account's prices), `POST merchant-verify` (who owns a
 * meter or smart card) and `GET balance` (`{"code":1,"contents":{"balance":...}}`, VTpass's
 * numeric 1).
 */
import { canonicalNetwork } from '../../../core/domain/products.js';
import { Product } from '../../../gen/prepaid/v1/types_pb.js';
import { accountOf } from '../../actions/action.js';
import { int64, naira } from '../../actions/views.js';
import { toApiError } from '../../errors.js';
import type { CompatAnswer, CompatRequest } from '../dialect.js';
import { purchaseAnswer } from './answers.js';
import { VtpassInput } from './input.js';
import { coded, vtpassRefusal } from './refusals.js';
import { serviceOf, type VtpassService } from './services.js';

const NO_SUCH_SERVICE = { code: '012', description: 'PRODUCT DOES NOT EXIST' } as const;
const INVALID_REQUEST_ID = { code: '015', description: 'INVALID REQUEST ID' } as const;

/** A POST's fields, or a GET's query (clients of either kind exist for the reads). */
const inputOf = (request: CompatRequest) => new VtpassInput(request.method === 'GET' ? request.query : request.body);

/** Naira as VTpass writes a variation's amount: "470.00". */
const nairaText = (valueKobo: bigint) => naira(valueKobo).toFixed(2);

/** `POST requery`: the purchase made with this request_id, as `pay` answered it, or 015. */
export async function requery(request: CompatRequest): Promise<CompatAnswer> {
  const requestId = inputOf(request).text('request_id', false);
  if (!/^[A-Za-z0-9_-]{1,64}$/.test(requestId)) return coded(INVALID_REQUEST_ID, ['request_id is not known.']);
  try {
    const res = await request.core.purchase.getTransaction({ ...accountOf(request.caller), requestId });
    if (res.transaction === undefined) return coded(INVALID_REQUEST_ID, ['request_id is not known.']);
    return purchaseAnswer(res.transaction, requestId);
  } catch (error) {
    return vtpassRefusal(toApiError(error, request.log));
  }
}

/** One variation as VTpass lists it. */
const variation = (code: string, name: string, amountKobo: bigint, fixed: boolean) => ({
  variation_code: code,
  name,
  variation_amount: nairaText(amountKobo),
  fixedPrice: fixed ? 'Yes' : 'No',
});

/** A service's variations: data plans by the id clients send (the alias first), bouquets, or the meter types. */
async function variationsOf(request: CompatRequest, service: VtpassService): Promise<unknown[]> {
  const account = accountOf(request.caller);
  switch (service.product) {
    case Product.DATA: {
      const aliasOf = new Map<number, string>();
      for (const [alias, planId] of request.caller.planAliases) aliasOf.set(planId, alias);
      const { plans } = await request.core.purchase.listPlans({ ...account, network: service.ours, planType: '' });
      return plans
        .filter((plan) => canonicalNetwork(plan.network) === service.ours)
        .map((plan) => {
          const planId = int64(plan.planId);
          return variation(aliasOf.get(planId) ?? String(planId), plan.label, plan.priceKobo, true);
        });
    }
    case Product.CABLE: {
      const { packages } = await request.core.purchase.listPackages({ ...account, provider: service.ours });
      return packages.map((p) => variation(p.packageCode, p.name, p.priceKobo, true));
    }
    case Product.ELECTRICITY:
      return [variation('prepaid', 'Prepaid', 0n, false), variation('postpaid', 'Postpaid', 0n, false)];
    default:
      // Airtime is any amount: VTpass lists no variations for it.
      return [];
  }
}

/** `GET service-variations?serviceID=`: VTpass's sample shape, `response_description` "000" and no `code`. */
export async function serviceVariations(request: CompatRequest): Promise<CompatAnswer> {
  const serviceText = inputOf(request).text('serviceID', false);
  const service = serviceOf(serviceText);
  if (service === undefined) return coded(NO_SUCH_SERVICE, [`serviceID ${serviceText} is not sold here.`]);
  try {
    const variations = await variationsOf(request, service);
    return {
      status: 200,
      body: {
        response_description: '000',
        content: {
          ServiceName: service.productName,
          serviceID: service.serviceID,
          convinience_fee: '0 %',
          variations,
        },
      },
    };
  } catch (error) {
    return vtpassRefusal(toApiError(error, request.log));
  }
}

/**
 * `POST merchant-verify`: `billersCode`, `serviceID`, and `type` (prepaid or postpaid) for a
 * meter. A number no one owns is `000` with `content.WrongBillersCode` true and `content.error`,
 * as VTpass answers it.
 */
export async function merchantVerify(request: CompatRequest): Promise<CompatAnswer> {
  const input = inputOf(request);
  const number = input.text('billersCode', true);
  const serviceText = input.text('serviceID', true);
  const service = serviceOf(serviceText);
  const meterType = input.text('type', false).toLowerCase();
  try {
    input.done();
    if (service === undefined || (service.product !== Product.ELECTRICITY && service.product !== Product.CABLE)) {
      return coded(NO_SUCH_SERVICE, [`serviceID ${serviceText} has no customers to verify.`]);
    }
    const electricity = service.product === Product.ELECTRICITY;
    if (electricity && meterType !== 'prepaid' && meterType !== 'postpaid') {
      input.reject('type', 'type must be prepaid or postpaid.');
      input.done();
    }
    const res = await request.core.purchase
      .verifyCustomer({
        ...accountOf(request.caller),
        disco: electricity ? service.ours : '',
        meterNumber: electricity ? number : '',
        meterType: electricity ? meterType : '',
        provider: electricity ? '' : service.ours,
        smartCard: electricity ? '' : number,
      })
      .catch((error: unknown) => {
        const apiError = toApiError(error, request.log);
        if (apiError.key === 'NOT_FOUND') return undefined;
        throw apiError;
      });
    if (res === undefined) {
      return {
        status: 200,
        body: { code: '000', content: { error: 'This number is not known to the biller.', WrongBillersCode: true } },
      };
    }
    const content: Record<string, unknown> = {
      Customer_Name: res.customerName,
      ...(res.address === undefined ? {} : { Address: res.address }),
    };
    if (electricity) {
      Object.assign(content, {
        Meter_Number: res.customerNumber,
        Meter_Type: res.meterType.toUpperCase(),
        ...(res.minimumAmountKobo === undefined ? {} : { Min_Purchase_Amount: naira(res.minimumAmountKobo) }),
        ...(res.arrearsKobo === undefined ? {} : { Customer_Arrears: naira(res.arrearsKobo) }),
        Can_Vend: 'yes',
      });
    } else {
      Object.assign(content, {
        Customer_Number: res.customerNumber,
        ...(res.currentBouquet === undefined ? {} : { Current_Bouquet: res.currentBouquet }),
        ...(res.dueDate === undefined ? {} : { Due_Date: res.dueDate }),
        ...(res.renewalAmountKobo === undefined ? {} : { Renewal_Amount: naira(res.renewalAmountKobo) }),
      });
    }
    content['WrongBillersCode'] = false;
    return { status: 200, body: { code: '000', content } };
  } catch (error) {
    return vtpassRefusal(toApiError(error, request.log));
  }
}

/** `GET balance`: the wallet's balance in naira, under VTpass's numeric code 1. */
export async function balance(request: CompatRequest): Promise<CompatAnswer> {
  const res = await request.core.purchase.getBalance(accountOf(request.caller));
  return { status: 200, body: { code: 1, contents: { balance: naira(res.balanceKobo) } } };
}
