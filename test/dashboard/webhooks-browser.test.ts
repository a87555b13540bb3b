/**
 * The Webhooks page in a real browser (Chromium via playwright-core) against a real core,
 * gateway and dashboard on port 0, with a partner's receiver as a real HTTP server on port 0
 * (the core allows private addresses, as WEBHOOK_ALLOW_PRIVATE does). The owner sets the URL
 * and reads the secret once, the test event and a purchase's event arrive signed with it, a
 * receiver answering 500 shows as retrying and Resend delivers once it is fixed, and a viewer
 * sees the page but changes nothing, not even by a forged POST.
 */
import type { Browser, BrowserContext, Page } from 'playwright-core';
import * as assert from 'uvu/assert';
import { UserAdminService, UserRole } from '../../gen/prepaid/v1/holder_pb.js';
import { WebhookService } from '../../gen/prepaid/v1/webhooks_pb.js';
import { acceptInvitation, chromiumOrSkip, closeAll, launchChromium, signIn, snap } from '../helpers/browser.js';
import { startCore, type TestCore } from '../helpers/core.js';
import { startTestDashboard, type TestDashboard } from '../helpers/dashboard.js';
import { type ApiKeys, startTestGateway, type TestGateway } from '../helpers/gateway.js';
import { type Received, type Receiver, signedWith, startReceiver } from '../helpers/receiver.js';
import { suite } from '../helpers/suite.js';

interface State {
  core: TestCore;
  gateway: TestGateway;
  dashboard: TestDashboard;
  receiver: Receiver;
  browser: Browser;
  owner: BrowserContext;
  page: Page;
  accountId: string;
  keys: ApiKeys;
  secret: string;
}

const test = suite<State>('dashboard: the Webhooks page in a real browser', {} as State);
const PASSWORD = 'correct horse battery staple';
const DOCS = 'https://docs.example.com/prepaid/README.md';

const haveChromium = chromiumOrSkip('dashboard webhooks browser tests');
const flow = haveChromium ? test : test.skip;

/** Polls the core's store until `check` holds for the account's live deliveries (no sleep-and-assert). */
async function untilDeliveries(
  state: State,
  what: string,
  check: (items: Awaited<ReturnType<TestCore['store']['events']['listDeliveries']>>['items']) => boolean,
) {
  for (let i = 0; i < 400; i++) {
    const page = await state.core.store.events.listDeliveries(
      state.accountId,
      'live',
      { failedOnly: false },
      { limit: 100 },
    );
    if (check(page.items)) return;
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
  throw new Error(`deliveries never reached: ${what}`);
}

/** The delivery log's row of an event, after a reload. */
async function logRow(state: State, eventId: string) {
  await state.page.goto(`${state.dashboard.url}/webhooks`);
  return state.page.locator('tbody tr', { hasText: eventId });
}

const received = (state: State, predicate: (r: Received) => boolean) => state.receiver.received.filter(predicate);

test.before(async (state) => {
  if (!haveChromium) return;
  // Retries a minute apart (the default), so that a 500 stays visibly "retrying"; the worker polls often.
  state.core = await startCore({ webhooks: { allowPrivate: true, pollIntervalMs: 25 } });
  state.gateway = await startTestGateway(state.core, { authCacheTtlMs: 0 });
  state.dashboard = await startTestDashboard(state.core, {
    DASHBOARD_API_URL: `http://127.0.0.1:${state.gateway.port}/api/v1`,
    DASHBOARD_DOCS_URL: DOCS,
  });
  state.receiver = await startReceiver();
  state.browser = await launchChromium();
  state.owner = await state.browser.newContext({ viewport: { width: 1280, height: 900 } });
  state.page = await state.owner.newPage();
  // The rotate and disable forms ask the script's confirm(); a person says yes.
  state.page.on('dialog', (dialog) => void dialog.accept());
  const account = await state.core.createApiAccount({ name: 'Bisi Telecoms & Co', balanceKobo: 1_000_000 });
  state.accountId = account.accountId;
  state.keys = { publicKey: account.publicKey, secretKey: account.secretKey };
  const userAdmin = state.core.clientWithToken(UserAdminService, state.core.adminToken);
  const { invitation } = await userAdmin.inviteUser({
    accountId: state.accountId,
    email: 'bisi@bisitel.ng',
    role: UserRole.OWNER,
  });
  await acceptInvitation(state.page, state.dashboard.url, invitation!.inviteUrl, PASSWORD);
  await signIn(state.page, state.dashboard.url, 'bisi@bisitel.ng', PASSWORD);
  await state.page.waitForURL(`${state.dashboard.url}/`);
});

test.after(async (state) => {
  if (haveChromium) await closeAll(state.browser, state.receiver, state.dashboard, state.gateway, state.core);
});

flow('the owner sets the URL, reads the secret once, and a test event arrives signed with it', async (state) => {
  const { dashboard, page, receiver } = state;
  await page.getByRole('link', { name: 'Webhooks' }).click();
  await page.waitForURL(`${dashboard.url}/webhooks`);
  assert.match((await page.textContent('main')) ?? '', 'No live webhook is set');
  assert.is(
    await page.getByRole('link', { name: 'Webhooks and events' }).getAttribute('href'),
    `${DOCS}#webhooks-and-events`,
  );
  await snap(page, 'webhooks-empty');

  // The core's destination rule, said plainly beside the field and at the top.
  await page.getByLabel('Live webhook URL').fill('ftp://example.com/hooks');
  await page.getByRole('button', { name: 'Set live URL' }).click();
  assert.match((await page.textContent('#url_live-error')) ?? '', 'The URL must start with https://.');
  assert.match((await page.textContent('.error-summary')) ?? '', 'The URL must start with https://.');
  await snap(page, 'webhooks-error');
  assert.match((await page.textContent('main')) ?? '', 'No live webhook is set', 'nothing was set');
  assert.is(
    await page.getByLabel('Live webhook URL').inputValue(),
    'ftp://example.com/hooks',
    'what was typed is kept',
  );

  await page.getByLabel('Live webhook URL').fill(receiver.url);
  const [answer] = await Promise.all([
    page.waitForResponse((r) => r.url() === `${dashboard.url}/webhooks/url` && r.request().method() === 'POST'),
    page.getByRole('button', { name: 'Set live URL' }).click(),
  ]);
  assert.is(answer.headers()['cache-control'], 'no-store', 'the page with the secret is not cached');
  assert.not.match(page.url(), /whsec_/, 'the secret is not in the address');
  assert.match((await page.textContent('main')) ?? '', 'It will not be shown again');
  state.secret = (await page.textContent('#webhook-secret'))!.trim();
  assert.match(state.secret, /^whsec_[A-Za-z0-9_-]{43}$/);
  assert.ok(
    await page.getByRole('button', { name: 'Copy webhook secret' }).isVisible(),
    'the script shows the copy button',
  );
  await snap(page, 'webhooks-secret');

  await page.goto(`${dashboard.url}/webhooks`);
  assert.not.match(await page.content(), state.secret, 'never shown again');
  const live = (await page.textContent('section[aria-labelledby="webhook-live"]')) ?? '';
  assert.match(live, receiver.url);
  assert.match(live, 'Enabled');
  assert.match(live, `…${state.secret.slice(-4)}`, 'the end of the secret, to tell secrets apart');

  await page.getByRole('button', { name: 'Send a test event to the live URL' }).click();
  await page.waitForURL(/\/webhooks\?done=test$/);
  await receiver.waitFor(1, 'test events');
  const [ping] = received(state, (r) => r.json.type === 'ping');
  assert.ok(ping, 'the receiver got the ping');
  assert.ok(
    signedWith(ping.headers['prepaid-signature'], ping.raw, state.secret),
    'signed with the secret the page showed once',
  );
  assert.not.ok(
    signedWith(ping.headers['prepaid-signature'], ping.raw, 'whsec_not_the_secret'),
    'and not with another',
  );
  await untilDeliveries(state, 'the ping delivered', (items) =>
    items.some((e) => e.eventId === ping.json.id && e.delivery === 'delivered'),
  );
  const row = await logRow(state, ping.json.id);
  assert.match((await row.textContent()) ?? '', 'Delivered');
  assert.match((await row.textContent()) ?? '', '200');
  await snap(page, 'webhooks');
});

flow('a purchase through the gateway shows as transaction.success in the delivery log', async (state) => {
  const { gateway, receiver } = state;
  const seen = receiver.received.length;
  const bought = await gateway.request({
    query: { action: 'airtime' },
    keys: state.keys,
    body: { network: 'mtn', phone: '08031234567', amount: 100 },
  });
  assert.is(bought.status, 200, bought.text);
  await receiver.waitFor(seen + 1, 'the purchase event');
  const [event] = received(
    state,
    (r) => r.json.type === 'transaction.success' && r.json.data.transaction.reference === bought.json.reference,
  );
  assert.ok(event, 'the receiver got the purchase');
  assert.ok(signedWith(event.headers['prepaid-signature'], event.raw, state.secret));
  await untilDeliveries(state, 'the purchase delivered', (items) =>
    items.some((e) => e.eventId === event.json.id && e.delivery === 'delivered'),
  );
  const row = await logRow(state, event.json.id);
  assert.is(await row.count(), 1);
  assert.match((await row.textContent()) ?? '', 'transaction.success');
  assert.match((await row.textContent()) ?? '', 'Delivered');
});

flow('a receiver answering 500 shows a retry; once it is fixed, Resend delivers the event', async (state) => {
  const { gateway, page, receiver } = state;
  receiver.answers = Array.from({ length: 20 }, () => 500);
  const seen = receiver.received.length;
  const bought = await gateway.request({
    query: { action: 'airtime' },
    keys: state.keys,
    body: { network: 'glo', phone: '08051234567', amount: 200 },
  });
  assert.is(bought.status, 200, bought.text);
  await receiver.waitFor(seen + 1, 'the first attempt');
  const eventId = receiver.received[seen]!.json.id as string;
  await untilDeliveries(state, 'the failed attempt recorded', (items) =>
    items.some((e) => e.eventId === eventId && e.attempts === 1 && e.lastStatus === 500),
  );
  let row = await logRow(state, eventId);
  const retrying = (await row.textContent()) ?? '';
  assert.match(retrying, 'Retrying');
  assert.match(retrying, '500');
  assert.ok((await row.locator('time').count()) >= 2, 'the next attempt and the recorded time, in Lagos time');
  await page.getByLabel('Only deliveries that failed for good').check();
  await page.getByRole('button', { name: 'Show deliveries' }).click();
  assert.match(page.url(), /failed=1/);
  assert.match(
    (await page.textContent('main')) ?? '',
    'still being retried are not failed yet',
    'the filter says plainly what it leaves out',
  );
  await page.goto(`${state.dashboard.url}/webhooks`);
  await snap(page, 'webhooks-retrying');

  receiver.answers = [];
  row = page.locator('tbody tr', { hasText: eventId });
  await row.getByRole('button', { name: `Resend ${eventId}` }).click();
  await page.waitForURL(/\/webhooks\?done=resent$/);
  await receiver.waitFor(seen + 2, 'the resent event');
  const again = receiver.received[seen + 1]!;
  assert.is(again.json.id, eventId, 'the same event');
  assert.ok(signedWith(again.headers['prepaid-signature'], again.raw, state.secret));
  await untilDeliveries(state, 'the resent event delivered', (items) =>
    items.some((e) => e.eventId === eventId && e.delivery === 'delivered'),
  );
  row = await logRow(state, eventId);
  const delivered = (await row.textContent()) ?? '';
  assert.match(delivered, 'Delivered');
  assert.match(delivered, '200');
});

flow(
  'the test endpoint is its own: its URL and secret, test events with livemode false, its own delivery log',
  async (state) => {
    const { dashboard, page, receiver } = state;
    // The mode lives in the address: the test endpoint is on /test/webhooks.
    await page.goto(`${dashboard.url}/test/webhooks`);
    assert.is(await page.getByLabel('Live webhook URL').count(), 0, 'the test side shows the test endpoint only');
    await page.getByLabel('Test webhook URL').fill(`${receiver.url}/test`);
    await page.getByRole('button', { name: 'Set test URL' }).click();
    const secret = (await page.textContent('#webhook-secret'))!.trim();
    assert.match(secret, /^whsec_/);
    assert.is.not(secret, state.secret, 'a secret of its own');
    const seen = receiver.received.length;
    await page.getByRole('button', { name: 'Send a test event to the test URL' }).click();
    await page.waitForURL(/\/test\/webhooks\?done=test$/);
    await receiver.waitFor(seen + 1, 'the test-mode ping');
    const ping = receiver.received[seen]!;
    assert.is(ping.json.livemode, false);
    assert.ok(signedWith(ping.headers['prepaid-signature'], ping.raw, secret), 'signed with the test secret');
    assert.not.ok(signedWith(ping.headers['prepaid-signature'], ping.raw, state.secret), 'not with the live one');
    for (let i = 0; i < 400; i++) {
      const items = (
        await state.core.store.events.listDeliveries(state.accountId, 'test', { failedOnly: false }, { limit: 10 })
      ).items;
      if (items.some((e) => e.eventId === ping.json.id && e.delivery === 'delivered')) break;
      await new Promise((resolve) => setTimeout(resolve, 25));
    }
    await page.goto(`${dashboard.url}/test/webhooks`);
    assert.match((await page.locator('tbody tr', { hasText: ping.json.id }).textContent()) ?? '', 'Delivered');
    await page.goto(`${dashboard.url}/webhooks`);
    assert.is(await page.locator('tbody tr', { hasText: ping.json.id }).count(), 0, 'not in the live log');
    assert.match(
      (await page.textContent('section[aria-labelledby="webhook-live"]')) ?? '',
      receiver.url,
      'the live endpoint is untouched',
    );
  },
);

flow('a viewer sees the page without its buttons, and the core refuses their forged POSTs', async (state) => {
  const { browser, core, dashboard, receiver } = state;
  const userAdmin = core.clientWithToken(UserAdminService, core.adminToken);
  const { invitation } = await userAdmin.inviteUser({
    accountId: state.accountId,
    email: 'tunde@bisitel.ng',
    role: UserRole.VIEWER,
  });
  // The viewer's browser runs no script: the page works without it.
  const context = await browser.newContext({ javaScriptEnabled: false, viewport: { width: 1280, height: 900 } });
  const viewer = await context.newPage();
  await acceptInvitation(viewer, dashboard.url, invitation!.inviteUrl, 'a viewer password of some length');
  await signIn(viewer, dashboard.url, 'tunde@bisitel.ng', 'a viewer password of some length');
  await viewer.waitForURL(`${dashboard.url}/`);
  await viewer.goto(`${dashboard.url}/webhooks`);
  assert.match((await viewer.textContent('main')) ?? '', receiver.url);
  assert.ok((await viewer.locator('tbody tr').count()) >= 3, 'the delivery log');
  for (const name of [/^Set /, /^Replace /, /^Rotate /, /^Disable /, /^Send a test event/, /^Resend/]) {
    assert.is(await viewer.getByRole('button', { name }).count(), 0, `no ${name} button`);
  }
  await snap(viewer, 'webhooks-viewer');

  const operator = core.clientWithToken(WebhookService, core.adminToken);
  const before = (await operator.getWebhook({ accountId: state.accountId })).webhook!;
  const eventId = (await operator.listDeliveries({ accountId: state.accountId })).deliveries[0]!.eventId;
  const seen = receiver.received.length;
  const csrf = await viewer.locator('input[name=csrf_token]').first().inputValue();
  for (const [path, form] of [
    ['/webhooks/url', { url: 'http://127.0.0.1:9/elsewhere' }],
    ['/webhooks/rotate', {}],
    ['/webhooks/disable', {}],
    ['/webhooks/test', {}],
    ['/webhooks/resend', { event_id: eventId }],
  ] as const) {
    const forged = await viewer.request.post(`${dashboard.url}${path}`, { form: { csrf_token: csrf, ...form } });
    assert.is(forged.status(), 403, path);
    assert.match(await forged.text(), 'You cannot do that');
  }
  const after = (await operator.getWebhook({ accountId: state.accountId })).webhook!;
  assert.equal(
    [after.url, after.enabled, after.secretHint, after.previousSecretUntil],
    [before.url, before.enabled, before.secretHint, before.previousSecretUntil],
    'nothing changed',
  );
  assert.is(receiver.received.length, seen, 'nothing was sent');
  await context.close();
});

flow('the owner rotates the secret (the old one still signs for a day) and disables the webhook', async (state) => {
  const { dashboard, page, receiver } = state;
  await page.goto(`${dashboard.url}/webhooks`);
  await page.getByRole('button', { name: 'Rotate live secret' }).click();
  const rotated = (await page.textContent('#webhook-secret'))!.trim();
  assert.match(rotated, /^whsec_/);
  assert.is.not(rotated, state.secret);
  assert.match(
    (await page.textContent('section[aria-labelledby="webhook-live"]')) ?? '',
    'The previous secret signs too until',
  );
  await snap(page, 'webhooks-rotated');
  const seen = receiver.received.length;
  await page.goto(`${dashboard.url}/webhooks`);
  await page.getByRole('button', { name: 'Send a test event to the live URL' }).click();
  await receiver.waitFor(seen + 1);
  const ping = receiver.received[seen]!;
  assert.ok(signedWith(ping.headers['prepaid-signature'], ping.raw, rotated), 'signed with the new secret');
  assert.ok(
    signedWith(ping.headers['prepaid-signature'], ping.raw, state.secret),
    'and the old one, during the rotation',
  );

  await page.getByRole('button', { name: 'Disable live webhook' }).click();
  await page.waitForURL(/\/webhooks\?done=disabled$/);
  assert.match((await page.textContent('section[aria-labelledby="webhook-live"]')) ?? '', 'Disabled');
  assert.is(await page.getByRole('button', { name: 'Send a test event to the live URL' }).count(), 0);
  assert.ok(await page.getByRole('button', { name: 'Enable live webhook' }).isVisible());
});

test.run();
