/**
 * Data plan codes per upstream, through the real gateway and core with a fake
 * ported-number site: codes set with the admin RPCs reach the purchase path at once (the
 * core's in-memory book), a route by plan type sends SME plans to the site, a plan the site
 * has no code for skips it and goes straight to the next upstream, and `plans sync --upstream`
 * matches the site's list to our plans. Every case ends with the ledger check.
 */
import * as assert from 'uvu/assert';
import { kobo } from '../../core/domain/money.js';
import type { PlanRecord } from '../../core/domain/records.js';
import { createProviders } from '../../core/providers/index.js';
import { Product } from '../../gen/prepaid/v1/types_pb.js';
import { startCore, type TestCore } from '../helpers/core.js';
import { type FakePortedNumber, startFakePortedNumber } from '../helpers/fake-ported-number.js';
import { type ApiKeys, startTestGateway, type TestGateway } from '../helpers/gateway.js';
import { suite } from '../helpers/suite.js';
import { testProvidersConfig } from '../helpers/supply.js';

const test = suite('data plan codes per upstream');

let site: FakePortedNumber;
let core: TestCore;
let gateway: TestGateway;
let keys: ApiKeys & { accountId: string };

test.before.each(async () => {
  site = await startFakePortedNumber();
  core = await startCore({
    upstreams: (store, planCodes) =>
      createProviders(
        testProvidersConfig({
          upstreams: [{ name: 'site', kind: 'ported-number', baseUrl: site.baseUrl, token: site.token }],
        }),
        { catalog: store.catalog, planCodes },
      ),
  });
  gateway = await startTestGateway(core);
  keys = await core.createApiAccount({ balanceKobo: 100_000_00 });
});
test.after.each(async () => {
  await gateway.close();
  await core.close();
  await site.close();
});

/** A plan of ours, stored. */
async function addPlan(network: string, label: string, type: PlanRecord['type'], sizeMb: number): Promise<number> {
  const plan = await core.store.catalog.upsertPlan({
    planId: 0,
    network,
    label,
    validity: '30 days',
    type,
    sizeMb,
    validityDays: 30,
    faceValueKobo: kobo(300_00),
    tierPricesKobo: {},
    costsKobo: {},
    active: true,
    providerCode: '',
  });
  return plan.planId;
}

function buyData(planId: number, phone: string) {
  return gateway.request({ query: { action: 'data' }, keys, body: { network: 'mtn', phone, plan_id: planId } });
}

async function upstreamsOf(reference: string): Promise<string[]> {
  return (await core.store.supply.attemptsOf(reference)).map((a) => a.upstream);
}

async function ledgerIsExact(): Promise<void> {
  const audit = await core.admin.checkLedger({});
  assert.is(audit.violationCount, 0n, 'prepaid ledger check finds nothing');
}

test('a route by plan type sends SME data to the site with its code; a plan without one goes to the next', async () => {
  const sme1 = await addPlan('mtn', '1GB SME', 'sme', 1024);
  const sme2 = await addPlan('mtn', '2GB SME', 'sme', 2048);
  const cg = await addPlan('mtn', '1GB CG', 'cg', 1024);
  const set = await core.admin.setPlanCode({ planId: BigInt(sme1), upstream: 'site', code: '353' });
  assert.is(set.code?.code, '353');
  assert.is(set.before, undefined);
  await core.admin.setPlanCode({ planId: BigInt(cg), upstream: 'site', code: '292' });
  await core.admin.setRoute({
    key: { product: Product.DATA, network: '', planType: 'sme', disco: '' },
    upstreams: ['site', 'sandbox'],
  });

  const first = await buyData(sme1, '08031234567');
  assert.is(first.status, 200, first.text);
  assert.is(first.json.status, 'success');
  assert.equal(await upstreamsOf(first.json.reference as string), ['site']);
  const posted = site.calls.filter((c) => c.method === 'POST');
  assert.is(posted.length, 1);
  assert.is(posted[0]!.body?.['plan'], 353, "the site's code for the plan was sent");

  const second = await buyData(sme2, '08031234568');
  assert.is(second.status, 200, second.text);
  assert.equal(await upstreamsOf(second.json.reference as string), ['sandbox'], 'the site has no code: skipped');
  assert.is(site.calls.filter((c) => c.method === 'POST').length, 1, 'the site was not called for it');

  // A CG plan takes the default route even though the site has a code for it.
  const third = await buyData(cg, '08031234569');
  assert.is(third.status, 200, third.text);
  assert.equal(await upstreamsOf(third.json.reference as string), ['sandbox']);

  // Clearing the code takes the site out of that plan's route at once.
  const cleared = await core.admin.clearPlanCode({ planId: BigInt(sme1), upstream: 'site' });
  assert.is(cleared.before, '353');
  const fourth = await buyData(sme1, '08031234570');
  assert.equal(await upstreamsOf(fourth.json.reference as string), ['sandbox']);

  const audit = await core.store.auditLog.list({ limit: 10 });
  const rows = audit
    .filter((a) => a.action.startsWith('plans.code'))
    .map((a) => [a.actor, a.action, a.target, a.before, a.after]);
  assert.equal(
    rows.sort(),
    [
      ['cli', 'plans.code_clear', `plan:${sme1}@site`, '{"code":"353"}', null],
      ['cli', 'plans.code_set', `plan:${cg}@site`, null, '{"code":"292"}'],
      ['cli', 'plans.code_set', `plan:${sme1}@site`, null, '{"code":"353"}'],
    ].sort(),
  );
  await ledgerIsExact();
});

test('a code is refused for an undeclared upstream, a site code that is not a number, an unknown plan', async () => {
  const plan = await addPlan('mtn', '1GB SME', 'sme', 1024);
  const refused = async (request: { planId: bigint; upstream: string; code: string }, pattern: RegExp) => {
    try {
      await core.admin.setPlanCode(request);
    } catch (error) {
      assert.match(String(error), pattern);
      return;
    }
    assert.unreachable(`accepted ${JSON.stringify({ ...request, planId: Number(request.planId) })}`);
  };
  await refused(
    { planId: BigInt(plan), upstream: 'sandbox', code: '1' },
    /not a configured ClubKonnect or ported-number/,
  );
  await refused({ planId: BigInt(plan), upstream: 'nowhere', code: '1' }, /not a configured/);
  await refused({ planId: BigInt(plan), upstream: 'site', code: 'abc' }, /whole numbers/);
  await refused({ planId: BigInt(plan), upstream: 'site', code: 'a b' }, /letters, digits/);
  await refused({ planId: 999_999n, upstream: 'site', code: '1' }, /999999/);
  assert.equal(await core.store.planCodes.list({}), []);
});

test('plans sync --upstream matches site plans by network, type, size, validity; their price is the cost', async () => {
  const sme = await addPlan('mtn', '1GB SME', 'sme', 1024);
  const cg = await addPlan('mtn', '50MB CG', 'cg', 50);
  const gloA = await addPlan('glo', '1GB gifting A', 'gifting', 1024);
  const gloB = await addPlan('glo', '1GB gifting B', 'gifting', 1024);
  // A code the site no longer lists is removed by the sync.
  const stale = await addPlan('mtn', '2GB SME', 'sme', 2048);
  await core.store.planCodes.set({ planId: stale, upstream: 'site', code: '999', updatedAt: new Date() });

  const dry = await core.admin.syncUpstreamPlans({ upstream: 'site', dryRun: true });
  assert.is(dry.matched.length, 2);
  assert.equal(
    (await core.store.planCodes.list({ upstream: 'site' })).map((c) => c.code),
    ['999'],
    'a dry run writes nothing',
  );

  const report = await core.admin.syncUpstreamPlans({ upstream: 'site', dryRun: false });
  assert.equal(
    report.matched.map((m) => [Number(m.planId), m.code, Number(m.costKobo)]).sort(),
    [
      [sme, '353', 239_00],
      [cg, '292', 18_00],
    ].sort(),
  );
  assert.equal(
    report.unmatched.map((u) => [u.network, u.code, u.reason, u.candidatePlanIds.map(Number)]),
    [['glo', '401', 'ambiguous', [gloA, gloB]]],
    'two of ours fit: reported, not guessed',
  );
  assert.equal(
    report.cleared.map((c) => [Number(c.planId), c.code]),
    [[stale, '999']],
  );
  assert.equal(
    (await core.store.planCodes.list({ upstream: 'site' })).map((c) => [c.planId, c.code]).sort(),
    [
      [sme, '353'],
      [cg, '292'],
    ].sort(),
  );
  assert.is(
    (await core.store.catalog.getPlan(sme))!.costsKobo['site'],
    239_00,
    "the site's price is the plan's cost there",
  );

  const again = await core.admin.syncUpstreamPlans({ upstream: 'site', dryRun: false });
  assert.is(again.matched.filter((m) => m.changed).length, 0, 'a second sync changes nothing');

  const bought = await buyData(sme, '08031234571');
  assert.is(bought.status, 200, bought.text);
  await core.admin.setRoute({
    key: { product: Product.DATA, network: 'mtn', planType: '', disco: '' },
    upstreams: ['site'],
  });
  const routed = await buyData(sme, '08031234572');
  assert.is(routed.status, 200, routed.text);
  assert.equal(await upstreamsOf(routed.json.reference as string), ['site'], 'the synced code is in force at once');
  await ledgerIsExact();
});

test.run();
