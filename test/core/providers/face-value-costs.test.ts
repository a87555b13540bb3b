/**
 * Costs of the products sold at face value (airtime, electricity, cable), against the fake
 * VTpass through the real gateway and core: the operator sets VTpass's commission with
 * `prepaid pricing costs set`, the margin guard refuses a sale whose price (face value less
 * the tier's discount) is below face value less that commission, before any debit or call,
 * and tells the operator; a rule for one network, disco or provider wins over the
 * product-wide one; every change is audited.
 */
import * as assert from 'uvu/assert';
import { Mode } from '../../../gen/prepaid/v1/types_pb.js';
import { runJson } from '../../cli/run.js';
import { startVtpassStack, stateCommissionSet, type VtpassStack } from '../../helpers/fake-vtpass.js';
import type { Reply } from '../../helpers/gateway.js';
import { suite } from '../../helpers/suite.js';

type Account = { accountId: string; publicKey: string; secretKey: string };

const test = suite<{ stack: VtpassStack; a: Account }>('costs of airtime, electricity and cable');

/** The fake's sandbox values that VTpass delivers (VTpass's documentation). */
const PHONE = '08011111111';
const METER = '1111111111111';
const CARD = '1212121212';

test.before(async (ctx) => {
  ctx.stack = await startVtpassStack();
  ctx.a = await ctx.stack.core.createApiAccount({ balanceKobo: 100_000_00 });
});

test.after(async ({ stack }) => {
  await stack.close();
});

function buy(stack: VtpassStack, account: Account, action: string, body: Record<string, unknown>): Promise<Reply> {
  return stack.gateway.request({
    query: { action },
    keys: { publicKey: account.publicKey, secretKey: account.secretKey },
    body,
  });
}

async function costs(stack: VtpassStack, ...args: string[]) {
  const run = await runJson(stack.core, ['pricing', 'costs', ...args]);
  assert.is(run.code, 0, run.stderr);
  if (args[0] === 'set') stateCommissionSet(stack.fake, args.slice(1));
  return run.json;
}

async function balanceOf(stack: VtpassStack, account: Account): Promise<bigint> {
  return (await stack.core.admin.getAccount({ accountId: account.accountId })).account!.balanceKobo;
}

/** A refusal for cost: 422 PRICE_BELOW_COST, nothing debited, nothing sent to VTpass, the operator told. */
async function assertRefusedBelowCost(
  stack: VtpassStack,
  account: Account,
  sale: { action: string; body: Record<string, unknown>; recipient: string; product: string },
): Promise<void> {
  const before = await balanceOf(stack, account);
  const pays = stack.fake.paysFor(sale.recipient).length;
  const warns = stack.coreLog.filter((line) => line.includes('"event":"pricing.below_cost"')).length;
  const refused = await buy(stack, account, sale.action, sale.body);
  assert.is(refused.status, 422, refused.text);
  assert.is(refused.json.code, 'PRICE_BELOW_COST');
  assert.match(refused.json.message, new RegExp(`^This ${sale.product} purchase cannot be sold at your price`));
  assert.is(await balanceOf(stack, account), before, 'nothing was debited');
  assert.is(stack.fake.paysFor(sale.recipient).length, pays, 'nothing was sent to VTpass');
  const warned = stack.coreLog.filter((line) => line.includes('"event":"pricing.below_cost"')).slice(warns);
  assert.is(warned.length, 1);
  const line = JSON.parse(warned[0]!) as Record<string, unknown>;
  assert.equal([line['level'], line['product'], line['upstream']], ['warn', sale.product, 'vtpass']);
}

test('without a cost rule, airtime sells at face value less the tier discount, unguarded', async ({ stack, a }) => {
  const listed = await costs(stack, 'list');
  assert.equal(listed['rules'], []);
  const sale = await buy(stack, a, 'airtime', { network: 'mtn', phone: PHONE, amount: 1000 });
  assert.is(sale.status, 200, sale.text);
  assert.is(sale.json.charged, 970, 'the API tier pays 3% less for MTN airtime');
});

test('airtime below face value less the commission is refused; a larger commission lets it through', async ({
  stack,
  a,
}) => {
  // VTpass gives 2.5% on MTN airtime: it costs 975 for 1,000, and the API tier pays 970.
  const set = await costs(
    stack,
    'set',
    'airtime',
    '--network',
    'mtn',
    '--upstream',
    'vtpass',
    '--commission-percent',
    '2.5',
  );
  assert.equal([set['service'], set['commission_percent'], set['changed']], ['mtn', 2.5, true]);
  await assertRefusedBelowCost(stack, a, {
    action: 'airtime',
    body: { network: 'mtn', phone: PHONE, amount: 1000 },
    recipient: PHONE,
    product: 'airtime',
  });
  // Glo has no rule of its own and there is no product-wide one: not guarded.
  const glo = await buy(stack, a, 'airtime', { network: 'glo', phone: PHONE, amount: 1000 });
  assert.is(glo.status, 200, glo.text);

  await costs(stack, 'set', 'airtime', '--network', 'mtn', '--upstream', 'vtpass', '--commission-percent', '3.5');
  const sale = await buy(stack, a, 'airtime', { network: 'mtn', phone: PHONE, amount: 1000 });
  assert.is(sale.status, 200, sale.text);
  assert.is(sale.json.charged, 970);

  const audit = await stack.core.store.auditLog.list({ action: 'prices.commission', limit: 10 });
  assert.equal(
    audit.map((row) => [row.actor, row.target]),
    [
      ['cli', 'airtime/mtn/vtpass'],
      ['cli', 'airtime/mtn/vtpass'],
    ],
  );
  assert.equal(JSON.parse(audit[0]!.before!), {
    product: 'airtime',
    service: 'mtn',
    upstream: 'vtpass',
    commissionBasisPoints: 250,
  });
  assert.is(JSON.parse(audit[0]!.after!).commissionBasisPoints, 350);
});

test('t2 is 9mobile: a rule set for t2 guards 9mobile airtime bought by either name', async ({ stack, a }) => {
  // The API tier has 4% off 9mobile; a 5% commission makes it 950 against a price of 960, which
  // is fine; 3% makes the cost 970, above the price.
  const set = await costs(
    stack,
    'set',
    'airtime',
    '--network',
    't2',
    '--upstream',
    'vtpass',
    '--commission-percent',
    '3',
  );
  assert.is(set['service'], '9mobile');
  for (const network of ['t2', '9mobile'])
    await assertRefusedBelowCost(stack, a, {
      action: 'airtime',
      body: { network, phone: PHONE, amount: 1000 },
      recipient: PHONE,
      product: 'airtime',
    });
  const removed = await costs(stack, 'set', 'airtime', '--network', '9mobile', '--upstream', 'vtpass', '--remove');
  assert.is(removed['changed'], true);
  const sale = await buy(stack, a, 'airtime', { network: 't2', phone: PHONE, amount: 1000 });
  assert.is(sale.status, 200, sale.text);
});

test('electricity: a disco rule wins over the product-wide one', async ({ stack, a }) => {
  // The API tier has 0.5% off electricity. Product-wide VTpass gives 0.3%: every disco is
  // below cost; Ikeja gives 1%, so Ikeja sells.
  await costs(stack, 'set', 'electricity', '--upstream', 'vtpass', '--commission-percent', '0.3');
  await costs(stack, 'set', 'electricity', '--disco', 'ikedc', '--upstream', 'vtpass', '--commission-percent', '1');
  const body = { meter_number: METER, meter_type: 'prepaid', amount: 5000, phone: PHONE };
  const verifies = () => stack.fake.calls.filter((c) => c.path === '/api/merchant-verify').length;
  const verifiesBefore = verifies();
  await assertRefusedBelowCost(stack, a, {
    action: 'electricity',
    body: { ...body, disco: 'ekedc' },
    recipient: METER,
    product: 'electricity',
  });
  assert.is(verifies(), verifiesBefore, 'a sale refused for cost does not look the meter up');
  const ikeja = await buy(stack, a, 'electricity', { ...body, disco: 'ikedc' });
  assert.is(ikeja.status, 200, ikeja.text);
  assert.is(ikeja.json.charged, 4975);
});

test('cable: the cost is the package price less the commission, per provider', async ({ stack, a }) => {
  // 1% off for the API tier; DStv at 0.5% commission is below cost, GOtv has no rule.
  await costs(stack, 'set', 'cable', '--provider', 'dstv', '--upstream', 'vtpass', '--commission-percent', '0.5');
  await assertRefusedBelowCost(stack, a, {
    action: 'cable',
    body: { provider: 'dstv', smart_card: CARD, package_code: 'DSTV PADI' },
    recipient: CARD,
    product: 'cable',
  });
  await costs(stack, 'set', 'cable', '--provider', 'dstv', '--upstream', 'vtpass', '--commission-percent', '1.5');
  const sale = await buy(stack, a, 'cable', { provider: 'dstv', smart_card: CARD, package_code: 'DSTV PADI' });
  assert.is(sale.status, 200, sale.text);

  const listed = await costs(stack, 'list');
  assert.equal(listed['rules'], [
    { product: 'airtime', service: 'mtn', upstream: 'vtpass', commission_percent: 3.5 },
    { product: 'cable', service: 'dstv', upstream: 'vtpass', commission_percent: 1.5 },
    { product: 'electricity', service: null, upstream: 'vtpass', commission_percent: 0.3 },
    { product: 'electricity', service: 'ikedc', upstream: 'vtpass', commission_percent: 1 },
  ]);
});

test('a bad rule is refused by the core with the field named, and nothing is written', async ({ stack }) => {
  const cases: Array<[string[], RegExp]> = [
    [['set', 'data', '--upstream', 'vtpass', '--commission-percent', '2'], /product must be one of airtime/],
    [['set', 'airtime', '--network', 'etisalat', '--upstream', 'vtpass', '--commission-percent', '2'], /network/],
    [['set', 'electricity', '--disco', 'lagos', '--upstream', 'vtpass', '--commission-percent', '2'], /disco/],
    [['set', 'cable', '--upstream', 'vtpass', '--commission-percent', '60'], /0 to 50 percent/],
    [['set', 'cable', '--upstream', 'Not An Upstream', '--commission-percent', '2'], /upstream/],
  ];
  const before = (await stack.core.store.catalog.listCostRules()).length;
  for (const [args, message] of cases) {
    const run = await runJson(stack.core, ['pricing', 'costs', ...args]);
    assert.is.not(run.code, 0, args.join(' '));
    assert.match(run.stderr + JSON.stringify(run.json), message, args.join(' '));
  }
  const usage = await runJson(stack.core, ['pricing', 'costs', 'set', 'airtime', '--network', 'mtn', '--disco', 'x']);
  assert.is(usage.code, 2, 'two scopes at once is a usage error');
  assert.is((await stack.core.store.catalog.listCostRules()).length, before);
});

test('test-mode sales are served by the sandbox, which has no commission rule, so are not refused for cost', async ({
  stack,
  a,
}) => {
  const testKeys = await stack.core.admin.createApiKey({ accountId: a.accountId, mode: Mode.TEST });
  await stack.core.admin.creditWallet({
    accountId: a.accountId,
    amountKobo: 10_000_00n,
    memo: 'test',
    mode: Mode.TEST,
  });
  const sale = await stack.gateway.request({
    query: { action: 'airtime' },
    keys: { publicKey: testKeys.issuedKey!.publicKey, secretKey: testKeys.issuedKey!.secretKey },
    body: { network: 'mtn', phone: PHONE, amount: 1000 },
  });
  assert.is(sale.status, 200, sale.text);
});

test('a tier discount may name t2: it is kept as 9mobile and prices t2 airtime', async ({ stack, a }) => {
  const api = (await stack.core.admin.listTiers({})).tiers.find((t) => t.tierId === 'api')!;
  const discounts = api.discounts.map((d) => (d.service === '9mobile' ? { ...d, service: 't2', basisPoints: 100 } : d));
  const written = await stack.core.admin.upsertTier({ tier: { ...api, discounts } });
  assert.ok(written.tier!.discounts.some((d) => d.service === '9mobile' && d.basisPoints === 100));
  assert.not.ok(written.tier!.discounts.some((d) => d.service === 't2'));
  const sale = await buy(stack, a, 'airtime', { network: 't2', phone: PHONE, amount: 1000 });
  assert.is(sale.status, 200, sale.text);
  assert.is(sale.json.charged, 990);
});

test.run();
