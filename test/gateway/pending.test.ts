/**
 * Purchases whose outcome is not known at once: 202 with the reference, the charge held,
 * and a requery that shows the final state once the recovery worker has settled it
 * (delivered, or failed and refunded in full). Also the 409 for a request_id whose first
 * request is still in flight.
 */

import * as assert from 'uvu/assert';
import { assertLedgerInvariant, startCore, type TestCore } from '../helpers/core.js';
import { type ApiKeys, startTestGateway, type TestGateway } from '../helpers/gateway.js';
import { suite } from '../helpers/suite.js';
import { assertError, assertMatchesLedger, assertShape, balanceKobo } from './fields.js';

const test = suite('gateway pending purchases');

let core: TestCore;
let gateway: TestGateway;

test.before(async () => {
  // A provider that takes 300 ms, so that a second request can arrive during the first.
  core = await startCore({ providerDelayMs: 300, providerTimeoutMs: 1_000 });
  gateway = await startTestGateway(core);
});

test.after(async () => {
  await gateway?.close();
  await core?.close();
});

async function fundedAccount(): Promise<{ accountId: string; keys: ApiKeys }> {
  const { accountId, publicKey, secretKey } = await core.createApiAccount({ balanceKobo: 5_000_000 });
  return { accountId, keys: { publicKey, secretKey } };
}

const PENDING_FIELDS = {
  status: 'string',
  reference: 'string',
  charged: 'number',
  balance: 'number',
  message: 'string',
} as const;

test('a purchase the provider does not answer is 202 pending, and settles to success on requery', async () => {
  const { accountId, keys } = await fundedAccount();
  const reply = await gateway.request({
    query: { action: 'airtime' },
    keys,
    body: { network: 'mtn', phone: '08031238888', amount: 500 },
  });
  assert.is(reply.status, 202, reply.text);
  assertShape(reply.json, PENDING_FIELDS);
  assert.is(reply.json.status, 'pending');
  assert.match(reply.json.message, new RegExp(`action=transaction&reference=${reply.json.reference}`));
  await assertMatchesLedger(core, accountId, reply.json);
  const heldKobo = await balanceKobo(core, accountId);

  const before = await gateway.request({ query: { action: 'transaction', reference: reply.json.reference }, keys });
  assert.is(before.json.transaction.status, 'pending');

  await core.recoverNow();

  const after = await gateway.request({ query: { action: 'transaction', reference: reply.json.reference }, keys });
  assert.is(after.status, 200);
  assert.is(after.json.transaction.status, 'success');
  assert.is(after.json.transaction.charged, reply.json.charged);
  assert.is(await balanceKobo(core, accountId), heldKobo, 'a delivery keeps the charge');
  await assertLedgerInvariant(core, accountId);
});

test('a pending electricity payment shows its token and units once settled', async () => {
  const { keys } = await fundedAccount();
  const reply = await gateway.request({
    query: { action: 'electricity' },
    keys,
    body: { disco: 'eedc', meter_number: '45031238888', meter_type: 'prepaid', amount: 1000 },
  });
  assert.is(reply.status, 202, reply.text);
  assertShape(reply.json, PENDING_FIELDS, 'pending electricity');

  await core.recoverNow();
  const after = await gateway.request({ query: { action: 'transaction', reference: reply.json.reference }, keys });
  assert.is(after.json.transaction.status, 'success');
  assert.match(after.json.transaction.token, /^\d{4}(-\d{4}){4}$/);
  assert.match(after.json.transaction.units, /kWh$/);
});

test('pending answers carry the product fields known before delivery', async () => {
  const { keys } = await fundedAccount();
  const data = await gateway.request({ query: { action: 'data' }, keys, body: { plan_id: 1, phone: '08031238888' } });
  assert.is(data.status, 202, data.text);
  assertShape(data.json, { ...PENDING_FIELDS, plan: 'string' }, 'pending data');
  const cable = await gateway.request({
    query: { action: 'cable' },
    keys,
    body: { provider: 'startimes', smart_card: '70128888', package_code: 'basic' },
  });
  assert.is(cable.status, 202, cable.text);
  assertShape(
    cable.json,
    { ...PENDING_FIELDS, package: 'string', subscription_type: 'null', months: 'integer' },
    'pending cable',
  );
  const sms = await gateway.request({
    query: { action: 'bulksms' },
    keys,
    body: { sender: 'Shop', recipients: ['08031238888', '08031234567'], message: 'Hello' },
  });
  assert.is(sms.status, 202, sms.text);
  assertShape(sms.json, { ...PENDING_FIELDS, sent: 'integer', pages: 'integer' }, 'pending bulksms');
});

test('a pending purchase that later fails shows failed on requery, and the wallet is refunded in full', async () => {
  const { accountId, keys } = await fundedAccount();
  const reply = await gateway.request({
    query: { action: 'cable' },
    keys,
    body: { provider: 'dstv', smart_card: '7012347777', package_code: 'DSTV YANGA' },
  });
  assert.is(reply.status, 202, reply.text);
  assert.ok((await balanceKobo(core, accountId)) < 5_000_000n, 'the charge is held while pending');

  await core.recoverNow();

  const after = await gateway.request({ query: { action: 'transaction', reference: reply.json.reference }, keys });
  assert.is(after.json.transaction.status, 'failed');
  assert.type(after.json.transaction.failure_reason, 'string');
  assert.is(await balanceKobo(core, accountId), 5_000_000n, 'refunded in full');
  await assertLedgerInvariant(core, accountId);

  const balance = await gateway.request({ query: { action: 'balance' }, keys });
  assert.is(balance.json.balance, 50_000);
});

test('a request_id whose first request is still in flight is 409 REQUEST_IN_PROGRESS', async () => {
  const { accountId, keys } = await fundedAccount();
  const body = { network: 'glo', phone: '08051234567', amount: 100, request_id: 'inflight-1' };
  const callsBefore = core.sandbox.purchases.length;
  const first = gateway.request({ query: { action: 'airtime' }, keys, body });
  // Once the provider has been called, the first request is reserved and waiting on it.
  while (core.sandbox.purchases.length === callsBefore) await new Promise((resolve) => setTimeout(resolve, 5));
  const second = await gateway.request({ query: { action: 'airtime' }, keys, body });
  assertError(second, 409, 'REQUEST_IN_PROGRESS', { reference: 'string' });

  const firstReply = await first;
  assert.is(firstReply.status, 200, firstReply.text);
  assert.is(second.json.reference, firstReply.json.reference);
  const debits = (await core.admin.listLedgerEntries({ accountId, pageSize: 100, pageToken: '' })).entries.filter(
    (e) => e.kind === 'debit',
  );
  assert.is(debits.length, 1);
});

test.run();
