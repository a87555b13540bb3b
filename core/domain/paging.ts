/**
 * Pages of a long list (a history, a ledger, the pending list): a bounded number of items
 * and an opaque cursor for the next page. Cursors mean the same thing whichever store
 * issued them; core/store/paging.ts encodes them.
 */

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
