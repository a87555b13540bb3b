/**
 * Two-step sign-in that cannot lock people out, in a real browser (Debian's Chromium through
 * playwright-core) against a real core and dashboard: a mistyped code during set-up shows the
 * same key again, the ten recovery codes are shown once, one signs in once and is refused the
 * second time, and a signed-in session cannot start a new set-up while two-step sign-in is on.
 */
import { Secret, TOTP } from 'otpauth';
import type { Browser, Page } from 'playwright-core';
import * as assert from 'uvu/assert';
import { API_TIER_ID } from '../../core/catalog/defaults.js';
import { UserAdminService, UserRole } from '../../gen/prepaid/v1/holder_pb.js';
import { acceptInvitation, chromiumOrSkip, closeAll, launchChromium, signIn, snap } from '../helpers/browser.js';
import { startCore, type TestCore } from '../helpers/core.js';
import { startTestDashboard, type TestDashboard } from '../helpers/dashboard.js';
import { suite } from '../helpers/suite.js';

interface State {
  core: TestCore;
  dashboard: TestDashboard;
  browser: Browser;
  page: Page;
  /** How far the core's clock is ahead of the real one (TOTP steps). */
  clockOffsetMs: number;
}

const test = suite<State>('dashboard: recovery codes in a real browser', {} as State);
const haveChromium = chromiumOrSkip('recovery code browser tests');
const flow = haveChromium ? test : test.skip;

const EMAIL = 'tunde@example.ng';
const PASSWORD = 'correct horse battery staple';

test.before(async (state) => {
  if (!haveChromium) return;
  state.clockOffsetMs = 0;
  state.core = await startCore({ clock: () => new Date(Date.now() + state.clockOffsetMs) });
  state.dashboard = await startTestDashboard(state.core);
  state.browser = await launchChromium();
  state.page = await (await state.browser.newContext({ viewport: { width: 1280, height: 900 } })).newPage();
});
test.after(async (state) => {
  if (haveChromium) await closeAll(state.browser, state.dashboard, state.core);
});

function codeAt(secret: string, state: State): string {
  return new TOTP({ algorithm: 'SHA1', digits: 6, period: 30, secret: Secret.fromBase32(secret) }).generate({
    timestamp: Date.now() + state.clockOffsetMs,
  });
}

flow(
  'set-up keeps the key across a mistyped code, shows ten recovery codes once; one signs in once, and twice is refused',
  async (state) => {
    const { core, dashboard, page } = state;
    const { account } = await core.admin.createAccount({ name: 'Tunde Ventures', tierId: API_TIER_ID });
    const userAdmin = core.clientWithToken(UserAdminService, core.adminToken);
    const { invitation } = await userAdmin.inviteUser({
      accountId: account!.accountId,
      email: EMAIL,
      role: UserRole.OWNER,
    });
    await acceptInvitation(page, dashboard.url, invitation!.inviteUrl, PASSWORD);
    await signIn(page, dashboard.url, EMAIL, PASSWORD);
    await page.waitForURL(`${dashboard.url}/`);

    await page.goto(`${dashboard.url}/security`);
    await page.getByRole('button', { name: 'Set up two-step sign-in' }).click();
    const secret = (await page.textContent('#totp-secret'))!.trim().replace(/\s+/g, '');
    // A mistyped code: the same key is shown again, and the page says to keep the entry.
    await page
      .getByLabel('Code from your authenticator app')
      .fill(codeAt(secret, state) === '000000' ? '111111' : '000000');
    await page.getByRole('button', { name: 'Turn two-step sign-in on' }).click();
    assert.is(
      (await page.textContent('#totp-secret'))!.trim().replace(/\s+/g, ''),
      secret,
      'the same key after a mistyped code',
    );
    assert.match((await page.textContent('main')) ?? '', 'the ones you scanned already');
    await page.getByLabel('Code from your authenticator app').fill(codeAt(secret, state));
    await page.getByRole('button', { name: 'Turn two-step sign-in on' }).click();

    const codes = (await page.locator('#recovery-codes li').allTextContents()).map((text) => text.trim());
    assert.is(codes.length, 10);
    assert.match((await page.textContent('main')) ?? '', 'They will not be shown again');
    await snap(page, 'recovery-codes');
    await page.getByRole('link', { name: 'I have saved my recovery codes' }).click();
    await page.waitForURL(/\/security\?done=on$/);
    // While it is on, nothing offers a new set-up (the core refuses one too: step-up.test.ts).
    assert.is(await page.getByRole('button', { name: 'Set up two-step sign-in' }).count(), 0);

    // No phone: a recovery code instead of the code.
    await page.getByRole('button', { name: 'Sign out' }).click();
    await signIn(page, dashboard.url, EMAIL, PASSWORD);
    await page.waitForURL(/\/sign-in\/code$/);
    await page.getByLabel('Code').fill(codes[0]!);
    await page.getByRole('button', { name: 'Continue' }).click();
    await page.waitForURL(`${dashboard.url}/`);

    // The same recovery code a second time is refused.
    await page.getByRole('button', { name: 'Sign out' }).click();
    await signIn(page, dashboard.url, EMAIL, PASSWORD);
    await page.waitForURL(/\/sign-in\/code$/);
    await page.getByLabel('Code').fill(codes[0]!);
    await page.getByRole('button', { name: 'Continue' }).click();
    assert.match((await page.textContent('.error-summary')) ?? '', 'The code was not right');
    assert.ok(!page.url().endsWith(`${dashboard.url}/`), 'not signed in');

    // Another one still works.
    await signIn(page, dashboard.url, EMAIL, PASSWORD);
    await page.waitForURL(/\/sign-in\/code$/);
    await page.getByLabel('Code').fill(codes[1]!);
    await page.getByRole('button', { name: 'Continue' }).click();
    await page.waitForURL(`${dashboard.url}/`);
  },
);

test.run();
