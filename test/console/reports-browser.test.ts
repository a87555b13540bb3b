/**
 * Reports in the console, in a real browser against a real core: a finance member opens a day
 * of known sales and downloads its CSV, and both equal what the ledger says; the chart is an
 * inline SVG with a title that the strict CSP lets through; a period the core refuses is a form
 * error; a support member is refused by the core, in the page and over the RPC alike.
 */
import { readFileSync } from 'node:fs';
import { Code, ConnectError } from '@connectrpc/connect';
import axeCore from 'axe-core';
import type { Browser, Page } from 'playwright-core';
import * as assert from 'uvu/assert';
import { chromiumOrSkip, closeAll, launchChromium, snap } from '../helpers/browser.js';
import { startTestConsole, type TestConsole } from '../helpers/console.js';
import { startCore, type TestCore } from '../helpers/core.js';
import { ledgerFigures, REPORT_DAY, seedReportSales } from '../helpers/report-sales.js';
import { consoleClients, STAFF_PASSWORD, signedInStaff, TestClock } from '../helpers/staff.js';
import { suite } from '../helpers/suite.js';

interface State {
  core: TestCore;
  app: TestConsole;
  browser: Browser;
  clock: TestClock;
  accountId: string;
}

const test = suite<State>('console: reports in a real browser', {} as State);
const haveChromium = chromiumOrSkip('console report browser tests');
const flow = haveChromium ? test : test.skip;

test.before(async (state) => {
  if (!haveChromium) return;
  state.clock = new TestClock();
  state.core = await startCore({ clock: state.clock.now });
  state.app = await startTestConsole(state.core);
  state.browser = await launchChromium();
  state.accountId = (await seedReportSales(state.core.store)).accountId;
});
test.after(async (state) => {
  if (!haveChromium) return;
  await closeAll(state.browser, state.app, state.core);
});

/** A member set up through the RPCs, then signed in through the sign-in page; CSP reports are kept. */
async function member(state: State, role: 'finance' | 'support'): Promise<{ page: Page; blocked: string[] }> {
  const staff = await signedInStaff(state.core, state.clock, role);
  const context = await state.browser.newContext({ acceptDownloads: true });
  const page = await context.newPage();
  const blocked: string[] = [];
  page.on('console', (message) => {
    if (/Content Security Policy/i.test(message.text())) blocked.push(message.text());
  });
  await page.goto(`${state.app.url}/sign-in`);
  await page.getByLabel('Email').fill(staff.email);
  await page.getByLabel('Password').fill(STAFF_PASSWORD);
  await page.getByLabel('Code from your authenticator app').fill(state.clock.nextCode(staff.secret));
  await page.getByRole('button', { name: 'Sign in' }).click();
  await page.waitForURL(`${state.app.url}/`);
  return { page, blocked };
}

/** axe-core's serious and critical findings on the page as shown, at desktop and phone width. */
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

/** Naira as the tables write them, from kobo. */
const naira = (k: number) =>
  `${k < 0 ? '-' : ''}${Math.trunc(Math.abs(k) / 100)}.${String(Math.abs(k) % 100).padStart(2, '0')}`;

flow('a finance member opens a day of sales; the page and its CSV equal the ledger', async (state) => {
  const { page, blocked } = await member(state, 'finance');
  await page.getByRole('link', { name: 'Reports' }).click();
  await page.getByLabel('From (Lagos day)').fill(REPORT_DAY);
  await page.getByLabel('To, included').fill(REPORT_DAY);
  await page.getByRole('button', { name: 'Show reports' }).click();
  await page.waitForURL(/\/reports\?/);
  const ledger = await ledgerFigures(state.core.store, state.accountId);
  const expectedTotal = [
    'Total',
    '',
    String(ledger.salesCount),
    naira(ledger.chargedKobo),
    String(ledger.refundCount),
    naira(ledger.refundedKobo),
    '1',
    naira(ledger.pendingKobo),
    '2',
    naira(ledger.costKobo),
    '1',
    naira(ledger.unknownChargedKobo),
    naira(ledger.marginKobo),
  ];
  const salesTable = page.locator('table', { hasText: 'Sales by product' });
  const totalCells = await salesTable.locator('tbody tr').last().locator('td').allTextContents();
  assert.equal(totalCells, expectedTotal);
  assert.is(naira(ledger.marginKobo), '102.00', 'and by hand: 2.00 on airtime, 100.00 on data');

  const chart = page.locator('section', { hasText: 'Sales, cost and margin' }).locator('svg[role="img"]');
  assert.is(await chart.locator('title').textContent(), 'Charged less refunds, and margin, per day');
  assert.is(await chart.locator('rect').count(), 2, 'one period, two bars');
  await snap(page, 'console-reports');
  assert.equal(await axeFindings(page), [], 'no serious or critical axe-core finding');

  const [download] = await Promise.all([
    page.waitForEvent('download'),
    page.getByRole('link', { name: 'Download CSV of sales' }).click(),
  ]);
  assert.is(download.suggestedFilename(), `sales-${REPORT_DAY}-to-${REPORT_DAY}-by-day.csv`);
  const csv = readFileSync((await download.path())!, 'utf8');
  const lines = csv.split('\r\n');
  assert.is(lines.at(-1), '', 'CR LF after every line');
  assert.is(lines.at(-2), expectedTotal.join(','));
  assert.match(lines[0]!, /^Period,Product,Sales,Charged \(NGN\)/);

  // The account's own funding that day was a manual credit: its own line, in no sale and no provider's inflow.
  const manual = page.locator('table', { hasText: 'Manual credits and debits' });
  const manualTotal = await manual.locator('tbody tr').last().locator('td').allTextContents();
  const funded = await state.core.store.wallet.listLedger(state.accountId, 'live', { limit: 100 });
  const credited = funded.items.filter((e) => e.kind === 'credit').reduce((sum, e) => sum + Number(e.amountKobo), 0);
  assert.ok(credited > 0, 'the seed credited the wallet by hand');
  assert.equal(manualTotal, ['Total', '1', naira(credited), '0', '0.00', naira(credited)]);
  assert.equal(blocked, [], 'the CSP blocked nothing on the page');
});

flow('a period the core refuses is shown as a form error beside the field', async (state) => {
  const { page } = await member(state, 'finance');
  const answer = await page.goto(`${state.app.url}/reports?from=2026-10-31&to=2026-10-01`);
  assert.is(answer?.status(), 400);
  assert.match((await page.locator('.error-summary').textContent()) ?? '', /same day as from or later/);
  assert.match((await page.locator('#to-error').textContent()) ?? '', /same day as from or later/);
  await page.goto(`${state.app.url}/reports?from=2025-01-01&to=2026-06-01&by=day`);
  assert.match((await page.locator('.error-summary').textContent()) ?? '', /at most 366 days/);
  assert.equal(await axeFindings(page), [], 'the form with its errors has no serious or critical axe-core finding');
});

flow('a support member is refused by the core: the page, the CSV and the RPC', async (state) => {
  const { page } = await member(state, 'support');
  const shown = await page.goto(`${state.app.url}/reports?from=${REPORT_DAY}&to=${REPORT_DAY}`);
  assert.is(shown?.status(), 403);
  assert.match((await page.textContent('main')) ?? '', /You cannot do that/);
  assert.not.match((await page.textContent('main')) ?? '', /Charged/);
  const csv = await page.request.get(`${state.app.url}/reports/sales.csv?from=${REPORT_DAY}&to=${REPORT_DAY}`);
  assert.is(csv.status(), 403);
  assert.not.match(csv.headers()['content-type'] ?? '', /csv/);

  const support = await signedInStaff(state.core, state.clock, 'support');
  const { console } = consoleClients(state.core);
  try {
    await console.getSalesReport({
      sessionToken: support.token,
      clientAddress: '127.0.0.1',
      query: { from: REPORT_DAY, to: REPORT_DAY },
    });
    assert.unreachable('support read the sales report');
  } catch (error) {
    assert.instance(error, ConnectError);
    assert.is((error as ConnectError).code, Code.PermissionDenied);
  }
});

test.run();
