/**
 * The one mapping from the domain's error vocabulary to gRPC. Every failure leaves the core
 * as a gRPC status whose `grpc-status-details-bin` carries a google.rpc.Status with an
 * ErrorInfo (reason = our ErrorCode) and, for invalid parameters, a BadRequest listing the
 * field violations. Unexpected errors are logged with an id and answered INTERNAL without
 * their message, so nothing internal leaks to a caller.
 */
import { randomUUID } from 'node:crypto';
import { create, toBinary } from '@bufbuild/protobuf';
import { anyPack } from '@bufbuild/protobuf/wkt';
import { Metadata, type ServiceError, status } from '@grpc/grpc-js';
import { BadRequestSchema, ErrorInfoSchema } from '../../gen/google/rpc/error_details_pb.js';
import { StatusSchema } from '../../gen/google/rpc/status_pb.js';
import type { ErrorReason } from '../../gen/prepaid/v1/types_pb.js';
import { DomainError, type ErrorCode } from '../domain/errors.js';

const ERROR_DOMAIN = 'prepaid.v1';

/**
 * The domain's codes are the contract's reasons (prepaid.v1.ErrorReason without its prefix),
 * which is what ErrorInfo.reason carries: this fails to compile when a code is added to one
 * and not the other.
 */
type ContractReason = Exclude<keyof typeof ErrorReason, 'UNSPECIFIED'>;
type SameSet<A, B> = [A] extends [B] ? ([B] extends [A] ? true : false) : false;
const CODES_ARE_CONTRACT_REASONS: SameSet<ErrorCode, ContractReason> = true;
void CODES_ARE_CONTRACT_REASONS;

export const GRPC_STATUS_BY_CODE: Readonly<Record<ErrorCode, status>> = {
  INVALID_PARAMETER: status.INVALID_ARGUMENT,
  IDEMPOTENCY_KEY_REUSED: status.INVALID_ARGUMENT,
  INSUFFICIENT_BALANCE: status.FAILED_PRECONDITION,
  FAILED_PRECONDITION: status.FAILED_PRECONDITION,
  // ABORTED: the purchase was undone (refunded); retrying it is a new purchase.
  PROVIDER_FAILED: status.ABORTED,
  REQUEST_IN_PROGRESS: status.ABORTED,
  INVALID_API_KEY: status.UNAUTHENTICATED,
  IP_NOT_ALLOWED: status.PERMISSION_DENIED,
  UNAUTHENTICATED: status.UNAUTHENTICATED,
  PERMISSION_DENIED: status.PERMISSION_DENIED,
  NOT_FOUND: status.NOT_FOUND,
  INTERNAL: status.INTERNAL,
  // UNKNOWN, not UNAVAILABLE: a client must not retry blindly, the change may have been made.
  OUTCOME_UNKNOWN: status.UNKNOWN,
  // The catalogue's state refuses the sale for now; the same request may succeed later.
  PLAN_DISABLED: status.FAILED_PRECONDITION,
  PRICE_BELOW_COST: status.FAILED_PRECONDITION,
  ACCOUNT_SUSPENDED: status.UNAUTHENTICATED,
  // Nothing was written: the same call may be retried once the store can write again.
  STORE_UNAVAILABLE: status.UNAVAILABLE,
  KEY_SCOPE_DENIED: status.PERMISSION_DENIED,
  KEY_CAP_EXCEEDED: status.PERMISSION_DENIED,
  RECIPIENT_BLOCKED: status.FAILED_PRECONDITION,
  RECIPIENT_LIMIT: status.FAILED_PRECONDITION,
  DUPLICATE_PURCHASE: status.ABORTED,
  KEY_FROZEN: status.PERMISSION_DENIED,
  VERIFICATION_REQUIRED: status.PERMISSION_DENIED,
  LEVEL_LIMIT: status.PERMISSION_DENIED,
};

export type ErrorLogger = (event: string, fields: Record<string, unknown>) => void;

export function toServiceError(error: unknown, log: ErrorLogger, rpc: string): Partial<ServiceError> {
  let domain: DomainError;
  if (error instanceof DomainError && error.code !== 'INTERNAL') {
    domain = error;
    // An operator has to look at this one: the books may hold a change nobody was told of.
    if (domain.code === 'OUTCOME_UNKNOWN') log('rpc.outcome_unknown', { rpc, error: domain.message });
  } else {
    const errorId = randomUUID();
    log('rpc.internal_error', {
      rpc,
      error_id: errorId,
      error: error instanceof Error ? error.message : String(error),
      stack: error instanceof Error ? error.stack : undefined,
    });
    domain = new DomainError('INTERNAL', `An internal error occurred (error id ${errorId}).`, {
      metadata: { error_id: errorId },
    });
  }
  const code = GRPC_STATUS_BY_CODE[domain.code];
  const details = [
    anyPack(
      ErrorInfoSchema,
      create(ErrorInfoSchema, { reason: domain.code, domain: ERROR_DOMAIN, metadata: { ...domain.metadata } }),
    ),
  ];
  if (domain.violations.length > 0) {
    details.push(
      anyPack(
        BadRequestSchema,
        create(BadRequestSchema, {
          fieldViolations: domain.violations.map((v) => ({ field: v.field, description: v.description })),
        }),
      ),
    );
  }
  const metadata = new Metadata();
  metadata.set(
    'grpc-status-details-bin',
    Buffer.from(toBinary(StatusSchema, create(StatusSchema, { code, message: domain.message, details }))),
  );
  return { code, details: domain.message, metadata };
}
