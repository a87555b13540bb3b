/**
 * How the adapter reads the driver's errors. Classification is by error code and error
 * label, never by message text, except for the index name in a duplicate-key error: the
 * server reports which unique index refused a write only in `errmsg` (and, since 4.4, as
 * `keyPattern`), and both are checked.
 */
import { MongoError, MongoErrorLabel, MongoServerError } from 'mongodb';
import { DomainError } from '../../domain/errors.js';

/** The server's code for a write refused by a unique index. */
export const DUPLICATE_KEY_CODE = 11000;

/** The server's code for createCollection on a name that exists (another core got there first). */
export const NAMESPACE_EXISTS_CODE = 48;

/**
 * True when `error` is a duplicate-key refusal by the index named `indexName` (whose key
 * fields are `keyFields`, in order). A duplicate on any other index is not this one: a
 * clash of references must not be mistaken for a replayed idempotency key.
 */
export function isDuplicateKeyOn(error: unknown, indexName: string, keyFields: readonly string[]): boolean {
  if (!(error instanceof MongoServerError) || error.code !== DUPLICATE_KEY_CODE) return false;
  const keyPattern: unknown = error['keyPattern'];
  if (keyPattern !== null && typeof keyPattern === 'object') {
    const fields = Object.keys(keyPattern);
    return fields.length === keyFields.length && fields.every((field, i) => field === keyFields[i]);
  }
  const text = typeof error['errmsg'] === 'string' ? (error['errmsg'] as string) : error.message;
  return new RegExp(`\\bindex: ${escapeRegExp(indexName)} dup key`).test(text);
}

/**
 * The transaction hit a conflict or a failover and may simply be run again. The driver's
 * withTransaction retries these itself until its 120-second limit; one that still reaches
 * the adapter ran out of that time.
 */
export function isTransientTransactionError(error: unknown): boolean {
  return error instanceof MongoError && error.hasErrorLabel(MongoErrorLabel.TransientTransactionError);
}

/**
 * The commit was sent but its outcome is unknown: it may have committed. The driver
 * retries the commit itself (with majority write concern) until its time limit; one that
 * still reaches the adapter must be treated as "maybe written", never as "not written".
 */
export function isUnknownCommitResult(error: unknown): boolean {
  return error instanceof MongoError && error.hasErrorLabel(MongoErrorLabel.UnknownTransactionCommitResult);
}

/**
 * What a wallet credit's failure tells its caller. A commit whose result is unknown (and
 * whose ledger entry the adapter could not find afterwards) becomes OUTCOME_UNKNOWN, whose
 * message says to check the ledger before retrying and names the reference to retry with:
 * a retry with that reference is applied at most once. Any other error is returned as it is.
 */
export function creditFailure(error: unknown, credit: { accountId: string; reference: string }): unknown {
  if (!isUnknownCommitResult(error)) return error;
  return new DomainError(
    'OUTCOME_UNKNOWN',
    `The database could not confirm whether the credit ${credit.reference} to ` +
      `account ${credit.accountId} was written ` +
      '(its commit result is unknown, which happens when the replica set is degraded). ' +
      'Check the ledger before retrying; ' +
      `a retry with the reference ${credit.reference} is applied at most once.`,
    { metadata: { reference: credit.reference } },
  );
}

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}
