/**
 * The console's Books page in a real browser against a real core: after a purchase a finance
 * member, following the navigation, sees the live trial balance with the wallet, the sale and
 * equal totals, and the test books apart; a date before anything was booked shows empty books
 * and a date the core refuses is a form error; a support member has no link and is refused by
 * the core, in the page and over the RPC alike. A top-up proposed from the Books page (its
 * form errors shown) is booked only when a second member approves it in the queue, never by
 * its proposer; a finding marked resolved leaves the queue, audited.
 */
import { Code, ConnectError } from '@connectrpc/connect';
import axeCore from 'axe-core';
import type { Browser, Page } from 'playwright-core';
import * as assert from 'uvu/assert';
import { kobo } from '../../core/domain/money.js';
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
  accountId: string;
}

const test = suite<State>('console: the books in a real browser', {} as State);
const haveChromium = chromiumOrSkip('console books browser tests');
const flow = haveChromium ? test : test.skip;

test.before(async (state) => {
  if (!haveChromium) return;
  state.clock = new TestClock();
  state.core = await startCore({ clock: state.clock.now });
  state.app = await startTestConsole(state.core);
  state.browser = await launchChromium();
  state.accountId = (await state.core.createApiAccount({ balanceKobo: 500_000 })).accountId;
  await state.core.purchase.buyAirtime({
    accountId: state.accountId,
    network: 'mtn',
    phone: '08031234567',
    amountKobo: 10_000n,
  });
});
test.after(async (state) => {
  if (!haveChromium) return;
  await closeAll(state.browser, state.app, state.core);
});

/** axe-core's serious and critical findings at desktop and phone width. */
async function axeFindings(page: Page): Promise<string[]> {
  const found: string[] = [];
  for (const viewport of [
    { width: 1280, height: 900 },
    { width: 390, height: 844 },
  ]) {
    await page.setViewportSize(viewport);
    await page.evaluate(axeCore.source);
    const ids = await page.evaluate(async () => {
      const axe = (window as unknown as { axe: typeof axeCore }).axe;
      const result = await axe.run(document, { resultTypes: ['violations'] });
      return result.violations
        .filter((v) => v.impact === 'serious' || v.impact === 'critical')
        .map((v) => `${v.id}: ${v.nodes.map((n) => n.html).join(' | ')}`);
    });
    found.push(...ids.map((id) => `${viewport.width}px ${id}`));
  }
  await page.setViewportSize({ width: 1280, height: 900 });
  return found;
}

/** Naira as the page writes it, from kobo. */
const naira = (k: number) => `${Math.trunc(k / 100).toLocaleString('en-NG')}.${String(k % 100).padStart(2, '0')}`;

flow('a finance member sees the live trial balance after a purchase, with equal totals', async (state) => {
  const page = await staffInBrowser({ ...state, consoleUrl: state.app.url }, 'finance', 'fola-books@ops.example.ng');
  await page.getByRole('link', { name: 'Books' }).click();
  await page.waitForURL(`${state.app.url}/books`);
  const account = await state.core.admin.getAccount({ accountId: state.accountId });
  const balanceKobo = Number(account.account!.balanceKobo);
  assert.ok(balanceKobo < 500_000, 'the purchase was charged');

  const live = page.locator('section', { has: page.getByRole('heading', { name: 'Live books' }) });
  const walletRow = await live
    .locator('tbody tr', { hasText: `wallet:${state.accountId}` })
    .locator('td')
    .allTextContents();
  assert.equal(walletRow, [`wallet:${state.accountId}`, 'liability', '', naira(balanceKobo)]);
  const manual = await live.locator('tbody tr', { hasText: 'adjustments:manual' }).locator('td').allTextContents();
  assert.equal(manual, ['adjustments:manual', 'equity', '5,000.00', '']);
  const sale = await live.locator('tbody tr', { hasText: 'revenue:sales' }).locator('td').allTextContents();
  assert.equal(sale.slice(1), ['revenue', '', naira(500_000 - balanceKobo)]);
  const totals = await live.locator('tfoot td').allTextContents();
  assert.equal(totals, ['5,000.00', '5,000.00']);
  assert.match((await live.textContent()) ?? '', /Debits equal credits\./);
  const test = page.locator('section', { has: page.getByRole('heading', { name: 'Test books' }) });
  assert.match((await test.textContent()) ?? '', /Nothing is booked in the test books yet/);
  assert.equal(await axeFindings(page), [], 'no serious or critical axe-core finding');

  await page.getByLabel(/At the end of/).fill('2020-01-31');
  await page.getByRole('button', { name: 'Show the books' }).click();
  await page.waitForURL(/\/books\?at=2020-01-31/);
  assert.match((await page.textContent('main')) ?? '', /As booked at the end of 2020-01-31/);
  assert.match((await live.textContent()) ?? '', /Nothing is booked in the live books/);

  const refused = await page.goto(`${state.app.url}/books?at=2020-02-31`);
  assert.is(refused?.status(), 400);
  assert.match((await page.locator('.error-summary').textContent()) ?? '', /YYYY-MM-DD/);
  assert.match((await page.locator('#at-error').textContent()) ?? '', /YYYY-MM-DD/);
  assert.equal(await axeFindings(page), [], 'the form with its error has no serious or critical axe-core finding');
});

flow('a support member has no Books link and is refused by the core: the page and the RPC', async (state) => {
  const page = await staffInBrowser({ ...state, consoleUrl: state.app.url }, 'support', 'sade-books@ops.example.ng');
  assert.is(await page.getByRole('link', { name: 'Books' }).count(), 0);
  const shown = await page.goto(`${state.app.url}/books`);
  assert.is(shown?.status(), 403);
  assert.match((await page.textContent('main')) ?? '', /You cannot do that/);
  assert.not.match((await page.textContent('main')) ?? '', /wallet:/);

  const support = await signedInStaff(state.core, state.clock, 'support');
  const { console } = consoleClients(state.core);
  try {
    await console.getBooks({ sessionToken: support.token, clientAddress: '127.0.0.1', atDate: '' });
    assert.unreachable('support read the books');
  } catch (error) {
    assert.instance(error, ConnectError);
    assert.is((error as ConnectError).code, Code.PermissionDenied);
  }
});

flow('a top-up proposed from the Books page is booked once a second member approves it in the queue', async (state) => {
  const target = { ...state, consoleUrl: state.app.url };
  const ada = await staffInBrowser(target, 'finance', 'ada-topup@ops.example.ng');
  await ada.goto(`${state.app.url}/books`);
  await ada.getByRole('link', { name: 'Propose an upstream top-up' }).click();
  await ada.waitForURL(`${state.app.url}/books/top-up`);
  const propose = async (upstream: string, amount: string) => {
    await ada.getByLabel(/^Upstream/).fill(upstream);
    await ada.getByLabel('Amount in Naira').fill(amount);
    await ada.getByLabel('Bank reference').fill('GTB-TOPUP-77');
    await ada.getByLabel('Why (required)').fill('Float running low before the weekend');
    const [answer] = await Promise.all([
      ada.waitForResponse((r) => r.request().method() === 'POST'),
      ada.getByRole('button', { name: 'Propose the top-up' }).click(),
    ]);
    return answer.status();
  };
  assert.is(await propose('sandbox', 'twenty'), 400);
  assert.match((await ada.locator('.error-summary').textContent()) ?? '', /Enter the amount in Naira/);
  assert.is(await propose('nowhere', '20000'), 400);
  assert.match((await ada.locator('.error-summary').textContent()) ?? '', /upstream must be one of the configured/);
  assert.equal(await axeFindings(ada), [], 'the form with its error has no serious or critical axe-core finding');
  await propose('sandbox', '20000');
  await ada.waitForURL(/\/books\?done=/);
  const proposalId = /prp_[0-9a-f]+/.exec((await ada.locator('.notice').textContent()) ?? '')?.[0] ?? '';
  assert.match(proposalId, /^prp_/, 'the notice names the proposal');
  const float = (p: Page) =>
    p
      .locator('section', { has: p.getByRole('heading', { name: 'Live books' }) })
      .locator('tbody tr', { hasText: 'upstream:sandbox:float' });
  assert.is(await float(ada).count(), 0, 'nothing booked while it waits');

  await ada.goto(`${state.app.url}/`);
  const item = (p: Page) => p.locator(`[data-proposal="${proposalId}"]`);
  assert.match(
    (await item(ada).textContent()) ?? '',
    /upstream_topup[\s\S]*sandbox[\s\S]*₦20,000\.00[\s\S]*GTB-TOPUP-77/,
  );
  const [own] = await Promise.all([
    ada.waitForResponse((r) => r.request().method() === 'POST'),
    item(ada).getByRole('button', { name: 'Approve and book it' }).click(),
  ]);
  assert.is(own.status(), 403, 'the proposer cannot approve their own');

  const bola = await staffInBrowser(target, 'finance', 'bola-topup@ops.example.ng');
  await item(bola).getByRole('button', { name: 'Approve and book it' }).click();
  await bola.waitForURL(/\/\?done=/);
  assert.is(await item(bola).count(), 0, 'decided: out of the queue');
  await bola.goto(`${state.app.url}/books`);
  assert.equal(await float(bola).locator('td').allTextContents(), ['upstream:sandbox:float', 'asset', '20,000.00', '']);
  const bank = bola
    .locator('section', { has: bola.getByRole('heading', { name: 'Live books' }) })
    .locator('tbody tr', { hasText: 'world:bank' });
  assert.equal(await bank.locator('td').allTextContents(), ['world:bank', 'asset', '', '20,000.00']);
});

flow('a finding leaves the queue once a finance member marks it resolved with a note', async (state) => {
  await state.core.store.findings.record([
    {
      day: '2025-06-01',
      upstream: 'site',
      reference: 'TX-FOUND-1',
      class: 'cost_differs',
      atStakeKobo: kobo(-300),
      ourCostKobo: kobo(9_700),
      theirChargedKobo: kobo(10_000),
      outcome: 'success',
      theirStatus: 'delivered',
      theirCharges: 1,
      reason: null,
      evidence: null,
      foundAt: new Date(),
    },
  ]);
  const page = await staffInBrowser({ ...state, consoleUrl: state.app.url }, 'finance', 'femi-finding@ops.example.ng');
  const item = page.locator('[data-finding="TX-FOUND-1"]');
  await item.getByLabel(/Why it needs nothing more/).fill('Their commission changed on 1 June; confirmed by email');
  await item.getByRole('button', { name: 'Mark resolved (moves no money)' }).click();
  await page.waitForURL(/\/\?done=/);
  assert.match(
    (await page.locator('.notice').textContent()) ?? '',
    /2025-06-01\/site\/cost_differs\/TX-FOUND-1 resolved/,
  );
  assert.is(await item.count(), 0, 'resolved: out of the queue');
  const audit = await state.core.store.auditLog.list({ limit: 5, action: 'finding.resolve' });
  assert.equal(
    audit.map((row) => [row.actor, row.note]),
    [['staff:femi-finding@ops.example.ng', 'Their commission changed on 1 June; confirmed by email']],
  );
});

test.run();
