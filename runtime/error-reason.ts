/**
 * Reading the core's error reasons as the contract defines them (prepaid.v1.ErrorReason in
 * proto/prepaid/v1/types.proto). A failed call carries a google.rpc.ErrorInfo whose
 * `reason` is an ErrorReason value's name without its ERROR_REASON_ prefix; every client of
 * the core reads it through here, so that none of them keeps its own list of reasons.
 */
import type { ConnectError } from '@connectrpc/connect';
import { type ErrorInfo, ErrorInfoSchema } from '../gen/google/rpc/error_details_pb.js';
import { ErrorReason } from '../gen/prepaid/v1/types_pb.js';

/**
 * The reasons the core sends, as they travel in ErrorInfo.reason ("INSUFFICIENT_BALANCE",
 * ...). Derived from the generated enum, so a reason added to the contract is added here,
 * and every Record keyed on it fails to compile until it has an entry.
 */
export type ErrorReasonName = Exclude<keyof typeof ErrorReason, 'UNSPECIFIED'>;

/** The contract's name for `reason`, or undefined when the contract has no such reason. */
export function errorReasonName(reason: string): ErrorReasonName | undefined {
  if (reason === 'UNSPECIFIED' || !Object.hasOwn(ErrorReason, reason)) return undefined;
  // A numeric enum also maps its numbers back to names ("2" -> "INSUFFICIENT_BALANCE"); only names map to numbers.
  return typeof ErrorReason[reason as ErrorReasonName] === 'number' ? (reason as ErrorReasonName) : undefined;
}

/** What a failed call says about itself: its contract reason and its ErrorInfo, when the core sent one. */
export interface CoreFailure {
  /** Undefined when the call never reached the core's handlers, or the reason is not in this contract. */
  reason: ErrorReasonName | undefined;
  /** The raw reason text, for logs (it may be one a newer core added). */
  rawReason: string | undefined;
  info: ErrorInfo | undefined;
}

/** Reads the ErrorInfo of a failed call to the core. */
export function coreFailure(error: ConnectError): CoreFailure {
  const info = error.findDetails(ErrorInfoSchema)[0];
  const rawReason = info?.reason;
  return { reason: rawReason === undefined ? undefined : errorReasonName(rawReason), rawReason, info };
}
