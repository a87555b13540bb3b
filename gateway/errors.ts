/**
 * The one table from an error to its HTTP answer. Errors come from two places: the core
 * (a gRPC status whose google.rpc.ErrorInfo reason is one of our ErrorCodes) and the
 * gateway's own pipeline (missing keys, rate limits, bad JSON). Both are rows of
 * ERROR_TABLE, so every status, public code and message the API can answer is in one
 * place. The core's reasons are the contract's (prepaid.v1.ErrorReason), and the compiler
 * insists every one of them has a row.
 *
 * Nothing here maps by message text, and nothing internal reaches a body: a core message is
 * passed on only for the reasons whose messages are written for callers (parameter and
 * not-found errors), and unexpected faults are logged under an error id that the body
 * quotes instead.
 */
import { randomUUID } from 'node:crypto';
import { Code, ConnectError } from '@connectrpc/connect';
import { formatNaira, isKobo, type Kobo } from '../core/domain/money.js';
import { BadRequestSchema } from '../gen/google/rpc/error_details_pb.js';
import { coreFailure, type ErrorReasonName } from '../runtime/error-reason.js';
import type { GatewayLogger } from './log.js';

/** Errors only the gateway raises, before or around a call to the core. */
export type GatewayErrorKey =
  | 'MISSING_API_KEY'
  | 'RATE_LIMITED'
  | 'AUTH_RATE_LIMITED'
  | 'METHOD_NOT_ALLOWED'
  | 'UNKNOWN_ACTION'
  | 'INVALID_CONTENT_TYPE'
  | 'INVALID_JSON'
  | 'PAYLOAD_TOO_LARGE'
  | 'ROUTE_NOT_FOUND'
  | 'MALFORMED_REQUEST'
  | 'REQUEST_TIMEOUT'
  | 'HEADERS_TOO_LARGE'
  | 'EXPECTATION_FAILED'
  | 'CORE_UNAVAILABLE';

/** A row key: a reason of the contract (the core's ErrorInfo reason) or a gateway error. */
export type ErrorKey = ErrorReasonName | GatewayErrorKey;

/** The public `code` of an error body. */
export type PublicErrorCode = Exclude<
  ErrorKey,
  'UNAUTHENTICATED' | 'PERMISSION_DENIED' | 'ROUTE_NOT_FOUND' | 'AUTH_RATE_LIMITED' | 'OUTCOME_UNKNOWN'
>;

/** Facts a message may mention. */
interface MessageFacts {
  clientIp?: string | undefined;
  chargedKobo?: Kobo | undefined;
  errorId?: string | undefined;
}

interface ErrorRow {
  status: number;
  code: PublicErrorCode;
  /** The public message; the core's own message is used instead when coreMessage is set. */
  message: (facts: MessageFacts) => string;
  /** The core writes these messages for callers (field rules, "Transaction was not found."). */
  coreMessage?: true;
  /** Logged with an error id that the body quotes: an operator has to look at it. */
  logged?: true;
}

const CORE_UNAVAILABLE_MESSAGE =
  'The service is temporarily unavailable; try again shortly. If this was a purchase, check ' +
  '?action=transactions before you retry, or retry with the same request_id.';

/** Every error the API answers, by core reason or gateway key. */
const ERROR_TABLE: Readonly<Record<ErrorKey, ErrorRow>> = {
  MALFORMED_REQUEST: {
    status: 400,
    code: 'MALFORMED_REQUEST',
    message: () => 'The request is not valid HTTP (for example a body without Content-Length or chunked framing).',
  },
  MISSING_API_KEY: {
    status: 401,
    code: 'MISSING_API_KEY',
    message: () => 'Send your API keys in the X-Public-Key and X-Secret-Key headers.',
  },
  INVALID_API_KEY: {
    status: 401,
    code: 'INVALID_API_KEY',
    message: () => 'The API key pair is not valid: it is unknown, revoked, or its account has no API access.',
  },
  ACCOUNT_SUSPENDED: {
    status: 401,
    code: 'ACCOUNT_SUSPENDED',
    message: () => 'This account is suspended. Contact support.',
  },
  IP_NOT_ALLOWED: {
    status: 401,
    code: 'IP_NOT_ALLOWED',
    message: ({ clientIp }) =>
      `This API key is locked to other IP addresses and cannot be used from ${clientIp || 'this address'}.`,
  },
  KEY_SCOPE_DENIED: {
    status: 403,
    code: 'KEY_SCOPE_DENIED',
    message: () => "This API key's scopes do not allow this action; nothing was charged.",
    coreMessage: true,
  },
  KEY_CAP_EXCEEDED: {
    status: 403,
    code: 'KEY_CAP_EXCEEDED',
    message: () => 'This purchase is over a spend cap of this API key; nothing was charged.',
    coreMessage: true,
  },
  KEY_FROZEN: {
    status: 403,
    code: 'KEY_FROZEN',
    message: () => "This API key is frozen until the account's owner unfreezes it; nothing was charged.",
    coreMessage: true,
  },
  VERIFICATION_REQUIRED: {
    status: 403,
    code: 'VERIFICATION_REQUIRED',
    message: () =>
      "Verify the account owner's email and phone in the developer area first: live purchases open once both " +
      'are verified. Nothing was charged.',
    coreMessage: true,
  },
  LEVEL_LIMIT: {
    status: 403,
    code: 'LEVEL_LIMIT',
    message: () =>
      "This purchase is over the daily spend limit of the account's identity level; verify the account for a " +
      'higher level in the developer area. Nothing was charged.',
    coreMessage: true,
  },
  RECIPIENT_BLOCKED: {
    status: 422,
    code: 'RECIPIENT_BLOCKED',
    message: () => 'Purchases to this recipient are not allowed; nothing was charged.',
  },
  RECIPIENT_LIMIT: {
    status: 422,
    code: 'RECIPIENT_LIMIT',
    message: () => "This recipient has reached the account's limit for today; nothing was charged.",
    coreMessage: true,
  },
  DUPLICATE_PURCHASE: {
    status: 409,
    code: 'DUPLICATE_PURCHASE',
    message: () =>
      'The same purchase was made moments ago; nothing was charged. Send a new request_id to buy it again.',
    coreMessage: true,
  },
  INSUFFICIENT_BALANCE: {
    status: 402,
    code: 'INSUFFICIENT_BALANCE',
    message: () => 'Your wallet balance is too low for this purchase; nothing was charged.',
  },
  NOT_FOUND: {
    status: 404,
    code: 'NOT_FOUND',
    message: () => 'What this request names was not found.',
    coreMessage: true,
  },
  ROUTE_NOT_FOUND: {
    status: 404,
    code: 'NOT_FOUND',
    message: () => 'Nothing is served at this path; call the API at its base path with ?action=<action>.',
  },
  METHOD_NOT_ALLOWED: {
    status: 405,
    code: 'METHOD_NOT_ALLOWED',
    message: () => 'This action does not accept this HTTP method; see the Allow header.',
  },
  REQUEST_IN_PROGRESS: {
    status: 409,
    code: 'REQUEST_IN_PROGRESS',
    message: () => 'A request with this idempotency key is still being processed; retry in a moment.',
  },
  INVALID_PARAMETER: {
    status: 422,
    code: 'INVALID_PARAMETER',
    message: () => 'A parameter is invalid.',
    coreMessage: true,
  },
  IDEMPOTENCY_KEY_REUSED: {
    status: 422,
    code: 'IDEMPOTENCY_KEY_REUSED',
    message: () => 'This idempotency key was already used with a different request.',
  },
  FAILED_PRECONDITION: {
    status: 422,
    code: 'FAILED_PRECONDITION',
    message: () => 'This request cannot be carried out in the current state.',
    coreMessage: true,
  },
  PLAN_DISABLED: {
    status: 422,
    code: 'PLAN_DISABLED',
    message: () => 'This plan is not on sale for now; nothing was charged. See ?action=plans for the plans on sale.',
    coreMessage: true,
  },
  PRICE_BELOW_COST: {
    status: 422,
    code: 'PRICE_BELOW_COST',
    message: () =>
      'This product cannot be sold at this price right now; nothing was charged. See ?action=plans for current prices.',
    coreMessage: true,
  },
  REQUEST_TIMEOUT: {
    status: 408,
    code: 'REQUEST_TIMEOUT',
    message: () => 'The request was not received in time.',
  },
  EXPECTATION_FAILED: {
    status: 417,
    code: 'EXPECTATION_FAILED',
    message: () => 'The only Expect the API understands is 100-continue.',
  },
  HEADERS_TOO_LARGE: {
    status: 431,
    code: 'HEADERS_TOO_LARGE',
    message: () => 'The request headers are too large.',
  },
  UNKNOWN_ACTION: {
    status: 422,
    code: 'UNKNOWN_ACTION',
    message: () => 'The action query parameter is missing or names no action.',
  },
  INVALID_CONTENT_TYPE: {
    status: 422,
    code: 'INVALID_CONTENT_TYPE',
    message: () => 'Send the request body as JSON with the header Content-Type: application/json.',
  },
  INVALID_JSON: {
    status: 422,
    code: 'INVALID_JSON',
    message: () => 'The request body is not a JSON object.',
  },
  PAYLOAD_TOO_LARGE: {
    status: 422,
    code: 'PAYLOAD_TOO_LARGE',
    message: () => 'The request body is too large.',
  },
  RATE_LIMITED: {
    status: 429,
    code: 'RATE_LIMITED',
    message: () => 'Too many requests for this API key; wait for the time in Retry-After.',
  },
  AUTH_RATE_LIMITED: {
    status: 429,
    code: 'RATE_LIMITED',
    message: () => 'Too many failed authentications from this address; wait for the time in Retry-After.',
  },
  INTERNAL: {
    status: 500,
    code: 'INTERNAL',
    message: ({ errorId }) => `Something went wrong on our side; quote error ${errorId ?? 'id'} to support.`,
    logged: true,
  },
  // Raised today only by operator credits (admin service); should a public call ever meet
  // it, the caller is told the change may have happened, and an operator gets the log line.
  OUTCOME_UNKNOWN: {
    status: 500,
    code: 'INTERNAL',
    message: ({ errorId }) =>
      `We could not confirm whether this change was saved; check transactions before ` +
      `retrying, or retry with the same idempotency key (error ${errorId ?? 'id'}).`,
    logged: true,
  },
  PROVIDER_FAILED: {
    status: 502,
    code: 'PROVIDER_FAILED',
    message: ({ chargedKobo }) =>
      chargedKobo === undefined
        ? 'The provider could not complete this purchase; the wallet was refunded in full.'
        : `The provider could not complete this purchase; the wallet was refunded in full ` +
          `(NGN ${formatNaira(chargedKobo)}).`,
  },
  // The core refusing the gateway's own service token is a deployment fault, not the
  // caller's: to the caller it is an outage, to the operator a logged error.
  UNAUTHENTICATED: { status: 503, code: 'CORE_UNAVAILABLE', message: () => CORE_UNAVAILABLE_MESSAGE, logged: true },
  PERMISSION_DENIED: { status: 503, code: 'CORE_UNAVAILABLE', message: () => CORE_UNAVAILABLE_MESSAGE, logged: true },
  CORE_UNAVAILABLE: { status: 503, code: 'CORE_UNAVAILABLE', message: () => CORE_UNAVAILABLE_MESSAGE, logged: true },
  // The core logs why (a full or read-only disk) and turns its health NOT_SERVING; the caller
  // only needs to know that nothing was charged and that a retry later is safe.
  STORE_UNAVAILABLE: {
    status: 503,
    code: 'STORE_UNAVAILABLE',
    message: () =>
      'The service cannot record changes right now (its store cannot write); nothing was charged. ' +
      'Try again shortly, with the same request_id if you were buying.',
  },
};

/**
 * Every public `code` an error body can carry, once each and sorted: the OpenAPI document's
 * enum of `Error.code`, so that generated clients type the codes they can meet.
 */
export const PUBLIC_ERROR_CODES: readonly PublicErrorCode[] = [
  ...new Set(Object.values(ERROR_TABLE).map((row) => row.code)),
].sort();

/** One rule broken by one field, as a 422 body lists it. */
export interface PublicViolation {
  field: string;
  message: string;
}

/** An error on its way to becoming an HTTP answer. */
export class ApiError extends Error {
  readonly status: number;
  readonly code: PublicErrorCode;
  /** The row it came from; the pipeline uses it to tell auth failures apart. */
  readonly key: ErrorKey;
  readonly violations: readonly PublicViolation[];
  readonly reference: string | undefined;
  readonly errorId: string | undefined;
  /** Extra response headers, for example Allow or Retry-After. */
  readonly headers: Readonly<Record<string, string>>;

  constructor(
    key: ErrorKey,
    message: string,
    options: {
      violations?: readonly PublicViolation[];
      reference?: string | undefined;
      errorId?: string | undefined;
      headers?: Record<string, string>;
    } = {},
  ) {
    super(message);
    this.name = 'ApiError';
    const row = ERROR_TABLE[key];
    this.key = key;
    this.status = row.status;
    this.code = row.code;
    this.violations = options.violations ?? [];
    this.reference = options.reference;
    this.errorId = options.errorId;
    this.headers = options.headers ?? {};
  }

  /** The same error with more response headers; its own headers win on a clash. */
  withHeaders(headers: Record<string, string>): ApiError {
    return new ApiError(this.key, this.message, {
      violations: this.violations,
      reference: this.reference,
      errorId: this.errorId,
      headers: { ...headers, ...this.headers },
    });
  }
}

/** The JSON body of an error answer. */
export interface ErrorBody {
  status: 'error';
  message: string;
  code: PublicErrorCode;
  errors?: PublicViolation[];
  reference?: string;
  error_id?: string;
}

/** An error the gateway raises itself, with the table's message unless one is given. */
export function gatewayError(
  key: GatewayErrorKey | 'INVALID_PARAMETER',
  options: { message?: string; violations?: readonly PublicViolation[]; headers?: Record<string, string> } = {},
): ApiError {
  const message = options.message ?? ERROR_TABLE[key].message({});
  return new ApiError(key, message, { violations: options.violations, headers: options.headers });
}

/**
 * The refusal of an action outside the caller's key scopes, before anything is read or
 * reserved; its message is the core's rule (core/domain/key-controls.ts).
 */
export function keyScopeDenied(message: string): ApiError {
  return new ApiError('KEY_SCOPE_DENIED', message);
}

/** A 422 listing type and presence problems the gateway found before calling the core. */
export function invalidParameters(violations: readonly PublicViolation[]): ApiError {
  const message =
    violations.length === 1
      ? violations[0]!.message
      : `${violations.length} parameters are invalid: ${violations.map((v) => v.field).join(', ')}.`;
  return gatewayError('INVALID_PARAMETER', { message, violations });
}

/** The answer for a purchase the provider failed: the charge was refunded in full. */
export function providerFailed(reference: string, chargedKobo: Kobo): ApiError {
  return new ApiError('PROVIDER_FAILED', ERROR_TABLE.PROVIDER_FAILED.message({ chargedKobo }), { reference });
}

/**
 * Turns anything a request handler threw into an ApiError: an ApiError passes through, a
 * ConnectError from the core is looked up by its ErrorInfo reason (or by its gRPC code
 * when the core was not reached), and anything else is a bug, logged with an error id.
 */
export function toApiError(error: unknown, log: GatewayLogger, facts: { clientIp?: string } = {}): ApiError {
  if (error instanceof ApiError) return error;
  if (!(error instanceof ConnectError)) return logged('INTERNAL', error, log, {});

  const { reason, rawReason, info } = coreFailure(error);
  if (reason === undefined) {
    return logged(transportKey(error.code), error, log, { grpc_code: Code[error.code], reason: rawReason });
  }

  const row = ERROR_TABLE[reason];
  if (row.logged) return logged(reason, error, log, { grpc_code: Code[error.code], reason });

  const reference = info?.metadata['reference'] || undefined;
  const chargedText = info?.metadata['charged_kobo'];
  const charged = chargedText !== undefined && /^\d+$/.test(chargedText) ? Number(chargedText) : undefined;
  // Digits beyond the safe range are a broken core; the message then leaves the amount out.
  const chargedKobo = isKobo(charged) ? charged : undefined;
  const message =
    row.coreMessage && error.rawMessage.trim() !== ''
      ? error.rawMessage
      : row.message({ clientIp: facts.clientIp, chargedKobo });
  const violations = error
    .findDetails(BadRequestSchema)
    .flatMap((detail) => detail.fieldViolations)
    .map((v) => ({ field: v.field, message: v.description }));
  // A replayed failure (the first request with this idempotency key failed) says so, like a
  // replayed success does.
  const headers = info?.metadata['replayed'] === 'true' ? { 'Idempotent-Replayed': 'true' } : undefined;
  return new ApiError(reason, message, { violations, reference, ...(headers ? { headers } : {}) });
}

/** The body of an error answer: status, message, code, and the extras that apply. */
export function errorBody(error: ApiError): ErrorBody {
  const body: ErrorBody = { status: 'error', message: error.message, code: error.code };
  if (error.violations.length > 0) body.errors = error.violations.map((v) => ({ field: v.field, message: v.message }));
  if (error.reference !== undefined) body.reference = error.reference;
  if (error.errorId !== undefined) body.error_id = error.errorId;
  return body;
}

/**
 * A ConnectError without one of our reasons did not come from our handlers: the core was
 * unreachable, too slow, or refused the call before it reached them.
 */
function transportKey(code: Code): ErrorKey {
  switch (code) {
    case Code.Unavailable:
    case Code.DeadlineExceeded:
    case Code.Canceled:
    case Code.ResourceExhausted:
    case Code.Unauthenticated:
    case Code.PermissionDenied:
      return 'CORE_UNAVAILABLE';
    default:
      return 'INTERNAL';
  }
}

function logged(key: ErrorKey, cause: unknown, log: GatewayLogger, fields: Record<string, unknown>): ApiError {
  const errorId = `err_${randomUUID()}`;
  log.error('request.error', {
    error_id: errorId,
    code: key,
    ...fields,
    error: cause instanceof Error ? (cause.stack ?? cause.message) : String(cause),
  });
  return new ApiError(key, ERROR_TABLE[key].message({ errorId }), { errorId });
}
