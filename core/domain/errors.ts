/**
 * The one error vocabulary of the platform. Domain code throws `DomainError` with a
 * code from this closed union and never a transport status; the core maps codes to
 * gRPC statuses in `core/rpc/errors.ts` and the gateway maps them to HTTP in one table.
 */
export type ErrorCode =
  /** A request field breaks a rule of the spec; carries field violations. */
  | 'INVALID_PARAMETER'
  /** The wallet does not cover the charge; nothing was debited. */
  | 'INSUFFICIENT_BALANCE'
  /** The provider failed definitively; the charge was refunded in full. */
  | 'PROVIDER_FAILED'
  /** The key pair is missing, unknown, revoked, or its account has no API access. */
  | 'INVALID_API_KEY'
  /** The key pair is valid but locked to other client IPs. */
  | 'IP_NOT_ALLOWED'
  /** The caller's bearer token is missing or wrong (gRPC callers). */
  | 'UNAUTHENTICATED'
  /** The caller's token does not grant this service. */
  | 'PERMISSION_DENIED'
  /** An account, transaction, key, tier or plan that the request names does not exist. */
  | 'NOT_FOUND'
  /** The idempotency key was used before with a different request. */
  | 'IDEMPOTENCY_KEY_REUSED'
  /** A request with the same idempotency key is still being processed. */
  | 'REQUEST_IN_PROGRESS'
  /** The operation conflicts with the current state (for example a tier still in use). */
  | 'FAILED_PRECONDITION'
  /** Something unexpected; details are logged, never sent. */
  | 'INTERNAL'
  /**
   * The store could not tell whether a change was written (a commit whose result is
   * unknown): it may have happened. The message says to check the ledger before retrying.
   */
  | 'OUTCOME_UNKNOWN'
  /** The plan's type is switched off on its network for now (the operator's switch); nothing was debited. */
  | 'PLAN_DISABLED'
  /** The price would be below what the upstream charges us for it now; nothing was debited. */
  | 'PRICE_BELOW_COST'
  /** The account's key pair is right, but the platform's staff have suspended the account. */
  | 'ACCOUNT_SUSPENDED'
  /**
   * The store cannot write now (a full or read-only disk): the change was refused before
   * anything was written. Retrying later is safe; the core recovers by itself.
   */
  | 'STORE_UNAVAILABLE'
  /** The call is outside its key pair's scopes; nothing was reserved. */
  | 'KEY_SCOPE_DENIED'
  /** The purchase is over a cap of its key pair (per purchase or per day); nothing was debited. */
  | 'KEY_CAP_EXCEEDED'
  /** The recipient is blocked (by the platform or the account); nothing was debited. */
  | 'RECIPIENT_BLOCKED'
  /** The recipient has had the account's most purchases or Naira for today; nothing was debited. */
  | 'RECIPIENT_LIMIT'
  /** The same purchase was made moments ago without a new request_id; nothing was debited. */
  | 'DUPLICATE_PURCHASE'
  /** The key pair is frozen (the velocity brake, or by hand) until someone allowed unfreezes it. */
  | 'KEY_FROZEN'
  /** A live action of a self-signed-up account whose email or phone is not verified yet (core/domain/sign-up.ts). */
  | 'VERIFICATION_REQUIRED'
  /** A live purchase over the account's identity level's daily spend limit (core/domain/levels.ts); nothing was debited. */
  | 'LEVEL_LIMIT';

/** One rule broken by one field, for BadRequest field violations and 422 bodies. */
export interface FieldViolation {
  /** Path of the field as the public API names it, for example "phone" or "recipients[2]". */
  field: string;
  /** Why the value is wrong, a full sentence. */
  description: string;
}

export class DomainError extends Error {
  readonly code: ErrorCode;
  readonly violations: readonly FieldViolation[];
  /** Extra machine-readable facts, sent as ErrorInfo metadata (for example the reference). */
  readonly metadata: Readonly<Record<string, string>>;

  constructor(
    code: ErrorCode,
    message: string,
    options: { violations?: readonly FieldViolation[]; metadata?: Record<string, string> } = {},
  ) {
    super(message);
    this.name = 'DomainError';
    this.code = code;
    this.violations = options.violations ?? [];
    this.metadata = options.metadata ?? {};
  }
}

/** Throws one INVALID_PARAMETER error that lists every violation found, if any. */
export function throwIfViolations(violations: readonly FieldViolation[]): void {
  if (violations.length === 0) return;
  const message =
    violations.length === 1
      ? violations[0]!.description
      : `${violations.length} parameters are invalid: ${violations.map((v) => v.field).join(', ')}.`;
  throw new DomainError('INVALID_PARAMETER', message, { violations });
}

/** What a suspended account's API keys are told, on every action (docs/api.md). */
const ACCOUNT_SUSPENDED_MESSAGE = 'This account is suspended. Contact support.';

/** Refuses every API action of a suspended account. */
export function refuseIfSuspended(account: { suspension?: unknown }): void {
  if (account.suspension !== undefined) throw new DomainError('ACCOUNT_SUSPENDED', ACCOUNT_SUSPENDED_MESSAGE);
}

/** Refuses every change from the developer area of a suspended account: it is read-only until resumed. */
export function refuseHolderWriteIfSuspended(account: { suspension?: unknown }): void {
  if (account.suspension !== undefined)
    throw new DomainError(
      'FAILED_PRECONDITION',
      'This account is suspended: its developer area is read-only until the platform resumes it. Contact support.',
    );
}

export function invalid(field: string, description: string): DomainError {
  return new DomainError('INVALID_PARAMETER', description, { violations: [{ field, description }] });
}

export function notFound(what: string): DomainError {
  return new DomainError('NOT_FOUND', `${what} was not found.`);
}

/**
 * The default of a switch over a closed union: the compiler proves it is never reached, so a
 * new member of the union fails to compile until every switch handles it. Reached anyway (a
 * value from outside the types), it is a programmer's error and throws.
 */
export function unreachable(value: never, what: string): never {
  throw new Error(`${what} of an unknown kind: ${JSON.stringify(value)}`);
}
