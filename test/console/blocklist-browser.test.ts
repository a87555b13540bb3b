/**
 * The platform's blocklist from the console, in a real browser against a real core and gateway
 * on port 0: an admin opens *Blocked numbers* from the menu and blocks a number with a reason;
 * at once a purchase to it is refused for every account (422 RECIPIENT_BLOCKED, nothing debited,
 * no upstream asked); bad input (an empty value, a value that is not a number, no reason, an
 * over-long reason) is the core's sentence on the page with status 400, never a 500; unblocked,
 * the purchase goes through. A support member reads the list, and the core refuses their forged
 * POST. Both changes are in the audit log with the admin as the actor.
 */
import type { Browser, Page } from 'playwright-core';
import * as assert from 'uvu/assert';
import { assertError, balanceKobo } from '../gateway/fields.js';
import { chromiumOrSkip, closeAll, launchChromium } from '../helpers/browser.js';
import { startTestConsole, type TestConsole } from '../helpers/console.js';
import { startCore, type TestCore } from '../helpers/core.js';
import { type ApiKeys, startTestGateway, type TestGateway } from '../helpers/gateway.js';
import { staffInBrowser, TestClock } from '../helpers/staff.js';
import { suite } from '../helpers/suite.js';

interface State {
  core: TestCore;
  gateway: TestGateway;
  app: TestConsole;
  browser: Browser;
  clock: TestClock;
  admin: Page;
  accounts: Array<{ accountId: string; keys: ApiKeys }>;
}

const test = suite<State>("console: the platform's blocklist, through the gateway", {} as State);
const haveChromium = chromiumOrSkip('console blocklist browser tests');
const flow = haveChromium ? test : test.skip;
const NUMBER = '08035558001';

const airtime = (keys: ApiKeys, phone: string) => ({
  query: { action: 'airtime' },
  keys,
  body: { network: 'mtn', phone, amount: 100 },
});

test.before(async (state) => {
  if (!haveChromium) return;
  state.clock = new TestClock();
  state.core = await startCore({ clock: state.clock.now });
  state.gateway = await startTestGateway(state.core);
  state.app = await startTestConsole(state.core);
  state.browser = await launchChromium();
  state.accounts = [];
  for (const name of ['Aba Recharge', 'Jos Data Hub']) {
    const account = await state.core.createApiAccount({ name, balanceKobo: 500_000 });
    state.accounts.push({
      accountId: account.accountId,
      keys: { publicKey: account.publicKey, secretKey: account.secretKey },
    });
  }
  state.admin = await staffInBrowser(
    { core: state.core, clock: state.clock, browser: state.browser, consoleUrl: state.app.url },
    'admin',
    'ngozi@ops.example.ng',
  );
});

test.after(async (state) => {
  if (haveChromium) await closeAll(state.browser, state.app, state.gateway, state.core);
});

/** Submits the block form and returns the status of the answer to its POST. */
async function block(page: Page, value: string, reason: string): Promise<number> {
  await page.getByLabel(/^Phone, meter or smart-card number/).fill(value);
  await page.getByLabel(/^Why/).fill(reason);
  const [answer] = await Promise.all([
    page.waitForResponse((r) => new URL(r.url()).pathname === '/blocklist' && r.request().method() === 'POST'),
    page.getByRole('button', { name: 'Block the number' }).click(),
  ]);
  return answer.status();
}

flow('bad input is the core’s sentence on the page with status 400, and nothing is blocked', async (state) => {
  const { admin, app, core } = state;
  await admin.goto(`${app.url}/`);
  await admin.getByRole('link', { name: 'Blocked numbers' }).click();
  await admin.waitForURL(`${app.url}/blocklist`);
  assert.match((await admin.textContent('main')) ?? '', 'No number is blocked.');
  const cases: Array<[string, string, RegExp]> = [
    ['', 'fraud reports', /6 to 20 digits/],
    ['0803 555 8001', 'fraud reports', /6 to 20 digits/],
    ['<script>', 'fraud reports', /6 to 20 digits/],
    [NUMBER, '', /Say why/],
    [NUMBER, 'x'.repeat(201), /at most 200/],
  ];
  for (const [value, reason, sentence] of cases) {
    assert.is(await block(admin, value, reason), 400, `${JSON.stringify(value)}, ${reason.length} characters`);
    assert.match((await admin.textContent('.error-summary')) ?? '', sentence);
    assert.is(await admin.getByLabel(/^Phone, meter or smart-card number/).inputValue(), value, 'what was typed stays');
  }
  assert.is((await core.admin.listRecipientBlocks({})).blocks.length, 0);
});

flow('an admin blocks a number: refused for every account with no debit; unblocked, sold again', async (state) => {
  const { admin, app, core, gateway, accounts } = state;
  await admin.goto(`${app.url}/blocklist`);
  assert.is(await block(admin, NUMBER, 'reported by MTN as a fraud sink'), 303);
  await admin.waitForURL(/\/blocklist\?done=/);
  assert.match((await admin.textContent('.notice')) ?? '', `${NUMBER} is blocked for every account`);
  const item = admin.locator(`[data-blocked="${NUMBER}"]`);
  assert.match((await item.textContent()) ?? '', 'reported by MTN as a fraud sink');
  assert.match((await item.textContent()) ?? '', 'staff:ngozi@ops.example.ng');

  const calls = core.sandbox.purchases.length;
  for (const { accountId, keys } of accounts) {
    const before = await balanceKobo(core, accountId);
    const refused = await gateway.request(airtime(keys, NUMBER));
    assertError(refused, 422, 'RECIPIENT_BLOCKED');
    assert.not.match(refused.json.message, /MTN|fraud|staff|ngozi/, 'neither the reason nor who blocked it is told');
    assert.is(await balanceKobo(core, accountId), before, 'nothing was debited');
  }
  assert.is(core.sandbox.purchases.length, calls, 'no upstream was asked');

  await admin.getByRole('button', { name: `Unblock ${NUMBER}` }).click();
  await admin.waitForURL(/\/blocklist\?done=/);
  assert.match((await admin.textContent('.notice')) ?? '', `${NUMBER} is unblocked`);
  assert.match((await admin.textContent('main')) ?? '', 'No number is blocked.');
  const sold = await gateway.request(airtime(accounts[0]!.keys, NUMBER));
  assert.is(sold.status, 200, sold.text);

  await admin.goto(`${app.url}/audit?action=recipient.`);
  const log = (await admin.textContent('main')) ?? '';
  assert.match(log, 'recipient.block');
  assert.match(log, 'recipient.unblock');
});

flow('a support member reads the list; the core refuses their forged block and unblock', async (state) => {
  const { admin, app, core, clock, browser } = state;
  await admin.goto(`${app.url}/blocklist`);
  assert.is(await block(admin, '08035558002', 'chargebacks'), 303);
  const support = await staffInBrowser({ core, clock, browser, consoleUrl: app.url }, 'support', 'bala@ops.example.ng');
  await support.goto(`${app.url}/blocklist`);
  assert.match((await support.textContent('main')) ?? '', '08035558002');
  const csrf = await support.locator('input[name="csrf_token"]').first().inputValue();
  const forged = await support.request.post(`${app.url}/blocklist`, {
    form: { csrf_token: csrf, value: '08035558003', reason: 'forged by support' },
  });
  assert.is(forged.status(), 403);
  const unblock = await support.request.post(`${app.url}/blocklist/unblock`, {
    form: { csrf_token: csrf, value: '08035558002' },
  });
  assert.is(unblock.status(), 403);
  assert.equal(
    (await core.admin.listRecipientBlocks({})).blocks.map((b) => b.value),
    ['08035558002'],
  );
});

test.run();
