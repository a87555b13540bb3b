/**
 * A holder makes a sandbox transfer arrive in the test wallet from the Fund wallet page, in a
 * real browser against a real core and dashboard on port 0: it goes through the sandbox
 * funding provider's own path (the credit has its fee and the transfer's reference, as one of
 * `prepaid funding simulate-transfer`), a form sent twice is one transfer, the money then buys
 * airtime for a number typed with spaces; and the live wallet is never offered it, and the
 * core refuses a forged POST for it even where the sandbox bank serves live wallets too
 * (FUNDING_SANDBOX_LIVE=on here). Screenshots go to .screenshots/dashboard/.
 */
import type { Browser, Page } from 'playwright-core';
import * as assert from 'uvu/assert';
import { kobo } from '../../core/domain/money.js';
import { FundingService } from '../../gen/prepaid/v1/funding_pb.js';
import { Mode } from '../../gen/prepaid/v1/types_pb.js';
import { chromiumOrSkip, closeAll, launchChromium, snap } from '../helpers/browser.js';
import { startCore, type TestCore } from '../helpers/core.js';
import { startTestDashboard, type TestDashboard } from '../helpers/dashboard.js';
import { ownerSignedIn } from '../helpers/owner-browser.js';
import { suite } from '../helpers/suite.js';

interface State {
  core: TestCore;
  dashboard: TestDashboard;
  browser: Browser;
  page: Page;
  accountId: string;
}

const test = suite<State>('dashboard: a simulated transfer into the test wallet', {} as State);
const haveChromium = chromiumOrSkip('dashboard simulated transfer browser tests');
const flow = haveChromium ? test : test.skip;

const OWNER = { email: 'tunde@ibadantopup.ng', password: 'a long owner password 44' };
const mainText = async (page: Page) => (await page.textContent('main')) ?? '';
const balance = async (state: State, mode: Mode) =>
  (await state.core.purchase.getBalance({ accountId: state.accountId, mode })).balanceKobo;

async function giveIdentity(page: Page): Promise<void> {
  await page.getByLabel('BVN or NIN').fill('22345678901');
  await page.getByLabel('First name').fill('Tunde');
  await page.getByLabel('Last name').fill('Ade');
  await page.getByLabel('Phone number').fill('08031234567');
  await page.getByLabel('Email address').fill('tunde@ibadantopup.ng');
  await page.getByRole('button', { name: 'Get account numbers' }).click();
  await page.waitForURL(/\/fund\?done=opened$/);
}

test.before(async (state) => {
  if (!haveChromium) return;
  state.core = await startCore({ funding: { sandboxLive: true, fee: { basisPoints: 100, capKobo: kobo(5_000) } } });
  state.dashboard = await startTestDashboard(state.core);
  state.browser = await launchChromium();
  const owner = await ownerSignedIn(state.core, state.dashboard, state.browser, { account: 'Ibadan Top-up', ...OWNER });
  state.accountId = owner.accountId;
  state.page = owner.page;
});

test.after(async (state) => {
  if (haveChromium) await closeAll(state.browser, state.dashboard, state.core);
});

flow('a holder simulates a transfer of ₦5,000 into the test wallet, then buys airtime with it', async (state) => {
  const { dashboard, page } = state;
  await page.goto(`${dashboard.url}/test/fund`);
  assert.is(await page.getByRole('heading', { name: 'Simulate a transfer' }).count(), 0, 'not before an account');
  await giveIdentity(page);
  await page.getByLabel('Amount to transfer, in Naira').fill('5,000');
  const sent = await page.evaluate(() =>
    Object.fromEntries(
      new FormData(document.querySelector('form[action$="/fund/simulate"]') as HTMLFormElement) as unknown as Iterable<
        [string, string]
      >,
    ),
  );
  await page.getByRole('button', { name: 'Simulate the transfer' }).click();
  await page.waitForURL(/\/test\/fund\?done=transfer$/);
  assert.match(await mainText(page), 'The simulated transfer arrived');
  // The sandbox provider's path: the 1% fee of this platform is taken, as from a real transfer.
  assert.is(await balance(state, Mode.TEST), 495_000n);
  assert.is(await balance(state, Mode.LIVE), 0n, 'the live wallet is untouched');
  assert.match(await mainText(page), `WEB-${sent.reference}`, 'the credit is listed with its reference');
  const { inflows } = await state.core
    .clientWithToken(FundingService, state.core.adminToken)
    .listInflows({ status: 'credited' });
  assert.equal(
    inflows.map((i) => [i.provider, i.providerReference, i.mode, i.amountPaidKobo, i.feeKobo]),
    [['sandbox', `WEB-${sent.reference}`, Mode.TEST, 500_000n, 5_000n]],
    'one inflow of the sandbox bank, as the CLI makes',
  );
  await snap(page, 'fund-simulate');

  const again = await page.request.post(`${dashboard.url}/test/fund/simulate`, { form: sent, maxRedirects: 0 });
  assert.is(again.headers().location, '/test/fund?done=transfer-again', 'the same form is the same transfer');
  assert.is(await balance(state, Mode.TEST), 495_000n, 'credited once');

  await page.goto(`${dashboard.url}/test/buy/airtime`);
  await page.getByLabel('Network').selectOption('mtn');
  await page.getByLabel('Phone number').fill('0803 123 4567');
  await page.getByLabel('Amount of airtime, in Naira').fill('1,000');
  await page.getByRole('button', { name: 'Buy airtime' }).click();
  await page.waitForURL(/\/test\/transactions\/[^?]+\?bought=new$/);
  assert.match(await mainText(page), 'Successful');
  assert.match(await mainText(page), '08031234567');
  assert.ok((await balance(state, Mode.TEST)) < 495_000n, 'the simulated money paid for it');
});

flow('the live wallet is never offered a simulated transfer, and the core refuses a forged one', async (state) => {
  const { dashboard, page } = state;
  await page.goto(`${dashboard.url}/fund`);
  // FUNDING_SANDBOX_LIVE=on: the live wallet has a Sandbox Bank account too.
  await giveIdentity(page);
  assert.is(await page.getByRole('heading', { name: 'Simulate a transfer' }).count(), 0);
  assert.is(await page.locator('form[action$="/fund/simulate"]').count(), 0);
  const csrf = (await page.locator('input[name="csrf_token"]').first().getAttribute('value')) ?? '';
  const forged = await page.request.post(`${dashboard.url}/fund/simulate`, {
    form: { csrf_token: csrf, simulate_amount: '50,000', reference: 'forged-live-transfer-01' },
    maxRedirects: 0,
  });
  assert.is(forged.status(), 400);
  assert.match(await forged.text(), 'for the test wallet only');
  assert.is(await balance(state, Mode.LIVE), 0n, 'no live money');
  const { inflows } = await state.core
    .clientWithToken(FundingService, state.core.adminToken)
    .listInflows({ status: 'credited' });
  assert.not.ok(
    inflows.some((i) => i.providerReference.includes('forged')),
    'and nothing was recorded',
  );
});

test.run();
