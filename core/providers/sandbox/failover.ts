/**
 * The sandbox's failover rule (see core/providers/failover.ts). The sandbox runs in this
 * process: its only proven non-delivery is its `declined` answer (numbers ending in 9999);
 * its "no answer" scenarios (8888, 7777) are time-outs and never move on.
 */
import { neverSent } from '../failover.js';
import type { CallEvidence } from '../port.js';

/** The code the sandbox reports with its decline. */
export const SANDBOX_DECLINED = 'declined';

export function sandboxNotDelivered(evidence: CallEvidence): boolean {
  if (neverSent(evidence)) return true;
  return evidence.kind === 'answer' && evidence.code === SANDBOX_DECLINED;
}
