/**
 * Tier price rules for airtime, electricity and cable, through the real
 * gateway and core with the fake VTpass: a rule prices a sale at its cost (face value less
 * VTpass's commission) plus a margin, never above face value unless the rule allows it; a
 * cost change moves the price at once; without a rule the tier discount still applies; every
 * rule change is audited; `?action=packages` shows the price a cable rule makes.
 */
import * as assert from 'uvu/assert';
import { runJson } from '../../cli/run.js';
import { startVtpassStack, stateCommissionSet, type VtpassStack } from '../../helpers/fake-vtpass.js';
import type { Reply } from '../../helpers/gateway.js';
import { suite } from '../../helpers/suite.js';

type Account = { accountId: string; publicKey: string; secretKey: string };

const test = suite<{ stack: VtpassStack; a: Account }>('tier price rules over the commissions');

/** The fake's sandbox numbers that VTpass delivers (VTpass's documentation). */
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

async function cli(stack: VtpassStack, ...args: string[]) {
  const run = await runJson(stack.core, ['pricing', ...args]);
  assert.is(run.code, 0, run.stderr);
  if (args[0] === 'costs' && args[1] === 'set') stateCommissionSet(stack.fake, args.slice(2));
  return run.json;
}

async function balanceOf(stack: VtpassStack, account: Account): Promise<bigint> {
  return (await stack.core.admin.getAccount({ accountId: account.accountId })).account!.balanceKobo;
}

test('an airtime rule prices over cost, and a cost change moves the price', async ({ stack, a }) => {
  // No rule yet: the API tier's 3% discount on MTN airtime.
  assert.is((await buy(stack, a, 'airtime', { network: 'mtn', phone: PHONE, amount: 1000 })).json.charged, 970);

  await cli(stack, 'costs', 'set', 'airtime', '--network', 'mtn', '--upstream', 'vtpass', '--commission-percent', '3');
  const set = await cli(stack, 'rule', 'api', '--product', 'airtime', '--network', 'mtn', '--margin-percent', '1');
  const rules = set['rules'] as Record<string, unknown>[];
  assert.equal(
    rules.map((r) => [r['product'], r['service'], r['margin_percent']]),
    [['airtime', 'mtn', 1]],
  );
  // Cost 970 (1,000 less 3%), plus 1% of it (9.70): 979.70.
  const before = await balanceOf(stack, a);
  const sale = await buy(stack, a, 'airtime', { network: 'mtn', phone: PHONE, amount: 1000 });
  assert.is(sale.status, 200, sale.text);
  assert.is(sale.json.charged, 979.7);
  assert.is(before - (await balanceOf(stack, a)), 97_970n, 'the wallet paid the rule price');

  // VTpass's commission falls to 2%: the cost is 980, the price 989.80.
  await cli(stack, 'costs', 'set', 'airtime', '--network', 'mtn', '--upstream', 'vtpass', '--commission-percent', '2');
  const dearer = await buy(stack, a, 'airtime', { network: 'mtn', phone: PHONE, amount: 1000 });
  assert.is(dearer.status, 200, dearer.text);
  assert.is(dearer.json.charged, 989.8);

  // 1% of 333.33 Naira's cost is rounded down to the kobo, in the holder's favour.
  const odd = await buy(stack, a, 'airtime', { network: 'mtn', phone: PHONE, amount: 333 });
  // Cost: 33300 - floor(666) = 32634 kobo; margin floor(326.34) = 326; price 32960 kobo.
  assert.is(odd.json.charged, 329.6);

  // Glo has no rule: its discount (5%) still prices it.
  assert.is((await buy(stack, a, 'airtime', { network: 'glo', phone: PHONE, amount: 1000 })).json.charged, 950);

  const audit = await stack.core.store.auditLog.list({ action: 'prices.rule', limit: 10 });
  assert.equal(
    audit.map((row) => [row.actor, row.target]),
    [['cli', 'tier:api/airtime/mtn']],
  );
  assert.match(audit[0]!.after ?? '', /"marginBasisPoints":100/);
});

test('the face value is the ceiling unless the rule allows more', async ({ stack, a }) => {
  await cli(stack, 'costs', 'set', 'electricity', '--upstream', 'vtpass', '--commission-percent', '1');
  // Cost 1,980 for 2,000 Naira, plus 50 Naira: 2,030, lowered to the face value.
  await cli(stack, 'rule', 'api', '--product', 'electricity', '--margin-naira', '50');
  const capped = await buy(stack, a, 'electricity', {
    disco: 'ikedc',
    meter_number: METER,
    meter_type: 'prepaid',
    amount: 2000,
  });
  assert.is(capped.status, 200, capped.text);
  assert.is(capped.json.charged, 2000);

  await cli(stack, 'rule', 'api', '--product', 'electricity', '--margin-naira', '50', '--above-face-value');
  const above = await buy(stack, a, 'electricity', {
    disco: 'ikedc',
    meter_number: METER,
    meter_type: 'prepaid',
    amount: 2000,
  });
  assert.is(above.status, 200, above.text);
  assert.is(above.json.charged, 2030);
});

test('a cable rule is the price ?action=packages shows and the sale charges', async ({ stack, a }) => {
  await cli(
    stack,
    'costs',
    'set',
    'cable',
    '--provider',
    'startimes',
    '--upstream',
    'vtpass',
    '--commission-percent',
    '2',
  );
  await cli(stack, 'rule', 'api', '--product', 'cable', '--provider', 'startimes', '--margin-percent', '1');
  const packages = await stack.gateway.request({
    query: { action: 'packages', provider: 'startimes' },
    keys: { publicKey: a.publicKey, secretKey: a.secretKey },
  });
  assert.is(packages.status, 200, packages.text);
  const listed = packages.json.packages as { package_code: string; price: number }[];
  // Nova: 1,200 Naira less 2% is 1,176; plus 1% of it (11.76): 1,187.76.
  const nova = listed.find((p) => p.package_code === 'nova');
  assert.is(nova?.price, 1187.76, packages.text);
  const sale = await buy(stack, a, 'cable', { provider: 'startimes', smart_card: CARD, package_code: 'nova' });
  assert.is(sale.status, 200, sale.text);
  assert.is(sale.json.charged, 1187.76);
});

test('bad rules are refused with the field named', async ({ stack }) => {
  const bad = await runJson(stack.core, ['pricing', 'rule', 'api', '--product', 'electricity', '--disco', 'nowhere']);
  assert.is.not(bad.code, 0);
  assert.match(bad.stderr, /disco must be one of/);
  const wrong = await runJson(stack.core, ['pricing', 'rule', 'api', '--above-face-value']);
  assert.is.not(wrong.code, 0);
  assert.match(wrong.stderr, /above_face_value is for airtime, electricity and cable/);
});

test.run();
