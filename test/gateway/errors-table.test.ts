/**
 * The one error table, tested as a function: every core ErrorCode reason maps to its HTTP
 * status and public code, and faults that are not the caller's are logged under an error id
 * that the answer quotes instead of any internal detail.
 */

import { create } from '@bufbuild/protobuf';
import { Code, ConnectError } from '@connectrpc/connect';
import * as assert from 'uvu/assert';
import type { ErrorCode } from '../../core/domain/errors.js';
import { ApiError, errorBody, toApiError } from '../../gateway/errors.js';
import type { GatewayLogger } from '../../gateway/log.js';
import { BadRequestSchema, ErrorInfoSchema } from '../../gen/google/rpc/error_details_pb.js';
import { suite } from '../helpers/suite.js';

const test = suite('gateway error table');

function capture(): { log: GatewayLogger; lines: { message: string; fields: Record<string, unknown> | undefined }[] } {
  const lines: { message: string; fields: Record<string, unknown> | undefined }[] = [];
  return { lines, log: { info: () => {}, error: (message, fields) => lines.push({ message, fields }) } };
}

function coreError(reason: string, code: Code, message: string, metadata: Record<string, string> = {}): ConnectError {
  return new ConnectError(message, code, undefined, [
    { desc: ErrorInfoSchema, value: create(ErrorInfoSchema, { reason, domain: 'prepaid.v1', metadata }) },
  ]);
}

/** Every reason the core sends, with its gRPC code and the answer the API must give. */
const CORE_REASONS: [ErrorCode, Code, number, string][] = [
  ['INVALID_PARAMETER', Code.InvalidArgument, 422, 'INVALID_PARAMETER'],
  ['IDEMPOTENCY_KEY_REUSED', Code.InvalidArgument, 422, 'IDEMPOTENCY_KEY_REUSED'],
  ['INSUFFICIENT_BALANCE', Code.FailedPrecondition, 402, 'INSUFFICIENT_BALANCE'],
  ['FAILED_PRECONDITION', Code.FailedPrecondition, 422, 'FAILED_PRECONDITION'],
  ['PROVIDER_FAILED', Code.Aborted, 502, 'PROVIDER_FAILED'],
  ['REQUEST_IN_PROGRESS', Code.Aborted, 409, 'REQUEST_IN_PROGRESS'],
  ['INVALID_API_KEY', Code.Unauthenticated, 401, 'INVALID_API_KEY'],
  ['IP_NOT_ALLOWED', Code.PermissionDenied, 401, 'IP_NOT_ALLOWED'],
  ['UNAUTHENTICATED', Code.Unauthenticated, 503, 'CORE_UNAVAILABLE'],
  ['PERMISSION_DENIED', Code.PermissionDenied, 503, 'CORE_UNAVAILABLE'],
  ['NOT_FOUND', Code.NotFound, 404, 'NOT_FOUND'],
  ['INTERNAL', Code.Internal, 500, 'INTERNAL'],
  ['OUTCOME_UNKNOWN', Code.Unknown, 500, 'INTERNAL'],
  ['PLAN_DISABLED', Code.FailedPrecondition, 422, 'PLAN_DISABLED'],
  ['PRICE_BELOW_COST', Code.FailedPrecondition, 422, 'PRICE_BELOW_COST'],
  ['ACCOUNT_SUSPENDED', Code.Unauthenticated, 401, 'ACCOUNT_SUSPENDED'],
  ['KEY_SCOPE_DENIED', Code.PermissionDenied, 403, 'KEY_SCOPE_DENIED'],
  ['KEY_CAP_EXCEEDED', Code.PermissionDenied, 403, 'KEY_CAP_EXCEEDED'],
  ['RECIPIENT_BLOCKED', Code.FailedPrecondition, 422, 'RECIPIENT_BLOCKED'],
  ['RECIPIENT_LIMIT', Code.FailedPrecondition, 422, 'RECIPIENT_LIMIT'],
  ['DUPLICATE_PURCHASE', Code.Aborted, 409, 'DUPLICATE_PURCHASE'],
  ['KEY_FROZEN', Code.PermissionDenied, 403, 'KEY_FROZEN'],
];

for (const [reason, code, status, publicCode] of CORE_REASONS) {
  test(`core reason ${reason} is HTTP ${status} ${publicCode}`, () => {
    const { log } = capture();
    const error = toApiError(coreError(reason, code, 'secret internal words'), log, { clientIp: '203.0.113.7' });
    assert.is(error.status, status);
    assert.is(error.code, publicCode);
  });
}

test('only parameter, precondition, catalogue-state and not-found messages of the core are passed on', () => {
  const { log } = capture();
  assert.is(
    toApiError(coreError('NOT_FOUND', Code.NotFound, 'Transaction X was not found.'), log).message,
    'Transaction X was not found.',
  );
  for (const reason of ['INSUFFICIENT_BALANCE', 'INTERNAL', 'UNAUTHENTICATED', 'PROVIDER_FAILED'] as const) {
    const error = toApiError(coreError(reason, Code.Internal, 'secret internal words'), log);
    assert.not.match(error.message, /secret internal words/, reason);
  }
});

test('PROVIDER_FAILED says the wallet was refunded in full, with the amount and the reference', () => {
  const { log } = capture();
  const error = toApiError(
    coreError('PROVIDER_FAILED', Code.Aborted, 'x', { reference: 'REF123', charged_kobo: '9750' }),
    log,
  );
  assert.equal(errorBody(error), {
    status: 'error',
    message: 'The provider could not complete this purchase; the wallet was refunded in full (NGN 97.50).',
    code: 'PROVIDER_FAILED',
    reference: 'REF123',
  });
});

test('IP_NOT_ALLOWED names the address that was refused', () => {
  const { log } = capture();
  const error = toApiError(coreError('IP_NOT_ALLOWED', Code.PermissionDenied, 'x'), log, { clientIp: '198.51.100.4' });
  assert.match(error.message, /locked to other IP addresses.*198\.51\.100\.4/);
});

test('field violations become errors [{field, message}]', () => {
  const { log } = capture();
  const connectError = new ConnectError('phone is wrong.', Code.InvalidArgument, undefined, [
    { desc: ErrorInfoSchema, value: create(ErrorInfoSchema, { reason: 'INVALID_PARAMETER' }) },
    {
      desc: BadRequestSchema,
      value: create(BadRequestSchema, { fieldViolations: [{ field: 'phone', description: 'phone is wrong.' }] }),
    },
  ]);
  assert.equal(errorBody(toApiError(connectError, log)), {
    status: 'error',
    message: 'phone is wrong.',
    code: 'INVALID_PARAMETER',
    errors: [{ field: 'phone', message: 'phone is wrong.' }],
  });
});

test('a bug in the gateway is 500 INTERNAL with an error id; the log has the stack, the body does not', () => {
  const { log, lines } = capture();
  const error = toApiError(new TypeError("Cannot read properties of undefined (reading 'x')"), log);
  assert.is(error.status, 500);
  const body = errorBody(error);
  assert.is(body.code, 'INTERNAL');
  assert.match(body.error_id ?? '', /^err_[0-9a-f-]{36}$/);
  assert.ok(body.message.includes(body.error_id!), 'the message quotes the error id');
  assert.not.match(body.message, /Cannot read/);
  assert.is(lines.length, 1);
  assert.is(lines[0]!.fields?.['error_id'], body.error_id);
  assert.match(String(lines[0]!.fields?.['error']), /TypeError/);
});

test('a core that cannot be reached is 503; a reason the gateway does not know is 500', () => {
  const { log, lines } = capture();
  assert.is(toApiError(new ConnectError('connect ECONNREFUSED', Code.Unavailable), log).status, 503);
  assert.is(toApiError(new ConnectError('deadline', Code.DeadlineExceeded), log).status, 503);
  const unknown = toApiError(coreError('SOMETHING_NEW', Code.FailedPrecondition, 'x'), log);
  assert.is(unknown.status, 500);
  assert.is(unknown.code, 'INTERNAL');
  assert.is(lines.length, 3, 'each was logged');
});

test('an ApiError passes through unchanged', () => {
  const { log } = capture();
  const original = new ApiError('RATE_LIMITED', 'slow down', { headers: { 'Retry-After': '5' } });
  assert.is(toApiError(original, log), original);
});

test.run();
