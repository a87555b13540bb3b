/**
 * Structured logs: a real `npm start` that issues keys and sells writes
 * one JSON line per HTTP request (action, account, reference, status, latency, client IP)
 * and one per purchase outcome, and nowhere a secret key, a bearer token or a voucher.
 * Then the logger itself: LOG_LEVEL filters, and redaction blanks secrets a caller let slip.
 */
import { Writable } from 'node:stream';
import * as assert from 'uvu/assert';
import { createProcessLog, REDACTED } from '../../runtime/log.js';
import { suite } from '../helpers/suite.js';
import { keyHeaders, type LogLine, request, type Service, startService, unique } from './service.js';

const test = suite('ops: structured logs');

/** Lines of one event, in order. */
function events(lines: LogLine[], event: string): LogLine[] {
  return lines.filter((l) => l.event === event);
}

test('a run with keys and purchases logs each request and outcome with its facts, never a secret', async () => {
  let service: Service | undefined;
  try {
    // debug: every line the service can write is in the scan, provider and probe chatter too.
    service = await startService({ LOG_LEVEL: 'debug' });
    const gw = service.gatewayUrl;
    const keys = await service.apiAccount(1_000_000_00);
    const headers = keyHeaders(keys);
    const airtime = (phone: string, extra: Record<string, string> = {}) =>
      request(gw, '/api/v1?action=airtime', {
        headers: { ...headers, ...extra },
        body: { network: 'mtn', phone, amount: 100 },
      });

    const bought = await airtime('08031234567', { 'Idempotency-Key': unique('order') });
    assert.is(bought.status, 200, bought.text);
    const failed = await airtime('08031239999');
    assert.is(failed.status, 502, failed.text);
    const pending = await airtime('08031238888');
    assert.is(pending.status, 202, pending.text);
    const power = await request(gw, '/api/v1?action=electricity', {
      headers,
      body: { disco: 'ikedc', meter_number: '45031234567', meter_type: 'prepaid', amount: 1000, phone: '08031234567' },
    });
    assert.is(power.status, 200, power.text);
    const voucher = String(power.json.token);
    assert.match(voucher, /^\d{4}(-\d{4}){4}$/);
    const wrongSecret = await request(gw, '/api/v1?action=balance', {
      headers: { ...headers, 'X-Secret-Key': `${keys.secretKey}x` },
    });
    assert.is(wrongSecret.status, 401);
    // A caller who sends a bearer token (or anything else) in headers gets it nowhere near the log.
    const withBearer = await request(gw, '/api/v1?action=balance', {
      headers: { ...headers, Authorization: `Bearer ${service.serviceToken}` },
    });
    assert.is(withBearer.status, 200);
    assert.is((await request(gw, '/healthz')).status, 200);
    assert.is((await request(gw, '/metrics')).status, 200);

    const exit = await service.stop();
    assert.equal(exit, { code: 0, signal: null }, service.stderr());

    // Nothing secret anywhere in what the process wrote, on either stream.
    const everything = service.stdout() + service.stderr();
    for (const [what, secret] of [
      ['the secret key', keys.secretKey],
      ['the admin token', service.adminToken],
      ['the service token', service.serviceToken],
      ['the electricity voucher', voucher],
    ] as const) {
      assert.not.ok(everything.includes(secret), `${what} was written out`);
    }

    const lines = service.lines();
    assert.ok(lines.length > 10);
    for (const line of lines) {
      assert.not.ok('raw' in line, `every stdout line is JSON: ${String(line['raw'])}`);
      assert.type(line.event, 'string');
      assert.ok(['core', 'gateway', 'dashboard', 'console'].includes(String(line.service)), JSON.stringify(line));
      assert.ok(['debug', 'info', 'warn', 'error'].includes(String(line.level)), JSON.stringify(line));
      assert.ok(!Number.isNaN(Date.parse(String(line['time']))), 'time is an ISO timestamp');
    }

    // One line per request, with what a person needs to follow it.
    const requests = events(lines, 'http.request');
    const purchaseLine = requests.find((l) => l['reference'] === bought.json.reference);
    assert.ok(purchaseLine, 'the purchase has its request line');
    assert.is(purchaseLine['service'], 'gateway');
    assert.is(purchaseLine['action'], 'airtime');
    assert.is(purchaseLine['method'], 'POST');
    assert.is(purchaseLine['status'], 200);
    assert.is(purchaseLine['account'], keys.accountId);
    assert.is(purchaseLine['public_key'], keys.publicKey, 'the public key is fine to log');
    assert.is(purchaseLine['client_ip'], '127.0.0.1');
    assert.type(purchaseLine['latency_ms'], 'number');
    assert.ok((purchaseLine['latency_ms'] as number) >= 0);

    const failedLine = requests.find((l) => l['reference'] === failed.json.reference);
    assert.ok(failedLine, 'a refused purchase names its reference too');
    assert.is(failedLine['status'], 502);
    assert.is(failedLine['code'], 'PROVIDER_FAILED');
    assert.is(requests.find((l) => l['reference'] === pending.json.reference)?.['status'], 202);

    const refused = requests.find((l) => l['status'] === 401);
    assert.ok(refused, 'the refused key pair is logged');
    assert.is(refused['code'], 'INVALID_API_KEY');
    assert.is(refused['account'], undefined, 'no account is claimed for a key pair that failed');
    assert.is(requests.filter((l) => l['action'] === 'balance').length, 2, 'one line per request');
    assert.ok(
      requests.some((l) => l['action'] === 'healthz' && l['level'] === 'debug'),
      'probes are debug lines',
    );

    // One line per purchase outcome in the core, by reference.
    const outcomes = events(lines, 'purchase.outcome');
    const outcome = (reference: unknown) => outcomes.filter((l) => l['reference'] === reference).map((l) => l['state']);
    assert.equal(outcome(bought.json.reference), ['success']);
    assert.equal(outcome(failed.json.reference), ['failed']);
    assert.equal(outcome(pending.json.reference), ['pending']);
    assert.equal(outcome(power.json.reference), ['success']);
    const success = outcomes.find((l) => l['reference'] === bought.json.reference)!;
    assert.is(success['service'], 'core');
    assert.is(success['account'], keys.accountId);
    assert.is(success['product'], 'airtime');
    assert.is(success['charged_kobo'], 9_700);

    // The stop, in order: started, both drained, the core stopped, completed.
    const order = lines.map((l) => l.event);
    const at = (event: string) => order.indexOf(event);
    for (const event of ['shutdown.started', 'gateway.draining', 'core.draining', 'core.stopped', 'shutdown.completed'])
      assert.ok(at(event) >= 0, `${event} is logged`);
    assert.ok(at('shutdown.started') < at('core.stopped') && at('core.stopped') < at('shutdown.completed'));
  } finally {
    await service?.cleanup();
  }
});

/** A destination that keeps the lines a log writes. */
function capture(): { stream: Writable; lines: () => Record<string, unknown>[] } {
  const chunks: string[] = [];
  const stream = new Writable({
    write(chunk: Buffer, _encoding, done) {
      chunks.push(chunk.toString('utf8'));
      done();
    },
  });
  return {
    stream,
    lines: () =>
      chunks
        .join('')
        .split('\n')
        .filter((l) => l !== '')
        .map((l) => JSON.parse(l) as Record<string, unknown>),
  };
}

test('LOG_LEVEL filters: at warn, info and debug lines are not written', async () => {
  const out = capture();
  const log = createProcessLog({ level: 'warn', service: 'gateway', destination: out.stream });
  log.debug('probe', {});
  log.info('http.request', { status: 200 });
  log.warn('config.warning', { variable: 'X' });
  log.error('request.error', { error_id: 'err_1' });
  await log.flush();
  assert.equal(
    out.lines().map((l) => [l['level'], l['event']]),
    [
      ['warn', 'config.warning'],
      ['error', 'request.error'],
    ],
  );
});

test('a secret a caller let slip into a field is blanked, at the top of a line and in request headers', async () => {
  const out = capture();
  const log = createProcessLog({ level: 'info', service: 'core', destination: out.stream });
  log.info('careless', {
    secret_key: 'sk_top',
    secretKey: 'sk_camel',
    token: '1234-5678',
    service_token: 'tok_service',
    headers: { 'x-secret-key': 'sk_header', authorization: 'Bearer tok', 'x-public-key': 'pk_fine' },
    req: { headers: { authorization: 'Bearer tok2', 'x-secret-key': 'sk_req' } },
    uri: 'mongodb://user:pw@db',
    public_key: 'pk_fine',
  });
  await log.flush();
  const [line] = out.lines();
  const text = JSON.stringify(line);
  for (const secret of ['sk_top', 'sk_camel', '1234-5678', 'tok_service', 'sk_header', 'Bearer tok', 'sk_req', 'pw@db'])
    assert.not.ok(text.includes(secret), secret);
  assert.is(line!['secret_key'], REDACTED);
  assert.equal(
    line!['headers'],
    { 'x-secret-key': REDACTED, authorization: REDACTED, 'x-public-key': 'pk_fine' },
    'a public key is kept',
  );
  assert.is(line!['public_key'], 'pk_fine');
  assert.is(line!['event'], 'careless');
});

test("a field named like a line's own key cannot pass for it", async () => {
  const out = capture();
  const log = createProcessLog({ level: 'info', service: 'core', destination: out.stream });
  log.info('purchase.outcome', { service: 'mtn', level: 'x', event: 'forged' });
  await log.flush();
  const [line] = out.lines();
  assert.is(line!['service'], 'core');
  assert.is(line!['level'], 'info');
  assert.is(line!['event'], 'purchase.outcome');
  assert.is(line!['field_service'], 'mtn');
  assert.is(line!['field_event'], 'forged');
});

test.run();
