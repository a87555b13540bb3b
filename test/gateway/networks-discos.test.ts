/**
 * Every disco the upstream sells and T2 as 9mobile, through a real gateway and core against
 * the fake VTpass: Kaduna, Jos and Aba are sold and verified under their VTpass serviceIDs;
 * `t2` is accepted wherever a network is named, answers keep the caller's name, prices and
 * the upstream go by 9mobile, and plans list both names. The spec's names keep working.
 */
import * as assert from 'uvu/assert';
import { startVtpassStack, type VtpassStack } from '../helpers/fake-vtpass.js';
import type { ApiKeys } from '../helpers/gateway.js';
import { suite } from '../helpers/suite.js';

const test = suite<{ stack: VtpassStack }>('discos and networks as the market names them');

test.before(async (ctx) => {
  ctx.stack = await startVtpassStack({ providerTimeoutMs: 1_500 });
});

test.after(async ({ stack }) => {
  await stack.close();
});

async function keys(stack: VtpassStack): Promise<ApiKeys> {
  const { publicKey, secretKey } = await stack.core.createApiAccount({ balanceKobo: 100_000_00 });
  return { publicKey, secretKey };
}

test('Kaduna, Jos and Aba are verified and sold under their VTpass serviceIDs', async ({ stack }) => {
  const k = await keys(stack);
  for (const [disco, serviceID] of [
    ['kaedc', 'kaduna-electric'],
    ['jed', 'jos-electric'],
    ['aba', 'aba-electric'],
  ] as const) {
    const verify = await stack.gateway.request({
      query: { action: 'verify' },
      keys: k,
      body: { disco, meter_number: '1111111111111', meter_type: 'prepaid' },
    });
    assert.is(verify.status, 200, verify.text);
    const verifyCall = stack.fake.calls.filter((c) => c.path === '/api/merchant-verify').at(-1)!;
    assert.is(verifyCall.body?.['serviceID'], serviceID);
    const power = await stack.gateway.request({
      query: { action: 'electricity' },
      keys: k,
      body: { disco, meter_number: '1111111111111', meter_type: 'prepaid', amount: 1500 },
    });
    assert.is(power.status, 200, power.text);
    assert.is(stack.fake.transactions.get(power.json.reference)!.serviceID, serviceID);
    const tx = await stack.gateway.request({
      query: { action: 'transaction', reference: power.json.reference },
      keys: k,
    });
    assert.is(tx.json.transaction.service, disco);
  }
  const unknown = await stack.gateway.request({
    query: { action: 'electricity' },
    keys: k,
    body: { disco: 'kadunaa', meter_number: '1111111111111', meter_type: 'prepaid', amount: 1500 },
  });
  assert.is(unknown.status, 422, unknown.text);
  assert.match(unknown.json.message, /kaedc/);
});

test('t2 airtime is 9mobile at VTpass and in price, and keeps its name in the answer', async ({ stack }) => {
  const k = await keys(stack);
  const t2 = await stack.gateway.request({
    query: { action: 'airtime' },
    keys: k,
    body: { network: 't2', phone: '08011111111', amount: 500 },
  });
  assert.is(t2.status, 200, t2.text);
  assert.is(stack.fake.transactions.get(t2.json.reference)!.serviceID, 'etisalat');
  const nine = await stack.gateway.request({
    query: { action: 'airtime' },
    keys: k,
    body: { network: '9mobile', phone: '08011111111', amount: 500 },
  });
  assert.is(nine.status, 200, nine.text);
  assert.is(t2.json.charged, nine.json.charged, 'the 9mobile discount applies to t2');
  const tx = await stack.gateway.request({ query: { action: 'transaction', reference: t2.json.reference }, keys: k });
  assert.is(tx.json.transaction.service, 't2');
  const nineTx = await stack.gateway.request({
    query: { action: 'transaction', reference: nine.json.reference },
    keys: k,
  });
  assert.is(nineTx.json.transaction.service, '9mobile');
});

test('plans: t2 lists the 9mobile plans under the name t2; every plan lists its network names', async ({ stack }) => {
  const k = await keys(stack);
  const byT2 = await stack.gateway.request({ query: { action: 'plans', network: 't2' }, keys: k });
  const by9 = await stack.gateway.request({ query: { action: 'plans', network: '9mobile' }, keys: k });
  assert.is(byT2.status, 200, byT2.text);
  assert.ok(by9.json.plans.length > 0);
  assert.equal(
    byT2.json.plans.map((p: Record<string, unknown>) => [p['plan_id'], p['price']]),
    by9.json.plans.map((p: Record<string, unknown>) => [p['plan_id'], p['price']]),
    'the same plans at the same prices',
  );
  for (const plan of byT2.json.plans) assert.equal([plan.network, plan.network_names], ['t2', ['9mobile', 't2']]);
  for (const plan of by9.json.plans) assert.equal([plan.network, plan.network_names], ['9mobile', ['9mobile', 't2']]);
  const all = await stack.gateway.request({ query: { action: 'plans' }, keys: k });
  const mtn = all.json.plans.find((p: Record<string, unknown>) => p['network'] === 'mtn');
  assert.equal(mtn.network_names, ['mtn']);
  const bad = await stack.gateway.request({ query: { action: 'plans', network: 'etisalat' }, keys: k });
  assert.is(bad.status, 422, bad.text);
});

test.run();
