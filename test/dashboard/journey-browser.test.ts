/**
 * A reseller's whole way in, end to end in a real browser (Debian's Chromium through
 * playwright-core) against a real core, gateway, developer area and console on port 0, with a
 * real SMTP receiver: sign up (SIGNUP=open), the mailed link, the phone's code from the sandbox's
 * SMS outbox; the test world funded by the page's simulated transfer and a test purchase; the
 * live wallet funded by a sandbox bank transfer (FUNDING_SANDBOX_LIVE=on) and a live purchase; a
 * transfer over level 1's inflow limit partly held (the Verify page says so) and a purchase over
 * its daily spend refused (LEVEL_LIMIT); level 2 asked on the Verify page and approved by a
 * finance member on the console, the held credit arriving in the balance; API access asked on
 * the keys page and approved by an admin on the console, the first key pair shown once and
 * working at the gateway; and the core's ledger check finding nothing wrong. The limits are the
 * defaults of docs/kyc.md. Screenshots go to .screenshots/dashboard/.
 */
import type { Browser, Page } from 'playwright-core';
import * as assert from 'uvu/assert';
import { parseSmtpUrl } from '../../core/mail/smtp.js';
import { naira } from '../../dashboard/format.js';
import { FundingService } from '../../gen/prepaid/v1/funding_pb.js';
import { Mode } from '../../gen/prepaid/v1/types_pb.js';
import { chromiumOrSkip, closeAll, launchChromium, signIn, snap } from '../helpers/browser.js';
import { startTestConsole, type TestConsole } from '../helpers/console.js';
import { assertLedgerInvariant, startCore, type TestCore } from '../helpers/core.js';
import { startTestDashboard, type TestDashboard } from '../helpers/dashboard.js';
import { startTestGateway, type TestGateway } from '../helpers/gateway.js';
import { type SmtpReceiver, startSmtpReceiver } from '../helpers/smtp.js';
import { consoleClients, STAFF_PASSWORD, TestClock } from '../helpers/staff.js';
import { suite } from '../helpers/suite.js';

interface State {
  smtp: SmtpReceiver;
  clock: TestClock;
  core: TestCore;
  gateway: TestGateway;
  dashboard: TestDashboard;
  app: TestConsole;
  browser: Browser;
  page: Page;
  accountId: string;
  /** The held credit the Verify page named, in kobo. */
  heldKobo: bigint;
}

const test = suite<State>("a reseller's whole way in, in a real browser", {} as State);
const haveChromium = chromiumOrSkip('journey browser tests');
const flow = haveChromium ? test : test.skip;

const OWNER = {
  name: 'Kano Airtime Hub',
  email: 'musa@kanoairtime.ng',
  phone: '0803 555 0177',
  password: 'a long journey password 9',
};
const PHONE = '08035550177';
const mainText = async (page: Page) => (await page.textContent('main')) ?? '';
const liveBalance = async (state: State) =>
  (await state.core.purchase.getBalance({ accountId: state.accountId, mode: Mode.LIVE })).balanceKobo;
const testBalance = async (state: State) =>
  (await state.core.purchase.getBalance({ accountId: state.accountId, mode: Mode.TEST })).balanceKobo;

/** "₦10,000" or "₦10,000.50" (the Verify page's Naira) in kobo. */
const koboOf = (text: string) => {
  const [whole, part = ''] = text.replace(/[₦,]/g, '').split('.');
  return BigInt(whole!) * 100n + BigInt(part.padEnd(2, '0') || '0');
};

test.before(async (state) => {
  if (!haveChromium) return;
  state.smtp = await startSmtpReceiver();
  const server = parseSmtpUrl(state.smtp.url);
  if ('problem' in server) throw new Error(server.problem);
  state.clock = new TestClock();
  state.core = await startCore({
    clock: state.clock.now,
    mail: { server, from: 'no-reply@prepaid.example.ng' },
    signUp: { mode: 'open', perAddressPerDay: 20 },
    // The sandbox bank stands in for a live funding provider (FUNDING_SANDBOX_LIVE=on).
    funding: { sandboxLive: true, kycKey: 'k'.repeat(32) },
  });
  state.gateway = await startTestGateway(state.core, { authCacheTtlMs: 0 });
  state.dashboard = await startTestDashboard(state.core);
  state.app = await startTestConsole(state.core);
  state.browser = await launchChromium();
  state.page = await (await state.browser.newContext({ viewport: { width: 1280, height: 900 } })).newPage();
});

test.after(async (state) => {
  if (haveChromium) await closeAll(state.browser, state.app, state.dashboard, state.gateway, state.smtp, state.core);
});

/**
 * A finance or admin member invited with SMTP configured: the set-up link is mailed to them (never
 * handed to the inviter), so it is read from the SMTP receiver; then the console's set-up page and
 * its sign-in page with a fresh code, in a fresh browser context.
 */
async function staffFromMail(state: State, role: 'admin' | 'finance', email: string): Promise<Page> {
  const { console, staffAdmin } = consoleClients(state.core);
  const invited = await staffAdmin.inviteStaff({ email, role });
  assert.is(invited.setupUrl, '', 'the inviter is not handed the link');
  const mail = await state.smtp.next(email, "You are invited to the platform's console");
  const setupToken = /\/setup\/([A-Za-z0-9_-]+)/.exec(mail.text)![1]!;
  const { totpSecret } = await console.getStaffSetup({ setupToken });
  const page = await (await state.browser.newContext({ viewport: { width: 1280, height: 900 } })).newPage();
  await page.goto(`${state.app.url}/setup/${setupToken}`);
  await page.getByLabel(/Choose a password/).fill(STAFF_PASSWORD);
  await page.getByLabel('Code your app shows now').fill(state.clock.nextCode(totpSecret));
  await page.getByRole('button', { name: 'Finish set-up' }).click();
  await page.waitForURL(`${state.app.url}/sign-in`);
  await page.getByLabel('Email').fill(email);
  await page.getByLabel('Password').fill(STAFF_PASSWORD);
  await page.getByLabel('Code from your authenticator app').fill(state.clock.nextCode(totpSecret));
  await page.getByRole('button', { name: 'Sign in' }).click();
  await page.waitForURL(`${state.app.url}/`);
  return page;
}

/** The Fund wallet page's identity form (of the mode's page), for the wallet's Sandbox Bank number. */
async function openAccount(page: Page, fundUrl: string): Promise<string> {
  await page.goto(fundUrl);
  await page.getByLabel('BVN or NIN').fill('22345678901');
  await page.getByLabel('First name').fill('Musa');
  await page.getByLabel('Last name').fill('Bello');
  await page.getByLabel('Phone number').fill(PHONE);
  await page.getByLabel('Email address').fill(OWNER.email);
  await page.getByRole('button', { name: 'Get account numbers' }).click();
  await page.waitForURL(`${fundUrl}?done=opened`);
  return ((await page.locator('#account-number-0').textContent()) ?? '').trim();
}

async function buyAirtime(page: Page, base: string, phone: string, amountNaira: string): Promise<void> {
  await page.goto(`${base}/buy/airtime`);
  await page.getByLabel('Network').selectOption('mtn');
  await page.getByLabel('Phone number').fill(phone);
  await page.getByLabel('Amount of airtime, in Naira').fill(amountNaira);
  await page.getByRole('button', { name: 'Buy airtime' }).click();
}

/** A transfer into the live wallet's Sandbox Bank number, as `prepaid funding simulate-transfer` makes one. */
async function liveTransfer(state: State, accountNumber: string, amountKobo: bigint, reference: string) {
  await state.core.clientWithToken(FundingService, state.core.adminToken).simulateTransfer({
    accountNumber,
    amountKobo,
    reference,
    payerName: 'MUSA BELLO',
  });
}

flow('1. signs up, opens the mailed link and verifies the phone with the SMS code', async (state) => {
  const { core, dashboard, smtp, page } = state;
  await page.goto(`${dashboard.url}/sign-up`);
  await page.getByLabel('Business name or your name').fill(OWNER.name);
  await page.getByLabel('Email address').fill(OWNER.email);
  await page.getByLabel('Mobile number').fill(OWNER.phone);
  await page.getByLabel('Password').fill(OWNER.password);
  await page.getByRole('button', { name: 'Create account' }).click();
  await page.getByRole('heading', { name: 'Check your email' }).waitFor();
  const link = /https?:\/\/\S+?(\/verify\/email\/[A-Za-z0-9_-]{43})/.exec(
    (await smtp.next(OWNER.email, 'Verify your email')).text,
  );
  assert.ok(link, 'the mail carries the link');
  await signIn(page, dashboard.url, OWNER.email, OWNER.password);
  await page.waitForURL(`${dashboard.url}/`);
  assert.match(await mainText(page), 'Verify your account.');

  await page.goto(`${dashboard.url}${link![1]}`);
  await page.getByRole('button', { name: 'Verify my email' }).click();
  await page.getByRole('heading', { name: 'Your email address is verified' }).waitFor();
  await page.goto(`${dashboard.url}/verify`);
  await page.getByRole('button', { name: 'Send me a code' }).click();
  await page.waitForURL(/\/verify\?done=sent$/);
  const sms = core.sandbox.outbox.filter((one) => one.to === PHONE).at(-1);
  assert.ok(sms, 'the code went to the phone given');
  await page.getByLabel('Code from the SMS').fill(/(\d{6})/.exec(sms!.text)![1]!);
  await page.getByRole('button', { name: 'Verify my phone' }).click();
  await page.waitForURL(/\/verify\?done=phone$/);
  assert.match(await mainText(page), 'live funding and live purchases are open');
  assert.match(await mainText(page), 'Your account is at level 1.', 'a self-signed-up account starts at level 1');
  const user = await core.store.people.findUserByEmail(OWNER.email);
  state.accountId = (await core.store.people.listMemberships(user!.userId))[0]!.accountId;
});

flow('2. switches to the test world, simulates a transfer and buys test airtime for 0803 123 4567', async (state) => {
  const { dashboard, page } = state;
  await page.goto(`${dashboard.url}/`);
  await page.getByRole('link', { name: 'Test', exact: true }).first().click();
  await page.waitForURL(`${dashboard.url}/test`);
  await openAccount(page, `${dashboard.url}/test/fund`);
  await page.getByLabel('Amount to transfer, in Naira').fill('5,000');
  await page.getByRole('button', { name: 'Simulate the transfer' }).click();
  await page.waitForURL(/\/test\/fund\?done=transfer$/);
  assert.match(await mainText(page), 'The simulated transfer arrived');
  const funded = await testBalance(state);
  assert.ok(funded > 0n && funded <= 500_000n, 'the test wallet has the transfer, less any fee');
  await buyAirtime(page, `${dashboard.url}/test`, '0803 123 4567', '1,000');
  await page.waitForURL(/\/test\/transactions\/[^?]+\?bought=new$/);
  assert.match(await mainText(page), 'Successful');
  assert.match(await mainText(page), '08031234567');
  assert.ok((await testBalance(state)) < funded, 'the test money paid for it');
  assert.is(await liveBalance(state), 0n, 'the live wallet is untouched');
  await snap(page, 'journey-test-bought');
});

flow('3. funds the live wallet by a sandbox bank transfer and buys live airtime', async (state) => {
  const { dashboard, page } = state;
  const accountNumber = await openAccount(page, `${dashboard.url}/fund`);
  await liveTransfer(state, accountNumber, 1_000_000n, 'SBX-JOURNEY-0001');
  const funded = await liveBalance(state);
  assert.ok(funded > 0n && funded <= 1_000_000n, 'the ₦10,000 arrived, less any fee');
  await page.goto(`${dashboard.url}/`);
  assert.match((await page.locator('.card__figure').first().textContent()) ?? '', naira(funded));
  await buyAirtime(page, dashboard.url, '0803 123 4567', '200');
  await page.waitForURL(/\/transactions\/[^?]+\?bought=new$/);
  assert.match(await mainText(page), 'Successful');
  assert.ok((await liveBalance(state)) < funded, 'charged from the live wallet');
  await snap(page, 'journey-live-bought');
});

flow('4. a transfer over the level 1 inflow is partly held; a purchase over the day is LEVEL_LIMIT', async (state) => {
  const { dashboard, page } = state;
  await page.goto(`${dashboard.url}/fund`);
  const accountNumber = ((await page.locator('#account-number-0').textContent()) ?? '').trim();
  // Level 1 allows ₦300,000 in all; ₦10,000 came before, so part of this ₦300,000 is held.
  const before = await liveBalance(state);
  await liveTransfer(state, accountNumber, 30_000_000n, 'SBX-JOURNEY-0002');
  const received = (await liveBalance(state)) - before;
  assert.ok(received > 0n && received < 30_000_000n, 'credited up to the limit only');
  await page.goto(`${dashboard.url}/verify`);
  const notice = (await page.locator('[data-held]').textContent()) ?? '';
  const said = /(₦[\d,]+(?:\.\d\d)?) received, (₦[\d,]+(?:\.\d\d)?) held: verify your BVN or NIN/.exec(notice);
  assert.ok(said, `the Verify page says what was received and what is held: ${notice}`);
  state.heldKobo = koboOf(said![2]!);
  // No funding fee here: ₦290,000 of the ₦300,000 fits the ₦300,000 in all, ₦10,000 waits.
  assert.is(received, 29_000_000n, 'the wallet got what level 1 allows');
  assert.is(state.heldKobo, 1_000_000n, 'the page names the ₦10,000 held');
  await snap(page, 'journey-held');

  // ₦31,000 of MTN airtime charges more than level 1's ₦30,000 a day.
  const left = await liveBalance(state);
  await buyAirtime(page, dashboard.url, '0803 123 4567', '31,000');
  const refusal = await mainText(page);
  assert.match(refusal, "over this account's identity level limit of 30,000.00 Naira a day");
  assert.match(refusal, 'nothing was charged');
  assert.ok(await page.locator('.error-summary').isVisible(), 'the buy form again, with the sentence at its top');
  assert.is(await page.getByRole('button', { name: 'Buy airtime' }).count(), 1);
  await snap(page, 'journey-level-limit');
  assert.is(await liveBalance(state), left, 'nothing was charged');
});

flow('5. asks for level 2; a finance member approves it on the console; the held credit arrives', async (state) => {
  const { dashboard, page, app, accountId } = state;
  await page.goto(`${dashboard.url}/verify`);
  await page.getByLabel('NIN (National Identification Number)').check();
  await page.getByLabel('The 11 digits of your BVN or NIN').fill('1234 5678 901');
  await page.getByRole('button', { name: 'Ask for level 2' }).click();
  await page.waitForURL(/\/verify\?done=level$/);
  assert.match(await mainText(page), 'Your NIN ••••8901 is waiting for our staff');

  const finance = await staffFromMail(state, 'finance', 'hauwa@ops.example.ng');
  await finance.goto(`${app.url}/kyc`);
  const item = finance.locator(`[data-level-request="${accountId}"]`);
  assert.match((await item.textContent()) ?? '', 'NIN ••••8901');
  await item.getByLabel('What you checked').fill('NIN matches the owner, checked at NIMC');
  const before = await liveBalance(state);
  await item.getByRole('button', { name: 'Approve level 2' }).click();
  await finance.waitForURL(/\/kyc\?done=/);
  assert.match(await mainText(finance), 'held was credited');
  const after = await liveBalance(state);
  assert.is(after, before + state.heldKobo, 'the held credit the Verify page named arrived, whole');

  await page.goto(`${dashboard.url}/verify`);
  assert.match(await mainText(page), 'Your account is at level 2.');
  assert.not.match(await mainText(page), 'held:');
  await page.goto(`${dashboard.url}/`);
  assert.match((await page.locator('.card__figure').first().textContent()) ?? '', naira(after));
  await snap(page, 'journey-level-2');
});

flow('6. asks for API access; an admin approves it on the console; the first key pair works', async (state) => {
  const { core, dashboard, gateway, page, accountId } = state;
  await page.goto(`${dashboard.url}/keys`);
  assert.match(await mainText(page), 'needs API access');
  await page.getByLabel('What will you build with the API? (optional)').fill('Our shop in Kano sells airtime.');
  await page.getByRole('button', { name: 'Ask for API access' }).click();
  await page.waitForURL(/\/keys\?done=requested$/);
  assert.match(await mainText(page), 'waiting for approval');

  // Approving API access is an admin's power (a finance member's console does not offer it).
  const admin = await staffFromMail(state, 'admin', 'ngozi@ops.example.ng');
  const request = admin.locator(`[data-upgrade="${accountId}"]`);
  assert.match((await request.textContent()) ?? '', OWNER.email);
  await request.getByRole('button', { name: 'Approve: move to the API tier' }).click();
  await admin.waitForURL(/\?done=/);
  assert.is((await core.admin.listApiKeys({ accountId })).keys.length, 0, 'no key until the owner comes');

  await page.goto(`${dashboard.url}/`);
  await page.waitForURL(/\/keys\?created=[A-Za-z0-9_-]+&first=1$/);
  assert.match(await mainText(page), 'now has API access');
  const keys = {
    publicKey: (await page.textContent('#new-public-key'))!.trim(),
    secretKey: (await page.textContent('#new-secret-key'))!.trim(),
  };
  assert.match(keys.secretKey, /^sk_/);
  await snap(page, 'journey-first-key');
  await page.reload();
  assert.not.match(await page.content(), keys.secretKey, 'shown once');

  const answer = await gateway.request({ query: { action: 'balance' }, keys });
  assert.is(answer.status, 200, answer.text);
  assert.is(BigInt(Math.round((answer.json.balance as number) * 100)), await liveBalance(state));
});

flow("7. the core's ledger check finds no violation", async (state) => {
  const check = await state.core.admin.checkLedger({});
  assert.is(check.violationCount, 0n, JSON.stringify(check.violations));
  assert.ok(check.accountsChecked > 0n);
  await assertLedgerInvariant(state.core, state.accountId);
});

test.run();
