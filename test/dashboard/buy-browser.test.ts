/**
 * Buying from the web, in a real browser (Chromium through playwright-core) against a real
 * core and dashboard on port 0, by an owner of an account whose tier has no API access: each
 * product is bought from its page (electricity and cable TV checked first), each answer is a
 * receipt, a reload of it buys nothing, the same form sent again is the same purchase charged
 * once, a failed purchase shows its refund and the balance after it, a pending one says so,
 * and a viewer can buy nothing, not even by a forged POST. Screenshots go to .screenshots/dashboard/.
 */
import type { Browser, Page } from 'playwright-core';
import * as assert from 'uvu/assert';
import { DEFAULT_TIER_ID } from '../../core/catalog/defaults.js';
import { UserAdminService, UserRole } from '../../gen/prepaid/v1/holder_pb.js';
import { Mode } from '../../gen/prepaid/v1/types_pb.js';
import { acceptInvitation, chromiumOrSkip, closeAll, launchChromium, signIn, snap } from '../helpers/browser.js';
import { startCore, type TestCore } from '../helpers/core.js';
import { startTestDashboard, type TestDashboard } from '../helpers/dashboard.js';
import { suite } from '../helpers/suite.js';

interface State {
  core: TestCore;
  dashboard: TestDashboard;
  browser: Browser;
  page: Page;
  accountId: string;
}

const test = suite<State>('dashboard: buying from the web in a real browser', {} as State);
const haveChromium = chromiumOrSkip('dashboard buy browser tests');
const flow = haveChromium ? test : test.skip;

const OWNER = { email: 'amaka@abujatopup.ng', password: 'a long owner password 42' };
const VIEWER = { email: 'sani@abujatopup.ng', password: 'a long viewer password 42' };

const mainText = async (page: Page) => (await page.textContent('main')) ?? '';
const balance = async (state: State, mode: Mode = Mode.LIVE) =>
  (await state.core.purchase.getBalance({ accountId: state.accountId, mode })).balanceKobo;
const transactionCount = async (state: State, mode: Mode = Mode.LIVE) =>
  (await state.core.purchase.listTransactions({ accountId: state.accountId, mode, pageSize: 100 })).transactions.length;
const referenceIn = (url: string) => decodeURIComponent(/\/transactions\/([^?]+)/.exec(url)?.[1] ?? '');

test.before(async (state) => {
  if (!haveChromium) return;
  state.core = await startCore();
  state.dashboard = await startTestDashboard(state.core);
  state.browser = await launchChromium();
  const created = await state.core.admin.createAccount({ name: 'Abuja Top-up', tierId: DEFAULT_TIER_ID });
  state.accountId = created.account!.accountId;
  assert.is(created.issuedKey, undefined, 'a tier without API access has no keys');
  await state.core.admin.creditWallet({
    accountId: state.accountId,
    amountKobo: 5_000_000n,
    memo: 'first funding',
    reference: 'BANK-0101',
  });
  const userAdmin = state.core.clientWithToken(UserAdminService, state.core.adminToken);
  const { invitation } = await userAdmin.inviteUser({
    accountId: state.accountId,
    email: OWNER.email,
    role: UserRole.OWNER,
  });
  const context = await state.browser.newContext({ viewport: { width: 1280, height: 900 } });
  state.page = await context.newPage();
  await acceptInvitation(state.page, state.dashboard.url, invitation!.inviteUrl, OWNER.password);
  await signIn(state.page, state.dashboard.url, OWNER.email, OWNER.password);
  await state.page.waitForURL(`${state.dashboard.url}/`);
});

test.after(async (state) => {
  if (haveChromium) await closeAll(state.browser, state.dashboard, state.core);
});

flow(
  'airtime: bought once, the receipt survives a reload, and the same form sent again is the same purchase',
  async (state) => {
    const { dashboard, page } = state;
    const before = await balance(state);
    await page.goto(`${dashboard.url}/`);
    await page.getByRole('navigation', { name: 'Sections' }).getByRole('link', { name: 'Buy' }).click();
    await page.getByRole('link', { name: 'Airtime' }).click();
    await snap(page, 'buy-airtime');
    await page.getByLabel('Network').selectOption('mtn');
    // Typed as people write numbers: the core reads it into its 11-digit form.
    await page.getByLabel('Phone number').fill('0803 123 4567');
    await page.getByLabel('Amount of airtime, in Naira').fill('500');
    // What the browser would send again on a resubmission: the same fields, the same request id.
    const sent = await page.evaluate(() =>
      Object.fromEntries(
        new FormData(document.querySelector('main form') as HTMLFormElement) as unknown as Iterable<[string, string]>,
      ),
    );
    assert.match(sent.request_id ?? '', /^web_[A-Za-z0-9_-]{22}$/);
    await page.getByRole('button', { name: 'Buy airtime' }).click();
    await page.waitForURL(/\/transactions\/[^?]+\?bought=new$/);
    const reference = referenceIn(page.url());
    assert.match(await mainText(page), 'This page is the receipt');
    assert.match(await mainText(page), reference);
    assert.match(await mainText(page), 'Successful');
    const after = await balance(state);
    assert.ok(after < before, 'the wallet was charged');
    const charged = before - after;
    const { transaction } = await state.core.purchase.getTransaction({ accountId: state.accountId, reference });
    assert.is(transaction?.chargedKobo, charged, 'charged the price the core computed, once');
    assert.is(transaction?.faceValueKobo, 50_000n);
    assert.is(transaction?.recipient, '08031234567', 'the spaced number was bought for as the one number');
    await snap(page, 'buy-receipt');

    await page.reload();
    assert.match(await mainText(page), reference);
    assert.is(await balance(state), after, 'a reload of the receipt buys nothing');

    const again = await page.request.post(`${dashboard.url}/buy/airtime`, { form: sent, maxRedirects: 0 });
    assert.is(again.status(), 303);
    assert.is(
      again.headers().location,
      `/transactions/${reference}?bought=again`,
      'the same form is the same purchase',
    );
    assert.is(await balance(state), after, 'and nothing is charged again');
    assert.is(await transactionCount(state), 1);
    await page.goto(`${dashboard.url}${again.headers().location}`);
    assert.match(await mainText(page), 'charged once');
  },
);

flow(
  'a failed purchase shows its refund line and the balance after the refund; a pending one says it is waiting',
  async (state) => {
    const { dashboard, page } = state;
    const before = await balance(state);
    await page.goto(`${dashboard.url}/buy/airtime`);
    await page.getByLabel('Network').selectOption('glo');
    await page.getByLabel('Phone number').fill('08059999999');
    await page.getByLabel('Amount of airtime, in Naira').fill('100');
    await page.getByRole('button', { name: 'Buy airtime' }).click();
    await page.waitForURL(/\?bought=failed$/);
    const text = await mainText(page);
    assert.match(text, 'did not go through');
    assert.match(text, 'Failed (refunded)');
    assert.match(text, 'Refunded');
    assert.match(text, 'Balance after the refund');
    assert.is(await balance(state), before, 'the refund brought the balance back to the kobo');
    const shownAfterRefund = await page.locator('dt:has-text("Balance after the refund") + dd').textContent();
    assert.is(shownAfterRefund?.replace(/[₦,]/g, ''), (Number(before) / 100).toFixed(2));
    assert.match(text, 'Cost of this purchase');
    await snap(page, 'buy-failed-receipt');

    await page.goto(`${dashboard.url}/buy/airtime`);
    await page.getByLabel('Network').selectOption('airtel');
    await page.getByLabel('Phone number').fill('08028888888');
    await page.getByLabel('Amount of airtime, in Naira').fill('100');
    await page.getByRole('button', { name: 'Buy airtime' }).click();
    await page.waitForURL(/\?bought=new$/);
    assert.match(await mainText(page), 'Pending');
    assert.match(await mainText(page), 'Waiting for the network or biller to confirm');
    assert.not.match(await mainText(page), 'Balance after the refund');
  },
);

flow('a form error is a form error: nothing is bought, and the corrected form buys', async (state) => {
  const { dashboard, page } = state;
  const count = await transactionCount(state);
  await page.goto(`${dashboard.url}/buy/airtime`);
  await page.getByLabel('Network').selectOption('mtn');
  await page.getByLabel('Phone number').fill('0803');
  await page.getByLabel('Amount of airtime, in Naira').fill('five hundred');
  await page.getByRole('button', { name: 'Buy airtime' }).click();
  assert.match((await page.locator('.error-summary').textContent()) ?? '', 'Enter the amount in Naira');
  await page.getByLabel('Amount of airtime, in Naira').fill('200');
  await page.getByRole('button', { name: 'Buy airtime' }).click();
  assert.ok((await page.locator('.error-summary').count()) === 1, 'the core refuses the short phone number');
  assert.is(await page.locator('#phone').getAttribute('aria-invalid'), 'true', 'beside the phone field');
  assert.is(await transactionCount(state), count);
  await page.getByLabel('Phone number').fill('08031234000');
  await page.getByRole('button', { name: 'Buy airtime' }).click();
  await page.waitForURL(/\?bought=new$/);
  assert.is(await transactionCount(state), count + 1);
});

flow('data: a plan chosen from the list at its price', async (state) => {
  const { dashboard, page } = state;
  await page.goto(`${dashboard.url}/buy/data`);
  const groups = await page
    .locator('#plan_id optgroup')
    .evaluateAll((all) => all.map((g) => (g as HTMLOptGroupElement).label));
  assert.ok(groups.includes('MTN \u2013 SME') && groups.includes('MTN \u2013 Corporate gifting'), groups.join(', '));
  assert.ok(groups.indexOf('MTN \u2013 SME') < groups.indexOf('GLO \u2013 Gifting'), 'grouped by network first');
  const sme = page.locator('optgroup[label="MTN \u2013 SME"] option').first();
  assert.match((await sme.textContent()) ?? '', /^500MB, 7 days: you pay ₦\d/, 'size, validity and price');
  const plan = page.locator('#plan_id option[value]:not([value=""])').first();
  const planId = await plan.getAttribute('value');
  assert.ok(planId, 'the core lists plans');
  await page.getByLabel('Data plan').selectOption(planId!);
  await page.getByLabel('Phone number').fill('0803-123-0001');
  await page.getByRole('button', { name: 'Buy data' }).click();
  await page.waitForURL(/\?bought=new$/);
  const { transaction } = await state.core.purchase.getTransaction({
    accountId: state.accountId,
    reference: referenceIn(page.url()),
  });
  assert.is(String(transaction?.planId), planId);
  assert.is(transaction?.recipient, '08031230001', 'a dashed number too');
  await page.reload();
  assert.match(await mainText(page), 'Successful');
});

flow('electricity: the meter is checked first, then paid; the token has a copy button', async (state) => {
  const { dashboard, page } = state;
  await page.goto(`${dashboard.url}/buy/electricity`);
  await page.getByLabel('Distribution company').selectOption('ikedc');
  await page.getByLabel('Meter number').fill('45012345678');
  await page.getByRole('button', { name: 'Check the meter' }).click();
  const checked = await mainText(page);
  assert.match(checked, 'Name');
  assert.match(checked, '45012345678');
  await snap(page, 'buy-electricity-checked');
  await page.getByLabel('Amount of electricity, in Naira').fill('2,000');
  const before = await balance(state);
  await page.getByRole('button', { name: 'Pay for electricity' }).click();
  await page.waitForURL(/\?bought=new$/);
  const token = (await page.locator('#token').textContent()) ?? '';
  assert.match(token, /^\d{4}-\d{4}-\d{4}-\d{4}-\d{4}$/);
  assert.ok(await page.getByRole('button', { name: 'Copy token' }).isVisible(), 'the copy button is shown');
  assert.ok(await page.getByRole('button', { name: 'Print receipt' }).isVisible(), 'and the print button');
  await page.reload();
  assert.is(await page.locator('#token').textContent(), token);
  assert.ok((await balance(state)) < before);
  assert.is(before - (await balance(state)) > 0n, true);
  const spent = before - (await balance(state));
  await page.reload();
  assert.is(before - (await balance(state)), spent, 'reloads buy nothing');
});

flow('a meter that cannot be found is a form error, and nothing is paid', async (state) => {
  const { dashboard, page } = state;
  const count = await transactionCount(state);
  await page.goto(`${dashboard.url}/buy/electricity`);
  await page.getByLabel('Distribution company').selectOption('ekedc');
  await page.getByLabel('Meter number').fill('45012349999');
  await page.getByRole('button', { name: 'Check the meter' }).click();
  assert.is(await page.locator('.error-summary').count(), 1);
  assert.is(await transactionCount(state), count);
});

flow('cable TV: the smart card is checked first, then a package of that provider is paid', async (state) => {
  const { dashboard, page } = state;
  await page.goto(`${dashboard.url}/buy/cable`);
  await page.getByLabel('Provider').selectOption('gotv');
  await page.getByLabel('Smart card or IUC number').fill('7023456789');
  await page.getByRole('button', { name: 'Check the smart card' }).click();
  assert.match(await mainText(page), 'Current package');
  const option = page.locator('#package_code option:not([value=""])').first();
  const code = await option.getAttribute('value');
  assert.ok(code);
  await page.getByLabel('Change to another package, chosen below').check();
  await page.getByLabel('Package to change to').selectOption(code!);
  await page.getByRole('button', { name: 'Pay for cable TV' }).click();
  await page.waitForURL(/\?bought=new$/);
  const { transaction } = await state.core.purchase.getTransaction({
    accountId: state.accountId,
    reference: referenceIn(page.url()),
  });
  assert.is(transaction?.packageCode, code);
  assert.is(transaction?.service, 'gotv');
});

flow('cable TV: DStv renewed for 2 months at the renewal amount the check showed', async (state) => {
  const { dashboard, page } = state;
  await page.goto(`${dashboard.url}/buy/cable`);
  await page.getByLabel('Provider').selectOption('dstv');
  await page.getByLabel('Smart card or IUC number').fill('1023456789');
  await page.getByRole('button', { name: 'Check the smart card' }).click();
  const renewalText = (await page.locator('dt:has-text("Renewal amount") + dd').textContent()) ?? '';
  const renewalKobo = BigInt(Math.round(Number(renewalText.replace(/[^\d.]/g, '')) * 100));
  assert.ok(renewalKobo > 0n, `the check shows a renewal amount (${renewalText})`);
  const renew = page.getByLabel(/^Renew DStv/);
  assert.ok(await renew.isChecked(), 'renewing the current package is the first choice');
  assert.match((await page.locator('label[for="subscription_type-renew"]').textContent()) ?? '', renewalText);
  await page.getByLabel('Months to pay for').selectOption('2');
  await snap(page, 'buy-cable-renew');
  await page.getByRole('button', { name: 'Pay for cable TV' }).click();
  await page.waitForURL(/\?bought=new$/);
  const { transaction } = await state.core.purchase.getTransaction({
    accountId: state.accountId,
    reference: referenceIn(page.url()),
  });
  assert.is(transaction?.subscriptionType, 'renew');
  assert.is(transaction?.months, 2);
  assert.is(transaction?.faceValueKobo, renewalKobo * 2n, 'two months at the renewal amount shown');
});

flow('cable TV: changing a GOtv package is the package chosen, and StarTimes offers no months', async (state) => {
  const { dashboard, page } = state;
  await page.goto(`${dashboard.url}/buy/cable`);
  await page.getByLabel('Provider').selectOption('gotv');
  await page.getByLabel('Smart card or IUC number').fill('7023456700');
  await page.getByRole('button', { name: 'Check the smart card' }).click();
  await page.getByLabel('Change to another package, chosen below').check();
  await page.getByLabel('Package to change to').selectOption('GOTV MAX');
  await page.getByRole('button', { name: 'Pay for cable TV' }).click();
  await page.waitForURL(/\?bought=new$/);
  const { transaction } = await state.core.purchase.getTransaction({
    accountId: state.accountId,
    reference: referenceIn(page.url()),
  });
  assert.is(transaction?.packageCode, 'GOTV MAX');
  assert.is(transaction?.months, 1);

  await page.goto(`${dashboard.url}/buy/cable`);
  await page.getByLabel('Provider').selectOption('startimes');
  await page.getByLabel('Smart card or IUC number').fill('0123456789');
  await page.getByRole('button', { name: 'Check the smart card' }).click();
  assert.is(await page.locator('#months').count(), 0, 'StarTimes is paid a month at a time');
  assert.is(await page.locator('input[name="subscription_type"][type="radio"]').count(), 0);
});

flow('bulk SMS: recipients as typed, each charged once', async (state) => {
  const { dashboard, page } = state;
  await page.goto(`${dashboard.url}/buy/sms`);
  await page.getByLabel('Sender name').fill('AbujaTopup');
  await page.getByLabel('Recipients').fill('08031234567, 08031234567\n08051234567');
  await page.getByLabel('Message').fill('Your top-up is ready.');
  await page.getByRole('button', { name: 'Send the SMS' }).click();
  await page.waitForURL(/\?bought=new$/);
  assert.match(await mainText(page), '2 recipients, 1 page');
});

flow('test mode: the same page spends the test wallet only', async (state) => {
  const { dashboard, page } = state;
  await state.core.admin.creditWallet({
    accountId: state.accountId,
    amountKobo: 100_000n,
    memo: 'test money',
    reference: 'TEST-0101',
    mode: Mode.TEST,
  });
  const live = await balance(state);
  await page.goto(`${dashboard.url}/test/buy/airtime`);
  assert.is(await page.locator('.test-banner').count(), 1);
  await page.getByLabel('Network').selectOption('mtn');
  await page.getByLabel('Phone number').fill('+2348031234567');
  await page.getByLabel('Amount of airtime, in Naira').fill('100');
  await page.getByRole('button', { name: 'Buy airtime' }).click();
  await page.waitForURL(/\/test\/transactions\/[^?]+\?bought=new$/);
  assert.match(await mainText(page), '08031234567', 'and one with +234');
  assert.is(await balance(state), live, 'the live balance is untouched');
  assert.ok((await balance(state, Mode.TEST)) < 100_000n);
});

flow(
  "on a phone (390 px) a transaction's status, amount and charged are inside the viewport, and the statement's " +
    'balance too',
  async (state) => {
    const { dashboard, page } = state;
    await page.setViewportSize({ width: 390, height: 844 });
    try {
      await page.goto(`${dashboard.url}/transactions`);
      const first = page.locator('main tbody tr').first();
      for (const label of ['Status', 'Amount', 'Charged']) {
        const box = await first.locator(`[data-label="${label}"]`).boundingBox();
        assert.ok(box, `${label} is shown`);
        assert.ok(
          box!.x >= 0 && box!.x + box!.width <= 390,
          `${label} is inside the 390 px viewport (x ${box!.x}, width ${box!.width})`,
        );
      }
      assert.match((await first.locator('[data-label="Charged"]').textContent()) ?? '', '₦');
      await page.goto(`${dashboard.url}/statement`);
      const balance = await page.locator('main tbody tr').first().locator('[data-label="Balance after"]').boundingBox();
      assert.ok(balance && balance.x + balance.width <= 390, 'the balance after is inside the viewport');
    } finally {
      await page.setViewportSize({ width: 1280, height: 900 });
    }
    await snap(page, 'transactions-phone');
  },
);

flow('a viewer sees no form, and a forged POST is refused by the core', async (state) => {
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
  await page.goto(`${dashboard.url}/buy/airtime`);
  assert.match(await mainText(page), 'only an owner can buy');
  assert.is(await page.locator('main form').count(), 0);
  const csrf = await page.locator('input[name="csrf_token"]').first().getAttribute('value');
  const count = await transactionCount(state);
  const forged = await page.request.post(`${dashboard.url}/buy/airtime`, {
    form: {
      csrf_token: csrf ?? '',
      network: 'mtn',
      phone: '08031234567',
      amount: '100',
      request_id: 'web_forged_by_a_viewer_01',
    },
    maxRedirects: 0,
  });
  assert.is(forged.status(), 403);
  assert.is(await transactionCount(state), count);
  await context.close();
});

test.run();
