/**
 * Paging, once for every adapter. A cursor is the sort key of the last item of a page as
 * base64url JSON, so a caller can only hand it back and never build one from a record's
 * fields, and a cursor means the same thing whichever store issued it (the port calls
 * cursors adapter-independent). A cursor that does not decode came from outside (a
 * client): InvalidCursorError lets the use case answer with an invalid parameter instead
 * of a fault.
 */
import { InvalidCursorError, type Page } from '../domain/paging.js';

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

/**
 * A cursor that starts a history read just before `date`: its first page holds the newest
 * transactions created strictly before it. With it a long read of a period (a CSV export of a
 * year of a big reseller's history, a statement) starts at the period's end without reading
 * anything newer, goes page by page down the history index (at most MAX_PAGE_LIMIT rows in
 * memory at a time, on either adapter), and stops at the first item older than the period's
 * start. Each page is one short indexed read, so a long export never holds the store for long,
 * and purchases made meanwhile are newer than every cursor, so they shift no page.
 */
export function transactionCursorBefore(date: Date): string {
  // Every reference sorts after '', so nothing created at `date` itself is included.
  return encodeTransactionCursor(date, '');
}

export function decodeTransactionCursor(cursor: string): TransactionCursor {
  const [createdAtMs, reference, ...rest] = decode(cursor);
  if (
    typeof createdAtMs !== 'number' ||
    !Number.isSafeInteger(createdAtMs) ||
    typeof reference !== 'string' ||
    rest.length > 0
  ) {
    throw new InvalidCursorError();
  }
  return { createdAtMs, reference };
}

/** Ledger entries page newest first by entry id, which only ever grows within an account. */
export function encodeLedgerCursor(entryId: number): string {
  return encode([entryId]);
}

export function decodeLedgerCursor(cursor: string): number {
  const [entryId, ...rest] = decode(cursor);
  if (typeof entryId !== 'number' || !Number.isSafeInteger(entryId) || rest.length > 0) throw new InvalidCursorError();
  return entryId;
}

/** An account's deliveries page newest first by event seq, which only ever grows within an account. */
export function encodeEventCursor(seq: number): string {
  return encode([seq]);
}

export function decodeEventCursor(cursor: string): number {
  return decodeLedgerCursor(cursor);
}

/** Where a page of the console's accounts stops: its last item's sort value and id. */
export function encodeAccountCursor(value: number | string, accountId: string): string {
  return encode([value, accountId]);
}

/** The cursor's sort value must be of the sort's kind (a number for a time or balance, text for a name). */
export function decodeAccountCursor(
  cursor: string,
  kind: 'number' | 'string',
): { value: number | string; accountId: string } {
  const [value, accountId, ...rest] = decode(cursor);
  const valueOk =
    kind === 'number' ? typeof value === 'number' && Number.isSafeInteger(value) : typeof value === 'string';
  if (!valueOk || typeof accountId !== 'string' || rest.length > 0) throw new InvalidCursorError();
  return { value: value as number | string, accountId };
}

/**
 * The events feed pages oldest first after the last event a page showed, named by its id (null
 * before the first event), so the cursor carries nothing the account did not already see.
 */
export function encodeFeedCursor(eventId: string | null): string {
  return encode(eventId === null ? [] : [eventId]);
}

export function decodeFeedCursor(cursor: string): string | null {
  const key = decode(cursor);
  if (key.length === 0) return null;
  const [eventId, ...rest] = key;
  if (typeof eventId !== 'string' || eventId === '' || eventId.length > 64 || rest.length > 0)
    throw new InvalidCursorError();
  return eventId;
}

/**
 * A page from `limit + 1` fetched items: the extra one only proves there is a next page,
 * and the cursor is the last kept item's sort key.
 */
export function toPage<R, T>(rows: R[], limit: number, map: (row: R) => T, cursor: (row: R) => string): Page<T> {
  const more = rows.length > limit;
  const kept = more ? rows.slice(0, limit) : rows;
  const page: Page<T> = { items: kept.map(map) };
  if (more) page.next = cursor(kept[kept.length - 1]!);
  return page;
}
