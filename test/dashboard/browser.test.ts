/**
 * The developer area in a real browser: Debian's Chromium (/usr/bin/chromium, headless) driven
 * by playwright-core, against a real core, a real gateway and a real dashboard on port 0. It
 * walks what a holder does, from the invitation to the first purchase and beyond, and checks
 * each step where it could fail: in the page, at the API, and in the core.
 *
 * Screenshots of every page at 1280 and 390 pixels wide go to .screenshots/dashboard/ (git
 * ignores it). Without Chromium the tests are announced SKIPPED with the install command and
 * counted as skipped, never as passed.
 */
import { Secret, TOTP } from 'otpauth';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import * as assert from 'uvu/assert';
import { API_TIER_ID } from '../../core/catalog/defaults.js';
import { UserAdminService, UserRole } from '../../gen/prepaid/v1/holder_pb.js';
import { acceptInvitation, chromiumOrSkip, closeAll, launchChromium, signIn, snap } from '../helpers/browser.js';
import { startCore, type TestCore } from '../helpers/core.js';
import { startTestDashboard, type TestDashboard } from '../helpers/dashboard.js';
import { startTestGateway, type TestGateway } from '../helpers/gateway.js';
import { suite } from '../helpers/suite.js';

interface State {
  core: TestCore;
  gateway: TestGateway;
  dashboard: TestDashboard;
  browser: Browser;
  owner: BrowserContext;
  page: Page;
  accountId: string;
  ownerEmail: string;
  ownerPassword: string;
  /** The key pair the owner created in the dashboard. */
  keys: { publicKey: string; secretKey: string };
  reference: string;
  chargedNaira: number;
  /** How far the core's clock is ahead of the real one (sessions, TOTP steps). */
  clockOffsetMs: number;
  totpSecret: string;
}

const test = suite<State>('dashboard: in a real browser', {} as State);

/** A TOTP code as an authenticator app would show it at the core's time. */
function totpCode(state: State, extraMs = 0): string {
  const totp = new TOTP({ algorithm: 'SHA1', digits: 6, period: 30, secret: Secret.fromBase32(state.totpSecret) });
  return totp.generate({ timestamp: Date.now() + state.clockOffsetMs + extraMs });
}

const haveChromium = chromiumOrSkip('dashboard browser tests');
/** Each flow below runs only with Chromium; without it, uvu counts it as skipped. */
const flow = haveChromium ? test : test.skip;

test.before(async (state) => {
  if (!haveChromium) return;
  state.clockOffsetMs = 0;
  state.core = await startCore({ clock: () => new Date(Date.now() + state.clockOffsetMs) });
  // No key cache in the gateway, so that an IP lock or a revocation bites on the next request.
  state.gateway = await startTestGateway(state.core, { authCacheTtlMs: 0 });
  state.dashboard = await startTestDashboard(state.core, {
    DASHBOARD_API_URL: `http://127.0.0.1:${state.gateway.port}/api/v1`,
  });
  state.browser = await launchChromium();
  state.owner = await state.browser.newContext({ viewport: { width: 1280, height: 900 } });
  state.page = await state.owner.newPage();
  // The revoke and disable forms ask the script's confirm(); a person says yes.
  state.page.on('dialog', (dialog) => void dialog.accept());
  const created = await state.core.admin.createAccount({ name: 'Ada Stores & Sons', tierId: API_TIER_ID });
  state.accountId = created.account!.accountId;
  await state.core.admin.creditWallet({ accountId: state.accountId, amountKobo: 1_000_000n, memo: 'first funding' });
});

test.after(async (state) => {
  if (haveChromium) await closeAll(state.browser, state.dashboard, state.gateway, state.core);
});

flow('the operator invites an owner, who sets a password and signs in to the overview', async (state) => {
  const { core, dashboard, page } = state;
  state.ownerEmail = 'ada@adastores.ng';
  state.ownerPassword = 'correct horse battery staple';
  const userAdmin = core.clientWithToken(UserAdminService, core.adminToken);
  const { invitation } = await userAdmin.inviteUser({
    accountId: state.accountId,
    email: state.ownerEmail,
    role: UserRole.OWNER,
  });
  await page.goto(`${dashboard.url}${new URL(invitation!.inviteUrl).pathname}`);
  assert.match((await page.textContent('main')) ?? '', 'Ada Stores & Sons');
  await snap(page, 'invitation');
  // The core's rule: a short password is refused, and the page says so beside the field and at the top.
  await page.getByLabel('Password', { exact: true }).fill('too short');
  await page.getByLabel('Password again').fill('too short');
  await page.getByRole('button', { name: 'Set password' }).click();
  assert.is(await page.locator('.error-summary').isVisible(), true);
  assert.is(await page.locator('#password-error').isVisible(), true);
  await snap(page, 'invitation-error');
  await acceptInvitation(page, dashboard.url, invitation!.inviteUrl, state.ownerPassword);
  assert.match((await page.textContent('.notice')) ?? '', 'Your password is set');
  await snap(page, 'sign-in');

  await signIn(page, dashboard.url, state.ownerEmail, 'not the password at all');
  assert.match((await page.textContent('.error-summary')) ?? '', 'not right');
  await signIn(page, dashboard.url, state.ownerEmail, state.ownerPassword);
  await page.waitForURL(`${dashboard.url}/`);
  const cookie = (await state.owner.cookies()).find((c) => c.name === 'prepaid_session');
  assert.ok(cookie?.httpOnly, 'the session cookie is HttpOnly');
  assert.ok(cookie?.sameSite === 'Lax' || cookie?.sameSite === 'Strict', 'and SameSite');
  assert.match((await page.textContent('main')) ?? '', '₦10,000.00');
  assert.ok(await page.locator('svg.chart__svg').isVisible(), 'the spend chart is drawn by the server');
  await snap(page, 'overview');
});

flow('the owner creates a key and reads its secret once; reloading never shows it again', async (state) => {
  const { dashboard, page } = state;
  await page.goto(`${dashboard.url}/keys`);
  const [answer] = await Promise.all([
    page.waitForResponse((r) => r.url() === `${dashboard.url}/keys` && r.request().method() === 'POST'),
    page.getByRole('button', { name: 'Create a key pair' }).click(),
  ]);
  assert.is(answer.status(), 303, 'the key is made by a POST that redirects (post/redirect/get)');
  await page.waitForURL(/\/keys\?created=[A-Za-z0-9_-]+$/);
  assert.not.match(page.url(), /sk_/, 'the secret is not in the address');
  assert.match((await page.textContent('main')) ?? '', 'It will not be shown again');
  state.keys = {
    publicKey: (await page.textContent('#new-public-key'))!.trim(),
    secretKey: (await page.textContent('#new-secret-key'))!.trim(),
  };
  assert.match(state.keys.publicKey, /^pk_/);
  assert.match(state.keys.secretKey, /^sk_/);
  assert.ok(
    await page.getByRole('button', { name: 'Copy secret key' }).isVisible(),
    'the script shows the copy button',
  );
  await snap(page, 'keys-created');
  const keysBefore = (await state.core.admin.listApiKeys({ accountId: state.accountId })).keys.length;
  await page.reload();
  assert.not.match(await page.content(), state.keys.secretKey, 'a reload does not show the secret again');
  assert.match((await page.textContent('main')) ?? '', 'was shown once and is not shown again');
  assert.is(
    (await state.core.admin.listApiKeys({ accountId: state.accountId })).keys.length,
    keysBefore,
    'and makes no other key',
  );
  await page.goto(`${state.dashboard.url}/keys?created=${encodeURIComponent('not-a-handle')}`);
  assert.not.match(await page.content(), 'sk_', 'a made-up handle shows nothing');
  await page.goto(`${dashboard.url}/keys`);
  assert.not.match(await page.content(), state.keys.secretKey);
  assert.match((await page.textContent('main')) ?? '', state.keys.publicKey);
  await snap(page, 'keys');
});

flow(
  'a purchase with that key through the real gateway shows in Transactions with the same charge, and in the CSV',
  async (state) => {
    const { dashboard, gateway, page } = state;
    const bought = await gateway.request({
      query: { action: 'airtime' },
      keys: state.keys,
      body: { network: 'mtn', phone: '08031234567', amount: 100 },
    });
    assert.is(bought.status, 200, bought.text);
    state.reference = bought.json.reference;
    state.chargedNaira = bought.json.charged;
    const charged = `₦${state.chargedNaira.toFixed(2)}`;

    await page.goto(`${dashboard.url}/transactions`);
    const row = page.locator('tbody tr', { hasText: state.reference });
    assert.is(await row.count(), 1);
    assert.match((await row.textContent()) ?? '', charged);
    await snap(page, 'transactions');
    // The filter works without a script: a GET form.
    await page.getByLabel('Reference').fill(state.reference);
    await page.getByRole('button', { name: 'Apply filter' }).click();
    assert.match(page.url(), `reference=${state.reference}`);
    assert.is(await page.locator('tbody tr').count(), 1);
    await page.getByRole('link', { name: state.reference }).click();
    assert.match((await page.textContent('main')) ?? '', charged);
    assert.match((await page.textContent('main')) ?? '', '08031234567');
    await snap(page, 'transaction');

    const csv = await page.request.get(`${dashboard.url}/transactions.csv?reference=${state.reference}`);
    assert.is(csv.status(), 200);
    assert.match(csv.headers()['content-type'] ?? '', 'text/csv');
    const lines = (await csv.text()).trim().split('\r\n');
    assert.is(lines.length, 2, 'a header and the one purchase');
    assert.match(lines[0]!, /^reference,created_at,/);
    assert.match(lines[1]!, `${state.reference},`);
    assert.match(lines[1]!, `,${state.chargedNaira.toFixed(2)},`);

    await page.goto(`${dashboard.url}/statement`);
    assert.match((await page.textContent('main')) ?? '', `−${charged}`);
    await snap(page, 'statement');
    const statement = await page.request.get(`${dashboard.url}/statement.csv`);
    assert.match(await statement.text(), `-${state.chargedNaira.toFixed(2)}`);

    // A few earlier days of business (by the core's clock), for the overview's chart.
    const body = {
      data: { plan_id: 1, phone: '08031234567' },
      electricity: { disco: 'ikedc', meter_number: '45031234567', meter_type: 'prepaid', amount: 2500 },
    };
    for (const [daysAgo, action] of [
      [6, 'electricity'],
      [4, 'data'],
      [2, 'electricity'],
      [1, 'data'],
    ] as const) {
      state.clockOffsetMs = -daysAgo * 86_400_000;
      const earlier = await gateway.request({ query: { action }, keys: state.keys, body: body[action] });
      assert.is(earlier.status, 200, earlier.text);
    }
    state.clockOffsetMs = 0;
    await page.goto(`${dashboard.url}/`);
    assert.is(await page.locator('rect.bar--electricity').count(), 2);
    await snap(page, 'overview-with-spend');
  },
);

flow("prices and developers pages show the core's numbers and the holder's own public key", async (state) => {
  const { dashboard, gateway, page } = state;
  await page.goto(`${dashboard.url}/prices`);
  const plans = await gateway.request({ query: { action: 'plans', network: 'mtn' }, keys: state.keys });
  const plan = plans.json.plans[0];
  const planRow = page.locator('tr', { hasText: plan.plan }).first();
  assert.match(
    (await planRow.textContent()) ?? '',
    `₦${plan.price.toLocaleString('en-NG', { minimumFractionDigits: 2 })}`,
  );
  // The plan's type, size and validity, as the market sells it (the seeded MTN 500MB is SME, 7 days).
  const cells = await planRow.locator('td, th').allTextContents();
  assert.ok(cells.includes(plan.type === 'sme' ? 'SME' : plan.type), cells.join(' | '));
  assert.ok(cells.includes(`${plan.size_mb}MB`), cells.join(' | '));
  assert.ok(cells.includes(plan.validity), cells.join(' | '));
  await snap(page, 'prices');
  await page.goto(`${dashboard.url}/developers`);
  assert.match((await page.textContent('#curl-balance')) ?? '', state.keys.publicKey);
  assert.match((await page.textContent('main')) ?? '', `http://127.0.0.1:${gateway.port}/api/v1`);
  await snap(page, 'developers');
});

flow('a key locked to another address gets IP_NOT_ALLOWED; a revoked key gets 401', async (state) => {
  const { dashboard, gateway, page } = state;
  await page.goto(`${dashboard.url}/keys`);
  await page.getByRole('link', { name: `Change IP lock of ${state.keys.publicKey}` }).click();
  await page.getByLabel('Allowed addresses').fill('not-an-address');
  await page.getByRole('button', { name: 'Save IP lock' }).click();
  assert.ok(await page.locator('#allowed_ips-error').isVisible(), "the core's refusal beside the field");
  await snap(page, 'ip-lock-error');
  await page.getByLabel('Allowed addresses').fill('203.0.113.9');
  await page.getByRole('button', { name: 'Save IP lock' }).click();
  await page.waitForURL(/\/keys\?done=locked$/);
  assert.match((await page.textContent('main')) ?? '', '203.0.113.9');
  const locked = await gateway.request({ query: { action: 'balance' }, keys: state.keys });
  assert.is(locked.status, 401);
  assert.is(locked.json.code, 'IP_NOT_ALLOWED');

  await page.getByRole('link', { name: `Revoke ${state.keys.publicKey}` }).click();
  await snap(page, 'revoke');
  await page.getByRole('button', { name: 'Yes, revoke this key' }).click();
  await page.waitForURL(/\/keys\?done=revoked$/);
  const revoked = await gateway.request({ query: { action: 'balance' }, keys: state.keys });
  assert.is(revoked.status, 401);
});

flow('a POST without the CSRF token is refused and changes nothing', async (state) => {
  const { core, dashboard, page } = state;
  const before = (await core.admin.listApiKeys({ accountId: state.accountId })).keys.length;
  const refused = await page.request.post(`${dashboard.url}/keys`, { form: { anything: 'x' } });
  assert.is(refused.status(), 403);
  assert.match(await refused.text(), 'That form could not be accepted');
  assert.is((await core.admin.listApiKeys({ accountId: state.accountId })).keys.length, before);
});

flow(
  'a viewer invited from the dashboard sees keys but cannot create or revoke one, not even by a forged POST',
  async (state) => {
    const { browser, core, dashboard, page } = state;
    await page.goto(`${dashboard.url}/users`);
    await page.getByLabel('Email address').fill('chidi@adastores.ng');
    await page.getByLabel('Role').selectOption('viewer');
    await page.getByRole('button', { name: 'Create invitation link' }).click();
    const inviteUrl = (await page.textContent('#invite-url'))!.trim();
    assert.match((await page.textContent('main')) ?? '', 'It will not be shown again');
    await snap(page, 'users-invited');

    // The viewer's browser runs no script at all: every form works without it.
    const viewer = await browser.newContext({ javaScriptEnabled: false, viewport: { width: 1280, height: 900 } });
    const viewerPage = await viewer.newPage();
    await acceptInvitation(viewerPage, dashboard.url, inviteUrl, 'a viewer password of some length');
    await signIn(viewerPage, dashboard.url, 'chidi@adastores.ng', 'a viewer password of some length');
    await viewerPage.waitForURL(`${dashboard.url}/`);
    await viewerPage.goto(`${dashboard.url}/keys`);
    assert.is(await viewerPage.getByRole('button', { name: 'Create a key pair' }).count(), 0, 'no create button');
    assert.is(await viewerPage.getByRole('link', { name: /^Revoke/ }).count(), 0, 'no revoke link');
    await snap(viewerPage, 'keys-viewer');

    const before = await core.admin.listApiKeys({ accountId: state.accountId });
    const csrf = await viewerPage.locator('input[name=csrf_token]').first().inputValue();
    const forgedCreate = await viewerPage.request.post(`${dashboard.url}/keys`, { form: { csrf_token: csrf } });
    assert.is(forgedCreate.status(), 403);
    assert.match(await forgedCreate.text(), 'You cannot do that');
    const live = before.keys.find((key) => !key.revoked);
    assert.ok(live, 'the account has a live key to try to revoke');
    const forgedRevoke = await viewerPage.request.post(`${dashboard.url}/keys/revoke`, {
      form: { csrf_token: csrf, key: live.publicKey },
    });
    assert.is(forgedRevoke.status(), 403);
    const after = await core.admin.listApiKeys({ accountId: state.accountId });
    assert.is(after.keys.length, before.keys.length, 'no key was created');
    assert.is(after.keys.find((key) => key.publicKey === live.publicKey)?.revoked, false, 'the key is not revoked');
    await viewer.close();
  },
);

flow('two-step sign-in: set up with the QR code, then sign in with a code the test computes', async (state) => {
  const { dashboard, page } = state;
  await page.goto(`${dashboard.url}/security`);
  await snap(page, 'security');
  await page.getByRole('button', { name: 'Set up two-step sign-in' }).click();
  assert.ok(await page.locator('.qr svg').isVisible(), 'the QR code is shown');
  state.totpSecret = (await page.textContent('#totp-secret'))!.trim().replace(/\s+/g, '');
  await snap(page, 'security-setup');
  await page.getByLabel('Code from your authenticator app').fill(totpCode(state));
  await page.getByRole('button', { name: 'Turn two-step sign-in on' }).click();
  // The ten recovery codes are shown once (recovery-browser.test.ts uses them).
  assert.is(await page.locator('#recovery-codes li').count(), 10);
  await page.getByRole('link', { name: 'I have saved my recovery codes' }).click();
  await page.waitForURL(/\/security\?done=on$/);

  await page.getByRole('button', { name: 'Sign out' }).click();
  await page.waitForURL(/\/sign-in\?out=1$/);
  // A minute later by the core's clock, so the code is of a step not used yet.
  state.clockOffsetMs += 60_000;
  await signIn(page, dashboard.url, state.ownerEmail, state.ownerPassword);
  await page.waitForURL(/\/sign-in\/code$/);
  assert.is(await page.evaluate(() => document.activeElement?.id), 'totp_code', 'the code page focuses its one field');
  await snap(page, 'sign-in-code');
  await page.getByLabel('Code').fill('000000' === totpCode(state) ? '111111' : '000000');
  await page.getByRole('button', { name: 'Continue' }).click();
  assert.match(
    (await page.textContent('.error-summary')) ?? '',
    'The code was not right',
    'a wrong code is refused, and the sign-in starts again',
  );
  await signIn(page, dashboard.url, state.ownerEmail, state.ownerPassword);
  await page.waitForURL(/\/sign-in\/code$/);
  await page.getByLabel('Code').fill(totpCode(state));
  await page.getByRole('button', { name: 'Continue' }).click();
  await page.waitForURL(`${dashboard.url}/`);

  // With two-step sign-in on, a new key needs a current code too.
  await page.goto(`${dashboard.url}/keys`);
  await page.getByRole('button', { name: 'Create a key pair' }).click();
  assert.ok(await page.locator('#totp_code-error').isVisible(), 'no key without a code');
  state.clockOffsetMs += 60_000;
  await page.getByLabel('Code from your authenticator app').fill(totpCode(state));
  await page.getByRole('button', { name: 'Create a key pair' }).click();
  await page.waitForURL(/\/keys\?created=/);
  assert.match((await page.textContent('#new-secret-key')) ?? '', /^sk_/);
});

flow('an expired session returns to sign-in', async (state) => {
  const { dashboard, page } = state;
  await page.goto(`${dashboard.url}/statement`);
  assert.match(page.url(), /\/statement$/);
  // 31 minutes without use, by the core's clock: past the idle limit.
  state.clockOffsetMs += 31 * 60_000;
  await page.goto(`${dashboard.url}/statement`);
  await page.waitForURL(/\/sign-in\?ended=1$/);
  assert.match((await page.textContent('.notice')) ?? '', 'Your session has ended');
});

test.run();
