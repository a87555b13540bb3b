/**
 * Asking for API access, in a real browser against a real core, gateway and dashboard on
 * port 0: an owner of an account without API access reads plain words on the API keys page
 * (no operator language) and asks; the operator sees the request with `prepaid upgrades list`
 * and approves it with `prepaid upgrades approve`, which prints no key; on the owner's next
 * visit the first key pair is shown once (a reload and a second tab get nothing more), and it
 * works at the real gateway. A refusal lets the account ask again.
 */
import type { Browser, Page } from 'playwright-core';
import * as assert from 'uvu/assert';
import { DEFAULT_TIER_ID } from '../../core/catalog/defaults.js';
import { UserAdminService, UserRole } from '../../gen/prepaid/v1/holder_pb.js';
import { runAgainst, runJson } from '../cli/run.js';
import { acceptInvitation, chromiumOrSkip, closeAll, launchChromium, signIn, snap } from '../helpers/browser.js';
import { startCore, type TestCore } from '../helpers/core.js';
import { startTestDashboard, type TestDashboard } from '../helpers/dashboard.js';
import { startTestGateway, type TestGateway } from '../helpers/gateway.js';
import { suite } from '../helpers/suite.js';

interface State {
  core: TestCore;
  gateway: TestGateway;
  dashboard: TestDashboard;
  browser: Browser;
  page: Page;
  accountId: string;
  keys: { publicKey: string; secretKey: string };
}

const test = suite<State>('dashboard: asking for API access, in a real browser', {} as State);
const haveChromium = chromiumOrSkip('dashboard API access browser tests');
const flow = haveChromium ? test : test.skip;

const OWNER = { email: 'bisi@lagosvend.ng', password: 'a long owner password 42' };
const mainText = async (page: Page) => (await page.textContent('main')) ?? '';

test.before(async (state) => {
  if (!haveChromium) return;
  state.core = await startCore();
  state.gateway = await startTestGateway(state.core, { authCacheTtlMs: 0 });
  state.dashboard = await startTestDashboard(state.core);
  state.browser = await launchChromium();
  const created = await state.core.admin.createAccount({ name: 'Lagos Vend', tierId: DEFAULT_TIER_ID });
  state.accountId = created.account!.accountId;
  await state.core.admin.creditWallet({
    accountId: state.accountId,
    amountKobo: 1_000_000n,
    memo: 'first funding',
    reference: 'BANK-0201',
  });
  const userAdmin = state.core.clientWithToken(UserAdminService, state.core.adminToken);
  const { invitation } = await userAdmin.inviteUser({
    accountId: state.accountId,
    email: OWNER.email,
    role: UserRole.OWNER,
  });
  state.page = await (await state.browser.newContext()).newPage();
  await acceptInvitation(state.page, state.dashboard.url, invitation!.inviteUrl, OWNER.password);
  await signIn(state.page, state.dashboard.url, OWNER.email, OWNER.password);
  await state.page.waitForURL(`${state.dashboard.url}/`);
});

test.after(async (state) => {
  if (haveChromium) await closeAll(state.browser, state.dashboard, state.gateway, state.core);
});

flow('the API keys page of an account without API access speaks plainly and offers to ask', async (state) => {
  const { dashboard, page } = state;
  await page.goto(`${dashboard.url}/keys`);
  const text = await mainText(page);
  assert.match(text, 'needs API access');
  assert.not.match(text, /tier|move it to/i, 'no operator language');
  assert.is(await page.getByRole('button', { name: 'Create a key pair' }).count(), 0);
  await snap(page, 'keys-ask-access');
});

flow('a refused request may be made again', async (state) => {
  const { dashboard, page, core } = state;
  await page.goto(`${dashboard.url}/keys`);
  await page.getByRole('button', { name: 'Ask for API access' }).click();
  await page.waitForURL(/\/keys\?done=requested$/);
  assert.match(await mainText(page), 'waiting for approval');
  const refused = await runAgainst(core, ['upgrades', 'refuse', state.accountId]);
  assert.is(refused.code, 0, refused.stderr);
  await page.goto(`${dashboard.url}/keys`);
  assert.match(await mainText(page), 'was not approved');
  assert.is(await page.getByRole('button', { name: 'Ask for API access' }).count(), 1);
});

flow(
  'asked, approved by the operator (who sees no key), then the first key pair is shown once to the owner',
  async (state) => {
    const { dashboard, page, core } = state;
    await page.goto(`${dashboard.url}/keys`);
    await page
      .getByLabel('What will you build with the API? (optional)')
      .fill('Our shop website sells airtime and data.');
    await page.getByRole('button', { name: 'Ask for API access' }).click();
    await page.waitForURL(/\/keys\?done=requested$/);

    const listed = await runJson(core, ['upgrades', 'list']);
    const requests = listed.json.requests as Array<Record<string, unknown>>;
    assert.equal(
      requests.map((r) => [r.account_id, r.requested_by, r.note]),
      [[state.accountId, OWNER.email, 'Our shop website sells airtime and data.']],
    );
    const approved = await runAgainst(core, ['upgrades', 'approve', state.accountId]);
    assert.is(approved.code, 0, approved.stderr);
    assert.match(approved.stdout, 'Approved API access');
    assert.not.match(approved.stdout + approved.stderr, /sk_|pk_/, 'the operator is never shown the key');
    assert.is(
      (await core.admin.listApiKeys({ accountId: state.accountId })).keys.length,
      0,
      'no key until the owner comes',
    );

    await page.goto(`${dashboard.url}/`);
    await page.waitForURL(/\/keys\?created=[A-Za-z0-9_-]+&first=1$/);
    assert.match(await mainText(page), 'now has API access');
    state.keys = {
      publicKey: (await page.textContent('#new-public-key'))!.trim(),
      secretKey: (await page.textContent('#new-secret-key'))!.trim(),
    };
    assert.match(state.keys.secretKey, /^sk_/);
    await snap(page, 'keys-first-after-approval');

    await page.reload();
    assert.not.match(await page.content(), state.keys.secretKey, 'shown once');
    const other = await (await state.browser.newContext()).newPage();
    await signIn(other, dashboard.url, OWNER.email, OWNER.password);
    await other.waitForURL(`${dashboard.url}/`);
    await other.goto(`${dashboard.url}/keys`);
    assert.not.match(await other.content(), 'sk_', 'another session gets no second key');
    assert.is(
      (await core.admin.listApiKeys({ accountId: state.accountId })).keys.length,
      1,
      'exactly one key was issued',
    );
    assert.equal((await runJson(core, ['upgrades', 'list'])).json.requests, [], 'the queue is empty');
  },
);

flow('the key works at the real gateway', async (state) => {
  const answer = await state.gateway.request({ query: { action: 'balance' }, keys: state.keys });
  assert.is(answer.status, 200, answer.text);
  assert.is(answer.json.balance, 10_000);
});

flow('refusing or approving an account that did not ask is refused, exit 1', async (state) => {
  const { account } = await state.core.admin.createAccount({ name: 'Quiet Shop', tierId: DEFAULT_TIER_ID });
  const run = await runAgainst(state.core, ['upgrades', 'approve', account!.accountId]);
  assert.is(run.code, 1);
  assert.match(run.stderr, 'no pending request');
});

test.run();
