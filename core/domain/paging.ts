/**
 * Pages of a long list (a history, a ledger, the pending list): a bounded number of items
 * and an opaque cursor for the next page. Cursors mean the same thing whichever store
 * issued them; core/store/paging.ts encodes them.
 */

import { invalid } from './errors.js';

/** A history page when the caller names no size: a screenful, cheap to read. */
export const DEFAULT_HISTORY_PAGE_SIZE = 20;
/** The most rows one history call reads, so that one call stays cheap for the store. */
export const MAX_HISTORY_PAGE_SIZE = 100;

/**
 * The size of a history page: the default when the caller named none, else the size asked
 * for, which must be 1 to MAX_HISTORY_PAGE_SIZE. The violation names the public field
 * (`limit`), so that a partner and an internal caller read the same sentence.
 */
export function historyPageSize(requested: number | undefined): number {
  if (requested === undefined) return DEFAULT_HISTORY_PAGE_SIZE;
  if (!Number.isInteger(requested) || requested < 1 || requested > MAX_HISTORY_PAGE_SIZE) {
    throw invalid('limit', `limit must be between 1 and ${MAX_HISTORY_PAGE_SIZE}.`);
  }
  return requested;
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

export interface Page<T> {
  items: T[];
  /** Cursor for the next page, absent on the last page. */
  next?: string;
}
