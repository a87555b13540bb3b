/**
 * Suspending an account from the console, in a real browser against a real core, gateway and
 * developer area on port 0: an admin finds the account by part of its name and suspends it
 * with a note; at once (the gateway's key cache warm) its live and test keys answer 401 with
 * the suspension message, and its developer area shows the banner and refuses a change as a
 * form error; resumed, all of it works again. A support member's forged POST to suspend is
 * refused by the core. Both decisions are audited.
 */
import type { Browser, Page } from 'playwright-core';
import * as assert from 'uvu/assert';
import { UserAdminService, UserRole } from '../../gen/prepaid/v1/holder_pb.js';
import { Mode } from '../../gen/prepaid/v1/types_pb.js';
import { acceptInvitation, chromiumOrSkip, closeAll, launchChromium, signIn } from '../helpers/browser.js';
import { startTestConsole, type TestConsole } from '../helpers/console.js';
import { startCore, type TestCore } from '../helpers/core.js';
import { startTestDashboard, type TestDashboard } from '../helpers/dashboard.js';
import { type ApiKeys, startTestGateway, type TestGateway } from '../helpers/gateway.js';
import { consoleClients, staffInBrowser, TestClock } from '../helpers/staff.js';
import { suite } from '../helpers/suite.js';

interface State {
  core: TestCore;
  gateway: TestGateway;
  dashboard: TestDashboard;
  app: TestConsole;
  browser: Browser;
  clock: TestClock;
  accountId: string;
  live: ApiKeys;
  test: ApiKeys;
  holder: Page;
}

const test = suite<State>('console: suspending an account, through the gateway and the developer area', {} as State);
const haveChromium = chromiumOrSkip('console suspension browser tests');
const flow = haveChromium ? test : test.skip;
const HOLDER_PASSWORD = 'correct horse battery staple';
const SUSPENDED = {
  status: 'error',
  code: 'ACCOUNT_SUSPENDED',
  message: 'This account is suspended. Contact support.',
};

test.before(async (state) => {
  if (!haveChromium) return;
  state.clock = new TestClock();
  state.core = await startCore({ clock: state.clock.now });
  // The gateway's default key cache (5 s) stays on: a suspension must not wait for it.
  state.gateway = await startTestGateway(state.core);
  state.dashboard = await startTestDashboard(state.core);
  state.app = await startTestConsole(state.core);
  state.browser = await launchChromium();
  const account = await state.core.createApiAccount({ name: 'Zainab Foods & Sons', balanceKobo: 50_000_00 });
  state.accountId = account.accountId;
  state.live = { publicKey: account.publicKey, secretKey: account.secretKey };
  const issued = await state.core.admin.createApiKey({ accountId: state.accountId, mode: Mode.TEST });
  state.test = { publicKey: issued.issuedKey!.publicKey, secretKey: issued.issuedKey!.secretKey };
  const userAdmin = state.core.clientWithToken(UserAdminService, state.core.adminToken);
  const { invitation } = await userAdmin.inviteUser({
    accountId: state.accountId,
    email: 'zainab@zainabfoods.ng',
    role: UserRole.OWNER,
  });
  state.holder = await (await state.browser.newContext()).newPage();
  await acceptInvitation(state.holder, state.dashboard.url, invitation!.inviteUrl, HOLDER_PASSWORD);
  await signIn(state.holder, state.dashboard.url, 'zainab@zainabfoods.ng', HOLDER_PASSWORD);
  await state.holder.waitForURL(`${state.dashboard.url}/`);
});

test.after(async (state) => {
  if (haveChromium) await closeAll(state.browser, state.app, state.dashboard, state.gateway, state.core);
});

/** A member signed in through the console's pages (test/helpers/staff.ts). */
const member = (state: State, role: 'admin' | 'support' | 'finance', email: string): Promise<Page> =>
  staffInBrowser(
    { core: state.core, clock: state.clock, browser: state.browser, consoleUrl: state.app.url },
    role,
    email,
  );

const balance = (state: State, keys: ApiKeys) => state.gateway.request({ query: { action: 'balance' }, keys });
const airtime = (state: State, keys: ApiKeys) =>
  state.gateway.request({
    query: { action: 'airtime' },
    keys,
    body: { network: 'mtn', phone: '08031234567', amount: 100 },
  });

async function setWebhook(state: State): Promise<string> {
  await state.holder.goto(`${state.dashboard.url}/webhooks`);
  await state.holder.getByLabel('Live webhook URL').fill('https://hooks.zainabfoods.ng/prepaid');
  await state.holder.getByRole('button', { name: /Set live URL|Replace live URL/ }).click();
  await state.holder.waitForLoadState();
  return (await state.holder.textContent('body')) ?? '';
}

flow("a support member's forged POST to suspend is refused by the core", async (state) => {
  const tunde = await member(state, 'support', 'tunde@ops.example.ng');
  await tunde.goto(`${state.app.url}/accounts/${state.accountId}`);
  const csrf = await tunde.locator('input[name="csrf_token"]').first().inputValue();
  const answer = await tunde.request.post(`${state.app.url}/accounts/${state.accountId}/suspend`, {
    form: { csrf_token: csrf, note: 'forged by support' },
    maxRedirects: 0,
  });
  assert.is(answer.status(), 403);
  assert.match(await answer.text(), /cannot do this/);
  assert.is((await state.core.store.accounts.get(state.accountId))!.suspension, undefined);
  assert.is((await balance(state, state.live)).status, 200);
});

flow(
  'an admin suspends by name: keys answer 401 at once, the developer area is read-only; resumed, it all works',
  async (state) => {
    // The gateway has verified the live pair: its cache holds it for 5 s.
    assert.is((await balance(state, state.live)).status, 200);
    assert.is((await balance(state, state.test)).status, 200);

    const ada = await member(state, 'admin', 'ada@ops.example.ng');
    await ada.goto(`${state.app.url}/accounts`);
    await ada.getByLabel(/part of the name/).fill('zainab FOODS');
    await ada.getByRole('button', { name: 'Search' }).click();
    await ada.getByRole('link', { name: 'Zainab Foods & Sons' }).click();
    await ada.waitForURL(`${state.app.url}/accounts/${state.accountId}`);
    await ada.getByLabel(/Why suspend it/).fill('Chargebacks under review, ticket 7781');
    await ada.getByRole('button', { name: 'Suspend the account' }).click();
    await ada.waitForURL(`${state.app.url}/accounts/${state.accountId}`);
    assert.match(
      (await ada.textContent('main')) ?? '',
      /Suspended since .* by staff:ada@ops\.example\.ng: Chargebacks under review/,
    );

    for (const keys of [state.live, state.test]) {
      const refused = await balance(state, keys);
      assert.is(refused.status, 401);
      assert.equal({ status: refused.json.status, code: refused.json.code, message: refused.json.message }, SUSPENDED);
      const bought = await airtime(state, keys);
      assert.is(bought.status, 401);
      assert.is(bought.json.message, SUSPENDED.message);
    }
    assert.is((await state.core.admin.getAccount({ accountId: state.accountId })).account!.balanceKobo, 50_000_00n);

    // The overview still opens (reading is allowed), under the banner.
    const overview = await state.holder.goto(`${state.dashboard.url}/`);
    assert.is(overview?.status(), 200);
    assert.match(
      (await state.holder.textContent('.suspended-banner')) ?? '',
      /This account is suspended\. Its API keys/,
    );
    const keysPage = await state.holder.goto(`${state.dashboard.url}/keys`);
    assert.is(keysPage?.status(), 200);
    assert.is(await state.holder.locator('.suspended-banner').count(), 1);
    const refusedPage = await setWebhook(state);
    assert.match(refusedPage, /suspended: its developer area is read-only/);
    assert.is(await state.core.store.webhooks.get(state.accountId, 'live'), null);

    await ada.getByLabel(/Why resume it/).fill('Review closed, no fraud found');
    await ada.getByRole('button', { name: 'Resume the account' }).click();
    await ada.waitForURL(`${state.app.url}/accounts/${state.accountId}`);
    assert.match((await ada.textContent('main')) ?? '', /Active/);

    assert.is((await balance(state, state.live)).status, 200);
    assert.is((await balance(state, state.test)).status, 200);
    await state.holder.goto(`${state.dashboard.url}/`);
    assert.is(await state.holder.locator('.suspended-banner').count(), 0);
    const acceptedPage = await setWebhook(state);
    assert.not.match(acceptedPage, /suspended/);
    assert.ok(await state.core.store.webhooks.get(state.accountId, 'live'), 'the webhook is set once resumed');

    const { staffAdmin } = consoleClients(state.core);
    const { entries } = await staffAdmin.listAudit({ filter: { target: state.accountId, action: 'account.' } });
    assert.equal(
      // The test clock stands still between the two, so their order in the log is not asserted.
      entries.map((e) => [e.action, e.actor, e.note]).sort((x, y) => x[0]!.localeCompare(y[0]!)),
      [
        ['account.resume', 'staff:ada@ops.example.ng', 'Review closed, no fraud found'],
        ['account.suspend', 'staff:ada@ops.example.ng', 'Chargebacks under review, ticket 7781'],
      ],
    );
  },
);

test.run();
