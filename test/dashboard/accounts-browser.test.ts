/**
 * One person in several accounts, in a real browser against a real core and dashboard on port
 * 0: a person invited into a second account joins with the password they have, signs in once,
 * switches accounts in the header and sees each account's own money and people; the owner who
 * invited an email of another account sees nothing different from any other invitation; a
 * member disabled and invited again gets back in; a waiting invitation, revoked, stops working
 * and says what any dead link says.
 */
import type { Browser, BrowserContext, Page } from 'playwright-core';
import * as assert from 'uvu/assert';
import { DEFAULT_TIER_ID } from '../../core/catalog/defaults.js';
import { UserAdminService, UserRole } from '../../gen/prepaid/v1/holder_pb.js';
import { acceptInvitation, chromiumOrSkip, closeAll, launchChromium, signIn, snap } from '../helpers/browser.js';
import { startCore, type TestCore } from '../helpers/core.js';
import { startTestDashboard, type TestDashboard } from '../helpers/dashboard.js';
import { suite } from '../helpers/suite.js';

interface Person {
  email: string;
  password: string;
  context: BrowserContext;
  page: Page;
}

interface State {
  core: TestCore;
  dashboard: TestDashboard;
  browser: Browser;
  ada: Person;
  bayo: Person;
  adaAccount: string;
  bayoAccount: string;
  /** Ada's invitation link into Bayo's account, made by Bayo in the first test. */
  joinLink: string;
}

const test = suite<State>('dashboard: one person in several accounts, in a real browser', {} as State);
const haveChromium = chromiumOrSkip('dashboard accounts browser tests');
const flow = haveChromium ? test : test.skip;

const mainText = async (page: Page) => (await page.textContent('main')) ?? '';

async function person(state: State, accountId: string, email: string, password: string): Promise<Person> {
  const admin = state.core.clientWithToken(UserAdminService, state.core.adminToken);
  const { invitation } = await admin.inviteUser({ accountId, email, role: UserRole.OWNER });
  const context = await state.browser.newContext({ viewport: { width: 1280, height: 900 } });
  const page = await context.newPage();
  // The revoke and disable forms ask the script's confirm(); a person says yes.
  page.on('dialog', (dialog) => void dialog.accept());
  await acceptInvitation(page, state.dashboard.url, invitation!.inviteUrl, password);
  await signIn(page, state.dashboard.url, email, password);
  await page.waitForURL(`${state.dashboard.url}/`);
  return { email, password, context, page };
}

/** Bayo invites `email` from the Users page; returns the link and the page's words around it. */
async function invite(state: State, email: string, role: 'Viewer' | 'Owner' = 'Viewer') {
  const { page } = state.bayo;
  await page.goto(`${state.dashboard.url}/users`);
  await page.getByLabel('Email address').fill(email);
  await page.getByLabel('Role').selectOption(role.toLowerCase());
  await page.getByRole('button', { name: 'Create invitation link' }).click();
  const link = (await page.textContent('#invite-url')) ?? '';
  assert.match(link, '/invite/', `an invitation link for ${email}`);
  // What the answer says about this invitation: the panel with the link, and any error.
  const text =
    `${(await page.textContent('.panel--secret')) ?? ''} errors: ` + `${await page.locator('.error-summary').count()}`;
  return { link, text };
}

/** The page with what differs by nature (the email, the secret link) written out. */
function neutral(text: string, email: string, link: string): string {
  return text.replaceAll(link, 'LINK').replaceAll(email, 'EMAIL').replace(/\s+/g, ' ');
}

test.before(async (state) => {
  if (!haveChromium) return;
  state.core = await startCore();
  state.dashboard = await startTestDashboard(state.core);
  state.browser = await launchChromium();
  for (const [name, kobo, key] of [
    ['Ada Stores', 500_000n, 'adaAccount'],
    ['Bayo Telecoms', 1_234_500n, 'bayoAccount'],
  ] as const) {
    const { account } = await state.core.admin.createAccount({ name, tierId: DEFAULT_TIER_ID });
    state[key] = account!.accountId;
    await state.core.admin.creditWallet({ accountId: account!.accountId, amountKobo: kobo, memo: 'first funding' });
  }
  state.ada = await person(state, state.adaAccount, 'ada@adastores.ng', 'a long password for ada 7');
  state.bayo = await person(state, state.bayoAccount, 'bayo@bayotel.ng', 'a long password for bayo 9');
});

test.after(async (state) => {
  if (haveChromium) await closeAll(state.browser, state.dashboard, state.core);
});

flow('inviting an email that signs in to another account looks exactly like inviting a new one', async (state) => {
  const known = await invite(state, state.ada.email);
  const fresh = await invite(state, 'chidi@newcomer.ng');
  assert.is(
    neutral(known.text, state.ada.email, known.link),
    neutral(fresh.text, 'chidi@newcomer.ng', fresh.link),
    'the same page, word for word',
  );
  assert.not.match(known.text, /already/i);
  state.joinLink = known.link;
  await snap(state.bayo.page, 'accounts-invited');
});

flow('the person joins with their password, signs in once, switches and sees each account', async (state) => {
  const { page } = state.ada;
  const url = state.dashboard.url;
  await page.goto(`${url}${new URL(state.joinLink).pathname}`);
  assert.is(await page.textContent('h1'), 'Join Bayo Telecoms');
  await page.getByLabel('Your password').fill('not my password at all');
  await page.getByRole('button', { name: 'Join Bayo Telecoms' }).click();
  assert.match(await mainText(page), 'That is not your password');
  await page.getByLabel('Your password').fill(state.ada.password);
  await page.getByRole('button', { name: 'Join Bayo Telecoms' }).click();
  await page.waitForURL(/\/sign-in\?joined=1$/);

  await signIn(page, url, state.ada.email, state.ada.password);
  await page.waitForURL(`${url}/`);
  assert.match((await page.textContent('.account-bar__account')) ?? '', 'Ada Stores');
  assert.match(await mainText(page), '5,000.00');
  await snap(page, 'accounts-switcher');

  await page.getByLabel('Switch account').selectOption({ label: 'Bayo Telecoms' });
  await page.getByRole('button', { name: 'Switch', exact: true }).click();
  await page.waitForURL(/\/\?switched=1$/);
  assert.match(await mainText(page), 'You are now in Bayo Telecoms');
  assert.match((await page.textContent('.account-bar__account')) ?? '', 'Bayo Telecoms');
  assert.match(await mainText(page), '12,345.00');
  assert.not.match(await mainText(page), '5,000.00');
  await page.goto(`${url}/users`);
  const people = await mainText(page);
  assert.match(people, state.bayo.email);
  assert.match(people, 'Only an owner of the account can invite people.', 'a viewer in this account');

  await page.getByLabel('Switch account').selectOption({ label: 'Ada Stores' });
  await page.getByRole('button', { name: 'Switch', exact: true }).click();
  await page.waitForURL(/\/\?switched=1$/);
  assert.match(await mainText(page), '5,000.00');
  await page.goto(`${url}/users`);
  assert.not.match(await mainText(page), state.bayo.email, "Bayo is not one of Ada's people");
  assert.is(await page.getByRole('button', { name: 'Create invitation link' }).count(), 1, 'an owner here');
});

flow('a member disabled in one account keeps the other, and an invitation anew lets them back', async (state) => {
  const url = state.dashboard.url;
  const { page: bayo } = state.bayo;
  await bayo.goto(`${url}/users`);
  await bayo.getByRole('link', { name: `Disable ${state.ada.email}` }).click();
  await bayo.getByRole('button', { name: 'Yes, disable this user' }).click();
  await bayo.waitForURL(/\/users\?done=disabled$/);

  const { page } = state.ada;
  await page.goto(`${url}/`);
  assert.match((await page.textContent('.account-bar__account')) ?? '', 'Ada Stores', 'still signed in to Ada Stores');
  assert.is(await page.getByLabel('Switch account').count(), 0, 'no other account to switch to');

  const again = await invite(state, state.ada.email, 'Owner');
  await page.goto(`${url}${new URL(again.link).pathname}`);
  await page.getByLabel('Your password').fill(state.ada.password);
  await page.getByRole('button', { name: 'Join Bayo Telecoms' }).click();
  await page.waitForURL(/\/sign-in\?joined=1$/);
  await signIn(page, url, state.ada.email, state.ada.password);
  await page.waitForURL(`${url}/`);
  await page.getByLabel('Switch account').selectOption({ label: 'Bayo Telecoms' });
  await page.getByRole('button', { name: 'Switch', exact: true }).click();
  await page.waitForURL(/\/\?switched=1$/);
  await page.goto(`${url}/users`);
  assert.is(await page.getByRole('button', { name: 'Create invitation link' }).count(), 1, 'back, as an owner now');
});

flow('a waiting invitation is listed, and once revoked its link says what any dead link says', async (state) => {
  const url = state.dashboard.url;
  const { page } = state.bayo;
  const { link } = await invite(state, 'dayo@later.ng');
  await page.goto(`${url}/users`);
  const waiting = page.locator('tr', { hasText: 'dayo@later.ng' });
  assert.match((await waiting.textContent()) ?? '', state.bayo.email, 'who invited');
  assert.match((await waiting.textContent()) ?? '', 'Viewer');
  await snap(page, 'accounts-waiting-invitations');
  await waiting.getByRole('button', { name: /Revoke/ }).click();
  await page.waitForURL(/\/users\?done=revoked$/);
  assert.match(await mainText(page), 'The invitation is revoked');
  assert.not.match(await mainText(page), 'dayo@later.ng');

  const stranger = await (await state.browser.newContext()).newPage();
  const revoked = await stranger.goto(`${url}${new URL(link).pathname}`);
  const revokedText = await mainText(stranger);
  const madeUp = await stranger.goto(`${url}/invite/AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA`);
  assert.equal([revoked?.status(), revokedText], [madeUp?.status(), await mainText(stranger)]);
  assert.match(revokedText, 'This invitation link does not work');
  await stranger.context().close();
});

test.run();
