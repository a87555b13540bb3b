/**
 * The console's list of accounts: which accounts (filters that narrow, each optional), in which
 * order (a sort key and its direction, the account id breaking ties), a bounded page at a time.
 * Both stores read the same query (`AccountStore.list`); the bounds are `ACCOUNT_PAGES`.
 */
import { invalid } from './errors.js';

/** What the list is sorted by: when the account was made, its live balance, or its name (byte order). */
export type AccountSort = 'created' | 'balance' | 'name';

export const ACCOUNT_SORTS: readonly AccountSort[] = ['created', 'balance', 'name'];

export interface AccountListFilter {
  tierId?: string;
  /** true: only suspended accounts; false: only accounts that are not; absent: both. */
  suspended?: boolean;
  /** Made at or after. */
  createdFrom?: Date;
  /** Made strictly before. */
  createdBefore?: Date;
  /** The live balance, both bounds included. */
  balanceMinKobo?: number;
  balanceMaxKobo?: number;
}

export interface AccountListQuery extends AccountListFilter {
  sort: AccountSort;
  descending: boolean;
  limit: number;
  /** The cursor the previous page answered (core/store/paging.ts). */
  after?: string;
}

/** A tier id as the list takes it: a short word. */
const MAX_TIER_CHARS = 64;

/** The filter checked: a reversed range or a malformed bound is the caller's error, said once. */
export function checkAccountFilter(filter: AccountListFilter): AccountListFilter {
  const { createdFrom, createdBefore, balanceMinKobo, balanceMaxKobo, tierId } = filter;
  if (tierId !== undefined && tierId.length > MAX_TIER_CHARS) {
    throw invalid('tier_id', `tier_id must be at most ${MAX_TIER_CHARS} characters.`);
  }
  for (const [field, at] of [
    ['created_from', createdFrom],
    ['created_before', createdBefore],
  ] as const) {
    if (at !== undefined && Number.isNaN(at.getTime())) throw invalid(field, `${field} must be a date.`);
  }
  if (createdFrom && createdBefore && createdFrom.getTime() >= createdBefore.getTime()) {
    throw invalid('created_before', 'created_before must be after created_from.');
  }
  for (const [field, amount] of [
    ['balance_min_kobo', balanceMinKobo],
    ['balance_max_kobo', balanceMaxKobo],
  ] as const) {
    if (amount !== undefined && !Number.isSafeInteger(amount)) {
      throw invalid(field, `${field} must be a whole number of kobo.`);
    }
  }
  if (balanceMinKobo !== undefined && balanceMaxKobo !== undefined && balanceMinKobo > balanceMaxKobo) {
    throw invalid('balance_max_kobo', 'balance_max_kobo must not be below balance_min_kobo.');
  }
  return filter;
}
