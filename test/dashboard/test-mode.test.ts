/**
 * Test mode in the developer area, in a real browser (Chromium through playwright-core)
 * against a real core, gateway and dashboard on port 0: the owner switches to test mode,
 * adds test funds (once per form, bounded), creates a test key pair, buys airtime with it
 * through the real gateway, and finds the purchase in the test pages and not in the live
 * ones, the live balance unchanged to the kobo; a viewer cannot add test funds, not even by a
 * forged POST; and the API keys page reads on a phone (rows as cards, nothing cut off).
 * Screenshots of the new pages at 1280 and 390 pixels go to .screenshots/dashboard/.
 */
import type { Browser, BrowserContext, Page } from 'playwright-core';
import * as assert from 'uvu/assert';
import { API_TIER_ID } from '../../core/catalog/defaults.js';
import { UserAdminService, UserRole } from '../../gen/prepaid/v1/holder_pb.js';
import { Mode } from '../../gen/prepaid/v1/types_pb.js';
import { acceptInvitation, chromiumOrSkip, closeAll, launchChromium, signIn, snap } from '../helpers/browser.js';
import { startCore, type TestCore } from '../helpers/core.js';
import { startTestDashboard, type TestDashboard } from '../helpers/dashboard.js';
import { startTestGateway, type TestGateway } from '../helpers/gateway.js';
import { suite } from '../helpers/suite.js';

interface State {
  core: TestCore;
  gateway: TestGateway;
  dashboard: TestDashboard;
  browser: Browser;
  owner: BrowserContext;
  page: Page;
  accountId: string;
  /** The live key pair the operator issued, and a live purchase made with it. */
  liveKeys: { publicKey: string; secretKey: string };
  liveReference: string;
  liveBalanceKobo: bigint;
  testKeys: { publicKey: string; secretKey: string };
  testReference: string;
}

const test = suite<State>('dashboard: test mode in a real browser', {} as State);
const haveChromium = chromiumOrSkip('dashboard test-mode browser tests');
const flow = haveChromium ? test : test.skip;

const OWNER = { email: 'ngozi@kanoreload.ng', password: 'a long owner password 42' };
const VIEWER = { email: 'tunde@kanoreload.ng', password: 'a long viewer password 42' };

const mainText = async (page: Page) => (await page.textContent('main')) ?? '';
const testBalance = async (core: TestCore, accountId: string) =>
  (await core.purchase.getBalance({ accountId, mode: Mode.TEST })).balanceKobo;
const liveBalance = async (core: TestCore, accountId: string) =>
  (await core.purchase.getBalance({ accountId })).balanceKobo;

test.before(async (state) => {
  if (!haveChromium) return;
  state.core = await startCore();
  state.gateway = await startTestGateway(state.core, { authCacheTtlMs: 0 });
  state.dashboard = await startTestDashboard(state.core, {
    DASHBOARD_API_URL: `http://127.0.0.1:${state.gateway.port}/api/v1`,
  });
  state.browser = await launchChromium();
  const created = await state.core.admin.createAccount({ name: 'Kano Reload', tierId: API_TIER_ID });
  state.accountId = created.account!.accountId;
  state.liveKeys = { publicKey: created.issuedKey!.publicKey, secretKey: created.issuedKey!.secretKey };
  await state.core.admin.creditWallet({
    accountId: state.accountId,
    amountKobo: 2_000_000n,
    memo: 'first funding',
    reference: 'BANK-0001',
  });
  const live = await state.gateway.request({
    query: { action: 'airtime' },
    keys: state.liveKeys,
    body: { network: 'glo', phone: '08051234567', amount: 200 },
  });
  assert.is(live.status, 200, live.text);
  state.liveReference = live.json.reference;
  state.liveBalanceKobo = await liveBalance(state.core, state.accountId);

  const userAdmin = state.core.clientWithToken(UserAdminService, state.core.adminToken);
  const { invitation } = await userAdmin.inviteUser({
    accountId: state.accountId,
    email: OWNER.email,
    role: UserRole.OWNER,
  });
  state.owner = await state.browser.newContext({ viewport: { width: 1280, height: 900 } });
  state.page = await state.owner.newPage();
  await acceptInvitation(state.page, state.dashboard.url, invitation!.inviteUrl, OWNER.password);
  await signIn(state.page, state.dashboard.url, OWNER.email, OWNER.password);
  await state.page.waitForURL(`${state.dashboard.url}/`);
});

test.after(async (state) => {
  if (haveChromium) await closeAll(state.browser, state.dashboard, state.gateway, state.core);
});

flow('the owner switches to test mode: a banner says so, and the test balance starts at nothing', async (state) => {
  const { dashboard, page } = state;
  await page.goto(`${dashboard.url}/`);
  assert.is(await page.locator('.test-banner').count(), 0, 'no banner live');
  await page.getByRole('navigation', { name: 'Mode' }).getByRole('link', { name: 'Test' }).click();
  await page.waitForURL(`${dashboard.url}/test`);
  assert.ok(await page.locator('.test-banner').isVisible(), 'the Test mode banner');
  assert.match((await page.textContent('.test-banner')) ?? '', 'Test mode');
  assert.match(await page.title(), /^Test mode: /);
  assert.match(await mainText(page), 'Test balance');
  assert.match(await mainText(page), '₦0.00');
  // Every section link keeps test mode.
  assert.is(
    await page
      .getByRole('navigation', { name: 'Sections' })
      .getByRole('link', { name: 'API keys' })
      .getAttribute('href'),
    '/test/keys',
  );
  await snap(page, 'test-overview-empty');
});

flow('the owner adds test funds: bounded, once per form, never to the live wallet', async (state) => {
  const { core, dashboard, page } = state;
  await page.getByRole('link', { name: 'Add test funds' }).first().click();
  await page.waitForURL(`${dashboard.url}/test/funds`);
  await snap(page, 'test-funds');
  await page.getByLabel('Amount of test money, in Naira').fill('2,000,000');
  await page.getByRole('button', { name: 'Add test funds' }).click();
  assert.match((await page.textContent('#amount-error')) ?? '', 'At most ₦1,000,000.00');
  assert.is(await testBalance(core, state.accountId), 0n, 'nothing added beyond the bound');
  await snap(page, 'test-funds-error');

  const csrf = await page.locator('input[name=csrf_token]').first().inputValue();
  const reference = await page.locator('input[name=reference]').inputValue();
  await page.getByLabel('Amount of test money, in Naira').fill('50,000');
  await page.getByRole('button', { name: 'Add test funds' }).click();
  await page.waitForURL(`${dashboard.url}/test?done=funded`);
  assert.match((await page.textContent('.notice')) ?? '', 'added to your test balance');
  assert.match(await mainText(page), '₦50,000.00');
  assert.is(await testBalance(core, state.accountId), 5_000_000n);
  await snap(page, 'test-overview-funded');

  // The same form sent again (a double click, a resubmission): no second credit.
  const again = await page.request.post(`${dashboard.url}/test/funds`, {
    form: { csrf_token: csrf, reference, amount: '50,000' },
    maxRedirects: 0,
  });
  assert.is(again.status(), 303);
  assert.is(again.headers().location, '/test?done=replayed');
  assert.is(await testBalance(core, state.accountId), 5_000_000n, 'credited once');
  assert.is(await liveBalance(core, state.accountId), state.liveBalanceKobo, 'the live wallet is untouched');
  // The live address has no such form: nothing a holder sends reaches the live wallet.
  const live = await page.request.post(`${dashboard.url}/funds`, {
    form: { csrf_token: csrf, reference: 'another-form-0001', amount: '1000' },
    maxRedirects: 0,
  });
  assert.is(live.status(), 404);
  const noToken = await page.request.post(`${dashboard.url}/test/funds`, {
    form: { reference: 'another-form-0002', amount: '1000' },
    maxRedirects: 0,
  });
  assert.is(noToken.status(), 403, 'CSRF on this form too');
  assert.equal(
    [await testBalance(core, state.accountId), await liveBalance(core, state.accountId)],
    [5_000_000n, state.liveBalanceKobo],
  );
});

flow('the owner creates a test key pair: its secret shown once, listed only in test mode', async (state) => {
  const { dashboard, page } = state;
  await page.getByRole('navigation', { name: 'Sections' }).getByRole('link', { name: 'API keys' }).click();
  await page.waitForURL(`${dashboard.url}/test/keys`);
  const [answer] = await Promise.all([
    page.waitForResponse((r) => r.url() === `${dashboard.url}/test/keys` && r.request().method() === 'POST'),
    page.getByRole('button', { name: 'Create a test key pair' }).click(),
  ]);
  assert.is(answer.headers()['cache-control'], 'no-store', 'the page with the secret is not cached');
  await page.waitForURL(/\/test\/keys\?created=/);
  assert.match(await mainText(page), 'It will not be shown again');
  state.testKeys = {
    publicKey: (await page.textContent('#new-public-key'))!.trim(),
    secretKey: (await page.textContent('#new-secret-key'))!.trim(),
  };
  assert.match(state.testKeys.publicKey, /^pk_test_/);
  assert.match(state.testKeys.secretKey, /^sk_test_/);
  await snap(page, 'test-keys-created');
  await page.goto(`${dashboard.url}/test/keys`);
  assert.not.match(await page.content(), state.testKeys.secretKey);
  assert.match(await mainText(page), state.testKeys.publicKey);
  assert.not.match(await mainText(page), state.liveKeys.publicKey, 'no live key among test keys');
  await snap(page, 'test-keys');
  await page.goto(`${dashboard.url}/keys`);
  assert.match(await mainText(page), state.liveKeys.publicKey);
  assert.not.match(await mainText(page), state.testKeys.publicKey, 'no test key among live keys');
});

flow(
  'a test purchase through the real gateway shows in test transactions, statement and CSV, never live; the ' +
    'live balance is unchanged to the kobo',
  async (state) => {
    const { core, dashboard, gateway, page } = state;
    const bought = await gateway.request({
      query: { action: 'airtime' },
      keys: state.testKeys,
      body: { network: 'mtn', phone: '08031234567', amount: 100 },
    });
    assert.is(bought.status, 200, bought.text);
    state.testReference = bought.json.reference;
    const charged = `₦${Number(bought.json.charged).toFixed(2)}`;

    await page.goto(`${dashboard.url}/test/transactions`);
    const row = page.locator('tbody tr', { hasText: state.testReference });
    assert.is(await row.count(), 1);
    assert.match((await row.textContent()) ?? '', charged);
    assert.is(
      await page.locator('tbody tr', { hasText: state.liveReference }).count(),
      0,
      'the live purchase is not a test one',
    );
    await snap(page, 'test-transactions');
    await page.getByRole('link', { name: state.testReference }).click();
    await page.waitForURL(`${dashboard.url}/test/transactions/${state.testReference}`);
    assert.match(await mainText(page), charged);
    await snap(page, 'test-transaction');

    await page.goto(`${dashboard.url}/transactions`);
    assert.is(
      await page.locator('tbody tr', { hasText: state.testReference }).count(),
      0,
      'not among live transactions',
    );
    assert.is(await page.locator('tbody tr', { hasText: state.liveReference }).count(), 1);
    assert.is(
      (await page.request.get(`${dashboard.url}/transactions/${state.testReference}`)).status(),
      404,
      'a test reference is not found live',
    );

    const testCsv = await (await page.request.get(`${dashboard.url}/test/transactions.csv`)).text();
    assert.match(testCsv, `${state.testReference},`);
    assert.not.match(testCsv, state.liveReference);
    const liveCsv = await (await page.request.get(`${dashboard.url}/transactions.csv`)).text();
    assert.not.match(liveCsv, state.testReference);

    await page.goto(`${dashboard.url}/test/statement`);
    assert.match(await mainText(page), `−${charged}`);
    assert.match(await mainText(page), '₦50,000.00');
    await snap(page, 'test-statement');
    assert.not.match(await (await page.request.get(`${dashboard.url}/statement.csv`)).text(), state.testReference);

    assert.is(await liveBalance(core, state.accountId), state.liveBalanceKobo, 'live balance unchanged to the kobo');
    assert.is(
      await testBalance(core, state.accountId),
      5_000_000n - BigInt(Math.round(Number(bought.json.charged) * 100)),
    );
    await page.goto(`${dashboard.url}/`);
    assert.match(
      await mainText(page),
      `₦${(Number(state.liveBalanceKobo) / 100).toLocaleString('en-NG', { minimumFractionDigits: 2 })}`,
    );
    await page.goto(`${dashboard.url}/test/developers`);
    assert.match(
      (await page.textContent('#curl-balance')) ?? '',
      state.testKeys.publicKey,
      'the examples carry the test key in test mode',
    );
  },
);

flow('on a phone the API keys are cards: every column readable, the actions not cut off', async (state) => {
  const { page, dashboard } = state;
  for (const address of ['/keys', '/test/keys']) {
    await page.goto(`${dashboard.url}${address}`);
    await page.setViewportSize({ width: 390, height: 900 });
    const wrap = await page.locator('.table-wrap').evaluate((el) => [el.scrollWidth, el.clientWidth]);
    assert.ok(wrap[0]! <= wrap[1]!, `${address}: the key list needs no sideways scrolling (${wrap[0]} > ${wrap[1]})`);
    const revoke = page.getByRole('link', { name: /^Revoke/ }).first();
    const box = (await revoke.boundingBox())!;
    assert.ok(box.x >= 0 && box.x + box.width <= 390, `${address}: the last column is on screen`);
    const label = await page
      .locator('tbody tr td[data-label="Last used"]')
      .first()
      .evaluate((el) => getComputedStyle(el, '::before').content);
    assert.is(label, '"Last used"', `${address}: each cell is labelled by its column on a phone`);
  }
  await page.setViewportSize({ width: 1280, height: 900 });
  await page.goto(`${dashboard.url}/keys`);
  await snap(page, 'keys-cards');
});

flow('a viewer sees test mode but cannot add test funds, not even by a forged POST', async (state) => {
  const { browser, core, dashboard } = state;
  const userAdmin = core.clientWithToken(UserAdminService, core.adminToken);
  const { invitation } = await userAdmin.inviteUser({
    accountId: state.accountId,
    email: VIEWER.email,
    role: UserRole.VIEWER,
  });
  // No script at all: everything works without it.
  const context = await browser.newContext({ javaScriptEnabled: false, viewport: { width: 1280, height: 900 } });
  const viewer = await context.newPage();
  await acceptInvitation(viewer, dashboard.url, invitation!.inviteUrl, VIEWER.password);
  await signIn(viewer, dashboard.url, VIEWER.email, VIEWER.password);
  await viewer.waitForURL(`${dashboard.url}/`);
  await viewer.goto(`${dashboard.url}/test`);
  assert.ok(await viewer.locator('.test-banner').isVisible());
  assert.is(await viewer.getByRole('link', { name: 'Add test funds' }).count(), 0, 'no button for a viewer');
  await viewer.goto(`${dashboard.url}/test/funds`);
  assert.is(await viewer.locator('form[action="/test/funds"]').count(), 0, 'no form for a viewer');
  assert.match(await mainText(viewer), 'only an owner can add test money');
  await snap(viewer, 'test-funds-viewer');

  const before = await testBalance(core, state.accountId);
  const csrf = await viewer.locator('input[name=csrf_token]').first().inputValue();
  const forged = await viewer.request.post(`${dashboard.url}/test/funds`, {
    form: { csrf_token: csrf, reference: 'forged-form-0001', amount: '1000' },
  });
  assert.is(forged.status(), 403);
  assert.match(await forged.text(), 'You cannot do that');
  const forgedKey = await viewer.request.post(`${dashboard.url}/test/keys`, { form: { csrf_token: csrf } });
  assert.is(forgedKey.status(), 403, 'nor a test key');
  assert.equal(
    [await testBalance(core, state.accountId), await liveBalance(core, state.accountId)],
    [before, state.liveBalanceKobo],
  );
  await context.close();
});

test.run();
