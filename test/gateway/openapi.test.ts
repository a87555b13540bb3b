/**
 * The OpenAPI document against the real gateway: it is served at /openapi.json, documents
 * exactly the actions the gateway has, and real answers of every action (200, 202 and the
 * error statuses) validate against its schemas, so the document cannot drift from the code.
 */

import { Ajv2020 } from 'ajv/dist/2020.js';
import addFormats from 'ajv-formats';
import * as assert from 'uvu/assert';
import { ACTIONS } from '../../gateway/actions/index.js';
import { startCore, type TestCore } from '../helpers/core.js';
import { type ApiKeys, type Reply, startTestGateway, type TestGateway } from '../helpers/gateway.js';
import { suite } from '../helpers/suite.js';

const test = suite('openapi document');
let core: TestCore;
let gateway: TestGateway;
let document: any;
let keys: ApiKeys;
const ajv = new Ajv2020({ strict: true, allErrors: true });
addFormats.default(ajv);
// The schemas live under the document's components; nothing else of the document is a schema.
ajv.addVocabulary(['components']);

test.before(async () => {
  core = await startCore();
  gateway = await startTestGateway(core, { rateLimitPerMinute: 10_000 });
  const reply = await gateway.request({ path: '/openapi.json' });
  assert.is(reply.status, 200);
  document = reply.json;
  ajv.addSchema({ $id: 'openapi', components: document.components });
  const account = await core.createApiAccount({ balanceKobo: 100_000_000 });
  keys = { publicKey: account.publicKey, secretKey: account.secretKey };
});

test.after(async () => {
  await gateway.close();
  await core.close();
});

function assertValid(schemaName: string, reply: Reply, what: string): void {
  const validate = ajv.getSchema(`openapi#/components/schemas/${schemaName}`);
  assert.ok(validate, `the document has a schema ${schemaName}`);
  const ok = validate(reply.json);
  assert.ok(
    ok,
    `${what} (HTTP ${reply.status}) matches ${schemaName}: ` +
      `${ajv.errorsText(validate.errors)}\n${reply.text.slice(0, 500)}`,
  );
}

function documented(action: string, status: '200' | '202'): string {
  const name = document['x-actions'][action]?.responses?.[status];
  assert.type(name, 'string', `x-actions documents ${action} ${status}`);
  return name;
}

const BODIES: Record<string, unknown> = {
  airtime: { network: 'mtn', phone: '08031234567', amount: 100 },
  data: { plan_id: 1, phone: '08031234567' },
  electricity: {
    disco: 'ikedc',
    meter_number: '45031234567',
    meter_type: 'prepaid',
    amount: 1000.5,
    phone: '08031234567',
  },
  cable: { provider: 'gotv', smart_card: '7012345678', package_code: 'GOTV MAX' },
  bulksms: { sender: 'MyShop', recipients: ['08031234567', '08051234567'], message: 'Hello' },
  verify: { disco: 'ikedc', meter_number: '45031234567', meter_type: 'prepaid' },
};

test('it is OpenAPI 3.1 and documents exactly the actions the gateway serves, with their methods', () => {
  assert.is(document.openapi, '3.1.0');
  assert.equal(Object.keys(document['x-actions']).sort(), Object.keys(ACTIONS).sort());
  for (const [name, action] of Object.entries(ACTIONS)) {
    assert.is(document['x-actions'][name].method, action.method, `${name} method`);
    const op = document.paths['/'][action.method.toLowerCase()];
    assert.ok(op.parameters[0].schema.enum.includes(name), `${name} is in the ${action.method} action enum`);
  }
  assert.ok(document.components.securitySchemes.publicKey && document.components.securitySchemes.secretKey);
});

test("every action's real 200 answer validates", async () => {
  let reference = '';
  for (const [action, body] of Object.entries(BODIES)) {
    const reply = await gateway.request({ query: { action }, keys, body });
    assert.is(reply.status, 200, `${action}: ${reply.text}`);
    assertValid(documented(action, '200'), reply, action);
    if (action === 'airtime') reference = reply.json.reference;
  }
  // A postpaid payment has no token: null, still valid.
  const postpaid = await gateway.request({
    query: { action: 'electricity' },
    keys,
    body: { ...(BODIES['electricity'] as object), meter_type: 'postpaid' },
  });
  assertValid(documented('electricity', '200'), postpaid, 'postpaid electricity');
  const reads: Record<string, Record<string, string>> = {
    balance: {},
    plans: { network: 'mtn' },
    transaction: { reference },
    transactions: { limit: '3' },
  };
  for (const [action, query] of Object.entries(reads)) {
    const reply = await gateway.request({ query: { action, ...query }, keys });
    assert.is(reply.status, 200, `${action}: ${reply.text}`);
    assertValid(documented(action, '200'), reply, action);
  }
});

test('pending (202) answers of every purchase validate, as does the transaction once settled or failed', async () => {
  const pendingBodies: Record<string, unknown> = {
    airtime: { network: 'mtn', phone: '08031238888', amount: 100 },
    data: { plan_id: 1, phone: '08031238888' },
    electricity: { disco: 'ikedc', meter_number: '45031238888', meter_type: 'prepaid', amount: 1000 },
    cable: { provider: 'gotv', smart_card: '7012347777', package_code: 'GOTV MAX' },
    bulksms: { sender: 'MyShop', recipients: ['08031238888'], message: 'Hello' },
  };
  const references: string[] = [];
  for (const [action, body] of Object.entries(pendingBodies)) {
    const reply = await gateway.request({ query: { action }, keys, body });
    assert.is(reply.status, 202, `${action}: ${reply.text}`);
    assertValid(documented(action, '202'), reply, `${action} pending`);
    references.push(reply.json.reference);
  }
  await core.recoverNow();
  for (const reference of references) {
    assertValid(
      'TransactionResponse',
      await gateway.request({ query: { action: 'transaction', reference }, keys }),
      'a recovered transaction',
    );
  }
});

test('error answers validate against Error, with the headers the document names', async () => {
  const cases: Array<[string, Promise<Reply>, number]> = [
    ['missing keys', gateway.request({ query: { action: 'balance' } }), 401],
    [
      'short balance',
      core
        .createApiAccount({ balanceKobo: 100 })
        .then((a) => gateway.request({ query: { action: 'airtime' }, keys: a, body: BODIES['airtime'] })),
      402,
    ],
    [
      'unknown reference',
      gateway.request({ query: { action: 'transaction', reference: '202601010000AAAAAAAAAA' }, keys }),
      404,
    ],
    ['wrong method', gateway.request({ method: 'GET', query: { action: 'airtime' }, keys }), 405],
    ['bad parameters', gateway.request({ query: { action: 'airtime' }, keys, body: { network: 'x' } }), 422],
    [
      'provider failed',
      gateway.request({
        query: { action: 'airtime' },
        keys,
        body: { ...(BODIES['airtime'] as object), phone: '08031239999' },
      }),
      502,
    ],
  ];
  for (const [what, pending, status] of cases) {
    const reply = await pending;
    assert.is(reply.status, status, `${what}: ${reply.text}`);
    assertValid('Error', reply, what);
    const op = document.paths['/'][what === 'wrong method' ? 'get' : 'post'] ?? document.paths['/'].get;
    assert.ok(op.responses[String(status)], `status ${status} is documented`);
  }
  const limited = await startTestGateway(core, { rateLimitPerMinute: 1 });
  try {
    await limited.request({ query: { action: 'balance' }, keys });
    const reply = await limited.request({ query: { action: 'balance' }, keys });
    assert.is(reply.status, 429);
    assertValid('Error', reply, 'rate limited');
    for (const name of Object.keys(document.paths['/'].get.responses['429'].headers)) {
      assert.ok(reply.headers[name.toLowerCase()] !== undefined, `429 carries ${name}`);
    }
  } finally {
    await limited.close();
  }
});

test('/healthz validates against Health', async () => {
  assertValid('Health', await gateway.request({ path: '/healthz' }), 'health');
});

test.run();
