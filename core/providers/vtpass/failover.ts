/**
 * VTpass's failover rule (see core/providers/failover.ts): besides a request never written,
 * only a `pay` answer refused at the door proves non-delivery: 091 (not processed, not
 * charged), 018 (our VTpass wallet is low), 021-024 and 027 (our account locked, suspended,
 * without API access, inactive, IP not whitelisted), and the refusals of the request itself
 * before processing (010-013, 017, 028, 034, 035: plan, arguments, product, amount limits,
 * product or service off at VTpass), which another upstream may well accept.
 *
 * Not on the list though final: 016 (VTpass processed the purchase and it failed; its facts
 * do not say the biller never saw it) and 019 (a likely duplicate: moving it elsewhere would
 * defeat the guard). Both stay failed and refunded as today, without failover.
 */
import { neverSent } from '../failover.js';
import type { CallEvidence } from '../port.js';

/** `pay` codes that mean "refused before processing". */
const REFUSED_AT_THE_DOOR = new Set([
  '091',
  '018',
  '021',
  '022',
  '023',
  '024',
  '027',
  '010',
  '011',
  '012',
  '013',
  '017',
  '028',
  '034',
  '035',
]);

export function vtpassNotDelivered(evidence: CallEvidence): boolean {
  if (neverSent(evidence)) return true;
  if (evidence.kind !== 'answer' || !evidence.json || evidence.code === null) return false;
  // VTpass's application answers come as 2xx or 4xx; a 5xx came from in front of it.
  if (
    evidence.httpStatus >= 500 ||
    evidence.httpStatus < 200 ||
    (evidence.httpStatus >= 300 && evidence.httpStatus < 400)
  )
    return false;
  // A refusal code next to a transaction status other than failed is a contradiction.
  if (evidence.status !== null && evidence.status !== 'failed') return false;
  return REFUSED_AT_THE_DOOR.has(evidence.code);
}
