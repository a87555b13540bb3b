/**
 * The Recipients page in a real browser against a real core, gateway and developer area on
 * port 0: the owner blocks a number, and a purchase to it through the real gateway is refused
 * (422 RECIPIENT_BLOCKED, nothing debited, no upstream asked); bad input is a form error beside
 * its field, never a 500; the block is lifted after a confirmation page; a per-day count limit
 * set on the limits page refuses the purchase after the last one it allows (422 RECIPIENT_LIMIT).
 * A viewer sees the list without the forms, and the core refuses a viewer's POST all the same.
 */
import type { Browser, Page } from 'playwright-core';
import * as assert from 'uvu/assert';
import { API_TIER_ID } from '../../core/catalog/defaults.js';
import { UserAdminService, UserRole } from '../../gen/prepaid/v1/holder_pb.js';
import { CSRF_FIELD } from '../../web/security.js';
import { assertError, balanceKobo } from '../gateway/fields.js';
import { acceptInvitation, chromiumOrSkip, closeAll, launchChromium, signIn, snap } from '../helpers/browser.js';
import { startCore, type TestCore } from '../helpers/core.js';
import { startTestDashboard, type TestDashboard } from '../helpers/dashboard.js';
import { type ApiKeys, startTestGateway, type TestGateway } from '../helpers/gateway.js';
import { suite } from '../helpers/suite.js';

interface State {
  core: TestCore;
  gateway: TestGateway;
  dashboard: TestDashboard;
  browser: Browser;
  page: Page;
  viewer: Page;
  accountId: string;
  keys: ApiKeys;
}

const test = suite<State>('dashboard: the recipients page, in a real browser', {} as State);
const haveChromium = chromiumOrSkip('dashboard recipients browser tests');
const flow = haveChromium ? test : test.skip;

const OWNER = { email: 'kemi@lekkivtu.ng', password: 'a long owner password 58' };
const VIEWER = { email: 'dayo@lekkivtu.ng', password: 'a long viewer password 58' };

const airtime = (keys: ApiKeys, phone: string) => ({
  query: { action: 'airtime' },
  keys,
  body: { network: 'mtn', phone, amount: 100 },
});

async function person(state: State, who: typeof OWNER, role: UserRole): Promise<Page> {
  const userAdmin = state.core.clientWithToken(UserAdminService, state.core.adminToken);
  const { invitation } = await userAdmin.inviteUser({ accountId: state.accountId, email: who.email, role });
  const page = await (await state.browser.newContext({ viewport: { width: 1280, height: 900 } })).newPage();
  await acceptInvitation(page, state.dashboard.url, invitation!.inviteUrl, who.password);
  await signIn(page, state.dashboard.url, who.email, who.password);
  await page.waitForURL(`${state.dashboard.url}/`);
  return page;
}

/** Submits the page's form with `button` and returns the status of the answer to its POST. */
async function submit(page: Page, button: string, path: string): Promise<number> {
  const [answer] = await Promise.all([
    page.waitForResponse((r) => new URL(r.url()).pathname === path && r.request().method() === 'POST'),
    page.getByRole('button', { name: button }).click(),
  ]);
  return answer.status();
}

test.before(async (state) => {
  if (!haveChromium) return;
  state.core = await startCore();
  state.gateway = await startTestGateway(state.core, { authCacheTtlMs: 0 });
  state.dashboard = await startTestDashboard(state.core);
  state.browser = await launchChromium();
  const created = await state.core.admin.createAccount({ name: 'Lekki VTU', tierId: API_TIER_ID });
  state.accountId = created.account!.accountId;
  state.keys = { publicKey: created.issuedKey!.publicKey, secretKey: created.issuedKey!.secretKey };
  await state.core.admin.creditWallet({ accountId: state.accountId, amountKobo: 1_000_000n, memo: 'first funding' });
  state.page = await person(state, OWNER, UserRole.OWNER);
  state.viewer = await person(state, VIEWER, UserRole.VIEWER);
});

test.after(async (state) => {
  if (haveChromium) await closeAll(state.browser, state.dashboard, state.gateway, state.core);
});

flow('bad numbers and an over-long reason are form errors beside their fields, never a 500', async (state) => {
  const { page, dashboard } = state;
  await page.goto(`${dashboard.url}/`);
  await page.getByRole('link', { name: 'Recipients' }).first().click();
  await page.waitForURL(`${dashboard.url}/recipients`);
  assert.match((await page.textContent('main')) ?? '', 'This account has blocked no number.');
  const cases: Array<[string, string, string, RegExp]> = [
    ['', '', 'value', /6 to 20 digits/],
    ['my neighbour', '', 'value', /6 to 20 digits/],
    ['0803', '', 'value', /6 to 20 digits/],
    ['08031230000', 'x'.repeat(201), 'reason', /at most 200/],
  ];
  for (const [value, reason, field, message] of cases) {
    await page.getByLabel('Phone, meter or smart-card number').fill(value);
    await page.getByLabel('Why (optional)').fill(reason);
    assert.is(await submit(page, 'Block this number', '/recipients'), 400, `${JSON.stringify(value)}: a form error`);
    assert.ok(await page.locator('.error-summary').isVisible(), 'a summary at the top');
    assert.match((await page.textContent(`#${field}-error`)) ?? '', message, "the core's sentence beside the field");
    assert.is(await page.getByLabel('Phone, meter or smart-card number').inputValue(), value, 'what was typed stays');
  }
  await snap(page, 'recipients-error');
  assert.is((await state.core.admin.listRecipientBlocks({ accountId: state.accountId })).blocks.length, 0);
});

flow('the owner blocks a number: a purchase to it through the gateway is 422 with no debit', async (state) => {
  const { page, dashboard, core, gateway, keys, accountId } = state;
  await page.goto(`${dashboard.url}/recipients`);
  await page.getByLabel('Phone, meter or smart-card number').fill('0803 555 7001');
  await page.getByLabel('Why (optional)').fill('a customer says this SIM was stolen');
  await page.getByRole('button', { name: 'Block this number' }).click();
  await page.waitForURL(`${dashboard.url}/recipients?done=blocked`);
  const row = page.locator('tbody tr', { hasText: '08035557001' });
  assert.match((await row.textContent()) ?? '', 'a customer says this SIM was stolen');
  assert.match((await row.textContent()) ?? '', OWNER.email);
  await snap(page, 'recipients');

  const before = await balanceKobo(core, accountId);
  const calls = core.sandbox.purchases.length;
  const refused = await gateway.request(airtime(keys, '08035557001'));
  assertError(refused, 422, 'RECIPIENT_BLOCKED');
  assert.not.match(refused.json.message, /stolen|owner|kemi/, 'neither the reason nor who blocked it is told');
  assert.is(await balanceKobo(core, accountId), before, 'nothing was debited');
  assert.is(core.sandbox.purchases.length, calls, 'no upstream was asked');
  const elsewhere = await gateway.request(airtime(keys, '08035557002'));
  assert.is(elsewhere.status, 200, elsewhere.text);

  // The viewer sees the block but no form, and the core refuses their POST whatever the page showed.
  await state.viewer.goto(`${dashboard.url}/recipients`);
  assert.match((await state.viewer.textContent('main')) ?? '', '08035557001');
  assert.is(await state.viewer.getByRole('button', { name: 'Block this number' }).count(), 0);
  assert.is(await state.viewer.getByRole('link', { name: /Unblock/ }).count(), 0);
  const csrf = await state.viewer.locator(`form[action="/sign-out"] input[name="${CSRF_FIELD}"]`).inputValue();
  const forbidden = await state.viewer.request.post(`${dashboard.url}/recipients`, {
    form: { [CSRF_FIELD]: csrf, form_account: accountId, value: '08035557003' },
  });
  assert.is(forbidden.status(), 403);
  assert.is((await core.admin.listRecipientBlocks({ accountId })).blocks.length, 1);

  // Lifted after a confirmation page: the purchase then goes through.
  await page.getByRole('link', { name: 'Unblock 08035557001' }).click();
  assert.match((await page.textContent('h1')) ?? '', 'Unblock 08035557001?');
  await page.getByRole('button', { name: 'Yes, unblock this number' }).click();
  await page.waitForURL(`${dashboard.url}/recipients?done=unblocked`);
  assert.match((await page.textContent('main')) ?? '', 'This account has blocked no number.');
  const after = await gateway.request(airtime(keys, '08035557001'));
  assert.is(after.status, 200, after.text);
});

flow('a per-day count limit set on the page refuses the purchase after the last one allowed', async (state) => {
  const { page, dashboard, core, gateway, keys, accountId } = state;
  await page.goto(`${dashboard.url}/recipients`);
  await page.getByRole('link', { name: 'Change the limits' }).click();
  await page.getByLabel('Most purchases to one number in a day (optional)').fill('two');
  assert.is(await submit(page, 'Save limits', '/recipients/limits'), 400);
  assert.match((await page.textContent('#per_day_count-error')) ?? '', /whole number/);
  await page.getByLabel('Most purchases to one number in a day (optional)').fill('2');
  await page.getByLabel(/Most charged for one number/).fill('lots');
  assert.is(await submit(page, 'Save limits', '/recipients/limits'), 400);
  assert.match((await page.textContent('#per_day_naira-error')) ?? '', /in Naira/);
  await page.getByLabel(/Most charged for one number/).fill('');
  await page.getByRole('button', { name: 'Save limits' }).click();
  await page.waitForURL(`${dashboard.url}/recipients?done=limited`);
  assert.match((await page.textContent('.summary-list')) ?? '', 'At most 2');

  for (let i = 0; i < 2; i += 1) {
    const ok = await gateway.request(airtime(keys, '08035557010'));
    assert.is(ok.status, 200, ok.text);
  }
  const before = await balanceKobo(core, accountId);
  const third = await gateway.request(airtime(keys, '08035557010'));
  assertError(third, 422, 'RECIPIENT_LIMIT');
  assert.is(await balanceKobo(core, accountId), before, 'nothing was debited');
  const other = await gateway.request(airtime(keys, '08035557011'));
  assert.is(other.status, 200, 'another number has its own day');

  await page.getByRole('link', { name: 'Change the limits' }).click();
  assert.is(await page.getByLabel('Most purchases to one number in a day (optional)').inputValue(), '2');
  await snap(page, 'recipients-limits');
});

test.run();
