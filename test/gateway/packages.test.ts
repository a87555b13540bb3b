/**
 * GET ?action=packages: the cable TV packages a partner can buy, at the price it pays, with
 * the package_code a cable purchase names; the price listed is the price charged.
 */
import * as assert from 'uvu/assert';
import { startCore, type TestCore } from '../helpers/core.js';
import { type ApiKeys, startTestGateway, type TestGateway } from '../helpers/gateway.js';
import { suite } from '../helpers/suite.js';
import { assertError } from './fields.js';

const test = suite('?action=packages');
let core: TestCore;
let gateway: TestGateway;
let keys: ApiKeys;

test.before(async () => {
  core = await startCore();
  gateway = await startTestGateway(core);
  keys = await core.createApiAccount({ balanceKobo: 100_000_00 });
});

test.after(async () => {
  await gateway?.close();
  await core?.close();
});

interface Listed {
  provider: string;
  package_code: string;
  package: string;
  price: number;
}

test("every active package of every provider, with its code and this account's price", async () => {
  const reply = await gateway.request({ query: { action: 'packages' }, keys });
  assert.is(reply.status, 200, reply.text);
  const listed = (reply.json as { packages: Listed[] }).packages;
  assert.equal([...new Set(listed.map((p) => p.provider))].sort(), ['dstv', 'gotv', 'startimes']);
  for (const pkg of listed) {
    assert.ok(pkg.package_code.trim().length > 0, 'a code to name in a cable purchase');
    assert.ok(pkg.package.length > 0 && pkg.price > 0, JSON.stringify(pkg));
  }
});

test('the listed price is what a cable purchase charges', async () => {
  const reply = await gateway.request({ query: { action: 'packages', provider: 'gotv' }, keys });
  const listed = (reply.json as { packages: Listed[] }).packages;
  assert.ok(listed.length > 0 && listed.every((p) => p.provider === 'gotv'));
  const first = listed[0]!;
  const bought = await gateway.request({
    method: 'POST',
    query: { action: 'cable' },
    keys,
    body: { provider: 'gotv', smart_card: '1234567890', package_code: first.package_code },
  });
  assert.is(bought.status, 200, bought.text);
  assert.is((bought.json as { charged: number }).charged, first.price);
});

test('an unknown provider is a 422 naming the field', async () => {
  const reply = await gateway.request({ query: { action: 'packages', provider: 'showmax' }, keys });
  assertError(reply, 422, 'INVALID_PARAMETER', { errors: 'array' });
  assert.equal(
    (reply.json as { errors: { field: string }[] }).errors.map((e) => e.field),
    ['provider'],
  );
});

test.run();
