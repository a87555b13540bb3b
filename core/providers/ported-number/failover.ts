/**
 * The ported-number family's failover rule (see core/providers/failover.ts), from its facts
 * file: HTTP 400 with a JSON body (the site's validation and balance errors, raised before it
 * sends anything upstream: unsure, from the script source only), 401 and 403 (not
 * authenticated), 404 on the purchase path (wrong base URL) and a 2xx `Status: "failed"` prove
 * non-delivery. A 2xx `successful`, `processing` or `pending`, a 2xx without `Status`, a 5xx,
 * an HTML page, a time-out or a reset prove nothing.
 */
import { neverSent } from '../failover.js';
import type { CallEvidence } from '../port.js';

export function portedNumberNotDelivered(evidence: CallEvidence): boolean {
  if (neverSent(evidence)) return true;
  if (evidence.kind !== 'answer') return false;
  const http = evidence.httpStatus;
  if (http === 401 || http === 403 || http === 404) return true;
  if (http === 400) return evidence.json;
  return http >= 200 && http < 300 && evidence.json && evidence.status === 'failed';
}
