/**
 * The public JSON shapes built from the core's messages: purchase answers and the
 * transaction record shown by `transaction` and `transactions`. Money leaves as Naira
 * numbers with at most two decimals; everything inside stays integer kobo.
 */
import { type Timestamp, timestampMs } from '@bufbuild/protobuf/wkt';
import { type Kobo, kobo, koboToNaira } from '../../core/domain/money.js';
import { productWord, statusWord } from '../../core/domain/words.js';
import { Product, type Transaction, TransactionStatus } from '../../gen/prepaid/v1/types_pb.js';
import { providerFailed } from '../errors.js';
import type { ActionResult } from './action.js';

/**
 * A JS number from an int64 field (kobo, plan ids). The core keeps every amount and id far
 * inside the safe integer range; one outside it is a fault, not something to round.
 */
export function int64(value: bigint): number {
  const number = Number(value);
  if (!Number.isSafeInteger(number)) throw new Error(`the core sent an int64 outside the safe range: ${value}`);
  return number;
}

/** Naira for a JSON body, from an int64 kobo field. */
export function naira(valueKobo: bigint): number {
  return koboToNaira(koboOf(valueKobo));
}

/** Kobo from an int64 kobo field of the core. */
function koboOf(valueKobo: bigint): Kobo {
  return kobo(int64(valueKobo));
}

/** A purchase RPC's answer: the transaction and whether it replays an idempotency key. */
export interface PurchaseOutcome {
  transaction?: Transaction | undefined;
  replayed: boolean;
}

/**
 * The answer to a purchase. A delivered purchase is 200 with `status`, `reference`,
 * `charged`, `balance` and the product's fields from `delivered`; a pending one is 202 with
 * the same money fields, the product fields that are known before delivery (`known`), and a
 * message saying how to follow it up. A failed purchase arrives from the core as the
 * PROVIDER_FAILED error, never here; should one arrive anyway it is answered the same way.
 */
export function purchaseAnswer(
  outcome: PurchaseOutcome,
  fields: {
    delivered?: (tx: Transaction) => Record<string, unknown>;
    known?: (tx: Transaction) => Record<string, unknown>;
  } = {},
): ActionResult {
  const tx = outcome.transaction;
  if (tx === undefined) throw new Error('the core answered a purchase without its transaction');
  const headers: Record<string, string> = outcome.replayed ? { 'Idempotent-Replayed': 'true' } : {};
  const money = { reference: tx.reference, charged: naira(tx.chargedKobo), balance: naira(tx.balanceAfterKobo) };
  switch (tx.status) {
    case TransactionStatus.SUCCESS:
      return {
        httpStatus: 200,
        headers,
        body: { status: 'success', ...money, ...fields.known?.(tx), ...fields.delivered?.(tx) },
      };
    case TransactionStatus.PENDING:
      return {
        httpStatus: 202,
        headers,
        body: {
          status: 'pending',
          ...money,
          ...fields.known?.(tx),
          message:
            'The provider has not confirmed this purchase yet; the charge is held until it does. ' +
            `Check it with ?action=transaction&reference=${tx.reference}.`,
        },
      };
    case TransactionStatus.FAILED:
      throw providerFailed(tx.reference, koboOf(tx.chargedKobo));
    default:
      throw new Error(`the core answered a purchase with status ${tx.status}`);
  }
}

/** A transaction as `transaction` and `transactions` show it. */
export interface TransactionView {
  reference: string;
  /** airtime, data, electricity, cable or bulksms. */
  product: string | null;
  /** pending, success or failed. */
  status: string | null;
  /** Network, disco or cable provider. */
  service: string;
  /** Phone, meter or smart card number; null for bulk SMS. */
  recipient: string | null;
  /** Face value in Naira (airtime amount, plan or package price, electricity amount, SMS list price). */
  amount: number;
  /** What the wallet was debited, in Naira. */
  charged: number;
  plan_id: number | null;
  /** Data plan label. */
  plan: string | null;
  /** Cable package name. */
  package: string | null;
  package_code: string | null;
  meter_type: string | null;
  token: string | null;
  units: string | null;
  /**
   * Key-change tokens of a prepaid vend, in the order the meter takes them; [] for electricity without any, null for
   * other products.
   */
  kct_tokens: string[] | null;
  /** Bonus (free basic electricity) tokens; [] for electricity without any, null for other products. */
  bonus_tokens: string[] | null;
  sent: number | null;
  pages: number | null;
  /** Why it failed; the charge was refunded in full. */
  failure_reason: string | null;
  request_id: string | null;
  created_at: string | null;
  updated_at: string | null;
  /** True for a live purchase, false for a test one (test wallet, sandbox only). */
  livemode: boolean;
}

/**
 * The keys of a transaction's JSON in the order transactionView writes them: the OpenAPI
 * schema's required list, and the order gateway/actions/page-json.ts writes history pages in
 * (which checks it against the view itself).
 */
export const TRANSACTION_KEYS = [
  'reference',
  'product',
  'status',
  'service',
  'recipient',
  'amount',
  'charged',
  'plan_id',
  'plan',
  'package',
  'package_code',
  'meter_type',
  'token',
  'units',
  'kct_tokens',
  'bonus_tokens',
  'sent',
  'pages',
  'failure_reason',
  'request_id',
  'created_at',
  'updated_at',
  'livemode',
] as const satisfies readonly (keyof TransactionView)[];

/**
 * Every transaction has the same keys, null where a field does not apply to its product or
 * is not known yet, so that clients can read any of them without checking the product.
 */
export function transactionView(tx: Transaction): TransactionView {
  const product = productWord(tx.product);
  return {
    reference: tx.reference,
    product,
    status: statusWord(tx.status),
    service: tx.service,
    recipient: orNull(tx.recipient),
    amount: naira(tx.faceValueKobo),
    charged: naira(tx.chargedKobo),
    plan_id: tx.product === Product.DATA && tx.planId > 0n ? int64(tx.planId) : null,
    plan: tx.product === Product.DATA ? orNull(tx.planLabel) : null,
    package: tx.product === Product.CABLE ? orNull(tx.planLabel) : null,
    package_code: tx.product === Product.CABLE ? orNull(tx.packageCode) : null,
    meter_type: orNull(tx.meterType),
    token: orNull(tx.token),
    units: orNull(tx.units),
    kct_tokens: tx.product === Product.ELECTRICITY ? [...tx.kctTokens] : null,
    bonus_tokens: tx.product === Product.ELECTRICITY ? [...tx.bonusTokens] : null,
    sent: tx.product === Product.BULK_SMS ? tx.smsSent : null,
    pages: tx.product === Product.BULK_SMS ? tx.smsPages : null,
    failure_reason: orNull(tx.failureReason),
    request_id: orNull(tx.requestId),
    created_at: isoTime(tx.createdAt),
    updated_at: isoTime(tx.updatedAt),
    livemode: tx.livemode,
  };
}

/** The transaction inside a GetTransaction answer, or an internal fault when it is missing. */
export function requireTransaction(tx: Transaction | undefined): Transaction {
  if (tx === undefined) throw new Error('the core answered without a transaction');
  return tx;
}

function orNull(text: string): string | null {
  return text === '' ? null : text;
}

function isoTime(timestamp: Timestamp | undefined): string | null {
  return timestamp === undefined ? null : isoString(timestampMs(timestamp));
}

const DAY_MS = 86_400_000;
/** Date.prototype.toISOString's "YYYY-MM-DD" form covers years 0 to 9999. */
const ISO_END_MS = 253_402_300_800_000;
/** The "YYYY-MM-DDT" of the day last written, as bytes: the rows of a page are mostly of one day. */
let isoDay = Number.NaN;
let isoDayPrefix = new Uint8Array(0);
/** Room for any toISOString text ("+275760-09-13T00:00:00.000Z" is the longest). */
const isoScratch = Buffer.alloc(32);

/**
 * `new Date(ms).toISOString()`, without the Date: the day's part is made once per day and
 * the time of day by arithmetic. A 100-row page has 200 times, and toISOString was as much
 * of the gateway's work on a page as the rest of the view.
 */
export function isoString(ms: number): string {
  return isoScratch.toString('latin1', 0, writeIsoString(isoScratch, 0, ms));
}

/**
 * isoString's text written as ASCII into `out` at `at` (which has room for it); returns where
 * it ends. The history page writer (page-json.ts) writes its times with it, so both give the
 * same text by construction.
 */
export function writeIsoString(out: Buffer, at: number, ms: number): number {
  if (!(ms >= 0 && ms < ISO_END_MS) || !Number.isInteger(ms))
    return at + out.write(new Date(ms).toISOString(), at, 'latin1');
  const day = Math.floor(ms / DAY_MS);
  if (day !== isoDay) {
    isoDay = day;
    isoDayPrefix = Buffer.from(new Date(day * DAY_MS).toISOString().slice(0, 11), 'latin1');
  }
  let o = at;
  for (let i = 0; i < isoDayPrefix.length; i++) out[o++] = isoDayPrefix[i]!;
  let rest = ms - day * DAY_MS;
  const hours = Math.floor(rest / 3_600_000);
  rest -= hours * 3_600_000;
  const minutes = Math.floor(rest / 60_000);
  rest -= minutes * 60_000;
  const seconds = Math.floor(rest / 1000);
  const millis = rest - seconds * 1000;
  o = twoDigits(out, o, hours);
  out[o++] = 0x3a;
  o = twoDigits(out, o, minutes);
  out[o++] = 0x3a;
  o = twoDigits(out, o, seconds);
  out[o++] = 0x2e;
  out[o++] = 0x30 + Math.floor(millis / 100);
  o = twoDigits(out, o, millis % 100);
  out[o++] = 0x5a;
  return o;
}

function twoDigits(out: Buffer, at: number, n: number): number {
  out[at] = 0x30 + Math.floor(n / 10);
  out[at + 1] = 0x30 + (n % 10);
  return at + 2;
}
