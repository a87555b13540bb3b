/**
 * Compatible tokens on the developer area's keys pages, in a real browser against a real core,
 * gateway and dashboard on port 0: an owner makes an MSORG token bound to a key pair, sees it
 * once (a reload does not show it again), and the token reads the balance through the gateway's
 * MSORG dialect; the plan alias the operator set is in the page's table; the owner revokes the
 * token after a confirmation, and the dialect then answers 401. A VTpass token is shown as its three
 * keys, whose public pair reads the balance. A viewer sees the list and no form.
 */
import type { Browser, Page } from 'playwright-core';
import * as assert from 'uvu/assert';
import { API_TIER_ID } from '../../core/catalog/defaults.js';
import { UserAdminService, UserRole } from '../../gen/prepaid/v1/holder_pb.js';
import { acceptInvitation, chromiumOrSkip, closeAll, launchChromium, signIn } from '../helpers/browser.js';
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
  accountId: string;
  publicKey: string;
}

const test = suite<State>('dashboard: compatible tokens, in a real browser', {} as State);
const haveChromium = chromiumOrSkip('dashboard compatible token browser tests');
const flow = haveChromium ? test : test.skip;

const OWNER = { email: 'ngozi@abatopup.ng', password: 'a long owner password 78' };
const VIEWER = { email: 'emeka@abatopup.ng', password: 'a long viewer password 79' };

async function userOf(state: State, who: typeof OWNER, role: UserRole): Promise<Page> {
  const userAdmin = state.core.clientWithToken(UserAdminService, state.core.adminToken);
  const { invitation } = await userAdmin.inviteUser({ accountId: state.accountId, email: who.email, role });
  const page = await (await state.browser.newContext({ viewport: { width: 1280, height: 900 } })).newPage();
  await acceptInvitation(page, state.dashboard.url, invitation!.inviteUrl, who.password);
  await signIn(page, state.dashboard.url, who.email, who.password);
  await page.waitForURL(`${state.dashboard.url}/`);
  return page;
}

async function balanceWith(state: State, token: string): Promise<Response> {
  return fetch(`http://127.0.0.1:${state.gateway.port}/compat/msorg/api/user/`, {
    headers: { Authorization: `Token ${token}` },
  });
}

test.before(async (state) => {
  if (!haveChromium) return;
  state.core = await startCore();
  state.gateway = await startTestGateway(state.core, { authCacheTtlMs: 0 });
  state.dashboard = await startTestDashboard(state.core);
  state.browser = await launchChromium();
  const created = await state.core.admin.createAccount({ name: 'Aba Top-up', tierId: API_TIER_ID });
  state.accountId = created.account!.accountId;
  state.publicKey = created.issuedKey!.publicKey;
  await state.core.admin.creditWallet({ accountId: state.accountId, amountKobo: 1_234_500n, memo: 'first funding' });
  await state.core.admin.setPlanAlias({ accountId: state.accountId, dialect: 'msorg', aliasId: '99', planId: 1n });
  state.page = await userOf(state, OWNER, UserRole.OWNER);
  // A revoke asks the browser's own second question (a double-click guard): yes.
  state.page.on('dialog', (dialog) => void dialog.accept());
});

test.after(async (state) => {
  if (haveChromium) await closeAll(state.browser, state.dashboard, state.gateway, state.core);
});

flow('an owner makes an MSORG token, sees it once, reads the balance with it, and revokes it', async (state) => {
  const { page, dashboard } = state;
  await page.goto(`${dashboard.url}/keys`);
  await page.getByRole('link', { name: 'compatible token' }).click();
  await page.waitForURL(`${dashboard.url}/keys/compat`);
  assert.match((await page.textContent('main')) ?? '', /no compatible tokens yet/);
  const aliases = page.locator('table', { hasText: 'Plan id your software sends' });
  assert.equal(await aliases.locator('tbody tr td').allTextContents(), ['99', '1'], 'the alias the operator set');

  await page.getByLabel('Key pair it acts as').selectOption(state.publicKey);
  await page.getByLabel('Your software speaks').selectOption('msorg');
  await page.getByLabel(/still in flight/).selectOption('processing');
  await page.getByRole('button', { name: 'Make a token' }).click();
  await page.waitForURL(/\/keys\/compat\?created=[A-Za-z0-9_-]+$/);
  const token = (await page.textContent('#new-compat-token'))!.trim();
  assert.match(token, /^[0-9a-f]{40}$/, 'an MSORG token is 40 hex characters');
  const row = page.locator('tbody tr', { hasText: state.publicKey });
  assert.match((await row.textContent()) ?? '', new RegExp(`msorg[\\s\\S]*…${token.slice(-4)}[\\s\\S]*processing`));

  await page.reload();
  assert.is(await page.locator('#new-compat-token').count(), 0, 'a reload does not show it again');
  assert.match((await page.textContent('main')) ?? '', /shown once and is not shown again/);

  const balance = await balanceWith(state, token);
  assert.is(balance.status, 200);
  const user = (await balance.json()) as { user: { Account_Balance: unknown; wallet_balance: unknown } };
  assert.is(user.user.Account_Balance, 12345, 'the balance of the account the token acts for');
  assert.is(user.user.wallet_balance, '12345.0');

  await page.getByRole('link', { name: /Revoke the msorg token/ }).click();
  await page.getByRole('button', { name: 'Yes, revoke this token' }).click();
  await page.waitForURL(`${dashboard.url}/keys/compat?done=revoked`);
  assert.match((await page.textContent('main')) ?? '', /The token is revoked/);
  assert.match((await row.textContent()) ?? '', /Revoked/);
  const after = await balanceWith(state, token);
  assert.is(after.status, 401);
  assert.equal(await after.json(), { detail: 'Invalid token.' });
});

flow("a VTpass token is shown as VTpass's three keys, and its public pair reads the balance", async (state) => {
  const { page, dashboard } = state;
  await page.goto(`${dashboard.url}/keys/compat`);
  await page.getByLabel('Key pair it acts as').selectOption(state.publicKey);
  await page.getByLabel('Your software speaks').selectOption('vtpass');
  await page.getByRole('button', { name: 'Make a token' }).click();
  await page.waitForURL(/\/keys\/compat\?created=[A-Za-z0-9_-]+$/);
  const [apiKey, publicKey] = await Promise.all(
    ['#new-vtpass-api-key', '#new-vtpass-public-key', '#new-vtpass-secret-key'].map(async (id) =>
      (await page.textContent(id))!.trim(),
    ),
  );
  assert.match(publicKey!, /^PK_/);
  const reply = await fetch(`http://127.0.0.1:${state.gateway.port}/compat/vtpass/api/balance`, {
    headers: { 'api-key': apiKey!, 'public-key': publicKey! },
  });
  const body = (await reply.json()) as { code: unknown; contents?: { balance?: unknown } };
  assert.is(reply.status, 200, JSON.stringify(body));
  assert.is(body.code, 1, JSON.stringify(body));
  assert.is(body.contents?.balance, 12345, 'the balance of the account the keys act for');
});

flow('a bad choice is a form error beside its field, and nothing is made', async (state) => {
  const { page, dashboard } = state;
  await page.goto(`${dashboard.url}/keys/compat`);
  const before = await page.locator('tbody tr', { hasText: 'msorg' }).count();
  await page.evaluate(() => {
    const dialect = document.querySelector<HTMLSelectElement>('#dialect')!;
    dialect.add(new Option('soap', 'soap'));
    dialect.value = 'soap';
  });
  await page.getByRole('button', { name: 'Make a token' }).click();
  assert.ok(await page.locator('#dialect-error').isVisible(), 'the error beside the dialect');
  assert.match((await page.textContent('#dialect-error')) ?? '', /dialect must be one of/);
  assert.is(await page.locator('tbody tr', { hasText: 'msorg' }).count(), before, 'no token was made');
});

flow('a viewer sees the tokens and the aliases but no form', async (state) => {
  const viewer = await userOf(state, VIEWER, UserRole.VIEWER);
  await viewer.goto(`${state.dashboard.url}/keys/compat`);
  assert.is(await viewer.getByRole('button', { name: 'Make a token' }).count(), 0);
  assert.match((await viewer.textContent('main')) ?? '', /Only an owner of the account can make or revoke tokens/);
  assert.is(await viewer.getByRole('link', { name: /Revoke/ }).count(), 0);
  await viewer.context().close();
});

test.run();
