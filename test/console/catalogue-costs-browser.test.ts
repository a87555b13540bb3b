/**
 * The console's airtime, electricity and cable prices page in a real browser, against a real
 * core on port 0 (its live upstream the sandbox) and the real gateway: an admin sets the
 * sandbox's commission on MTN airtime and a tier rule over it, the next purchase through the
 * gateway is charged the rule's price, and both changes are audited with the member; bad input
 * is a form error that changes nothing; a support member's forged POST is refused by the core.
 */
import type { Browser, Page } from 'playwright-core';
import * as assert from 'uvu/assert';
import { chromiumOrSkip, closeAll, launchChromium } from '../helpers/browser.js';
import { startTestConsole, type TestConsole } from '../helpers/console.js';
import { startCore, type TestCore } from '../helpers/core.js';
import { type ApiKeys, startTestGateway, type TestGateway } from '../helpers/gateway.js';
import { consoleClients, staffInBrowser, TestClock } from '../helpers/staff.js';
import { suite } from '../helpers/suite.js';

interface State {
  core: TestCore;
  gateway: TestGateway;
  app: TestConsole;
  browser: Browser;
  clock: TestClock;
  ada: Page;
}

const ADA = 'ada@ops.example.ng';
const test = suite<State>('console: airtime, electricity and cable prices in a real browser', {} as State);
const haveChromium = chromiumOrSkip('console face-value prices browser tests');
const flow = haveChromium ? test : test.skip;

test.before(async (state) => {
  if (!haveChromium) return;
  state.clock = new TestClock();
  state.core = await startCore({ clock: state.clock.now });
  state.gateway = await startTestGateway(state.core);
  state.app = await startTestConsole(state.core);
  state.browser = await launchChromium();
});
test.after(async (state) => {
  if (!haveChromium) return;
  await closeAll(state.browser, state.app, state.gateway, state.core);
});

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

/** Buys ₦1,000 of MTN airtime through the gateway; what the wallet paid, in kobo. */
async function buyMtn(state: State, keys: ApiKeys & { accountId: string }): Promise<bigint> {
  const balance = async () => (await state.core.admin.getAccount({ accountId: keys.accountId })).account!.balanceKobo;
  const before = await balance();
  const reply = await state.gateway.request({
    query: { action: 'airtime' },
    keys,
    body: { network: 'mtn', phone: '08031110001', amount: 1000 },
  });
  assert.is(reply.status, 200, reply.text);
  return before - (await balance());
}

flow('an admin sets a commission and a tier rule: the next sale is charged the rule price, audited', async (state) => {
  const keys = await state.core.createApiAccount({ balanceKobo: 10_000_00 });
  assert.is(await buyMtn(state, keys), 970_00n, "the API tier's 3% MTN discount");

  state.ada = await member(state, 'admin', ADA);
  const ada = state.ada;
  await ada.getByRole('link', { name: 'Airtime, power, cable' }).click();
  assert.match(await mainText(ada), /No commissions told/);

  // A bad percentage is a form error, and nothing changes.
  await ada.getByLabel('Upstream').fill('sandbox');
  await ada.getByLabel('Commission, percent of the face value').fill('three');
  await ada.getByRole('button', { name: 'Set the commission' }).click();
  assert.match(await mainText(ada), /Enter the commission as a percentage/);
  assert.equal((await state.core.admin.listCostRules({})).rules, []);

  await ada.getByLabel('Product', { exact: true }).first().selectOption('airtime');
  await ada.getByLabel('Network, disco or provider (empty: every one)').first().fill('mtn');
  await ada.getByLabel('Upstream').fill('sandbox');
  await ada.getByLabel('Commission, percent of the face value').fill('2');
  await ada.getByRole('button', { name: 'Set the commission' }).click();
  await ada.waitForURL(/done=/);
  assert.match(await mainText(ada), /Done: the commission of sandbox on airtime mtn is 2%/);
  assert.ok((await ada.locator('[data-cost="airtime/mtn/sandbox"]').count()) === 1);

  // A disco that does not exist is the core's refusal, shown as a form error.
  await ada.getByLabel('Product').nth(1).selectOption('electricity');
  await ada.getByLabel('Network, disco or provider (empty: every one)').nth(1).fill('nowhere');
  await ada.getByRole('button', { name: 'Save the rule' }).click();
  assert.match(await mainText(ada), /disco must be one of/);

  await ada.getByLabel('Tier').selectOption('api');
  await ada.getByLabel('Product').nth(1).selectOption('airtime');
  await ada.getByLabel('Network, disco or provider (empty: every one)').nth(1).fill('mtn');
  await ada.getByLabel('Margin, percent of the cost').fill('1');
  await ada.getByRole('button', { name: 'Save the rule' }).click();
  await ada.waitForURL(/done=/);
  assert.match(await mainText(ada), /Done: saved the airtime rule of api for mtn/);
  assert.match(await ada.locator('[data-face-rules="api"]').innerText(), /airtime \(mtn\): cost plus 1% plus/);

  // Cost 980 (1,000 less 2%) plus 1% of it: 989.80.
  assert.is(await buyMtn(state, keys), 989_80n);

  const [cost] = await audit(state, 'airtime/mtn/sandbox');
  assert.equal([cost?.action, cost?.actor, cost?.address], ['prices.commission', `staff:${ADA}`, '127.0.0.1']);
  const [rule] = await audit(state, 'tier:api/airtime/mtn');
  assert.equal([rule?.action, rule?.actor], ['prices.rule', `staff:${ADA}`]);
});

flow('a support member reads the page, and their forged POST is refused by the core', async (state) => {
  const bola = await member(state, 'support', 'bola@ops.example.ng');
  await bola.getByRole('link', { name: 'Airtime, power, cable' }).click();
  assert.match(await mainText(bola), /airtime \(mtn\): cost plus 1%/, 'support reads the rules');
  const csrf = await bola.locator('input[name="csrf_token"]').first().inputValue();
  const forged = await bola.request.post(`${state.app.url}/catalogue/costs/commission`, {
    form: { csrf_token: csrf, product: 'airtime', service: 'mtn', upstream: 'sandbox', commission_percent: '40' },
    maxRedirects: 0,
  });
  assert.is(forged.status(), 403);
  const rules = (await state.core.admin.listCostRules({})).rules;
  assert.equal(
    rules.map((r) => r.commissionBasisPoints),
    [200],
    'the commission is as the admin set it',
  );
});

test.run();
