/**
 * Manual debits in the console, in a real browser against a real core on port 0: a finance
 * member proposes a debit and the balance does not move; the proposer's own approval is
 * refused; another finance member approves and it moves once (approving again moves nothing);
 * a debit larger than the balance is proposed with a warning and its approval refused; the
 * holder's ledger shows the debit with its reason, wallet.debited is recorded, every step is
 * audited, and the ledger check passes after.
 */
import type { Browser, Page } from 'playwright-core';
import * as assert from 'uvu/assert';
import { chromiumOrSkip, closeAll, launchChromium } from '../helpers/browser.js';
import { startTestConsole, type TestConsole } from '../helpers/console.js';
import { startCore, type TestCore } from '../helpers/core.js';
import { consoleClients, staffInBrowser, TestClock } from '../helpers/staff.js';
import { suite } from '../helpers/suite.js';

interface State {
  core: TestCore;
  app: TestConsole;
  browser: Browser;
  clock: TestClock;
}

const test = suite<State>('console: manual debits with four eyes in a real browser', {} as State);
const haveChromium = chromiumOrSkip('console debit browser tests');
const flow = haveChromium ? test : test.skip;

test.before(async (state) => {
  if (!haveChromium) return;
  state.clock = new TestClock();
  state.core = await startCore({ clock: state.clock.now });
  state.app = await startTestConsole(state.core);
  state.browser = await launchChromium();
});
test.after(async (state) => {
  if (!haveChromium) return;
  await closeAll(state.browser, state.app, state.core);
});

const member = (state: State, email: string): Promise<Page> =>
  staffInBrowser(
    { core: state.core, clock: state.clock, browser: state.browser, consoleUrl: state.app.url },
    'finance',
    email,
  );

const mainText = async (page: Page) => (await page.textContent('main')) ?? '';

async function proposeDebit(page: Page, state: State, accountId: string, naira: string, why: string): Promise<string> {
  await page.goto(`${state.app.url}/debit`);
  await page.getByLabel('Account id').fill(accountId);
  await page.getByLabel('Amount in Naira').fill(naira);
  await page.getByLabel('Why (required)').fill(why);
  await page.getByRole('button', { name: 'Propose the debit' }).click();
  await page.waitForURL(/\?done=/);
  return mainText(page);
}

const approveButton = (page: Page, accountId: string) =>
  page
    .locator('[data-proposal]')
    .filter({ hasText: accountId })
    .getByRole('button', { name: 'Approve and move the money' });

flow('a debit moves nothing until a second finance member approves, then moves once', async (state) => {
  const { accountId } = await state.core.createApiAccount({ balanceKobo: 1_000_00 });
  const balance = async () => (await state.core.admin.getAccount({ accountId })).account!.balanceKobo;
  const ada = await member(state, 'ada.debit@ops.example.ng');
  // The approver is on the staff before the proposal is made: no one approves an older one.
  const bola = await member(state, 'bola.debit@ops.example.ng');
  const said = await proposeDebit(ada, state, accountId, '400', 'Chargeback from GTBank, ticket 91');
  assert.match(said, /debit proposed as prp_/);
  assert.not.match(said, /Warning/);
  assert.is(await balance(), 1_000_00n, 'nothing moved');
  const proposalId = (await ada
    .locator('[data-proposal]')
    .filter({ hasText: accountId })
    .getAttribute('data-proposal'))!;

  await approveButton(ada, accountId).click();
  assert.match(await mainText(ada), /a different colleague must approve/);
  assert.is(await balance(), 1_000_00n, 'the proposer cannot approve');

  state.clock.advance(1_000);
  await bola.reload();
  await approveButton(bola, accountId).click();
  await bola.waitForURL(/\?done=/);
  assert.is(await balance(), 600_00n, 'moved once a second person approved');
  // A second approval (a replayed form) moves nothing more.
  const csrf = await bola.locator('input[name="csrf_token"]').first().inputValue();
  const again = await bola.request.post(`${state.app.url}/proposals/${proposalId}/approve`, {
    form: { csrf_token: csrf, note: '' },
    maxRedirects: 0,
  });
  assert.match(await again.text(), /already approved/);
  assert.is(await balance(), 600_00n, 'moved once');

  const { entries } = await state.core.admin.listLedgerEntries({ accountId, pageSize: 5 });
  assert.equal(
    [entries[0]!.kind, entries[0]!.amountKobo, entries[0]!.reference, entries[0]!.memo],
    ['manual_debit', -400_00n, proposalId, 'Chargeback from GTBank, ticket 91'],
  );
  const events = await state.core.store.events.listFeed(accountId, 'live', 0, 10);
  assert.equal(
    events.filter((e) => e.type === 'wallet.debited').map((e) => e.subject),
    [proposalId],
  );
  const { entries: rows } = await consoleClients(state.core).staffAdmin.listAudit({ filter: { target: proposalId } });
  assert.equal(
    rows.map((e) => [e.action, e.actor]),
    [
      ['proposal.approve', 'staff:bola.debit@ops.example.ng'],
      ['proposal.debit', 'staff:ada.debit@ops.example.ng'],
    ],
  );
  const check = await state.core.admin.checkLedger({});
  assert.is(check.violationCount, 0n);
});

flow('a debit larger than the balance is proposed with a warning and its approval refused', async (state) => {
  const { accountId } = await state.core.createApiAccount({ balanceKobo: 300_00 });
  const balance = async () => (await state.core.admin.getAccount({ accountId })).account!.balanceKobo;
  const ada = await member(state, 'ada.short@ops.example.ng');
  const bola = await member(state, 'bola.short@ops.example.ng');
  const said = await proposeDebit(ada, state, accountId, '5,000', 'Recover a duplicate credit');
  assert.match(said, /Warning: The wallet holds ₦300\.00 now, less than this debit of ₦5,000\.00/);
  state.clock.advance(1_000);
  await bola.reload();
  await approveButton(bola, accountId).click();
  assert.match(await mainText(bola), /less than this debit of ₦5,000\.00; nothing was taken/);
  assert.is(await balance(), 300_00n, 'never below zero');
  assert.is(await approveButton(bola, accountId).count(), 0, 'the error page');
  await bola.goto(state.app.url);
  assert.is(await approveButton(bola, accountId).count(), 1, 'still open: approve once the money is there, or refuse');
  const check = await state.core.admin.checkLedger({});
  assert.is(check.violationCount, 0n);
});

test.run();
