/**
 * Field errors over real HTTP: one 422 lists every problem, a wrong type on one
 * field included (item 8); text with half a surrogate pair is refused before it reaches the
 * core mended to U+FFFD (item 6); nothing is charged.
 */
import * as assert from 'uvu/assert';
import { startCore, type TestCore } from '../helpers/core.js';
import { startTestGateway, type TestGateway } from '../helpers/gateway.js';
import { suite } from '../helpers/suite.js';
import { assertError, balanceKobo, fundedAccount } from './fields.js';

const test = suite('gateway field errors');

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

/** The fields a 422 names, sorted. */
function fieldsOf(json: { errors?: { field: string }[] }): string[] {
  return (json.errors ?? []).map((e) => e.field).sort();
}

test('airtime: a wrong type on amount still lists the bad network and phone; nothing charged', async () => {
  const { accountId, keys } = await fundedAccount(core);
  const before = await balanceKobo(core, accountId);
  for (const amount of ['a hundred', true, { naira: 100 }, [100]]) {
    const reply = await gateway.request({
      query: { action: 'airtime' },
      keys,
      body: { network: 'vodafone', phone: '123', amount },
    });
    assertError(reply, 422, 'INVALID_PARAMETER', { errors: 'array' });
    assert.equal(fieldsOf(reply.json), ['amount', 'network', 'phone'], `${JSON.stringify(amount)}: ${reply.text}`);
  }
  // The right fields stay unnamed: only amount is wrong here.
  const onlyAmount = await gateway.request({
    query: { action: 'airtime' },
    keys,
    body: { network: 'mtn', phone: '08031234567', amount: 'lots' },
  });
  assert.equal(fieldsOf(onlyAmount.json), ['amount']);
  assert.is(await balanceKobo(core, accountId), before);
});

test('electricity: a wrong type on amount still lists the bad disco, meter and meter type', async () => {
  const { keys } = await fundedAccount(core);
  const reply = await gateway.request({
    query: { action: 'electricity' },
    keys,
    body: { disco: 'nowhere', meter_number: '12', meter_type: 'both', amount: false },
  });
  assertError(reply, 422, 'INVALID_PARAMETER', { errors: 'array' });
  assert.equal(fieldsOf(reply.json), ['amount', 'disco', 'meter_number', 'meter_type'], reply.text);
});

test('bulk SMS: a lone surrogate as a JSON escape is 422 on message, other fields too; nothing charged', async () => {
  const { accountId, keys } = await fundedAccount(core);
  const before = await balanceKobo(core, accountId);
  // Written by hand: JSON.stringify would never produce the escape of half a pair from a well-formed string.
  const raw = '{"sender":"MyShop","recipients":["08031234567"],"message":"a\\ud83d b"}';
  const reply = await gateway.request({
    query: { action: 'bulksms' },
    keys,
    body: raw,
    headers: { 'Content-Type': 'application/json' },
  });
  assertError(reply, 422, 'INVALID_PARAMETER', { errors: 'array' });
  assert.equal(fieldsOf(reply.json), ['message'], reply.text);
  assert.match(reply.json.errors[0].message, /broken character/);
  // A low half alone, in a recipient too, beside a bad sender.
  const more = '{"sender":"My Shop!!","recipients":["0803\\udc001234567"],"message":"fine \\udc00"}';
  const both = await gateway.request({
    query: { action: 'bulksms' },
    keys,
    body: more,
    headers: { 'Content-Type': 'application/json' },
  });
  assertError(both, 422, 'INVALID_PARAMETER', { errors: 'array' });
  assert.equal(fieldsOf(both.json), ['message', 'recipients[0]', 'sender'], both.text);
  assert.is(await balanceKobo(core, accountId), before, 'nothing was charged');
  // A whole pair is a character like any other.
  const whole = '{"sender":"MyShop","recipients":["08031234567"],"message":"a\\ud83d\\ude00 b"}';
  const sent = await gateway.request({
    query: { action: 'bulksms' },
    keys,
    body: whole,
    headers: { 'Content-Type': 'application/json' },
  });
  assert.is(sent.status, 200, sent.text);
});

test.run();
