/**
 * Pages of a long list (a history, a ledger, the pending list): a bounded number of items
 * and an opaque cursor for the next page. Cursors mean the same thing whichever store
 * issued them; core/store/paging.ts encodes them.
 */

import { type DomainError, invalid } from './errors.js';

/**
 * The bounds of one kind of list: the size a page has when the caller names none, and the
 * most rows one call may read, so that one call stays cheap for the store.
 */
export interface PageBounds {
  defaultSize: number;
  maxSize: number;
}

/** A history or event page when the caller names no size: a screenful, cheap to read. */
export const DEFAULT_HISTORY_PAGE_SIZE = 20;
/** The most rows one history call reads, so that one call stays cheap for the store. */
export const MAX_HISTORY_PAGE_SIZE = 100;
/** Partners' histories and event feeds, and a webhook's deliveries. */
export const HISTORY_PAGES: PageBounds = { defaultSize: DEFAULT_HISTORY_PAGE_SIZE, maxSize: MAX_HISTORY_PAGE_SIZE };
/** The operator's pending list: a person reads it, a script may page it in large steps. */
export const PENDING_PAGES: PageBounds = { defaultSize: 100, maxSize: 500 };
/** The operator's view of one wallet's ledger. */
export const LEDGER_PAGES: PageBounds = { defaultSize: 100, maxSize: 500 };
/** The developer area's history and statement; an export reads pages of the largest size in turn. */
export const HOLDER_PAGES: PageBounds = { defaultSize: 50, maxSize: 500 };
/** The staff audit log (the console's page, `prepaid staff audit`). */
export const AUDIT_PAGES: PageBounds = { defaultSize: 50, maxSize: 200 };
/** The console's list of accounts and its transactions desk: a screenful, and what a person pages through. */
export const ACCOUNT_PAGES: PageBounds = { defaultSize: 50, maxSize: 200 };
export const DESK_PAGES: PageBounds = { defaultSize: 50, maxSize: 200 };

/**
 * The size of a page: the default when the caller named none (`undefined`; an RPC whose
 * plain `int32 page_size` cannot be absent passes its 0 as `undefined`), else the size asked
 * for, which must be 1 to the bound. The violation names the caller's field (`limit` for the
 * public history, so that a partner and an internal caller read the same sentence).
 */
export function pageSize(requested: number | undefined, bounds: PageBounds, field: string): number {
  if (requested === undefined) return bounds.defaultSize;
  if (!Number.isInteger(requested) || requested < 1 || requested > bounds.maxSize) {
    throw invalid(field, `${field} must be between 1 and ${bounds.maxSize}.`);
  }
  return requested;
}

/** A history page's size: `pageSize` over HISTORY_PAGES, the violation naming `limit`. */
export function historyPageSize(requested: number | undefined): number {
  return pageSize(requested, HISTORY_PAGES, 'limit');
}

/** A plain proto3 `int32` page size, where 0 is the only way to say "none". */
export function sizeOrDefault(requested: number): number | undefined {
  return requested === 0 ? undefined : requested;
}

/** A page cursor: items strictly older than this one. */
export interface PageRequest {
  limit: number;
  /** Opaque adapter-independent cursor: the last item's sort key from the previous page. */
  after?: string;
}

/** Thrown by an adapter for a page cursor it did not issue or cannot decode. */
export class InvalidCursorError extends Error {
  constructor() {
    super('invalid page cursor');
    this.name = 'InvalidCursorError';
  }
}

/** The one answer to a cursor this service did not issue, naming the caller's field. */
export function cursorRefused(field: string): DomainError {
  return invalid(field, `${field} is not one this service issued.`);
}

/**
 * Reads a page through `read`, answering a cursor the store cannot decode (InvalidCursorError)
 * as an invalid `field` rather than an internal error: the cursor came from the client.
 */
export async function readPage<T>(field: string, read: () => Promise<T>): Promise<T> {
  try {
    return await read();
  } catch (error) {
    if (error instanceof InvalidCursorError) throw cursorRefused(field);
    throw error;
  }
}

export interface Page<T> {
  items: T[];
  /** Cursor for the next page, absent on the last page. */
  next?: string;
}
