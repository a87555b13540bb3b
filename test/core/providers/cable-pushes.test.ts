/**
 * VTpass `variations-update` pushes for cable bouquets, against the fake VTpass through the
 * real gateway and core: the bouquets are read again from VTpass, prices follow, a new
 * bouquet goes on sale, a bouquet VTpass stopped selling is withdrawn (422 saying so) and
 * comes back when listed again; every change is audited; a list that shares no code with
 * the bouquets on sale changes nothing; a list that cannot be read asks VTpass to push again.
 */
import * as assert from 'uvu/assert';
import { type FakeVariation, startVtpassStack, type VtpassStack } from '../../helpers/fake-vtpass.js';
import type { Reply } from '../../helpers/gateway.js';
import { suite } from '../../helpers/suite.js';

type Account = { accountId: string; publicKey: string; secretKey: string };

const test = suite<{ stack: VtpassStack; a: Account }>('cable bouquet pushes');

const CARD = '1212121212';
/** Our DStv package codes (the default catalogue) and the codes VTpass sells them by. */
const DSTV_CODES: ReadonlyArray<readonly [string, string]> = [
  ['DSTV PADI', 'dstv-padi'],
  ['DSTV YANGA', 'dstv-yanga'],
  ['DSTV CONFAM', 'dstv-confam'],
  ['DSTV COMPACT', 'dstv79'],
  ['DSTV PREMIUM', 'dstv3'],
];

const variation = (code: string, name: string, naira: string): FakeVariation => ({
  variation_code: code,
  name,
  variation_amount: naira,
  fixedPrice: 'Yes',
});

test.before(async (ctx) => {
  ctx.stack = await startVtpassStack();
  ctx.a = await ctx.stack.core.createApiAccount({ balanceKobo: 100_000_00 });
  // The operator maps our DStv codes to VTpass's before following its pushes.
  const { packages } = await ctx.stack.core.admin.listCablePackages({ provider: 'dstv' });
  for (const [packageCode, providerCode] of DSTV_CODES) {
    const pkg = packages.find((p) => p.packageCode === packageCode)!;
    await ctx.stack.core.admin.upsertCablePackage({ package: { ...pkg, providerCode } });
  }
});

test.after(async ({ stack }) => {
  await stack.close();
});

function push(
  stack: VtpassStack,
  serviceID: string,
  codes: Parameters<VtpassStack['fake']['variationsUpdateBody']>[1],
) {
  return stack.gateway.request({
    path: `/callbacks/vtpass/${stack.callbackSecret}`,
    method: 'POST',
    body: stack.fake.variationsUpdateBody(serviceID, codes),
  });
}

async function listed(stack: VtpassStack, account: Account, provider: string): Promise<Map<string, number>> {
  const reply = await stack.gateway.request({
    query: { action: 'packages', provider },
    keys: { publicKey: account.publicKey, secretKey: account.secretKey },
  });
  assert.is(reply.status, 200, reply.text);
  const packages = (reply.json as { packages: Array<{ package_code: string; price: number }> }).packages;
  return new Map(packages.map((p) => [p.package_code, p.price]));
}

function buy(stack: VtpassStack, account: Account, packageCode: string): Promise<Reply> {
  return stack.gateway.request({
    query: { action: 'cable' },
    keys: { publicKey: account.publicKey, secretKey: account.secretKey },
    body: { provider: 'dstv', smart_card: CARD, package_code: packageCode, subscription_type: 'change' },
  });
}

test('a push re-prices, adds and withdraws DStv bouquets as VTpass lists them, audited', async ({ stack, a }) => {
  stack.fake.variations.set('dstv', [
    variation('dstv-padi', 'DStv Padi N2,950', '2950.00'),
    variation('dstv-confam', 'DStv Confam N9,000', '9000.00'),
    variation('dstv79', 'DStv Compact N15,700', '15700.00'),
    variation('dstv3', 'DStv Premium N29,500', '29500.00'),
    variation('dstv-prima', 'DStv Prima N5,000', '5000.00'),
    variation('dstv-free', 'DStv Free', '0.00'),
  ]);
  const reads = () => stack.fake.calls.filter((c) => c.path.includes('service-variations')).length;
  const readsBefore = reads();
  const reply = await push(stack, 'dstv', { added: ['dstv-prima'], updated: ['dstv-padi'], removed: ['dstv-yanga'] });
  assert.is(reply.status, 200, reply.text);
  assert.equal(reply.json, { response: 'success' });
  assert.is(reads(), readsBefore + 1, 'the push is a hint: the list is read again from VTpass');

  const prices = await listed(stack, a, 'dstv');
  // The API tier pays 1% less than the package price.
  assert.is(prices.get('DSTV PADI'), 2920.5, 'the new price, less the tier discount');
  assert.is(prices.get('DSTV CONFAM'), 8910, 'unchanged');
  assert.is(prices.get('dstv-prima'), 4950, 'a new bouquet is on sale');
  assert.not.ok(prices.has('DSTV YANGA'), 'a withdrawn bouquet is not listed');
  assert.not.ok(prices.has('dstv-free'), 'a bouquet listed without a price is never put on sale');

  const sale = await buy(stack, a, 'DSTV PADI');
  assert.is(sale.status, 200, sale.text);
  assert.is(sale.json.charged, 2920.5);
  const pay = stack.fake.paysFor(CARD).at(-1)!;
  assert.equal([pay.body?.['variation_code'], pay.body?.['amount']], ['dstv-padi', 2950]);

  const pays = stack.fake.paysFor(CARD).length;
  const withdrawn = await buy(stack, a, 'DSTV YANGA');
  assert.is(withdrawn.status, 422, withdrawn.text);
  assert.is(withdrawn.json.code, 'INVALID_PARAMETER');
  assert.match(withdrawn.json.message, /DSTV YANGA.*\(DStv Yanga\) is no longer sold by dstv/);
  assert.is(stack.fake.paysFor(CARD).length, pays, 'nothing was sent to VTpass');

  const audit = await stack.core.store.auditLog.list({ action: 'cable.packages_follow', limit: 5 });
  assert.is(audit.length, 1);
  assert.equal([audit[0]!.actor, audit[0]!.target], ['system', 'vtpass/dstv']);
  assert.match(audit[0]!.note, /variations-update/);
  const after = JSON.parse(audit[0]!.after!) as Array<{ action: string; packageCode: string; priceKobo: number }>;
  assert.equal(
    after.map((c) => [c.action, c.packageCode, c.priceKobo]),
    [
      ['repriced', 'DSTV PADI', 2950_00],
      ['withdrawn', 'DSTV YANGA', 3500_00],
      ['created', 'dstv-prima', 5000_00],
    ],
  );
});

test('a bouquet listed again is back on sale; a push that changes nothing writes nothing', async ({ stack, a }) => {
  const list = stack.fake.variations.get('dstv')!;
  stack.fake.variations.set('dstv', [...list, variation('dstv-yanga', 'DStv Yanga N3,500', '3500.00')]);
  const reply = await push(stack, 'dstv', { added: ['dstv-yanga'] });
  assert.is(reply.status, 200, reply.text);
  assert.is((await listed(stack, a, 'dstv')).get('DSTV YANGA'), 3465);
  assert.is((await buy(stack, a, 'DSTV YANGA')).status, 200);

  const again = await push(stack, 'dstv', {});
  assert.is(again.status, 200, again.text);
  const audit = await stack.core.store.auditLog.list({ action: 'cable.packages_follow', limit: 5 });
  assert.is(audit.length, 2, 'one row for the restore, none for the push that changed nothing');
});

test('a list that shares no code with the bouquets on sale changes nothing and warns the operator', async ({
  stack,
  a,
}) => {
  // Our GOtv packages have no provider codes, and VTpass lists its own.
  stack.fake.variations.set('gotv', [variation('gotv-max', 'GOtv Max N5,500', '5500.00')]);
  const before = await listed(stack, a, 'gotv');
  const reply = await push(stack, 'gotv', { updated: ['gotv-max'] });
  assert.is(reply.status, 200, reply.text);
  assert.equal(await listed(stack, a, 'gotv'), before);
  assert.ok(stack.coreLog.some((line) => line.includes('"event":"catalog.cable_follow_skipped"')));
});

test('a list VTpass cannot give asks for the push again and changes nothing', async ({ stack, a }) => {
  // The fake has no StarTimes list: service-variations answers 012.
  stack.fake.variations.delete('startimes');
  const before = await listed(stack, a, 'startimes');
  const reply = await push(stack, 'startimes', { updated: ['nova'] });
  assert.is(reply.status, 503, reply.text);
  assert.equal(await listed(stack, a, 'startimes'), before);
});

test.run();
