/**
 * The Fund wallet page in a real browser (Chromium through playwright-core) against a real core
 * and dashboard on port 0: an owner follows the overview's "Fund wallet" link, gives a BVN (a
 * wrong one first: a field error, and the number is not put back in the form), sees the account
 * number, the fee and the account id; a simulated transfer (the `funding simulate-transfer`
 * path) appears on the page and in the balance, once; the low-balance threshold is set and the
 * overview's banner shows while below. The BVN is in no page, no dashboard log line and no core
 * log line after it is given. A viewer sees the accounts but no identity or threshold form, and
 * a forged POST is refused by the core. Test mode shows its own Sandbox Bank account.
 * Screenshots go to .screenshots/dashboard/.
 */
import type { Browser, Page } from 'playwright-core';
import * as assert from 'uvu/assert';
import { DEFAULT_TIER_ID } from '../../core/catalog/defaults.js';
import { kobo } from '../../core/domain/money.js';
import { FundingService } from '../../gen/prepaid/v1/funding_pb.js';
import { UserAdminService, UserRole } from '../../gen/prepaid/v1/holder_pb.js';
import { Mode } from '../../gen/prepaid/v1/types_pb.js';
import { acceptInvitation, chromiumOrSkip, closeAll, launchChromium, signIn, snap } from '../helpers/browser.js';
import { assertLedgerInvariant, startCore, type TestCore } from '../helpers/core.js';
import { startTestDashboard, type TestDashboard } from '../helpers/dashboard.js';
import { suite } from '../helpers/suite.js';

interface State {
  core: TestCore;
  dashboard: TestDashboard;
  browser: Browser;
  page: Page;
  accountId: string;
  coreLog: string[];
  seen: string[];
}

const test = suite<State>('dashboard: Fund wallet in a real browser', { coreLog: [], seen: [] } as unknown as State);
const haveChromium = chromiumOrSkip('dashboard fund wallet browser tests');
const flow = haveChromium ? test : test.skip;

const OWNER = { email: 'ada@lagostopup.ng', password: 'a long owner password 42' };
const VIEWER = { email: 'obi@lagostopup.ng', password: 'a long viewer password 42' };
const BVN = '22345678901';

const mainText = async (page: Page) => (await page.textContent('main')) ?? '';
const balance = async (state: State, mode: Mode = Mode.LIVE) =>
  (await state.core.purchase.getBalance({ accountId: state.accountId, mode })).balanceKobo;

test.before(async (state) => {
  if (!haveChromium) return;
  state.coreLog = [];
  state.seen = [];
  // The sandbox bank stands in for a live funding provider here (FUNDING_SANDBOX_LIVE=on).
  state.core = await startCore({
    funding: { sandboxLive: true, fee: { basisPoints: 100, capKobo: kobo(5_000) } },
    log: (event, fields) => state.coreLog.push(JSON.stringify({ event, ...fields })),
  });
  state.dashboard = await startTestDashboard(state.core);
  state.browser = await launchChromium();
  const created = await state.core.admin.createAccount({ name: 'Lagos Top-up', tierId: DEFAULT_TIER_ID });
  state.accountId = created.account!.accountId;
  const userAdmin = state.core.clientWithToken(UserAdminService, state.core.adminToken);
  const { invitation } = await userAdmin.inviteUser({
    accountId: state.accountId,
    email: OWNER.email,
    role: UserRole.OWNER,
  });
  const context = await state.browser.newContext({ viewport: { width: 1280, height: 900 } });
  state.page = await context.newPage();
  // Every page the browser is given, to check the BVN never comes back.
  state.page.on('response', (response) => {
    if (!(response.headers()['content-type'] ?? '').startsWith('text/html')) return;
    // A page navigated away from has no body any more; the pages that matter are read whole below too.
    response.text().then(
      (body) => state.seen.push(body),
      () => {},
    );
  });
  await acceptInvitation(state.page, state.dashboard.url, invitation!.inviteUrl, OWNER.password);
  await signIn(state.page, state.dashboard.url, OWNER.email, OWNER.password);
  await state.page.waitForURL(`${state.dashboard.url}/`);
});

test.after(async (state) => {
  if (haveChromium) await closeAll(state.browser, state.dashboard, state.core);
});

flow(
  'an owner gives a BVN, sees the account number, and a transfer arrives on the page and in the balance',
  async (state) => {
    const { dashboard, page, core } = state;
    await page.goto(`${dashboard.url}/`);
    assert.match(await mainText(page), state.accountId, 'the overview shows the account id');
    await page.getByRole('link', { name: 'Fund wallet' }).first().click();
    await page.waitForURL(`${dashboard.url}/fund`);
    const before = await mainText(page);
    assert.match(before, 'A fee of 1% of each transfer, at most ₦50.00');
    assert.match(before, state.accountId);

    // A BVN of 10 digits: the error is beside the field, the names stay, the number does not.
    await page.getByLabel('BVN or NIN').fill('2234567890');
    await page.getByLabel('First name').fill('Ada');
    await page.getByLabel('Last name').fill('Obi');
    await page.getByLabel('Phone number').fill('08031234567');
    await page.getByLabel('Email address').fill('ada@lagostopup.ng');
    await page.getByRole('button', { name: 'Get account numbers' }).click();
    assert.match((await page.textContent('.error-summary')) ?? '', 'must be the 11 digits of your BVN');
    assert.is(await page.getByLabel('BVN or NIN').inputValue(), '');
    assert.is(await page.getByLabel('First name').inputValue(), 'Ada');
    state.seen.push(await page.content());
    await snap(page, 'fund-kyc-error');

    await page.getByLabel('BVN or NIN').fill(BVN);
    await page.getByRole('button', { name: 'Get account numbers' }).click();
    await page.waitForURL(`${dashboard.url}/fund?done=opened`);
    const opened = await mainText(page);
    assert.match(opened, 'Sandbox Bank');
    assert.match(opened, 'Transfers usually arrive within a minute');
    assert.match(opened, 'BVN ending 8901');
    const accountNumber = ((await page.locator('#account-number-0').textContent()) ?? '').trim();
    assert.match(accountNumber, /^\d{10}$/);
    assert.is(await page.getByRole('button', { name: 'Copy account number' }).isVisible(), true);
    assert.is(await page.locator('input[name="number"]').count(), 0, 'no identity form once accounts exist');
    state.seen.push(await page.content());
    await snap(page, 'fund-opened');

    // A transfer arrives the way `npx prepaid funding simulate-transfer` sends it, twice: credited once.
    const funding = core.clientWithToken(FundingService, core.adminToken);
    for (let i = 0; i < 2; i++)
      await funding.simulateTransfer({
        accountNumber,
        amountKobo: 1_000_000n,
        reference: 'SBX-WEB-0001',
        payerName: 'CHIDI OKAFOR',
      });
    assert.is(await balance(state), 995_000n, '10,000 Naira less the 50 Naira cap');
    await page.reload();
    const credited = await mainText(page);
    assert.match(credited, 'CHIDI OKAFOR');
    assert.match(credited, 'SBX-WEB-0001');
    assert.match(credited, '₦9,950.00');
    assert.is(await page.locator('main table tbody tr').count(), 1);
    await page.goto(`${dashboard.url}/`);
    assert.match(await mainText(page), '₦9,950.00');
    await assertLedgerInvariant(core, state.accountId);
    assert.is((await core.admin.checkLedger({})).violationCount, 0n);
  },
);

flow(
  'the low-balance threshold: a bad amount is a field error; above the balance, the overview warns',
  async (state) => {
    const { dashboard, page } = state;
    await page.goto(`${dashboard.url}/fund`);
    await page.getByLabel('Warn me below, in Naira').fill('lots');
    await page.getByRole('button', { name: 'Save threshold' }).click();
    assert.match((await page.textContent('#threshold-error')) ?? '', 'Enter an amount in Naira');
    await page.getByLabel('Warn me below, in Naira').fill('20,000');
    await page.getByRole('button', { name: 'Save threshold' }).click();
    await page.waitForURL(`${dashboard.url}/fund?done=threshold`);
    assert.match(await mainText(page), 'below ₦20,000.00');
    await page.goto(`${dashboard.url}/`);
    assert.match((await page.textContent('main .warning')) ?? '', 'Low balance');
    await snap(page, 'overview-low-balance');
    await page.goto(`${dashboard.url}/fund`);
    await page.getByLabel('Warn me below, in Naira').fill('0');
    await page.getByRole('button', { name: 'Save threshold' }).click();
    await page.goto(`${dashboard.url}/`);
    assert.is(await page.locator('main .warning').count(), 0);
  },
);

flow('test mode shows its own Sandbox Bank account, credited to the test balance only', async (state) => {
  const { dashboard, page, core } = state;
  await page.goto(`${dashboard.url}/test/fund`);
  assert.match(await mainText(page), 'Test mode has its own Sandbox Bank account');
  await page.getByLabel('BVN or NIN').fill(BVN);
  await page.getByLabel('First name').fill('Ada');
  await page.getByLabel('Last name').fill('Obi');
  await page.getByLabel('Phone number').fill('08031234567');
  await page.getByLabel('Email address').fill('ada@lagostopup.ng');
  await page.getByRole('button', { name: 'Get account numbers' }).click();
  await page.waitForURL(`${dashboard.url}/test/fund?done=opened`);
  const testNumber = ((await page.locator('#account-number-0').textContent()) ?? '').trim();
  const live = await core
    .clientWithToken(FundingService, core.adminToken)
    .getFunding({ accountId: state.accountId, mode: Mode.LIVE });
  assert.is.not(testNumber, live.accounts[0]!.accountNumber, 'the test wallet has its own account');
  const liveBefore = await balance(state);
  await core.clientWithToken(FundingService, core.adminToken).simulateTransfer({
    accountNumber: testNumber,
    amountKobo: 200_000n,
    reference: 'SBX-WEB-TEST-1',
    payerName: 'TEST PAYER',
  });
  assert.is(await balance(state, Mode.TEST), 198_000n);
  assert.is(await balance(state), liveBefore, 'the live balance is untouched');
  await page.reload();
  assert.match(await mainText(page), 'SBX-WEB-TEST-1');
  await snap(page, 'fund-test-mode');
});

flow(
  'a viewer sees the accounts but gives no identity and sets no threshold, not even by a forged POST',
  async (state) => {
    const { dashboard, core } = state;
    const userAdmin = core.clientWithToken(UserAdminService, core.adminToken);
    const { invitation } = await userAdmin.inviteUser({
      accountId: state.accountId,
      email: VIEWER.email,
      role: UserRole.VIEWER,
    });
    const context = await state.browser.newContext();
    const page = await context.newPage();
    await acceptInvitation(page, dashboard.url, invitation!.inviteUrl, VIEWER.password);
    await signIn(page, dashboard.url, VIEWER.email, VIEWER.password);
    await page.waitForURL(`${dashboard.url}/`);
    await page.goto(`${dashboard.url}/fund`);
    const text = await mainText(page);
    assert.match(text, 'Sandbox Bank');
    assert.match(text, 'Only an owner can change it');
    assert.is(await page.locator('main form').count(), 0);
    const csrf = await page.locator('input[name="csrf_token"]').first().getAttribute('value');
    const forgedThreshold = await page.request.post(`${dashboard.url}/fund/low-balance`, {
      form: { csrf_token: csrf ?? '', threshold: '100' },
      maxRedirects: 0,
    });
    assert.is(forgedThreshold.status(), 403);
    const forgedKyc = await page.request.post(`${dashboard.url}/test/fund`, {
      form: {
        csrf_token: csrf ?? '',
        kind: 'nin',
        number: '12345678901',
        first_name: 'Obi',
        last_name: 'Ada',
        phone: '08031234567',
        email: 'obi@lagostopup.ng',
      },
      maxRedirects: 0,
    });
    assert.is(forgedKyc.status(), 403);
    const threshold = await core
      .clientWithToken(FundingService, core.adminToken)
      .getFunding({ accountId: state.accountId, mode: Mode.LIVE });
    assert.is(threshold.lowBalanceThresholdKobo, 0n);
    await context.close();
  },
);

flow('the BVN is in no page, no dashboard log line and no core log line', async (state) => {
  assert.ok(state.seen.length > 5, `${state.seen.length} pages seen`);
  assert.ok(
    state.seen.every((body) => !body.includes(BVN)),
    'no page shows the BVN',
  );
  assert.ok(
    state.dashboard.logged.every((line) => !JSON.stringify(line).includes(BVN)),
    'no dashboard log line',
  );
  assert.ok(state.coreLog.length > 0);
  assert.ok(
    state.coreLog.every((line) => !line.includes(BVN)),
    'no core log line',
  );
});

test.run();
