/**
 * A provider's refusal on the Fund wallet page, in a real browser (Chromium through
 * playwright-core) against a real core and dashboard on port 0 and the fake Monnify: an owner
 * gives a BVN that Monnify refuses (its reason echoing the number); the form error and the
 * page's notice name Monnify, say when and why (the number withheld) and what to do, and the
 * identity form is offered again. Once Monnify accepts the BVN, giving it again opens the
 * account and the notice is gone. The BVN is in no page after it is given.
 * Screenshots go to .screenshots/dashboard/.
 */
import type { Browser, Page } from 'playwright-core';
import * as assert from 'uvu/assert';
import { DEFAULT_TIER_ID } from '../../core/catalog/defaults.js';
import { createMonnifyFunding } from '../../core/funding/monnify.js';
import { UserAdminService, UserRole } from '../../gen/prepaid/v1/holder_pb.js';
import { acceptInvitation, chromiumOrSkip, closeAll, launchChromium, signIn, snap } from '../helpers/browser.js';
import { startCore, type TestCore } from '../helpers/core.js';
import { startTestDashboard, type TestDashboard } from '../helpers/dashboard.js';
import { type FakeMonnify, startFakeMonnify } from '../helpers/fake-monnify.js';
import { suite } from '../helpers/suite.js';

interface State {
  core: TestCore;
  dashboard: TestDashboard;
  monnify: FakeMonnify;
  browser: Browser;
  page: Page;
  seen: string[];
}

const test = suite<State>('dashboard: a provider refusing to open, in a real browser', {
  seen: [],
} as unknown as State);
const haveChromium = chromiumOrSkip('dashboard fund wallet refusal browser tests');
const flow = haveChromium ? test : test.skip;

const OWNER = { email: 'ada@lagostopup.ng', password: 'a long owner password 42' };
const BVN = '22345678901';

const mainText = async (page: Page) => (await page.textContent('main')) ?? '';

test.before(async (state) => {
  if (!haveChromium) return;
  state.seen = [];
  state.monnify = await startFakeMonnify();
  state.core = await startCore({
    funding: {
      providers: [
        createMonnifyFunding({
          apiKey: state.monnify.apiKey,
          secretKey: state.monnify.secretKey,
          contractCode: state.monnify.contractCode,
          baseUrl: state.monnify.url,
        }),
      ],
    },
  });
  state.dashboard = await startTestDashboard(state.core);
  state.browser = await launchChromium();
  const created = await state.core.admin.createAccount({ name: 'Lagos Top-up', tierId: DEFAULT_TIER_ID });
  const userAdmin = state.core.clientWithToken(UserAdminService, state.core.adminToken);
  const { invitation } = await userAdmin.inviteUser({
    accountId: created.account!.accountId,
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
  if (!haveChromium) return;
  await closeAll(state.browser, state.dashboard, state.core);
  await state.monnify.stop();
});

async function giveIdentity(page: Page): Promise<void> {
  await page.getByLabel('BVN or NIN').fill(BVN);
  await page.getByLabel('First name').fill('Ada');
  await page.getByLabel('Last name').fill('Obi');
  await page.getByLabel('Phone number').fill('08031234567');
  await page.getByLabel('Email address').fill('ada@lagostopup.ng');
  await page.getByRole('button', { name: 'Get account numbers' }).click();
}

flow(
  'Monnify refuses the BVN: the page names Monnify, when, why and what to do; accepted later, it opens',
  async (state) => {
    const { dashboard, page, monnify } = state;
    monnify.refuseIdentity(BVN, `BVN ${BVN} could not be validated with the customer name`);
    await page.goto(`${dashboard.url}/fund`);
    await giveIdentity(page);
    assert.match((await page.textContent('.error-summary')) ?? '', 'Monnify refused the BVN');
    const notice = (await page.textContent('#opening-refusals')) ?? '';
    assert.match(notice, 'An account could not be opened.');
    assert.match(notice, /Monnify refused on \d{1,2} \w{3} \d{4}, \d\d:\d\d: /);
    assert.match(notice, 'could not be validated with the customer name');
    assert.match(notice, '[number withheld]');
    assert.match(notice, 'give the identity again below');
    assert.is(await page.getByLabel('BVN or NIN').inputValue(), '', 'the number is not put back');
    state.seen.push(await page.content());
    await snap(page, 'fund-refused');

    // The notice stays on a later visit, until Monnify opens an account.
    await page.goto(`${dashboard.url}/fund`);
    assert.match((await page.textContent('#opening-refusals')) ?? '', 'Monnify refused on');
    state.seen.push(await page.content());

    monnify.refuseIdentity(BVN, null);
    await giveIdentity(page);
    await page.waitForURL(`${dashboard.url}/fund?done=opened`);
    const opened = await mainText(page);
    assert.match(opened, 'Wema bank');
    assert.match(opened, 'BVN ending 8901');
    assert.is(await page.locator('#opening-refusals').count(), 0, 'the refusal is no longer shown');
    state.seen.push(await page.content());
    for (const body of state.seen) assert.not.ok(body.includes(BVN), 'the BVN is in a page');
  },
);

test.run();
