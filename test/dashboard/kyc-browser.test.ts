/**
 * Identity levels end to end, in a real browser against a real core, dashboard and console on
 * port 0: an account at level 1 receives a bank transfer over its limit (the sandbox bank stands
 * in for a live funding provider) and is told what was held; its owner asks for level 2 on the
 * Verify page (a BVN of the wrong shape is the field's sentence, never the number back); a
 * finance member sees the request masked on the console's Identity levels page and approves it;
 * the held credit arrives, once, and the owner's Verify page says level 2.
 */
import type { Browser, Page } from 'playwright-core';
import * as assert from 'uvu/assert';
import { UserAdminService, UserRole } from '../../gen/prepaid/v1/holder_pb.js';
import { KycAdminService } from '../../gen/prepaid/v1/kyc_pb.js';
import { runJson } from '../cli/run.js';
import { acceptInvitation, chromiumOrSkip, closeAll, launchChromium, signIn, snap } from '../helpers/browser.js';
import { startTestConsole, type TestConsole } from '../helpers/console.js';
import { assertLedgerInvariant, startCore, type TestCore } from '../helpers/core.js';
import { startTestDashboard, type TestDashboard } from '../helpers/dashboard.js';
import { staffInBrowser, TestClock } from '../helpers/staff.js';
import { suite } from '../helpers/suite.js';

interface State {
  core: TestCore;
  dashboard: TestDashboard;
  app: TestConsole;
  browser: Browser;
  clock: TestClock;
  owner: Page;
  accountId: string;
}

const test = suite<State>('identity levels: a holder asks, staff approve, the held credit arrives', {} as State);
const haveChromium = chromiumOrSkip('identity level browser tests');
const flow = haveChromium ? test : test.skip;

const OWNER = { email: 'tola@ibadanvtu.ng', password: 'a long owner password 77' };
const mainText = async (page: Page) => (await page.textContent('main')) ?? '';

test.before(async (state) => {
  if (!haveChromium) return;
  state.clock = new TestClock();
  state.core = await startCore({ clock: state.clock.now, funding: { sandboxLive: true, kycKey: 'k'.repeat(32) } });
  state.dashboard = await startTestDashboard(state.core);
  state.app = await startTestConsole(state.core);
  state.browser = await launchChromium();
  const kyc = state.core.clientWithToken(KycAdminService, state.core.adminToken);
  await kyc.setLevelLimits({ limits: { level: 1, maxBalanceKobo: 100_000n, maxDailySpendKobo: 50_000n } });
  const { accountId } = await state.core.createApiAccount({ name: 'Ibadan VTU', balanceKobo: 0 });
  state.accountId = accountId;
  await kyc.approveLevel({ accountId, level: 1, note: 'a new reseller starts at level 1' });
  const { invitation } = await state.core
    .clientWithToken(UserAdminService, state.core.adminToken)
    .inviteUser({ accountId, email: OWNER.email, role: UserRole.OWNER });
  state.owner = await (await state.browser.newContext()).newPage();
  await acceptInvitation(state.owner, state.dashboard.url, invitation!.inviteUrl, OWNER.password);
  await signIn(state.owner, state.dashboard.url, OWNER.email, OWNER.password);
  await state.owner.waitForURL(`${state.dashboard.url}/`);
  // A live bank account from the sandbox bank, and a transfer of ₦3,000 into it.
  const bvn = ['--bvn', '22222222222', '--first-name', 'Tola', '--last-name', 'Ade'];
  const contact = ['--phone', '08031234567', '--email', OWNER.email];
  const opened = await runJson(state.core, ['funding', 'open', accountId, ...bvn, ...contact]);
  const number = (opened.json['accounts'] as { account_number: string }[])[0]!.account_number;
  const sent = await runJson(state.core, ['funding', 'simulate-transfer', number, '3000', '--reference', 'SBX-KYC-1']);
  assert.is(sent.code, 0, sent.stderr);
});

test.after(async (state) => {
  if (haveChromium) await closeAll(state.browser, state.app, state.dashboard, state.core);
});

flow("the holder is told what was held, asks for level 2, and a bad BVN is the field's sentence", async (state) => {
  const { owner, dashboard, core, accountId } = state;
  assert.is((await core.purchase.getBalance({ accountId })).balanceKobo, 100_000n, 'credited up to the limit');
  await owner.goto(`${dashboard.url}/verify`);
  const text = await mainText(owner);
  assert.match(text, 'Your account is at level 1.');
  assert.match(text, '₦1,000 received, ₦2,000 held: verify your BVN or NIN to receive more than ₦1,000.');
  await owner.getByLabel('The 11 digits of your BVN or NIN').fill('2234');
  await owner.getByRole('button', { name: 'Ask for level 2' }).click();
  assert.match(await mainText(owner), 'must be the 11 digits of your BVN');
  assert.is(await owner.getByLabel('The 11 digits of your BVN or NIN').inputValue(), '', 'the number is not put back');
  await owner.getByLabel('NIN (National Identification Number)').check();
  await owner.getByLabel('The 11 digits of your BVN or NIN').fill('12345678901');
  await owner.getByRole('button', { name: 'Ask for level 2' }).click();
  await owner.waitForURL(/\/verify\?done=level$/);
  assert.match(await mainText(owner), 'Your NIN ••••8901 is waiting for our staff');
  await snap(owner, 'verify-level-asked');
});

flow('a finance member approves on the console; the held credit arrives once', async (state) => {
  const { core, accountId, app, owner, dashboard } = state;
  const finance = await staffInBrowser({ ...state, consoleUrl: app.url }, 'finance', 'funmi@ops.example.ng');
  assert.match((await finance.textContent('[data-levels]')) ?? '', '1 request(s) for a level waiting');
  await finance.getByRole('link', { name: 'Identity levels' }).first().click();
  await finance.waitForURL(`${app.url}/kyc`);
  const item = finance.locator(`[data-level-request="${accountId}"]`);
  assert.match((await item.textContent()) ?? '', 'NIN ••••8901');
  assert.not.match((await finance.content()) ?? '', '12345678901', 'the whole number is nowhere on the page');
  assert.match((await finance.locator(`[data-held]`).first().textContent()) ?? '', '₦2,000.00');
  await item.getByLabel('What you checked').fill('NIN matches the owner, checked at NIMC');
  await item.getByRole('button', { name: 'Approve level 2' }).click();
  await finance.waitForURL(/\/kyc\?done=/);
  assert.match(await mainText(finance), 'held was credited');
  assert.is((await core.purchase.getBalance({ accountId })).balanceKobo, 300_000n, 'the held ₦2,000 arrived');
  await owner.goto(`${dashboard.url}/verify`);
  const text = await mainText(owner);
  assert.match(text, 'Your account is at level 2.');
  assert.not.match(text, 'held:');
  await owner.reload();
  assert.is((await core.purchase.getBalance({ accountId })).balanceKobo, 300_000n, 'once');
  await assertLedgerInvariant(core, accountId);
});

test.run();
