/**
 * The Adex dialect through a TLS terminator, talked to by clients written from what real
 * connectors read (adex-clients.ts): every product logged in for and delivered, settled within
 * the wait, outlasting it (the in-flight word, then settled by the recovery and told to the
 * account's compat callback), failed after the debit (refunded once), refused for balance, plan
 * id and token; a request-id replayed. Each ends with the ledger's check.
 */
import { randomInt } from 'node:crypto';
import type { AddressInfo } from 'node:net';
import * as assert from 'uvu/assert';
import { Mode } from '../../../gen/prepaid/v1/types_pb.js';
import { assertLedgerInvariant, type TestCore } from '../../helpers/core.js';
import { startTestGateway } from '../../helpers/gateway.js';
import { type Receiver, startReceiver } from '../../helpers/receiver.js';
import { suite } from '../../helpers/suite.js';
import { startTlsProxy, type TlsProxy } from '../../helpers/tls-proxy.js';
import { balanceKobo } from '../fields.js';
import { philmorehostAdex, wsAdex } from './adex-clients.js';
import { call } from './clients.js';
import { type CompatWorld, startCompatWorld } from './world.js';

const test = suite('compat adex');

let core: TestCore;
let receiver: Receiver;
/** A short wait, for purchases that outlast it; a long one, for those that settle within it. */
let quickTls: TlsProxy;
let patientTls: TlsProxy;
let mtnPlanId = 0;
let packageCode = '';
const BASE = '/compat/adex';

let world: CompatWorld;

test.before(async () => {
  world = await startCompatWorld({
    core: { webhooks: { allowPrivate: true, retryBaseMs: 50, pollIntervalMs: 50 } },
  });
  ({ core, quickTls, patientTls, mtnPlanId, packageCode } = world);
  receiver = await startReceiver();
});

test.after(async () => {
  await receiver?.stop();
  await world?.close();
});

/** An account with an adex token: its Basic credentials (account id, token) both ways a client stores them. */
async function account(balance = 5_000_000) {
  const { accountId, publicKey } = await core.createApiAccount({ balanceKobo: balance });
  const { token } = await core.admin.createCompatToken({ publicKey, dialect: 'adex', inFlight: '' });
  const credentials: [string, string] = [accountId, token];
  return { accountId, token, credentials, storedKey: Buffer.from(`${accountId}:${token}`).toString('base64') };
}

/** The 15 random digits philmorehost's connectors send as request-id. */
const requestId = () => `${randomInt(1e7, 1e8)}${randomInt(1e6, 1e7)}`;

const PRODUCTS = ['data', 'topup', 'bill', 'cable'] as const;
type AdexProduct = (typeof PRODUCTS)[number];
const PATHS: Record<AdexProduct, string> = {
  data: '/api/data/',
  topup: '/api/topup/',
  bill: '/api/bill',
  cable: '/api/cable',
};

/** Each product's body as the [WS] and [PH] connectors send it, for a recipient ending as the sandbox's scenario asks. */
function order(product: AdexProduct, ending: string, extra: Record<string, unknown> = {}): Record<string, unknown> {
  switch (product) {
    case 'data':
      return { network: '1', data_plan: String(mtnPlanId), phone: `0803123${ending}`, bypass: true, ...extra };
    case 'topup':
      return { network: 1, amount: '100', phone: `0803123${ending}`, bypass: '1', plan_type: 'VTU', ...extra };
    case 'bill':
      return {
        disco: '1',
        meter_type: 'prepaid',
        meter_number: `4503123${ending}`,
        bypass: true,
        amount: '1000',
        phone: '08031231234',
        ...extra,
      };
    default:
      return { cable: '2', iuc: `703123${ending}`, cable_plan: packageCode, bypass: false, ...extra };
  }
}

const bal = async (accountId: string) => Number(await balanceKobo(core, accountId));

for (const product of PRODUCTS) {
  const path = PATHS[product];

  test(`${product}: both connectors log in and are answered success, with their request-id echoed`, async () => {
    const { accountId, credentials, storedKey } = await account();
    const id = requestId();
    const ph = await philmorehostAdex.buy(
      quickTls.port,
      BASE,
      path,
      credentials,
      order(product, '1234', { 'request-id': id }),
    );
    assert.is(ph.answer.status, 200, ph.answer.text);
    assert.is(ph.verdict, 'delivered');
    assert.is(ph.reference, id);
    const wsId = requestId();
    const ws = await wsAdex.buy(quickTls.port, BASE, path, storedKey, order(product, '1234', { 'request-id': wsId }));
    assert.is(ws.verdict, 'delivered', ws.answer.text);
    assert.is(ws.answer.json['request-id'], wsId);
    if (product === 'bill') assert.ok(String(ws.answer.json.token).length > 0, 'the meter token is there to read');
    await assertLedgerInvariant(core, accountId);
  });

  test(`${product}: a failure after the debit is fail, refunded once, also on a replay`, async () => {
    const { accountId, credentials } = await account();
    const before = await bal(accountId);
    const body = order(product, '9999', { 'request-id': requestId() });
    const kept = await philmorehostAdex.buy(quickTls.port, BASE, path, credentials, body);
    assert.is(kept.answer.json.status, 'fail', kept.answer.text);
    assert.is(kept.verdict, 'failed');
    assert.is(await bal(accountId), before, 'refunded in full');
    const again = await philmorehostAdex.buy(quickTls.port, BASE, path, credentials, body);
    assert.is(again.answer.json.status, 'fail');
    assert.is(await bal(accountId), before, 'refunded once');
    await assertLedgerInvariant(core, accountId);
  });

  test(`${product}: outlasting the wait answers the in-flight word; the recovery settles it and the callback tells it`, async () => {
    const { accountId, credentials } = await account();
    await core.admin.setCompatCallback({ accountId, dialect: 'adex', url: `${receiver.url}/webhook/ours.php` });
    const id = requestId();
    const kept = await philmorehostAdex.buy(
      quickTls.port,
      BASE,
      path,
      credentials,
      order(product, '8888', { 'request-id': id }),
    );
    assert.is(kept.answer.status, 200, kept.answer.text);
    assert.is(kept.answer.json.status, 'pending');
    assert.is(kept.verdict, 'failed', 'these clients have no pending state: only the wait protects them');
    assert.is(kept.reference, id);
    const seen = receiver.received.length;
    await core.recoverNow();
    const bought = await core.purchase.listTransactions({ accountId, pageSize: 5, pageToken: '' });
    assert.is(bought.transactions.find((t) => t.requestId === id)?.status, 2 /* SUCCESS */);
    let told: { status: string; 'request-id': string } | undefined;
    for (let n = seen + 1; told === undefined; n++) {
      await receiver.waitFor(n, 'callbacks');
      told = receiver.received.slice(seen).find((r) => r.json?.['request-id'] === id)?.json;
    }
    assert.equal(told, { status: 'success', 'request-id': id });
    await assertLedgerInvariant(core, accountId);
  });

  test(`${product}: a purchase that settles within the wait is answered final`, async () => {
    const { accountId, credentials } = await account();
    const answering = philmorehostAdex.buy(patientTls.port, BASE, path, credentials, order(product, '7777'));
    // Once the core holds it pending, the recovery settles it (failed, refunded) while the endpoint waits.
    const pending = async () =>
      (await core.admin.listPendingTransactions({})).transactions.some((t) => t.accountId === accountId);
    for (let i = 0; i < 1000 && !(await pending()); i++) await new Promise((r) => setTimeout(r, 20));
    for (let i = 0; i < 100 && (await pending()); i++) {
      await core.recoverNow();
      await new Promise((r) => setTimeout(r, 20));
    }
    const kept = await answering;
    assert.is(kept.answer.json.status, 'fail', kept.answer.text);
    assert.is(await bal(accountId), 5_000_000);
    await assertLedgerInvariant(core, accountId);
  });

  test(`${product}: a short balance is 400 fail, and nothing is debited`, async () => {
    const { accountId, credentials } = await account(100);
    const id = requestId();
    const kept = await philmorehostAdex.buy(
      quickTls.port,
      BASE,
      path,
      credentials,
      order(product, '1234', { 'request-id': id }),
    );
    assert.is(kept.answer.status, 400, kept.answer.text);
    assert.is(kept.answer.json.status, 'fail');
    assert.is(kept.answer.json['request-id'], id);
    assert.match(kept.answer.json.msg, /balance/i);
    assert.is(await bal(accountId), 100);
    await assertLedgerInvariant(core, accountId);
  });

  test(`${product}: a wrong token or password is refused; a replayed request-id buys once`, async () => {
    const { accountId, token, credentials } = await account();
    const bad = await call(
      quickTls.port,
      'POST',
      `${BASE}${path}`,
      { Authorization: `Token ${'f'.repeat(40)}` },
      order(product, '1234'),
    );
    assert.is(bad.status, 401);
    assert.is(bad.json.status, 'fail');
    assert.is(await philmorehostAdex.login(quickTls.port, BASE, accountId, 'f'.repeat(40)), undefined);
    assert.is(await philmorehostAdex.login(quickTls.port, BASE, 'acc_someone_else', token), undefined);
    const id = requestId();
    const first = await philmorehostAdex.buy(
      quickTls.port,
      BASE,
      path,
      credentials,
      order(product, '1234', { 'request-id': id }),
    );
    assert.is(first.verdict, 'delivered', first.answer.text);
    const afterFirst = await bal(accountId);
    const replay = await philmorehostAdex.buy(
      quickTls.port,
      BASE,
      path,
      credentials,
      order(product, '1234', { 'request-id': id }),
    );
    assert.is(replay.verdict, 'delivered');
    assert.is(replay.answer.json.reference, first.answer.json.reference);
    assert.is(await bal(accountId), afterFirst, 'bought once');
    const other = await philmorehostAdex.buy(
      quickTls.port,
      BASE,
      path,
      credentials,
      order(product, '4321', { 'request-id': id }),
    );
    assert.is(other.answer.status, 400, other.answer.text);
    assert.is(other.verdict, 'failed');
    assert.is(await bal(accountId), afterFirst, 'another order under the key is refused');
    await assertLedgerInvariant(core, accountId);
  });
}

test('data: an unknown plan id is a 400 fail, never a guess; an alias buys the aliased plan', async () => {
  const { accountId, credentials, token } = await account();
  for (const plan of ['99999', 'abc', null]) {
    const kept = await philmorehostAdex.buy(
      quickTls.port,
      BASE,
      '/api/data/',
      credentials,
      order('data', '1234', { data_plan: plan }),
    );
    assert.is(kept.answer.status, 400, kept.answer.text);
    assert.is(kept.answer.json.status, 'fail');
  }
  assert.is(await bal(accountId), 5_000_000);
  await core.admin.setPlanAlias({ accountId, dialect: 'adex', aliasId: '36', planId: BigInt(mtnPlanId) });
  const { publicKey } = (await core.admin.listApiKeys({ accountId })).keys[0]!;
  // The token's cache holds the aliases it was verified with: a new token sees the alias at once.
  const fresh = (await core.admin.createCompatToken({ publicKey, dialect: 'adex', inFlight: '' })).token;
  const priced = await core.purchase.listPlans({ accountId, network: 'mtn', planType: '' });
  const price = priced.plans.find((p) => Number(p.planId) === mtnPlanId)!.priceKobo;
  const kept = await philmorehostAdex.buy(
    quickTls.port,
    BASE,
    '/api/data/',
    [accountId, fresh],
    order('data', '1234', { data_plan: 36 }),
  );
  assert.is(kept.verdict, 'delivered', kept.answer.text);
  assert.is(await bal(accountId), 5_000_000 - Number(price));
  void token;
  await assertLedgerInvariant(core, accountId);
});

test('the login answers the AccessToken and the balance where clients read it, GET and POST, either slash', async () => {
  const { accountId, token, storedKey } = await account();
  for (const [method, suffix] of [
    ['POST', ''],
    ['GET', '/'],
    ['GET', ''],
    ['POST', '/'],
  ] as const) {
    const login = await call(quickTls.port, method, `${BASE}/api/user${suffix}`, {
      Authorization: `Basic ${storedKey}`,
    });
    assert.is(login.status, 200, login.text);
    assert.is(login.json.status, 'success');
    assert.is(login.json.AccessToken, token);
    assert.is(login.json.user.Account_Balance, 50_000);
  }
  // The stored key as is, `user:password` unencoded, after two spaces.
  const plain = await call(quickTls.port, 'GET', `${BASE}/api/user/`, {
    Authorization: `Basic  ${accountId}:${token}`,
  });
  assert.is(plain.json.AccessToken, token, plain.text);
  assert.is(await wsAdex.balance(quickTls.port, BASE, storedKey), '50000.0');
  const none = await call(quickTls.port, 'POST', `${BASE}/api/user`, {});
  assert.is(none.status, 401);
  assert.is(none.json.status, 'fail');
  await assertLedgerInvariant(core, accountId);
});

test('the meter and smart card checks answer a name with Basic credentials and no login; a bad one has none', async () => {
  const { storedKey } = await account();
  const meter = await wsAdex.meterName(
    quickTls.port,
    BASE,
    storedKey,
    'meter_type=prepaid&disco=1&meter_number=45031231234',
  );
  assert.type(meter, 'string');
  assert.ok(meter!.length > 0);
  const iuc = await wsAdex.iucName(quickTls.port, BASE, storedKey, 'iuc=7031231234&cable=2');
  assert.type(iuc, 'string');
  const unknownDisco = await wsAdex.meterName(
    quickTls.port,
    BASE,
    storedKey,
    'meter_type=prepaid&disco=77&meter_number=45031231234',
  );
  assert.is(unknownDisco, undefined);
});

test("recharge cards are the family's clear refusal, not a 404; an unknown path is 404 fail", async () => {
  const { accountId, credentials } = await account();
  for (const path of ['/api/recharge_card', '/api/recharge_card/', '/api/data_card']) {
    const kept = await philmorehostAdex.buy(quickTls.port, BASE, path, credentials, {
      network: '1',
      quantity: '1',
      plan_type: null,
      card_name: 'example.com',
    });
    assert.is(kept.answer.status, 400, kept.answer.text);
    assert.is(kept.answer.json.status, 'fail');
  }
  const unknown = await call(
    quickTls.port,
    'POST',
    `${BASE}/api/nothing`,
    { Authorization: `Token ${credentials[1]}` },
    {},
  );
  assert.is(unknown.status, 404);
  assert.is(await bal(accountId), 5_000_000);
});

test('the root form on COMPAT_PORT in adex answers /api/... with and without the trailing slash, never a redirect', async () => {
  const rootGateway = await startTestGateway(core, { compatWaitMs: 300, compatPort: 0, compatRootDialect: 'adex' });
  const root = rootGateway.gateway.compatServer!;
  await new Promise<void>((resolve) => root.listen(0, '127.0.0.1', resolve));
  const rootTls = await startTlsProxy((root.address() as AddressInfo).port);
  const { accountId, credentials } = await account();
  try {
    for (const path of ['/api/data/', '/api/data']) {
      const kept = await philmorehostAdex.buy(rootTls.port, '', path, credentials, order('data', '1234'));
      assert.is(kept.answer.status, 200, kept.answer.text);
      assert.is(kept.verdict, 'delivered');
    }
    const elsewhere = await call(rootTls.port, 'GET', '/compat/adex/api/user', {
      Authorization: `Token ${credentials[1]}`,
    });
    assert.is(elsewhere.status, 404, 'the root port answers its dialect at the root only');
  } finally {
    await rootTls.close();
    await rootGateway.close();
  }
  await assertLedgerInvariant(core, accountId);
});

test("a test key pair's adex token buys in test mode, from the test wallet; the live one is untouched", async () => {
  const { accountId } = await core.createApiAccount({ balanceKobo: 100_000 });
  const issued = await core.admin.createApiKey({ accountId, mode: Mode.TEST });
  await core.admin.creditWallet({ accountId, amountKobo: 500_000n, memo: 'test money', mode: Mode.TEST });
  const { token } = await core.admin.createCompatToken({
    publicKey: issued.issuedKey!.publicKey,
    dialect: 'adex',
    inFlight: '',
  });
  const kept = await philmorehostAdex.buy(
    quickTls.port,
    BASE,
    '/api/topup/',
    [accountId, token],
    order('topup', '1234'),
  );
  assert.is(kept.verdict, 'delivered', kept.answer.text);
  const { account: after } = await core.admin.getAccount({ accountId });
  assert.is(after!.balanceKobo, 100_000n, 'the live wallet is untouched');
  assert.ok(after!.testBalanceKobo < 500_000n, 'the test wallet paid');
  await assertLedgerInvariant(core, accountId);
});

test('an msorg token is no adex token, nor the other way round', async () => {
  const { publicKey } = await core.createApiAccount({ balanceKobo: 1000 });
  const { token } = await core.admin.createCompatToken({ publicKey, dialect: 'msorg', inFlight: '' });
  const answer = await call(quickTls.port, 'GET', `${BASE}/api/user`, { Authorization: `Token ${token}` });
  assert.is(answer.status, 401);
});

test.run();
