/**
 * The contract's words for its enums, once: the product, status and mode words of the public
 * API (docs/api.md) against the generated enums (gen/prepaid/v1/types_pb.ts), both ways. Every
 * client (gateway/, dashboard/, console/, cli/) names a product or a status through these
 * tables; each is a Record over its enum, so a new enum value fails to compile until it has a
 * word. UNSPECIFIED has none (null).
 */
import { Mode as ModeEnum, Product, TransactionStatus as StatusEnum } from '../../gen/prepaid/v1/types_pb.js';
import type { EventType } from './events.js';
import type { Mode } from './mode.js';
import type { ProductName, TransactionStatus } from './products.js';

/** A product that is sold: every value but UNSPECIFIED. */
type SoldProduct = Exclude<Product, Product.UNSPECIFIED>;

const SOLD_PRODUCT_WORDS: Readonly<Record<SoldProduct, ProductName>> = {
  [Product.AIRTIME]: 'airtime',
  [Product.DATA]: 'data',
  [Product.ELECTRICITY]: 'electricity',
  [Product.CABLE]: 'cable',
  [Product.BULK_SMS]: 'bulksms',
};

export const PRODUCT_WORDS: Readonly<Record<Product, ProductName | null>> = {
  [Product.UNSPECIFIED]: null,
  ...SOLD_PRODUCT_WORDS,
};

/** The word of a product that is sold ("bulksms" for BULK_SMS): a key scope, a route's product. */
export function soldProductWord(product: SoldProduct): ProductName {
  return SOLD_PRODUCT_WORDS[product];
}

export const STATUS_WORDS: Readonly<Record<StatusEnum, TransactionStatus | null>> = {
  [StatusEnum.UNSPECIFIED]: null,
  [StatusEnum.PENDING]: 'pending',
  [StatusEnum.SUCCESS]: 'success',
  [StatusEnum.FAILED]: 'failed',
  [StatusEnum.REVERSED]: 'reversed',
};

/** The statuses a transaction may have, in the enum's order. */
export const TRANSACTION_STATUSES: readonly TransactionStatus[] = Object.values(STATUS_WORDS).filter(
  (word): word is TransactionStatus => word !== null,
);

const MODE_WORDS: Readonly<Record<ModeEnum, Mode>> = {
  [ModeEnum.UNSPECIFIED]: 'live',
  [ModeEnum.LIVE]: 'live',
  [ModeEnum.TEST]: 'test',
};

const MODE_ENUMS: Readonly<Record<Mode, ModeEnum>> = { live: ModeEnum.LIVE, test: ModeEnum.TEST };

/**
 * The word of a mode the core answered: only an explicit test is test; unset (a core that predates
 * test mode) and any value this build does not know are live.
 */
export function modeWord(mode: ModeEnum): Mode {
  return MODE_WORDS[mode] ?? 'live';
}

/** The core's Mode for a mode word: every mode-scoped call names it, live included. */
export function modeOfWord(mode: Mode): ModeEnum {
  return MODE_ENUMS[mode];
}

/** The event a purchase's final status announces (core/domain/events.ts). */
export const TRANSACTION_EVENT_TYPES: Readonly<Record<Exclude<TransactionStatus, 'pending'>, EventType>> = {
  success: 'transaction.success',
  failed: 'transaction.failed',
  reversed: 'transaction.reversed',
};

/** The contract's word of a product, or null for UNSPECIFIED and a value this build does not know. */
export function productWord(product: Product): ProductName | null {
  return PRODUCT_WORDS[product] ?? null;
}

/** The product a contract word names, or UNSPECIFIED for any other text. */
export function productOfWord(word: string | null | undefined): Product {
  return enumOfWord(PRODUCT_WORDS, word);
}

/** The contract's word of a transaction status, or null for UNSPECIFIED and an unknown value. */
export function statusWord(status: StatusEnum): TransactionStatus | null {
  return STATUS_WORDS[status] ?? null;
}

/** The status a contract word names, or UNSPECIFIED for any other text. */
export function statusOfWord(word: string | null | undefined): StatusEnum {
  return enumOfWord(STATUS_WORDS, word);
}

function enumOfWord<E extends number>(words: Readonly<Record<E, string | null>>, word: string | null | undefined): E {
  for (const [value, text] of Object.entries(words) as [string, string | null][])
    if (text !== null && text === word) return Number(value) as E;
  return 0 as E;
}
