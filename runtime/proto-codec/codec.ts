/**
 * Protobuf binary encoding and decoding, compiled once per message type from the same
 * descriptors protobuf-es uses, for the messages that cross the core's gRPC boundary.
 *
 * Why: protobuf-es reads and writes messages through its reflection API, which wraps every
 * message, list and nested message it meets in a new object and looks each field up again
 * for every value. For a history page (100 transactions of 23 fields) that was most of the
 * cost of the answer on both sides of the hop: measured on this machine, `create` plus
 * `toBinary` of a 100-row ListTransactionsResponse took about 3 ms in the core, and
 * `fromBinary` about 1.5 ms in the gateway, against well under a millisecond for the
 * database query. Here each field becomes one small closure, chosen once from its
 * descriptor, and each message type one function compiled from its field list that reads
 * and stores every field by its own name; bytes are read with protobuf-es's own BinaryReader (its common reads done
 * without allocating, into messages of one fixed shape per type) and written into one
 * reused buffer, in the canonical encoding BinaryWriter writes.
 *
 * What stays exactly protobuf-es: the encoder takes a message or an init shape and writes
 * the bytes `toBinary(schema, create(schema, init))` writes (fields in number order,
 * implicit-presence fields only when not zero, packed repeated scalars, unknown fields
 * last); the decoder returns the message `fromBinary` returns. A message type this code does
 * not cover (proto2 or editions, oneofs, maps, groups, wrapper or Struct fields, 64-bit
 * integers as strings) is handed to protobuf-es whole, and so are bytes it cannot read
 * simply: an unknown field, an unexpected wire type, a repeated singular message, anything
 * malformed. protobuf-es then gives the answer, or the error, it always gave.
 * test/runtime/proto-codec.test.ts checks both directions against protobuf-es for every
 * message type in gen/.
 */

import { isUtf8 } from 'node:buffer';
import {
  create,
  type DescField,
  type DescMessage,
  fromBinary,
  type MessageInitShape,
  type MessageShape,
  ScalarType,
  toBinary,
} from '@bufbuild/protobuf';
import { BinaryReader, WireType } from '@bufbuild/protobuf/wire';

/** google.protobuf.Edition.EDITION_PROTO3. */
const EDITION_PROTO3 = 999;
/** google.protobuf.FeatureSet.FieldPresence.IMPLICIT. */
const IMPLICIT = 2;
/** As protobuf-es's default read option. */
const RECURSION_LIMIT = 100;

export type Encoder<Desc extends DescMessage> = (message: MessageInitShape<Desc> | MessageShape<Desc>) => Uint8Array;
export type Decoder<Desc extends DescMessage> = (bytes: Uint8Array) => MessageShape<Desc>;

const encoders = new WeakMap<DescMessage, Encoder<DescMessage>>();
const decoders = new WeakMap<DescMessage, Decoder<DescMessage>>();

/** The encoder of `desc`: `toBinary(desc, create(desc, message))`, faster. */
export function protoEncoder<Desc extends DescMessage>(desc: Desc): Encoder<Desc> {
  let encoder = encoders.get(desc);
  if (!encoder) {
    const plan = covered(desc) ? writePlan(desc) : undefined;
    const library = (message: unknown) => toBinary(desc, create(desc, message as MessageInitShape<Desc>));
    encoder = plan
      ? (message) => {
          try {
            const writer = Writer.start();
            plan.write(writer, message as Record<string, unknown>);
            return writer.finish();
          } catch {
            // A value the wire cannot carry: the library's own error, naming the field.
            return library(message);
          }
        }
      : library;
    encoders.set(desc, encoder);
  }
  return encoder as Encoder<Desc>;
}

/** The decoder of `desc`: `fromBinary(desc, bytes)`, faster. */
export function protoDecoder<Desc extends DescMessage>(desc: Desc): Decoder<Desc> {
  let decoder = decoders.get(desc);
  if (!decoder) {
    const plan = covered(desc) ? readPlan(desc) : undefined;
    decoder = plan
      ? (bytes) => {
          try {
            const reader = new Reader(bytes);
            return plan.read(reader, bytes.byteLength, 0) as MessageShape<DescMessage>;
          } catch {
            // Anything this reader does not take simply (see the module's comment): the library's own answer or error.
            return fromBinary(desc, bytes);
          }
        }
      : (bytes) => fromBinary(desc, bytes);
    decoders.set(desc, decoder);
  }
  return decoder as Decoder<Desc>;
}

/**
 * protobuf-es's BinaryReader, with the reads a message is mostly made of done without
 * allocating: a field's tag as one number (BinaryReader returns a new array for each),
 * strings sliced straight out of one Buffer over the whole message (BinaryReader makes a
 * view per string, and Buffer is much cheaper than TextDecoder for short strings), and
 * 64-bit integers and booleans read as numbers first (BinaryReader returns a new [lo, hi]
 * array for each). What is not the common case (a long varint, non-ASCII text) goes to the
 * library's own reads or to the checks protobuf-es would make. Invalid UTF-8 is left to
 * protobuf-es, which refuses it (proto3's validation) or replaces it as TextDecoder does.
 */
class Reader extends BinaryReader {
  /** The message's bytes, kept here because BinaryReader's own reference is private. */
  private readonly source: Uint8Array;
  private readonly text: Buffer;

  constructor(bytes: Uint8Array) {
    super(bytes);
    this.source = bytes;
    this.text = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  }

  /** The next field's tag, (number << 3) | wire type, checked as BinaryReader.tag() checks it. */
  fieldTag(): number {
    const buf = this.source;
    const b0 = buf[this.pos]!;
    let tag: number;
    if (b0 < 0x80) {
      tag = b0;
      this.pos += 1;
    } else if (this.pos + 1 < this.len && buf[this.pos + 1]! < 0x80) {
      tag = (b0 & 0x7f) | (buf[this.pos + 1]! << 7);
      this.pos += 2;
    } else {
      const [no, wireType] = this.tag();
      return (no << 3) | wireType;
    }
    if (tag >>> 3 === 0 || (tag & 7) > 5 || this.pos > this.len) throw new NotSimple();
    return tag;
  }

  override string(): string {
    const length = this.uint32();
    const start = this.pos;
    const end = start + length;
    if (end > this.len) throw new NotSimple();
    this.pos = end;
    const buf = this.source;
    for (let i = start; i < end; i += 1) {
      if (buf[i]! >= 0x80) {
        if (!isUtf8(buf.subarray(start, end))) throw new NotSimple();
        return this.text.toString('utf8', start, end);
      }
    }
    // ASCII: latin1 reads it as UTF-8 would, and makes the compact one-byte string directly.
    return this.text.toString('latin1', start, end);
  }

  override int64(): bigint {
    const value = this.smallVarint();
    return value === undefined ? (super.int64() as bigint) : BigInt(value);
  }

  override uint64(): bigint {
    const value = this.smallVarint();
    return value === undefined ? (super.uint64() as bigint) : BigInt(value);
  }

  override bool(): boolean {
    const b = this.source[this.pos]!;
    if (b >= 0x80 || this.pos >= this.len) return super.bool();
    this.pos += 1;
    return b !== 0;
  }

  /**
   * A varint of at most 7 bytes (below 2^49, so exact as a number), or undefined with the
   * position unchanged, for the library's read to take (negative numbers take 10 bytes).
   */
  private smallVarint(): number | undefined {
    const buf = this.source;
    let value = 0;
    let scale = 1;
    for (let i = this.pos; i < this.pos + 7 && i < this.len; i += 1) {
      const b = buf[i]!;
      value += (b & 0x7f) * scale;
      if (b < 0x80) {
        this.pos = i + 1;
        return value;
      }
      scale *= 128;
    }
    return undefined;
  }
}

/** Thrown inside the fast reader or writer when protobuf-es must do the work instead. */
class NotSimple extends Error {}

// ----- Which message types are covered -----

const coverage = new WeakMap<DescMessage, boolean>();

/** Whether `desc`, and every message type it contains, is proto3 with only the field kinds handled here. */
function covered(desc: DescMessage, visiting = new Set<DescMessage>()): boolean {
  const known = coverage.get(desc);
  if (known !== undefined) return known;
  if (visiting.has(desc)) return true; // recursive types: decided by the outer call
  visiting.add(desc);
  const ok =
    desc.file.edition === EDITION_PROTO3 &&
    desc.oneofs.length === 0 &&
    desc.fields.every((field) => {
      if (field.fieldKind === 'map' || field.oneof !== undefined) return false;
      if ('longAsString' in field && field.longAsString) return false;
      if (field.fieldKind === 'message' || (field.fieldKind === 'list' && field.listKind === 'message')) {
        const message = field.message!;
        if (field.delimitedEncoding || SPECIAL_WKT.has(message.typeName)) return false;
        return covered(message, visiting);
      }
      if (field.fieldKind === 'enum' || (field.fieldKind === 'list' && field.listKind === 'enum'))
        return field.enum!.open;
      return true;
    });
  visiting.delete(desc);
  if (visiting.size === 0 || !ok) coverage.set(desc, ok);
  return ok;
}

/** Well-known types protobuf-es represents specially in fields (wrappers unwrapped, Struct as JSON). */
const SPECIAL_WKT = new Set([
  'google.protobuf.DoubleValue',
  'google.protobuf.FloatValue',
  'google.protobuf.Int64Value',
  'google.protobuf.UInt64Value',
  'google.protobuf.Int32Value',
  'google.protobuf.UInt32Value',
  'google.protobuf.BoolValue',
  'google.protobuf.StringValue',
  'google.protobuf.BytesValue',
  'google.protobuf.Struct',
  'google.protobuf.Value',
  'google.protobuf.ListValue',
]);

// ----- Scalars -----

type ScalarWrite = (writer: Writer, value: never) => unknown;
type ScalarRead = (reader: Reader) => unknown;

interface ScalarCodec {
  wireType: WireType;
  write: ScalarWrite;
  read: ScalarRead;
  /** Whether a value is the type's zero, which implicit presence leaves out. */
  isZero: (value: unknown) => boolean;
  zero: () => unknown;
}

// biome-ignore lint/suspicious/noDoubleEquals: 0, 0n and "0" alike, as protobuf-es judges an integer's zero
const numberZero = (value: unknown) => value == 0;
/**
 * numberZero, with a bigint (every 64-bit field of a message) told at once: `==` between a bigint
 * and 0 is a slow runtime call.
 */
const int64Zero = (value: unknown) => (typeof value === 'bigint' ? value === 0n : numberZero(value));
/** Object.is tells -0 from 0: -0 is written, as protobuf-es writes it. */
const floatZero = (value: unknown) => Object.is(value, 0);
function scalarCodec(type: ScalarType): ScalarCodec {
  switch (type) {
    case ScalarType.STRING:
      return {
        wireType: WireType.LengthDelimited,
        write: (w, v: string) => w.string(v),
        // Invalid UTF-8 goes to protobuf-es, which refuses or replaces it as the field's validation says.
        read: (r) => r.string(),
        isZero: (v) => v === '',
        zero: () => '',
      };
    case ScalarType.BYTES:
      return {
        wireType: WireType.LengthDelimited,
        write: (w, v: Uint8Array) => w.bytes(v),
        read: (r) => r.bytes(),
        isZero: (v) => (v as Uint8Array).length === 0,
        zero: () => new Uint8Array(0),
      };
    case ScalarType.BOOL:
      return {
        wireType: WireType.Varint,
        write: (w, v: boolean) => w.bool(v),
        read: (r) => r.bool(),
        isZero: (v) => v === false,
        zero: () => false,
      };
    case ScalarType.DOUBLE:
      return {
        wireType: WireType.Bit64,
        write: (w, v: number) => w.double(v),
        read: (r) => r.double(),
        isZero: floatZero,
        zero: () => 0,
      };
    case ScalarType.FLOAT:
      return {
        wireType: WireType.Bit32,
        write: (w, v: number) => w.float(v),
        read: (r) => r.float(),
        isZero: floatZero,
        zero: () => 0,
      };
    case ScalarType.INT32:
      return {
        wireType: WireType.Varint,
        write: (w, v: number) => w.int32(v),
        read: (r) => r.int32(),
        isZero: numberZero,
        zero: () => 0,
      };
    case ScalarType.UINT32:
      return {
        wireType: WireType.Varint,
        write: (w, v: number) => w.uint32(v),
        read: (r) => r.uint32(),
        isZero: numberZero,
        zero: () => 0,
      };
    case ScalarType.SINT32:
      return {
        wireType: WireType.Varint,
        write: (w, v: number) => w.sint32(v),
        read: (r) => r.sint32(),
        isZero: numberZero,
        zero: () => 0,
      };
    case ScalarType.FIXED32:
      return {
        wireType: WireType.Bit32,
        write: (w, v: number) => w.fixed32(v),
        read: (r) => r.fixed32(),
        isZero: numberZero,
        zero: () => 0,
      };
    case ScalarType.SFIXED32:
      return {
        wireType: WireType.Bit32,
        write: (w, v: number) => w.sfixed32(v),
        read: (r) => r.sfixed32(),
        isZero: numberZero,
        zero: () => 0,
      };
    case ScalarType.INT64:
      return {
        wireType: WireType.Varint,
        write: (w, v: bigint) => w.int64(v),
        read: (r) => r.int64(),
        isZero: int64Zero,
        zero: () => 0n,
      };
    case ScalarType.UINT64:
      return {
        wireType: WireType.Varint,
        write: (w, v: bigint) => w.uint64(v),
        read: (r) => r.uint64(),
        isZero: int64Zero,
        zero: () => 0n,
      };
    case ScalarType.SINT64:
      return {
        wireType: WireType.Varint,
        write: (w, v: bigint) => w.sint64(v),
        read: (r) => r.sint64(),
        isZero: int64Zero,
        zero: () => 0n,
      };
    case ScalarType.FIXED64:
      return {
        wireType: WireType.Bit64,
        write: (w, v: bigint) => w.fixed64(v),
        read: (r) => r.fixed64(),
        isZero: int64Zero,
        zero: () => 0n,
      };
    case ScalarType.SFIXED64:
      return {
        wireType: WireType.Bit64,
        write: (w, v: bigint) => w.sfixed64(v),
        read: (r) => r.sfixed64(),
        isZero: int64Zero,
        zero: () => 0n,
      };
  }
}

/** The codec of a scalar, enum or list-of-scalar field (enums are int32 on the wire; proto3's zero enum value is 0). */
function fieldScalar(field: DescField): ScalarCodec {
  const codec = scalarCodec((field as { scalar?: ScalarType }).scalar ?? ScalarType.INT32);
  return field.fieldKind === 'enum' ? { ...codec, isZero: (value) => value === 0 } : codec;
}

// ----- Writing -----

const INT32_MIN = -(2 ** 31);
const INT32_MAX = 2 ** 31 - 1;
const UINT32_MAX = 2 ** 32 - 1;
const FLOAT32_MAX = 3.4028234663852886e38;
const INT64_MIN = -(2n ** 63n);
const INT64_MAX = 2n ** 63n - 1n;
const UINT64_MAX = 2n ** 64n - 1n;
const MAX_SAFE_BIGINT = BigInt(Number.MAX_SAFE_INTEGER);

/**
 * The bytes of one message, written straight into one reused buffer: no chunk per nested
 * message as BinaryWriter keeps. A nested message's length is written in front of it once
 * it is known; one byte is set aside for it, and the message is moved along in the rare
 * case its length takes more (128 bytes or more). The writes are protobuf's canonical
 * encoding, byte for byte what BinaryWriter writes; a value BinaryWriter would refuse (or
 * convert, such as a number given as a string) throws here, and the encoder hands the
 * message to protobuf-es.
 */
class Writer {
  private static shared: Writer | undefined;
  private buf = Buffer.allocUnsafe(64 * 1024);
  private pos = 0;
  private readonly forks: number[] = [];

  /** The one writer, emptied. Encoding is synchronous, so one is enough. */
  static start(): Writer {
    Writer.shared ??= new Writer();
    const writer = Writer.shared;
    writer.pos = 0;
    writer.forks.length = 0;
    return writer;
  }

  /** A copy of the bytes written, sized to them. */
  finish(): Uint8Array {
    // One copy, without zero-filling a new array first (as new Uint8Array and set() would).
    const out = Uint8Array.prototype.slice.call(this.buf, 0, this.pos);
    // A big message leaves a big buffer behind: not kept past 1 MiB.
    if (this.buf.length > 1024 * 1024) Writer.shared = undefined;
    return out;
  }

  private ensure(bytes: number): void {
    if (this.pos + bytes <= this.buf.length) return;
    const bigger = Buffer.allocUnsafe(Math.max(this.buf.length * 2, this.pos + bytes));
    this.buf.copy(bigger, 0, 0, this.pos);
    this.buf = bigger;
  }

  /** An unsigned varint of a non-negative integer below 2^53. */
  private varint(value: number): void {
    this.ensure(10);
    const buf = this.buf;
    let pos = this.pos;
    let n = value;
    while (n > 127) {
      buf[pos++] = (n % 128) | 0x80;
      n = Math.floor(n / 128);
    }
    buf[pos++] = n;
    this.pos = pos;
  }

  /** An unsigned varint of a 64-bit two's complement value. */
  private varintBig(value: bigint): void {
    let n = BigInt.asUintN(64, value);
    if (n <= 9007199254740991n) {
      this.varint(Number(n));
      return;
    }
    this.ensure(10);
    while (n > 127n) {
      this.buf[this.pos++] = Number(n & 127n) | 0x80;
      n >>= 7n;
    }
    this.buf[this.pos++] = Number(n);
  }

  tag(no: number, wireType: WireType): this {
    this.varint(no * 8 + wireType);
    return this;
  }

  /** Starts a length-delimited part (after its tag): one byte kept for the length. */
  fork(): this {
    this.ensure(1);
    this.forks.push(this.pos);
    this.pos += 1;
    return this;
  }

  /** Ends the part fork() started: its length goes in front of it. */
  join(): this {
    const start = this.forks.pop()!;
    const length = this.pos - start - 1;
    if (length < 128) {
      this.buf[start] = length;
      return this;
    }
    const lengthBytes = Math.ceil(Math.log2(length + 1) / 7);
    this.ensure(lengthBytes - 1);
    this.buf.copyWithin(start + lengthBytes, start + 1, this.pos);
    const end = this.pos + lengthBytes - 1;
    this.pos = start;
    this.varint(length);
    this.pos = end;
    return this;
  }

  raw(bytes: Uint8Array): this {
    this.ensure(bytes.length);
    this.buf.set(bytes, this.pos);
    this.pos += bytes.length;
    return this;
  }

  string(value: string): this {
    if (typeof value !== 'string') throw new NotSimple();
    // Short ASCII (most strings here: references, phone numbers, ids) is copied by this loop,
    // after a one-byte length; a native Buffer.write per string cost more than the copy.
    const length = value.length;
    if (length < 128) {
      this.ensure(length + 1);
      const buf = this.buf;
      const start = this.pos + 1;
      let i = 0;
      while (i < length) {
        const unit = value.charCodeAt(i);
        if (unit >= 0x80) break;
        buf[start + i] = unit;
        i += 1;
      }
      if (i === length) {
        buf[this.pos] = length;
        this.pos = start + length;
        return this;
      }
    }
    // At most 3 bytes per UTF-16 unit; lone surrogates become U+FFFD, as TextEncoder does.
    this.ensure(value.length * 3 + 1);
    this.fork();
    this.pos += this.buf.write(value, this.pos, 'utf8');
    return this.join();
  }

  bytes(value: Uint8Array): this {
    if (!(value instanceof Uint8Array)) throw new NotSimple();
    this.varint(value.length);
    return this.raw(value);
  }

  bool(value: boolean): this {
    this.ensure(1);
    this.buf[this.pos++] = value ? 1 : 0;
    return this;
  }

  double(value: number): this {
    if (typeof value !== 'number') throw new NotSimple();
    this.ensure(8);
    this.pos = this.buf.writeDoubleLE(value, this.pos);
    return this;
  }

  float(value: number): this {
    if (typeof value !== 'number' || (Number.isFinite(value) && (value > FLOAT32_MAX || value < -FLOAT32_MAX)))
      throw new NotSimple();
    this.ensure(4);
    this.pos = this.buf.writeFloatLE(value, this.pos);
    return this;
  }

  int32(value: number): this {
    if (!Number.isInteger(value) || value < INT32_MIN || value > INT32_MAX) throw new NotSimple();
    if (value >= 0) this.varint(value);
    else this.varintBig(BigInt(value));
    return this;
  }

  uint32(value: number): this {
    if (!Number.isInteger(value) || value < 0 || value > UINT32_MAX) throw new NotSimple();
    this.varint(value);
    return this;
  }

  sint32(value: number): this {
    if (!Number.isInteger(value) || value < INT32_MIN || value > INT32_MAX) throw new NotSimple();
    this.varint(((value << 1) ^ (value >> 31)) >>> 0);
    return this;
  }

  fixed32(value: number): this {
    if (!Number.isInteger(value) || value < 0 || value > UINT32_MAX) throw new NotSimple();
    this.ensure(4);
    this.pos = this.buf.writeUInt32LE(value, this.pos);
    return this;
  }

  sfixed32(value: number): this {
    if (!Number.isInteger(value) || value < INT32_MIN || value > INT32_MAX) throw new NotSimple();
    this.ensure(4);
    this.pos = this.buf.writeInt32LE(value, this.pos);
    return this;
  }

  int64(value: bigint): this {
    // The common case first: a bigint that is a non-negative safe integer.
    if (typeof value === 'bigint' && value >= 0n && value <= MAX_SAFE_BIGINT) {
      this.varint(Number(value));
      return this;
    }
    const n = int64Value(value, INT64_MIN, INT64_MAX);
    if (typeof n === 'number') this.varint(n);
    else this.varintBig(n);
    return this;
  }

  uint64(value: bigint): this {
    const n = int64Value(value, 0n, UINT64_MAX);
    if (typeof n === 'number') this.varint(n);
    else this.varintBig(n);
    return this;
  }

  sint64(value: bigint): this {
    const n = BigInt(int64Value(value, INT64_MIN, INT64_MAX));
    this.varintBig((n << 1n) ^ (n >> 63n));
    return this;
  }

  fixed64(value: bigint): this {
    this.ensure(8);
    this.pos = this.buf.writeBigUInt64LE(BigInt.asUintN(64, BigInt(int64Value(value, 0n, UINT64_MAX))), this.pos);
    return this;
  }

  sfixed64(value: bigint): this {
    this.ensure(8);
    this.pos = this.buf.writeBigInt64LE(BigInt(int64Value(value, INT64_MIN, INT64_MAX)), this.pos);
    return this;
  }
}

/**
 * A 64-bit integer field's value (a bigint, or a safe integer number, as init shapes may
 * give), as a number when it is a non-negative safe integer (the common, fast case) and as
 * a bigint otherwise; out of the type's range, or anything else (such as a string), is left
 * to protobuf-es.
 */
function int64Value(value: unknown, min: bigint, max: bigint): number | bigint {
  if (typeof value === 'number') {
    if (!Number.isSafeInteger(value)) throw new NotSimple();
    if (value >= 0) return value;
    value = BigInt(value);
  }
  if (typeof value !== 'bigint' || value < min || value > max) throw new NotSimple();
  return value >= 0n && value <= 9007199254740991n ? Number(value) : value;
}

interface WritePlan {
  write(writer: Writer, message: Record<string, unknown>): void;
}

type FieldWrite = (writer: Writer, value: unknown) => void;

const writePlans = new WeakMap<DescMessage, WritePlan>();

function writePlan(desc: DescMessage): WritePlan {
  const existing = writePlans.get(desc);
  if (existing) return existing;
  // Registered before its fields are planned, so a recursive type finds itself; its
  // nested plans are looked up when written, by which time every write is compiled.
  const plan: WritePlan = { write: () => {} };
  writePlans.set(desc, plan);
  const fields = [...desc.fields]
    .sort((a, b) => a.number - b.number)
    .map((field) => ({ name: field.localName, write: fieldWrite(field) }));
  plan.write = compiledWrite(fields);
  return plan;
}

/**
 * The write of one message type as one function compiled from its field list: each field
 * read by its own name (`m["reference"]`), so that every read is a plain property load of
 * a known shape. A loop over the fields reading `m[name]` is one property lookup shared by
 * every field of every type, which V8 can only do the slow way (it was most of the
 * encoder's time on a history page); so was a store per field in the reader below.
 */
function compiledWrite(fields: { name: string; write: FieldWrite }[]): WritePlan['write'] {
  const lines = fields.map(
    ({ name }, i) => `v = m[${JSON.stringify(name)}]; if (v !== undefined && v !== null) w${i}(writer, v);`,
  );
  // The source holds only field names (as JSON strings); the writes come in as arguments.
  const make = new Function(
    ...fields.map((_, i) => `w${i}`),
    'writeUnknown',
    `return function write(writer, m) { let v; ${lines.join(' ')} v = m.$unknown; if (v) writeUnknown(writer, v); };`,
  );
  return make(...fields.map((field) => field.write), writeUnknown) as WritePlan['write'];
}

/** Unknown fields, last, as protobuf-es writes them. */
function writeUnknown(writer: Writer, unknown: { no: number; wireType: WireType; data: Uint8Array }[]): void {
  for (const { no, wireType, data } of unknown) writer.tag(no, wireType).raw(data);
}

function fieldWrite(field: DescField): FieldWrite {
  const no = field.number;
  switch (field.fieldKind) {
    case 'scalar':
    case 'enum': {
      const { wireType, write, isZero } = fieldScalar(field);
      const implicit = field.presence === IMPLICIT;
      return (writer, value) => {
        if (implicit && isZero(value)) return;
        write(writer.tag(no, wireType), value as never);
      };
    }
    case 'message': {
      const nested = writePlan(field.message);
      return (writer, value) => {
        nested.write(writer.tag(no, WireType.LengthDelimited).fork(), value as Record<string, unknown>);
        writer.join();
      };
    }
    case 'list': {
      if (field.listKind === 'message') {
        const nested = writePlan(field.message);
        return (writer, value) => {
          for (const item of value as Record<string, unknown>[]) {
            nested.write(writer.tag(no, WireType.LengthDelimited).fork(), item);
            writer.join();
          }
        };
      }
      const { wireType, write } = fieldScalar(field);
      if (field.packed) {
        return (writer, value) => {
          const list = value as never[];
          if (list.length === 0) return;
          writer.tag(no, WireType.LengthDelimited).fork();
          for (const item of list) write(writer, item);
          writer.join();
        };
      }
      return (writer, value) => {
        for (const item of value as never[]) write(writer.tag(no, wireType), item);
      };
    }
    default:
      throw new Error(`${field.parent.typeName}.${field.name}: not covered`);
  }
}

// ----- Reading -----

interface ReadPlan {
  read(reader: Reader, length: number, depth: number): Record<string, unknown>;
}

/**
 * How one field is read after its tag: a scalar's, enum's or message's value (which the
 * compiled read stores; a message only once), or one occurrence of a list field, into its list.
 */
type FieldRead =
  | { kind: 'value'; read: (reader: Reader, wireType: WireType, depth: number) => unknown }
  | { kind: 'message'; read: (reader: Reader, wireType: WireType, depth: number) => unknown }
  | { kind: 'list'; read: (reader: Reader, list: unknown[], wireType: WireType, depth: number) => void };

const readPlans = new WeakMap<DescMessage, ReadPlan>();

function readPlan(desc: DescMessage): ReadPlan {
  const existing = readPlans.get(desc);
  if (existing) return existing;
  // Registered before its fields are planned, so a recursive type finds itself.
  const plan: ReadPlan = { read: () => ({}) };
  readPlans.set(desc, plan);
  const fields = desc.fields.map((field) => ({ no: field.number, name: field.localName, read: fieldRead(field) }));
  plan.read = compiledRead(fields, zeroMessageMaker(desc));
  return plan;
}

/**
 * The read of one message type as one function compiled from its field list: a switch on
 * the field number, each case storing into the field by its own name (see compiledWrite).
 */
function compiledRead(
  fields: { no: number; name: string; read: FieldRead }[],
  zeroMessage: () => Record<string, unknown>,
): ReadPlan['read'] {
  const cases = fields.map(({ no, name, read }, i) => {
    const key = `m[${JSON.stringify(name)}]`;
    if (read.kind === 'value') return `case ${no}: ${key} = r${i}(reader, tag & 7, depth); break;`;
    // A second occurrence would be merged into the first: protobuf-es does that.
    if (read.kind === 'message') {
      const once = `if (${key} !== undefined) throw new NotSimple();`;
      return `case ${no}: ${once} ${key} = r${i}(reader, tag & 7, depth); break;`;
    }
    return `case ${no}: r${i}(reader, ${key}, tag & 7, depth); break;`;
  });
  // The source holds only field names (as JSON strings) and numbers; the reads come in as arguments.
  const make = new Function(
    ...fields.map((_, i) => `r${i}`),
    'zeroMessage',
    'NotSimple',
    'RECURSION_LIMIT',
    `return function read(reader, length, depth) {
      if (depth > RECURSION_LIMIT) throw new NotSimple();
      const m = zeroMessage();
      const end = reader.pos + length;
      while (reader.pos < end) {
        const tag = reader.fieldTag();
        switch (tag >>> 3) { ${cases.join(' ')} default: throw new NotSimple(); }
      }
      if (reader.pos !== end) throw new NotSimple();
      return m;
    };`,
  );
  return make(...fields.map((field) => field.read.read), zeroMessage, NotSimple, RECURSION_LIMIT) as ReadPlan['read'];
}

/**
 * The zero message, as protobuf-es makes it for proto3: $typeName, then every field with
 * implicit presence (scalars, enums, lists) at its zero; message fields and proto3
 * `optional` scalars absent. Made by one object literal compiled from the descriptor, so
 * that V8 gives every message of the type one fixed shape with its fields inside the
 * object: a message built up field by field under computed names turns into a slow
 * dictionary past a dozen fields (a Transaction has 23), which cost the gateway more to
 * make, to read and to collect than the decoding itself.
 */
function zeroMessageMaker(desc: DescMessage): () => Record<string, unknown> {
  const entries = [`"$typeName": ${JSON.stringify(desc.typeName)}`];
  for (const field of desc.fields) {
    if (field.presence === IMPLICIT)
      entries.push(`${JSON.stringify(field.localName)}: ${zeroSource(fieldZero(field)())}`);
  }
  // The source holds only field names (as JSON strings) and the constant zeros below.
  return new Function(`return () => ({ ${entries.join(', ')} });`)() as () => Record<string, unknown>;
}

/** A zero value as JavaScript source: a fresh list or byte array for each message. */
function zeroSource(zero: unknown): string {
  if (Array.isArray(zero)) return '[]';
  if (zero instanceof Uint8Array) return 'new Uint8Array(0)';
  if (typeof zero === 'bigint') return '0n';
  if (typeof zero === 'string' || typeof zero === 'number' || typeof zero === 'boolean') return JSON.stringify(zero);
  throw new Error(`no zero for ${String(zero)}`);
}

function fieldZero(field: DescField): () => unknown {
  if (field.fieldKind === 'list') return () => [];
  return fieldScalar(field).zero;
}

function fieldRead(field: DescField): FieldRead {
  switch (field.fieldKind) {
    case 'scalar':
    case 'enum': {
      const { wireType: expected, read } = fieldScalar(field);
      return {
        kind: 'value',
        read: (reader, wireType) => {
          if (wireType !== expected) throw new NotSimple();
          return read(reader);
        },
      };
    }
    case 'message': {
      const nested = readPlan(field.message);
      return {
        kind: 'message',
        read: (reader, wireType, depth) => {
          if (wireType !== WireType.LengthDelimited) throw new NotSimple();
          return nested.read(reader, reader.uint32(), depth + 1);
        },
      };
    }
    case 'list': {
      if (field.listKind === 'message') {
        const nested = readPlan(field.message);
        return {
          kind: 'list',
          read: (reader, list, wireType, depth) => {
            if (wireType !== WireType.LengthDelimited) throw new NotSimple();
            list.push(nested.read(reader, reader.uint32(), depth + 1));
          },
        };
      }
      const { wireType: expected, read } = fieldScalar(field);
      const packable = expected !== WireType.LengthDelimited;
      return {
        kind: 'list',
        read: (reader, list, wireType) => {
          if (packable && wireType === WireType.LengthDelimited) {
            const end = reader.uint32() + reader.pos;
            while (reader.pos < end) list.push(read(reader));
            if (reader.pos !== end) throw new NotSimple();
          } else if (wireType === expected) {
            list.push(read(reader));
          } else {
            throw new NotSimple();
          }
        },
      };
    }
    default:
      throw new Error(`${field.parent.typeName}.${field.name}: not covered`);
  }
}

/** Whether `desc` takes the compiled path (for the tests: the messages that matter must). */
export function compiled(desc: DescMessage): boolean {
  return covered(desc);
}
