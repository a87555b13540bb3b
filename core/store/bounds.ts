/**
 * Guards every store adapter applies to what it is handed. The use cases validate amounts
 * and page sizes first, so reaching one of these with a bad value is a bug: they throw.
 */

/**
 * The largest page any caller may ask for. The use cases choose smaller pages; this only
 * stops a bug from loading a whole history into memory.
 */
const MAX_PAGE_LIMIT = 1_000;

export function requireAmount(name: string, value: number, min: number): void {
  if (!Number.isSafeInteger(value) || value < min) {
    throw new RangeError(`store: ${name} must be a safe integer >= ${min}, got ${String(value)}`);
  }
}

export function requireLimit(limit: number): number {
  if (!Number.isSafeInteger(limit) || limit < 1 || limit > MAX_PAGE_LIMIT) {
    throw new RangeError(`store: page limit must be an integer from 1 to ${MAX_PAGE_LIMIT}, got ${String(limit)}`);
  }
  return limit;
}

/** A recovery attempt count is a non-negative integer; anything else is a bug in the worker. */
export function requireAttempts(attempts: number): void {
  if (!Number.isSafeInteger(attempts) || attempts < 0) {
    throw new RangeError('store: attempts must be a non-negative integer');
  }
}

/** How long the float poller's readings are kept: more than a month of days the reconciliation may be run again. */
export const READINGS_KEPT_DAYS = 40;
