/**
 * HTTP details independent clients tripped over: HEAD, Expect: 100-continue and other
 * expectations, a replayed failure that says it is replayed, a repeated Idempotency-Key, a
 * caller's reference echoed at a bounded length, one rule for decimals, and listening on IPv6
 * as well as IPv4 by default.
 */
import net from 'node:net';
import * as assert from 'uvu/assert';
import { startGateway } from '../../gateway/main.js';
import { startCore, type TestCore } from '../helpers/core.js';
import { type ApiKeys, send, startTestGateway, type TestGateway } from '../helpers/gateway.js';
import { suite } from '../helpers/suite.js';
import { assertError } from './fields.js';

const test = suite('gateway HTTP details');
let core: TestCore;
let gateway: TestGateway;
let keys: ApiKeys;

test.before(async () => {
  core = await startCore();
  gateway = await startTestGateway(core);
  keys = await core.createApiAccount({ balanceKobo: 10_000_000 });
});

test.after(async () => {
  await gateway?.close();
  await core?.close();
});

/** Sends raw bytes and collects what comes back until `done(text)` says so or the socket ends. */
async function raw(
  first: string,
  then?: (soFar: string, socket: net.Socket) => void,
  done: (text: string) => boolean = () => false,
): Promise<string> {
  const socket = net.connect({ port: gateway.port, host: '127.0.0.1' });
  let text = '';
  let sentRest = false;
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      socket.destroy();
      resolve(text);
    }, 3_000);
    socket.on('data', (chunk) => {
      text += chunk.toString('latin1');
      if (!sentRest && then) {
        sentRest = true;
        then(text, socket);
      }
      if (done(text)) {
        clearTimeout(timer);
        socket.destroy();
        resolve(text);
      }
    });
    socket.on('end', () => {
      clearTimeout(timer);
      resolve(text);
    });
    socket.on('error', reject);
    socket.write(first);
  });
}

function keyHeaders(k: ApiKeys): string {
  return `X-Public-Key: ${k.publicKey}\r\nX-Secret-Key: ${k.secretKey}\r\n`;
}

test('HEAD on a GET action answers like GET, without the body', async () => {
  const get = await gateway.request({ query: { action: 'balance' }, keys });
  const head = await gateway.request({ method: 'HEAD', query: { action: 'balance' }, keys });
  assert.is(head.status, 200);
  assert.is(head.text, '');
  assert.is(head.headers['content-type'], get.headers['content-type']);
  assert.is(head.headers['content-length'], get.headers['content-length']);
  const wrong = await gateway.request({ method: 'HEAD', query: { action: 'airtime' }, keys });
  assert.is(wrong.status, 405, 'HEAD is GET without the body, so a POST action refuses it');
  assert.is(wrong.headers['allow'], 'POST');
});

test('100 Continue only once the keys and the declared length are accepted', async () => {
  const body = JSON.stringify({ network: 'mtn', phone: '08031234567', amount: 50 });
  const head = (k: string, length: number) =>
    `POST /api/v1?action=airtime HTTP/1.1\r\nHost: gw\r\nContent-Type: ` +
    `application/json\r\n${k}Content-Length: ${length}\r\nExpect: ` +
    `100-continue\r\nConnection: close\r\n\r\n`;

  const wrongKeys = await raw(
    head(keyHeaders({ publicKey: keys.publicKey, secretKey: 'sk_wrong' }), body.length),
    undefined,
    (t) => t.includes('}'),
  );
  assert.not.match(wrongKeys, /100 Continue/);
  assert.match(wrongKeys, /^HTTP\/1\.1 401/);

  const tooLong = await raw(head(keyHeaders(keys), 10_000_000), undefined, (t) => t.includes('}'));
  assert.not.match(tooLong, /100 Continue/);
  assert.match(tooLong, /PAYLOAD_TOO_LARGE/);

  const accepted = await raw(
    head(keyHeaders(keys), body.length),
    (soFar, socket) => {
      assert.match(soFar, /^HTTP\/1\.1 100 Continue/, 'the client is told to go on before it sends the body');
      socket.write(body);
    },
    (t) => /"status":"success"/.test(t),
  );
  assert.match(accepted, /HTTP\/1\.1 200 OK/);
});

test('an expectation other than 100-continue is a JSON 417', async () => {
  const answer = await raw(
    `GET /api/v1?action=balance HTTP/1.1\r\nHost: gw\r\nExpect: teapot\r\n${keyHeaders(keys)}Connection: close\r\n\r\n`,
  );
  assert.match(answer, /^HTTP\/1\.1 417/);
  assert.match(answer, /"code":"EXPECTATION_FAILED"/);
});

test('a request Node cannot parse is a JSON 400', async () => {
  const answer = await raw(
    'GET /api/v1?action=balance HTTP/1.1\r\nHost: gw\r\nContent-Length: 5\r\nTransfer-Encoding: chunked\r\n\r\n',
  );
  assert.match(answer, /^HTTP\/1\.1 400/);
  assert.match(answer, /"code":"MALFORMED_REQUEST"/);
});

test('a replayed failure says it is replayed, as a replayed success does', async () => {
  const body = { network: 'mtn', phone: '08031239999', amount: 50, request_id: 'fails-once' };
  const first = await gateway.request({ method: 'POST', query: { action: 'airtime' }, keys, body });
  assertError(first, 502, 'PROVIDER_FAILED', { reference: 'string' });
  assert.is(first.headers['idempotent-replayed'], undefined);
  const again = await gateway.request({ method: 'POST', query: { action: 'airtime' }, keys, body });
  assertError(again, 502, 'PROVIDER_FAILED', { reference: 'string' });
  assert.is(again.headers['idempotent-replayed'], 'true');
  assert.is((again.json as { reference: string }).reference, (first.json as { reference: string }).reference);
});

test('an Idempotency-Key sent twice is refused with a message that says so', async () => {
  const reply = await gateway.request({
    method: 'POST',
    query: { action: 'airtime' },
    keys,
    headers: { 'Content-Type': 'application/json', 'Idempotency-Key': ['k-1', 'k-2'] },
    body: JSON.stringify({ network: 'mtn', phone: '08031234567', amount: 50 }),
  });
  assertError(reply, 422, 'INVALID_PARAMETER', { errors: 'array' });
  assert.match((reply.json as { message: string }).message, /Idempotency-Key header must be sent once/);
});

test('a reference the caller sends is echoed at a bounded length', async () => {
  const reply = await gateway.request({ query: { action: 'transaction', reference: 'R'.repeat(5_000) }, keys });
  assertError(reply, 404, 'NOT_FOUND');
  assert.ok(reply.text.length < 400, `answer of ${reply.text.length} characters`);
  assert.match((reply.json as { message: string }).message, /5000 characters/);
});

test('one rule for decimals; floating-point noise names the field', async () => {
  const charged: number[] = [];
  for (const amount of ['100.100', '100.1000000', 100.1]) {
    const reply = await gateway.request({
      method: 'POST',
      query: { action: 'airtime' },
      keys,
      body: { network: 'mtn', phone: '08031234567', amount },
    });
    assert.is(reply.status, 200, `${JSON.stringify(amount)}: ${reply.text}`);
    charged.push((reply.json as { charged: number }).charged);
  }
  assert.ok(
    charged.every((naira) => naira === charged[0]),
    `one charge for all three: ${charged.join(', ')}`,
  );
  const noisy = await gateway.request({
    method: 'POST',
    query: { action: 'airtime' },
    keys,
    headers: { 'Content-Type': 'application/json' },
    body: '{"network":"mtn","phone":"08031234567","amount":99.30000000000001}',
  });
  assertError(noisy, 422, 'INVALID_PARAMETER', { errors: 'array' });
  assert.equal(
    (noisy.json as { errors: { field: string }[] }).errors.map((e) => e.field),
    ['amount'],
  );
});

test.run();

const listen = suite('gateway listening by default');

listen('without HOST the gateway answers on IPv6 and IPv4 loopback alike', async () => {
  const own = await startCore();
  const quiet = { info: () => {}, error: () => {} };
  const running = await startGateway({ PORT: '0', CORE_URL: own.url, DATA_DIR: own.dataDir }, quiet);
  try {
    const partner = await own.createApiAccount({ balanceKobo: 1_000 });
    const v4 = await send(running.port, '/api/v1', { query: { action: 'balance' }, keys: partner });
    assert.is(v4.status, 200, v4.text);
    const v6 = await send(running.port, '/api/v1', { query: { action: 'balance' }, keys: partner, host: '::1' });
    assert.is(v6.status, 200, v6.text);
  } finally {
    await running.close();
    await own.close();
  }
});

listen.run();
