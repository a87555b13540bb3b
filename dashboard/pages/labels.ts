/**
 * Words for the contract's enums and the filter values in addresses, in one place for every
 * page and export. These are names, not rules.
 */
import { Product, TransactionStatus } from '../../gen/prepaid/v1/types_pb.js';

export const PRODUCT_LABELS: Readonly<Record<Product, string>> = {
  [Product.UNSPECIFIED]: 'Any product',
  [Product.AIRTIME]: 'Airtime',
  [Product.DATA]: 'Data',
  [Product.ELECTRICITY]: 'Electricity',
  [Product.CABLE]: 'Cable TV',
  [Product.BULK_SMS]: 'Bulk SMS',
};

/** The product words of the public API (`product` in a transaction: bulksms), used in filter addresses and CSV. */
export const PRODUCT_WORDS: Readonly<Record<Product, string>> = {
  [Product.UNSPECIFIED]: '',
  [Product.AIRTIME]: 'airtime',
  [Product.DATA]: 'data',
  [Product.ELECTRICITY]: 'electricity',
  [Product.CABLE]: 'cable',
  [Product.BULK_SMS]: 'bulksms',
};

export const STATUS_LABELS: Readonly<Record<TransactionStatus, string>> = {
  [TransactionStatus.UNSPECIFIED]: 'Any status',
  [TransactionStatus.PENDING]: 'Pending',
  [TransactionStatus.SUCCESS]: 'Successful',
  [TransactionStatus.FAILED]: 'Failed (refunded)',
  [TransactionStatus.REVERSED]: 'Reversed (refunded)',
};

export const STATUS_WORDS: Readonly<Record<TransactionStatus, string>> = {
  [TransactionStatus.UNSPECIFIED]: '',
  [TransactionStatus.PENDING]: 'pending',
  [TransactionStatus.SUCCESS]: 'success',
  [TransactionStatus.FAILED]: 'failed',
  [TransactionStatus.REVERSED]: 'reversed',
};

/** The enum value for a word from an address; UNSPECIFIED for anything else. */
export function fromWord<E extends number>(words: Readonly<Record<E, string>>, word: string | null): E {
  for (const [value, text] of Object.entries(words) as [string, string][])
    if (text !== '' && text === word) return Number(value) as E;
  return 0 as E;
}
