/**
 * A form acts only for the account it was made for, over real HTTP against a real core and
 * dashboard on port 0. One person owns two accounts; a "tab" loads a form while the session acts
 * for the first, another tab switches the session to the second, and the first tab sends its form.
 * For a purchase, a new key pair, an invitation, a webhook, test funds and a low-balance warning alike, the core refuses it (409, a page
 * naming the account the session acts for now) and nothing changes in either account; the same
 * form loaded again after the switch acts for the second account. The ledger check passes.
 */
import * as assert from 'uvu/assert';
import { UserAdminService, UserRole } from '../../gen/prepaid/v1/holder_pb.js';
import { Mode } from '../../gen/prepaid/v1/types_pb.js';
import { assertLedgerInvariant, startCore, type TestCore } from '../helpers/core.js';
import { startTestDashboard, type TestDashboard } from '../helpers/dashboard.js';
import { suite } from '../helpers/suite.js';

interface State {
  core: TestCore;
  dashboard: TestDashboard;
  cookie: string;
  session: string;
  first: string;
  second: string;
}

const test = suite<State>('dashboard: a form acts only for the account it was made for', {} as State);
const PASSWORD = 'a long password for both accounts';
const START_KOBO = 1_000_000;

test.before(async (state) => {
  state.core = await startCore();
  state.dashboard = await startTestDashboard(state.core);
  const admin = state.core.clientWithToken(UserAdminService, state.core.adminToken);
  state.first = (await state.core.createApiAccount({ name: 'Ada Stores', balanceKobo: START_KOBO })).accountId;
  state.second = (await state.core.createApiAccount({ name: 'Bayo Telecoms', balanceKobo: START_KOBO })).accountId;
  for (const accountId of [state.first, state.second]) {
    const { invitation } = await admin.inviteUser({ accountId, email: 'ada@example.ng', role: UserRole.OWNER });
    await state.dashboard.client.holder.acceptInvitation({
      invitationToken: invitation!.invitationToken,
      password: PASSWORD,
    });
  }
  const signedIn = await state.dashboard.client.holder.signIn({
    email: 'ada@example.ng',
    password: PASSWORD,
    clientIp: '127.0.0.1',
  });
  state.session = signedIn.sessionToken;
  state.cookie = `prepaid_session=${signedIn.sessionToken}`;
});

test.after(async (state) => {
  await state.dashboard?.close();
  await state.core?.close();
});

/** The hidden fields of the page's form posting to `action` (the CSRF token, the form's account, a request id). */
function hiddenFields(page: string, action: string): URLSearchParams {
  const start = page.indexOf(`action="${action}"`);
  assert.ok(start >= 0, `a form posting to ${action}`);
  const form = page.slice(start, page.indexOf('</form>', start));
  const fields = new URLSearchParams();
  for (const match of form.matchAll(/<input type="hidden" name="([^"]+)" value="([^"]*)">/g))
    fields.set(match[1]!, match[2]!.replaceAll('&amp;', '&'));
  return fields;
}

/** One tab's load of a page: the form's hidden fields, as the browser would send them back. */
async function loadForm(state: State, path: string, action: string): Promise<URLSearchParams> {
  const response = await fetch(`${state.dashboard.url}${path}`, { headers: { cookie: state.cookie } });
  assert.is(response.status, 200, `GET ${path}`);
  return hiddenFields(await response.text(), action);
}

async function send(state: State, action: string, fields: URLSearchParams): Promise<{ status: number; text: string }> {
  const response = await fetch(`${state.dashboard.url}${action}`, {
    method: 'POST',
    headers: { cookie: state.cookie, 'content-type': 'application/x-www-form-urlencoded' },
    body: fields.toString(),
    redirect: 'manual',
  });
  return { status: response.status, text: await response.text() };
}

/** The other tab's switch, through the header's form like a person's. */
async function switchTo(state: State, accountId: string): Promise<void> {
  const fields = await loadForm(state, '/', '/account');
  fields.set('account', accountId);
  assert.is((await send(state, '/account', fields)).status, 303);
}

/** What each case may have changed, read for both accounts from the core. */
async function footprint(state: State) {
  const holder = state.dashboard.client.holder;
  const read = async (accountId: string) => ({
    balance: (await state.core.admin.getAccount({ accountId })).account!.balanceKobo,
    testBalance: (await state.core.admin.getAccount({ accountId })).account!.testBalanceKobo,
    lowBalance: await state.core.store.funding.getLowBalanceThreshold(accountId, 'live'),
    keys: (await state.core.store.keys.listByAccount(accountId)).length,
    invitations: (await state.core.store.people.listOpenInvitations(accountId, new Date())).length,
  });
  const webhooks: string[] = [];
  for (const accountId of [state.first, state.second]) {
    await holder.switchAccount({ sessionToken: state.session, accountId });
    const { webhook } = await holder.getWebhook({ sessionToken: state.session, mode: Mode.LIVE });
    webhooks.push(webhook?.url ?? '');
  }
  return { first: await read(state.first), second: await read(state.second), webhooks };
}

const CASES: ReadonlyArray<{ name: string; page: string; action: string; fields: Record<string, string> }> = [
  {
    name: 'a purchase',
    page: '/buy/airtime',
    action: '/buy/airtime',
    fields: { network: 'mtn', phone: '08031234567', amount: '500' },
  },
  { name: 'a new key pair', page: '/keys', action: '/keys', fields: {} },
  {
    name: 'an invitation',
    page: '/users',
    action: '/users/invite',
    fields: { email: 'new@example.ng', role: 'viewer' },
  },
  { name: 'a webhook', page: '/webhooks', action: '/webhooks/url', fields: { url: 'https://example.com/hooks' } },
  { name: 'test funds', page: '/test/funds', action: '/test/funds', fields: { amount: '50000' } },
  { name: 'a low-balance warning', page: '/fund', action: '/fund/low-balance', fields: { threshold: '5000' } },
];

for (const one of CASES) {
  test(`${one.name}: a form made before a switch in another tab is refused and changes nothing`, async (state) => {
    await switchTo(state, state.first);
    const form = await loadForm(state, one.page, one.action);
    assert.is(form.get('form_account'), state.first, 'the form names the account it was made for');
    for (const [name, value] of Object.entries(one.fields)) form.set(name, value);
    const before = await footprint(state);

    await switchTo(state, state.second);
    const answer = await send(state, one.action, form);
    assert.is(answer.status, 409);
    assert.match(answer.text, 'You are working in another account now');
    assert.match(answer.text, 'Bayo Telecoms');
    assert.match(answer.text, state.second);
    assert.match(answer.text, 'Nothing was done');
    assert.equal(await footprint(state), before, 'nothing changed in either account');
  });
}

for (const one of [
  { name: "a key's limits", action: '/keys/limits', fields: { scopes: 'balance', cap_per_day: '100' } },
  { name: 'a key roll', action: '/keys/roll', fields: { grace_hours: '0' } },
]) {
  test(`${one.name}: a form made before a switch in another tab is refused and changes nothing`, async (state) => {
    await switchTo(state, state.first);
    const [key] = await state.core.store.keys.listByAccount(state.first);
    const form = await loadForm(state, `${one.action}?key=${encodeURIComponent(key!.publicKey)}`, one.action);
    assert.is(form.get('form_account'), state.first);
    for (const [name, value] of Object.entries(one.fields)) form.set(name, value);
    const before = await footprint(state);

    await switchTo(state, state.second);
    const answer = await send(state, one.action, form);
    assert.is(answer.status, 409);
    assert.match(answer.text, 'Nothing was done');
    assert.equal(await footprint(state), before, 'nothing changed in either account');
    const after = await state.core.store.keys.find(key!.publicKey);
    assert.equal([after?.controls, after?.expiresAt], [key!.controls, key!.expiresAt], 'the key is as it was');
  });
}

test('the same form loaded again after the switch acts for the account switched to', async (state) => {
  await switchTo(state, state.second);
  const form = await loadForm(state, '/buy/airtime', '/buy/airtime');
  assert.is(form.get('form_account'), state.second);
  for (const [name, value] of Object.entries(CASES[0]!.fields)) form.set(name, value);
  const answer = await send(state, '/buy/airtime', form);
  assert.is(answer.status, 303);
  const balance = async (accountId: string) =>
    Number((await state.core.admin.getAccount({ accountId })).account!.balanceKobo);
  assert.is(await balance(state.first), START_KOBO, 'the first account is not charged');
  assert.ok((await balance(state.second)) < START_KOBO, 'the second account is charged');
  for (const accountId of [state.first, state.second]) await assertLedgerInvariant(state.core, accountId);
  assert.is((await state.core.admin.checkLedger({})).violationCount, 0n);
});

test.run();
