/**
 * The console as an operator runs the business from it, in a real browser against a real core
 * on port 0, at 1280 px and at 390 px: an admin lists the accounts and finds one by name,
 * creates an account and invites its owner (the link shown once); support finds a purchase by
 * its recipient on the transactions desk and re-queries it from its page; finance approves a
 * refund proposal that shows its amount and the account's name. Then every console page, at
 * 390 px, is no wider than the screen (tables scroll inside themselves).
 */
import type { Browser, Page } from 'playwright-core';
import * as assert from 'uvu/assert';
import { chromiumOrSkip, closeAll, launchChromium } from '../helpers/browser.js';
import { startTestConsole, type TestConsole } from '../helpers/console.js';
import { startCore, type TestCore } from '../helpers/core.js';
import { consoleClients, signedInStaff, staffInBrowser, TestClock } from '../helpers/staff.js';
import { suite } from '../helpers/suite.js';

interface State {
  core: TestCore;
  app: TestConsole;
  browser: Browser;
  clock: TestClock;
}

const test = suite<State>('console: accounts, the transactions desk and proposals, at 1280 and 390 px', {} as State);
const haveChromium = chromiumOrSkip('console desk browser tests');
const flow = haveChromium ? test : test.skip;
const WIDTHS = [1280, 390] as const;

test.before(async (state) => {
  if (!haveChromium) return;
  state.clock = new TestClock();
  state.core = await startCore({ clock: state.clock.now });
  state.app = await startTestConsole(state.core);
  state.browser = await launchChromium();
});

test.after(async (state) => {
  if (haveChromium) await closeAll(state.browser, state.app, state.core);
});

const member = (state: State, role: 'admin' | 'support' | 'finance', email: string, width: number): Promise<Page> =>
  staffInBrowser(
    { core: state.core, clock: state.clock, browser: state.browser, consoleUrl: state.app.url },
    role,
    email,
  ).then(async (page) => {
    await page.setViewportSize({ width, height: 900 });
    return page;
  });

/** The page is no wider than its window: nothing scrolls the page sideways. */
async function fitsWidth(page: Page): Promise<boolean> {
  return page.evaluate(() => document.documentElement.scrollWidth <= window.innerWidth);
}

for (const width of WIDTHS) {
  flow(
    `${width} px: an admin lists accounts, finds one by name, creates an account and invites its owner`,
    async (state) => {
      await state.core.createApiAccount({ name: `Yetunde Stores ${width}`, balanceKobo: 3_000_00 });
      const ada = await member(state, 'admin', `ada${width}@ops.example.ng`, width);
      await ada.goto(`${state.app.url}/accounts`);
      assert.ok(await ada.locator('table.accounts').getByText(`Yetunde Stores ${width}`).isVisible());
      await ada.getByLabel(/^Find:/).fill(`yetunde stores ${width}`);
      await ada.getByRole('button', { name: 'Search' }).click();
      await ada
        .locator('ul.found')
        .getByRole('link', { name: `Yetunde Stores ${width}` })
        .click();
      assert.is(await ada.locator('h1').textContent(), `Yetunde Stores ${width}`);
      assert.ok(await fitsWidth(ada), 'the account page fits');

      await ada.goto(`${state.app.url}/accounts/new`);
      // Only spaces: the browser sends it, the core refuses it, the form says why.
      await ada.getByLabel(/^Name/).fill('   ');
      const [refused] = await Promise.all([
        ada.waitForResponse((r) => r.request().method() === 'POST'),
        ada.getByRole('button', { name: 'Create the account' }).click(),
      ]);
      assert.is(refused.status(), 400);
      await ada.locator('.error-summary').waitFor();
      assert.match((await ada.locator('.error-summary').textContent()) ?? '', /name must be/);
      await ada.getByLabel(/^Name/).fill(`Obinna Data ${width}`);
      await ada.getByRole('button', { name: 'Create the account' }).click();
      await ada.waitForURL(/\/accounts\/acc_/);
      assert.is(await ada.locator('h1').textContent(), `Obinna Data ${width}`);
      await ada.getByLabel('Email').fill(`obinna${width}@obinnadata.ng`);
      await ada.getByRole('button', { name: 'Invite' }).click();
      const link = await ada.locator('[data-link]').textContent();
      assert.match(link ?? '', /^http/);
      assert.ok(!ada.url().includes((link ?? '').split('/').pop()!), 'the link is never in an address');
      await ada.close();
    },
  );

  flow(`${width} px: support finds a purchase by recipient on the desk and re-queries it`, async (state) => {
    const { accountId } = await state.core.createApiAccount({ name: `Desk Buyer ${width}`, balanceKobo: 5_000_00 });
    const phone = `0803${String(width).padStart(7, '0')}`;
    await state.core.purchase.buyAirtime({ accountId, network: 'mtn', phone, amountKobo: 150_00n });
    const sade = await member(state, 'support', `sade${width}@ops.example.ng`, width);
    await sade.goto(`${state.app.url}/transactions`);
    await sade.getByLabel(/^Recipient/).fill(phone);
    await sade.getByRole('button', { name: 'Search' }).click();
    const row = sade.locator('table.desk tbody tr');
    assert.is(await row.count(), 1);
    assert.ok(await row.getByText(`Desk Buyer ${width}`).isVisible(), 'the account is named');
    assert.ok(await fitsWidth(sade), 'the desk fits');
    await row.getByRole('link').first().click();
    await sade.getByRole('button', { name: 'Re-query the upstream now' }).click();
    assert.match((await sade.locator('.notice').textContent()) ?? '', /re-queried, now delivered/);
    assert.ok(await fitsWidth(sade), "the purchase's page fits");
    await sade.close();
  });

  flow(`${width} px: finance approves a refund proposal that shows its amount`, async (state) => {
    const { console } = consoleClients(state.core);
    const bola = await member(state, 'finance', `bola${width}@ops.example.ng`, width);
    const proposer = await signedInStaff(state.core, state.clock, 'finance');
    const { accountId } = await state.core.createApiAccount({ name: `Refund Shop ${width}`, balanceKobo: 5_000_00 });
    const bought = await state.core.purchase.buyAirtime({
      accountId,
      network: 'glo',
      phone: '08051234567',
      amountKobo: 250_00n,
    });
    const { proposal } = await console.proposeMoneyMove({
      sessionToken: proposer.token,
      clientAddress: '127.0.0.1',
      kind: 'refund',
      target: bought.transaction!.reference,
      note: 'The customer was never served',
    });
    await bola.goto(`${state.app.url}/`);
    const item = bola.locator(`[data-proposal="${proposal!.proposalId}"]`);
    assert.match((await item.locator('[data-moves]').textContent()) ?? '', /₦\d+\.\d{2}/);
    assert.ok(await item.getByRole('link', { name: `Refund Shop ${width}` }).isVisible());
    const before = (await state.core.admin.getAccount({ accountId })).account!.balanceKobo;
    await item.getByRole('button', { name: 'Approve and move the money' }).click();
    await bola.waitForURL(/done=/);
    const after = (await state.core.admin.getAccount({ accountId })).account!.balanceKobo;
    assert.is(String(after - before), String(bought.transaction!.chargedKobo));
    await bola.close();
  });
}

flow('390 px: no console page is wider than the screen', async (state) => {
  const { accountId } = await state.core.createApiAccount({
    balanceKobo: 1_000_00,
    name: 'A Very Long Account Name For Width Checks Limited',
  });
  const bought = await state.core.purchase.buyAirtime({
    accountId,
    network: 'mtn',
    phone: '08039998888',
    amountKobo: 100_00n,
  });
  const admin = await member(state, 'admin', 'wide@ops.example.ng', 390);
  const pages = [
    '/',
    '/accounts',
    `/accounts/${accountId}`,
    '/accounts/new',
    '/transactions',
    `/transactions/${bought.transaction!.reference}`,
    '/audit',
    '/reports',
    '/blocklist',
    '/credit',
    '/debit',
    '/catalogue/tiers',
    '/catalogue/plans',
    '/catalogue/costs',
    '/settings',
    '/staff',
    '/books',
  ];
  const wide: string[] = [];
  for (const path of pages) {
    await admin.goto(`${state.app.url}${path}`);
    if (!(await fitsWidth(admin))) {
      wide.push(`${path}: ${await admin.evaluate(() => document.documentElement.scrollWidth)} px`);
    }
  }
  assert.equal(wide, [], `pages wider than 390 px: ${wide.join(', ')}`);
  await admin.close();
});

test.run();
