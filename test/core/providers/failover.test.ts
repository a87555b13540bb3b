/**
 * Failover only on proven non-delivery: the rule of each adapter kind as a table
 * over every case docs/upstreams.md lists, then what the VTpass adapter and the sandbox actually
 * report on real calls (refused connection, TLS failure, time-out, door refusals, garbage),
 * read through the same rule.
 */
import { readFileSync } from 'node:fs';
import https from 'node:https';
import type { AddressInfo } from 'node:net';
import * as assert from 'uvu/assert';
import { kobo } from '../../../core/domain/money.js';
import { newReference } from '../../../core/domain/reference.js';
import { FAILOVER_RULES } from '../../../core/providers/failover-rules.js';
import type { CallEvidence, ProviderOutcome, ProviderRequest } from '../../../core/providers/port.js';
import { purchaseOutcome } from '../../../core/providers/sandbox/rules.js';
import type { UpstreamKind } from '../../../core/providers/upstreams.js';
import { createVtpassProviders } from '../../../core/providers/vtpass/index.js';
import { makeCertificates } from '../../helpers/certs.js';
import { startFakeVtpass } from '../../helpers/fake-vtpass.js';
import { suite } from '../../helpers/suite.js';

const test = suite('failover rules');

const answer = (httpStatus: number, code: string | null, status: string | null = null, json = true): CallEvidence => ({
  kind: 'answer',
  httpStatus,
  json,
  code,
  status,
});

/** Cases every kind reads alike: the network's facts. */
const NETWORK: [string, CallEvidence, boolean][] = [
  ['connection refused', { kind: 'not_sent', cause: 'refused' }, true],
  ['DNS failure', { kind: 'not_sent', cause: 'dns' }, true],
  ['TLS failure', { kind: 'not_sent', cause: 'tls' }, true],
  ['time-out', { kind: 'no_answer', cause: 'timeout' }, false],
  ['reset (possibly after writing)', { kind: 'no_answer', cause: 'reset' }, false],
  ['other socket error', { kind: 'no_answer', cause: 'other' }, false],
  ['HTTP 500', answer(500, null, null, false), false],
  ['HTTP 502 with JSON', answer(502, null), false],
  ['HTTP 503 HTML page', answer(503, null, null, false), false],
  ['HTTP 200 not JSON', answer(200, null, null, false), false],
];

const TABLES: Record<UpstreamKind, [string, CallEvidence, boolean][]> = {
  vtpass: [
    ['091 not processed', answer(200, '091', 'failed'), true],
    ['091 without a status', answer(200, '091'), true],
    ['018 low wallet', answer(200, '018'), true],
    ...['021', '022', '023', '024', '027'].map((code): [string, CallEvidence, boolean] => [
      `${code} account refusal at the door`,
      answer(200, code),
      true,
    ]),
    ['027 answered as HTTP 400', answer(400, '027'), true],
    ...['010', '011', '012', '013', '017', '028', '034', '035'].map((code): [string, CallEvidence, boolean] => [
      `${code} request refused before processing`,
      answer(200, code),
      true,
    ]),
    ['091 with status delivered (contradiction)', answer(200, '091', 'delivered'), false],
    ['018 behind a 5xx', answer(502, '018'), false],
    ['099 processing', answer(200, '099'), false],
    ['000 pending', answer(200, '000', 'pending'), false],
    ['000 initiated', answer(200, '000', 'initiated'), false],
    ['000 delivered', answer(200, '000', 'delivered'), false],
    ['016 failed after processing', answer(200, '016', 'failed'), false],
    ['019 likely duplicate', answer(200, '019'), false],
    ['014 request id exists', answer(200, '014'), false],
    ['030 biller unreachable', answer(200, '030'), false],
    ['083 system error', answer(200, '083'), false],
    ['087 unsure credentials', answer(401, '087'), false],
    ['a code never seen', answer(200, '999'), false],
    ['JSON without a code', answer(200, null), false],
  ],
  clubkonnect: [
    ['400 INVALID_CREDENTIALS', answer(200, '400', 'INVALID_CREDENTIALS'), true],
    ['412 INSUFFICIENT_APIAMOUNT (our float)', answer(200, '412', 'ORDER_ERROR'), true],
    ['409 INVALID_RECIPIENT', answer(200, '409', 'ORDER_ERROR'), true],
    ['499 unspecified ORDER_ERROR', answer(200, '499', 'ORDER_ERROR'), true],
    ['error name without a statuscode', answer(200, null, 'INVALID_CREDENTIALS'), true],
    ['INSUFFICIENT_BALANCE without a statuscode', answer(200, null, 'INSUFFICIENT_BALANCE'), true],
    ['100 ORDER_RECEIVED', answer(200, '100', 'ORDER_RECEIVED'), false],
    ['199 ORDER_RECEIVED unspecified', answer(200, '199', 'ORDER_RECEIVED'), false],
    ['300 ORDER_PROCESSED', answer(200, '300', 'ORDER_PROCESSED'), false],
    ['201 network unresponsive', answer(200, '201', 'ORDER_COMPLETED'), false],
    ['200 ORDER_COMPLETED', answer(200, '200', 'ORDER_COMPLETED'), false],
    ['506 ORDER_CANCELLED on the purchase call', answer(200, '506', 'ORDER_CANCELLED'), false],
    ['600 ORDER_ONHOLD', answer(200, '600', 'ORDER_ONHOLD'), false],
    ['an error name we do not know', answer(200, null, 'SERVICE_TEMPORARILY_UNAVAIALBLE'), false],
    ['JSON without statuscode or status', answer(200, null), false],
    ['HTTP 403 HTML (IP not whitelisted)', answer(403, null, null, false), false],
    ['ORDER_ERROR code behind HTTP 500', answer(500, '400', 'INVALID_CREDENTIALS'), false],
  ],
  'ported-number': [
    ['400 insufficient balance', answer(400, null), true],
    ['401 invalid token', answer(401, null), true],
    ['403 forbidden', answer(403, null), true],
    ['404 wrong base URL (HTML)', answer(404, null, null, false), true],
    ['2xx Status failed', answer(201, null, 'failed'), true],
    ['400 with an HTML body', answer(400, null, null, false), false],
    ['2xx Status successful', answer(200, null, 'successful'), false],
    ['2xx Status processing', answer(200, null, 'processing'), false],
    ['2xx Status pending', answer(201, null, 'pending'), false],
    ['2xx JSON without Status', answer(200, null), false],
    ['2xx a Status never seen', answer(200, null, 'queued'), false],
    ['429 too many requests', answer(429, null), false],
  ],
  sandbox: [
    ['declined (9999)', answer(200, 'declined', 'failed'), true],
    ['another code', answer(200, 'other', 'failed'), false],
  ],
};

for (const [kind, cases] of Object.entries(TABLES) as [UpstreamKind, [string, CallEvidence, boolean][]][]) {
  test(`${kind}: every case of the table`, () => {
    for (const [title, evidence, proven] of [...NETWORK, ...cases]) {
      assert.is(FAILOVER_RULES[kind](evidence), proven, `${kind}, ${title}: ${proven ? 'proven' : 'not proven'}`);
    }
  });
}

const signal = () => AbortSignal.timeout(3_000);
const request = (recipient: string): ProviderRequest => ({
  reference: newReference(new Date()),
  product: 'airtime',
  service: 'mtn',
  recipient,
  faceValueKobo: kobo(10_000),
  details: {},
});

function evidence(outcome: ProviderOutcome): CallEvidence | undefined {
  return outcome.kind === 'failed' || outcome.kind === 'unknown' ? outcome.evidence : undefined;
}

const catalog = { getPlan: async () => null, getCablePackage: async () => null };

test('the VTpass adapter reports what the rule needs on real calls, with the same outcomes as before', async () => {
  const fake = await startFakeVtpass();
  try {
    const keys = {
      apiKey: fake.apiKey,
      publicKey: fake.publicKey,
      secretKey: fake.secretKey,
      fallbackPhone: '08099999999',
    };
    const vtpass = createVtpassProviders({ ...keys, baseUrl: fake.baseUrl }, catalog);
    const cases: {
      recipient: string;
      script: Parameters<typeof fake.script>[1];
      kind: ProviderOutcome['kind'];
      evidence: Partial<CallEvidence>;
      proven: boolean;
    }[] = [
      {
        recipient: '08030000091',
        script: { answer: 'code', code: '091' },
        kind: 'failed',
        evidence: { kind: 'answer', code: '091' },
        proven: true,
      },
      {
        recipient: '08030000018',
        script: { answer: 'code', code: '018' },
        kind: 'failed',
        evidence: { kind: 'answer', code: '018', status: null },
        proven: true,
      },
      {
        recipient: '08030000027',
        script: { answer: 'code', code: '027' },
        kind: 'failed',
        evidence: { kind: 'answer', code: '027' },
        proven: true,
      },
      {
        recipient: '08030000016',
        script: { answer: 'code', code: '016' },
        kind: 'failed',
        evidence: { kind: 'answer', code: '016' },
        proven: false,
      },
      {
        recipient: '08030000099',
        script: { answer: 'processing' },
        kind: 'unknown',
        evidence: { kind: 'answer', code: '099' },
        proven: false,
      },
      {
        recipient: '08030000000',
        script: { answer: 'pending' },
        kind: 'unknown',
        evidence: { kind: 'answer', code: '000', status: 'pending' },
        proven: false,
      },
      {
        recipient: '08030000500',
        script: { answer: 'malformed' },
        kind: 'unknown',
        evidence: { kind: 'answer', json: false, code: null },
        proven: false,
      },
    ];
    for (const c of cases) {
      fake.script(c.recipient, c.script);
      const outcome = await vtpass.airtime.purchase(request(c.recipient), signal());
      assert.is(outcome.kind, c.kind, c.recipient);
      const got = evidence(outcome);
      assert.ok(got, `${c.recipient}: evidence reported`);
      for (const [key, value] of Object.entries(c.evidence))
        assert.equal((got as Record<string, unknown>)[key], value, `${c.recipient}: ${key}`);
      assert.is(FAILOVER_RULES.vtpass(got!), c.proven, `${c.recipient}: rule`);
    }
    // A time-out: the pay was written and the fake will record it; never proven.
    fake.script('08030000777', { answer: 'hang' });
    const hung = await vtpass.airtime.purchase(request('08030000777'), AbortSignal.timeout(300));
    assert.is(hung.kind, 'unknown');
    assert.equal(evidence(hung), { kind: 'no_answer', cause: 'timeout' });
    assert.is(FAILOVER_RULES.vtpass(evidence(hung)!), false);
    // A delivery carries no evidence: there is nothing to fail over from.
    const delivered = await vtpass.airtime.purchase(request('08011111111'), signal());
    assert.is(delivered.kind, 'delivered');
  } finally {
    await fake.close();
  }
});

test('a refused connection and a TLS failure are proven; the outcome stays unknown as before', async () => {
  const keys = { apiKey: 'k', publicKey: 'PK_x', secretKey: 'SK_x', fallbackPhone: '08099999999' };
  // A port nobody listens on: take one, then close it.
  const closed = https.createServer();
  await new Promise<void>((resolve) => closed.listen(0, '127.0.0.1', resolve));
  const closedPort = (closed.address() as AddressInfo).port;
  await new Promise<void>((resolve) => closed.close(() => resolve()));
  const refused = await createVtpassProviders(
    { ...keys, baseUrl: `http://127.0.0.1:${closedPort}/api/` },
    catalog,
  ).airtime.purchase(request('08030000001'), signal());
  assert.is(refused.kind, 'unknown', 'single-upstream behaviour unchanged: never refunded');
  assert.equal(evidence(refused), { kind: 'not_sent', cause: 'refused' });
  assert.is(FAILOVER_RULES.vtpass(evidence(refused)!), true);

  // A server whose certificate this process does not trust: the handshake fails before the request.
  const certs = makeCertificates();
  let requests = 0;
  const server = https.createServer(
    { cert: readFileSync(certs.certFile), key: readFileSync(certs.keyFile) },
    (_req, res) => {
      requests += 1;
      res.end('{}');
    },
  );
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  try {
    const port = (server.address() as AddressInfo).port;
    const tls = await createVtpassProviders(
      { ...keys, baseUrl: `https://127.0.0.1:${port}/api/` },
      catalog,
    ).airtime.purchase(request('08030000002'), signal());
    assert.is(tls.kind, 'unknown');
    assert.equal(evidence(tls), { kind: 'not_sent', cause: 'tls' });
    assert.is(FAILOVER_RULES.vtpass(evidence(tls)!), true);
    assert.is(requests, 0, 'no request reached the server');
  } finally {
    server.closeAllConnections();
    await new Promise<void>((resolve) => server.close(() => resolve()));
    certs.remove();
  }
});

test('the sandbox reports its decline as proven and its silences as time-outs', () => {
  const declined = purchaseOutcome(request('08030009999'));
  assert.is(declined.kind, 'failed');
  assert.is(FAILOVER_RULES.sandbox(evidence(declined)!), true);
  const silent = purchaseOutcome(request('08030008888'));
  assert.is(silent.kind, 'unknown');
  assert.equal(evidence(silent), { kind: 'no_answer', cause: 'timeout' });
  assert.is(FAILOVER_RULES.sandbox(evidence(silent)!), false);
});

test.run();
