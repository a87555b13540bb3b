/**
 * Words for the contract's enums and the filter values in addresses, in one place for every
 * page and export. These are names, not rules.
 */
import {
  PRODUCT_WORDS as CONTRACT_PRODUCT_WORDS,
  STATUS_WORDS as CONTRACT_STATUS_WORDS,
} from '../../core/domain/words.js';
import { Product, TransactionStatus } from '../../gen/prepaid/v1/types_pb.js';
import { html, type SafeHtml } from '../../web/html.js';

export const PRODUCT_LABELS: Readonly<Record<Product, string>> = {
  [Product.UNSPECIFIED]: 'Any product',
  [Product.AIRTIME]: 'Airtime',
  [Product.DATA]: 'Data',
  [Product.ELECTRICITY]: 'Electricity',
  [Product.CABLE]: 'Cable TV',
  [Product.BULK_SMS]: 'Bulk SMS',
};

/**
 * The contract's words (core/domain/words.ts) with "" for UNSPECIFIED: the value of "any" in a
 * filter address, an empty CSV cell.
 */
function orBlank<E extends number>(words: Readonly<Record<E, string | null>>): Readonly<Record<E, string>> {
  return Object.fromEntries(Object.entries(words).map(([value, word]) => [value, word ?? ''])) as Record<E, string>;
}

/** The product words of the public API (`product` in a transaction: bulksms), used in filter addresses and CSV. */
export const PRODUCT_WORDS = orBlank<Product>(CONTRACT_PRODUCT_WORDS);

export const STATUS_LABELS: Readonly<Record<TransactionStatus, string>> = {
  [TransactionStatus.UNSPECIFIED]: 'Any status',
  [TransactionStatus.PENDING]: 'Pending',
  [TransactionStatus.SUCCESS]: 'Successful',
  [TransactionStatus.FAILED]: 'Failed (refunded)',
  [TransactionStatus.REVERSED]: 'Reversed (refunded)',
};

export const STATUS_WORDS = orBlank<TransactionStatus>(CONTRACT_STATUS_WORDS);

/** How resellers write the plan types. */
export const PLAN_TYPE_NAMES: Readonly<Record<string, string>> = {
  sme: 'SME',
  sme2: 'SME2',
  cg: 'Corporate gifting',
  gifting: 'Gifting',
  awoof: 'Awoof',
  direct: 'Direct',
};

/** "500MB", "1.5GB"; a dash when the size is not known. */
export function sizeText(sizeMb: number): string {
  if (sizeMb <= 0) return '\u2014';
  return sizeMb >= 1024 ? `${Number((sizeMb / 1024).toFixed(2))}GB` : `${sizeMb}MB`;
}

/** The plan's own validity text, with its days where the text does not say them. */
export function validityText(validity: string, days: number): string {
  if (days <= 0 || /\bdays?\b/i.test(validity)) return validity;
  return `${validity} (${days} ${days === 1 ? 'day' : 'days'})`;
}

/** A transaction's status as a coloured tag, in words. */
export function statusTag(status: TransactionStatus): SafeHtml {
  const colour =
    status === TransactionStatus.SUCCESS ? 'green' : status === TransactionStatus.PENDING ? 'yellow' : 'grey';
  return html`<strong class="tag tag--${colour}">${STATUS_LABELS[status]}</strong>`;
}
