/**
 * ClubKonnect's failover rule (see core/providers/failover.ts), from ClubKonnect's documentation, where
 * every fact is (unsure): only an ORDER_ERROR on the purchase call (statuscode 400-499, or an
 * error name such as INVALID_CREDENTIALS without a statuscode) proves the order was refused
 * before processing; 412 INSUFFICIENT_APIAMOUNT is our ClubKonnect wallet running empty.
 * ORDER_RECEIVED (100, 199), ORDER_PROCESSED (300, 399), 201, ORDER_ONHOLD (6xx), a
 * cancellation (5xx: the order was taken, then cancelled), an HTML page (IP not whitelisted)
 * and anything else prove nothing.
 */
import { neverSent } from '../failover.js';
import type { CallEvidence } from '../port.js';

/** ORDER_ERROR names of the status table (codes 400-499), for answers that carry only `status`. */
export const ORDER_ERROR_NAMES: ReadonlySet<string> = new Set([
  'INVALID_CREDENTIALS',
  'MISSING_CREDENTIALS',
  'MISSING_USERID',
  'MISSING_APIKEY',
  'MISSING_MOBILENETWORK',
  'MISSING_AMOUNT',
  'INVALID_AMOUNT',
  'MINIMUM_100',
  'MINIMUM_50000',
  'INVALID_RECIPIENT',
  'INVALID_API_ERROR1',
  'INVALID_API_ERROR2',
  'INSUFFICIENT_APIAMOUNT',
  'INVALID_API',
  'INVALID_PAYMENT_OPTION',
  'INSUFFICIENT_APISTOREDEALERAMOUNT',
  'INSUFFICIENT_APISTOREAMOUNT',
  'INSUFFICIENT_BALANCE',
  'INVALID_MOBILENETWORK',
  'ORDER_ERROR',
]);

export function clubkonnectNotDelivered(evidence: CallEvidence): boolean {
  if (neverSent(evidence)) return true;
  if (evidence.kind !== 'answer' || !evidence.json || evidence.httpStatus < 200 || evidence.httpStatus >= 300)
    return false;
  if (evidence.code !== null) return /^4\d\d$/.test(evidence.code);
  return evidence.status !== null && ORDER_ERROR_NAMES.has(evidence.status);
}
