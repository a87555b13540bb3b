/**
 * Electricity at a ported-number family site, from the family's documentation
 * (https://documenter.getpostman.com/view/10645604/TVKHVFW7; docs/upstreams.md). The disco and meter type ids
 * are Husmodata's (its client's enums); other sites are (unsure).
 *
 * - Verify: `GET /api/validatemeter?meternumber=&disconame=<disco id>&mtype=<1|2>`; the answer's
 *   `invalid: true` means the number was not recognised (unsure), `name` and `address` are the
 *   customer's.
 * - Buy: `POST /api/billpayment/` `{"disco_name","amount","meter_number","MeterType"}`; the
 *   answer is a purchase record whose `Status` decides as for data, and whose `token` is a
 *   display string ("Token : 2636 ..."): read as a 20-digit STS token or left out (a prepaid
 *   record without one stays pending: goodsMissing, core/domain/products.ts). No units are
 *   in the one published sample, so none are shown.
 * - Re-query: as for data (requery.ts), by the record's id `GET /api/billpayment/{id}`, else by
 *   our reference in the `ident` of the history list `GET /api/billpayment/` (whether sites
 *   keep `ident` on bill payments is unsure; not found stays pending).
 *
 * Cable (`/api/cablesub/`) is not sold here: its `cableplan` is a site-specific id from the
 * site's `Cableplan` list, whose entries no source shows.
 */
import type { DeliveryResult } from '../../domain/products.js';
import type { CustomerQuery, ProviderRequest, VerifyOutcome } from '../port.js';
import type { HttpAnswer } from '../upstream-http.js';
import { asObject } from '../vtpass/codes.js';
import { stsToken } from '../vtpass/electricity.js';

/** Husmodata's disco ids (its client's DiscoEnum); Yola and Aba are not listed there. */
const SITE_DISCOS: Readonly<Record<string, number>> = {
  ikedc: 1,
  ekedc: 2,
  aedc: 3,
  kedco: 4,
  eedc: 5,
  phed: 6,
  ibedc: 7,
  kaedc: 8,
  jed: 9,
  bedc: 10,
};

const discoId = (service: string): number | undefined =>
  Object.hasOwn(SITE_DISCOS, service) ? SITE_DISCOS[service] : undefined;

/** The billpayment body of a purchase, or why it cannot be sent to the site. */
export function billBody(
  request: ProviderRequest,
): { ok: true; body: Record<string, unknown> } | { ok: false; reason: string } {
  const disco = discoId(request.service);
  if (disco === undefined)
    return { ok: false, reason: `The provider does not sell electricity for ${request.service}.` };
  if (request.faceValueKobo % 100 !== 0)
    return { ok: false, reason: 'The provider sells electricity in whole naira only.' };
  const meterType = request.details.meterType;
  if (meterType !== 'prepaid' && meterType !== 'postpaid') return { ok: false, reason: 'The meter type is missing.' };
  return {
    ok: true,
    body: {
      disco_name: disco,
      amount: request.faceValueKobo / 100,
      meter_number: request.recipient,
      MeterType: meterType === 'prepaid' ? 1 : 2,
    },
  };
}

/** Whether the site can take this electricity purchase at all (routes skip it otherwise). */
export function siteSellsBill(request: ProviderRequest): boolean {
  return request.product === 'electricity' && billBody(request).ok;
}

/** The validatemeter path and query of a meter look-up; null for what the site cannot look up. */
export function validateMeterPath(query: CustomerQuery): string | null {
  if (query.product !== 'electricity') return null;
  const disco = discoId(query.service);
  if (disco === undefined) return null;
  const params = new URLSearchParams({
    meternumber: query.number,
    disconame: String(disco),
    mtype: query.meterType === 'prepaid' ? '1' : '2',
  });
  return `validatemeter?${params.toString()}`;
}

/** A validatemeter answer: `invalid: false` with a name found, `invalid: true` not found, anything else unavailable. */
export function readValidateMeter(answer: HttpAnswer): VerifyOutcome {
  if (answer.kind === 'no_answer') return { kind: 'unavailable', reason: answer.reason };
  const body = answer.status === 200 ? asObject(answer.json) : undefined;
  if (body === undefined) return { kind: 'unavailable', reason: `the provider answered HTTP ${answer.status}` };
  if (body['invalid'] === true) return { kind: 'not_found', reason: 'The provider does not know this meter.' };
  const name = body['name'];
  if (body['invalid'] !== false || typeof name !== 'string' || name.trim() === '')
    return { kind: 'unavailable', reason: 'no customer name in the answer' };
  const address = body['address'];
  return {
    kind: 'found',
    customer: {
      customerName: name.trim().slice(0, 100),
      ...(typeof address === 'string' && address.trim() !== '' ? { address: address.trim().slice(0, 200) } : {}),
    },
  };
}

/** What a delivered electricity record shows: its prepaid token, when it reads as one. */
export function billExtras(request: ProviderRequest, record: Record<string, unknown>): Partial<DeliveryResult> {
  if (request.product !== 'electricity' || request.details.meterType === 'postpaid') return {};
  const token = stsToken(record['token']);
  return token === undefined ? {} : { token };
}
