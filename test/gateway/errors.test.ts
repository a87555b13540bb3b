/**
 * Every error the public API answers, over real HTTP: the status, the body
 * `{"status":"error","message","code"}` with `errors` and `reference` where they apply, and
 * that nothing was charged when the answer says so.
 */
import http from 'node:http';
import net from 'node:net';
import * as assert from 'uvu/assert';
import { MAX_DEPTH } from '../../gateway/body.js';
import { ledgerOf, startCore, type TestCore } from '../helpers/core.js';
import { startTestGateway, type TestGateway } from '../helpers/gateway.js';
import { suite } from '../helpers/suite.js';
import { assertError, balanceKobo, fundedAccount } from './fields.js';

const test = suite('gateway errors');

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

const AIRTIME = { network: 'mtn', phone: '08031234567', amount: 100 };

// --- 401 -------------------------------------------------------------------------------

test('no key headers is 401 MISSING_API_KEY', async () => {
  const reply = await gateway.request({ query: { action: 'balance' } });
  assertError(reply, 401, 'MISSING_API_KEY');
  const onlyPublic = await gateway.request({ query: { action: 'balance' }, headers: { 'X-Public-Key': 'pk_x' } });
  assertError(onlyPublic, 401, 'MISSING_API_KEY');
});

test('a wrong secret, unknown public key, or key of an account without API access is 401 INVALID_API_KEY', async () => {
  const { accountId, keys } = await fundedAccount(core);
  assertError(
    await gateway.request({ query: { action: 'balance' }, keys: { ...keys, secretKey: `${keys.secretKey}x` } }),
    401,
    'INVALID_API_KEY',
  );
  assertError(
    await gateway.request({ query: { action: 'balance' }, keys: { ...keys, publicKey: 'pk_unknown' } }),
    401,
    'INVALID_API_KEY',
  );

  await core.admin.setAccountTier({ accountId, tierId: 'basic' });
  // The gateway was never asked for this key before, so no cached success can answer it.
  assertError(await gateway.request({ query: { action: 'balance' }, keys }), 401, 'INVALID_API_KEY');
});

test('keys are checked before the action, the method and the body', async () => {
  assertError(await gateway.request({ query: { action: 'nonsense' } }), 401, 'MISSING_API_KEY');
  assertError(await gateway.request({ method: 'DELETE', query: { action: 'airtime' } }), 401, 'MISSING_API_KEY');
  assertError(
    await gateway.request({
      query: { action: 'airtime' },
      body: '{not json',
      headers: { 'Content-Type': 'application/json' },
    }),
    401,
    'MISSING_API_KEY',
  );
});

// --- 402 -------------------------------------------------------------------------------

test('a purchase the wallet cannot cover is 402 and debits nothing', async () => {
  const { accountId, keys } = await fundedAccount(core, 5_000);
  const purchasesBefore = core.sandbox.purchases.length;
  const reply = await gateway.request({ query: { action: 'airtime' }, keys, body: AIRTIME });
  assertError(reply, 402, 'INSUFFICIENT_BALANCE');
  assert.is(await balanceKobo(core, accountId), 5_000n);
  assert.is((await ledgerOf(core, accountId)).length, 1, 'only the funding credit');
  assert.is(core.sandbox.purchases.length, purchasesBefore, 'the provider was not called');
});

// --- 404 -------------------------------------------------------------------------------

test('a path outside the base paths is a JSON 404, before any key check', async () => {
  // `/api/v1/airtime` is an action's own path now (docs/api.md); a name that is no action is not.
  for (const path of ['/', '/api/v2', '/api/v1/nosuchaction', '/index.php', '//other.host/api/v1']) {
    const reply = await gateway.request({ path, query: { action: 'balance' } });
    assertError(reply, 404, 'NOT_FOUND');
  }
});

test('both base paths answer, with or without a trailing slash', async () => {
  const { keys } = await fundedAccount(core);
  for (const path of ['/api/v1', '/api', '/api/v1/', '/api/']) {
    const reply = await gateway.request({ path, query: { action: 'balance' }, keys });
    assert.is(reply.status, 200, `${path}: ${reply.text}`);
  }
});

// --- 405 -------------------------------------------------------------------------------

test('the wrong method for an action is 405 with Allow', async () => {
  const { keys } = await fundedAccount(core);
  const cases: [string, string, string][] = [
    ['GET', 'airtime', 'POST'],
    ['PUT', 'data', 'POST'],
    ['POST', 'balance', 'GET, HEAD'],
    ['DELETE', 'plans', 'GET, HEAD'],
    ['POST', 'transactions', 'GET, HEAD'],
  ];
  for (const [method, action, allow] of cases) {
    const reply = await gateway.request({
      method,
      query: { action },
      keys,
      ...(method === 'POST' ? { body: {} } : {}),
    });
    assertError(reply, 405, 'METHOD_NOT_ALLOWED');
    assert.is(reply.headers['allow'], allow, `${method} ${action}`);
  }
});

// --- 422 -------------------------------------------------------------------------------

/** Requests whose parameters break a rule, with the field the 422 must name. */
const INVALID_PARAMETERS: { name: string; action: string; body: unknown; field: string }[] = [
  { name: 'a missing required field', action: 'airtime', body: { network: 'mtn', amount: 100 }, field: 'phone' },
  {
    name: 'a value out of the allowed set',
    action: 'airtime',
    body: { ...AIRTIME, network: 'etisalat' },
    field: 'network',
  },
  { name: 'an amount below the minimum', action: 'airtime', body: { ...AIRTIME, amount: 49 }, field: 'amount' },
  {
    name: 'an electricity amount below 1000',
    action: 'electricity',
    body: { disco: 'ikedc', meter_number: '45031234567', meter_type: 'prepaid', amount: 999.99 },
    field: 'amount',
  },
  { name: 'a phone sent as a number', action: 'airtime', body: { ...AIRTIME, phone: 8031234567 }, field: 'phone' },
  { name: 'a phone of 10 digits', action: 'airtime', body: { ...AIRTIME, phone: '0803123456' }, field: 'phone' },
  { name: 'an amount with three decimals', action: 'airtime', body: { ...AIRTIME, amount: 100.123 }, field: 'amount' },
  {
    name: 'an amount string with three decimals',
    action: 'airtime',
    body: { ...AIRTIME, amount: '100.125' },
    field: 'amount',
  },
  { name: 'an amount that is not a number', action: 'airtime', body: { ...AIRTIME, amount: 'lots' }, field: 'amount' },
  { name: 'a negative amount', action: 'airtime', body: { ...AIRTIME, amount: -100 }, field: 'amount' },
  {
    name: 'a plan_id that is not an integer',
    action: 'data',
    body: { plan_id: 1.5, phone: '08031234567' },
    field: 'plan_id',
  },
  {
    name: 'a plan_id string that is not an integer',
    action: 'data',
    body: { plan_id: 'one', phone: '08031234567' },
    field: 'plan_id',
  },
  {
    name: 'a plan_id not in the catalog',
    action: 'data',
    body: { plan_id: 999_999, phone: '08031234567' },
    field: 'plan_id',
  },
  {
    name: 'a meter_type out of the set',
    action: 'electricity',
    body: { disco: 'ikedc', meter_number: '45031234567', meter_type: 'smart', amount: 1000 },
    field: 'meter_type',
  },
  {
    name: 'an unknown disco',
    action: 'electricity',
    body: { disco: 'lagos', meter_number: '45031234567', meter_type: 'prepaid', amount: 1000 },
    field: 'disco',
  },
  {
    name: 'an unknown cable provider',
    action: 'cable',
    body: { provider: 'netflix', smart_card: '7012345678', package_code: 'X' },
    field: 'provider',
  },
  {
    name: 'recipients that are not an array',
    action: 'bulksms',
    body: { sender: 'Shop', recipients: '08031234567', message: 'hi' },
    field: 'recipients',
  },
  {
    name: 'a recipient that is not a string',
    action: 'bulksms',
    body: { sender: 'Shop', recipients: ['08031234567', 8031234568], message: 'hi' },
    field: 'recipients[1]',
  },
  {
    name: 'a sender longer than 11 characters',
    action: 'bulksms',
    body: { sender: 'TwelveChars1', recipients: ['08031234567'], message: 'hi' },
    field: 'sender',
  },
  { name: 'an empty request_id', action: 'airtime', body: { ...AIRTIME, request_id: '' }, field: 'request_id' },
];

for (const { name, action, body, field } of INVALID_PARAMETERS) {
  test(`${action} with ${name} is 422 INVALID_PARAMETER naming ${field}, and charges nothing`, async () => {
    const { accountId, keys } = await fundedAccount(core);
    const reply = await gateway.request({ query: { action }, keys, body });
    assertError(reply, 422, 'INVALID_PARAMETER', { errors: 'array' });
    const fields = reply.json.errors.map((e: { field: string }) => e.field);
    assert.ok(fields.includes(field), `errors name ${field}: ${reply.text}`);
    for (const error of reply.json.errors) assert.equal(Object.keys(error).sort(), ['field', 'message']);
    assert.is(await balanceKobo(core, accountId), 5_000_000n);
  });
}

test('a 422 lists every broken field at once', async () => {
  const { keys } = await fundedAccount(core);
  const reply = await gateway.request({
    query: { action: 'airtime' },
    keys,
    body: { phone: 8031234567, amount: 1.001 },
  });
  assertError(reply, 422, 'INVALID_PARAMETER', { errors: 'array' });
  assert.equal(reply.json.errors.map((e: { field: string }) => e.field).sort(), ['amount', 'network', 'phone']);
});

test('a missing or unknown action is 422 UNKNOWN_ACTION', async () => {
  const { keys } = await fundedAccount(core);
  const queries: Record<string, string>[] = [
    {},
    { action: '' },
    { action: 'refund' },
    { action: 'toString' },
    { action: '__proto__' },
    { action: 'BALANCE' },
  ];
  for (const query of queries) {
    const reply = await gateway.request({ query, keys });
    assertError(reply, 422, 'UNKNOWN_ACTION');
  }
});

test('a POST without a JSON content type is 422 INVALID_CONTENT_TYPE', async () => {
  const { accountId, keys } = await fundedAccount(core);
  const json = JSON.stringify(AIRTIME);
  for (const contentType of [
    undefined,
    'text/plain',
    'application/x-www-form-urlencoded',
    'application/json; charset=latin1',
  ]) {
    const reply = await gateway.request({
      query: { action: 'airtime' },
      keys,
      body: json,
      headers: contentType ? { 'Content-Type': contentType } : {},
    });
    assertError(reply, 422, 'INVALID_CONTENT_TYPE');
  }
  assert.is(await balanceKobo(core, accountId), 5_000_000n);

  const withCharset = await gateway.request({
    query: { action: 'airtime' },
    keys,
    body: json,
    headers: { 'Content-Type': 'Application/JSON; charset=UTF-8' },
  });
  assert.is(withCharset.status, 200, withCharset.text);
});

test('a body that is not a JSON object is 422 INVALID_JSON', async () => {
  const { keys } = await fundedAccount(core);
  const bodies = [
    '{"network":"mtn",',
    'null',
    '[1,2]',
    '"text"',
    '42',
    '',
    '   ',
    Buffer.from([0x7b, 0xff, 0xfe, 0x7d]),
  ];
  for (const body of bodies) {
    const reply = await gateway.request({
      query: { action: 'airtime' },
      keys,
      body,
      headers: { 'Content-Type': 'application/json' },
    });
    assertError(reply, 422, 'INVALID_JSON');
  }
});

test('a number with more digits than a double holds is refused, not rounded into a valid amount', async () => {
  const { keys, accountId } = await fundedAccount(core);
  const before = await balanceKobo(core, accountId);
  // Read as a double this is 100.1, which would pass the two-decimals rule; it must not.
  const body = '{"network":"mtn","phone":"08031234567","amount":100.10000000000000001}';
  const reply = await gateway.request({
    query: { action: 'airtime' },
    keys,
    body,
    headers: { 'Content-Type': 'application/json' },
  });
  assertError(reply, 422, 'INVALID_JSON');
  assert.match(reply.json.message, /100\.10000000000000001/);
  assert.is(await balanceKobo(core, accountId), before);
  // Long digit runs inside strings are text, not numbers.
  const text = await gateway.request({
    query: { action: 'airtime' },
    keys,
    body: { network: 'mtn', phone: '08031234567', amount: 100, request_id: '1234567890123456789012345' },
  });
  assert.is(text.status, 200, text.text);
});

test('a body larger than the limit is 422 PAYLOAD_TOO_LARGE, declared or streamed', async () => {
  const { keys } = await fundedAccount(core);
  const big = JSON.stringify({ ...AIRTIME, padding: 'x'.repeat(300 * 1024) });
  const declared = await gateway.request({
    query: { action: 'airtime' },
    keys,
    body: big,
    headers: { 'Content-Type': 'application/json' },
  });
  assertError(declared, 422, 'PAYLOAD_TOO_LARGE');

  // Chunked, so the gateway only finds out while reading.
  const streamed = await new Promise<{ status: number; body: string }>((resolve, reject) => {
    const req = http.request(
      {
        host: '127.0.0.1',
        port: gateway.port,
        method: 'POST',
        path: '/api/v1?action=airtime',
        agent: false,
        headers: { 'Content-Type': 'application/json', 'X-Public-Key': keys.publicKey, 'X-Secret-Key': keys.secretKey },
      },
      (res) => {
        let body = '';
        res.on('data', (c: Buffer) => (body += c.toString()));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, body }));
      },
    );
    req.on('error', reject);
    for (let i = 0; i < 30; i++) req.write('x'.repeat(10 * 1024));
    req.end();
  });
  assert.is(streamed.status, 422);
  assert.is(JSON.parse(streamed.body).code, 'PAYLOAD_TOO_LARGE');
});

test('a bulk SMS to 10,000 recipients fits within the body limit', async () => {
  const { keys } = await fundedAccount(core, 5_000_000);
  const recipients = Array.from({ length: 10_000 }, (_, i) => `0803${String(i).padStart(4, '0')}123`);
  const reply = await gateway.request({
    query: { action: 'bulksms' },
    keys,
    body: { sender: 'Shop', recipients, message: 'Sale today' },
  });
  assert.is(reply.status, 200, reply.text.slice(0, 300));
  assert.is(reply.json.sent, 10_000);
});

test('__proto__ and constructor keys in a body are dropped and pollute nothing', async () => {
  const { keys } = await fundedAccount(core);
  const body =
    `{"network":"mtn","phone":"08031234567","amount":100,` +
    `"__proto__":{"polluted":"yes"},"constructor":{"prototype":{"polluted":"yes"}}}`;
  const reply = await gateway.request({
    query: { action: 'airtime' },
    keys,
    body,
    headers: { 'Content-Type': 'application/json' },
  });
  assert.is(reply.status, 200, reply.text);
  assert.is(({} as Record<string, unknown>)['polluted'], undefined);
  assert.is(Object.hasOwn(Object.prototype, 'polluted'), false);

  const hidden = `{"__proto__":{"phone":"08031234567"},"network":"mtn","amount":100}`;
  const missing = await gateway.request({
    query: { action: 'airtime' },
    keys,
    body: hidden,
    headers: { 'Content-Type': 'application/json' },
  });
  assertError(missing, 422, 'INVALID_PARAMETER', { errors: 'array' });
  assert.is(missing.json.errors[0].field, 'phone', 'a field hidden in __proto__ does not count');
});

test('a body nested deeper than any action needs is 422 INVALID_JSON, however deep; nothing is debited', async () => {
  const { keys, accountId } = await fundedAccount(core);
  const before = await balanceKobo(core, accountId);
  for (const depth of [MAX_DEPTH + 1, 50_000]) {
    const nested = `${'['.repeat(depth)}${']'.repeat(depth)}`;
    const body = `{"network":"mtn","phone":"08031234567","amount":100,"extra":${nested}}`;
    const reply = await gateway.request({
      query: { action: 'airtime' },
      keys,
      body,
      headers: { 'Content-Type': 'application/json' },
    });
    assertError(reply, 422, 'INVALID_JSON');
    assert.match(reply.json.message, /nests more than 64 levels/);
  }
  assert.is(await balanceKobo(core, accountId), before);
  // As deep as allowed is an ordinary body (a field no action reads is ignored).
  const allowedNesting = `${'['.repeat(MAX_DEPTH - 1)}${']'.repeat(MAX_DEPTH - 1)}`;
  const deepest = `{"network":"mtn","phone":"08031234567","amount":100,"extra":${allowedNesting}}`;
  const allowed = await gateway.request({
    query: { action: 'airtime' },
    keys,
    body: deepest,
    headers: { 'Content-Type': 'application/json' },
  });
  assert.is(allowed.status, 200, allowed.text);
});

// --- 502 -------------------------------------------------------------------------------

const PROVIDER_FAILURES: { action: string; body: Record<string, unknown> }[] = [
  { action: 'airtime', body: { network: 'glo', phone: '08059999999', amount: 500 } },
  { action: 'cable', body: { provider: 'gotv', smart_card: '7012349999', package_code: 'GOTV JINJA' } },
  { action: 'electricity', body: { disco: 'phed', meter_number: '45031239999', meter_type: 'prepaid', amount: 1000 } },
];

for (const { action, body } of PROVIDER_FAILURES) {
  test(`${action} the provider fails: 502 PROVIDER_FAILED, the reference, the wallet refunded in full`, async () => {
    const { accountId, keys } = await fundedAccount(core);
    const reply = await gateway.request({ query: { action }, keys, body });
    assertError(reply, 502, 'PROVIDER_FAILED', { reference: 'string' });
    assert.match(reply.json.message, /refunded in full/);
    assert.is(await balanceKobo(core, accountId), 5_000_000n, 'the balance is back where it was');

    const entries = (await ledgerOf(core, accountId)).filter((e) => e.reference === reply.json.reference);
    assert.equal(
      entries.map((e) => e.kind),
      ['debit', 'refund'],
    );
    assert.is(entries[0]!.amountKobo + entries[1]!.amountKobo, 0n, 'the refund equals the debit');

    const requery = await gateway.request({ query: { action: 'transaction', reference: reply.json.reference }, keys });
    assert.is(requery.json.transaction.status, 'failed');
    assert.type(requery.json.transaction.failure_reason, 'string');
  });
}

// --- headers on errors ----------------------------------------------------------------

test('a message that is not HTTP at all still gets a JSON error, not a bare 400', async () => {
  const answer = await new Promise<string>((resolve, reject) => {
    const socket = net.connect(gateway.port, '127.0.0.1', () =>
      socket.end('GET /api/v1?action=balance HTTP/1.1\r\nHost: x\r\nContent-Length: nope\r\n\r\n'),
    );
    let text = '';
    socket.on('data', (chunk: Buffer) => (text += chunk.toString('utf8')));
    socket.on('end', () => resolve(text));
    socket.on('error', reject);
  });
  assert.match(answer, /^HTTP\/1\.1 400 Bad Request\r\n/);
  assert.match(answer, /Content-Type: application\/json/);
  const body = JSON.parse(answer.slice(answer.indexOf('\r\n\r\n') + 4));
  assert.equal(body.status, 'error');
  assert.is(body.code, 'MALFORMED_REQUEST');
});

test('authenticated errors carry the rate limit headers, and bodies are never cached', async () => {
  const { keys } = await fundedAccount(core);
  const reply = await gateway.request({ query: { action: 'nope' }, keys });
  assertError(reply, 422, 'UNKNOWN_ACTION');
  assert.match(String(reply.headers['ratelimit']), /^"per-key";r=\d+;t=\d+$/);
  assert.is(reply.headers['ratelimit-policy'], '"per-key";q=60;w=60');
  assert.is(reply.headers['cache-control'], 'no-store');
});

test.run();
