/**
 * A manual debit as the account holder sees it, in a real browser: the statement names it and
 * shows the operator's reason beside the negative amount, and the statement's CSV has its kind,
 * reference and reason.
 */
import type { Browser, BrowserContext } from 'playwright-core';
import * as assert from 'uvu/assert';
import { API_TIER_ID } from '../../core/catalog/defaults.js';
import { UserAdminService, UserRole } from '../../gen/prepaid/v1/holder_pb.js';
import { acceptInvitation, chromiumOrSkip, closeAll, launchChromium, signIn } from '../helpers/browser.js';
import { startCore, type TestCore } from '../helpers/core.js';
import { startTestDashboard, type TestDashboard } from '../helpers/dashboard.js';
import { suite } from '../helpers/suite.js';

interface State {
  core: TestCore;
  dashboard: TestDashboard;
  browser: Browser;
  owner: BrowserContext;
}

const test = suite<State>('dashboard: a manual debit on the statement', {} as State);
const haveChromium = chromiumOrSkip('dashboard manual debit browser tests');
const flow = haveChromium ? test : test.skip;
const OWNER = { email: 'amaka@ibadanvend.ng', password: 'a long owner password 42' };

test.before(async (state) => {
  if (!haveChromium) return;
  state.core = await startCore();
  state.dashboard = await startTestDashboard(state.core);
  state.browser = await launchChromium();
});
test.after(async (state) => {
  if (haveChromium) await closeAll(state.browser, state.dashboard, state.core);
});

flow('the statement and its CSV show the debit with its reason', async (state) => {
  const { core, dashboard } = state;
  const created = await core.admin.createAccount({ name: 'Ibadan Vend', tierId: API_TIER_ID });
  const accountId = created.account!.accountId;
  await core.admin.creditWallet({ accountId, amountKobo: 5_000_00n, memo: 'first funding', reference: 'BANK-1' });
  await core.admin.debitWallet({
    accountId,
    amountKobo: 1_250_00n,
    reason: 'Duplicate credit of 3 March recovered',
    reference: 'DUP-0303',
  });
  const userAdmin = core.clientWithToken(UserAdminService, core.adminToken);
  const { invitation } = await userAdmin.inviteUser({ accountId, email: OWNER.email, role: UserRole.OWNER });
  state.owner = await state.browser.newContext({ viewport: { width: 1280, height: 900 } });
  const page = await state.owner.newPage();
  await acceptInvitation(page, dashboard.url, invitation!.inviteUrl, OWNER.password);
  await signIn(page, dashboard.url, OWNER.email, OWNER.password);
  await page.waitForURL(`${dashboard.url}/`);

  await page.goto(`${dashboard.url}/statement`);
  const row = page.locator('tbody tr').filter({ hasText: 'DUP-0303' });
  const text = (await row.textContent()) ?? '';
  assert.match(text, 'Debited by the operator');
  assert.match(text, 'Duplicate credit of 3 March recovered');
  assert.match(text, /[-−]\s*₦?1,250\.00/);
  assert.is(await row.locator('.negative').count(), 1, 'shown as money out');
  assert.match(text, /₦3,750\.00/);

  const csv = await (await page.request.get(`${dashboard.url}/statement.csv`)).text();
  const line = csv.split(/\r?\n/).find((l) => l.includes('DUP-0303')) ?? '';
  assert.match(line, /manual_debit,DUP-0303,Duplicate credit of 3 March recovered,-1250\.00,3750\.00/);
});

test.run();
