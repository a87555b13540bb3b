/**
 * The console's transactions desk: which live purchases a search reads. A search is always a
 * bounded time range (at most DESK_RANGE_DAYS), so a store reads one range of its purchases
 * by time (or of one account's history) and never the whole table; a reference alone needs no range.
 */
import { invalid } from './errors.js';
import type { TransactionQuery } from './records.js';

/** The longest range one search covers. */
const DESK_RANGE_DAYS = 31;
const DAY_MS = 86_400_000;
/** A recipient, an account id or an upstream's name: short words. */
const MAX_WORD_CHARS = 96;

/** The store's query: the history's filters, across accounts or for one, and the upstream any attempt went to. */
export interface DeskTransactionQuery
  extends Omit<TransactionQuery, 'from' | 'until' | 'recipientPrefix' | 'requestId'> {
  accountId?: string;
  upstream?: string;
  from: Date;
  until: Date;
}

/** The range checked (both ends, in order, at most DESK_RANGE_DAYS) and the words bounded. */
export function checkDeskQuery(query: DeskTransactionQuery): DeskTransactionQuery {
  const { from, until } = query;
  if (Number.isNaN(from.getTime())) throw invalid('created_from', 'created_from must be a date.');
  if (Number.isNaN(until.getTime())) throw invalid('created_before', 'created_before must be a date.');
  if (from.getTime() >= until.getTime()) throw invalid('created_before', 'created_before must be after created_from.');
  if (until.getTime() - from.getTime() > DESK_RANGE_DAYS * DAY_MS) {
    throw invalid('created_before', `A search covers at most ${DESK_RANGE_DAYS} days.`);
  }
  for (const [field, value] of [
    ['recipient', query.recipient],
    ['account_id', query.accountId],
    ['upstream', query.upstream],
  ] as const) {
    if (value !== undefined && value.length > MAX_WORD_CHARS) {
      throw invalid(field, `${field} must be at most ${MAX_WORD_CHARS} characters.`);
    }
  }
  return query;
}
