/**
 * Signing up, end to end in a real browser (Debian's Chromium through playwright-core) against
 * a real core, dashboard and SMTP receiver: the form's field errors, the one answer, the mailed
 * link and its button, the phone's code read from the sandbox's SMS outbox, buying in the test
 * world at once, live money refused until both are verified, then funding by a sandbox bank
 * transfer (FUNDING_SANDBOX_LIVE=on) and buying live. With SIGNUP=invite the page says accounts
 * are by invitation. Screenshots go to .screenshots/dashboard/.
 */
import type { Browser, Page } from 'playwright-core';
import * as assert from 'uvu/assert';
import { parseSmtpUrl } from '../../core/mail/smtp.js';
import { FundingService } from '../../gen/prepaid/v1/funding_pb.js';
import { Mode } from '../../gen/prepaid/v1/types_pb.js';
import { chromiumOrSkip, closeAll, launchChromium, signIn, snap } from '../helpers/browser.js';
import { assertLedgerInvariant, startCore, type TestCore } from '../helpers/core.js';
import { startTestDashboard, type TestDashboard } from '../helpers/dashboard.js';
import { type SmtpReceiver, startSmtpReceiver } from '../helpers/smtp.js';
import { suite } from '../helpers/suite.js';

interface State {
  smtp: SmtpReceiver;
  core: TestCore;
  dashboard: TestDashboard;
  browser: Browser;
}

const test = suite<State>('dashboard: sign-up in a real browser', {} as State);
const haveChromium = chromiumOrSkip('sign-up browser tests');
const flow = haveChromium ? test : test.skip;

const EMAIL = 'amaka@abuja-vtu.ng';
const PASSWORD = 'a long sign-up password 7';

const mainText = async (page: Page) => (await page.textContent('main')) ?? '';

test.before(async (state) => {
  if (!haveChromium) return;
  state.smtp = await startSmtpReceiver();
  const server = parseSmtpUrl(state.smtp.url);
  if ('problem' in server) throw new Error(server.problem);
  state.core = await startCore({
    mail: { server, from: 'no-reply@prepaid.example.ng' },
    signUp: { mode: 'open', perAddressPerDay: 20 },
    // The sandbox bank stands in for a live funding provider (FUNDING_SANDBOX_LIVE=on).
    funding: { sandboxLive: true },
  });
  state.dashboard = await startTestDashboard(state.core);
  state.browser = await launchChromium();
});
test.after(async (state) => {
  if (haveChromium) await closeAll(state.browser, state.dashboard, state.core, state.smtp);
});

async function fillSignUp(page: Page, fields: { name: string; email: string; phone: string; password: string }) {
  await page.getByLabel('Business name or your name').fill(fields.name);
  await page.getByLabel('Email address').fill(fields.email);
  await page.getByLabel('Mobile number').fill(fields.phone);
  await page.getByLabel('Password').fill(fields.password);
  await page.getByRole('button', { name: 'Create account' }).click();
}

/** The Fund wallet page's identity form, for the live wallet's account number. */
async function openLiveAccount(page: Page, url: string): Promise<void> {
  await page.goto(`${url}/fund`);
  await page.getByLabel('BVN or NIN').fill('22345678901');
  await page.getByLabel('First name').fill('Amaka');
  await page.getByLabel('Last name').fill('Eze');
  await page.getByLabel('Phone number').fill('08035550101');
  await page.getByLabel('Email address').fill(EMAIL);
  await page.getByRole('button', { name: 'Get account numbers' }).click();
}

async function buyAirtime(page: Page, url: string, phone: string): Promise<void> {
  await page.goto(`${url}/buy/airtime`);
  await page.getByLabel('Network').selectOption('mtn');
  await page.getByLabel('Phone number').fill(phone);
  await page.getByLabel('Amount of airtime, in Naira').fill('200');
  await page.getByRole('button', { name: 'Buy airtime' }).click();
}

flow('sign up, verify the email and the phone, buy in the test world, fund by transfer and buy live', async (state) => {
  const { core, dashboard, smtp } = state;
  const page = await (await state.browser.newContext({ viewport: { width: 1280, height: 900 } })).newPage();
  await page.goto(`${dashboard.url}/sign-up`);
  await fillSignUp(page, { name: 'Abuja\tVTU', email: 'no-at-sign', phone: '12345', password: 'short' });
  const errors = await mainText(page);
  assert.match(errors, 'one line of text');
  assert.match(errors, 'Enter an email address such as');
  assert.match(errors, 'Nigerian mobile number');
  assert.match(errors, 'at least 12 characters');
  assert.is(await page.getByLabel('Password').inputValue(), '', 'the password is not put back in the form');

  await fillSignUp(page, { name: 'Abuja VTU', email: EMAIL, phone: '+234 803 555 0101', password: PASSWORD });
  await page.getByRole('heading', { name: 'Check your email' }).waitFor();
  await snap(page, 'sign-up-sent');
  const link = /https?:\/\/\S+?(\/verify\/email\/[A-Za-z0-9_-]{43})/.exec(
    (await smtp.next(EMAIL, 'Verify your email')).text,
  );
  assert.ok(link, 'the mail carries the link');

  // Signed in at once with the password: the test world is open, live money is not.
  await signIn(page, dashboard.url, EMAIL, PASSWORD);
  await page.waitForURL(`${dashboard.url}/`);
  assert.match(await mainText(page), 'Verify your account.');
  await page.goto(`${dashboard.url}/test/funds`);
  await page.getByLabel('Amount of test money, in Naira').fill('5000');
  await page.getByRole('button', { name: 'Add test funds' }).click();
  await buyAirtime(page, `${dashboard.url}/test`, '08031234567');
  await page.waitForURL(/\/test\/transactions\/[^?]+\?bought=new$/);
  assert.match(await mainText(page), 'Successful');
  await openLiveAccount(page, dashboard.url);
  assert.match(await mainText(page), 'Verify your account first', 'no live account number before the proofs');

  // The mailed link: opening it changes nothing, its button verifies.
  await page.goto(`${dashboard.url}${link![1]}`);
  await page.getByRole('button', { name: 'Verify my email' }).click();
  await page.getByRole('heading', { name: 'Your email address is verified' }).waitFor();

  // The phone: a code by SMS on the platform's route, read from the sandbox's outbox.
  await page.goto(`${dashboard.url}/verify`);
  await page.getByRole('button', { name: 'Send me a code' }).click();
  await page.waitForURL(/\/verify\?done=sent$/);
  const sms = core.sandbox.outbox.filter((one) => one.to === '08035550101').at(-1);
  assert.ok(sms, 'the code went to the phone given, in its 11-digit form');
  await page.getByLabel('Code from the SMS').fill('12345');
  await page.getByRole('button', { name: 'Verify my phone' }).click();
  assert.match(await mainText(page), 'Enter the 6-digit code');
  await page.getByLabel('Code from the SMS').fill(/(\d{6})/.exec(sms!.text)![1]!);
  await page.getByRole('button', { name: 'Verify my phone' }).click();
  await page.waitForURL(/\/verify\?done=phone$/);
  assert.match(await mainText(page), 'live funding and live purchases are open');
  await snap(page, 'sign-up-verified');

  // Live: an account number from the sandbox bank, a transfer, a live purchase.
  await openLiveAccount(page, dashboard.url);
  await page.waitForURL(`${dashboard.url}/fund?done=opened`);
  const accountNumber = ((await page.locator('#account-number-0').textContent()) ?? '').trim();
  await core.clientWithToken(FundingService, core.adminToken).simulateTransfer({
    accountNumber,
    amountKobo: 1_000_000n,
    reference: 'SBX-SIGNUP-0001',
    payerName: 'AMAKA EZE',
  });
  await buyAirtime(page, dashboard.url, '08035550102');
  await page.waitForURL(/\/transactions\/[^?]+\?bought=new$/);
  assert.match(await mainText(page), 'Successful');
  const user = await core.store.people.findUserByEmail(EMAIL);
  const [membership] = await core.store.people.listMemberships(user!.userId);
  const live = await core.purchase.getBalance({ accountId: membership!.accountId, mode: Mode.LIVE });
  assert.ok(live.balanceKobo > 0n && live.balanceKobo < 1_000_000n, 'funded, then charged');
  await assertLedgerInvariant(core, membership!.accountId);
});

flow('before both proofs a live purchase from the web is refused with the way to verify', async (state) => {
  const { dashboard, smtp } = state;
  const page = await (await state.browser.newContext()).newPage();
  const email = 'early@abuja-vtu.ng';
  await page.goto(`${dashboard.url}/sign-up`);
  await fillSignUp(page, { name: 'Early Bird', email, phone: '08035550109', password: PASSWORD });
  await page.getByRole('heading', { name: 'Check your email' }).waitFor();
  await smtp.next(email, 'Verify your email');
  await signIn(page, dashboard.url, email, PASSWORD);
  await page.waitForURL(`${dashboard.url}/`);
  await buyAirtime(page, dashboard.url, '08035550110');
  assert.match(await mainText(page), 'Verify your account first');
  assert.match(await mainText(page), 'Verify your email address and your phone number first');
});

flow('with SIGNUP=invite the sign-up page says accounts are by invitation', async (state) => {
  const core = await startCore();
  const dashboard = await startTestDashboard(core);
  try {
    const page = await (await state.browser.newContext()).newPage();
    const answer = await page.goto(`${dashboard.url}/sign-up`);
    assert.is(answer?.status(), 404);
    assert.match(await mainText(page), 'Accounts are by invitation');
  } finally {
    await dashboard.close();
    await core.close();
  }
});

test.run();
