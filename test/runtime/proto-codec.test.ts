/**
 * The compiled protobuf codec against protobuf-es itself, for every message type in gen/:
 * random messages encode to the very bytes toBinary writes (from a message and from an init
 * shape), those bytes decode to the very message fromBinary returns, and bytes the compiled
 * reader does not take (unknown fields, a repeated singular message, an unpacked list,
 * garbage) still get protobuf-es's answer or error.
 */
import { readdirSync } from 'node:fs';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import {
  create,
  type DescField,
  type DescFile,
  type DescMessage,
  fromBinary,
  ScalarType,
  toBinary,
} from '@bufbuild/protobuf';
import { BinaryWriter, WireType } from '@bufbuild/protobuf/wire';
import * as assert from 'uvu/assert';
import { ListTransactionsResponseSchema } from '../../gen/prepaid/v1/purchase_pb.js';
import { TransactionSchema } from '../../gen/prepaid/v1/types_pb.js';
import { compiled, protoDecoder, protoEncoder } from '../../runtime/proto-codec/codec.js';
import { suite } from '../helpers/suite.js';

const test = suite('runtime: compiled protobuf codec');

async function allMessages(): Promise<DescMessage[]> {
  const root = path.resolve('gen');
  const files: string[] = [];
  const walk = (dir: string) => {
    for (const entry of readdirSync(dir, { withFileTypes: true })) {
      if (entry.isDirectory()) walk(path.join(dir, entry.name));
      else if (entry.name.endsWith('_pb.ts')) files.push(path.join(dir, entry.name));
    }
  };
  walk(root);
  const messages: DescMessage[] = [];
  const add = (message: DescMessage) => {
    messages.push(message);
    for (const nested of message.nestedMessages) add(nested);
  };
  for (const file of files) {
    const module = (await import(pathToFileURL(file).href)) as Record<string, unknown>;
    for (const value of Object.values(module)) {
      if (typeof value === 'object' && value !== null && (value as { kind?: string }).kind === 'file') {
        for (const message of (value as DescFile).messages) add(message);
      }
    }
  }
  return [...new Map(messages.map((m) => [m.typeName, m])).values()];
}

/** A small deterministic random source, so a failure can be run again. */
function random(seed: number) {
  let state = seed >>> 0 || 1;
  const next = () => {
    state ^= state << 13;
    state ^= state >>> 17;
    state ^= state << 5;
    return (state >>> 0) / 2 ** 32;
  };
  return { next, int: (n: number) => Math.floor(next() * n), chance: (p: number) => next() < p };
}
type Random = ReturnType<typeof random>;

const STRINGS = ['', 'a', 'mtn', 'Bench Stores', 'naïve ₦ 😀', 'x'.repeat(300)];
/** The edges of each type, met one time in five. */
const EDGES: Partial<Record<ScalarType, unknown[]>> = {
  [ScalarType.INT32]: [-1, -(2 ** 31), 2 ** 31 - 1, 127, 128, 16383, 16384],
  [ScalarType.SINT32]: [-1, -(2 ** 31), 2 ** 31 - 1, -64, 64],
  [ScalarType.SFIXED32]: [-1, -(2 ** 31), 2 ** 31 - 1],
  [ScalarType.UINT32]: [2 ** 32 - 1, 2 ** 31, 127, 128],
  [ScalarType.FIXED32]: [2 ** 32 - 1, 2 ** 31],
  // 2^49 - 1 is the largest the reader takes as a number first (7 bytes); 2^49 needs the library's read.
  [ScalarType.INT64]: [
    -1n,
    -(2n ** 63n),
    2n ** 63n - 1n,
    2n ** 53n,
    -(2n ** 53n),
    9007199254740991n,
    1n,
    127n,
    128n,
    2n ** 49n - 1n,
    2n ** 49n,
  ],
  [ScalarType.SINT64]: [-1n, -(2n ** 63n), 2n ** 63n - 1n, 2n ** 53n],
  [ScalarType.SFIXED64]: [-1n, -(2n ** 63n), 2n ** 63n - 1n],
  [ScalarType.UINT64]: [2n ** 64n - 1n, 2n ** 63n, 2n ** 53n, 1n, 128n, 2n ** 49n - 1n, 2n ** 49n],
  [ScalarType.FIXED64]: [2n ** 64n - 1n, 2n ** 63n],
  [ScalarType.DOUBLE]: [-0, Number.NaN, Number.POSITIVE_INFINITY, Number.MIN_VALUE, Number.MAX_VALUE],
  [ScalarType.FLOAT]: [-0, Number.NaN, Number.NEGATIVE_INFINITY, 3.4028234663852886e38],
  [ScalarType.STRING]: ['é'.repeat(70), 'a'.repeat(127), 'a'.repeat(128), 'a'.repeat(20_000), '\ud800 lone'],
};

function scalarValue(type: ScalarType, r: Random): unknown {
  const edges = EDGES[type];
  if (edges && r.chance(0.2)) return edges[r.int(edges.length)];
  const small = r.chance(0.3);
  switch (type) {
    case ScalarType.STRING:
      return STRINGS[r.int(STRINGS.length)];
    case ScalarType.BYTES:
      return Uint8Array.from({ length: r.int(4) }, () => r.int(256));
    case ScalarType.BOOL:
      return r.chance(0.5);
    case ScalarType.DOUBLE:
      return small ? 0 : (r.next() - 0.5) * 1e6;
    case ScalarType.FLOAT:
      return small ? 0 : Math.fround(r.next() * 100);
    case ScalarType.INT32:
    case ScalarType.SINT32:
    case ScalarType.SFIXED32:
      return small ? 0 : r.int(2 ** 31) - 2 ** 30;
    case ScalarType.UINT32:
    case ScalarType.FIXED32:
      return small ? 0 : r.int(2 ** 32);
    case ScalarType.UINT64:
    case ScalarType.FIXED64:
      return small ? 0n : BigInt(r.int(2 ** 53));
    default:
      return small ? 0n : BigInt(r.int(2 ** 53)) - 2n ** 52n;
  }
}

function fieldValue(field: DescField, r: Random, depth: number): unknown {
  switch (field.fieldKind) {
    case 'scalar':
      return scalarValue(field.scalar, r);
    case 'enum':
      return r.chance(0.3) ? 0 : field.enum.values[r.int(field.enum.values.length)]!.number;
    case 'message':
      return randomMessage(field.message, r, depth + 1);
    case 'list': {
      const n = r.int(4);
      if (field.listKind === 'message')
        return Array.from({ length: n }, () => randomMessage(field.message, r, depth + 1));
      if (field.listKind === 'enum')
        return Array.from({ length: n }, () => field.enum.values[r.int(field.enum.values.length)]!.number);
      return Array.from({ length: n }, () => scalarValue(field.scalar, r));
    }
    case 'map': {
      const map: Record<string, unknown> = {};
      if (field.mapKind === 'scalar')
        for (let i = r.int(3); i > 0; i -= 1) map[String(r.int(100))] = scalarValue(field.scalar, r);
      return map;
    }
  }
}

/** An init shape with a random selection of fields set, nested messages included. */
function randomInit(desc: DescMessage, r: Random, depth = 0): Record<string, unknown> {
  const init: Record<string, unknown> = {};
  if (depth > 3) return init;
  for (const field of desc.fields) {
    if (field.oneof || !r.chance(0.7)) continue;
    init[field.localName] = fieldValue(field, r, depth);
  }
  return init;
}

function randomMessage(desc: DescMessage, r: Random, depth = 0) {
  return create(desc, randomInit(desc, r, depth) as never);
}

const messages = await allMessages();
const hex = (bytes: Uint8Array) => Buffer.from(bytes).toString('hex');

test('the history page and the transaction take the compiled path', () => {
  assert.ok(compiled(ListTransactionsResponseSchema));
  assert.ok(compiled(TransactionSchema));
});

test('every message type: the same bytes as toBinary, the same message as fromBinary', () => {
  assert.ok(messages.length > 40, `only ${messages.length} message types found`);
  const r = random(20261124);
  for (const desc of messages) {
    const encode = protoEncoder(desc);
    const decode = protoDecoder(desc);
    for (let i = 0; i < 60; i += 1) {
      const init = randomInit(desc, r);
      const message = create(desc, init as never);
      const expected = toBinary(desc, message);
      assert.equal(hex(encode(message)), hex(expected), `${desc.typeName}: encoding a message`);
      assert.equal(hex(encode(init as never)), hex(expected), `${desc.typeName}: encoding an init shape`);
      assert.equal(decode(expected), fromBinary(desc, expected), `${desc.typeName}: decoding`);
    }
  }
});

test('bytes the compiled reader does not take get protobuf-es answer or error', () => {
  const desc = TransactionSchema;
  const decode = protoDecoder(desc);
  const base = toBinary(desc, create(desc, { reference: 'ABC123', chargedKobo: 9700n, createdAt: { seconds: 5n } }));
  const withUnknown = new BinaryWriter().raw(base).tag(999, WireType.Varint).uint32(7).finish();
  const unknown = decode(withUnknown);
  assert.equal(unknown, fromBinary(desc, withUnknown));
  assert.equal(unknown.$unknown?.length, 1);
  assert.equal(toBinary(desc, unknown), withUnknown, 'kept for a round trip');
  assert.equal(hex(protoEncoder(desc)(unknown)), hex(withUnknown), 'and written back by the compiled writer');

  // createdAt twice: the second is merged into the first.
  const twice = new BinaryWriter()
    .raw(base)
    .tag(21, WireType.LengthDelimited)
    .fork()
    .tag(2, WireType.Varint)
    .int32(9)
    .join()
    .finish();
  assert.equal(decode(twice), fromBinary(desc, twice));
  assert.equal(decode(twice).createdAt?.seconds, 5n);
  assert.equal(decode(twice).createdAt?.nanos, 9);

  // A wire type that does not match the field (protobuf-es reads it as the field's own and then fails).
  sameOutcome(desc, new BinaryWriter().tag(7, WireType.Bit64).fixed64(3n).finish());
  sameOutcome(desc, new BinaryWriter().tag(1, WireType.Varint).int32(3).finish());
  // Truncated bytes: the same error as protobuf-es.
  assert.not.ok(sameOutcome(desc, base.subarray(0, base.length - 3)), 'truncated bytes are an error');
  // A string of bytes that are not UTF-8 (proto3 refuses them), and one that is, beyond ASCII.
  assert.not.ok(
    sameOutcome(
      desc,
      new BinaryWriter()
        .tag(1, WireType.LengthDelimited)
        .bytes(Uint8Array.of(0x41, 0xff, 0x42))
        .finish(),
    ),
  );
  assert.ok(
    sameOutcome(desc, new BinaryWriter().tag(1, WireType.LengthDelimited).bytes(Buffer.from('₦500 naïve')).finish()),
  );
  // A varint bool written longer than it needs, and a tag of field number 0.
  assert.ok(sameOutcome(desc, Uint8Array.of(...base, 0xa0, 0x01, 0x81, 0x00)));
  assert.not.ok(sameOutcome(desc, Uint8Array.of(0x00, 0x01)));
});

/** Decodes with both; they must agree on the message or on the error. Whether it decoded. */
function sameOutcome(desc: DescMessage, bytes: Uint8Array): boolean {
  const outcome = (decode: () => unknown) => {
    try {
      return { message: decode() };
    } catch (error) {
      return { error: (error as Error).message };
    }
  };
  const expected = outcome(() => fromBinary(desc, bytes));
  assert.equal(
    outcome(() => protoDecoder(desc)(bytes)),
    expected,
  );
  return 'message' in expected;
}

test('an unpacked repeated scalar is read like a packed one', () => {
  const list = messages.find((desc) =>
    desc.fields.some((f) => f.fieldKind === 'list' && f.listKind !== 'message' && f.packed),
  );
  if (!list) return;
  const field = list.fields.find((f) => f.fieldKind === 'list' && f.listKind !== 'message' && f.packed)!;
  const writer = new BinaryWriter();
  for (const value of [1, 2, 3]) writer.tag(field.number, WireType.Varint).int32(value);
  const bytes = writer.finish();
  assert.equal(protoDecoder(list)(bytes), fromBinary(list, bytes));
});

test.run();
