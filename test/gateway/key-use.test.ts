/**
 * "Last used" end to end: a key pair used through the real gateway shows its last use in the
 * holder's key list, on the developer area's API keys page and in the operator's
 * ListApiKeys once the core has written its uses; a key never used shows none; the time
 * only moves forward. The core's clock is moved by hand, so times are exact.
 */
import { timestampDate } from '@bufbuild/protobuf/wkt';
import * as assert from 'uvu/assert';
import { HolderService, SignInOutcome, UserAdminService, UserRole } from '../../gen/prepaid/v1/holder_pb.js';
import { startCore, type TestCore } from '../helpers/core.js';
import { startTestDashboard, type TestDashboard } from '../helpers/dashboard.js';
import { startTestGateway, type TestGateway } from '../helpers/gateway.js';
import { suite } from '../helpers/suite.js';

const clock = { now: Date.UTC(2026, 2, 2, 10, 0, 0) };
const MINUTE = 60_000;

let core: TestCore;
let gateway: TestGateway;
let dashboard: TestDashboard;

const test = suite("gateway: a key pair's last use");
test.before(async () => {
  core = await startCore({ clock: () => new Date(clock.now) });
  // No key cache at the gateway, so every request below reaches the core's key check
  // (with the default AUTH_CACHE_TTL_MS the core hears of a key at most every 5 seconds).
  gateway = await startTestGateway(core, { authCacheTtlMs: 0 });
  dashboard = await startTestDashboard(core);
});
test.after(async () => {
  await dashboard.close();
  await gateway.close();
  await core.close();
});

/** An owner of the account signed in to the developer area: the holder's session token. */
async function ownerSession(accountId: string): Promise<string> {
  const holder = core.clientWithToken(HolderService, core.serviceToken);
  const users = core.clientWithToken(UserAdminService, core.adminToken);
  const email = `owner-${accountId}@example.com`;
  const { invitation } = await users.inviteUser({ accountId, email, role: UserRole.OWNER });
  await holder.acceptInvitation({ invitationToken: invitation!.invitationToken, password: 'correct horse battery' });
  const signIn = await holder.signIn({ email, password: 'correct horse battery', clientIp: '198.51.100.1' });
  assert.is(signIn.outcome, SignInOutcome.SIGNED_IN);
  return signIn.sessionToken;
}

/** Each key's last use as the holder's key list and the admin's ListApiKeys give it (they must agree). */
async function lastUses(accountId: string, sessionToken: string): Promise<Map<string, Date | null>> {
  const holder = core.clientWithToken(HolderService, core.serviceToken);
  const held = (await holder.listApiKeys({ sessionToken })).keys;
  const admin = (await core.admin.listApiKeys({ accountId })).keys;
  const fromHolder = new Map(held.map((k) => [k.publicKey, k.lastUsedAt ? timestampDate(k.lastUsedAt) : null]));
  const fromAdmin = new Map(admin.map((k) => [k.publicKey, k.lastUsedAt ? timestampDate(k.lastUsedAt) : null]));
  assert.equal(fromAdmin, fromHolder, 'the operator sees what the holder sees');
  return fromHolder;
}

test('a key used for a gateway purchase shows that time once written, unused keys none; never goes back', async () => {
  const used = await core.createApiAccount({ balanceKobo: 100_000 });
  const unused = (await core.admin.createApiKey({ accountId: used.accountId })).issuedKey!;
  const session = await ownerSession(used.accountId);
  const keys = { publicKey: used.publicKey, secretKey: used.secretKey };

  const boughtAt = new Date(clock.now);
  const bought = await gateway.request({
    query: { action: 'airtime' },
    keys,
    body: { network: 'mtn', phone: '08031234567', amount: 100 },
  });
  assert.is(bought.status, 200, bought.text);
  // The use is in the core's memory until its background write (every few seconds); write it now.
  await core.core.keyUses.flush();
  assert.equal(
    await lastUses(used.accountId, session),
    new Map([
      [unused.publicKey, null],
      [used.publicKey, boughtAt],
    ]),
  );
  // The API keys page: the time for the used key, "Never" for the other.
  const page = await (
    await fetch(`${dashboard.url}/keys`, { headers: { cookie: `prepaid_session=${session}` } })
  ).text();
  const row = (publicKey: string) => page.split('<tr>').find((r) => r.includes(`<code>${publicKey}</code>`)) ?? '';
  assert.match(row(used.publicKey), `<time datetime="${boughtAt.toISOString()}">`);
  assert.match(row(unused.publicKey), '>Never</td>');

  // A request stamped earlier (another core's clock behind) does not move it back.
  clock.now -= 10 * MINUTE;
  assert.is((await gateway.request({ query: { action: 'balance' }, keys })).status, 200);
  await core.core.keyUses.flush();
  assert.equal((await lastUses(used.accountId, session)).get(used.publicKey), boughtAt);

  // A use two minutes after the first moves it forward.
  clock.now += 12 * MINUTE;
  const laterAt = new Date(clock.now);
  assert.is((await gateway.request({ query: { action: 'balance' }, keys })).status, 200);
  await core.core.keyUses.flush();
  assert.equal((await lastUses(used.accountId, session)).get(used.publicKey), laterAt);
  assert.is((await lastUses(used.accountId, session)).get(unused.publicKey), null);
});

test('a refused request is not a use: a wrong secret leaves the key as it was', async () => {
  const account = await core.createApiAccount();
  const session = await ownerSession(account.accountId);
  const refused = await gateway.request({
    query: { action: 'balance' },
    keys: {
      publicKey: account.publicKey,
      secretKey: account.secretKey.slice(0, -1) + (account.secretKey.endsWith('A') ? 'B' : 'A'),
    },
  });
  assert.is(refused.status, 401);
  await core.core.keyUses.flush();
  assert.equal(await lastUses(account.accountId, session), new Map([[account.publicKey, null]]));
});

test.run();
