/**
 * A frozen key in the console's attention queue, in a real browser against a real core: the
 * support member sees the key, its account and why it was frozen, and unfreezes it with a note;
 * the queue then has none, and the key passes its check again.
 */
import type { Browser } from 'playwright-core';
import * as assert from 'uvu/assert';
import { chromiumOrSkip, closeAll, launchChromium } from '../helpers/browser.js';
import { startTestConsole, type TestConsole } from '../helpers/console.js';
import { startCore, type TestCore } from '../helpers/core.js';
import { staffInBrowser, TestClock } from '../helpers/staff.js';
import { suite } from '../helpers/suite.js';

interface State {
  core: TestCore;
  app: TestConsole;
  browser: Browser;
  clock: TestClock;
}

const test = suite<State>('console: frozen keys in the queue', {} as State);
const haveChromium = chromiumOrSkip('console frozen keys browser tests');
const flow = haveChromium ? test : test.skip;

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

flow('support sees a frozen key with its reason and unfreezes it with a note', async (state) => {
  const { accountId, publicKey, secretKey } = await state.core.createApiAccount();
  await state.core.admin.freezeApiKey({ publicKey, reason: 'spent 90,000.00 Naira in 10 minutes' });
  const page = await staffInBrowser(
    { core: state.core, clock: state.clock, browser: state.browser, consoleUrl: state.app.url },
    'support',
    'kemi@ops.example.ng',
  );
  await page.goto(`${state.app.url}/`);
  const item = page.locator(`[data-frozen-key="${publicKey}"]`);
  const text = (await item.textContent()) ?? '';
  assert.match(text, accountId);
  assert.match(text, 'spent 90,000.00 Naira in 10 minutes');
  await item.getByLabel(/Who confirmed/).fill('Owner confirmed on the phone, ticket 4411');
  await item.getByRole('button', { name: 'Unfreeze the key' }).click();
  await page.waitForURL(/done=/);
  assert.match((await page.textContent('main')) ?? '', 'key unfrozen');
  assert.is(await page.locator(`[data-frozen-key="${publicKey}"]`).count(), 0);
  await state.core.auth.verifyKeyPair({ publicKey, secretKey, clientIp: '203.0.113.7' });
});

test.run();
