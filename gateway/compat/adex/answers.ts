/**
 * The Adex family's answers (docs/compat.md, Adex paths): a lower-case `status` (`success`,
 * `fail`, or the token's in-flight word), the client's `request-id` echoed (the only reference
 * its software keeps), `message` and `msg` (one client reads each), and for electricity the
 * `token` a client shows its customer. The family's clients read nothing else of a purchase;
 * the rest (our `reference`, amounts, the balance after) is for a person reading the answer.
 */
import type { InFlightWord } from '../../../core/domain/compat.js';
import { Product, type Transaction, TransactionStatus } from '../../../gen/prepaid/v1/types_pb.js';
import { naira } from '../../actions/views.js';
import type { ApiError } from '../../errors.js';
import type { CompatAnswer } from '../dialect.js';

/** The family's word of a transaction's state. */
function statusWord(tx: Transaction, inFlight: InFlightWord): string {
  if (tx.status === TransactionStatus.SUCCESS) return 'success';
  if (tx.status === TransactionStatus.FAILED) return 'fail';
  return inFlight;
}

function messageOf(tx: Transaction): string {
  if (tx.status === TransactionStatus.SUCCESS) return 'Transaction successful.';
  if (tx.status === TransactionStatus.FAILED) {
    return tx.failureReason || 'The purchase failed; the wallet was refunded in full.';
  }
  return 'Transaction in progress; the final status follows by callback and on the record.';
}

/** One purchase as the family answers it; `requestId` is the client's, or "" to echo ours. */
export function purchaseAnswer(tx: Transaction, inFlight: InFlightWord, requestId: string): CompatAnswer {
  const failed = tx.status === TransactionStatus.FAILED;
  const message = messageOf(tx);
  const body: Record<string, unknown> = {
    status: statusWord(tx, inFlight),
    'request-id': requestId || tx.requestId || tx.reference,
    message,
    msg: message,
    reference: tx.reference,
    amount: naira(tx.chargedKobo),
    // A failed purchase was refunded: the wallet is back where it was.
    newbal: naira(failed ? tx.balanceAfterKobo + tx.chargedKobo : tx.balanceAfterKobo),
  };
  if (tx.product === Product.ELECTRICITY) {
    body['token'] = tx.token;
    body['units'] = tx.units;
  }
  // A failure after the debit is 400, like every other refusal; the family's clients read only `status`.
  return { status: failed ? 400 : 200, body };
}

/** The family's refusal: `status` `fail` and the reason, in both places clients read it. */
export function failAnswer(status: number, message: string, requestId?: string): CompatAnswer {
  const body: Record<string, unknown> = { status: 'fail' };
  if (requestId !== undefined && requestId !== '') body['request-id'] = requestId;
  body['message'] = message;
  body['msg'] = message;
  return { status, body };
}

/** Any refusal of ours or the core's, with every field problem in the one message. */
export function refusalAnswer(error: ApiError): CompatAnswer {
  const message =
    error.violations.length > 0 ? error.violations.map((v) => `${v.field}: ${v.message}`).join(' ') : error.message;
  if (error.key === 'NOT_FOUND') return failAnswer(404, message);
  if (error.status === 401 || error.status === 403 || error.status === 429 || error.status >= 500) {
    return failAnswer(error.status, message);
  }
  return failAnswer(400, message);
}
