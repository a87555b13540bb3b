/**
 * The documents' requests against the OpenAPI document: every `curl "$BASE?action=..."`
 * of docs/api.md and of the README's first purchase is read out of the file (so the test
 * follows the documents as they change),
 * checked against the document served at /openapi.json with a standard JSON Schema
 * validator (the operation's `action` enum and its request body schema, a `oneOf` a body
 * must match exactly once), then sent to a real gateway, and the real answer is validated
 * against the response the document gives for its status. The deliberate error
 * example must be refused by the document and answered with the documented Error.
 */
import { readFileSync } from 'node:fs';
import { Ajv2020 } from 'ajv/dist/2020.js';
import addFormats from 'ajv-formats';
import * as assert from 'uvu/assert';
import { startCore, type TestCore } from '../helpers/core.js';
import { type ApiKeys, startTestGateway, type TestGateway } from '../helpers/gateway.js';
import { suite } from '../helpers/suite.js';

interface ReadmeRequest {
  /** The file and line, for messages. */
  where: string;
  query: URLSearchParams;
  headers: Record<string, string>;
  body: unknown;
  /** The document shows an error answer for it. */
  expectsError: boolean;
}

/** Every `curl -s "$BASE?action=..."` of a document (a path from the repository's root), continuation lines joined. */
function readmeRequests(file: string): ReadmeRequest[] {
  const lines = readFileSync(new URL(`../../${file}`, import.meta.url), 'utf8').split('\n');
  const requests: ReadmeRequest[] = [];
  for (let i = 0; i < lines.length; i++) {
    if (!/^curl -s "\$BASE\?/.test(lines[i]!)) continue;
    let command = lines[i]!;
    let j = i;
    while (command.endsWith('\\')) command = command.slice(0, -1) + lines[++j]!;
    const answer = lines[j + 1]?.startsWith('# {') ? lines[j + 1]! : '';
    const url = /"\$BASE\?([^"]*)"/.exec(command)![1]!;
    const headers = Object.fromEntries([...command.matchAll(/-H "([^:]+): ([^"]*)"/g)].map((m) => [m[1]!, m[2]!]));
    const data = /-d '([^']*)'/.exec(command)?.[1];
    requests.push({
      where: `${file} line ${i + 1}`,
      query: new URLSearchParams(url),
      headers,
      body: data === undefined ? undefined : JSON.parse(data),
      expectsError: answer.includes('"status":"error"'),
    });
  }
  return requests;
}

const test = suite("the documents' requests against the OpenAPI document");
let core: TestCore;
let gateway: TestGateway;
let keys: ApiKeys;
let document: any;
const ajv = new Ajv2020({ strict: false, allErrors: true });
addFormats.default(ajv);

test.before(async () => {
  core = await startCore();
  gateway = await startTestGateway(core, { rateLimitPerMinute: 10_000 });
  keys = await core.createApiAccount({ balanceKobo: 100_000_000 });
  document = (await gateway.request({ path: '/openapi.json' })).json;
  ajv.addSchema({ $id: 'openapi', components: document.components });
});

test.after(async () => {
  await gateway?.close();
  await core?.close();
});

/** A schema of the document, validated in the context of its components. */
function validator(schema: unknown) {
  return ajv.compile({ ...(schema as object), components: document.components });
}

test('every request in docs/api.md and the README, and every real answer, matches the document', async () => {
  const requests = [...readmeRequests('docs/api.md'), ...readmeRequests('README.md')];
  assert.ok(requests.length >= 20, `${requests.length} requests in docs/api.md and README.md`);
  // Placeholders of the documents stand for the reader's own values: a reference and a cursor.
  await gateway.request({
    query: { action: 'airtime' },
    keys,
    body: { network: 'mtn', phone: '08031234567', amount: 100 },
  });
  const own = await gateway.request({
    query: { action: 'airtime' },
    keys,
    body: { network: 'mtn', phone: '08031234567', amount: 100 },
  });
  const ownReference = (own.json as { reference: string }).reference;
  const page = await gateway.request({ query: { action: 'transactions', limit: '1' }, keys });
  const ownCursor = (page.json as { next_cursor: string }).next_cursor;
  assert.type(ownCursor, 'string', 'two purchases make a second page');
  // An events cursor names one of the caller's own events, so the page's stands for one of ours.
  const feed = await gateway.request({ query: { action: 'events', limit: '1' }, keys });
  const ownEventsCursor = (feed.json as { next_cursor: string }).next_cursor;

  for (const request of requests) {
    const where = request.where;
    const action = request.query.get('action')!;
    const method = request.body === undefined ? 'get' : 'post';
    const operation = document.paths['/'][method];
    assert.ok(
      operation.parameters[0].schema.enum.includes(action),
      `${where}: ${action} is a documented ${method.toUpperCase()} action`,
    );
    if (request.query.has('reference')) request.query.set('reference', ownReference);
    if (request.query.get('cursor')?.endsWith('...')) request.query.set('cursor', ownCursor);
    if (action === 'events' && request.query.has('cursor')) request.query.set('cursor', ownEventsCursor);

    if (request.body !== undefined) {
      const validate = validator(operation.requestBody.content['application/json'].schema);
      const valid = validate(request.body);
      if (request.expectsError)
        assert.not.ok(valid, `${where}: the documented bad request is refused by the document too`);
      else
        assert.ok(valid, `${where}: the body matches exactly one request schema: ${ajv.errorsText(validate.errors)}`);
    }

    const reply = await gateway.request({
      query: Object.fromEntries(request.query),
      keys,
      headers: Object.fromEntries(
        Object.entries(request.headers).filter(([name]) => !/^X-(Public|Secret)-Key$/.test(name)),
      ),
      ...(request.body === undefined ? {} : { body: JSON.stringify(request.body) }),
    });
    const status = String(reply.status);
    const responseName =
      status === '200' || status === '202' ? document['x-actions'][action].responses[status] : 'Error';
    assert.type(responseName, 'string', `${where}: HTTP ${status} is documented for ${action}: ${reply.text}`);
    assert.ok(operation.responses[status], `${where}: HTTP ${status} is a documented status`);
    const validate = ajv.getSchema(`openapi#/components/schemas/${responseName}`)!;
    assert.ok(
      validate(reply.json),
      `${where}: the answer matches ${responseName}: ${ajv.errorsText(validate.errors)}\n${reply.text.slice(0, 300)}`,
    );
    assert.is(
      request.expectsError,
      reply.status >= 400,
      `${where}: HTTP ${status} as the document shows: ${reply.text.slice(0, 200)}`,
    );
  }
});

test('public endpoints need no keys in the document', () => {
  assert.equal(document.paths['/healthz'].get.security, []);
  assert.equal(document.paths['/openapi.json'].get.security, []);
  assert.ok(document.paths['/'].get.security.length > 0, 'the API itself needs the key pair');
});

test.run();
