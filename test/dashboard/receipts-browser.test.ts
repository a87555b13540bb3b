/**
 * Receipts and phone width, in a real browser against a real core and dashboard on port 0: a
 * pending purchase's receipt says pending and what happens next (the sandbox's documented
 * ending 8888 answers pending), a prepaid meter's receipt shows the token large with the
 * units and the customer's name the core's check found, and its copy button copies it under
 * the strict CSP; at 390 px every Buy page fits without scrolling sideways and the
 * navigation shows the current section; the Mail settings keep a mail turned off. Screenshots go to
 * .screenshots/dashboard/.
 */
import type { Browser, Page } from 'playwright-core';
import * as assert from 'uvu/assert';
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

const test = suite<State>('dashboard: receipts and phone width in a real browser', {} as State);
const haveChromium = chromiumOrSkip('dashboard receipt browser tests');
const flow = haveChromium ? test : test.skip;

const OWNER = { email: 'ngozi@kanotopup.ng', password: 'a long owner password 43' };
const mainText = async (page: Page) => (await page.textContent('main')) ?? '';
const referenceIn = (url: string) => decodeURIComponent(/\/transactions\/([^?]+)/.exec(url)?.[1] ?? '');

test.before(async (state) => {
  if (!haveChromium) return;
  state.core = await startCore();
  state.dashboard = await startTestDashboard(state.core);
  state.browser = await launchChromium();
  const owner = await ownerSignedIn(state.core, state.dashboard, state.browser, {
    account: 'Kano Top-up',
    ...OWNER,
    permissions: ['clipboard-read', 'clipboard-write'],
  });
  state.accountId = owner.accountId;
  state.page = owner.page;
  await state.core.admin.creditWallet({
    accountId: state.accountId,
    amountKobo: 5_000_000n,
    memo: 'first funding',
    reference: 'BANK-0201',
  });
});

test.after(async (state) => {
  if (haveChromium) await closeAll(state.browser, state.dashboard, state.core);
});

flow('a pending purchase says pending and what happens next, never "Done."', async (state) => {
  const { dashboard, page } = state;
  await page.goto(`${dashboard.url}/buy/airtime`);
  await page.getByLabel('Network').selectOption('mtn');
  // The sandbox answers a number ending in 8888 with no answer in time: pending (docs/sandbox.md).
  await page.getByLabel('Phone number').fill('0803 123 8888');
  await page.getByLabel('Amount of airtime, in Naira').fill('100');
  await page.getByRole('button', { name: 'Buy airtime' }).click();
  await page.waitForURL(/\?bought=new$/);
  const notice = (await page.locator('.notice').textContent()) ?? '';
  assert.match(notice, 'this purchase is pending');
  assert.not.match(notice, 'Done.');
  const text = await mainText(page);
  assert.match(text, 'Pending');
  assert.match(text, 'if the purchase fails it is refunded in full');
  const { transaction } = await state.core.purchase.getTransaction({
    accountId: state.accountId,
    reference: referenceIn(page.url()),
  });
  assert.is(transaction?.recipient, '08031238888');
  await snap(page, 'receipt-pending');
});

flow('a prepaid meter: the token large with units and the name the check found, and Copy copies it', async (state) => {
  const { dashboard, page } = state;
  await page.goto(`${dashboard.url}/buy/electricity`);
  await page.getByLabel('Distribution company').selectOption('ekedc');
  await page.getByLabel('Meter number').fill('45012345678');
  await page.getByRole('button', { name: 'Check the meter' }).click();
  const name = ((await page.locator('dt:has-text("Name") + dd').first().textContent()) ?? '').trim();
  assert.ok(name.length > 2, 'the check names the customer');
  await page.getByLabel('Amount of electricity, in Naira').fill('3,000');
  await page.getByRole('button', { name: 'Pay for electricity' }).click();
  await page.waitForURL(/\?bought=new$/);
  const token = page.locator('#token');
  const tokenText = ((await token.textContent()) ?? '').trim();
  assert.match(tokenText, /^\d{4}-\d{4}-\d{4}-\d{4}-\d{4}$/);
  const size = await token.evaluate((el) => Number.parseFloat(getComputedStyle(el).fontSize));
  const body = await page.evaluate(() => Number.parseFloat(getComputedStyle(document.body).fontSize));
  assert.ok(size > body * 1.2, `the token is large (${size}px against ${body}px)`);
  const facts = (await page.locator('.token-box__facts').textContent()) ?? '';
  assert.match(facts, /\d+(\.\d+)? kWh/, 'with its units');
  assert.match(facts, name, 'and the customer the check found');
  assert.is(((await page.locator('dt:has-text("Customer") + dd').textContent()) ?? '').trim(), name);
  await page.getByRole('button', { name: 'Copy token' }).click();
  await page.getByRole('button', { name: 'Copied' }).waitFor();
  assert.is(await page.evaluate(() => navigator.clipboard.readText()), tokenText, 'the clipboard holds the token');
  await snap(page, 'receipt-token');
});

/** The current section's link lies inside the navigation band, clear of the fade at its right end. */
async function currentSectionShown(page: Page, label: string): Promise<void> {
  const nav = page.getByRole('navigation', { name: 'Sections' });
  const band = await nav.boundingBox();
  const link = await nav.locator('a[aria-current="page"]').boundingBox();
  assert.is(((await nav.locator('a[aria-current="page"]').textContent()) ?? '').trim(), label);
  assert.ok(band && link, 'the band and its current link are laid out');
  // The fade covers the band's last fifth (dashboard.css, .site-nav's mask).
  assert.ok(
    link!.x >= band!.x && link!.x + link!.width <= band!.x + band!.width * 0.8,
    `${label} is in view (link ${link!.x}..${link!.x + link!.width}, band ${band!.x}..${band!.x + band!.width})`,
  );
}

flow('at 390 px every Buy page fits without scrolling sideways, and the navigation shows Buy', async (state) => {
  const { dashboard, page } = state;
  await page.setViewportSize({ width: 390, height: 844 });
  try {
    for (const path of ['/buy', '/buy/airtime', '/buy/data', '/buy/electricity', '/buy/cable', '/buy/sms']) {
      await page.goto(`${dashboard.url}${path}`);
      await currentSectionShown(page, 'Buy');
      await snap(page, `phone${path.replaceAll('/', '-')}`);
      await page.setViewportSize({ width: 390, height: 844 });
    }
    await page.goto(`${dashboard.url}/buy/cable`);
    await page.getByLabel('Provider').selectOption('dstv');
    await page.getByLabel('Smart card or IUC number').fill('1023456789');
    await page.getByRole('button', { name: 'Check the smart card' }).click();
    await currentSectionShown(page, 'Buy');
    await snap(page, 'phone-buy-cable-checked');
    await page.setViewportSize({ width: 390, height: 844 });
    await page.goto(`${dashboard.url}/webhooks`);
    await currentSectionShown(page, 'Webhooks');
  } finally {
    await page.setViewportSize({ width: 1280, height: 900 });
  }
});

flow('Mail settings: a mail turned off stays off, from the Security page, at both widths', async (state) => {
  const { dashboard, page } = state;
  await page.goto(`${dashboard.url}/security`);
  await page.getByRole('link', { name: 'Mail settings' }).click();
  await page.waitForURL(`${dashboard.url}/settings/mail`);
  const credited = page.getByLabel('Money arrived');
  assert.ok(await credited.isChecked(), 'every mail is on at first');
  await credited.uncheck();
  await page.getByRole('button', { name: 'Save mail settings' }).click();
  await page.waitForURL(/\/settings\/mail\?saved=1$/);
  assert.match((await page.locator('.notice').textContent()) ?? '', 'saved');
  assert.not.ok(await page.getByLabel('Money arrived').isChecked(), 'kept off');
  assert.ok(await page.getByLabel('Money taken out by the platform').isChecked(), 'the others stay on');
  await snap(page, 'mail-settings');
});

test.run();
