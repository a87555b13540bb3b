/**
 * The `transactions` answer written as JSON straight from the core's reply bytes.
 *
 * Why: a 100-row page was decoded into 100 Transaction messages, turned into 100 views and
 * then into one string by JSON.stringify. Every step made objects for the garbage collector,
 * and with 50 connections the GC (on the gateway's thread and V8's helper threads) cost as
 * much as the work itself. Here the protobuf fields are read where they lie and the answer's
 * bytes are written into one buffer: keys are constants, ASCII text is copied with JSON's
 * escapes, numbers and times are written digit by digit, and the view's own tables and
 * helpers (the product and status names, isoString for the day) give everything else.
 * `npm run bench`: 100-row pages about a fifth faster (README, "History pages").
 *
 * Exactness: the bytes are those of `JSON.stringify(transactionsPageBody(decoded))` as
 * UTF-8, the way the page was answered before. Anything out of the plain case leaves the
 * fast path: invalid UTF-8, a known field on a wire type it does not have, a group, a length
 * or varint that runs past its message, an int64 past the safe range that the view shows, a
 * key list that no longer matches the view. The page is then decoded and answered the old
 * way, so the answer, or the error, is what it was. test/gateway/page-json.test.ts compares
 * the two on every product, status and edge the core can send, and on hand-made bytes.
 *
 * Field numbers: read from the generated schema when this module loads (`fieldPlan`), never
 * copied by hand. A renumbered field is followed; a field the writer cannot account for (a
 * new string it neither shows nor checks, a type it does not read, a shown field gone or
 * changed type) turns the fast path off, so the page is answered the old way and the test,
 * which insists on the fast path, fails until the writer learns the field.
 */
import { isUtf8 } from 'node:buffer';
import { create, type DescMessage, ScalarType } from '@bufbuild/protobuf';
import { TimestampSchema } from '@bufbuild/protobuf/wkt';
import { type Kobo, koboToNaira } from '../../core/domain/money.js';
import { PRODUCT_WORDS, STATUS_WORDS } from '../../core/domain/words.js';
import { type ListTransactionsResponse, ListTransactionsResponseSchema } from '../../gen/prepaid/v1/purchase_pb.js';
import { Product, TransactionSchema } from '../../gen/prepaid/v1/types_pb.js';
import { protoDecoder } from '../../runtime/proto-codec/codec.js';
import { TRANSACTION_KEYS, transactionView, writeIsoString } from './views.js';

/** The `transactions` answer's body, as the view and JSON.stringify make it. */
export function transactionsPageBody(res: ListTransactionsResponse): Record<string, unknown> {
  return {
    status: 'success',
    transactions: res.transactions.map(transactionView),
    next_cursor: res.nextPageToken === '' ? null : res.nextPageToken,
  };
}

/** The `transactions` answer for the core's ListTransactionsResponse bytes, as UTF-8 JSON. */
export function transactionsPageJson(bytes: Uint8Array): Buffer {
  try {
    return writeTransactionsPage(bytes);
  } catch {
    // Not the plain case, or a value the view refuses: the old path gives the answer, or the error.
  }
  return Buffer.from(JSON.stringify(transactionsPageBody(protoDecoder(ListTransactionsResponseSchema)(bytes))), 'utf8');
}

/** Bytes the fast path does not take; the page is then decoded the ordinary way. */
const NOT_PLAIN = new Error('not the plain case');

/**
 * The answer written by the fast path alone: throws where transactionsPageJson falls back.
 * Exported for the test, which must know the fast path ran.
 */
export function writeTransactionsPage(bytes: Uint8Array): Buffer {
  return new PageWriter(bytes).page();
}

/** The view's keys in its order; checked against transactionView itself below. */
const VIEW_KEYS = TRANSACTION_KEYS;

/** `{"key":` for the first key and `,"key":` for the others, by the key's place; and the same followed by null. */
const KEY = VIEW_KEYS.map((key, i) => ascii(`${i === 0 ? '{' : ','}${JSON.stringify(key)}:`));
const KEY_NULL = VIEW_KEYS.map((key, i) => ascii(`${i === 0 ? '{' : ','}${JSON.stringify(key)}:null`));
const place = (key: (typeof VIEW_KEYS)[number]) => VIEW_KEYS.indexOf(key);
const REFERENCE = place('reference');
const PRODUCT = place('product');
const STATUS = place('status');
const SERVICE = place('service');
const RECIPIENT = place('recipient');
const AMOUNT = place('amount');
const CHARGED = place('charged');
const PLAN_ID = place('plan_id');
const PLAN = place('plan');
const PACKAGE = place('package');
const PACKAGE_CODE = place('package_code');
const METER_TYPE = place('meter_type');
const TOKEN = place('token');
const UNITS = place('units');
const KCT_TOKENS = place('kct_tokens');
const BONUS_TOKENS = place('bonus_tokens');
const SENT = place('sent');
const PAGES = place('pages');
const FAILURE_REASON = place('failure_reason');
const REQUEST_ID = place('request_id');
const CREATED_AT = place('created_at');
const UPDATED_AT = place('updated_at');
/** Runs of keys that are null together: a product's fields on the other products' rows. */
const NO_PLAN = ascii(',"plan_id":null,"plan":null');
const NO_PACKAGE = ascii(',"package":null,"package_code":null');
const NO_PLAN_OR_PACKAGE = ascii(',"plan_id":null,"plan":null,"package":null,"package_code":null');
const NO_SMS = ascii(',"sent":null,"pages":null');
const NO_EXTRA_TOKENS = ascii(',"kct_tokens":null,"bonus_tokens":null');
const ELECTRICITY = Product.ELECTRICITY;
const LIVEMODE_TRUE = ascii(',"livemode":true}');
const LIVEMODE_FALSE = ascii(',"livemode":false}');
const PAGE_START = ascii('{"status":"success","transactions":[');
const PAGE_CURSOR = ascii('],"next_cursor":');
const PAGE_END_NULL = ascii('],"next_cursor":null');
const NULL = ascii('null');
const DATA = Product.DATA;
const CABLE = Product.CABLE;
const BULK_SMS = Product.BULK_SMS;

/** 2^32, and the high word below which a varint is a safe integer as hi * 2^32 + lo. */
const TWO_32 = 4_294_967_296;
const SAFE_HI = 0x20_0000;
/** Kobo below this are written digit by digit: every decimal of at most 15 digits is its own shortest form. */
const DIGITS_MAX = 1e15;
/** Wire types. */
const VARINT = 0;
const LEN = 2;
const ROWS_TAG = (ListTransactionsResponseSchema.field.transactions!.number << 3) | LEN;
const CURSOR_TAG = (ListTransactionsResponseSchema.field.nextPageToken!.number << 3) | LEN;
const SECONDS_TAG = (TimestampSchema.field.seconds!.number << 3) | VARINT;
const NANOS_TAG = (TimestampSchema.field.nanos!.number << 3) | VARINT;

/** The view's keys must be VIEW_KEYS, in order, or the fast path stands aside. */
const KEYS_MATCH = Object.keys(transactionView(create(TransactionSchema))).join() === VIEW_KEYS.join();

class PageWriter {
  private readonly buf: Uint8Array;
  private readonly text: Buffer;
  private p = 0;
  private out: Buffer;
  private o = 0;
  /** The last varint read: its low and high 32 bits, unsigned. */
  private lo = 0;
  private hi = 0;
  /** The transaction being read: string fields as [start, end) offsets, numbers as read. */
  private readonly t = new TxFields();

  constructor(bytes: Uint8Array) {
    if (!KEYS_MATCH || !FIELDS_MATCH) throw NOT_PLAIN;
    this.buf = bytes;
    this.text = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
    this.out = Buffer.allocUnsafe(Math.max(4096, bytes.byteLength * 4));
  }

  page(): Buffer {
    const end = this.buf.byteLength;
    let cursorStart = 0;
    let cursorEnd = 0;
    let first = true;
    this.o = copy(this.out, this.o, PAGE_START);
    while (this.p < end) {
      const tag = this.tag();
      if (tag === ROWS_TAG) {
        const length = this.length(end);
        this.transaction(this.p + length, first);
        first = false;
      } else if (tag === CURSOR_TAG) {
        cursorEnd = this.length(end) + this.p;
        cursorStart = this.p;
        this.p = cursorEnd;
        this.checkUtf8(cursorStart, cursorEnd);
      } else if (tag >>> 3 === ROWS_FIELD || tag >>> 3 === CURSOR_FIELD) {
        throw NOT_PLAIN;
      } else {
        this.skip(tag, end);
      }
    }
    this.reserve(PAGE_END_NULL.length + 3 + 6 * (cursorEnd - cursorStart));
    const o =
      cursorStart === cursorEnd
        ? copy(this.out, this.o, PAGE_END_NULL)
        : this.string(this.out, copy(this.out, this.o, PAGE_CURSOR), cursorStart, cursorEnd);
    this.out[o] = 0x7d;
    return this.out.subarray(0, o + 1);
  }

  /** One Transaction from here to `end`, written as its view (after a comma unless `first`). */
  private transaction(end: number, first: boolean): void {
    const t = this.t;
    t.reset();
    // Room for the comma, the keys, the numbers and times, and every byte of text escaped (at
    // most 6 each); the brackets and commas of the token lists fit in their fields' own bytes.
    this.reserve(700 + 6 * (end - this.p));
    if (!first) this.out[this.o++] = 0x2c;
    while (this.p < end) {
      const tag = this.tag();
      const field = tag >>> 3;
      const kind = field < FIELD_KINDS.length ? FIELD_KINDS[field]! : UNKNOWN;
      if (kind === TEXTS) {
        if ((tag & 7) !== LEN) throw NOT_PLAIN;
        const stop = this.length(end) + this.p;
        (field === F_KCT_TOKENS ? t.kct : t.bonus).push(this.p, stop);
        this.p = stop;
      } else if (kind === UNKNOWN) {
        this.skip(tag, end);
      } else if ((tag & 7) !== (kind >= INT32 ? VARINT : LEN)) {
        // A field of Transaction on a wire type it does not have: protobuf-es decides.
        throw NOT_PLAIN;
      } else if (kind === TEXT) {
        const stop = this.length(end) + this.p;
        t.text[2 * field] = this.p;
        t.text[2 * field + 1] = stop;
        this.p = stop;
      } else if (kind === TIME) {
        const stop = this.length(end) + this.p;
        this.timestamp(field === F_CREATED_AT ? t.created : t.updated, stop);
      } else {
        this.varint(end);
        if (kind === INT64) t.number[field] = this.int64();
        else if (kind === BOOL) t.number[field] = this.lo !== 0 || this.hi !== 0 ? 1 : 0;
        else t.number[field] = this.lo | 0;
      }
    }
    if (this.p !== end) throw NOT_PLAIN;
    this.write(t);
  }

  private write(t: TxFields): void {
    const product = t.number[F_PRODUCT]!;
    const span = t.text;
    // Text the view does not show must still be text protobuf-es reads: account_id, customer_phone, and the plan fields
    // of other products.
    this.checkUtf8(span[2 * F_ACCOUNT_ID]!, span[2 * F_ACCOUNT_ID + 1]!);
    this.checkUtf8(span[2 * F_CUSTOMER_PHONE]!, span[2 * F_CUSTOMER_PHONE + 1]!);
    this.checkUtf8(span[2 * F_SUBSCRIPTION_TYPE]!, span[2 * F_SUBSCRIPTION_TYPE + 1]!);
    if (product !== DATA && product !== CABLE) this.checkUtf8(span[2 * F_PLAN_LABEL]!, span[2 * F_PLAN_LABEL + 1]!);
    if (product !== CABLE) this.checkUtf8(span[2 * F_PACKAGE_CODE]!, span[2 * F_PACKAGE_CODE + 1]!);
    const planId = t.number[F_PLAN_ID]!;
    // An int64 past the safe range (NaN here) that the view shows is refused by the view.
    if (
      Number.isNaN(t.number[F_FACE_VALUE]!) ||
      Number.isNaN(t.number[F_CHARGED]!) ||
      (product === DATA && Number.isNaN(planId))
    )
      throw NOT_PLAIN;
    const out = this.out;
    let o = this.o;
    o = copy(out, o, KEY[REFERENCE]!);
    o = this.string(out, o, span[2 * F_REFERENCE]!, span[2 * F_REFERENCE + 1]!);
    o = copy(out, o, KEY[PRODUCT]!);
    o = copy(out, o, PRODUCT_JSON.get(product) ?? NULL);
    o = copy(out, o, KEY[STATUS]!);
    o = copy(out, o, STATUS_JSON.get(t.number[F_STATUS]!) ?? NULL);
    o = copy(out, o, KEY[SERVICE]!);
    o = this.string(out, o, span[2 * F_SERVICE]!, span[2 * F_SERVICE + 1]!);
    o = this.stringOrNull(out, o, RECIPIENT, span[2 * F_RECIPIENT]!, span[2 * F_RECIPIENT + 1]!);
    o = copy(out, o, KEY[AMOUNT]!);
    o = naira(out, o, t.number[F_FACE_VALUE]!);
    o = copy(out, o, KEY[CHARGED]!);
    o = naira(out, o, t.number[F_CHARGED]!);
    if (product === DATA) {
      o = planId > 0 ? integer(out, copy(out, o, KEY[PLAN_ID]!), planId) : copy(out, o, KEY_NULL[PLAN_ID]!);
      o = this.stringOrNull(out, o, PLAN, span[2 * F_PLAN_LABEL]!, span[2 * F_PLAN_LABEL + 1]!);
      o = copy(out, o, NO_PACKAGE);
    } else if (product === CABLE) {
      o = copy(out, o, NO_PLAN);
      o = this.stringOrNull(out, o, PACKAGE, span[2 * F_PLAN_LABEL]!, span[2 * F_PLAN_LABEL + 1]!);
      o = this.stringOrNull(out, o, PACKAGE_CODE, span[2 * F_PACKAGE_CODE]!, span[2 * F_PACKAGE_CODE + 1]!);
    } else {
      o = copy(out, o, NO_PLAN_OR_PACKAGE);
    }
    o = this.stringOrNull(out, o, METER_TYPE, span[2 * F_METER_TYPE]!, span[2 * F_METER_TYPE + 1]!);
    o = this.stringOrNull(out, o, TOKEN, span[2 * F_TOKEN]!, span[2 * F_TOKEN + 1]!);
    o = this.stringOrNull(out, o, UNITS, span[2 * F_UNITS]!, span[2 * F_UNITS + 1]!);
    if (product === ELECTRICITY) {
      o = this.list(out, o, KCT_TOKENS, t.kct);
      o = this.list(out, o, BONUS_TOKENS, t.bonus);
    } else {
      // Not shown, but still text protobuf-es must read.
      for (const spans of [t.kct, t.bonus])
        for (let i = 0; i < spans.length; i += 2) this.checkUtf8(spans[i]!, spans[i + 1]!);
      o = copy(out, o, NO_EXTRA_TOKENS);
    }
    if (product === BULK_SMS) {
      o = integer(out, copy(out, o, KEY[SENT]!), t.number[F_SMS_SENT]!);
      o = integer(out, copy(out, o, KEY[PAGES]!), t.number[F_SMS_PAGES]!);
    } else {
      o = copy(out, o, NO_SMS);
    }
    o = this.stringOrNull(out, o, FAILURE_REASON, span[2 * F_FAILURE_REASON]!, span[2 * F_FAILURE_REASON + 1]!);
    o = this.stringOrNull(out, o, REQUEST_ID, span[2 * F_REQUEST_ID]!, span[2 * F_REQUEST_ID + 1]!);
    o = time(out, o, CREATED_AT, t.created);
    o = time(out, o, UPDATED_AT, t.updated);
    o = copy(out, o, t.number[F_LIVEMODE] === 1 ? LIVEMODE_TRUE : LIVEMODE_FALSE);
    this.o = o;
  }

  // --- reading

  private tag(): number {
    this.varint(this.buf.byteLength);
    if (this.hi !== 0 || this.lo > 0x7fff_ffff || this.lo >>> 3 === 0) throw NOT_PLAIN;
    return this.lo;
  }

  /** A length prefix, checked to end by `end`. */
  private length(end: number): number {
    this.varint(end);
    if (this.hi !== 0 || this.lo > end - this.p) throw NOT_PLAIN;
    return this.lo;
  }

  /** A varint of at most ten bytes ending by `end`, into lo and hi. */
  private varint(end: number): void {
    const buf = this.buf;
    let p = this.p;
    let lo = 0;
    let hi = 0;
    let shift = 0;
    let b = 0;
    do {
      if (p >= end) throw NOT_PLAIN;
      b = buf[p++]!;
      if (shift < 28) lo |= (b & 0x7f) << shift;
      else if (shift === 28) {
        lo |= (b & 0x0f) << 28;
        hi = (b & 0x7f) >> 4;
      } else if (shift < 64) hi |= (b & 0x7f) << (shift - 32);
      else throw NOT_PLAIN;
      shift += 7;
    } while (b >= 0x80);
    this.p = p;
    this.lo = lo >>> 0;
    this.hi = hi >>> 0;
  }

  /** The last varint as an int64: a number when safe, else NaN for a value the view refuses. */
  private int64(): number {
    if (this.hi < SAFE_HI) return this.hi * TWO_32 + this.lo;
    const value = Number(BigInt.asIntN(64, (BigInt(this.hi) << 32n) | BigInt(this.lo)));
    return Number.isSafeInteger(value) ? value : Number.NaN;
  }

  /** A google.protobuf.Timestamp up to `end`, merged into `time` as protobuf merges a message field seen twice. */
  private timestamp(time: Time, end: number): void {
    time.present = true;
    while (this.p < end) {
      const tag = this.tag();
      if (tag === SECONDS_TAG) {
        this.varint(end);
        time.seconds =
          this.hi < SAFE_HI
            ? this.hi * TWO_32 + this.lo
            : Number(BigInt.asIntN(64, (BigInt(this.hi) << 32n) | BigInt(this.lo)));
      } else if (tag === NANOS_TAG) {
        this.varint(end);
        time.nanos = this.lo | 0;
      } else if (tag >>> 3 === SECONDS_FIELD || tag >>> 3 === NANOS_FIELD) {
        throw NOT_PLAIN;
      } else {
        this.skip(tag, end);
      }
    }
    if (this.p !== end) throw NOT_PLAIN;
  }

  /** Steps over a field this page does not read. */
  private skip(tag: number, end: number): void {
    switch (tag & 7) {
      case VARINT:
        this.varint(end);
        return;
      case 1:
        this.p += 8;
        break;
      case LEN: {
        const length = this.length(end);
        this.p += length;
        break;
      }
      case 5:
        this.p += 4;
        break;
      default:
        throw NOT_PLAIN;
    }
    if (this.p > end) throw NOT_PLAIN;
  }

  /** Text protobuf-es reads as it is: ASCII, or valid UTF-8 (the fast path leaves the rest to it). */
  private checkUtf8(start: number, end: number): void {
    const buf = this.buf;
    for (let i = start; i < end; i++) {
      if (buf[i]! >= 0x80) {
        if (!isUtf8(this.buf.subarray(start, end))) throw NOT_PLAIN;
        return;
      }
    }
  }

  // --- writing

  /** Makes room for `n` more bytes. */
  private reserve(n: number): void {
    if (this.o + n <= this.out.length) return;
    const grown = Buffer.allocUnsafe(Math.max(this.out.length * 2, this.o + n));
    this.out.copy(grown, 0, 0, this.o);
    this.out = grown;
  }

  /** `,"key":` and the text in [start, end) as a JSON string, or `,"key":null` for none. */
  private stringOrNull(out: Buffer, o: number, key: number, start: number, end: number): number {
    return start === end ? copy(out, o, KEY_NULL[key]!) : this.string(out, copy(out, o, KEY[key]!), start, end);
  }

  /** `,"key":[...]` with the texts of `spans` ([start, end) pairs) as JSON strings. */
  private list(out: Buffer, at: number, key: number, spans: readonly number[]): number {
    let o = copy(out, at, KEY[key]!);
    out[o++] = 0x5b;
    for (let i = 0; i < spans.length; i += 2) {
      if (i > 0) out[o++] = 0x2c;
      o = this.string(out, o, spans[i]!, spans[i + 1]!);
    }
    out[o++] = 0x5d;
    return o;
  }

  /** The text in [start, end) as a JSON string, escaped as JSON.stringify escapes it. */
  private string(out: Buffer, at: number, start: number, end: number): number {
    const buf = this.buf;
    let o = at;
    out[o++] = 0x22;
    for (let i = start; i < end; i++) {
      const b = buf[i]!;
      if (NOT_AS_IS[b] === 1) {
        if (b >= 0x80) {
          // Not ASCII: JSON.stringify of the decoded text, which is what the old path wrote.
          if (!isUtf8(buf.subarray(start, end))) throw NOT_PLAIN;
          return at + out.write(JSON.stringify(this.text.toString('utf8', start, end)), at, 'utf8');
        }
        o = escapeByte(out, o, b);
      } else {
        out[o++] = b;
      }
    }
    out[o++] = 0x22;
    return o;
  }
}

/** Copies constant bytes; for fragments this short a loop beats TypedArray.set. */
function copy(out: Buffer, at: number, constant: Uint8Array): number {
  let o = at;
  for (let i = 0; i < constant.length; i++) out[o++] = constant[i]!;
  return o;
}

/** Kobo as the view's Naira: koboToNaira, then the number as JSON writes it. */
function naira(out: Buffer, at: number, value: number): number {
  if (!(value > -DIGITS_MAX && value < DIGITS_MAX))
    return at + out.write(String(koboToNaira(value as Kobo)), at, 'latin1');
  let o = at;
  let kobo = value;
  if (kobo < 0) {
    out[o++] = 0x2d;
    kobo = -kobo;
  }
  const cents = kobo % 100;
  o = digits(out, o, (kobo - cents) / 100);
  if (cents !== 0) {
    out[o++] = 0x2e;
    out[o++] = 0x30 + Math.floor(cents / 10);
    if (cents % 10 !== 0) out[o++] = 0x30 + (cents % 10);
  }
  return o;
}

/** A safe integer (an int32, or an int64 the view shows) as JSON writes it. */
function integer(out: Buffer, at: number, value: number): number {
  if (value >= 0) return digits(out, at, value);
  out[at] = 0x2d;
  return digits(out, at + 1, -value);
}

/** A non-negative safe integer's decimal digits. */
function digits(out: Buffer, at: number, value: number): number {
  let length = 1;
  for (let rest = value; rest >= 10; rest = Math.floor(rest / 10)) length++;
  let n = value;
  let o = at + length;
  do {
    const digit = n % 10;
    out[--o] = 0x30 + digit;
    n = (n - digit) / 10;
  } while (n > 0);
  return at + length;
}

/** `,"key":` and a Timestamp as the view writes it (timestampMs, then isoString's text), or null. */
function time(out: Buffer, at: number, key: number, t: Time): number {
  if (!t.present) return copy(out, at, KEY_NULL[key]!);
  let o = copy(out, at, KEY[key]!);
  out[o++] = 0x22;
  o = writeIsoString(out, o, t.seconds * 1000 + Math.round(t.nanos / 1_000_000));
  out[o++] = 0x22;
  return o;
}

/** JSON.stringify's escape of an ASCII byte that cannot stand in a string as it is. */
function escapeByte(out: Uint8Array, at: number, b: number): number {
  let o = at;
  out[o++] = 0x5c;
  const short = SHORT_ESCAPES[b]!;
  if (short !== 0) {
    out[o++] = short;
    return o;
  }
  out[o++] = 0x75;
  out[o++] = 0x30;
  out[o++] = 0x30;
  out[o++] = HEX[b >> 4]!;
  out[o++] = HEX[b & 15]!;
  return o;
}

/** The bytes a JSON string cannot hold as they are (controls, quote, backslash), and every byte of non-ASCII text. */
const NOT_AS_IS = (() => {
  const table = new Uint8Array(256);
  for (let b = 0; b < 256; b++) table[b] = b < 0x20 || b === 0x22 || b === 0x5c || b >= 0x80 ? 1 : 0;
  return table;
})();
/** JSON.stringify's two-character escapes: the letter after the backslash, by byte; 0 for none. */
const SHORT_ESCAPES = (() => {
  const table = new Uint8Array(128);
  for (const [byte, letter] of ['\bb', '\tt', '\nn', '\ff', '\rr', '""', '\\\\'])
    table[byte!.charCodeAt(0)] = letter!.charCodeAt(0);
  return table;
})();
const HEX = ascii('0123456789abcdef');

/** How the writer reads a field, by its number: not at all, as text, as a Timestamp, or as a varint of one kind. */
const UNKNOWN = 0;
const TEXT = 1;
const TIME = 2;
const INT32 = 3;
const INT64 = 4;
const BOOL = 5;
/** A repeated string field, each element kept in wire order. */
const TEXTS = 6;

/** A field of a message as the schema declares it, in the few types the writer tells apart. */
export interface SchemaField {
  name: string;
  number: number;
  type: 'string' | 'strings' | 'enum' | 'int32' | 'int64' | 'bool' | 'timestamp' | 'other';
}

/** Transaction's fields as the generated schema (gen/) declares them. */
export function schemaFields(schema: DescMessage): SchemaField[] {
  return schema.fields.map((field) => {
    let type: SchemaField['type'] = 'other';
    if (field.fieldKind === 'enum') type = 'enum';
    else if (field.fieldKind === 'message' && field.message.typeName === TimestampSchema.typeName) type = 'timestamp';
    else if (field.fieldKind === 'scalar' && field.scalar === ScalarType.STRING) type = 'string';
    else if (field.fieldKind === 'scalar' && field.scalar === ScalarType.INT32) type = 'int32';
    else if (field.fieldKind === 'scalar' && field.scalar === ScalarType.INT64) type = 'int64';
    else if (field.fieldKind === 'scalar' && field.scalar === ScalarType.BOOL) type = 'bool';
    else if (field.fieldKind === 'list' && field.listKind === 'scalar' && field.scalar === ScalarType.STRING)
      type = 'strings';
    return { name: field.name, number: field.number, type };
  });
}

/**
 * The fields the writer reads, by their name in types.proto, and the type it reads each as.
 * The text ones are either shown or (account_id, customer_phone, subscription_type) checked to be UTF-8, since
 * protobuf-es refuses a string that is not.
 */
const READS = {
  reference: 'string',
  account_id: 'string',
  product: 'enum',
  status: 'enum',
  service: 'string',
  recipient: 'string',
  face_value_kobo: 'int64',
  charged_kobo: 'int64',
  plan_id: 'int64',
  plan_label: 'string',
  package_code: 'string',
  meter_type: 'string',
  token: 'string',
  units: 'string',
  kct_tokens: 'strings',
  bonus_tokens: 'strings',
  subscription_type: 'string',
  months: 'int32',
  sms_sent: 'int32',
  sms_pages: 'int32',
  failure_reason: 'string',
  request_id: 'string',
  created_at: 'timestamp',
  updated_at: 'timestamp',
  customer_phone: 'string',
  livemode: 'bool',
} as const satisfies Record<string, SchemaField['type']>;

/** What the writer needs of the schema: each read field's number, and every field's kind by number. */
export interface FieldPlan {
  numbers: Record<keyof typeof READS, number>;
  kinds: Uint8Array;
}

/**
 * The writer's table for these fields, or null when the writer cannot answer them exactly:
 * a field it reads is missing or of another type, or a field it does not read is text (it
 * would have to be checked as UTF-8), a message or anything but a number it can step over.
 */
export function fieldPlan(fields: readonly SchemaField[]): FieldPlan | null {
  const numbers: Partial<Record<keyof typeof READS, number>> = {};
  const kinds = new Uint8Array(Math.max(0, ...fields.map((field) => field.number)) + 1);
  const KIND = {
    string: TEXT,
    strings: TEXTS,
    timestamp: TIME,
    enum: INT32,
    int32: INT32,
    int64: INT64,
    bool: BOOL,
  } as const;
  for (const field of fields) {
    const read = Object.hasOwn(READS, field.name) ? READS[field.name as keyof typeof READS] : undefined;
    if (read !== undefined && read !== field.type) return null;
    if (
      read === undefined &&
      (field.type === 'string' || field.type === 'strings' || field.type === 'timestamp' || field.type === 'other')
    )
      return null;
    if (field.type === 'other') return null;
    if (read !== undefined) numbers[field.name as keyof typeof READS] = field.number;
    kinds[field.number] = KIND[field.type];
  }
  if (Object.keys(numbers).length !== Object.keys(READS).length) return null;
  return { numbers: numbers as FieldPlan['numbers'], kinds };
}

const FIELD_PLAN = fieldPlan(schemaFields(TransactionSchema));
/** Whether the writer and the schema agree; if not, every page takes the old path. */
export const FIELDS_MATCH = FIELD_PLAN !== null;
const FIELD_KINDS = FIELD_PLAN?.kinds ?? new Uint8Array(0);
const N =
  FIELD_PLAN?.numbers ?? (Object.fromEntries(Object.keys(READS).map((name) => [name, 0])) as FieldPlan['numbers']);
const F_REFERENCE = N.reference;
const F_ACCOUNT_ID = N.account_id;
const F_PRODUCT = N.product;
const F_STATUS = N.status;
const F_SERVICE = N.service;
const F_RECIPIENT = N.recipient;
const F_FACE_VALUE = N.face_value_kobo;
const F_CHARGED = N.charged_kobo;
const F_PLAN_ID = N.plan_id;
const F_PLAN_LABEL = N.plan_label;
const F_PACKAGE_CODE = N.package_code;
const F_METER_TYPE = N.meter_type;
const F_TOKEN = N.token;
const F_UNITS = N.units;
const F_KCT_TOKENS = N.kct_tokens;
const F_SUBSCRIPTION_TYPE = N.subscription_type;
const F_SMS_SENT = N.sms_sent;
const F_SMS_PAGES = N.sms_pages;
const F_FAILURE_REASON = N.failure_reason;
const F_REQUEST_ID = N.request_id;
const F_CREATED_AT = N.created_at;
const F_CUSTOMER_PHONE = N.customer_phone;
const F_LIVEMODE = N.livemode;

/** The page's own two fields and a Timestamp's two, from their schemas too. */
const ROWS_FIELD = ListTransactionsResponseSchema.field.transactions!.number;
const CURSOR_FIELD = ListTransactionsResponseSchema.field.nextPageToken!.number;
const SECONDS_FIELD = TimestampSchema.field.seconds!.number;
const NANOS_FIELD = TimestampSchema.field.nanos!.number;

/** The product and status names as JSON bytes, by enum value. */
const PRODUCT_JSON = jsonNames(PRODUCT_WORDS);
const STATUS_JSON = jsonNames(STATUS_WORDS);

function jsonNames(names: Readonly<Record<number, string | null>>): Map<number, Uint8Array> {
  const bytes = new Map<number, Uint8Array>();
  for (const [value, name] of Object.entries(names))
    if (name !== null) bytes.set(Number(value), ascii(JSON.stringify(name)));
  return bytes;
}

interface Time {
  present: boolean;
  seconds: number;
  nanos: number;
}

/** One transaction's fields as read, reused from row to row. */
class TxFields {
  /** [start, end) of string field n at 2n and 2n + 1. */
  readonly text = new Int32Array(2 * FIELD_KINDS.length);
  /** Varint field n at n. */
  readonly number = new Float64Array(FIELD_KINDS.length);
  readonly created: Time = { present: false, seconds: 0, nanos: 0 };
  readonly updated: Time = { present: false, seconds: 0, nanos: 0 };
  /** [start, end) pairs of the repeated kct_tokens and bonus_tokens, in wire order. */
  readonly kct: number[] = [];
  readonly bonus: number[] = [];

  reset(): void {
    this.text.fill(0);
    this.kct.length = 0;
    this.bonus.length = 0;
    this.number.fill(0);
    this.created.present = false;
    this.created.seconds = 0;
    this.created.nanos = 0;
    this.updated.present = false;
    this.updated.seconds = 0;
    this.updated.nanos = 0;
  }
}

function ascii(text: string): Uint8Array {
  return Uint8Array.from(Buffer.from(text, 'latin1'));
}
