/**
 * Every action's success answer over real HTTP: the exact field set and types of the public
 * contract (docs/specification.md, 4, and docs/api.md), and `charged`/`balance` agreeing with
 * the ledger the core wrote.
 */

import * as assert from 'uvu/assert';
import { assertLedgerInvariant, startCore, type TestCore } from '../helpers/core.js';
import { startTestGateway, type TestGateway } from '../helpers/gateway.js';
import { suite } from '../helpers/suite.js';
import {
  assertError,
  assertMatchesLedger,
  assertNaira,
  assertShape,
  balanceKobo,
  type FieldType,
  fundedAccount,
  toKobo,
} from './fields.js';

const test = suite('gateway actions');

let core: TestCore;
let gateway: TestGateway;

test.before(async () => {
  core = await startCore();
  gateway = await startTestGateway(core);
});

test.after(async () => {
  await gateway?.close();
  await core?.close();
});

const PURCHASE_FIELDS = { status: 'string', reference: 'string', charged: 'number', balance: 'number' } as const;

/** Each purchase action with a request that the sandbox delivers, and its extra fields. */
const PURCHASES: { action: string; body: Record<string, unknown>; extra: Record<string, FieldType> }[] = [
  { action: 'airtime', body: { network: 'mtn', phone: '08031234567', amount: 100 }, extra: {} },
  { action: 'data', body: { plan_id: 1, phone: '08031234567' }, extra: { plan: 'string' } },
  {
    action: 'electricity',
    body: { disco: 'ikedc', meter_number: '45031234567', meter_type: 'prepaid', amount: 1500, phone: '08031234567' },
    extra: { token: 'string', units: 'string', kct_tokens: 'array', bonus_tokens: 'array' },
  },
  {
    action: 'cable',
    body: { provider: 'dstv', smart_card: '7012345678', package_code: 'DSTV PADI' },
    extra: { package: 'string', subscription_type: 'string', months: 'integer' },
  },
  {
    action: 'bulksms',
    body: {
      sender: 'MyShop',
      recipients: ['08031234567', '08051234567', '08031234567'],
      message: 'Your order has shipped.',
    },
    extra: { sent: 'integer', pages: 'integer' },
  },
];

for (const { action, body, extra } of PURCHASES) {
  test(`POST ${action} answers 200 with exactly status, reference, charged, balance${Object.keys(extra)
    .map((f) => `, ${f}`)
    .join('')}, matching the ledger`, async () => {
    const { accountId, keys } = await fundedAccount(core);
    const reply = await gateway.request({ query: { action }, keys, body });

    assert.is(reply.status, 200, reply.text);
    assertShape(reply.json, { ...PURCHASE_FIELDS, ...extra });
    assert.is(reply.json.status, 'success');
    assert.ok(reply.json.charged > 0);
    assertNaira(reply.json.charged, 'charged');
    assertNaira(reply.json.balance, 'balance');
    await assertMatchesLedger(core, accountId, reply.json);
    assert.is(await balanceKobo(core, accountId), toKobo(reply.json.balance), 'balance is the wallet after the debit');
    await assertLedgerInvariant(core, accountId);
  });
}

test('electricity answers a 4-4-4-4-4 token and units with a kWh suffix', async () => {
  const { keys } = await fundedAccount(core);
  const reply = await gateway.request({ query: { action: 'electricity' }, keys, body: PURCHASES[2]!.body });
  assert.is(reply.status, 200, reply.text);
  assert.match(reply.json.token, /^\d{4}-\d{4}-\d{4}-\d{4}-\d{4}$/);
  assert.match(reply.json.units, /kWh$/);
});

test('bulksms counts unique recipients and 161 characters as two pages', async () => {
  const { keys } = await fundedAccount(core);
  const reply = await gateway.request({
    query: { action: 'bulksms' },
    keys,
    body: { sender: 'MyShop', recipients: ['08031234567', '08051234567', '08031234567'], message: 'x'.repeat(161) },
  });
  assert.is(reply.status, 200, reply.text);
  assert.is(reply.json.sent, 2);
  assert.is(reply.json.pages, 2);
});

test('data answers the plan label and charges the price that plans shows this account', async () => {
  const { accountId, keys } = await fundedAccount(core);
  const plans = await gateway.request({ query: { action: 'plans', network: 'glo' }, keys });
  const plan = plans.json.plans[0];
  const reply = await gateway.request({
    query: { action: 'data' },
    keys,
    body: { plan_id: String(plan.plan_id), phone: '08051234567' },
  });
  assert.is(reply.status, 200, reply.text);
  assert.is(reply.json.charged, plan.price, 'charged is the listed price');
  assert.ok(reply.json.plan.includes(plan.plan), `"${reply.json.plan}" names the plan "${plan.plan}"`);
  await assertMatchesLedger(core, accountId, reply.json);
});

test('cable answers the package name', async () => {
  const { keys } = await fundedAccount(core);
  const reply = await gateway.request({
    query: { action: 'cable' },
    keys,
    body: { provider: 'gotv', smart_card: '7012345678', package_code: 'GOTV MAX', phone: '08031234567' },
  });
  assert.is(reply.status, 200, reply.text);
  assert.match(reply.json.package, /max/i);
});

test('amounts are accepted as numeric strings and with two decimals, and charged keeps the kobo', async () => {
  const { accountId, keys } = await fundedAccount(core);
  const reply = await gateway.request({
    query: { action: 'electricity' },
    keys,
    body: { disco: 'aedc', meter_number: '45031234567', meter_type: 'postpaid', amount: '1000.50' },
  });
  assert.is(reply.status, 200, reply.text);
  const entries = await gateway.core.admin.listLedgerEntries({ accountId, pageSize: 1, pageToken: '' });
  assert.is(entries.entries[0]!.amountKobo, -toKobo(reply.json.charged));
  assertNaira(reply.json.charged, 'charged');
});

test('a postpaid electricity payment answers token and units as null', async () => {
  const { keys } = await fundedAccount(core);
  const reply = await gateway.request({
    query: { action: 'electricity' },
    keys,
    body: { disco: 'ekedc', meter_number: '45031234567', meter_type: 'postpaid', amount: 2000 },
  });
  assert.is(reply.status, 200, reply.text);
  assertShape(reply.json, {
    ...PURCHASE_FIELDS,
    token: 'string|null',
    units: 'string|null',
    kct_tokens: 'array',
    bonus_tokens: 'array',
  });
  assert.equal([reply.json.token, reply.json.kct_tokens, reply.json.bonus_tokens], [null, [], []]);
});

test('GET balance answers exactly status, balance, tier and mode, equal to the wallet', async () => {
  const { accountId, keys } = await fundedAccount(core, 1_234_567);
  const reply = await gateway.request({ query: { action: 'balance' }, keys });
  assert.is(reply.status, 200, reply.text);
  assertShape(reply.json, { status: 'string', balance: 'number', tier: 'string', mode: 'string' });
  assert.equal(reply.json, { status: 'success', balance: 12345.67, tier: reply.json.tier, mode: 'live' });
  assert.is(toKobo(reply.json.balance), await balanceKobo(core, accountId));
  assert.ok(reply.json.tier.length > 0);
});

test('GET plans: {status, plans}: plan_id, network, plan, validity, price, type, size, days; by network', async () => {
  const { keys } = await fundedAccount(core);
  const all = await gateway.request({ query: { action: 'plans' }, keys });
  assert.is(all.status, 200, all.text);
  assertShape(all.json, { status: 'string', plans: 'array' });
  assert.ok(all.json.plans.length > 0);
  for (const plan of all.json.plans) {
    assertShape(
      plan,
      {
        plan_id: 'integer',
        network: 'string',
        network_names: 'array',
        plan: 'string',
        validity: 'string',
        price: 'number',
        type: 'string',
        size_mb: 'integer',
        validity_days: 'integer',
      },
      'plan',
    );
    assertNaira(plan.price, 'price');
  }
  const networks = new Set(all.json.plans.map((p: { network: string }) => p.network));
  assert.ok(networks.size > 1, 'the catalog spans networks');

  const mtn = await gateway.request({ query: { action: 'plans', network: 'mtn' }, keys });
  assert.is(mtn.status, 200);
  assert.ok(mtn.json.plans.length > 0);
  assert.ok(mtn.json.plans.every((p: { network: string }) => p.network === 'mtn'));
  assert.ok(mtn.json.plans.length < all.json.plans.length);
});

test('GET plans with an unknown network is 422 naming network', async () => {
  const { keys } = await fundedAccount(core);
  const reply = await gateway.request({ query: { action: 'plans', network: 'etisalat' }, keys });
  assertError(reply, 422, 'INVALID_PARAMETER', { errors: 'array' });
  assert.is(reply.json.errors[0].field, 'network');
});

const TRANSACTION_FIELDS: Record<string, FieldType> = {
  reference: 'string',
  product: 'string',
  status: 'string',
  service: 'string',
  recipient: 'string|null',
  amount: 'number',
  charged: 'number',
  plan_id: 'integer|null',
  plan: 'string|null',
  package: 'string|null',
  package_code: 'string|null',
  meter_type: 'string|null',
  token: 'string|null',
  units: 'string|null',
  kct_tokens: 'array|null',
  bonus_tokens: 'array|null',
  sent: 'integer|null',
  pages: 'integer|null',
  failure_reason: 'string|null',
  request_id: 'string|null',
  created_at: 'string',
  updated_at: 'string',
  livemode: 'boolean',
};

test('GET transaction shows one purchase of the caller with the full transaction view', async () => {
  const { keys } = await fundedAccount(core);
  const bought = await gateway.request({ query: { action: 'data' }, keys, body: { plan_id: 1, phone: '08031234567' } });
  const reply = await gateway.request({ query: { action: 'transaction', reference: bought.json.reference }, keys });
  assert.is(reply.status, 200, reply.text);
  assertShape(reply.json, { status: 'string', transaction: 'object' });
  assertShape(reply.json.transaction, TRANSACTION_FIELDS, 'transaction');
  const tx = reply.json.transaction;
  assert.is(tx.reference, bought.json.reference);
  assert.is(tx.product, 'data');
  assert.is(tx.status, 'success');
  assert.is(tx.service, 'mtn');
  assert.is(tx.recipient, '08031234567');
  assert.is(tx.charged, bought.json.charged);
  assert.is(tx.plan_id, 1);
  assert.is(tx.plan, bought.json.plan);
  assert.is(tx.package, null);
  assert.is(tx.sent, null);
  assert.ok(!Number.isNaN(Date.parse(tx.created_at)));
});

test("GET transaction of another account's reference is 404, like an unknown one", async () => {
  const owner = await fundedAccount(core);
  const other = await fundedAccount(core);
  const bought = await gateway.request({
    query: { action: 'airtime' },
    keys: owner.keys,
    body: { network: 'glo', phone: '08051234567', amount: 50 },
  });
  assert.is(bought.status, 200);
  const foreign = await gateway.request({
    query: { action: 'transaction', reference: bought.json.reference },
    keys: other.keys,
  });
  assertError(foreign, 404, 'NOT_FOUND');
  const unknown = await gateway.request({ query: { action: 'transaction', reference: 'NOPE123' }, keys: other.keys });
  assertError(unknown, 404, 'NOT_FOUND');
});

test('GET transaction without reference is 422', async () => {
  const { keys } = await fundedAccount(core);
  const reply = await gateway.request({ query: { action: 'transaction' }, keys });
  assertError(reply, 422, 'INVALID_PARAMETER', { errors: 'array' });
  assert.equal(reply.json.errors, [{ field: 'reference', message: 'reference is required.' }]);
});

test('GET transactions pages newest first with limit and next_cursor until null', async () => {
  const { keys } = await fundedAccount(core);
  const references: string[] = [];
  for (const amount of [50, 60, 70]) {
    const reply = await gateway.request({
      query: { action: 'airtime' },
      keys,
      body: { network: 'airtel', phone: '08021234567', amount },
    });
    references.push(reply.json.reference);
  }

  const first = await gateway.request({ query: { action: 'transactions', limit: '2' }, keys });
  assert.is(first.status, 200, first.text);
  assertShape(first.json, { status: 'string', transactions: 'array', next_cursor: 'string' });
  assert.equal(
    first.json.transactions.map((t: { reference: string }) => t.reference),
    [references[2], references[1]],
  );
  for (const tx of first.json.transactions) assertShape(tx, TRANSACTION_FIELDS, 'transaction');

  const second = await gateway.request({
    query: { action: 'transactions', limit: '2', cursor: first.json.next_cursor },
    keys,
  });
  assert.is(second.status, 200, second.text);
  assertShape(second.json, { status: 'string', transactions: 'array', next_cursor: 'null' });
  assert.equal(
    second.json.transactions.map((t: { reference: string }) => t.reference),
    [references[0]],
  );

  const all = await gateway.request({ query: { action: 'transactions' }, keys });
  assert.is(all.json.transactions.length, 3, 'the default page holds all three');
});

test('GET transactions refuses a limit outside 1..100 and a cursor it did not issue', async () => {
  const { keys } = await fundedAccount(core);
  for (const limit of ['0', '101', 'ten', '-1']) {
    const reply = await gateway.request({ query: { action: 'transactions', limit }, keys });
    assertError(reply, 422, 'INVALID_PARAMETER', { errors: 'array' });
    assert.is(reply.json.errors[0].field, 'limit', `limit=${limit}`);
  }
  const badCursor = await gateway.request({ query: { action: 'transactions', cursor: 'not-a-cursor' }, keys });
  assertError(badCursor, 422, 'INVALID_PARAMETER', { errors: 'array' });
  assert.is(badCursor.json.errors[0].field, 'cursor');
});

test('a request_id replay answers the first purchase again, debits once, and says it was replayed', async () => {
  const { accountId, keys } = await fundedAccount(core);
  const body = { network: 'mtn', phone: '08031234567', amount: 200, request_id: 'order-1001' };
  const first = await gateway.request({ query: { action: 'airtime' }, keys, body });
  const again = await gateway.request({ query: { action: 'airtime' }, keys, body });
  assert.is(first.status, 200, first.text);
  assert.is(again.status, 200, again.text);
  assert.is(first.headers['idempotent-replayed'], undefined);
  assert.is(again.headers['idempotent-replayed'], 'true');
  assert.is(again.json.reference, first.json.reference);
  assert.is(again.json.charged, first.json.charged);
  const debits = (await core.admin.listLedgerEntries({ accountId, pageSize: 100, pageToken: '' })).entries.filter(
    (e) => e.kind === 'debit',
  );
  assert.is(debits.length, 1, 'one debit for two requests');

  const viaHeader = await gateway.request({
    query: { action: 'airtime' },
    keys,
    headers: { 'Idempotency-Key': 'order-1001' },
    body: { network: 'mtn', phone: '08031234567', amount: 200 },
  });
  assert.is(viaHeader.status, 200, viaHeader.text);
  assert.is(viaHeader.json.reference, first.json.reference, 'the header names the same key');
});

test('the same request_id with a different body is 422 IDEMPOTENCY_KEY_REUSED naming the first reference', async () => {
  const { keys } = await fundedAccount(core);
  const first = await gateway.request({
    query: { action: 'airtime' },
    keys,
    body: { network: 'mtn', phone: '08031234567', amount: 200, request_id: 'k-1' },
  });
  const reused = await gateway.request({
    query: { action: 'airtime' },
    keys,
    body: { network: 'mtn', phone: '08031234567', amount: 300, request_id: 'k-1' },
  });
  assertError(reused, 422, 'IDEMPOTENCY_KEY_REUSED', { reference: 'string' });
  assert.is(reused.json.reference, first.json.reference);
});

test('request_id and Idempotency-Key that differ are 422 before anything is bought', async () => {
  const { accountId, keys } = await fundedAccount(core);
  const before = await balanceKobo(core, accountId);
  const reply = await gateway.request({
    query: { action: 'airtime' },
    keys,
    headers: { 'Idempotency-Key': 'key-a' },
    body: { network: 'mtn', phone: '08031234567', amount: 200, request_id: 'key-b' },
  });
  assertError(reply, 422, 'INVALID_PARAMETER', { errors: 'array' });
  assert.is(reply.json.errors[0].field, 'request_id');
  assert.is(await balanceKobo(core, accountId), before);
});

test.run();
