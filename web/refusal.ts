/**
 * A refusal from the core as a web page sees it: what kind it is and the core's own sentences,
 * the same for every web client of the core (dashboard/, console/).
 */
import { Code, ConnectError } from '@connectrpc/connect';
import { BadRequestSchema, ErrorInfoSchema } from '../gen/google/rpc/error_details_pb.js';

/** How a failed core call is shown: the kind decides the page, `fields` the messages beside fields. */
export interface CoreRefusal {
  /** `switched`: a form made for another account than the one the session acts for now (activeAccount). */
  kind: 'signed_out' | 'forbidden' | 'not_found' | 'invalid' | 'refused' | 'switched' | 'unavailable';
  /** The core's own sentence (never a stack): what to show. */
  message: string;
  /** Field name -> plain sentence, from the core's BadRequest. */
  fields: Map<string, string>;
  /** For `switched`: the account the session acts for now, as the core's ErrorInfo names it. */
  activeAccount?: { accountId: string; name: string };
  /** The contract's reason (ErrorInfo), for a page of its own: VERIFICATION_REQUIRED, say. */
  reason?: string;
}

/** Reads a failed call; anything that is not a ConnectError is a bug and is thrown on. */
export function refusalOf(error: unknown): CoreRefusal {
  if (!(error instanceof ConnectError)) throw error;
  const fields = new Map<string, string>();
  for (const detail of error.findDetails(BadRequestSchema)) {
    for (const violation of detail.fieldViolations)
      if (!fields.has(violation.field)) fields.set(violation.field, violation.description);
  }
  const message = error.rawMessage;
  const info = error.findDetails(ErrorInfoSchema)[0];
  const activeAccountId = info?.metadata['active_account_id'] ?? '';
  if (error.code === Code.FailedPrecondition && activeAccountId !== '') {
    const activeAccount = { accountId: activeAccountId, name: info?.metadata['active_account_name'] ?? '' };
    return { kind: 'switched', message, fields, activeAccount };
  }
  switch (error.code) {
    case Code.Unauthenticated:
      return { kind: 'signed_out', message, fields };
    case Code.PermissionDenied:
      return { kind: 'forbidden', message, fields, ...(info === undefined ? {} : { reason: info.reason }) };
    case Code.NotFound:
      return { kind: 'not_found', message, fields };
    case Code.InvalidArgument:
      return { kind: 'invalid', message, fields };
    case Code.FailedPrecondition:
    case Code.AlreadyExists:
    case Code.ResourceExhausted:
    case Code.OutOfRange:
      return { kind: 'refused', message, fields };
    default:
      return { kind: 'unavailable', message, fields };
  }
}
