/**
 * Failover only on proven non-delivery. Each adapter reports what happened on a
 * purchase call as CallEvidence; one pure rule per adapter kind reads it and says whether the
 * upstream provably did not deliver, so the purchase may move to the next upstream. Anything
 * else (a time-out, a reset, a 5xx, an answer that cannot be parsed, a pending answer, a code
 * not on the kind's list) is not proof: the purchase stays where it is and is re-queried there,
 * so one purchase has at most one upstream that could have delivered it.
 *
 * A rule turns an adapter's `unknown` into a failure in one place only: at a route's last
 * upstream, when every upstream of the route provably did not deliver, the purchase fails and
 * is refunded (core/purchases/upstream-calls.ts). Otherwise the adapter's own outcome stands.
 * The rules per kind are in failover-rules.ts.
 */

import { neverWritten } from '../../runtime/outbound-http.js';
import type { CallEvidence } from './port.js';
import type { HttpAnswer } from './upstream-http.js';

/** True when the evidence proves the upstream did not deliver (the purchase may move on). */
export type FailoverRule = (evidence: CallEvidence) => boolean;

/** The evidence of one HTTP exchange, given what the adapter read from the answer's body. */
export function evidenceOf(
  answer: HttpAnswer,
  read: { code: string | null; status: string | null } | undefined,
): CallEvidence {
  if (answer.kind === 'no_answer') {
    const cause = answer.cause;
    return neverWritten(cause) ? { kind: 'not_sent', cause } : { kind: 'no_answer', cause };
  }
  const json = answer.json !== null && typeof answer.json === 'object' && !Array.isArray(answer.json);
  return {
    kind: 'answer',
    httpStatus: answer.status,
    json,
    code: json ? (read?.code ?? null) : null,
    status: json ? (read?.status ?? null) : null,
  };
}

/** The part every rule shares: a request never written proves non-delivery. */
export function neverSent(evidence: CallEvidence): boolean {
  return evidence.kind === 'not_sent';
}
