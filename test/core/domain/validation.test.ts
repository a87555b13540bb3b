/**
 * Every field rule of docs/specification.md, 4 and 8, each with a value that fails and a value that
 * passes, through the pure order builders the purchase service uses. A failing value must be
 * reported against the public field name; a passing value must produce an order.
 */

import * as assert from 'uvu/assert';
import { defaultCatalog } from '../../../core/catalog/defaults.js';
import { DomainError, type FieldViolation } from '../../../core/domain/errors.js';
import { type Kobo, kobo, parseNaira } from '../../../core/domain/money.js';
import {
  type AirtimeInput,
  airtimeOrder,
  type BulkSmsInput,
  bulkSmsOrder,
  type CableInput,
  cableOrder,
  type DataInput,
  dataOrder,
  type ElectricityInput,
  electricityOrder,
} from '../../../core/domain/orders.js';
import type { PurchaseOrder } from '../../../core/domain/products.js';
import { smsLength } from '../../../core/domain/validation.js';
import { suite } from '../../helpers/suite.js';

/** A tier with no discounts, so that charged equals face value and only the rules are tested. */
const PLAIN_TIER = { tierId: 'basic', discounts: [] };
const CATALOG = defaultCatalog();
const SMS_RATE_KOBO = kobo(350);

function naira(text: string): Kobo {
  const parsed = parseNaira(text);
  if (!parsed.ok) throw new Error(`test amount ${text} does not parse: ${parsed.reason}`);
  return parsed.kobo;
}

/** The violations a builder reports, or [] when it builds an order. */
function violationsOf(build: () => PurchaseOrder): FieldViolation[] {
  try {
    build();
    return [];
  } catch (error) {
    if (!(error instanceof DomainError)) throw error;
    assert.is(error.code, 'INVALID_PARAMETER');
    return [...error.violations];
  }
}

interface RuleCase<I> {
  rule: string;
  /** Public field name the violation must carry. */
  field: string;
  patch: Partial<I>;
  passes: boolean;
}

function ruleSuite<I>(name: string, valid: I, build: (input: I) => PurchaseOrder, cases: readonly RuleCase<I>[]) {
  const test = suite(name);
  test('the valid request builds an order', () => {
    assert.equal(
      violationsOf(() => build(valid)),
      [],
    );
  });
  for (const c of cases) {
    const shown = JSON.stringify(Object.values(c.patch)[0]);
    test(`${c.rule}: ${c.field} = ${shown} ${c.passes ? 'passes' : 'is refused'}`, () => {
      const violations = violationsOf(() => build({ ...valid, ...c.patch }));
      if (c.passes) {
        assert.equal(violations, []);
      } else {
        assert.is(violations.length, 1, JSON.stringify(violations));
        assert.is(violations[0]!.field, c.field);
        assert.ok(violations[0]!.description.length > 10, 'the description explains the rule');
        assert.ok(violations[0]!.description.includes(c.field), 'the description names the field');
      }
    });
  }
  test.run();
}

/** Phone rules shared by every product that takes a phone. */
function phoneCases<I extends { phone: string }>(rule: string, required: boolean): RuleCase<I>[] {
  const phone = (value: string, passes: boolean): RuleCase<I> => ({
    rule,
    field: 'phone',
    patch: { phone: value } as Partial<I>,
    passes,
  });
  return [
    phone('08031234567', true),
    phone('09012345678', true),
    phone('8031234567', false),
    phone('080312345678', false),
    phone('18031234567', false),
    phone('+2348031234567', false),
    phone('0803123456a', false),
    phone('0803 123 456', false),
    phone('', !required),
  ];
}

ruleSuite<AirtimeInput>(
  'airtime rules (the contract, 4.3 and 8)',
  { network: 'mtn', phone: '08031234567', amountKobo: naira('100') },
  (input) => airtimeOrder(input, PLAIN_TIER),
  [
    ...['mtn', 'glo', 'airtel', '9mobile'].map((network) => ({
      rule: 'one of the four networks',
      field: 'network',
      patch: { network },
      passes: true,
    })),
    { rule: 'one of the four networks', field: 'network', patch: { network: 'etisalat' }, passes: false },
    { rule: 'one of the four networks', field: 'network', patch: { network: 'ntel' }, passes: false },
    { rule: 'network is required', field: 'network', patch: { network: '' }, passes: false },
    ...phoneCases<AirtimeInput>('11 digits starting with 0', true),
    { rule: 'minimum 50 Naira', field: 'amount', patch: { amountKobo: naira('49.99') }, passes: false },
    { rule: 'minimum 50 Naira', field: 'amount', patch: { amountKobo: naira('50') }, passes: true },
    { rule: 'amount is required', field: 'amount', patch: { amountKobo: kobo(0) }, passes: false },
    { rule: 'amount is positive', field: 'amount', patch: { amountKobo: kobo(-100_00) }, passes: false },
    { rule: 'at most 50,000 Naira', field: 'amount', patch: { amountKobo: naira('50000') }, passes: true },
    { rule: 'at most 50,000 Naira', field: 'amount', patch: { amountKobo: naira('50000.01') }, passes: false },
  ],
);

const PLAN_1 = CATALOG.plans.find((p) => p.planId === 1)!;

ruleSuite<DataInput>(
  'data rules (the contract, 4.4)',
  { planId: 1, phone: '08031234567' },
  (input) => dataOrder(input, CATALOG.plans.find((p) => p.planId === input.planId) ?? null, PLAIN_TIER),
  [
    { rule: 'a plan of the catalog', field: 'plan_id', patch: { planId: 101 }, passes: true },
    { rule: 'a plan of the catalog', field: 'plan_id', patch: { planId: 999_999 }, passes: false },
    { rule: 'plan_id is required', field: 'plan_id', patch: { planId: 0 }, passes: false },
    { rule: 'plan_id is positive', field: 'plan_id', patch: { planId: -1 }, passes: false },
    { rule: 'plan_id is an integer', field: 'plan_id', patch: { planId: 1.5 }, passes: false },
    ...phoneCases<DataInput>('11 digits starting with 0', true),
  ],
);

const dataPlans = suite('data plans: only active plans are sold');
dataPlans('an inactive plan is refused against plan_id', () => {
  const violations = violationsOf(() =>
    dataOrder({ planId: 1, phone: '08031234567' }, { ...PLAN_1, active: false }, PLAIN_TIER),
  );
  assert.equal(
    violations.map((v) => v.field),
    ['plan_id'],
  );
});
dataPlans('the order carries the plan label and validity, and the network of the plan', () => {
  const order = dataOrder({ planId: 1, phone: '08031234567' }, PLAN_1, PLAIN_TIER);
  assert.is(order.service, 'mtn');
  assert.is(order.details.planLabel, '500MB (7 days)');
  assert.is(order.faceValueKobo, 500_00);
});
dataPlans.run();

ruleSuite<ElectricityInput>(
  'electricity rules (the contract, 4.6 and 8)',
  { disco: 'ikedc', meterNumber: '45012345678', meterType: 'prepaid', amountKobo: naira('1000'), phone: '' },
  (input) => electricityOrder(input, PLAIN_TIER),
  [
    ...['ekedc', 'ikedc', 'aedc', 'phed', 'eedc', 'kedco', 'ibedc', 'bedc', 'yedc'].map((disco) => ({
      rule: 'one of the nine discos',
      field: 'disco',
      patch: { disco },
      passes: true,
    })),
    { rule: 'one of the nine discos', field: 'disco', patch: { disco: 'phcn' }, passes: false },
    { rule: 'one of the nine discos', field: 'disco', patch: { disco: 'jedc' }, passes: false },
    { rule: 'disco is required', field: 'disco', patch: { disco: '' }, passes: false },
    { rule: 'prepaid or postpaid', field: 'meter_type', patch: { meterType: 'postpaid' }, passes: true },
    { rule: 'prepaid or postpaid', field: 'meter_type', patch: { meterType: 'smart' }, passes: false },
    { rule: 'meter_type is required', field: 'meter_type', patch: { meterType: '' }, passes: false },
    { rule: 'meter number is digits', field: 'meter_number', patch: { meterNumber: '0123456789012' }, passes: true },
    { rule: 'meter number is digits', field: 'meter_number', patch: { meterNumber: 'METER-1234' }, passes: false },
    { rule: 'meter_number is required', field: 'meter_number', patch: { meterNumber: '' }, passes: false },
    { rule: 'minimum 1,000 Naira', field: 'amount', patch: { amountKobo: naira('999.99') }, passes: false },
    { rule: 'minimum 1,000 Naira', field: 'amount', patch: { amountKobo: naira('1000') }, passes: true },
    { rule: 'amount is required', field: 'amount', patch: { amountKobo: kobo(0) }, passes: false },
    ...phoneCases<ElectricityInput>('optional receipt phone, 11 digits when given', false),
  ],
);

ruleSuite<CableInput>(
  'cable rules (the contract, 4.7)',
  { provider: 'dstv', smartCard: '7041234567', packageCode: 'DSTV PADI', phone: '' },
  (input) =>
    cableOrder(
      input,
      CATALOG.cablePackages.filter((p) => p.provider === input.provider),
      PLAIN_TIER,
    ),
  [
    { rule: 'one of the three providers', field: 'provider', patch: { provider: 'showmax' }, passes: false },
    { rule: 'provider is required', field: 'provider', patch: { provider: '' }, passes: false },
    { rule: 'a package of the provider', field: 'package_code', patch: { packageCode: 'DSTV GOLD' }, passes: false },
    { rule: 'a package of the provider', field: 'package_code', patch: { packageCode: 'GOTV MAX' }, passes: false },
    {
      rule: 'package codes match without regard to case',
      field: 'package_code',
      patch: { packageCode: 'dstv padi' },
      passes: true,
    },
    { rule: 'package_code is required', field: 'package_code', patch: { packageCode: '' }, passes: false },
    { rule: 'smart card is digits', field: 'smart_card', patch: { smartCard: '1234567890' }, passes: true },
    { rule: 'smart card is digits', field: 'smart_card', patch: { smartCard: 'IUC-12345' }, passes: false },
    { rule: 'smart_card is required', field: 'smart_card', patch: { smartCard: '' }, passes: false },
    ...phoneCases<CableInput>('optional customer phone, 11 digits when given', false),
  ],
);

/** The contract, 4.7 (docs/specification.md), copied: provider, package code, monthly Naira. */
const SPEC_CABLE_PRICES: ReadonlyArray<readonly [string, string, number]> = [
  ['dstv', 'DSTV PADI', 2500],
  ['dstv', 'DSTV YANGA', 3500],
  ['dstv', 'DSTV CONFAM', 9000],
  ['dstv', 'DSTV COMPACT', 15700],
  ['dstv', 'DSTV PREMIUM', 29500],
  ['gotv', 'GOTV SMALLIE', 1575],
  ['gotv', 'GOTV JINJA', 2715],
  ['gotv', 'GOTV JOLLI', 4085],
  ['gotv', 'GOTV MAX', 5500],
  ['startimes', 'nova', 1200],
  ['startimes', 'basic', 2200],
  ['startimes', 'smart', 3000],
  ['startimes', 'classic', 5200],
];

const cablePrices = suite('cable packages of the contract, 4.7, in the default catalog');
for (const [provider, packageCode, monthlyNaira] of SPEC_CABLE_PRICES) {
  cablePrices(`${provider} "${packageCode}" is sold at ${monthlyNaira} Naira`, () => {
    const order = cableOrder(
      { provider, smartCard: '7041234567', packageCode, phone: '' },
      CATALOG.cablePackages,
      PLAIN_TIER,
    );
    assert.is(order.service, provider);
    assert.is(order.details.packageCode, packageCode);
    assert.is(order.faceValueKobo, monthlyNaira * 100);
    assert.is(order.chargedKobo, monthlyNaira * 100);
  });
}
cablePrices('the default catalog has exactly the spec packages, all active', () => {
  const seeded = CATALOG.cablePackages.map((p) => [p.provider, p.packageCode, p.priceKobo / 100, p.active]).sort();
  const spec = SPEC_CABLE_PRICES.map(([provider, code, price]) => [provider, code, price, true]).sort();
  assert.equal(seeded, spec);
});
cablePrices.run();

const longText = (length: number) => 'a'.repeat(length);

ruleSuite<BulkSmsInput>(
  'bulk SMS rules (the contract, 4.8 and 8)',
  { sender: 'ShopRite', recipients: ['08031234567'], message: 'Hello' },
  (input) => bulkSmsOrder(input, SMS_RATE_KOBO, PLAIN_TIER),
  [
    { rule: 'sender is at most 11 characters', field: 'sender', patch: { sender: 'ABCDEFGHIJK' }, passes: true },
    { rule: 'sender is at most 11 characters', field: 'sender', patch: { sender: 'ABCDEFGHIJKL' }, passes: false },
    { rule: 'sender is letters and digits', field: 'sender', patch: { sender: 'Shop24' }, passes: true },
    { rule: 'sender is letters and digits', field: 'sender', patch: { sender: 'Shop Rite' }, passes: false },
    { rule: 'sender is letters and digits', field: 'sender', patch: { sender: 'Shop-Rite' }, passes: false },
    { rule: 'sender is required', field: 'sender', patch: { sender: '' }, passes: false },
    { rule: 'message is required', field: 'message', patch: { message: '' }, passes: false },
    { rule: 'message is at most 1,600 characters', field: 'message', patch: { message: longText(1600) }, passes: true },
    {
      rule: 'message is at most 1,600 characters',
      field: 'message',
      patch: { message: longText(1601) },
      passes: false,
    },
    { rule: 'message has no control characters', field: 'message', patch: { message: 'Hi\u0007there' }, passes: false },
    { rule: 'message may have line breaks', field: 'message', patch: { message: 'Hi\nthere' }, passes: true },
    { rule: 'recipients are required', field: 'recipients', patch: { recipients: [] }, passes: false },
    {
      rule: 'every recipient is 11 digits',
      field: 'recipients[1]',
      patch: { recipients: ['08031234567', '0803123456'] },
      passes: false,
    },
    {
      rule: 'every recipient starts with 0',
      field: 'recipients[0]',
      patch: { recipients: ['28031234567'] },
      passes: false,
    },
    {
      rule: 'at most 10,000 recipients',
      field: 'recipients',
      patch: { recipients: Array(10_000).fill('08031234567') },
      passes: true,
    },
    {
      rule: 'at most 10,000 recipients',
      field: 'recipients',
      patch: { recipients: Array(10_001).fill('08031234567') },
      passes: false,
    },
  ],
);

const together = suite('all violations of a request are reported together');

together('an airtime request with three bad fields names all three', () => {
  try {
    airtimeOrder({ network: 'etisalat', phone: '0803', amountKobo: naira('10') }, PLAIN_TIER);
    assert.unreachable('the order was built');
  } catch (error) {
    if (!(error instanceof DomainError)) throw error;
    assert.is(error.code, 'INVALID_PARAMETER');
    assert.equal(
      error.violations.map((v) => v.field),
      ['network', 'phone', 'amount'],
    );
    assert.match(error.message, /3 parameters are invalid: network, phone, amount/);
  }
});

together('an electricity request with every field wrong names all five', () => {
  const violations = violationsOf(() =>
    electricityOrder(
      { disco: 'x', meterNumber: 'y', meterType: 'z', amountKobo: naira('999'), phone: '1' },
      PLAIN_TIER,
    ),
  );
  assert.equal(
    violations.map((v) => v.field),
    ['disco', 'meter_number', 'meter_type', 'amount', 'phone'],
  );
});

together('a bulk SMS request names the sender, the message and each bad recipient by index', () => {
  const violations = violationsOf(() =>
    bulkSmsOrder(
      { sender: 'Too long sender', recipients: ['08031234567', 'x', '0803123456', '08021234567'], message: '' },
      SMS_RATE_KOBO,
      PLAIN_TIER,
    ),
  );
  assert.equal(
    violations.map((v) => v.field),
    ['sender', 'message', 'recipients[1]', 'recipients[2]'],
  );
});

together('a list of thousands of bad recipients reports a bounded number of them', () => {
  const violations = violationsOf(() =>
    bulkSmsOrder({ sender: 'Shop', recipients: Array(5_000).fill('bad'), message: 'Hi' }, SMS_RATE_KOBO, PLAIN_TIER),
  );
  assert.ok(violations.length > 0 && violations.length <= 10, `${violations.length} violations`);
  assert.is(violations[0]!.field, 'recipients[0]');
});

together('a single violation is its own message', () => {
  try {
    airtimeOrder({ network: 'mtn', phone: '08031234567', amountKobo: naira('49.99') }, PLAIN_TIER);
    assert.unreachable('the order was built');
  } catch (error) {
    if (!(error instanceof DomainError)) throw error;
    assert.is(error.message, error.violations[0]!.description);
    assert.match(error.message, /at least 50\.00 Naira/);
  }
});

together.run();

const pages = suite('SMS pages: 160 GSM-7 characters a page (the contract, 4.8), 70 UTF-16 units for anything else');

const PAGE_CASES: ReadonlyArray<readonly [string, string, number]> = [
  ['1 character', 'a', 1],
  ['160 characters', longText(160), 1],
  ['161 characters', longText(161), 2],
  ['320 characters', longText(320), 2],
  ['321 characters', longText(321), 3],
  ['1,600 characters', longText(1600), 10],
  ['160 emoji (320 UTF-16 units, UCS-2)', '😀'.repeat(160), 5],
  ['161 emoji', '😀'.repeat(161), 5],
  ['159 letters and one emoji (161 UTF-16 units)', `${longText(159)}😀`, 3],
  ['70 characters with a Naira sign', `₦${longText(69)}`, 1],
  ['71 characters with a Naira sign', `₦${longText(70)}`, 2],
  ['80 GSM extended characters (two units each)', '{}[]~\\|^€'.repeat(10).slice(0, 80), 1],
  ['81 GSM extended characters', '{'.repeat(81), 2],
  ['GSM-7 accents and Greek stay GSM-7', 'é'.repeat(100) + 'Ω'.repeat(60), 1],
];

for (const [what, message, expected] of PAGE_CASES) {
  pages(`${what} make ${expected} page${expected === 1 ? '' : 's'}`, () => {
    const order = bulkSmsOrder({ sender: 'Shop', recipients: ['08031234567'], message }, SMS_RATE_KOBO, PLAIN_TIER);
    assert.is(order.details.pages, expected);
    assert.is(order.faceValueKobo, SMS_RATE_KOBO * expected);
  });
}

pages('an emoji counts as one character', () => {
  assert.is(smsLength('😀'), 1);
  assert.is(smsLength('Hi 😀!'), 5);
});

pages('a lone surrogate (half an emoji) is refused, naming the field', () => {
  assert.equal(
    violationsOf(() =>
      bulkSmsOrder(
        { sender: 'Shop', recipients: ['08031234567'], message: 'Hi \uD83D there' },
        SMS_RATE_KOBO,
        PLAIN_TIER,
      ),
    ).map((v) => v.field),
    ['message'],
  );
});

pages('an empty message is refused rather than charged as a page', () => {
  assert.equal(
    violationsOf(() =>
      bulkSmsOrder({ sender: 'Shop', recipients: ['08031234567'], message: '' }, SMS_RATE_KOBO, PLAIN_TIER),
    ).map((v) => v.field),
    ['message'],
  );
});

pages.run();
