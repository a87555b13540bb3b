/**
 * The MSORG dialect through a TLS terminator, talked to by clients written from what real
 * connectors read: every product delivered, settled within the wait, outlasting it (the token's
 * in-flight word, settled later), failed after the debit (refunded once), refused for balance,
 * plan id, token; an ident replayed; a plan alias. Each ends with the ledger's check.
 */
import type { AddressInfo } from 'node:net';
import * as assert from 'uvu/assert';
import { assertLedgerInvariant, type TestCore } from '../../helpers/core.js';
import type { TestGateway } from '../../helpers/gateway.js';
import { suite } from '../../helpers/suite.js';
import { startTlsProxy, type TlsProxy } from '../../helpers/tls-proxy.js';
import { balanceKobo } from '../fields.js';
import { bukkydatasup, call, hasLowerStatus, laravelHusmodata, philmorehost, topupmate } from './clients.js';
import { type CompatWorld, startCompatWorld } from './world.js';

const test = suite('compat msorg');

let core: TestCore;
/** A short wait, for purchases that outlast it; a long one, for those that settle within it. */
let quick: TestGateway;
let quickTls: TlsProxy;
let patientTls: TlsProxy;
let mtnPlanId = 0;
let packageCode = '';

let world: CompatWorld;

test.before(async () => {
  world = await startCompatWorld();
  ({ core, quick, quickTls, patientTls, mtnPlanId, packageCode } = world);
});

test.after(async () => {
  await world?.close();
});

async function account(inFlight: 'pending' | 'processing' = 'pending', balance = 5_000_000) {
  const { accountId, publicKey } = await core.createApiAccount({ balanceKobo: balance });
  const { token } = await core.admin.createCompatToken({ publicKey, dialect: 'msorg', inFlight });
  return { accountId, token };
}

/** Each product's request, for a recipient ending as the sandbox's scenario asks. */
function order(product: string, ending: string, extra: Record<string, unknown> = {}): Record<string, unknown> {
  switch (product) {
    case 'topup':
      return {
        network: '1',
        amount: '100',
        mobile_number: `0803123${ending}`,
        Ported_number: true,
        airtime_type: 'VTU',
        ...extra,
      };
    case 'data':
      return {
        network: '1',
        plan: String(mtnPlanId),
        mobile_number: `0803123${ending}`,
        Ported_number: true,
        ...extra,
      };
    case 'billpayment':
      return { disco_name: 1, amount: 1000, meter_number: `4503123${ending}`, MeterType: 1, ...extra };
    default:
      return { cablename: '2', cableplan: packageCode, smart_card_number: `703123${ending}`, ...extra };
  }
}

const bal = async (accountId: string) => Number(await balanceKobo(core, accountId));

const PRODUCTS = ['topup', 'data', 'billpayment', 'cablesub'];
const buy = (port: number, token: string, product: string, body: unknown) =>
  call(port, 'POST', `/compat/msorg/api/${product}/`, philmorehost.headers(token, product), body);

for (const product of PRODUCTS) {
  test(`${product}: delivered is 200 successful for every client, with a stable id and no lower-case status`, async () => {
    const { accountId, token } = await account();
    const answer = await buy(quickTls.port, token, product, order(product, '1234', { ident: `id-${product}-1` }));
    assert.is(answer.status, 200, answer.text);
    assert.is(philmorehost.verdict(answer), 'delivered');
    assert.ok(laravelHusmodata.successful(answer));
    assert.is(topupmate.verdict(answer), 'delivered');
    assert.is(bukkydatasup.verdict(answer), 'successful');
    assert.not.ok(hasLowerStatus(answer.json), answer.text);
    assert.is(answer.json.ident, `id-${product}-1`);
    assert.type(answer.json.balance_after, 'string');
    const record = await call(quickTls.port, 'GET', `/compat/msorg/api/data/${answer.json.id}`, {
      Authorization: `Token ${token}`,
    });
    assert.is(record.status, 200);
    assert.is(record.json.id, answer.json.id);
    assert.is(record.json.Status, 'successful');
    await assertLedgerInvariant(core, accountId);
  });

  test(`${product}: a failure after the debit is refunded once and answered failed`, async () => {
    const { accountId, token } = await account();
    const before = await bal(accountId);
    const answer = await buy(quickTls.port, token, product, order(product, '9999', { ident: `f-${product}` }));
    assert.is(answer.json.Status, 'failed', answer.text);
    assert.is(philmorehost.verdict(answer), 'failed');
    assert.not.ok(laravelHusmodata.successful(answer));
    assert.is(topupmate.verdict(answer), 'failed');
    assert.not.ok(hasLowerStatus(answer.json));
    assert.is(await bal(accountId), before, 'refunded in full');
    const again = await buy(quickTls.port, token, product, order(product, '9999', { ident: `f-${product}` }));
    assert.is(again.json.Status, 'failed');
    assert.is(await bal(accountId), before, 'refunded once');
    await assertLedgerInvariant(core, accountId);
  });

  test(`${product}: outlasting the wait answers the token's in-flight word, then settles on re-query`, async () => {
    for (const word of ['pending', 'processing'] as const) {
      const { accountId, token } = await account(word);
      const answer = await buy(quickTls.port, token, product, order(product, '8888'));
      assert.is(answer.status, 200, answer.text);
      assert.is(answer.json.Status, word);
      if (word === 'pending') assert.is(philmorehost.verdict(answer), 'pending');
      else assert.is(topupmate.verdict(answer), 'delivered');
      assert.not.ok(hasLowerStatus(answer.json));
      await core.recoverNow();
      const record = await call(quickTls.port, 'GET', `/compat/msorg/api/${product}/${answer.json.id}/`, {
        Authorization: `Token ${token}`,
      });
      assert.is(record.json.Status, 'successful', record.text);
      await assertLedgerInvariant(core, accountId);
    }
  });

  test(`${product}: a purchase that settles within the wait is answered final`, async () => {
    const { accountId, token } = await account();
    const answering = buy(patientTls.port, token, product, order(product, '7777'));
    // Once the core holds it pending, the recovery settles it (failed, refunded) while the endpoint waits;
    // a pass that meets the purchase still being bought leaves it for the next.
    const pending = async () =>
      (await core.admin.listPendingTransactions({})).transactions.some((t) => t.accountId === accountId);
    for (let i = 0; i < 1000 && !(await pending()); i++) await new Promise((r) => setTimeout(r, 20));
    for (let i = 0; i < 100 && (await pending()); i++) {
      await core.recoverNow();
      await new Promise((r) => setTimeout(r, 20));
    }
    const answer = await answering;
    assert.is(answer.json.Status, 'failed', answer.text);
    assert.is(await bal(accountId), 5_000_000);
    await assertLedgerInvariant(core, accountId);
  });

  test(`${product}: a short balance is 400 in the family's error shape, and nothing is debited`, async () => {
    const { accountId, token } = await account('pending', 100);
    const answer = await buy(quickTls.port, token, product, order(product, '1234'));
    assert.is(answer.status, 400, answer.text);
    assert.ok(Array.isArray(answer.json.error));
    assert.is(philmorehost.verdict(answer), 'failed');
    assert.not.ok(hasLowerStatus(answer.json));
    assert.is(await bal(accountId), 100);
    await assertLedgerInvariant(core, accountId);
  });

  test(`${product}: a wrong token is 401 {"detail":"Invalid token."}; a replayed ident gives the same answer`, async () => {
    const { accountId, token } = await account();
    const bad = await buy(quickTls.port, 'f'.repeat(40), product, order(product, '1234'));
    assert.is(bad.status, 401);
    assert.equal(bad.json, { detail: 'Invalid token.' });
    const first = await buy(quickTls.port, token, product, order(product, '1234', { ident: `r-${product}` }));
    const afterFirst = await bal(accountId);
    const replay = await buy(quickTls.port, token, product, order(product, '1234', { ident: `r-${product}` }));
    assert.is(replay.json.id, first.json.id);
    assert.is(await bal(accountId), afterFirst, 'bought once');
    const other = await buy(quickTls.port, token, product, order(product, '4321', { ident: `r-${product}` }));
    assert.is(other.status, 400, other.text);
    assert.is(await bal(accountId), afterFirst, 'another order under the key is refused');
    await assertLedgerInvariant(core, accountId);
  });
}

test('data: an unknown plan id is the family error, never a guess; nothing is debited', async () => {
  const { accountId, token } = await account();
  for (const plan of ['99999', 'abc']) {
    const answer = await buy(quickTls.port, token, 'data', order('data', '1234', { plan }));
    assert.is(answer.status, 400, answer.text);
    assert.ok(Array.isArray(answer.json.plan) || Array.isArray(answer.json.error), answer.text);
  }
  assert.is(await bal(accountId), 5_000_000);
  await assertLedgerInvariant(core, accountId);
});

test('an alias: "plan":"99" buys exactly the aliased MTN plan at the account\'s price', async () => {
  const { accountId, token } = await account();
  await core.admin.setPlanAlias({ accountId, dialect: 'msorg', aliasId: '99', planId: BigInt(mtnPlanId) });
  const priced = await core.purchase.listPlans({ accountId, network: 'mtn', planType: '' });
  const price = priced.plans.find((p) => Number(p.planId) === mtnPlanId)!.priceKobo;
  // The token's cache holds the aliases it was verified with: a new token sees the alias at once.
  const { publicKey } = (await core.admin.listApiKeys({ accountId })).keys[0]!;
  const fresh = (await core.admin.createCompatToken({ publicKey, dialect: 'msorg', inFlight: '' })).token;
  const answer = await buy(quickTls.port, fresh, 'data', order('data', '1234', { plan: '99' }));
  assert.is(answer.status, 200, answer.text);
  assert.is(answer.json.plan, 99);
  assert.is(await bal(accountId), 5_000_000 - Number(price));
  void token;
  await assertLedgerInvariant(core, accountId);
});

test('GET /api/user/ gives the balance both ways and the plan lists; epin is not available', async () => {
  const { token } = await account();
  const user = await call(quickTls.port, 'GET', '/compat/msorg/api/user', { token });
  assert.is(user.status, 200, user.text);
  assert.is(user.json.user.Account_Balance, 50_000);
  assert.is(user.json.user.wallet_balance, '50000.0');
  assert.ok(user.json.Dataplans.MTN_PLAN.ALL.length > 0);
  assert.not.ok(hasLowerStatus(user.json));
  const epin = await call(quickTls.port, 'POST', '/compat/msorg/api/epin/', { Authorization: `Token ${token}` }, {});
  assert.is(epin.status, 400);
  assert.ok(Array.isArray(epin.json.error));
});

test("a burst of a new token's first requests is one check, not a spend of the address's failure budget", async () => {
  const { token } = await account();
  const answers = await Promise.all(
    Array.from({ length: 15 }, () =>
      call(quickTls.port, 'GET', '/compat/msorg/api/user/', { Authorization: `Token ${token}` }),
    ),
  );
  assert.equal(
    answers.map((a) => a.status),
    answers.map(() => 200),
  );
});

test('the root form on COMPAT_PORT answers /api/... with and without the trailing slash, never a redirect', async () => {
  const { accountId, token } = await account();
  const root = quick.gateway.compatServer!;
  await new Promise<void>((resolve) => root.listen(0, '127.0.0.1', resolve));
  const rootTls = await startTlsProxy((root.address() as AddressInfo).port);
  try {
    for (const path of ['/api/user', '/api/user/']) {
      const answer = await call(rootTls.port, 'GET', path, { Authorization: `Token  ${token}` });
      assert.is(answer.status, 200, answer.text);
      assert.is(answer.json.user.Account_Balance, 50_000);
    }
    const bought = await call(
      rootTls.port,
      'POST',
      '/api/data/',
      philmorehost.headers(token, 'data'),
      order('data', '1234'),
    );
    assert.is(bought.json.Status, 'successful', bought.text);
    const elsewhere = await call(rootTls.port, 'GET', '/compat/msorg/api/user', { Authorization: `Token ${token}` });
    assert.is(elsewhere.status, 404, 'the root port answers its dialect at the root only');
  } finally {
    await rootTls.close();
  }
  await assertLedgerInvariant(core, accountId);
});

test.run();
