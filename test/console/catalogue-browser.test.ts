/**
 * The console's catalogue, settings and staff pages in a real browser, against a real core on
 * port 0 with two upstreams (the sandbox and a second sandbox instance, `spare`) and the real
 * gateway: the last active admin cannot demote or disable themselves; an admin's change of a
 * tier discount and of a route both take effect in the next purchase through the gateway and
 * leave audit rows with the member and their address; a finance member's forged POST to change
 * a price or a tier is refused by the core; an admin invites a member (the link shown once) and
 * disables another (whose session ends); a tier name and a plan label are shown as text.
 */
import type { Browser, Page } from 'playwright-core';
import * as assert from 'uvu/assert';
import { createProviders } from '../../core/providers/index.js';
import { chromiumOrSkip, closeAll, launchChromium } from '../helpers/browser.js';
import { startTestConsole, type TestConsole } from '../helpers/console.js';
import { startCore, type TestCore } from '../helpers/core.js';
import { type ApiKeys, startTestGateway, type TestGateway } from '../helpers/gateway.js';
import { consoleClients, staffInBrowser, TestClock } from '../helpers/staff.js';
import { suite } from '../helpers/suite.js';
import { testProvidersConfig } from '../helpers/supply.js';

interface State {
  core: TestCore;
  gateway: TestGateway;
  app: TestConsole;
  browser: Browser;
  clock: TestClock;
  /** The first admin, signed in by the first test. */
  ada: Page;
}

const ADA = 'ada@ops.example.ng';
const test = suite<State>('console: catalogue, settings and staff in a real browser', {} as State);
const haveChromium = chromiumOrSkip('console catalogue browser tests');
const flow = haveChromium ? test : test.skip;

test.before(async (state) => {
  if (!haveChromium) return;
  state.clock = new TestClock();
  const config = testProvidersConfig({ upstreams: [{ name: 'spare', kind: 'sandbox' }] });
  state.core = await startCore({
    clock: state.clock.now,
    upstreams: (store) =>
      createProviders(config, { catalog: store.catalog, planCodes: async () => null, log: () => {} }),
  });
  state.gateway = await startTestGateway(state.core);
  state.app = await startTestConsole(state.core);
  state.browser = await launchChromium();
});
test.after(async (state) => {
  if (!haveChromium) return;
  await closeAll(state.browser, state.app, state.gateway, state.core);
});

/** A member signed in through the console's pages (test/helpers/staff.ts). */
const member = (state: State, role: 'admin' | 'support' | 'finance', email: string): Promise<Page> =>
  staffInBrowser(
    { core: state.core, clock: state.clock, browser: state.browser, consoleUrl: state.app.url },
    role,
    email,
  );

const mainText = async (page: Page) => (await page.textContent('main')) ?? '';

async function audit(state: State, target: string) {
  const { entries } = await consoleClients(state.core).staffAdmin.listAudit({ filter: { target } });
  return entries;
}

async function roleOf(state: State, email: string): Promise<string> {
  const { members } = await consoleClients(state.core).staffAdmin.listStaff({});
  return members.find((m) => m.email === email)?.role ?? 'none';
}

/** Buys ₦250 of MTN airtime through the gateway; what it charged and which upstream got it. */
async function buyMtn(state: State, keys: ApiKeys & { accountId: string }, phone: string) {
  const balance = async () => (await state.core.admin.getAccount({ accountId: keys.accountId })).account!.balanceKobo;
  const before = await balance();
  const reply = await state.gateway.request({
    query: { action: 'airtime' },
    keys,
    body: { network: 'mtn', phone, amount: 250 },
  });
  assert.is(reply.status, 200, reply.text);
  const attempts = await state.core.store.supply.attemptsOf(reply.json.reference as string);
  return { chargedKobo: before - (await balance()), upstreams: attempts.map((a) => a.upstream) };
}

flow('the last active admin can neither demote nor disable themselves, refused by the core', async (state) => {
  state.ada = await member(state, 'admin', ADA);
  const ada = state.ada;
  await ada.getByRole('link', { name: 'Staff' }).click();
  const item = ada.locator(`[data-member="${ADA}"]`);
  await item.getByLabel(`Role of ${ADA}`).selectOption('support');
  await item.getByRole('button', { name: 'Change the role' }).click();
  assert.match(await mainText(ada), /last active admin and cannot be moved to another role/);
  assert.is(await roleOf(state, ADA), 'admin');
  await ada
    .locator(`[data-member="${ADA}"]`)
    .getByRole('button', { name: `Disable ${ADA}` })
    .click();
  assert.match(await mainText(ada), /last active admin and cannot be disabled/);
  const answer = await ada.request.get(`${state.app.url}/staff`);
  assert.is(answer.status(), 200, 'still signed in and still an admin');
  assert.equal(
    (await audit(state, ADA)).map((e) => e.action),
    ['staff.sign_in', 'staff.setup', 'staff.invite'],
    'nothing was changed',
  );
});

flow(
  'an admin changes a tier discount and a route: the next purchase through the ' +
    'gateway follows both, and both are audited',
  async (state) => {
    const keys = await state.core.createApiAccount({ balanceKobo: 10_000_00 });
    assert.equal(await buyMtn(state, keys, '08031110001'), { chargedKobo: 242_50n, upstreams: ['sandbox'] });

    const ada = state.ada;
    await ada.getByRole('link', { name: 'Tiers' }).click();
    const api = ada.locator('[data-tier="api"]');
    const mtnRow = api.locator('tr', { has: ada.locator('input[value="mtn"]') });
    await mtnRow.locator('input[name^="percent_"]').fill('10');
    await api.getByRole('button', { name: 'Save tier api' }).click();
    await ada.waitForURL(/done=/);
    assert.match(await mainText(ada), /Done: tier api saved/);

    await ada.getByRole('link', { name: 'Settings' }).click();
    await ada.getByLabel('Product').selectOption('airtime');
    await ada.getByLabel(/^Network/).fill('mtn');
    await ada.getByLabel(/^Upstreams, first tried first/).fill('spare');
    await ada.getByRole('button', { name: 'Set the route' }).click();
    await ada.waitForURL(/done=/);
    assert.match(await mainText(ada), /airtime, network mtn\s*spare/);

    assert.equal(await buyMtn(state, keys, '08031110002'), { chargedKobo: 225_00n, upstreams: ['spare'] });

    const [tierRow] = await audit(state, 'tier:api');
    assert.is(tierRow?.action, 'tiers.upsert');
    assert.is(tierRow?.actor, `staff:${ADA}`);
    assert.is(tierRow?.address, '127.0.0.1');
    assert.match(tierRow?.before ?? '', /"service":"mtn","basisPoints":300/);
    assert.match(tierRow?.after ?? '', /"service":"mtn","basisPoints":1000/);
    const [routeRow] = await audit(state, 'route:airtime/mtn//');
    assert.equal(
      [routeRow?.action, routeRow?.actor, routeRow?.address, routeRow?.before, routeRow?.after],
      ['routes.set', `staff:${ADA}`, '127.0.0.1', '', '["spare"]'],
    );

    const spare = ada.locator('[data-upstream="spare"]');
    await spare.getByLabel(/Float alert in Naira/).fill('50,000');
    await spare.getByRole('button', { name: 'Set the alert of spare' }).click();
    await ada.waitForURL(/done=/);
    assert.match((await ada.locator('[data-upstream="spare"]').textContent()) ?? '', /Alert below\s*₦50,000\.00/);
    assert.equal(
      (await audit(state, 'upstream:spare')).map((e) => [e.action, e.actor, e.address, e.after]),
      [['upstreams.set_float_alert', `staff:${ADA}`, '127.0.0.1', '{"alert_kobo":"5000000"}']],
    );

    // A route naming an upstream that does not exist comes back as the form with the core's sentence.
    await ada.getByLabel('Product').selectOption('data');
    await ada.getByLabel(/^Upstreams, first tried first/).fill('nowhere');
    await ada.getByRole('button', { name: 'Set the route' }).click();
    assert.match(await mainText(ada), /There is a problem\s*nowhere is not a configured upstream/);
    const refused = await ada.request.post(`${state.app.url}/settings/routes`, {
      form: {
        csrf_token: await ada.locator('input[name="csrf_token"]').first().inputValue(),
        product: 'data',
        upstreams: 'nowhere',
      },
      maxRedirects: 0,
    });
    assert.is(refused.status(), 400, 'a refused form is a 400 with the form, never a 500');
  },
);

flow("a finance member's forged POST to change a price or a tier is refused by the core", async (state) => {
  const { plans } = await state.core.admin.listCatalogPlans({ network: 'mtn' });
  const plan = plans[0]!;
  const kemi = await member(state, 'finance', 'kemi@ops.example.ng');
  await kemi.getByRole('link', { name: 'Data plans' }).click();
  assert.match(await mainText(kemi), /Data plans and prices/, 'finance reads the catalogue');
  const csrf = await kemi.locator('input[name="csrf_token"]').first().inputValue();
  const cost = await kemi.request.post(`${state.app.url}/catalogue/plans/cost`, {
    form: { csrf_token: csrf, plan_id: String(plan.planId), upstream: 'sandbox', cost: '1' },
    maxRedirects: 0,
  });
  assert.is(cost.status(), 403);
  assert.match(await cost.text(), /A finance member cannot do this/);
  const tier = await kemi.request.post(`${state.app.url}/catalogue/tiers`, {
    form: { csrf_token: csrf, tier_id: 'api', name: 'Cheap', api_access: 'yes', product_0: 'data', percent_0: '50' },
    maxRedirects: 0,
  });
  assert.is(tier.status(), 403);
  const after = (await state.core.admin.listCatalogPlans({ network: 'mtn' })).plans[0]!;
  assert.equal(after.costs, plan.costs, 'no cost changed');
  assert.is((await state.core.admin.listTiers({})).tiers.find((t) => t.tierId === 'api')?.name, 'API Client');
  assert.equal(await audit(state, `plan:${plan.planId}`), [], 'nothing to audit: nothing changed');
});

flow('an admin invites a member (the link shown once) and disables another, whose session ends', async (state) => {
  const bola = await member(state, 'support', 'bola@ops.example.ng');
  const ada = state.ada;
  await ada.goto(`${state.app.url}/staff`);
  await ada.getByLabel('Email').fill('chi@ops.example.ng');
  await ada.getByLabel('Role', { exact: true }).selectOption('finance');
  await ada.getByRole('button', { name: 'Invite' }).click();
  assert.match(await mainText(ada), /chi@ops\.example\.ng is invited as finance/);
  const link = (await ada.locator('.setup-link').textContent()) ?? '';
  assert.match(link, /\/setup\/[A-Za-z0-9_-]{43}$/);
  assert.not.ok(ada.url().includes('/setup/'), 'the link is never in an address of the console');
  const setup = await ada.request.get(`${state.app.url}/setup/${link.split('/setup/')[1]}`);
  assert.is(setup.status(), 200);
  assert.match(await setup.text(), /chi@ops\.example\.ng/);

  await ada.goto(`${state.app.url}/staff`);
  await ada
    .locator('[data-member="bola@ops.example.ng"]')
    .getByRole('button', { name: 'Disable bola@ops.example.ng' })
    .click();
  await ada.waitForURL(/done=/);
  assert.match(await mainText(ada), /bola@ops\.example\.ng is disabled/);
  await bola.reload();
  assert.match(bola.url(), /\/sign-in\?ended=1$/, "the disabled member's session is over");

  assert.equal(
    (await audit(state, 'chi@ops.example.ng')).map((e) => [e.action, e.actor, e.address]),
    [['staff.invite', `staff:${ADA}`, '127.0.0.1']],
  );
  assert.equal(
    (await audit(state, 'bola@ops.example.ng')).filter((e) => e.action === 'staff.disable').map((e) => e.actor),
    [`staff:${ADA}`],
  );
});

flow('a tier name and a plan label are shown as text, never markup', async (state) => {
  await state.core.admin.upsertTier({
    tier: { tierId: 'gold', name: '<img src=x onerror="window.__xss=1">Gold', apiAccess: false, discounts: [] },
  });
  await state.core.admin.upsertPlan({
    plan: {
      planId: 0n,
      network: 'mtn',
      label: '<script>window.__xss=2</script>1GB',
      validity: '30 days',
      faceValueKobo: 300_00n,
      active: true,
    },
  });
  const ada = state.ada;
  await ada.goto(`${state.app.url}/catalogue/tiers`);
  const gold = ada.locator('[data-tier="gold"]');
  assert.match((await gold.textContent()) ?? '', /<img src=x onerror="window.__xss=1">Gold/);
  assert.is(await gold.locator('img').count(), 0);
  await ada.goto(`${state.app.url}/catalogue/plans?network=mtn`);
  assert.match(await mainText(ada), /<script>window.__xss=2<\/script>1GB/);
  assert.is(await ada.locator('main script').count(), 0);
  assert.match(await mainText(ada), /gold ₦/, "the new tier's price of every plan is listed");
  assert.is(await ada.evaluate(() => (window as unknown as { __xss?: number }).__xss), undefined);
  await ada.locator('#type_network').selectOption('glo');
  await ada.locator('#type_type').selectOption('awoof');
  await ada.getByRole('button', { name: 'Stop selling' }).click();
  await ada.waitForURL(/done=/);
  assert.match(await mainText(ada), /Done: awoof plans on glo are switched off/);
  assert.equal(
    (await audit(state, 'glo/awoof')).map((e) => [e.action, e.actor]),
    [['plans.type_disabled', `staff:${ADA}`]],
  );
  const width = await ada.evaluate(() => document.documentElement.scrollWidth);
  await ada.setViewportSize({ width: 390, height: 800 });
  assert.ok(width > 0);
  assert.ok(
    await ada.evaluate(() => document.documentElement.scrollWidth <= 390),
    'the page fits a phone; wide tables scroll in their own box',
  );
});

test.run();
