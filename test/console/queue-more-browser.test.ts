/**
 * More of the attention queue in a real browser against a real core with routed (sandbox)
 * upstreams: a pending purchase shows the upstream attempts it made and its upstreams' answers
 * (collapsed, escaped, without credentials), a webhook destination whose oldest undelivered
 * event is two days old is listed (and shown on its account's page), and the sandbox upstream,
 * whose circuit opened after declines and a time-out, is listed with its last error.
 */
import type { Browser, Page } from 'playwright-core';
import * as assert from 'uvu/assert';
import { kobo } from '../../core/domain/money.js';
import { cleanRawAnswer } from '../../core/domain/raw-answers.js';
import { ALL_SANDBOX, createProviders } from '../../core/providers/index.js';
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

const test = suite<State>('console: evidence, failing webhooks and upstreams in the queue', {} as State);
const haveChromium = chromiumOrSkip('console queue browser tests');
const flow = haveChromium ? test : test.skip;

test.before(async (state) => {
  if (!haveChromium) return;
  state.clock = new TestClock();
  state.core = await startCore({
    clock: state.clock.now,
    providerTimeoutMs: 200,
    upstreams: (store) =>
      createProviders(
        { routing: ALL_SANDBOX, upstreams: [], sandboxDelayMs: 0, vtpass: null, vtpassSms: null },
        { catalog: store.catalog },
      ),
  });
  state.app = await startTestConsole(state.core);
  state.browser = await launchChromium();
});

test.after(async (state) => {
  if (haveChromium) await closeAll(state.browser, state.app, state.core);
});

/** The support member of these flows, signed in through the console's pages. */
const supportMember = (state: State): Promise<Page> =>
  staffInBrowser(
    { core: state.core, clock: state.clock, browser: state.browser, consoleUrl: state.app.url },
    'support',
    'yemi@ops.example.ng',
  );

flow(
  'a pending purchase shows its attempts; a day-old failing webhook and an open circuit are listed',
  async (state) => {
    const { accountId } = await state.core.createApiAccount({ balanceKobo: 50_000_00 });
    // 8888: the sandbox never answers; the purchase stays pending where it went.
    const bought = await state.core.purchase.buyAirtime({
      accountId,
      network: 'mtn',
      phone: '08031238888',
      amountKobo: 100_00n,
    });
    const reference = bought.transaction!.reference;
    await state.core.store.wallet.recordAttempt(
      reference,
      {
        attempts: 9,
        nextAttemptAt: new Date(state.clock.ms + 3_600_000),
        needsAttention: true,
        at: state.clock.now(),
      },
      undefined,
      // What the upstream said, as the core keeps it: cleaned of its credential, escaped on the page.
      [
        {
          source: 'requery',
          upstream: 'sandbox',
          body: cleanRawAnswer('{"status":"pending","api_key":"key-k5-secret","note":"<b id=injected>x</b>"}', 200),
        },
      ],
    );
    // 9999: declined, a proven non-delivery; with the time-out, five in a row open the circuit.
    for (let i = 0; i < 4; i++) {
      await state.core.purchase
        .buyAirtime({ accountId, network: 'mtn', phone: '08031239999', amountKobo: 100_00n })
        .then(
          () => assert.unreachable('a declined purchase is refused'),
          () => undefined,
        );
    }

    // A webhook whose oldest event has waited two days (no delivery worker runs here).
    await state.core.store.webhooks.put({
      accountId,
      mode: 'live',
      // A holder's text in the URL: shown on the account page as text, never markup.
      url: 'https://hooks.example.ng/prepaid?x="><b id=hookxss>',
      secret: 'whsec_queue',
      previousSecret: null,
      previousSecretUntil: null,
      enabled: true,
      createdAt: state.clock.now(),
      updatedAt: state.clock.now(),
    });
    await state.core.store.ledger.post({
      kind: 'credit',
      credit: {
        accountId,
        mode: 'live',
        amountKobo: kobo(1_00),
        reference: 'CR-QUEUE-OLD',
        memo: 'old',
        at: new Date(state.clock.ms - 2 * 24 * 3_600_000),
      },
    });

    const page = await supportMember(state);
    const item = page.locator(`[data-reference="${reference}"]`);
    const itemText = (await item.textContent()) ?? '';
    assert.match(itemText, /Upstream attempts/);
    assert.match(itemText, /1\s*sandbox/);
    // The answer: collapsed by default (no script), its text escaped, its credential gone.
    const answer = item.locator('details[data-answer="1"]');
    assert.is(await answer.count(), 1);
    assert.is(await answer.getAttribute('open'), null, 'collapsed');
    assert.is(await answer.locator('pre').isVisible(), false);
    assert.match((await answer.locator('summary').textContent()) ?? '', /requery answer from sandbox/);
    const pre = (await answer.locator('pre').textContent()) ?? '';
    assert.match(pre, /^HTTP 200/);
    assert.match(pre, /<b id=injected>x<\/b>/, 'shown as text');
    assert.is(await page.locator('#injected').count(), 0, 'never markup');
    assert.not.match(await page.content(), /key-k5-secret/);
    await answer.locator('summary').click();
    assert.is(await answer.locator('pre').isVisible(), true, 'opens without script');

    const webhook = page.locator(`[data-webhook="${accountId}:live"]`);
    assert.is(await webhook.count(), 1);
    assert.match((await webhook.textContent()) ?? '', /Events waiting\s*1/);

    const upstream = page.locator('[data-upstream="sandbox"]');
    assert.is(await upstream.count(), 1);
    assert.match((await upstream.textContent()) ?? '', /Circuit\s*(open|half-open)/);

    // The account's page: each mode's destination, its newest delivery and its backlog.
    await page.goto(`${state.app.url}/accounts/${encodeURIComponent(accountId)}`);
    const live = page.locator('[data-webhook-mode="live"]');
    const liveText = (await live.textContent()) ?? '';
    assert.ok(liveText.includes('https://hooks.example.ng/prepaid?x="><b id=hookxss>'), liveText);
    assert.is(await page.locator('#hookxss').count(), 0, 'the URL is text');
    assert.not.match(liveText, /disabled/);
    assert.match(liveText, /Newest delivery\s*pending \(no attempt yet\)/);
    assert.match(liveText, /Waiting for delivery\s*1, since \d{2} \w{3} \d{4}, \d{2}:\d{2}:\d{2} WAT/);
    assert.not.match(await page.content(), /whsec_queue/);
    assert.match((await page.locator('[data-webhook-mode="test"]').textContent()) ?? '', /Destination\s*none set/);
  },
);

test.run();
