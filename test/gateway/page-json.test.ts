/**
 * The history page written from the core's reply bytes (gateway/actions/page-json.ts)
 * against the way it was answered before: the reply decoded by the transport's decoder,
 * every transaction through transactionView, and JSON.stringify. The bytes must be the same
 * for every product, status, text, amount and time the core can send; the fast path must
 * be the one that ran for those; and bytes off the plain case (unknown or repeated fields,
 * wrong wire types, invalid UTF-8, truncation, values the view refuses) must still get the
 * old answer or fail as the old path fails.
 */
import { create, type MessageInitShape, toBinary } from '@bufbuild/protobuf';
import { BinaryWriter, WireType } from '@bufbuild/protobuf/wire';
import { TimestampSchema, timestampFromMs } from '@bufbuild/protobuf/wkt';
import * as assert from 'uvu/assert';
import {
  FIELDS_MATCH,
  fieldPlan,
  type SchemaField,
  schemaFields,
  transactionsPageBody,
  transactionsPageJson,
  writeTransactionsPage,
} from '../../gateway/actions/page-json.js';
import { ListTransactionsResponseSchema } from '../../gen/prepaid/v1/purchase_pb.js';
import { Product, TransactionSchema, TransactionStatus } from '../../gen/prepaid/v1/types_pb.js';
import { protoDecoder, protoEncoder } from '../../runtime/proto-codec/codec.js';
import { suite } from '../helpers/suite.js';

const test = suite('gateway: history pages written from the reply bytes');

type TxInit = MessageInitShape<typeof TransactionSchema>;

/** The answer as the gateway made it before: decoded, viewed, stringified. */
function oldAnswer(bytes: Uint8Array): string {
  return JSON.stringify(transactionsPageBody(protoDecoder(ListTransactionsResponseSchema)(bytes)));
}

function pageBytes(transactions: TxInit[], nextPageToken = ''): Uint8Array {
  return protoEncoder(ListTransactionsResponseSchema)({ transactions, nextPageToken });
}

/** The fast path ran and wrote what the old path wrote. */
function assertFastSame(bytes: Uint8Array, what: string): void {
  const expected = oldAnswer(bytes);
  const fast = writeTransactionsPage(bytes);
  assert.is(fast.toString('utf8'), expected, what);
  assert.ok(fast.equals(Buffer.from(expected, 'utf8')), `${what}: the same bytes`);
  assert.ok(transactionsPageJson(bytes).equals(fast), `${what}: the public function gives the fast answer`);
}

/** Whatever the path, the answer (or the failure) is the old one. */
function assertSameOrBothFail(bytes: Uint8Array, what: string): 'same' | 'failed' {
  let expected: string | undefined;
  try {
    expected = oldAnswer(bytes);
  } catch {
    assert.throws(() => transactionsPageJson(bytes), undefined, `${what}: the old path failed, so must the new`);
    return 'failed';
  }
  assert.is(transactionsPageJson(bytes).toString('utf8'), expected, what);
  return 'same';
}

const T0 = Date.UTC(2026, 10, 24, 9, 30, 15, 123);

/** One transaction of each product, as the core sends them. */
const BASE: TxInit[] = [
  {
    reference: 'TX-AIR-1',
    accountId: 'acct-1',
    product: Product.AIRTIME,
    status: TransactionStatus.SUCCESS,
    service: 'mtn',
    recipient: '08031234567',
    faceValueKobo: 10_000n,
    chargedKobo: 9_800n,
    balanceAfterKobo: 5_000_000n,
    createdAt: timestampFromMs(T0),
    updatedAt: timestampFromMs(T0 + 850),
    livemode: true,
  },
  {
    reference: 'TX-DATA-1',
    accountId: 'acct-1',
    product: Product.DATA,
    status: TransactionStatus.PENDING,
    service: 'glo',
    recipient: '08051234567',
    faceValueKobo: 120_050n,
    chargedKobo: 118_001n,
    planId: 42n,
    planLabel: '1.5GB - 30 days',
    requestId: 'order-77',
    createdAt: timestampFromMs(T0 - 86_400_000),
    updatedAt: timestampFromMs(T0),
    livemode: false,
  },
  {
    reference: 'TX-ELEC-1',
    accountId: 'acct-1',
    product: Product.ELECTRICITY,
    status: TransactionStatus.SUCCESS,
    service: 'ikedc',
    recipient: '45012345678',
    faceValueKobo: 500_000n,
    chargedKobo: 497_500n,
    meterType: 'prepaid',
    token: '1234-5678-9012-3456-7890',
    units: '31.5 kWh',
    kctTokens: ['5161-0000-1111-2222-3333', '5161-4444-5555-6666-7777'],
    bonusTokens: ['1111-2222-3333-4444-5555'],
    customerPhone: '08031234567',
    createdAt: timestampFromMs(T0),
    updatedAt: timestampFromMs(T0),
    livemode: true,
  },
  {
    reference: 'TX-CABLE-1',
    accountId: 'acct-1',
    product: Product.CABLE,
    status: TransactionStatus.FAILED,
    service: 'dstv',
    recipient: '7012345678',
    faceValueKobo: 1_525_000n,
    chargedKobo: 1_500_000n,
    planLabel: 'DStv Compact',
    packageCode: 'compact',
    failureReason: 'The provider refused the smart card number.',
    createdAt: timestampFromMs(T0),
    updatedAt: timestampFromMs(T0 + 3_600_000),
  },
  {
    reference: 'TX-SMS-1',
    accountId: 'acct-1',
    product: Product.BULK_SMS,
    status: TransactionStatus.REVERSED,
    service: 'sms-dnd',
    recipient: '',
    faceValueKobo: 40_000n,
    chargedKobo: 38_000n,
    smsSent: 100,
    smsPages: 2,
    planId: 7n,
    planLabel: 'not shown for SMS',
    createdAt: timestampFromMs(T0),
    updatedAt: timestampFromMs(T0),
    livemode: true,
  },
];

test('every product and status, with and without a next cursor, and an empty page', () => {
  assertFastSame(pageBytes(BASE), 'the five products');
  assertFastSame(pageBytes(BASE, 'eyJjIjoxNzAwMDAwMDAwMDAwLCJyIjoiVFgtMSJ9'), 'with a cursor');
  assertFastSame(pageBytes([]), 'an empty page');
  assertFastSame(pageBytes([], 'abc'), 'an empty page with a cursor');
  assertFastSame(new Uint8Array(0), 'no bytes at all');
  // Every product and status value, and values no name stands for.
  const products = [
    Product.UNSPECIFIED,
    Product.AIRTIME,
    Product.DATA,
    Product.ELECTRICITY,
    Product.CABLE,
    Product.BULK_SMS,
    99,
    -1,
  ];
  const statuses = [
    TransactionStatus.UNSPECIFIED,
    TransactionStatus.PENDING,
    TransactionStatus.SUCCESS,
    TransactionStatus.FAILED,
    TransactionStatus.REVERSED,
    42,
    -7,
  ];
  const all = products.flatMap((product) =>
    statuses.map((status, i) => ({ ...BASE[i % BASE.length]!, product, status })),
  );
  assertFastSame(pageBytes(all), 'every product with every status');
  // The protobuf-es writer's bytes too, not only the core's.
  assertFastSame(
    toBinary(
      ListTransactionsResponseSchema,
      create(ListTransactionsResponseSchema, { transactions: all, nextPageToken: 'x' }),
    ),
    'toBinary bytes',
  );
});

test('text: escapes, control characters, non-ASCII and long strings', () => {
  const controls = Array.from({ length: 0x20 }, (_, i) => String.fromCharCode(i)).join('');
  const texts = [
    '',
    'a',
    '"quoted"',
    'back\\slash',
    controls,
    'tab\there\nnewline\r',
    '\u007f DEL',
    'naïve ₦ 😀 中文',
    '\u2028\u2029',
    'é"\\\n',
    'x'.repeat(5000),
  ];
  const txs = texts.map((text, i) => ({
    ...BASE[i % BASE.length]!,
    reference: `TX-${text}`,
    service: text,
    recipient: text,
    planLabel: text,
    packageCode: text,
    meterType: text,
    token: text,
    units: text,
    kctTokens: [text, text],
    bonusTokens: [text],
    failureReason: text,
    requestId: text,
    accountId: text,
    customerPhone: text,
  }));
  assertFastSame(pageBytes(txs, 'cursor "with" \\ and ₦'), 'every text field');
  // Text that grows six times when escaped, in a page that must grow its buffer.
  assertFastSame(
    pageBytes(Array.from({ length: 50 }, () => ({ ...BASE[0]!, failureReason: '\u0001'.repeat(400) }))),
    'escapes that grow the answer',
  );
  assertFastSame(
    pageBytes(Array.from({ length: 200 }, () => ({}))),
    'empty transactions, the answer far larger than the bytes',
  );
});

test('amounts, plan ids and SMS counts at their edges', () => {
  const kobo = [
    0n,
    1n,
    5n,
    10n,
    99n,
    100n,
    101n,
    150n,
    9_850n,
    123_456_789n,
    99_999_999_999_999n,
    999_999_999_999_999n,
    1_000_000_000_000_000n,
    1_000_000_000_000_001n,
    4_503_599_627_370_497n,
    BigInt(Number.MAX_SAFE_INTEGER),
    -1n,
    -150n,
    -999_999_999_999_999n,
    -1_000_000_000_000_001n,
    BigInt(Number.MIN_SAFE_INTEGER),
    2n ** 32n - 1n,
    2n ** 32n,
    2n ** 35n + 17n,
  ];
  const txs = kobo.flatMap((value) =>
    [Product.DATA, Product.BULK_SMS, Product.AIRTIME].map((product) => ({
      ...BASE[1]!,
      product,
      faceValueKobo: value,
      chargedKobo: -value,
      planId: value,
      balanceAfterKobo: value,
      smsSent: Number(BigInt.asIntN(32, value)),
      smsPages: -Number(BigInt.asIntN(32, value)) | 0,
    })),
  );
  assertFastSame(pageBytes(txs), 'amounts and ids');
  assertFastSame(pageBytes([{ ...BASE[4]!, smsSent: 2_147_483_647, smsPages: -2_147_483_648 }]), 'int32 bounds');
});

test('times: absent, the epoch, rounding of nanos, before 1970 and after 9999', () => {
  const times = [
    undefined,
    { seconds: 0n, nanos: 0 },
    { seconds: 1_764_000_000n, nanos: 999_999_999 },
    { seconds: 1_764_000_000n, nanos: 500_000 },
    { seconds: 1_764_000_000n, nanos: 1_499_999 },
    { seconds: 1_764_000_000n, nanos: 1_500_000 },
    { seconds: 1_764_086_399n, nanos: 999_000_000 },
    { seconds: -1n, nanos: 0 },
    { seconds: -62_135_596_800n, nanos: 0 },
    { seconds: 253_402_300_799n, nanos: 999_000_000 },
    { seconds: 253_402_300_800n, nanos: 0 },
    { seconds: 8_640_000_000_000n, nanos: 0 },
  ];
  const txs = times.map((created, i): TxInit => {
    const { createdAt: _c, updatedAt: _u, ...rest } = BASE[0]!;
    const updated = times[(i + 3) % times.length];
    return {
      ...rest,
      ...(created === undefined ? {} : { createdAt: create(TimestampSchema, created) }),
      ...(updated === undefined ? {} : { updatedAt: create(TimestampSchema, updated) }),
    };
  });
  assertFastSame(pageBytes(txs), 'times');
  // Days change from row to row, and back (isoString keeps the last day's prefix).
  const days = [0, 1, 0, 400, 400, -1].map((d) => ({
    ...BASE[0]!,
    createdAt: timestampFromMs(T0 + d * 86_400_000),
    updatedAt: timestampFromMs(T0 - d * 86_400_001),
  }));
  assertFastSame(pageBytes(days), 'days back and forth');
});

test('random transactions, as many shapes as the fields allow', () => {
  let state = 20261124;
  const next = () => {
    state ^= state << 13;
    state ^= state >>> 17;
    state ^= state << 5;
    return (state >>> 0) / 2 ** 32;
  };
  const pick = <T>(values: readonly T[]): T => values[Math.floor(next() * values.length)]!;
  const texts = ['', 'mtn', '08031234567', 'a"b', 'é', '😀', '\n', 'DStv Compact Plus', '1234-5678-9012-3456-7890'];
  const amounts = [0n, 1n, 99n, 100n, 9_850n, 1_000_000n, 123_456_789_012n];
  for (let round = 0; round < 20; round++) {
    const txs = Array.from({ length: 1 + Math.floor(next() * 100) }, () => {
      const tx: Record<string, unknown> = {};
      for (const field of [
        'reference',
        'accountId',
        'service',
        'recipient',
        'planLabel',
        'packageCode',
        'meterType',
        'token',
        'units',
        'failureReason',
        'requestId',
        'customerPhone',
      ]) {
        if (next() < 0.6) tx[field] = pick(texts);
      }
      for (const field of ['faceValueKobo', 'chargedKobo', 'balanceAfterKobo', 'planId'])
        if (next() < 0.7) tx[field] = pick(amounts);
      if (next() < 0.9) tx['product'] = pick([0, 1, 2, 3, 4, 5]);
      if (next() < 0.9) tx['status'] = pick([0, 1, 2, 3, 4]);
      if (next() < 0.5) tx['kctTokens'] = Array.from({ length: Math.floor(next() * 3) }, () => pick(texts));
      if (next() < 0.5) tx['bonusTokens'] = Array.from({ length: Math.floor(next() * 2) }, () => pick(texts));
      if (next() < 0.5) tx['smsSent'] = pick([0, 1, 100, 10_000]);
      if (next() < 0.5) tx['smsPages'] = pick([0, 1, 2, 6]);
      if (next() < 0.5) tx['needsAttention'] = true;
      if (next() < 0.5) tx['livemode'] = true;
      if (next() < 0.8) tx['createdAt'] = timestampFromMs(T0 + Math.floor(next() * 1e10) - 5e9);
      if (next() < 0.8) tx['updatedAt'] = timestampFromMs(T0 + Math.floor(next() * 1e6));
      return tx as TxInit;
    });
    assertFastSame(pageBytes(txs, next() < 0.5 ? '' : pick(texts)), `random page ${round}`);
  }
});

/** A page's bytes with raw fields appended inside its first transaction and after the page. */
function handMade(build: {
  inTx?: (w: BinaryWriter) => void;
  inPage?: (w: BinaryWriter) => void;
  tx?: TxInit;
}): Uint8Array {
  const tx = new BinaryWriter();
  tx.raw(protoEncoder(TransactionSchema)(build.tx ?? BASE[2]!));
  build.inTx?.(tx);
  const page = new BinaryWriter();
  page.tag(1, WireType.LengthDelimited).bytes(tx.finish());
  page.tag(1, WireType.LengthDelimited).bytes(protoEncoder(TransactionSchema)(BASE[0]!));
  build.inPage?.(page);
  page.tag(2, WireType.LengthDelimited).string('next');
  return page.finish();
}

test('unknown fields of every wire type, and fields out of order or given twice, still take the fast path', () => {
  const unknown = (w: BinaryWriter) => {
    w.tag(99, WireType.Varint).uint64(2n ** 63n);
    w.tag(100, WireType.Bit64).fixed64(7n);
    w.tag(101, WireType.LengthDelimited).bytes(new Uint8Array([0xff, 0xfe, 0x00]));
    w.tag(102, WireType.Bit32).fixed32(9);
  };
  assertFastSame(handMade({ inTx: unknown, inPage: unknown }), 'unknown fields');
  // The later value of a field given twice wins; a Timestamp given twice is merged.
  assertFastSame(
    handMade({
      inTx: (w) => {
        w.tag(1, WireType.LengthDelimited).string('TX-LATER');
        w.tag(3, WireType.Varint).int32(Product.CABLE);
        w.tag(7, WireType.Varint).int64(777n);
        w.tag(21, WireType.LengthDelimited).bytes(
          new BinaryWriter().tag(2, WireType.Varint).int32(250_000_000).finish(),
        );
        w.tag(24, WireType.Varint).uint64(2n ** 40n);
      },
    }),
    'repeated fields',
  );
  // Fields in descending order.
  const reversed = new BinaryWriter();
  reversed.tag(24, WireType.Varint).bool(true);
  reversed
    .tag(22, WireType.LengthDelimited)
    .bytes(new BinaryWriter().tag(2, WireType.Varint).int32(5).tag(1, WireType.Varint).int64(1_764_000_000n).finish());
  reversed.tag(16, WireType.Varint).int32(3);
  reversed.tag(3, WireType.Varint).int32(Product.BULK_SMS);
  reversed.tag(1, WireType.LengthDelimited).string('TX-REVERSED');
  const page = new BinaryWriter()
    .tag(2, WireType.LengthDelimited)
    .string('cursor-first')
    .tag(1, WireType.LengthDelimited)
    .bytes(reversed.finish())
    .finish();
  assertFastSame(page, 'fields out of order');
});

test('bytes off the plain case get the old answer, or fail where the old path fails', () => {
  const invalidUtf8 = new Uint8Array([0x61, 0xc3, 0x28, 0x62]);
  const cases: Record<string, Uint8Array> = {
    'invalid UTF-8 in a shown field': handMade({ inTx: (w) => w.tag(6, WireType.LengthDelimited).bytes(invalidUtf8) }),
    'invalid UTF-8 in account_id': handMade({ inTx: (w) => w.tag(2, WireType.LengthDelimited).bytes(invalidUtf8) }),
    'invalid UTF-8 in the cursor': handMade({ inPage: (w) => w.tag(2, WireType.LengthDelimited).bytes(invalidUtf8) }),
    'invalid UTF-8 in a plan label an airtime row does not show': handMade({
      inTx: (w) => w.tag(11, WireType.LengthDelimited).bytes(invalidUtf8),
      tx: BASE[0]!,
    }),
    'invalid UTF-8 in a package code a data row does not show': handMade({
      inTx: (w) => w.tag(12, WireType.LengthDelimited).bytes(invalidUtf8),
      tx: BASE[1]!,
    }),
    'invalid UTF-8 in customer_phone': handMade({
      inTx: (w) => w.tag(23, WireType.LengthDelimited).bytes(invalidUtf8),
    }),
    'invalid UTF-8 in a key-change token': handMade({
      inTx: (w) => w.tag(200, WireType.LengthDelimited).bytes(invalidUtf8),
      tx: BASE[2]!,
    }),
    'invalid UTF-8 in a bonus token an airtime row does not show': handMade({
      inTx: (w) => w.tag(201, WireType.LengthDelimited).bytes(invalidUtf8),
      tx: BASE[0]!,
    }),
    'a key-change token as a varint': handMade({ inTx: (w) => w.tag(200, WireType.Varint).int32(5) }),
    'a string field as a varint': handMade({ inTx: (w) => w.tag(6, WireType.Varint).int32(5) }),
    'a varint field as bytes': handMade({ inTx: (w) => w.tag(3, WireType.LengthDelimited).bytes(new Uint8Array([1])) }),
    'a timestamp as a varint': handMade({ inTx: (w) => w.tag(21, WireType.Varint).int32(1) }),
    'the transactions as a varint': handMade({ inPage: (w) => w.tag(1, WireType.Varint).int32(1) }),
    'a group': handMade({ inTx: (w) => w.tag(50, WireType.StartGroup).tag(50, WireType.EndGroup) }),
    'a face value past the safe range': handMade({ inTx: (w) => w.tag(7, WireType.Varint).int64(2n ** 60n) }),
    'a balance past the safe range (not shown)': handMade({ inTx: (w) => w.tag(9, WireType.Varint).int64(2n ** 60n) }),
    'a data plan id past the safe range': handMade({
      tx: BASE[1]!,
      inTx: (w) => w.tag(10, WireType.Varint).int64(2n ** 60n),
    }),
    'an airtime plan id past the safe range (not shown)': handMade({
      tx: BASE[0]!,
      inTx: (w) => w.tag(10, WireType.Varint).int64(2n ** 60n),
    }),
    'a time no Date can hold': handMade({
      inTx: (w) =>
        w.tag(21, WireType.LengthDelimited).bytes(
          new BinaryWriter()
            .tag(1, WireType.Varint)
            .int64(2n ** 50n)
            .finish(),
        ),
    }),
  };
  const whole = pageBytes(BASE, 'next');
  for (let cut = 1; cut < whole.length; cut += 7) cases[`cut after ${cut} bytes`] = whole.subarray(0, cut);
  cases['a length past the end'] = Uint8Array.from([0x0a, 0x7f, 0x0a, 0x01]);
  cases['a varint of eleven bytes'] = Uint8Array.from([0x18, ...new Array(10).fill(0xff), 0x01]);
  const outcomes = new Set<string>();
  for (const [what, bytes] of Object.entries(cases)) outcomes.add(`${what}: ${assertSameOrBothFail(bytes, what)}`);
  // The cases are worth their names: some take the old path to an answer, some to its error.
  // protobuf-es refuses invalid UTF-8 anywhere, shown or not, so the answer must fail too.
  for (const what of Object.keys(cases).filter((name) => name.startsWith('invalid UTF-8'))) {
    assert.ok(outcomes.has(`${what}: failed`), [...outcomes].join('\n'));
  }
  assert.ok(outcomes.has('a balance past the safe range (not shown): same'), [...outcomes].join('\n'));
  assert.ok(outcomes.has('a face value past the safe range: failed'), [...outcomes].join('\n'));
  assert.ok(outcomes.has('a data plan id past the safe range: failed'), [...outcomes].join('\n'));
  assert.ok(outcomes.has('an airtime plan id past the safe range (not shown): same'), [...outcomes].join('\n'));
  assert.ok(outcomes.has('a time no Date can hold: failed'), [...outcomes].join('\n'));
  // And the fast path stood aside for them rather than write something of its own.
  assert.throws(() => writeTransactionsPage(cases['invalid UTF-8 in account_id']!));
  assert.throws(() => writeTransactionsPage(cases['a varint field as bytes']!));
  assert.throws(() => writeTransactionsPage(cases['a group']!));
  assert.throws(() => writeTransactionsPage(cases['a key-change token as a varint']!));
});

test('the field table is the generated schema: it follows renumbering; an unplaced field stops the fast path', () => {
  const fields = schemaFields(TransactionSchema);
  assert.ok(FIELDS_MATCH, 'the writer agrees with gen/ as it is');
  const plan = fieldPlan(fields);
  assert.ok(plan !== null);
  // Every number the writer reads is the schema's own.
  for (const [name, number] of Object.entries(plan.numbers)) {
    assert.is(number, TransactionSchema.fields.find((field) => field.name === name)?.number, name);
  }
  // A field renumbered in types.proto is read at its new number.
  const renumbered = fields.map((field): SchemaField => (field.name === 'token' ? { ...field, number: 200 } : field));
  assert.is(fieldPlan(renumbered)?.numbers.token, 200);
  // What the writer cannot answer exactly: the fast path must stand aside for each.
  const drifts: [string, SchemaField[]][] = [
    ['a new text field it neither shows nor checks', [...fields, { name: 'kct_token', number: 201, type: 'string' }]],
    ['a new message field', [...fields, { name: 'issued_at', number: 202, type: 'timestamp' }]],
    ['a field of a type it does not read', [...fields, { name: 'rate', number: 203, type: 'other' }]],
    ['a shown field gone', fields.filter((field) => field.name !== 'units')],
    [
      'a shown field of another type',
      fields.map((field): SchemaField => (field.name === 'sms_pages' ? { ...field, type: 'int64' } : field)),
    ],
  ];
  for (const [what, drifted] of drifts) assert.is(fieldPlan(drifted), null, what);
  // A number it does not show is stepped over, as today's balance_after_kobo and needs_attention are.
  assert.ok(fieldPlan([...fields, { name: 'route_id', number: 204, type: 'int64' }]) !== null);
});

test.run();
