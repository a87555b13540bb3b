/**
 * Password reset by email, end to end in a real browser (Debian's Chromium through
 * playwright-core) against a real core, dashboard and SMTP receiver: "Forgot password?" on the
 * sign-in page, the same answer for an unknown email (and no mail), the mailed link sets a new
 * password, the new password signs in, the session signed in before has ended, and the link is
 * refused the second time; a fresh link is refused an hour later (the core's clock moved, no
 * sleep).
 */
import type { Browser, Page } from 'playwright-core';
import * as assert from 'uvu/assert';
import { API_TIER_ID } from '../../core/catalog/defaults.js';
import { parseSmtpUrl } from '../../core/mail/smtp.js';
import { UserAdminService, UserRole } from '../../gen/prepaid/v1/holder_pb.js';
import { acceptInvitation, chromiumOrSkip, closeAll, launchChromium, signIn, snap } from '../helpers/browser.js';
import { startCore, type TestCore } from '../helpers/core.js';
import { startTestDashboard, type TestDashboard } from '../helpers/dashboard.js';
import { type SmtpReceiver, startSmtpReceiver } from '../helpers/smtp.js';
import { suite } from '../helpers/suite.js';

interface State {
  smtp: SmtpReceiver;
  core: TestCore;
  dashboard: TestDashboard;
  browser: Browser;
  /** How far the core's clock is ahead of the real one. */
  clockOffsetMs: number;
}

const test = suite<State>('dashboard: password reset by email in a real browser', {} as State);
const haveChromium = chromiumOrSkip('password reset browser tests');
const flow = haveChromium ? test : test.skip;

const EMAIL = 'ngozi@example.ng';
const OLD_PASSWORD = 'the old password I lost';
const NEW_PASSWORD = 'a fresh password to remember';
const RESET_SUBJECT = 'Reset your password';

test.before(async (state) => {
  if (!haveChromium) return;
  state.clockOffsetMs = 0;
  state.smtp = await startSmtpReceiver();
  const server = parseSmtpUrl(state.smtp.url);
  if ('problem' in server) throw new Error(server.problem);
  state.core = await startCore({
    clock: () => new Date(Date.now() + state.clockOffsetMs),
    mail: { server, from: 'no-reply@prepaid.example.ng' },
  });
  state.dashboard = await startTestDashboard(state.core);
  state.browser = await launchChromium();
});
test.after(async (state) => {
  if (haveChromium) await closeAll(state.browser, state.dashboard, state.core, state.smtp);
});

const fresh = async (state: State): Promise<Page> =>
  (await state.browser.newContext({ viewport: { width: 1280, height: 900 } })).newPage();

/**
 * The path of the reset link in a mail (the core builds it on DASHBOARD_PUBLIC_URL; the test's dashboard has
 * its own port).
 */
function linkPath(text: string): string {
  const found = /https?:\/\/\S+?(\/reset\/[A-Za-z0-9_-]{43})/.exec(text);
  assert.ok(found, 'the mail carries a reset link');
  return found![1]!;
}

async function askForLink(page: Page, dashboardUrl: string, email: string): Promise<string> {
  await page.goto(`${dashboardUrl}/sign-in`);
  await page.getByRole('link', { name: 'Forgot password?' }).click();
  await page.waitForURL(/\/password\/forgot$/);
  await page.getByLabel('Email address').fill(email);
  await page.getByRole('button', { name: 'Send the link' }).click();
  await page.getByRole('heading', { name: 'Check your email' }).waitFor();
  return ((await page.textContent('main')) ?? '').replace(email, '<email>');
}

flow(
  'ask, receive, open the link, set a password, sign in with it; old sessions end; the link works once',
  async (state) => {
    const { core, dashboard, smtp } = state;
    const { account } = await core.admin.createAccount({ name: 'Ngozi Data Hub', tierId: API_TIER_ID });
    const { invitation } = await core.clientWithToken(UserAdminService, core.adminToken).inviteUser({
      accountId: account!.accountId,
      email: EMAIL,
      role: UserRole.OWNER,
    });
    const before = await fresh(state);
    await acceptInvitation(before, dashboard.url, invitation!.inviteUrl, OLD_PASSWORD);
    await signIn(before, dashboard.url, EMAIL, OLD_PASSWORD);
    await before.waitForURL(`${dashboard.url}/`);

    const page = await fresh(state);
    // An unknown email first: the same page, and no mail (anything for it would come before the next).
    const unknownAnswer = await askForLink(page, dashboard.url, 'stranger@example.ng');
    const knownAnswer = await askForLink(page, dashboard.url, EMAIL);
    assert.is(unknownAnswer, knownAnswer, 'the same answer whether or not the email is a user');
    await snap(page, 'password-reset-sent');
    const mail = await smtp.next(EMAIL, RESET_SUBJECT);
    assert.is(smtp.mails.filter((one) => one.to === 'stranger@example.ng').length, 0);
    const path = linkPath(mail.text);

    await page.goto(`${dashboard.url}${path}`);
    assert.match((await page.textContent('main')) ?? '', EMAIL);
    await page.getByLabel('New password', { exact: true }).fill(NEW_PASSWORD);
    await page.getByLabel('New password again').fill(NEW_PASSWORD);
    await page.getByRole('button', { name: 'Set new password' }).click();
    await page.waitForURL(/\/sign-in\?reset=1$/);
    await snap(page, 'password-reset-done');
    await signIn(page, dashboard.url, EMAIL, NEW_PASSWORD);
    await page.waitForURL(`${dashboard.url}/`);

    // The browser signed in before the reset is signed out.
    await before.goto(`${dashboard.url}/`);
    await before.waitForURL(/\/sign-in/);
    // The old password no longer works.
    const other = await fresh(state);
    await signIn(other, dashboard.url, EMAIL, OLD_PASSWORD);
    assert.match((await other.textContent('main')) ?? '', 'not right');

    // The link works once.
    const again = await fresh(state);
    const second = await again.goto(`${dashboard.url}${path}`);
    assert.is(second?.status(), 404);
    assert.match((await again.textContent('main')) ?? '', 'This reset link does not work');
  },
);

flow('a fresh link is refused an hour later', async (state) => {
  const { dashboard, smtp } = state;
  const page = await fresh(state);
  await askForLink(page, dashboard.url, EMAIL);
  const path = linkPath((await smtp.next(EMAIL, RESET_SUBJECT)).text);
  const open = await page.goto(`${dashboard.url}${path}`);
  assert.is(open?.status(), 200, 'it works now');
  state.clockOffsetMs += 61 * 60_000;
  const late = await page.goto(`${dashboard.url}${path}`);
  assert.is(late?.status(), 404);
  assert.match((await page.textContent('main')) ?? '', 'older than an hour');
  // A form opened in time and sent too late is refused too.
  state.clockOffsetMs -= 61 * 60_000;
  await page.goto(`${dashboard.url}${path}`);
  state.clockOffsetMs += 61 * 60_000;
  await page.getByLabel('New password', { exact: true }).fill(NEW_PASSWORD);
  await page.getByLabel('New password again').fill(NEW_PASSWORD);
  await page.getByRole('button', { name: 'Set new password' }).click();
  assert.match((await page.textContent('main')) ?? '', 'This reset link does not work');
});

test.run();
