/**
 * The Fund wallet page in a real browser when the platform has no funding provider for live
 * wallets (and FUNDING_SANDBOX_LIVE is off): the live page shows no account number and asks for
 * no identity, saying transfers are not set up, while the test page still opens a Sandbox Bank
 * account for test money.
 */
import type { Browser, Page } from 'playwright-core';
import * as assert from 'uvu/assert';
import { DEFAULT_TIER_ID } from '../../core/catalog/defaults.js';
import { UserAdminService, UserRole } from '../../gen/prepaid/v1/holder_pb.js';
import { acceptInvitation, chromiumOrSkip, closeAll, launchChromium, signIn } from '../helpers/browser.js';
import { startCore, type TestCore } from '../helpers/core.js';
import { startTestDashboard, type TestDashboard } from '../helpers/dashboard.js';
import { suite } from '../helpers/suite.js';

interface State {
  core: TestCore;
  dashboard: TestDashboard;
  browser: Browser;
  page: Page;
}

const test = suite<State>('dashboard: Fund wallet without a live funding provider', {} as State);
const haveChromium = chromiumOrSkip('dashboard fund wallet (no provider) browser tests');
const flow = haveChromium ? test : test.skip;
const OWNER = { email: 'ada@lagostopup.ng', password: 'a long owner password 42' };

test.before(async (state) => {
  if (!haveChromium) return;
  state.core = await startCore();
  state.dashboard = await startTestDashboard(state.core);
  state.browser = await launchChromium();
  const { account } = await state.core.admin.createAccount({ name: 'Lagos Top-up', tierId: DEFAULT_TIER_ID });
  const userAdmin = state.core.clientWithToken(UserAdminService, state.core.adminToken);
  const { invitation } = await userAdmin.inviteUser({
    accountId: account!.accountId,
    email: OWNER.email,
    role: UserRole.OWNER,
  });
  state.page = await (await state.browser.newContext()).newPage();
  await acceptInvitation(state.page, state.dashboard.url, invitation!.inviteUrl, OWNER.password);
  await signIn(state.page, state.dashboard.url, OWNER.email, OWNER.password);
  await state.page.waitForURL(`${state.dashboard.url}/`);
});

test.after(async (state) => {
  if (haveChromium) await closeAll(state.browser, state.dashboard, state.core);
});

flow('a live wallet shows no account number to pay real money into; test mode keeps its sandbox', async (state) => {
  const { page, dashboard } = state;
  await page.goto(`${dashboard.url}/fund`);
  const live = (await page.textContent('main')) ?? '';
  assert.match(live, 'Bank transfers to this wallet are not set up on this platform yet');
  assert.not.match(live, 'Sandbox Bank');
  assert.is(await page.getByLabel('BVN or NIN').count(), 0, 'no identity is asked for');
  await page.goto(`${dashboard.url}/test/fund`);
  assert.is(await page.getByLabel('BVN or NIN').count(), 1, 'the test wallet opens its Sandbox Bank account');
  assert.not.match((await page.textContent('main')) ?? '', 'not set up on this platform');
});

test.run();
