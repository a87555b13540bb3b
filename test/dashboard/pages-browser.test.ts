/**
 * Every page of the developer area in a real Chromium, as a reseller on a phone and an
 * assistive technology meet them: axe-core (pinned, run inside the page under its real CSP)
 * finds no serious or critical violation on any page, signed out, signed in as an owner and in
 * test mode; at 390 px the header stays compact and each table's money column is inside the
 * viewport; scrollable regions take the keyboard focus; the API reference shows every action of
 * the gateway's own /openapi.json with an example request and answer.
 */
import axeCore from 'axe-core';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import * as assert from 'uvu/assert';
import { UserAdminService, UserRole } from '../../gen/prepaid/v1/holder_pb.js';
import { WebhookService } from '../../gen/prepaid/v1/webhooks_pb.js';
import { acceptInvitation, chromiumOrSkip, closeAll, launchChromium, signIn, snap } from '../helpers/browser.js';
import { startCore, type TestCore } from '../helpers/core.js';
import { startTestDashboard, type TestDashboard } from '../helpers/dashboard.js';
import { type ApiKeys, startTestGateway, type TestGateway } from '../helpers/gateway.js';
import { type Receiver, startReceiver } from '../helpers/receiver.js';
import { suite } from '../helpers/suite.js';

interface State {
  core: TestCore;
  gateway: TestGateway;
  dashboard: TestDashboard;
  receiver: Receiver;
  browser: Browser;
  owner: BrowserContext;
  page: Page;
  accountId: string;
  keys: ApiKeys;
  /** A delivered airtime purchase's reference. */
  reference: string;
  /** An unused invitation's path (/invite/...), for the signed-out pages. */
  invitePath: string;
}

const test = suite<State>('dashboard: every page on a phone and through axe-core', {} as State);
const haveChromium = chromiumOrSkip('dashboard pages browser tests');
const flow = haveChromium ? test : test.skip;

const OWNER = { email: 'chidi@chidimobile.ng', password: 'a long enough password 42' };
const VIEWER = { email: 'funke@chidimobile.ng', password: 'another long password 42' };
/** A phone's width (docs/developer-area-selling.md, phone width). */
const PHONE = { width: 390, height: 844 };
/** The header (with navigation and mode switch) a phone shows before any content: 290 px before, 385 in test mode. */
const MAX_PHONE_HEADER_PX = 120;

/** Every signed-in page, in both modes where it has a test side. */
const LIVE_PAGES = [
  '/',
  '/buy',
  '/buy/airtime',
  '/buy/data',
  '/buy/electricity',
  '/buy/cable',
  '/buy/sms',
  '/keys',
  '/prices',
  '/transactions',
  '/statement',
  '/developers',
  '/developers/reference',
  '/webhooks',
  '/users',
  '/security',
  '/fund',
  '/recipients',
  '/recipients/limits',
  '/recipients/unblock?value=08059990000',
];
const TEST_PAGES = [
  '/test',
  '/test/funds',
  '/test/fund',
  '/test/buy/airtime',
  '/test/keys',
  '/test/prices',
  '/test/transactions',
  '/test/statement',
  '/test/developers',
  '/test/developers/reference',
];

interface Violation {
  id: string;
  impact: string | null;
  help: string;
  nodes: string[];
}

/**
 * axe-core's serious and critical violations on the page as shown. The engine's source is
 * evaluated through the DevTools protocol, which the page's CSP does not govern; the page
 * itself runs under its real policy.
 */
async function axeViolations(page: Page): Promise<Violation[]> {
  await page.evaluate(axeCore.source);
  return page.evaluate(async () => {
    const axe = (window as unknown as { axe: typeof axeCore }).axe;
    const result = await axe.run(document, { resultTypes: ['violations'] });
    return result.violations
      .filter((v) => v.impact === 'serious' || v.impact === 'critical')
      .map((v) => ({ id: v.id, impact: v.impact ?? null, help: v.help, nodes: v.nodes.map((n) => n.html) }));
  });
}

/** Opens each path and checks it with axe-core at desktop and phone width; every finding is reported at once. */
async function assertAccessible(page: Page, url: string, paths: readonly string[]): Promise<void> {
  const found: Array<{ path: string; width: number; violations: Violation[] }> = [];
  for (const path of paths) {
    const answer = await page.goto(`${url}${path}`);
    assert.ok(answer && answer.status() < 400, `${path} answers (${answer?.status()})`);
    for (const viewport of [{ width: 1280, height: 900 }, PHONE]) {
      await page.setViewportSize(viewport);
      const violations = await axeViolations(page);
      if (violations.length > 0) found.push({ path, width: viewport.width, violations });
    }
    await page.setViewportSize({ width: 1280, height: 900 });
  }
  assert.equal(found, [], `no serious or critical axe-core violation on ${paths.join(', ')}`);
}

/** Asserts the element is wholly inside the phone's viewport, horizontally. */
async function assertInsideViewport(page: Page, selector: string, what: string): Promise<void> {
  const box = await page.locator(selector).first().boundingBox();
  assert.ok(box, `${what} is shown`);
  assert.ok(
    box!.x >= 0 && box!.x + box!.width <= PHONE.width,
    `${what} is inside the ${PHONE.width} px viewport (x ${box!.x}, width ${box!.width})`,
  );
}

test.before(async (state) => {
  if (!haveChromium) return;
  await setUp(state);
});

/** The servers, an account with something in every table, and the owner signed in. */
async function setUp(state: State): Promise<void> {
  state.core = await startCore({ webhooks: { allowPrivate: true, pollIntervalMs: 25 } });
  state.gateway = await startTestGateway(state.core, { authCacheTtlMs: 0 });
  state.dashboard = await startTestDashboard(state.core, {
    DASHBOARD_API_URL: `http://127.0.0.1:${state.gateway.port}/api/v1`,
  });
  state.receiver = await startReceiver();
  const account = await state.core.createApiAccount({ name: 'Chidi Mobile & Sons', balanceKobo: 5_000_000 });
  state.accountId = account.accountId;
  state.keys = { publicKey: account.publicKey, secretKey: account.secretKey };
  // Something in every table: purchases (one failed), webhook deliveries, a second person.
  const webhooks = state.core.clientWithToken(WebhookService, state.core.adminToken);
  await webhooks.setWebhook({ accountId: state.accountId, url: state.receiver.url });
  // One delivery answered 500, so the log shows one being retried with its next attempt.
  state.receiver.answers = [500];
  const bought = await state.gateway.request({
    query: { action: 'airtime' },
    keys: state.keys,
    body: { network: 'mtn', phone: '08031234567', amount: 1500 },
  });
  assert.is(bought.status, 200);
  state.reference = bought.json.reference;
  await state.gateway.request({
    query: { action: 'airtime' },
    keys: state.keys,
    body: { network: 'glo', phone: '08051239999', amount: 200 },
  });
  await state.receiver.waitFor(2, 'deliveries');
  await state.core.admin.blockRecipient({ accountId: state.accountId, value: '08059990000', reason: 'a stolen SIM' });
  const userAdmin = state.core.clientWithToken(UserAdminService, state.core.adminToken);
  const owner = await userAdmin.inviteUser({ accountId: state.accountId, email: OWNER.email, role: UserRole.OWNER });
  const viewer = await userAdmin.inviteUser({ accountId: state.accountId, email: VIEWER.email, role: UserRole.VIEWER });
  const spare = await userAdmin.inviteUser({
    accountId: state.accountId,
    email: 'tobi@chidimobile.ng',
    role: UserRole.VIEWER,
  });
  state.invitePath = new URL(spare.invitation!.inviteUrl).pathname;
  state.browser = await launchChromium();
  state.owner = await state.browser.newContext({ viewport: { width: 1280, height: 900 } });
  state.page = await state.owner.newPage();
  await acceptInvitation(state.page, state.dashboard.url, viewer.invitation!.inviteUrl, VIEWER.password);
  await acceptInvitation(state.page, state.dashboard.url, owner.invitation!.inviteUrl, OWNER.password);
  await signIn(state.page, state.dashboard.url, OWNER.email, OWNER.password);
  await state.page.waitForURL(`${state.dashboard.url}/`);
}

test.after(async (state) => {
  if (haveChromium) await closeAll(state.browser, state.receiver, state.dashboard, state.gateway, state.core);
});

flow('signed out: the sign-in and invitation pages have no serious or critical axe-core violation', async (state) => {
  const context = await state.browser.newContext();
  const page = await context.newPage();
  try {
    await assertAccessible(page, state.dashboard.url, ['/sign-in', '/password/forgot', state.invitePath]);
    // A form sent wrong: the error summary and the field's error are checked too.
    await page.goto(`${state.dashboard.url}/sign-in`);
    await page.getByLabel('Email address').fill(OWNER.email);
    await page.getByLabel('Password').fill('not the password at all');
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.waitForSelector('.error-summary');
    assert.equal(await axeViolations(page), [], 'the sign-in page with its error');
  } finally {
    await context.close();
  }
});

flow('signed in as an owner: every live page has no serious or critical axe-core violation', async (state) => {
  await assertAccessible(state.page, state.dashboard.url, [...LIVE_PAGES, `/transactions/${state.reference}`]);
});

flow('in test mode: every test page has no serious or critical axe-core violation', async (state) => {
  await assertAccessible(state.page, state.dashboard.url, TEST_PAGES);
});

flow('pages in their other states have no serious or critical axe-core violation either', async (state) => {
  const { page, dashboard } = state;
  const check = async (what: string) => {
    for (const viewport of [{ width: 1280, height: 900 }, PHONE]) {
      await page.setViewportSize(viewport);
      assert.equal(await axeViolations(page), [], `${what} at ${viewport.width} px`);
    }
    await page.setViewportSize({ width: 1280, height: 900 });
  };
  const missing = await page.goto(`${dashboard.url}/no-such-page`);
  assert.is(missing?.status(), 404);
  await check('the page for an unknown address');
  // A purchase form sent wrong: the error summary at the top, each error beside its field.
  await page.goto(`${dashboard.url}/buy/airtime`);
  await page.getByLabel('Phone number').fill('0803');
  await page.getByLabel('Amount of airtime, in Naira').fill('ten');
  await page.getByRole('button', { name: 'Buy airtime' }).click();
  await page.waitForSelector('.error-summary');
  await check('the airtime form with its errors');
  // Two-step set-up: the QR code, the secret in words and the code field.
  await page.goto(`${dashboard.url}/security`);
  await page.getByRole('button', { name: 'Set up two-step sign-in' }).click();
  await page.waitForSelector('.qr svg');
  await check('the two-step set-up page with its QR code');
  await page.goto(`${dashboard.url}/keys`);
  await page
    .getByRole('button', { name: /Create a key pair/ })
    .first()
    .click();
  await page.waitForSelector('#new-secret-key');
  await check('the API keys page showing a new secret once');
});

flow('axe-core finds what it should: the check is not vacuous', async (state) => {
  const { page, dashboard } = state;
  await page.goto(`${dashboard.url}/keys`);
  // A button with no name is a critical violation (button-name); the check must see it.
  await page.evaluate(() => document.querySelector('main')!.append(document.createElement('button')));
  const violations = await axeViolations(page);
  assert.ok(
    violations.some((v) => v.id === 'button-name'),
    `a nameless button is reported: ${JSON.stringify(violations)}`,
  );
});

flow(`on a phone the header takes at most ${MAX_PHONE_HEADER_PX} px, live and in test mode`, async (state) => {
  const { page, dashboard } = state;
  await page.setViewportSize(PHONE);
  try {
    for (const path of ['/', '/test']) {
      await page.goto(`${dashboard.url}${path}`);
      // Everything above the page's own heading: the test banner, the account bar, the navigation.
      const heading = await page.locator('main h1').first().boundingBox();
      const main = await page.locator('main').boundingBox();
      assert.ok(heading && main, `${path} has its heading`);
      assert.ok(
        main!.y <= MAX_PHONE_HEADER_PX,
        `${path}: the content starts ${main!.y} px down, at most ${MAX_PHONE_HEADER_PX} px`,
      );
      // The sections are still one tap away: the navigation names them all.
      for (const name of ['Overview', 'Transactions', 'Webhooks', 'Security']) {
        assert.is(await page.getByRole('navigation', { name: 'Sections' }).getByRole('link', { name }).count(), 1);
      }
      await snap(page, path === '/' ? 'phone-header' : 'phone-header-test');
      await page.setViewportSize(PHONE);
    }
  } finally {
    await page.setViewportSize({ width: 1280, height: 900 });
  }
});

flow(
  'on a phone each money or action column is inside the viewport: prices, transactions, statement, users, deliveries',
  async (state) => {
    const { page, dashboard } = state;
    await page.setViewportSize(PHONE);
    try {
      await page.goto(`${dashboard.url}/transactions`);
      for (const label of ['Status', 'Amount', 'Charged'])
        await assertInsideViewport(page, `main tbody tr [data-label="${label}"]`, `a transaction's ${label}`);
      await page.goto(`${dashboard.url}/statement`);
      await assertInsideViewport(page, 'main tbody tr [data-label="Balance after"]', "the statement's balance");
      await page.goto(`${dashboard.url}/prices`);
      const pays = page.locator('main tbody tr [data-label="You pay"]');
      assert.ok((await pays.count()) > 10, 'every price row says what the account pays');
      for (const index of [0, (await pays.count()) - 1]) {
        const box = await pays.nth(index).boundingBox();
        assert.ok(box && box.x >= 0 && box.x + box.width <= PHONE.width, `price row ${index}: "You pay" is inside`);
      }
      await page.goto(`${dashboard.url}/users`);
      await assertInsideViewport(page, 'main tbody tr [data-label="Actions"] a', "a person's Disable link");
      await page.goto(`${dashboard.url}/webhooks`);
      for (const label of ['State', 'Next attempt'])
        await assertInsideViewport(page, `main tbody tr [data-label="${label}"]`, `a delivery's ${label}`);
      await assertInsideViewport(page, 'main tbody tr [data-label="Actions"] button', "a delivery's Resend button");
      await page.goto(`${dashboard.url}/`);
      // The chart's labels are text of a readable size on a phone, not an SVG shrunk to fit.
      const smallest = await page.evaluate(() =>
        Math.min(
          ...[...document.querySelectorAll('.chart text, .chart .chart__label')].map((node) => {
            const box = (node as Element).getBoundingClientRect();
            return box.height;
          }),
        ),
      );
      assert.ok(smallest >= 10, `the chart's labels are at least 10 px tall on a phone (${smallest})`);
      await snap(page, 'phone-overview');
    } finally {
      await page.setViewportSize({ width: 1280, height: 900 });
    }
  },
);

flow('recipient search finds a number by any of its forms and by its start', async (state) => {
  const { page, dashboard } = state;
  const found = async (typed: string) => {
    await page.goto(`${dashboard.url}/transactions`);
    await page.getByLabel('Recipient').fill(typed);
    await page.getByLabel('Recipient').press('Enter');
    await page.waitForURL(/recipient=/);
    return page.locator('main tbody tr [data-label="Recipient"]').allTextContents();
  };
  for (const typed of ['08031234567', '+2348031234567', '2348031234567', '0803 123 4567', '0803123', '+234 803 1']) {
    assert.equal(await found(typed), ['08031234567'], typed);
  }
  assert.equal(await found('+234805'), ['08051239999'], 'the failed one, by the start of its international form');
  assert.equal(await found('0806'), [], 'no number starts so');
});

flow('scrollable regions are reachable by the keyboard and scroll with it', async (state) => {
  const { page, dashboard } = state;
  await page.setViewportSize(PHONE);
  try {
    await page.goto(`${dashboard.url}/developers/reference`);
    const region = page.locator('pre.scroll-region').first();
    assert.ok(await region.getAttribute('aria-label'), 'the region has a label');
    await region.focus();
    assert.ok(await region.evaluate((node) => node === document.activeElement), 'the region takes the focus');
    const before = await region.evaluate((node) => node.scrollLeft);
    const wider = await region.evaluate((node) => node.scrollWidth > node.clientWidth);
    assert.ok(wider, 'the example is wider than a phone (so the region must scroll)');
    await page.keyboard.press('ArrowRight');
    await page.keyboard.press('ArrowRight');
    // The browser may scroll smoothly: wait (up to 5 s) for the region to move, then check it did.
    await page
      .waitForFunction((start) => (document.activeElement?.scrollLeft ?? 0) > start, before, { timeout: 5_000 })
      .catch(() => undefined);
    const after = await region.evaluate((node) => node.scrollLeft);
    assert.ok(after > before, `the arrow keys scroll it (${before} -> ${after})`);
  } finally {
    await page.setViewportSize({ width: 1280, height: 900 });
  }
});

flow(
  "the API reference shows every action of the gateway's /openapi.json with an example request and answer",
  async (state) => {
    const { page, dashboard, gateway } = state;
    const document = (await gateway.request({ path: '/openapi.json' })).json;
    const actions = Object.keys(document['x-actions']);
    await page.goto(`${dashboard.url}/developers`);
    await page.getByRole('link', { name: 'Every action, with an example request and answer' }).click();
    await page.waitForURL(`${dashboard.url}/developers/reference`);
    for (const action of actions) {
      const section = page.locator(`section#action-${action}, section[aria-labelledby="action-${action}"]`);
      assert.is(await section.count(), 1, `${action} has its section`);
      const text = (await section.textContent()) ?? '';
      assert.match(text, `action=${action}`, `${action}: an example request`);
      assert.match(text, 'Example answer: HTTP 200', `${action}: an example answer`);
    }
    const airtime = (await page.locator('#action-airtime-request').textContent()) ?? '';
    assert.match(airtime, `curl -s -X POST 'http://127.0.0.1:${gateway.port}/api/v1?action=airtime'`);
    assert.match(airtime, document.paths['/airtime'].post.requestBody.content['application/json'].example.phone);
    // The example answers are the document's own, shown as JSON.
    const shown = JSON.parse((await page.locator('#action-balance-200').textContent()) ?? '');
    assert.equal(shown, document.paths['/balance'].get.responses['200'].content['application/json'].example);
    assert.match((await page.locator('#errors').locator('..').textContent()) ?? '', 'INSUFFICIENT_BALANCE');
    await snap(page, 'api-reference');
  },
);

flow('the API reference says plainly when the API description cannot be read', async (state) => {
  const dashboard = await startTestDashboard(state.core, { DASHBOARD_API_URL: 'http://127.0.0.1:9/api/v1' });
  const page = await state.owner.newPage();
  try {
    // The same session cookie works against any dashboard of the same core and secret.
    const cookies = await state.owner.cookies(state.dashboard.url);
    await state.owner.addCookies(cookies.map(({ name, value }) => ({ name, value, url: dashboard.url })));
    const answer = await page.goto(`${dashboard.url}/developers/reference`);
    assert.is(answer?.status(), 503);
    assert.match((await page.textContent('main')) ?? '', 'could not be read from http://127.0.0.1:9/openapi.json');
  } finally {
    await page.close();
    await dashboard.close();
  }
});

flow(
  'the sign-in code page focuses its code field, and every page names its icon and has a description',
  async (state) => {
    const { page, dashboard } = state;
    for (const path of ['/', '/developers/reference', '/test/keys']) {
      await page.goto(`${dashboard.url}${path}`);
      assert.is(await page.locator('link[rel="icon"]').getAttribute('href'), '/static/favicon.svg');
      assert.ok(((await page.locator('meta[name="description"]').getAttribute('content')) ?? '').length > 50);
    }
  },
);

test.run();
