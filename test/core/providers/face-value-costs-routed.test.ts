/**
 * The airtime margin guard with several upstreams, through the real
 * gateway and core with the fake VTpass and the fake ported-number site: a sale below its
 * cost at the route's first upstream goes to a later one where it is not (skipped for
 * `below_cost`), and is refused, with nothing debited, only when no upstream of the route
 * covers its cost; a route for 9mobile also routes (and guards) airtime bought as t2.
 */
import * as assert from 'uvu/assert';
import { type CoreMetrics, createCoreMetrics } from '../../../core/metrics.js';
import { createProviders } from '../../../core/providers/index.js';
import { runAgainst, runJson } from '../../cli/run.js';
import { startCore, type TestCore } from '../../helpers/core.js';
import { type FakePortedNumber, startFakePortedNumber } from '../../helpers/fake-ported-number.js';
import { type FakeVtpass, startFakeVtpass } from '../../helpers/fake-vtpass.js';
import { type ApiKeys, startTestGateway, type TestGateway } from '../../helpers/gateway.js';
import { suite } from '../../helpers/suite.js';
import { testProvidersConfig } from '../../helpers/supply.js';

interface Ctx {
  vtpass: FakeVtpass;
  site: FakePortedNumber;
  core: TestCore;
  gateway: TestGateway;
  keys: ApiKeys & { accountId: string };
  coreLog: string[];
  metrics: CoreMetrics;
}

const test = suite<Ctx>('the airtime margin guard follows the route');

const PHONE = '08011111111';

test.before(async (ctx) => {
  ctx.vtpass = await startFakeVtpass();
  ctx.site = await startFakePortedNumber();
  ctx.coreLog = [];
  const log = (event: string, fields: Record<string, unknown>) =>
    ctx.coreLog.push(JSON.stringify({ event, ...fields }));
  const config = testProvidersConfig({
    routing: { airtime: ['site', 'vtpass'], data: ['vtpass'] },
    upstreams: [{ name: 'site', kind: 'ported-number', baseUrl: ctx.site.baseUrl, token: ctx.site.token }],
    vtpass: ctx.vtpass,
  });
  ctx.metrics = createCoreMetrics();
  ctx.core = await startCore({
    metrics: ctx.metrics,
    providerTimeoutMs: 1_000,
    upstreams: (store) => createProviders(config, { catalog: store.catalog, planCodes: async () => null, log }),
    log,
  });
  ctx.gateway = await startTestGateway(ctx.core);
  ctx.keys = await ctx.core.createApiAccount({ balanceKobo: 100_000_00 });
});

test.after(async (ctx) => {
  await ctx.gateway?.close();
  await ctx.core?.close();
  await ctx.site?.close();
  await ctx.vtpass?.close();
});

function buy(ctx: Ctx, network: string) {
  return ctx.gateway.request({
    query: { action: 'airtime' },
    keys: ctx.keys,
    body: { network, phone: PHONE, amount: 1000 },
  });
}

async function balance(ctx: Ctx): Promise<bigint> {
  return (await ctx.core.admin.getAccount({ accountId: ctx.keys.accountId })).account!.balanceKobo;
}

test('a sale below cost at the first upstream is served by a later one; refused when none covers it', async (ctx) => {
  // VTpass gives 1% on MTN and 9mobile airtime: 990 for 1,000, above the API tier's 970 and 960.
  for (const network of ['mtn', '9mobile']) {
    const set = await runJson(ctx.core, [
      'pricing',
      'costs',
      'set',
      'airtime',
      '--network',
      network,
      '--upstream',
      'vtpass',
      '--commission-percent',
      '1',
    ]);
    assert.is(set.code, 0, set.stderr);
  }
  // The default route puts the site first, which has no cost rule: sold there.
  const atSite = await buy(ctx, 'mtn');
  assert.is(atSite.status, 200, atSite.text);
  const first = await ctx.core.store.supply.attemptsOf(atSite.json.reference as string);
  assert.equal(
    first.map((a) => a.upstream),
    ['site'],
  );

  const route = await runAgainst(ctx.core, ['routes', 'set', 'airtime', '--network', 'mtn', 'vtpass,site']);
  assert.is(route.code, 0, route.stderr);
  // VTpass comes first but would sell at 970 what costs it 990: the site, with no cost told, serves it.
  const routed = await buy(ctx, 'mtn');
  assert.is(routed.status, 200, routed.text);
  assert.is(routed.json.charged, 970);
  const attempts = await ctx.core.store.supply.attemptsOf(routed.json.reference as string);
  assert.equal(
    attempts.map((a) => a.upstream),
    ['site'],
  );
  const routedLine = ctx.coreLog.find(
    (line) => line.includes('"event":"purchase.routed"') && line.includes(routed.json.reference as string),
  );
  assert.match(routedLine ?? '', /"skipped":"vtpass:below_cost"/);
  const metrics = await ctx.metrics.registry.metrics();
  // Both sales left VTpass out: the first too, where it came second (no failover sells below cost).
  assert.match(metrics, /prepaid_core_upstream_skips_total\{upstream="vtpass",reason="below_cost"\} 2/);
  assert.is(ctx.coreLog.filter((line) => line.includes('"event":"pricing.below_cost"')).length, 0);

  // The site's commission is told too, and it is below cost there as well: refused, nothing debited.
  const site = await runJson(ctx.core, [
    'pricing',
    'costs',
    'set',
    'airtime',
    '--network',
    'mtn',
    '--upstream',
    'site',
    '--commission-percent',
    '2',
  ]);
  assert.is(site.code, 0, site.stderr);
  const before = await balance(ctx);
  const refused = await buy(ctx, 'mtn');
  assert.is(refused.status, 422, refused.text);
  assert.is(refused.json.code, 'PRICE_BELOW_COST');
  assert.is(await balance(ctx), before, 'nothing was debited');
  const warned = ctx.coreLog.filter((line) => line.includes('"event":"pricing.below_cost"'));
  assert.is(warned.length, 1);
  assert.match(warned[0]!, /"upstream":"vtpass"/);
  assert.match(warned[0]!, /"cost_kobo":99000/);

  // Glo keeps the default route: the site first, still sold.
  assert.is((await buy(ctx, 'glo')).status, 200);
});

test('a route set for 9mobile is the route of airtime bought as t2, and its guard applies', async (ctx) => {
  const route = await runAgainst(ctx.core, ['routes', 'set', 'airtime', '--network', '9mobile', 'vtpass,site']);
  assert.is(route.code, 0, route.stderr);
  // Below cost at VTpass (990 for the 960 the tier pays): the site serves it.
  const routed = await buy(ctx, 't2');
  assert.is(routed.status, 200, routed.text);
  const atSite = await ctx.core.store.supply.attemptsOf(routed.json.reference as string);
  assert.equal(
    atSite.map((a) => a.upstream),
    ['site'],
  );

  const removed = await runJson(ctx.core, [
    'pricing',
    'costs',
    'set',
    'airtime',
    '--network',
    't2',
    '--upstream',
    'vtpass',
    '--remove',
  ]);
  assert.is(removed.code, 0, removed.stderr);
  const sold = await buy(ctx, 't2');
  assert.is(sold.status, 200, sold.text);
  const attempts = await ctx.core.store.supply.attemptsOf(sold.json.reference as string);
  assert.equal(
    attempts.map((a) => a.upstream),
    ['vtpass'],
    'the t2 purchase took the 9mobile route',
  );
});

test.run();
