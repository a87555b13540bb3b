/**
 * POST ?action=verify: the customer behind a meter or a smart card, before a purchase,
 * through the core and the provider of the product family. The sandbox answers deterministic
 * customers (numbers ending 9999 are not found); VTpass answers through merchant-verify.
 * Nothing is ever charged.
 */
import * as assert from 'uvu/assert';
import { ledgerOf, startCore, type TestCore } from '../helpers/core.js';
import { startVtpassStack } from '../helpers/fake-vtpass.js';
import { type ApiKeys, startTestGateway, type TestGateway } from '../helpers/gateway.js';
import { suite } from '../helpers/suite.js';
import { assertError, assertShape } from './fields.js';

const test = suite('gateway verify');

let core: TestCore;
let gateway: TestGateway;
let keys: ApiKeys;
let accountId: string;

test.before(async () => {
  core = await startCore();
  gateway = await startTestGateway(core);
  const created = await core.createApiAccount({ balanceKobo: 10_000_00 });
  accountId = created.accountId;
  keys = { publicKey: created.publicKey, secretKey: created.secretKey };
});

test.after(async () => {
  await gateway?.close();
  await core?.close();
});

const VERIFY_FIELDS = {
  status: 'string',
  product: 'string',
  service: 'string',
  customer_number: 'string',
  meter_type: 'string|null',
  customer_name: 'string',
  address: 'string|null',
  minimum_amount: 'number|null',
  arrears: 'number|null',
  current_bouquet: 'string|null',
  due_date: 'string|null',
  renewal_amount: 'number|null',
} as const;

const verify = (body: unknown, k: ApiKeys = keys) => gateway.request({ query: { action: 'verify' }, keys: k, body });

test('a meter: the sandbox names its customer the same each time, with an address and the minimum vend', async () => {
  const body = { disco: 'ikedc', meter_number: '45031234567', meter_type: 'prepaid' };
  const first = await verify(body);
  assert.is(first.status, 200, first.text);
  assertShape(first.json, VERIFY_FIELDS);
  assert.is(first.json.status, 'success');
  assert.is(first.json.product, 'electricity');
  assert.is(first.json.service, 'ikedc');
  assert.is(first.json.customer_number, '45031234567');
  assert.is(first.json.meter_type, 'prepaid');
  assert.match(first.json.customer_name, /^[A-Z][a-z]+ [A-Z][a-z]+$/);
  assert.ok(first.json.address.length > 5);
  assert.is(first.json.minimum_amount, 1000);
  assert.is(first.json.current_bouquet, null);
  const again = await verify(body);
  assert.equal(again.json, first.json, 'deterministic');
  const other = await verify({ ...body, meter_number: '45031234568' });
  assert.is(other.status, 200);
});

test('a smart card: the sandbox tells the bouquet, a due date ahead and the renewal amount', async () => {
  const reply = await verify({ provider: 'gotv', smart_card: '7012345678' });
  assert.is(reply.status, 200, reply.text);
  assertShape(reply.json, VERIFY_FIELDS);
  assert.is(reply.json.product, 'cable');
  assert.is(reply.json.meter_type, null);
  assert.match(reply.json.current_bouquet, /^GOtv /);
  assert.match(reply.json.due_date, /^\d{4}-\d{2}-\d{2}$/);
  assert.ok(new Date(reply.json.due_date).getTime() > Date.now(), 'due in the future');
  assert.ok(reply.json.renewal_amount > 0);
  assert.is(reply.json.address, null);
});

test('a number ending 9999 is not found: 404, with a message that names it', async () => {
  const meter = await verify({ disco: 'aedc', meter_number: '45031239999', meter_type: 'postpaid' });
  assertError(meter, 404, 'NOT_FOUND');
  assert.match(meter.json.message, /45031239999/);
  const card = await verify({ provider: 'dstv', smart_card: '1234569999' });
  assertError(card, 404, 'NOT_FOUND');
});

test('the purchase rules apply: one group of fields, each valid, all problems listed at once', async () => {
  const neither = await verify({});
  assertError(neither, 422, 'INVALID_PARAMETER', { errors: 'array' });
  assert.match(neither.json.message, /meter_number/);
  const both = await verify({
    disco: 'ikedc',
    meter_number: '45031234567',
    meter_type: 'prepaid',
    provider: 'dstv',
    smart_card: '1234567890',
  });
  assertError(both, 422, 'INVALID_PARAMETER', { errors: 'array' });
  const bad = await verify({ disco: 'nepa', meter_number: '12', meter_type: 'smart' });
  assertError(bad, 422, 'INVALID_PARAMETER', { errors: 'array' });
  assert.equal(bad.json.errors.map((e: { field: string }) => e.field).sort(), ['disco', 'meter_number', 'meter_type']);
  const types = await verify({ provider: 'dstv', smart_card: 1234567890 });
  assertError(types, 422, 'INVALID_PARAMETER', { errors: 'array' });
  assert.equal(
    types.json.errors.map((e: { field: string }) => e.field),
    ['smart_card'],
  );
  const get = await gateway.request({ query: { action: 'verify' }, keys });
  assert.is(get.status, 405);
});

test('verifying charges nothing and writes no ledger entry or transaction', async () => {
  const before = await ledgerOf(core, accountId);
  const { account } = await core.admin.getAccount({ accountId });
  await verify({ disco: 'kedco', meter_number: '45031234567', meter_type: 'prepaid' });
  await verify({ provider: 'startimes', smart_card: '01234567890' });
  assert.equal(await ledgerOf(core, accountId), before);
  assert.is((await core.admin.getAccount({ accountId })).account!.balanceKobo, account!.balanceKobo);
  const history = await gateway.request({ query: { action: 'transactions' }, keys });
  assert.equal(history.json.transactions, []);
});

test('through VTpass: merchant-verify answers, a wrong number is 404, an unreachable VTpass is 500', async () => {
  const stack = await startVtpassStack({ routing: { airtime: 'sandbox', data: 'sandbox', bulksms: 'sandbox' } });
  try {
    const created = await stack.core.createApiAccount({ balanceKobo: 0 });
    const k = { publicKey: created.publicKey, secretKey: created.secretKey };
    const ask = (body: unknown) => stack.gateway.request({ query: { action: 'verify' }, keys: k, body });

    const meter = await ask({ disco: 'ikedc', meter_number: '1111111111111', meter_type: 'prepaid' });
    assert.is(meter.status, 200, meter.text);
    assertShape(meter.json, VERIFY_FIELDS);
    assert.is(meter.json.customer_name, 'TESTMETER1');
    assert.is(meter.json.address, 'ABULE - EGBA BU ABULE');
    assert.is(meter.json.minimum_amount, 500);
    const card = await ask({ provider: 'dstv', smart_card: '1212121212' });
    assert.is(card.status, 200, card.text);
    assert.is(card.json.current_bouquet, 'DStv Compact N15700');
    assert.is(card.json.renewal_amount, 15700);
    assert.is(card.json.due_date, '2026-02-06T00:00:00');
    const wrong = await ask({ disco: 'ikedc', meter_number: '1234567890123', meter_type: 'prepaid' });
    assertError(wrong, 404, 'NOT_FOUND');
    assert.match(wrong.json.message, /invalid/i, "VTpass's own reason is passed on");

    await stack.fake.close();
    const down = await ask({ provider: 'gotv', smart_card: '1212121212' });
    assertError(down, 500, 'INTERNAL', { error_id: 'string' });
  } finally {
    await stack.close().catch(() => undefined);
  }
});

test.run();
