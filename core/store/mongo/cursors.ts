/**
 * Page cursors of the MongoDB adapter. A cursor is the sort key of the last item of a
 * page as base64url JSON, in exactly the format the SQLite adapter uses, so a cursor means
 * the same thing whichever store issued it (the port calls cursors adapter-independent).
 * A cursor that does not decode came from outside: InvalidCursorError lets the use case
 * answer with an invalid parameter instead of a fault.
 */
import { InvalidCursorError } from '../port.js';

/** Where a page of transactions stops: its last item's creation time and reference. */
export interface TransactionCursor {
  createdAtMs: number;
  reference: string;
}

function encode(key: unknown[]): string {
  return Buffer.from(JSON.stringify(key), 'utf8').toString('base64url');
}

function decode(cursor: string): unknown[] {
  try {
    const key: unknown = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8'));
    if (Array.isArray(key)) return key;
  } catch {
    // Not JSON: falls through to the error below.
  }
  throw new InvalidCursorError();
}

/** Transactions page by (created_at, reference): newest first in history, oldest first in the pending list. */
export function encodeTransactionCursor(createdAt: Date, reference: string): string {
  return encode([createdAt.getTime(), reference]);
}

export function decodeTransactionCursor(cursor: string): TransactionCursor {
  const [createdAtMs, reference, ...rest] = decode(cursor);
  if (typeof createdAtMs !== 'number' || !Number.isSafeInteger(createdAtMs) || typeof reference !== 'string' || rest.length > 0) {
    throw new InvalidCursorError();
  }
  return { createdAtMs, reference };
}

/** Ledger entries page newest first by entry_id, which only ever grows within an account. */
export function encodeLedgerCursor(entryId: number): string {
  return encode([entryId]);
}

export function decodeLedgerCursor(cursor: string): number {
  const [entryId, ...rest] = decode(cursor);
  if (typeof entryId !== 'number' || !Number.isSafeInteger(entryId) || rest.length > 0) throw new InvalidCursorError();
  return entryId;
}
