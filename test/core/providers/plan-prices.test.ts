/**
 * Plans as the market sells them, against the fake VTpass: types, sizes and days in
 * ?action=plans; cost-plus prices that follow a VTpass variations-update push; the margin
 * guard; a plan type switched off; and the plan.updated / plan.disabled events partners get,
 * once per change per account, in the feed.
 */
import * as assert from 'uvu/assert';
import { createCoreMetrics, createOutcomeRecorder } from '../../../core/metrics.js';
import { runJson } from '../../cli/run.js';
import { startVtpassStack, type VtpassStack } from '../../helpers/fake-vtpass.js';
import type { Reply } from '../../helpers/gateway.js';
import { suite } from '../../helpers/suite.js';

type Keys = { publicKey: string; secretKey: string };
type Account = Keys & { accountId: string };

const test = suite<{ stack: VtpassStack; a: Account; b: Account; planId: number }>('plan types and cost-plus prices');

/** The fake's "N200 200MB - 2 days" MTN plan, whose price the push raises. */
const CODE = 'mtn-50mb-200';

test.before(async (ctx) => {
  ctx.stack = await startVtpassStack();
  const sync = await runJson(ctx.stack.core, ['plans', 'sync']);
  assert.is(sync.code, 0, sync.stderr);
  ctx.a = await ctx.stack.core.createApiAccount({ balanceKobo: 10_000_00 });
  ctx.b = await ctx.stack.core.createApiAccount({ balanceKobo: 10_000_00 });
  const { plans } = await ctx.stack.core.admin.listCatalogPlans({ network: 'mtn' });
  ctx.planId = Number(plans.find((p) => p.providerCode === CODE)!.planId);
});

test.after(async ({ stack }) => {
  await stack.close();
});

function keysOf(account: Account): Keys {
  return { publicKey: account.publicKey, secretKey: account.secretKey };
}

async function plansOf(stack: VtpassStack, account: Account, query: Record<string, string> = {}): Promise<Reply> {
  return stack.gateway.request({ query: { action: 'plans', ...query }, keys: keysOf(account) });
}

/** Every plan event in the account's feed, oldest first. */
async function planEvents(
  stack: VtpassStack,
  account: Account,
): Promise<Array<{ type: string; plan: Record<string, unknown> }>> {
  const reply = await stack.gateway.request({ query: { action: 'events', limit: '100' }, keys: keysOf(account) });
  assert.is(reply.status, 200, reply.text);
  return (reply.json.events as Array<{ type: string; data: { plan: Record<string, unknown> } }>)
    .filter((e) => e.type.startsWith('plan.'))
    .map((e) => ({ type: e.type, plan: e.data.plan }));
}

function buy(stack: VtpassStack, account: Account, planId: number): Promise<Reply> {
  return stack.gateway.request({
    query: { action: 'data' },
    keys: keysOf(account),
    body: { plan_id: planId, phone: '08011111111' },
  });
}

test('?action=plans gives every plan its type, size in MB and validity in days, and filters by type', async ({
  stack,
  a,
  planId,
}) => {
  const all = await plansOf(stack, a, { network: 'mtn' });
  assert.is(all.status, 200, all.text);
  const plan = (all.json.plans as Array<Record<string, unknown>>).find((p) => p['plan_id'] === planId)!;
  // "N200 200MB - 2 days": no type word, so direct (VTpass's data variations are retail bundles).
  assert.equal(
    { type: plan['type'], size_mb: plan['size_mb'], validity_days: plan['validity_days'] },
    { type: 'direct', size_mb: 200, validity_days: 2 },
  );
  // The seeded catalogue carries real values: plan 1 is MTN SME 500MB for 7 days.
  const seeded = (all.json.plans as Array<Record<string, unknown>>).find((p) => p['plan_id'] === 1)!;
  assert.equal([seeded['type'], seeded['size_mb'], seeded['validity_days']], ['sme', 500, 7]);

  const sme = await plansOf(stack, a, { network: 'mtn', type: 'sme' });
  assert.ok((sme.json.plans as unknown[]).length > 0);
  assert.ok((sme.json.plans as Array<Record<string, unknown>>).every((p) => p['type'] === 'sme'));
  const bad = await plansOf(stack, a, { type: 'premium' });
  assert.is(bad.status, 422);
  assert.is(bad.json.code, 'INVALID_PARAMETER');
});

test('a cost and a cost-plus rule set the price; only the plan whose price moved is announced', async ({
  stack,
  a,
  b,
  planId,
}) => {
  const cost = await runJson(stack.core, ['pricing', 'cost', String(planId), '190', '--upstream', 'vtpass']);
  assert.is(cost.code, 0, cost.stderr);
  // No rule yet: the API tier still pays the face value less its 3% data discount.
  assert.is(cost.json['events'], 0);
  const rule = await runJson(stack.core, ['pricing', 'rule', 'api', '--network', 'mtn', '--margin-percent', '5']);
  assert.is(rule.code, 0, rule.stderr);
  const plans = await plansOf(stack, a, { network: 'mtn' });
  const priced = (plans.json.plans as Array<Record<string, unknown>>).find((p) => p['plan_id'] === planId)!;
  assert.is(priced['price'], 199.5, '190 plus 5%');
  for (const account of [a, b]) {
    const events = await planEvents(stack, account);
    assert.equal(
      events.map((e) => [e.type, e.plan['plan_id'], e.plan['price']]),
      [['plan.updated', planId, 199.5]],
      'one event, for the one plan that has a cost (the others keep their price)',
    );
    assert.equal(events[0]!.plan, priced, 'the event carries the plan exactly as ?action=plans shows it');
  }
});

test('a variations-update push raises the cost, the price follows, partners told once, the old price gone', async ({
  stack,
  a,
  b,
  planId,
}) => {
  const mtn = stack.fake.variations.get('mtn-data')!;
  stack.fake.variations.set(
    'mtn-data',
    mtn.map((v) => (v.variation_code === CODE ? { ...v, variation_amount: '300.00' } : v)),
  );
  const before = { a: (await planEvents(stack, a)).length, b: (await planEvents(stack, b)).length };
  const reads = () => stack.fake.calls.filter((c) => c.path.includes('service-variations')).length;
  const readsBefore = reads();
  const push = await stack.gateway.request({
    path: `/callbacks/vtpass/${stack.callbackSecret}`,
    method: 'POST',
    body: stack.fake.variationsUpdateBody('mtn-data', { updated: [CODE] }),
  });
  assert.is(push.status, 200, push.text);
  assert.equal(push.json, { response: 'success' });
  // The push was taken as a hint: the list was read again from VTpass.
  assert.is(reads(), readsBefore + 1);

  const catalog = (await stack.core.admin.listCatalogPlans({ network: 'mtn' })).plans.find(
    (p) => Number(p.planId) === planId,
  )!;
  assert.is(catalog.faceValueKobo, 300_00n);
  assert.equal(
    catalog.costs.map((c) => [c.upstream, c.costKobo]),
    [['vtpass', 285_00n]],
    'the known cost moves with the list price: 190 x 300/200',
  );
  for (const [account, seen] of [
    [a, before.a],
    [b, before.b],
  ] as const) {
    const fresh = (await planEvents(stack, account)).slice(seen);
    assert.equal(
      fresh.map((e) => [e.type, e.plan['plan_id'], e.plan['price']]),
      [['plan.updated', planId, 299.25]],
      'exactly one plan.updated, for the plan whose price changed: 285 plus 5%',
    );
  }
  const audit = await stack.core.store.auditLog.list({ action: 'plans.sync', limit: 10 });
  assert.ok(
    audit.some((row) => row.actor === 'system' && row.target === 'vtpass/mtn' && /variations-update/.test(row.note)),
  );

  // A sale after the push is charged the new price, never the old one.
  const sale = await buy(stack, a, planId);
  assert.is(sale.status, 200, sale.text);
  assert.is(sale.json.charged, 299.25);
});

test('the margin guard refuses a sale priced below cost with 422 PRICE_BELOW_COST, before any debit', async ({
  stack,
  a,
  planId,
}) => {
  const ceiling = await runJson(stack.core, [
    'pricing',
    'rule',
    'api',
    '--network',
    'mtn',
    '--margin-percent',
    '5',
    '--ceiling',
    '250',
  ]);
  assert.is(ceiling.code, 0, ceiling.stderr);
  const balance = async () => (await stack.core.admin.getAccount({ accountId: a.accountId })).account!.balanceKobo;
  const pays = stack.fake.paysFor('08011111111').length;
  const before = await balance();
  const refused = await buy(stack, a, planId);
  assert.is(refused.status, 422, refused.text);
  assert.is(refused.json.code, 'PRICE_BELOW_COST');
  assert.is(await balance(), before, 'nothing was debited');
  assert.is(stack.fake.paysFor('08011111111').length, pays, 'nothing was sent to VTpass');
  assert.ok(
    stack.coreLog.some((line) => line.includes('"event":"pricing.below_cost"') && line.includes('"level":"warn"')),
    'an operator is told',
  );
  const restore = await runJson(stack.core, ['pricing', 'rule', 'api', '--network', 'mtn', '--margin-percent', '5']);
  assert.is(restore.code, 0, restore.stderr);
});

test('a disabled plan type is unlisted, 422 PLAN_DISABLED; partners get plan.disabled then plan.updated', async ({
  stack,
  a,
  b,
  planId,
}) => {
  const seen = (await planEvents(stack, b)).length;
  const off = await runJson(stack.core, [
    'plans',
    'disable',
    '--network',
    'mtn',
    '--type',
    'direct',
    '--note',
    'blocked',
  ]);
  assert.is(off.code, 0, off.stderr);
  const directIds = off.json['plan_ids'] as number[];
  assert.ok(directIds.includes(planId));

  const listed = await plansOf(stack, a, { network: 'mtn' });
  assert.not.ok((listed.json.plans as Array<Record<string, unknown>>).some((p) => p['type'] === 'direct'));
  const refused = await buy(stack, a, planId);
  assert.is(refused.status, 422, refused.text);
  assert.is(refused.json.code, 'PLAN_DISABLED');
  assert.match(refused.json.message, /DIRECT plans on MTN are switched off/);

  const disabled = (await planEvents(stack, b)).slice(seen);
  assert.ok(disabled.every((e) => e.type === 'plan.disabled'));
  assert.equal(
    disabled.map((e) => e.plan['plan_id'] as number).sort((x, y) => x - y),
    [...directIds].sort((x, y) => x - y),
    'one plan.disabled per plan of the type, for this account',
  );
  const audit = await stack.core.store.auditLog.list({ action: 'plans.type_disabled', limit: 5 });
  assert.equal([audit[0]?.actor, audit[0]?.target, audit[0]?.note], ['cli', 'mtn/direct', 'blocked']);

  const again = await runJson(stack.core, ['plans', 'disable', '--network', 'mtn', '--type', 'direct']);
  assert.is(again.json['changed'], false, 'switching off what is off changes nothing and tells nobody');
  const on = await runJson(stack.core, ['plans', 'enable', '--network', 'mtn', '--type', 'direct']);
  assert.is(on.code, 0, on.stderr);
  const back = (await planEvents(stack, b)).slice(seen + disabled.length);
  assert.ok(back.length > 0 && back.every((e) => e.type === 'plan.updated'));
  assert.is((await buy(stack, a, planId)).status, 200);
});

test('the margin guard counts what it refuses, per product, upstream and mode', async () => {
  const metrics = createCoreMetrics();
  const outcomes = createOutcomeRecorder({ log: () => {}, metrics });
  outcomes.refusedBelowCost('data', 'vtpass', 'live');
  assert.match(
    await metrics.registry.metrics(),
    /prepaid_core_sales_below_cost_total\{product="data",upstream="vtpass",mode="live"\} 1/,
  );
});

test.run();
