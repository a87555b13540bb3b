/**
 * Electricity and cable at ClubKonnect, from ClubKonnect's documentation
 * (https://www.clubkonnect.com/APIDocs.asp), where every fact is (unsure): ClubKonnect's own pages could not be read.
 *
 * - Electricity: `APIElectricityV1.asp` with ElectricCompany (our disco mapped below),
 *   MeterType 01 prepaid / 02 postpaid, MeterNo, Amount (whole naira), PhoneNo when the
 *   customer gave one (whether it is required is unknown). The purchase is answered
 *   ORDER_RECEIVED like any other; the token comes as `metertoken`, possibly empty until the
 *   order completes, so it is read from the query answer (and from a purchase answer that
 *   already completed); a completed prepaid order with it still empty stays pending
 *   (goodsMissing, core/domain/products.ts). No units field is documented: units are not
 *   shown for ClubKonnect.
 * - Cable: `APICableTVV1.asp` with CableTV (dstv, gotv, startimes), Package (ClubKonnect's
 *   code, mapped from ours below; one source only), SmartCardNo, PhoneNo. No months or
 *   renew/change parameter is documented, so only one month is sold here (more is left to an
 *   upstream that takes it: `sells` says no).
 * - Verify: `APIVerifyElectricityV1.asp` (ElectricCompany, MeterNo) and
 *   `APIVerifyCableTVV1.0.asp` (CableTV, SmartCardNo) answer `customer_name`. What an invalid
 *   number returns is not known: an empty name or one that says "invalid" is read as not
 *   found, any other answer without a name as unavailable.
 *
 * Failover is the kind's rule (failover.ts): only an ORDER_ERROR on the purchase call moves on.
 */
import type { DeliveryResult } from '../../domain/products.js';
import type { CustomerQuery, ProviderRequest, VerifyOutcome } from '../port.js';
import type { HttpAnswer } from '../upstream-http.js';
import { asObject } from '../vtpass/codes.js';
import { stsToken } from '../vtpass/electricity.js';

/** `ElectricCompany` codes: 01-09 from two sources, 10 Benin and 12 Aba from one (unsure). */
const CK_DISCOS: Readonly<Record<string, string>> = {
  ekedc: '01',
  ikedc: '02',
  aedc: '03',
  kedco: '04',
  phed: '05',
  jed: '06',
  ibedc: '07',
  kaedc: '08',
  eedc: '09',
  bedc: '10',
  aba: '12',
};

/** `CableTV` values (three sources agree). */
const CK_CABLE: ReadonlySet<string> = new Set(['dstv', 'gotv', 'startimes']);

/**
 * ClubKonnect's `Package` for our package codes (core/catalog/defaults.ts), from one source's
 * examples (unsure): DStv Compact is `dstv79`, Premium `dstv3`; StarTimes' codes are ours.
 */
const CK_PACKAGES: Readonly<Record<string, string>> = {
  'DSTV PADI': 'dstv-padi',
  'DSTV YANGA': 'dstv-yanga',
  'DSTV CONFAM': 'dstv-confam',
  'DSTV COMPACT': 'dstv79',
  'DSTV PREMIUM': 'dstv3',
  'GOTV SMALLIE': 'gotv-smallie',
  'GOTV JINJA': 'gotv-jinja',
  'GOTV JOLLI': 'gotv-jolli',
  'GOTV MAX': 'gotv-max',
  nova: 'nova',
  basic: 'basic',
  smart: 'smart',
  classic: 'classic',
  super: 'super',
};

/** A purchase's script and parameters, or why it cannot be sent here. */
export type CkBill = { ok: true; script: string; params: Record<string, string> } | { ok: false; reason: string };

const has = (table: Readonly<Record<string, string>>, key: string | undefined): key is string =>
  key !== undefined && Object.hasOwn(table, key);

/** Whether ClubKonnect can take this electricity or cable purchase at all (routes skip it otherwise). */
export function ckSellsBill(request: ProviderRequest): boolean {
  return (request.product === 'electricity' ? electricityParams(request) : cableParams(request)).ok;
}

export function electricityParams(request: ProviderRequest): CkBill {
  if (!has(CK_DISCOS, request.service))
    return { ok: false, reason: `The provider does not sell electricity for ${request.service}.` };
  if (request.faceValueKobo % 100 !== 0)
    return { ok: false, reason: 'The provider sells electricity in whole naira only.' };
  const meterType = request.details.meterType;
  if (meterType !== 'prepaid' && meterType !== 'postpaid') return { ok: false, reason: 'The meter type is missing.' };
  const phone = request.details.customerPhone;
  return {
    ok: true,
    script: 'APIElectricityV1.asp',
    params: {
      ElectricCompany: CK_DISCOS[request.service]!,
      MeterType: meterType === 'prepaid' ? '01' : '02',
      MeterNo: request.recipient,
      Amount: String(request.faceValueKobo / 100),
      ...(phone ? { PhoneNo: phone } : {}),
    },
  };
}

export function cableParams(request: ProviderRequest): CkBill {
  if (!CK_CABLE.has(request.service))
    return { ok: false, reason: `The provider does not sell ${request.service} subscriptions.` };
  const code = request.details.packageCode;
  if (!has(CK_PACKAGES, code)) return { ok: false, reason: `The provider does not sell the package ${code ?? '?'}.` };
  if ((request.details.months ?? 1) !== 1) return { ok: false, reason: 'The provider sells one month at a time.' };
  const phone = request.details.customerPhone;
  return {
    ok: true,
    script: 'APICableTVV1.asp',
    params: {
      CableTV: request.service,
      Package: CK_PACKAGES[code]!,
      SmartCardNo: request.recipient,
      ...(phone ? { PhoneNo: phone } : {}),
    },
  };
}

/** The verify script and parameters of a query; null when ClubKonnect cannot look it up. */
export function verifyParams(query: CustomerQuery): { script: string; params: Record<string, string> } | null {
  if (query.product === 'electricity') {
    if (!has(CK_DISCOS, query.service)) return null;
    return {
      script: 'APIVerifyElectricityV1.asp',
      params: { ElectricCompany: CK_DISCOS[query.service]!, MeterNo: query.number },
    };
  }
  if (!CK_CABLE.has(query.service)) return null;
  return { script: 'APIVerifyCableTVV1.0.asp', params: { CableTV: query.service, SmartCardNo: query.number } };
}

/** A verification answer: `customer_name` found; an empty or "invalid" name not found; anything else unavailable. */
export function readVerify(answer: HttpAnswer): VerifyOutcome {
  if (answer.kind === 'no_answer') return { kind: 'unavailable', reason: answer.reason };
  const body = answer.status === 200 ? asObject(answer.json) : undefined;
  if (body === undefined) return { kind: 'unavailable', reason: `the provider answered HTTP ${answer.status}` };
  const name = body['customer_name'];
  if (typeof name !== 'string') return { kind: 'unavailable', reason: 'no customer_name in the answer' };
  const clean = name.trim();
  if (clean === '' || /invalid/i.test(clean))
    return { kind: 'not_found', reason: 'The provider does not know this number.' };
  return { kind: 'found', customer: { customerName: clean.slice(0, 100) } };
}

/** What a completed electricity order shows: the prepaid token from `metertoken`, when it reads as one. */
export function electricityExtras(request: ProviderRequest, body: Record<string, unknown>): Partial<DeliveryResult> {
  if (request.product !== 'electricity' || request.details.meterType === 'postpaid') return {};
  const token = stsToken(body['metertoken']);
  return token === undefined ? {} : { token };
}
