/**
 * The error reasons are part of the contract (prepaid.v1.ErrorReason): the core's codes are
 * exactly the enum's names without their prefix, which is what ErrorInfo.reason carries, and
 * a client reads a reason it receives back into the contract's type.
 */

import { status } from '@grpc/grpc-js';
import * as assert from 'uvu/assert';
import { DomainError } from '../../../core/domain/errors.js';
import { GRPC_STATUS_BY_CODE, toServiceError } from '../../../core/rpc/errors.js';
import { ErrorReason, ErrorReasonSchema } from '../../../gen/prepaid/v1/types_pb.js';
import { errorReasonName } from '../../../runtime/error-reason.js';
import { suite } from '../../helpers/suite.js';

const test = suite('contract: error reasons');

test('every core code is an ErrorReason value whose name, without ERROR_REASON_, is the code', () => {
  const contract = ErrorReasonSchema.values
    .filter((v) => v.number !== 0)
    .map((v) => v.name.replace(/^ERROR_REASON_/, ''));
  assert.equal([...contract].sort(), Object.keys(GRPC_STATUS_BY_CODE).sort());
  assert.is(ErrorReasonSchema.values.find((v) => v.number === 0)?.name, 'ERROR_REASON_UNSPECIFIED');
});

test('a reason read from the wire is the contract name, and anything else is not a reason', () => {
  for (const code of Object.keys(GRPC_STATUS_BY_CODE)) assert.is(errorReasonName(code), code);
  assert.is(ErrorReason[errorReasonName('INSUFFICIENT_BALANCE')!], ErrorReason.INSUFFICIENT_BALANCE);
  for (const other of ['UNSPECIFIED', '2', 'RATE_LIMITED', 'toString', '__proto__', 'insufficient_balance', '']) {
    assert.is(errorReasonName(other), undefined, JSON.stringify(other));
  }
});

test('an unknown outcome is gRPC UNKNOWN with its message (check the ledger), and is logged for an operator', () => {
  const logged: [string, Record<string, unknown>][] = [];
  const error = new DomainError(
    'OUTCOME_UNKNOWN',
    'Check the ledger before retrying; a retry with the reference R-1 is applied at most once.',
  );
  const answer = toServiceError(error, (event, fields) => logged.push([event, fields]), 'CreditWallet');
  assert.is(answer.code, status.UNKNOWN);
  assert.is(answer.details, error.message);
  assert.equal(logged, [['rpc.outcome_unknown', { rpc: 'CreditWallet', error: error.message }]]);
  // Other answered domain errors are the caller's business and are not logged.
  toServiceError(
    new DomainError('NOT_FOUND', 'Account x was not found.'),
    (event, fields) => logged.push([event, fields]),
    'GetAccount',
  );
  assert.is(logged.length, 1);
});

test.run();
