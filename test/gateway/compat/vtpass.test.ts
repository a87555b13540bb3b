/**
 * The VTpass dialect through a TLS terminator, talked to by clients written from VTpass's
 * documentation and public VTpass clients: every product delivered, settled within the wait,
 * outlasting it (099, settled later and read by requery), failed after the debit (refunded
 * once), refused for balance, variation code and keys; a request_id replayed; the public key
 * reading and never buying; the GET/POST and trailing-slash forms. Each ends with the ledger's check.
 */
import { randomBytes } from 'node:crypto';
import type { AddressInfo } from 'node:net';
import * as assert from 'uvu/assert';
import { Mode } from '../../../gen/prepaid/v1/types_pb.js';
import { assertLedgerInvariant, type TestCore } from '../../helpers/core.js';
import type { TestGateway } from '../../helpers/gateway.js';
import { suite } from '../../helpers/suite.js';
import { startTlsProxy, type TlsProxy } from '../../helpers/tls-proxy.js';
import { balanceKobo } from '../fields.js';
import { call } from './clients.js';
import {
  documented,
  keysOf,
  philmorehostVtpass,
  pythonSdk,
  requestIdOf,
  type VtpassKeys,
  vtpassCall,
} from './vtpass-clients.js';
import { type CompatWorld, startCompatWorld } from './world.js';

const test = suite('compat vtpass');

let core: TestCore;
/** A short wait, for purchases that outlast it; a long one, for those that settle within it. */
let quick: TestGateway;
let quickTls: TlsProxy;
let patientTls: TlsProxy;
let mtnPlanId = 0;
let packageCode = '';

let world: CompatWorld;

test.before(async () => {
  world = await startCompatWorld({ rootDialect: 'vtpass' });
  ({ core, quick, quickTls, patientTls, mtnPlanId, packageCode } = world);
});

test.after(async () => {
  await world?.close();
});

async function account(balance = 5_000_000): Promise<{ accountId: string; keys: VtpassKeys; publicKey: string }> {
  const { accountId, publicKey } = await core.createApiAccount({ balanceKobo: balance });
  const { token } = await core.admin.createCompatToken({ publicKey, dialect: 'vtpass', inFlight: '' });
  return { accountId, keys: keysOf(token), publicKey };
}

const rid = () => requestIdOf(randomBytes(5).toString('hex'));

/** Each product's pay body, for a recipient ending as the sandbox's scenario asks. */
function order(product: string, ending: string, extra: Record<string, unknown> = {}): Record<string, unknown> {
  const common = { request_id: rid(), phone: '08031230000' };
  switch (product) {
    case 'airtime':
      return { ...common, serviceID: 'mtn', amount: 100, phone: `0803123${ending}`, ...extra };
    case 'data':
      return {
        ...common,
        serviceID: 'mtn-data',
        billersCode: `0803123${ending}`,
        variation_code: String(mtnPlanId),
        amount: 0,
        ...extra,
      };
    case 'electricity':
      return {
        ...common,
        serviceID: 'ikeja-electric',
        billersCode: `4503123${ending}`,
        variation_code: 'prepaid',
        amount: '1000',
        ...extra,
      };
    default:
      return {
        ...common,
        serviceID: 'dstv',
        billersCode: `703123${ending}`,
        variation_code: packageCode,
        subscription_type: 'change',
        quantity: 1,
        ...extra,
      };
  }
}

const bal = async (accountId: string) => Number(await balanceKobo(core, accountId));
const pay = (port: number, keys: VtpassKeys, body: unknown) =>
  vtpassCall(port, keys, 'POST', '/compat/vtpass/api/pay', body);
const requery = (port: number, keys: VtpassKeys, requestId: string) =>
  vtpassCall(port, keys, 'POST', '/compat/vtpass/api/requery', { request_id: requestId });

const PRODUCTS = ['airtime', 'data', 'electricity', 'cable'];

for (const product of PRODUCTS) {
  test(`${product}: delivered is 000 delivered for every client, with VTpass's fields, and requery agrees`, async () => {
    const { accountId, keys } = await account();
    const body = order(product, '1234');
    const answer = await pay(quickTls.port, keys, body);
    assert.is(answer.status, 200, answer.text);
    assert.is(documented.verdict(answer), 'delivered', answer.text);
    assert.is(philmorehostVtpass.verdict(answer), 'delivered');
    assert.ok(pythonSdk.succeeds(answer));
    assert.is(answer.json.requestId, body['request_id']);
    assert.type(answer.json.amount, 'number');
    assert.match(answer.json.transaction_date, /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{6}Z$/);
    assert.type(answer.json.content.transactions.transactionId, 'string');
    if (product === 'electricity') {
      assert.match(answer.json.purchased_code, /^Token : \d{4} \d{4} \d{4} \d{4} \d{4}/);
      assert.type(answer.json.units, 'string');
    }
    const again = await requery(quickTls.port, keys, body['request_id'] as string);
    assert.is(again.json.code, '000', again.text);
    assert.is(again.json.content.transactions.transactionId, answer.json.content.transactions.transactionId);
    const read = await vtpassCall(
      quickTls.port,
      keys,
      'GET',
      `/compat/vtpass/api/requery/?request_id=${body['request_id']}`,
    );
    assert.is(read.json.code, '000', `a GET requery with the public key reads it too: ${read.text}`);
    await assertLedgerInvariant(core, accountId);
  });

  test(`${product}: a failure after the debit is 016 failed, refunded once, and a replay says the same`, async () => {
    const { accountId, keys } = await account();
    const before = await bal(accountId);
    const body = order(product, '9999');
    const answer = await pay(quickTls.port, keys, body);
    assert.is(answer.json.code, '016', answer.text);
    assert.is(answer.json.content.transactions.status, 'failed');
    assert.is(documented.verdict(answer), 'failed');
    assert.is(philmorehostVtpass.verdict(answer), 'failed');
    assert.not.ok(pythonSdk.succeeds(answer));
    assert.is(await bal(accountId), before, 'refunded in full');
    const again = await pay(quickTls.port, keys, body);
    assert.is(again.json.code, '016');
    assert.is(await bal(accountId), before, 'refunded once');
    await assertLedgerInvariant(core, accountId);
  });

  test(`${product}: outlasting the wait is 099, which every client holds open, then requery reads it delivered`, async () => {
    const { accountId, keys } = await account();
    const body = order(product, '8888');
    const answer = await pay(quickTls.port, keys, body);
    assert.is(answer.status, 200, answer.text);
    assert.is(answer.json.code, '099');
    assert.is(documented.verdict(answer), 'pending');
    assert.is(philmorehostVtpass.verdict(answer), 'pending');
    const early = await requery(quickTls.port, keys, body['request_id'] as string);
    assert.is(early.json.code, '099', early.text);
    await core.recoverNow();
    const later = await requery(quickTls.port, keys, body['request_id'] as string);
    assert.is(later.json.code, '000', later.text);
    assert.is(documented.verdict(later), 'delivered');
    await assertLedgerInvariant(core, accountId);
  });

  test(`${product}: a purchase that settles within the wait is answered final`, async () => {
    const { accountId, keys } = await account();
    const answering = pay(patientTls.port, keys, order(product, '7777'));
    // Once the core holds it pending, the recovery settles it (failed, refunded) while the endpoint waits.
    const pending = async () =>
      (await core.admin.listPendingTransactions({})).transactions.some((t) => t.accountId === accountId);
    for (let i = 0; i < 1000 && !(await pending()); i++) await new Promise((r) => setTimeout(r, 20));
    for (let i = 0; i < 100 && (await pending()); i++) {
      await core.recoverNow();
      await new Promise((r) => setTimeout(r, 20));
    }
    const answer = await answering;
    assert.is(answer.json.code, '016', answer.text);
    assert.is(await bal(accountId), 5_000_000);
    await assertLedgerInvariant(core, accountId);
  });

  test(`${product}: a short balance is 018, and nothing is debited`, async () => {
    const { accountId, keys } = await account(100);
    const answer = await pay(quickTls.port, keys, order(product, '1234'));
    assert.is(answer.status, 200, answer.text);
    assert.is(answer.json.code, '018');
    assert.is(documented.verdict(answer), 'failed');
    assert.is(await bal(accountId), 100);
    await assertLedgerInvariant(core, accountId);
  });

  test(`${product}: wrong keys are 401 087; a replayed request_id is the same answer; another order under it is 014`, async () => {
    const { accountId, keys } = await account();
    const bad = await pay(quickTls.port, { ...keys, secretKey: `SK_${'0'.repeat(40)}` }, order(product, '1234'));
    assert.is(bad.status, 401);
    assert.is(bad.json.code, '087');
    const none = await vtpassCall(quickTls.port, { ...keys, apiKey: '' }, 'POST', '/compat/vtpass/api/pay', {});
    assert.is(none.status, 401);
    const body = order(product, '1234');
    const first = await pay(quickTls.port, keys, body);
    assert.is(first.json.code, '000', first.text);
    const afterFirst = await bal(accountId);
    const replay = await pay(quickTls.port, keys, body);
    assert.is(replay.json.content.transactions.transactionId, first.json.content.transactions.transactionId);
    assert.is(await bal(accountId), afterFirst, 'bought once');
    const other = await pay(quickTls.port, keys, { ...order(product, '4321'), request_id: body['request_id'] });
    assert.is(other.json.code, '014', other.text);
    assert.is(await bal(accountId), afterFirst, 'another order under the key is refused');
    await assertLedgerInvariant(core, accountId);
  });
}

test('a bad variation_code (plan, bouquet, meter type) is 010, a bad serviceID 012, a missing field 011; nothing is debited', async () => {
  const { accountId, keys } = await account();
  for (const code of ['99999', 'abc']) {
    const answer = await pay(quickTls.port, keys, order('data', '1234', { variation_code: code }));
    assert.is(answer.json.code, '010', answer.text);
  }
  const cable = await pay(quickTls.port, keys, order('cable', '1234', { variation_code: 'no-such-bouquet' }));
  assert.is(cable.json.code, '010', cable.text);
  const meter = await pay(quickTls.port, keys, order('electricity', '1234', { variation_code: 'smart' }));
  assert.is(meter.json.code, '010', meter.text);
  const service = await pay(quickTls.port, keys, order('airtime', '1234', { serviceID: 'waec' }));
  assert.is(service.json.code, '012', service.text);
  const missing = await pay(quickTls.port, keys, { serviceID: 'mtn', amount: 100, phone: '08031231234' });
  assert.is(missing.json.code, '011', missing.text);
  assert.is(await bal(accountId), 5_000_000);
  await assertLedgerInvariant(core, accountId);
});

test('the public key reads (balance, variations) and never buys; the secret key reads too', async () => {
  const { accountId, keys } = await account();
  const balance = await vtpassCall(quickTls.port, keys, 'GET', '/compat/vtpass/api/balance');
  assert.is(balance.status, 200, balance.text);
  assert.equal(balance.json, { code: 1, contents: { balance: 50_000 } });
  const plans = await vtpassCall(
    quickTls.port,
    keys,
    'GET',
    '/compat/vtpass/api/service-variations?serviceID=mtn-data',
  );
  assert.is(plans.json.response_description, '000', plans.text);
  const plan = plans.json.content.variations.find((v: any) => v.variation_code === String(mtnPlanId));
  assert.ok(plan, plans.text);
  assert.match(plan.variation_amount, /^\d+\.\d{2}$/);
  const bouquets = await vtpassCall(
    quickTls.port,
    keys,
    'GET',
    '/compat/vtpass/api/service-variations/?serviceID=dstv',
  );
  assert.ok(
    bouquets.json.content.variations.some((v: any) => v.variation_code === packageCode),
    bouquets.text,
  );
  const publicOnly = await vtpassCall(
    quickTls.port,
    { ...keys, secretKey: keys.publicKey },
    'POST',
    '/compat/vtpass/api/pay',
    order('airtime', '1234'),
  );
  assert.is(publicOnly.json.code, '028', publicOnly.text);
  const withSecret = await call2(keys, 'GET', '/compat/vtpass/api/balance');
  assert.is(withSecret.json.code, 1);
  assert.is(await bal(accountId), 5_000_000, 'the public key bought nothing');
  await assertLedgerInvariant(core, accountId);
});

/** A GET sent with all three keys, as some clients send them on every call. */
function call2(keys: VtpassKeys, method: 'GET' | 'POST', path: string) {
  return vtpassCall(quickTls.port, { ...keys, publicKey: keys.secretKey }, method, path);
}

test('merchant-verify names the meter and card owners; an unknown number is WrongBillersCode', async () => {
  const { keys } = await account();
  const meter = await vtpassCall(quickTls.port, keys, 'POST', '/compat/vtpass/api/merchant-verify', {
    billersCode: '45031231234',
    serviceID: 'ikeja-electric',
    type: 'prepaid',
  });
  assert.is(meter.json.code, '000', meter.text);
  assert.type(meter.json.content.Customer_Name, 'string');
  assert.is(meter.json.content.WrongBillersCode, false);
  const card = await vtpassCall(quickTls.port, keys, 'POST', '/compat/vtpass/api/merchant-verify/', {
    billersCode: '7031231234',
    serviceID: 'dstv',
  });
  assert.is(card.json.code, '000', card.text);
  assert.type(card.json.content.Customer_Name, 'string');
  const noType = await vtpassCall(quickTls.port, keys, 'POST', '/compat/vtpass/api/merchant-verify', {
    billersCode: '45031231234',
    serviceID: 'ikeja-electric',
  });
  assert.is(noType.json.code, '011', noType.text);
});

test("a multipart form, as PHP's cURL sends an array, buys as JSON does; a broken one is 011", async () => {
  const { accountId, keys } = await account();
  const boundary = '------------------------d74496d66958873e';
  const fields = order('airtime', '1234');
  const body = `${Object.entries(fields)
    .map(([name, value]) => `--${boundary}\r\nContent-Disposition: form-data; name="${name}"\r\n\r\n${value}\r\n`)
    .join('')}--${boundary}--\r\n`;
  const headers = {
    'api-key': keys.apiKey,
    'secret-key': keys.secretKey,
    'Content-Type': `multipart/form-data; boundary=${boundary}`,
  };
  const answer = await call(quickTls.port, 'POST', '/compat/vtpass/api/pay', headers, body);
  assert.is(answer.json.code, '000', answer.text);
  assert.is(answer.json.requestId, fields['request_id']);
  const broken = await call(quickTls.port, 'POST', '/compat/vtpass/api/pay', headers, `--${boundary}\r\nno end`);
  assert.is(broken.json.code, '011', broken.text);
  assert.is(await bal(accountId), 5_000_000 - 9_700, 'one airtime bought, at its price');
  await assertLedgerInvariant(core, accountId);
});

test('requery of an unknown request_id is 015; a GET of pay is 405; an unknown path 404', async () => {
  const { keys } = await account();
  const unknown = await requery(quickTls.port, keys, rid());
  assert.is(unknown.json.code, '015', unknown.text);
  const get = await vtpassCall(quickTls.port, keys, 'GET', '/compat/vtpass/api/pay');
  assert.is(get.status, 405);
  const nowhere = await vtpassCall(quickTls.port, keys, 'GET', '/compat/vtpass/api/nowhere');
  assert.is(nowhere.status, 404);
});

test('an alias: variation_code "M500" buys exactly the aliased plan at the account\'s price, and is listed', async () => {
  const { accountId, publicKey } = await account();
  await core.admin.setPlanAlias({ accountId, dialect: 'vtpass', aliasId: 'M500', planId: BigInt(mtnPlanId) });
  const priced = await core.purchase.listPlans({ accountId, network: 'mtn', planType: '' });
  const price = priced.plans.find((p) => Number(p.planId) === mtnPlanId)!.priceKobo;
  // The token's cache holds the aliases it was verified with: a new token sees the alias at once.
  const keys = keysOf((await core.admin.createCompatToken({ publicKey, dialect: 'vtpass', inFlight: '' })).token);
  const answer = await pay(quickTls.port, keys, order('data', '1234', { variation_code: 'M500' }));
  assert.is(answer.json.code, '000', answer.text);
  assert.is(await bal(accountId), 5_000_000 - Number(price));
  const plans = await vtpassCall(
    quickTls.port,
    keys,
    'GET',
    '/compat/vtpass/api/service-variations?serviceID=mtn-data',
  );
  assert.ok(plans.json.content.variations.some((v: any) => v.variation_code === 'M500'));
  await assertLedgerInvariant(core, accountId);
});

test("a test key pair's token buys in test mode: the live wallet is untouched", async () => {
  const { accountId } = await account();
  const issued = (await core.admin.createApiKey({ accountId, mode: Mode.TEST })).issuedKey!;
  await core.admin.creditWallet({ accountId, amountKobo: 50_000n, memo: 'test money', mode: Mode.TEST });
  const keys = keysOf(
    (await core.admin.createCompatToken({ publicKey: issued.publicKey, dialect: 'vtpass', inFlight: '' })).token,
  );
  const answer = await pay(quickTls.port, keys, order('airtime', '1234'));
  assert.is(answer.json.code, '000', answer.text);
  assert.is(await bal(accountId), 5_000_000, 'live untouched');
  const balance = await vtpassCall(quickTls.port, keys, 'GET', '/compat/vtpass/api/balance');
  assert.ok(balance.json.contents.balance < 500, balance.text);
  await assertLedgerInvariant(core, accountId);
});

test('the root form on COMPAT_PORT answers /api/... with and without the trailing slash, never a redirect', async () => {
  const { accountId, keys } = await account();
  const root = quick.gateway.compatServer!;
  await new Promise<void>((resolve) => root.listen(0, '127.0.0.1', resolve));
  const rootTls = await startTlsProxy((root.address() as AddressInfo).port);
  try {
    for (const path of ['/api/balance', '/api/balance/']) {
      const answer = await vtpassCall(rootTls.port, keys, 'GET', path);
      assert.is(answer.status, 200, answer.text);
      assert.is(answer.json.contents.balance, 50_000);
    }
    for (const path of ['/api/pay', '/api/pay/']) {
      const bought = await vtpassCall(rootTls.port, keys, 'POST', path, order('airtime', '1234'));
      assert.is(bought.json.code, '000', bought.text);
    }
    const elsewhere = await vtpassCall(rootTls.port, keys, 'GET', '/compat/vtpass/api/balance');
    assert.is(elsewhere.status, 404, 'the root port answers its dialect at the root only');
  } finally {
    await rootTls.close();
  }
  await assertLedgerInvariant(core, accountId);
});

test.run();
