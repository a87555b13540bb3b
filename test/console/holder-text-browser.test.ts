/**
 * Text an account holder (or a CLI memo) controls, shown on the console's account pages in a
 * real browser: an account's name in the search results and on its page, and a ledger
 * memo, each a script or markup payload, show as text and never run ("XSS through
 * every field an account holder controls"). The webhook URL, the upstreams' answers, the
 * upgrade request's email and note, and the catalogue's names have their own tests.
 */
import type { Browser } from 'playwright-core';
import * as assert from 'uvu/assert';
import { kobo } from '../../core/domain/money.js';
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

const test = suite<State>('console: a holder’s text is text', {} as State);
const haveChromium = chromiumOrSkip('console holder-text browser tests');
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

const NAME = 'Xss <img src=x onerror="window.__xss=1"> Ltd';
const MEMO = '<script>window.__xss=2</script><b id=memoxss>bold</b>';

flow('an account’s name and a ledger memo show as text in search and on the account page', async (state) => {
  const { accountId } = await state.core.createApiAccount({ name: NAME, balanceKobo: 10_00 });
  await state.core.store.ledger.post({
    kind: 'credit',
    credit: {
      accountId,
      mode: 'live',
      amountKobo: kobo(5_00),
      reference: 'CR-XSS-MEMO',
      memo: MEMO,
      at: state.clock.now(),
    },
  });
  const page = await staffInBrowser(
    { core: state.core, clock: state.clock, browser: state.browser, consoleUrl: state.app.url },
    'support',
    'ife@ops.example.ng',
  );
  const xss = () => page.evaluate(() => (window as unknown as { __xss?: number }).__xss);

  await page.goto(`${state.app.url}/accounts?q=${encodeURIComponent('Xss <img')}`);
  const results = (await page.locator('main').textContent()) ?? '';
  assert.ok(results.includes(NAME), results);
  assert.is(await page.locator('main img').count(), 0, 'the name is text, not an image');
  assert.is(await xss(), undefined);

  await page.goto(`${state.app.url}/accounts/${encodeURIComponent(accountId)}`);
  const text = (await page.locator('main').textContent()) ?? '';
  assert.ok(text.includes(NAME), text);
  assert.ok(text.includes(MEMO), 'the memo is shown whole, as text');
  assert.is(await page.locator('main img').count(), 0);
  assert.is(await page.locator('#memoxss').count(), 0);
  assert.is(await xss(), undefined);
});

test.run();
