/**
 * A key's limits and its roll from the keys page, in a real browser against a real core,
 * gateway and dashboard on port 0: the owner sets scopes and a day's cap (a bad cap is refused
 * beside its field), buys with that key over the real gateway and sees today's spend move on
 * the page; a call outside the scopes is refused. Then the owner rolls the key from the page:
 * the new secret is shown once, and both the old pair (in its grace period) and the new one work.
 */
import type { Browser, Page } from 'playwright-core';
import * as assert from 'uvu/assert';
import { API_TIER_ID } from '../../core/catalog/defaults.js';
import { UserAdminService, UserRole } from '../../gen/prepaid/v1/holder_pb.js';
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
  page: Page;
  keys: { publicKey: string; secretKey: string };
}

const test = suite<State>('dashboard: key limits and rolls, in a real browser', {} as State);
const haveChromium = chromiumOrSkip('dashboard key limits browser tests');
const flow = haveChromium ? test : test.skip;

const OWNER = { email: 'tunde@ikejatopup.ng', password: 'a long owner password 77' };

async function newKeyShown(page: Page): Promise<{ publicKey: string; secretKey: string }> {
  await page.waitForURL(/\/keys\?created=[A-Za-z0-9_-]+$/);
  return {
    publicKey: (await page.textContent('#new-public-key'))!.trim(),
    secretKey: (await page.textContent('#new-secret-key'))!.trim(),
  };
}

test.before(async (state) => {
  if (!haveChromium) return;
  state.core = await startCore();
  // No key cache in the gateway, so that new limits bite on the next request.
  state.gateway = await startTestGateway(state.core, { authCacheTtlMs: 0 });
  state.dashboard = await startTestDashboard(state.core);
  state.browser = await launchChromium();
  const created = await state.core.admin.createAccount({ name: 'Ikeja Top-up', tierId: API_TIER_ID });
  const accountId = created.account!.accountId;
  await state.core.admin.creditWallet({ accountId, amountKobo: 1_000_000n, memo: 'first funding' });
  const userAdmin = state.core.clientWithToken(UserAdminService, state.core.adminToken);
  const { invitation } = await userAdmin.inviteUser({ accountId, email: OWNER.email, role: UserRole.OWNER });
  state.page = await (await state.browser.newContext({ viewport: { width: 1280, height: 900 } })).newPage();
  await acceptInvitation(state.page, state.dashboard.url, invitation!.inviteUrl, OWNER.password);
  await signIn(state.page, state.dashboard.url, OWNER.email, OWNER.password);
  await state.page.waitForURL(`${state.dashboard.url}/`);
  await state.page.goto(`${state.dashboard.url}/keys`);
  await state.page.getByRole('button', { name: 'Create a key pair' }).click();
  state.keys = await newKeyShown(state.page);
});

test.after(async (state) => {
  if (haveChromium) await closeAll(state.browser, state.dashboard, state.gateway, state.core);
});

flow('the owner sets scopes and a day cap; a purchase with the key moves today’s spend', async (state) => {
  const { dashboard, gateway, page, keys } = state;
  await page.goto(`${dashboard.url}/keys`);
  await page.getByRole('link', { name: `Change limits of ${keys.publicKey}` }).click();
  await page.getByLabel('Scopes').fill('purchase:airtime, purchase:bulksms');
  await page.getByLabel(/in a day/).fill('five hundred');
  await page.getByRole('button', { name: 'Save limits' }).click();
  assert.ok(await page.locator('.error-summary').isVisible(), 'a summary at the top');
  assert.ok(await page.locator('#cap_per_day-error').isVisible(), 'and the error beside the field');
  await page.getByLabel('Scopes').fill('purchase:airtime, purchase:nothing');
  await page.getByLabel(/in a day/).fill('500');
  const [refused] = await Promise.all([
    page.waitForResponse((r) => r.url() === `${dashboard.url}/keys/limits` && r.request().method() === 'POST'),
    page.getByRole('button', { name: 'Save limits' }).click(),
  ]);
  assert.is(refused.status(), 400, 'an unknown scope is a form error, not a 500');
  assert.match((await page.textContent('#scopes-error')) ?? '', 'is not a scope', "the core's rule, beside the field");
  await snap(page, 'key-limits-error');
  await page.getByLabel('Scopes').fill('purchase:airtime, purchase:bulksms');
  await page.getByRole('button', { name: 'Save limits' }).click();
  await page.waitForURL(/\/keys\?done=limited$/);
  const row = page.locator('tbody tr', { hasText: keys.publicKey });
  assert.match((await row.textContent()) ?? '', 'purchase:airtime, purchase:bulksms');
  assert.match((await row.textContent()) ?? '', '₦500.00 a day');
  assert.match((await row.locator('td[data-label="Spent today"]').textContent()) ?? '', '₦0.00');

  const balance = await gateway.request({ query: { action: 'balance' }, keys });
  assert.is(balance.json?.code, 'KEY_SCOPE_DENIED', 'balance is outside the scopes');
  const bought = await gateway.request({
    query: { action: 'airtime' },
    keys,
    body: { network: 'mtn', phone: '08031234567', amount: 100 },
  });
  assert.is(bought.status, 200, bought.text);
  const charged = `₦${(bought.json.charged as number).toFixed(2)}`;
  await page.goto(`${dashboard.url}/keys`);
  assert.match((await row.locator('td[data-label="Spent today"]').textContent()) ?? '', charged);
  const over = await gateway.request({
    query: { action: 'airtime' },
    keys,
    body: { network: 'mtn', phone: '08031234567', amount: 450 },
  });
  assert.is.not(over.status, 200, 'a purchase past the day cap is refused');
  await snap(page, 'keys-limits');
});

flow('a key rolled from the page: the old secret works in its grace period, the new one works', async (state) => {
  const { dashboard, gateway, page, keys } = state;
  await page.goto(`${dashboard.url}/keys`);
  await page.getByRole('link', { name: `Roll ${keys.publicKey}` }).click();
  assert.is(await page.getByLabel('Hours the old pair keeps working').inputValue(), '24');
  await page.getByLabel('Hours the old pair keeps working').fill('400');
  await page.getByRole('button', { name: 'Roll this key' }).click();
  assert.match((await page.textContent('#grace_hours-error')) ?? '', '168');
  await page.getByLabel('Hours the old pair keeps working').fill('24');
  await page.getByRole('button', { name: 'Roll this key' }).click();
  const rolled = await newKeyShown(page);
  assert.is.not(rolled.publicKey, keys.publicKey);
  assert.match(rolled.secretKey, /^sk_/);
  await snap(page, 'key-rolled');
  await page.reload();
  assert.not.match(await page.content(), rolled.secretKey, 'the new secret is shown once');
  const oldRow = page.locator('tbody tr', { hasText: keys.publicKey });
  assert.match((await oldRow.textContent()) ?? '', 'works until');
  const newRow = page.locator('tbody tr', { hasText: rolled.publicKey });
  assert.match((await newRow.textContent()) ?? '', '₦500.00 a day', 'the new pair has the old one’s limits');

  const body = { network: 'mtn', phone: '08031234567', amount: 50 };
  const old = await gateway.request({ query: { action: 'airtime' }, keys, body });
  assert.is(old.status, 200, old.text);
  const fresh = await gateway.request({ query: { action: 'airtime' }, keys: rolled, body });
  assert.is(fresh.status, 200, fresh.text);
});

flow(
  'a frozen key shows as frozen with its reason; the owner unfreezes it from the page and it works again',
  async (state) => {
    const { core, dashboard, gateway, page, keys } = state;
    const accountId = (await core.store.keys.find(keys.publicKey))!.accountId;
    const issued = (await core.admin.createApiKey({ accountId })).issuedKey!;
    const frozenKeys = { publicKey: issued.publicKey, secretKey: issued.secretKey };
    await core.admin.freezeApiKey({ publicKey: issued.publicKey, reason: 'purchases from an unknown server' });
    const refused = await gateway.request({ query: { action: 'balance' }, keys: frozenKeys });
    assert.is(refused.json.code, 'KEY_FROZEN');
    await page.goto(`${dashboard.url}/keys`);
    const row = page.locator('tbody tr', { hasText: issued.publicKey });
    assert.match((await row.textContent()) ?? '', /Frozen.*purchases from an unknown server/s);
    await page.getByRole('link', { name: `Unfreeze ${issued.publicKey}` }).click();
    assert.match((await page.textContent('main')) ?? '', 'roll it');
    await page.getByRole('button', { name: 'Unfreeze this key' }).click();
    await page.waitForURL(/\/keys\?done=unfrozen$/);
    assert.match((await page.textContent('main')) ?? '', 'The key is unfrozen');
    assert.not.match((await page.locator('tbody tr', { hasText: issued.publicKey }).textContent()) ?? '', 'Frozen');
    const balance = await gateway.request({ query: { action: 'balance' }, keys: frozenKeys });
    assert.is(balance.status, 200, balance.text);
  },
);

test.run();
