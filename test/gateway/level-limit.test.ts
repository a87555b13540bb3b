/**
 * The day's spend limit of an identity level at the public API, over a real gateway and core:
 * a live purchase that would take the Lagos day past the limit is 403 LEVEL_LIMIT with nothing
 * debited and no upstream asked; a raise lifts the limit at once.
 */
import * as assert from 'uvu/assert';
import { KycAdminService } from '../../gen/prepaid/v1/kyc_pb.js';
import { assertLedgerInvariant, startCore, type TestCore } from '../helpers/core.js';
import { startTestGateway, type TestGateway } from '../helpers/gateway.js';
import { suite } from '../helpers/suite.js';
import { assertError, balanceKobo } from './fields.js';

const test = suite<{ core: TestCore; gateway: TestGateway }>("gateway: an identity level's daily spend limit");

test.before(async (ctx) => {
  ctx.core = await startCore();
  ctx.gateway = await startTestGateway(ctx.core);
});
test.after(async (ctx) => {
  await ctx.gateway.close();
  await ctx.core.close();
});

test("a live purchase over the day's limit is 403 LEVEL_LIMIT and nothing is charged", async ({ core, gateway }) => {
  const { accountId, publicKey, secretKey } = await core.createApiAccount({ balanceKobo: 10_000_000 });
  const kyc = core.clientWithToken(KycAdminService, core.adminToken);
  await kyc.approveLevel({ accountId, level: 1, note: 'limited for the test' });
  const airtime = (amount: number) => ({
    query: { action: 'airtime' },
    keys: { publicKey, secretKey },
    body: { network: 'mtn', phone: '08031234567', amount },
  });
  const first = await gateway.request(airtime(25_000));
  assert.is(first.status, 200, first.text);
  const before = await balanceKobo(core, accountId);
  const calls = core.sandbox.purchases.length;
  const refused = await gateway.request(airtime(10_000));
  assertError(refused, 403, 'LEVEL_LIMIT');
  assert.match(refused.json.message, /Africa\/Lagos/);
  assert.is(await balanceKobo(core, accountId), before, 'nothing debited');
  assert.is(core.sandbox.purchases.length, calls, 'no upstream asked');
  await kyc.approveLevel({ accountId, level: 2, note: 'BVN checked' });
  const after = await gateway.request(airtime(10_000));
  assert.is(after.status, 200, 'the raised level allows it');
  await assertLedgerInvariant(core, accountId);
});

test.run();
