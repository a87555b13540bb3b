/**
 * The loop: our own VTpass adapter (core/providers/vtpass/) buys from our VTpass dialect. The
 * upstream is a core on the sandbox with a gateway in front; the reseller is a second core
 * whose upstream is VTpass at that gateway's `/compat/vtpass/api/` with a VTpass token's three
 * keys. Airtime, data, electricity and cable are bought through the reseller's main API and
 * delivered from the upstream's wallet; a failure there is refunded on both sides, once; a
 * purchase still in flight there is pending on both and settles on both by requery. Each ends
 * with both ledgers' checks.
 */
import * as assert from 'uvu/assert';
import { createProviders } from '../../../core/providers/index.js';
import { assertLedgerInvariant, startCore, type TestCore } from '../../helpers/core.js';
import { type ApiKeys, startTestGateway, type TestGateway } from '../../helpers/gateway.js';
import { suite } from '../../helpers/suite.js';
import { balanceKobo } from '../fields.js';
import { keysOf } from './vtpass-clients.js';

const test = suite('compat vtpass loop');

/** The upstream: a core on the sandbox, its gateway answering the VTpass dialect. */
let upstream: TestCore;
let upstreamGateway: TestGateway;
/** The reseller's account at the upstream, which its VTpass keys act for. */
let resellerAccountId = '';
/** The reseller: a core whose upstream is VTpass at the upstream's gateway, and its own gateway. */
let reseller: TestCore;
let resellerGateway: TestGateway;
let mtnPlanId = 0n;
let packageCode = '';

const STARTING_KOBO = 10_000_000;

test.before(async () => {
  upstream = await startCore();
  upstreamGateway = await startTestGateway(upstream, { compatWaitMs: 300 });
  const account = await upstream.createApiAccount({ balanceKobo: STARTING_KOBO });
  resellerAccountId = account.accountId;
  const { token } = await upstream.admin.createCompatToken({
    publicKey: account.publicKey,
    dialect: 'vtpass',
    inFlight: '',
  });
  const keys = keysOf(token);
  const config = {
    routing: {
      airtime: ['vtpass'],
      data: ['vtpass'],
      electricity: ['vtpass'],
      cable: ['vtpass'],
      bulksms: ['sandbox'],
    },
    upstreams: [],
    sandboxDelayMs: 0,
    vtpass: {
      baseUrl: `http://127.0.0.1:${upstreamGateway.port}/compat/vtpass/api/`,
      apiKey: keys.apiKey,
      publicKey: keys.publicKey,
      secretKey: keys.secretKey,
      fallbackPhone: '08099999999',
    },
    vtpassSms: null,
  };
  reseller = await startCore({
    providerTimeoutMs: 5_000,
    providers: (store) => createProviders(config, { catalog: store.catalog }).providers,
  });
  resellerGateway = await startTestGateway(reseller);
  // The reseller's MTN plan is bought upstream under the upstream's plan_id (its variation_code).
  const { plans } = await reseller.admin.listCatalogPlans({ network: 'mtn' });
  const plan = plans.find((p) => p.active && /500\s*MB/i.test(p.label)) ?? plans[0]!;
  mtnPlanId = plan.planId;
  await reseller.admin.upsertPlan({ plan: { ...plan, providerCode: String(plan.planId) } });
  packageCode = (await reseller.admin.listCablePackages({ provider: 'dstv' })).packages[0]!.packageCode;
});

test.after(async () => {
  await resellerGateway?.close();
  await reseller?.close();
  await upstreamGateway?.close();
  await upstream?.close();
});

async function customer(): Promise<{ accountId: string; keys: ApiKeys }> {
  const { accountId, publicKey, secretKey } = await reseller.createApiAccount({ balanceKobo: 5_000_000 });
  return { accountId, keys: { publicKey, secretKey } };
}

/** Each product's main-API order at the reseller, for a recipient ending as the upstream's sandbox asks. */
function order(product: string, ending: string): Record<string, unknown> {
  switch (product) {
    case 'airtime':
      return { network: 'mtn', phone: `0803123${ending}`, amount: 100 };
    case 'data':
      return { plan_id: Number(mtnPlanId), phone: `0803123${ending}` };
    case 'electricity':
      return {
        disco: 'ikedc',
        meter_number: `4503123${ending}`,
        meter_type: 'prepaid',
        amount: 1000,
        phone: '08031230000',
      };
    default:
      return { provider: 'dstv', smart_card: `703123${ending}`, package_code: packageCode };
  }
}

const upstreamBalance = async () => Number(await balanceKobo(upstream, resellerAccountId));

async function checkBoth(accountId: string): Promise<void> {
  await assertLedgerInvariant(reseller, accountId);
  await assertLedgerInvariant(upstream, resellerAccountId);
}

for (const product of ['airtime', 'data', 'electricity', 'cable']) {
  test(`${product}: bought through our VTpass dialect, delivered on both sides, one debit each`, async () => {
    const { accountId, keys } = await customer();
    const before = await upstreamBalance();
    const reply = await resellerGateway.request({ query: { action: product }, keys, body: order(product, '1234') });
    assert.is(reply.status, 200, reply.text);
    assert.is(reply.json.status, 'success', reply.text);
    const reference = reply.json.reference as string;
    // The upstream knows the purchase by the reseller's reference, its request_id.
    const there = await upstream.purchase.getTransaction({ accountId: resellerAccountId, requestId: reference });
    assert.is(there.transaction?.requestId, reference);
    assert.is(await upstreamBalance(), before - Number(there.transaction!.chargedKobo), 'the upstream debited once');
    if (product === 'electricity') {
      assert.match(reply.json.token, /^\d{4}-\d{4}-\d{4}-\d{4}-\d{4}$/);
      assert.is(reply.json.token, there.transaction!.token, 'the token the upstream gave');
    }
    await checkBoth(accountId);
  });
}

test('a failure upstream is refunded there and here, once each', async () => {
  const { accountId, keys } = await customer();
  const before = await upstreamBalance();
  const reply = await resellerGateway.request({ query: { action: 'airtime' }, keys, body: order('airtime', '9999') });
  assert.is(reply.status, 502, reply.text);
  assert.is(reply.json.code, 'PROVIDER_FAILED');
  assert.is(Number(await balanceKobo(reseller, accountId)), 5_000_000, 'refunded here');
  assert.is(await upstreamBalance(), before, 'refunded upstream');
  await checkBoth(accountId);
});

test('in flight upstream is pending here; it settles upstream, then here by requery', async () => {
  const { accountId, keys } = await customer();
  const reply = await resellerGateway.request({ query: { action: 'data' }, keys, body: order('data', '8888') });
  assert.is(reply.status, 202, reply.text);
  const reference = reply.json.reference as string;
  await upstream.recoverNow();
  const there = await upstream.purchase.getTransaction({ accountId: resellerAccountId, requestId: reference });
  assert.is(there.transaction?.requestId, reference);
  await reseller.recoverNow();
  const after = await resellerGateway.request({ query: { action: 'transaction', reference }, keys });
  assert.is(after.json.transaction.status, 'success', after.text);
  await checkBoth(accountId);
});

test("the reseller's plans sync reads the upstream's service-variations", async () => {
  const dry = await reseller.admin.syncPlans({ dryRun: true });
  assert.ok(dry.changes.length > 0, 'the upstream listed plans');
});

test.run();
