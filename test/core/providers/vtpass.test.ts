/**
 * The VTpass adapter against the fake VTpass over real HTTP: what each product sends, how
 * every answer is read (the money-safety table of codes.ts), both electricity shapes,
 * malformed answers, timeouts, retries, verification, plan lists and the messaging API.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import net from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import * as assert from 'uvu/assert';
import { defaultCatalog } from '../../../core/catalog/defaults.js';
import { kobo } from '../../../core/domain/money.js';
import type { ProductName, PurchaseDetails } from '../../../core/domain/products.js';
import { lagosStamp, newReference } from '../../../core/domain/reference.js';
import { createProviders } from '../../../core/providers/index.js';
import type { ProviderOutcome, ProviderRequest, Providers } from '../../../core/providers/port.js';
import { NOT_FOUND_GRACE_MS, referenceTime } from '../../../core/providers/vtpass/codes.js';
import { createVtpassProviders } from '../../../core/providers/vtpass/index.js';
import type { Store } from '../../../core/store/port.js';
import { openSqliteStore } from '../../../core/store/sqlite/index.js';
import { type FakeVtpass, startFakeVtpass, vtpassRouting } from '../../helpers/fake-vtpass.js';
import { suite } from '../../helpers/suite.js';

interface Context {
  fake: FakeVtpass;
  store: Store;
  dir: string;
  providers: Providers;
  logged: string[];
}

const test = suite<Context>('VTpass adapter');

test.before(async (ctx) => {
  ctx.fake = await startFakeVtpass();
  ctx.dir = mkdtempSync(path.join(tmpdir(), 'prepaid-vtpass-'));
  ctx.store = openSqliteStore({ filename: path.join(ctx.dir, 'prepaid.sqlite') });
  await ctx.store.catalog.seedIfEmpty(defaultCatalog());
  ctx.logged = [];
  const log = (event: string, fields: Record<string, unknown>) => ctx.logged.push(JSON.stringify({ event, ...fields }));
  ctx.providers = createProviders(vtpassRouting(ctx.fake), { catalog: ctx.store.catalog, log }).providers;
});

test.after(async (ctx) => {
  await ctx.fake.close();
  await ctx.store.close();
  rmSync(ctx.dir, { recursive: true, force: true });
});

/** A request as the flow builds it, with a fresh reference. */
function request(
  product: ProductName,
  service: string,
  recipient: string,
  faceValueKobo: number,
  details: PurchaseDetails = {},
): ProviderRequest {
  return {
    reference: newReference(new Date()),
    product,
    service,
    recipient,
    faceValueKobo: kobo(faceValueKobo),
    details,
  };
}

const signal = () => AbortSignal.timeout(5_000);

function lastPay(fake: FakeVtpass) {
  const call = [...fake.calls].reverse().find((c) => c.path === '/api/pay');
  assert.ok(call, 'a pay was sent');
  return call!;
}

test('airtime: 000 delivered is delivered, with our reference as request_id, the Naira amount, the POST keys', async ({
  fake,
  providers,
}) => {
  const req = request('airtime', 'mtn', '08011111111', 100_50);
  const outcome = await providers.airtime.purchase(req, signal());
  assert.is(outcome.kind, 'delivered');
  const call = lastPay(fake);
  assert.equal(call.body, { request_id: req.reference, serviceID: 'mtn', amount: 100.5, phone: '08011111111' });
  assert.is(call.headers['api-key'], fake.apiKey);
  assert.is(call.headers['secret-key'], fake.secretKey);
  assert.is(call.headers['public-key'], undefined, 'the public key goes only with GET');
  const tx = fake.transactions.get(req.reference)!;
  assert.is(outcome.kind === 'delivered' && outcome.result.providerReference, tx.transactionId);
});

test('our reference satisfies the request_id rule: 12 digits of Lagos time first, alphanumeric after', async ({
  fake,
  providers,
}) => {
  const req = request('airtime', 'glo', '08011111111', 200_00);
  await providers.airtime.purchase(req, signal());
  const id = String(lastPay(fake).body!['request_id']);
  assert.ok(/^\d{12}[A-Za-z0-9]+$/.test(id) && id.length >= 12, id);
  // Read back as Lagos time (UTC+1), the stamp is this minute.
  assert.ok(Math.abs(referenceTime(id)!.getTime() - Date.now()) < 2 * 60_000, 'the stamp is now in Lagos time');
  assert.is(lagosStamp(referenceTime(id)!), id.slice(0, 12));
  assert.is(fake.transactions.get(id)?.state, 'delivered', 'the fake, which checks the rule, took it');
});

test('9mobile is VTpass serviceID etisalat, and its data is etisalat-data', async ({ fake, providers, store }) => {
  await providers.airtime.purchase(request('airtime', '9mobile', '08011111111', 100_00), signal());
  assert.is(lastPay(fake).body!['serviceID'], 'etisalat');
  const plan = (await store.catalog.getPlan(301))!;
  await store.catalog.upsertPlan({ ...plan, providerCode: 'eti-1000' });
  await providers.data.purchase(
    request('data', '9mobile', '08011111111', plan.faceValueKobo, { planId: 301 }),
    signal(),
  );
  assert.equal(lastPay(fake).body!['serviceID'], 'etisalat-data');
  assert.equal(lastPay(fake).body!['variation_code'], 'eti-1000');
});

test("data: the plan's provider code is the variation_code, the phone the billersCode", async ({
  fake,
  providers,
  store,
}) => {
  const plan = (await store.catalog.getPlan(1))!;
  await store.catalog.upsertPlan({ ...plan, providerCode: 'mtn-10mb-100' });
  const req = request('data', 'mtn', '08011111111', plan.faceValueKobo, { planId: 1, planLabel: '500MB (7 days)' });
  const outcome = await providers.data.purchase(req, signal());
  assert.is(outcome.kind, 'delivered');
  assert.equal(lastPay(fake).body, {
    request_id: req.reference,
    serviceID: 'mtn-data',
    billersCode: '08011111111',
    variation_code: 'mtn-10mb-100',
    amount: 500,
    phone: '08011111111',
  });
});

test('data: a plan without a provider code fails cleanly and nothing is sent to VTpass', async ({
  fake,
  providers,
}) => {
  const before = fake.calls.length;
  const outcome = await providers.data.purchase(
    request('data', 'glo', '08011111111', 350_00, { planId: 101 }),
    signal(),
  );
  assert.is(outcome.kind, 'failed');
  assert.match(outcome.kind === 'failed' ? outcome.reason : '', /no provider code/);
  assert.is(fake.calls.length, before, 'no call reached VTpass');
});

test('electricity: both answer shapes, and a purchased_code alone, give the token 4-4-4-4-4 and units in kWh', async ({
  fake,
  providers,
}) => {
  const cases = [
    { shape: 'standard', disco: 'ikedc', units: '32.6 kWh' },
    { shape: 'eko', disco: 'ekedc', units: '16.9 kWh' },
    { shape: 'purchased_code_only', disco: 'aedc', units: undefined },
  ] as const;
  for (const c of cases) {
    fake.script('1111111111111', { answer: 'delivered', shape: c.shape });
    const req = request('electricity', c.disco, '1111111111111', 5_000_00, {
      meterType: 'prepaid',
      customerPhone: '08031234567',
    });
    const outcome = await providers.electricity.purchase(req, signal());
    assert.is(outcome.kind, 'delivered', c.shape);
    if (outcome.kind !== 'delivered') continue;
    const digits = fake.tokenDigits(req.reference);
    assert.is(
      outcome.result.token,
      digits.match(/\d{4}/g)!.join('-'),
      `${c.shape}: the main token, not the bonus token`,
    );
    assert.is(outcome.result.units, c.units, `${c.shape} units`);
  }
});

test('electricity: the meter type is the variation_code, and a payment without a phone sends the fallback', async ({
  fake,
  providers,
}) => {
  const req = request('electricity', 'phed', '1010101010101', 2_000_00, { meterType: 'postpaid' });
  const outcome = await providers.electricity.purchase(req, signal());
  assert.equal(lastPay(fake).body, {
    request_id: req.reference,
    serviceID: 'portharcourt-electric',
    billersCode: '1010101010101',
    variation_code: 'postpaid',
    amount: 2000,
    phone: '08099999999',
  });
  assert.is(outcome.kind, 'delivered');
  assert.is(outcome.kind === 'delivered' && outcome.result.token, undefined, 'a postpaid payment has no token');
  assert.is(outcome.kind === 'delivered' && outcome.result.units, undefined);
});

test("cable: the package's provider code, else its package code; DStv and GOtv say subscription_type change", async ({
  fake,
  providers,
  store,
}) => {
  const compact = (await store.catalog.getCablePackage('dstv', 'DSTV COMPACT'))!;
  await store.catalog.upsertCablePackage({ ...compact, providerCode: 'dstv-compact' });
  const dstv = request('cable', 'dstv', '1212121212', compact.priceKobo, {
    packageCode: 'DSTV COMPACT',
    planLabel: 'DStv Compact',
    customerPhone: '08031234567',
  });
  assert.is((await providers.cable.purchase(dstv, signal())).kind, 'delivered');
  assert.equal(lastPay(fake).body, {
    request_id: dstv.reference,
    serviceID: 'dstv',
    billersCode: '1212121212',
    variation_code: 'dstv-compact',
    amount: 15700,
    phone: '08031234567',
    quantity: 1,
    subscription_type: 'change',
  });
  const star = request('cable', 'startimes', '1212121212', 1_200_00, {
    packageCode: 'nova',
    planLabel: 'StarTimes Nova',
  });
  assert.is((await providers.cable.purchase(star, signal())).kind, 'delivered');
  const body = lastPay(fake).body!;
  assert.is(body['variation_code'], 'nova');
  assert.is(body['subscription_type'], undefined);
  assert.is(body['phone'], '08099999999');
});

test('pay: each code read as VTpass documents them; only "not processed" codes fail, 040 reverses, others unknown', async ({
  fake,
  providers,
}) => {
  const table: Record<string, ProviderOutcome['kind']> = {
    '016': 'failed',
    '091': 'failed',
    '010': 'failed',
    '011': 'failed',
    '012': 'failed',
    '013': 'failed',
    '017': 'failed',
    '018': 'failed',
    '019': 'failed',
    '021': 'failed',
    '022': 'failed',
    '023': 'failed',
    '024': 'failed',
    '027': 'failed',
    '028': 'failed',
    '034': 'failed',
    '035': 'failed',
    '040': 'reversed',
    '014': 'unknown',
    '020': 'unknown',
    '030': 'unknown',
    '044': 'unknown',
    '083': 'unknown',
    '085': 'unknown',
    '087': 'unknown',
    '089': 'unknown',
    '123': 'unknown',
  };
  for (const [code, kind] of Object.entries(table)) {
    fake.script('08022222222', { answer: 'code', code });
    const outcome = await providers.airtime.purchase(request('airtime', 'airtel', '08022222222', 100_00), signal());
    assert.is(outcome.kind, kind, `code ${code}`);
    if (outcome.kind === 'failed') {
      assert.match(outcome.reason, new RegExp(`code ${code}`), `the reason names code ${code}`);
      assert.not.match(outcome.reason, /wallet balance/i, "our float at VTpass is not the partner's business");
    }
  }
});

test('pay: 099, pending and initiated are unknown (charged, not delivered yet)', async ({ fake, providers }) => {
  fake.script('08033333333', { answer: 'processing' }, { answer: 'pending' });
  for (let i = 0; i < 2; i += 1) {
    const outcome = await providers.airtime.purchase(request('airtime', 'mtn', '08033333333', 100_00), signal());
    assert.is(outcome.kind, 'unknown');
  }
});

test('pay: malformed answers are unknown, never a crash and never a refund', async ({ fake, providers }) => {
  const bodies = [
    '<html>Bad Gateway</html>',
    '[]',
    '{"content":{}}',
    '{"code":0}',
    '{"code":"000","content":{}}',
    '{"code":"000","content":{"transactions":{"status":"weird"}}}',
    '{"code":"000","content":{"transactions":{"status":"failed"}}}',
    '{"code":"016","content":{"transactions":{"status":"delivered"}}}',
    '{"code":"000","requestId":"202001010000OTHER","content":{"transactions":{"status":"delivered"}}}',
    'x'.repeat(70 * 1024),
  ];
  for (const body of bodies) {
    fake.script('08044444444', { answer: 'malformed', body });
    const outcome = await providers.airtime.purchase(request('airtime', 'mtn', '08044444444', 100_00), signal());
    assert.is(outcome.kind, 'unknown', body.slice(0, 60));
  }
});

test('pay: no answer before the deadline is unknown, and a pay that reached VTpass is not sent again', async ({
  fake,
  providers,
}) => {
  fake.script('08055555555', { answer: 'hang' });
  const req = request('airtime', 'mtn', '08055555555', 100_00);
  const started = Date.now();
  const outcome = await providers.airtime.purchase(req, AbortSignal.timeout(300));
  assert.is(outcome.kind, 'unknown');
  assert.ok(Date.now() - started < 3_000, 'the deadline was kept');
  assert.is(fake.paysFor('08055555555').length, 1, 'sent once');
});

test('requery: each recorded state reads as VTpass documents it', async ({ fake, providers }) => {
  const expected = {
    delivered: 'delivered',
    pending: 'unknown',
    processing: 'unknown',
    failed: 'failed',
    not_processed: 'failed',
    reversed: 'reversed',
  } as const;
  for (const [state, kind] of Object.entries(expected)) {
    fake.script('08066666666', { answer: 'hang', later: state as keyof typeof expected });
    const req = request('airtime', 'mtn', '08066666666', 100_00);
    await providers.airtime.purchase(req, AbortSignal.timeout(150));
    const outcome = await providers.airtime.query(req, signal());
    assert.is(outcome.kind, kind, state);
  }
});

test('requery: 015 is unknown while the purchase is young and a failure once the grace period is over', async ({
  providers,
}) => {
  const young = request('airtime', 'mtn', '08077777777', 100_00);
  assert.is((await providers.airtime.query(young, signal())).kind, 'unknown');
  const old = { ...young, reference: `${lagosStamp(new Date(Date.now() - NOT_FOUND_GRACE_MS - 120_000))}OLDREF0001` };
  const outcome = await providers.airtime.query(old, signal());
  assert.is(outcome.kind, 'failed');
  assert.match(outcome.kind === 'failed' ? outcome.reason : '', /never received/);
});

test('requery: a refusal of the requery itself (our keys) says nothing of the purchase: unknown, never failed', async ({
  fake,
  store,
}) => {
  const wrongKeys = createVtpassProviders(
    {
      baseUrl: fake.baseUrl,
      apiKey: fake.apiKey,
      publicKey: fake.publicKey,
      secretKey: 'not-the-secret',
      fallbackPhone: '08099999999',
    },
    store.catalog,
  );
  const req = request('airtime', 'mtn', '08011111111', 100_00);
  assert.is((await wrongKeys.airtime.query(req, signal())).kind, 'unknown');
  assert.is(
    (await wrongKeys.airtime.purchase(req, signal())).kind,
    'unknown',
    '087 is marked unsure (docs/vtpass.md): not definitive',
  );
});

test('retries: a pay is sent twice only on a refused connection, with the same request_id; reads three times', async ({
  store,
}) => {
  const sent: { url: string; body: string }[] = [];
  const counting: typeof fetch = (input, init) => {
    sent.push({ url: String(input), body: String(init?.body ?? '') });
    return fetch(input, init);
  };
  // A port nothing listens on any more: every connection is refused.
  const probe = net.createServer();
  await new Promise<void>((resolve) => probe.listen(0, '127.0.0.1', resolve));
  const port = (probe.address() as net.AddressInfo).port;
  await new Promise<void>((resolve) => probe.close(() => resolve()));
  const closed = createVtpassProviders(
    {
      baseUrl: `http://127.0.0.1:${port}/api/`,
      apiKey: 'a',
      publicKey: 'b',
      secretKey: 'c',
      fallbackPhone: '08099999999',
      fetch: counting,
    },
    store.catalog,
  );
  const req = request('airtime', 'mtn', '08011111111', 100_00);
  assert.is((await closed.airtime.purchase(req, signal())).kind, 'unknown');
  assert.is(sent.length, 2, 'pay: two attempts');
  assert.is(sent[0]!.body, sent[1]!.body, 'the same request_id both times');
  sent.length = 0;
  assert.is((await closed.airtime.query(req, signal())).kind, 'unknown');
  assert.is(sent.length, 3, 'requery: three attempts');
});

test('verify: a prepaid meter, a postpaid meter with arrears, a smart card, and a wrong number', async ({
  providers,
}) => {
  const prepaid = await providers.electricity.verify(
    { product: 'electricity', service: 'ikedc', number: '1111111111111', meterType: 'prepaid' },
    signal(),
  );
  assert.equal(prepaid, {
    kind: 'found',
    customer: {
      customerName: 'TESTMETER1',
      address: 'ABULE - EGBA BU ABULE',
      meterType: 'PREPAID',
      minimumAmountKobo: kobo(500_00),
    },
  });
  const postpaid = await providers.electricity.verify(
    { product: 'electricity', service: 'ekedc', number: '1010101010101', meterType: 'postpaid' },
    signal(),
  );
  assert.equal(postpaid.kind === 'found' && postpaid.customer.arrearsKobo, 1_250_50);
  assert.equal(postpaid.kind === 'found' && postpaid.customer.minimumAmountKobo, 1_000_00);
  const card = await providers.cable.verify({ product: 'cable', service: 'dstv', number: '1212121212' }, signal());
  assert.equal(card, {
    kind: 'found',
    customer: {
      customerName: 'TEST CUSTOMER',
      currentBouquet: 'DStv Compact N15700',
      dueDate: '2026-02-06T00:00:00',
      renewalAmountKobo: kobo(15_700_00),
      currentBouquetCode: 'COMPE36',
    },
  });
  const wrong = await providers.cable.verify({ product: 'cable', service: 'gotv', number: '7012345678' }, signal());
  assert.is(wrong.kind, 'not_found');
});

test('verify: sends billersCode, serviceID and, for meters, type', async ({ fake, providers }) => {
  await providers.electricity.verify(
    { product: 'electricity', service: 'kedco', number: '1111111111111', meterType: 'prepaid' },
    signal(),
  );
  const call = [...fake.calls].reverse().find((c) => c.path === '/api/merchant-verify')!;
  assert.equal(call.body, { billersCode: '1111111111111', serviceID: 'kano-electric', type: 'prepaid' });
});

test('service-variations: both spellings of the list are read, with the GET keys; bad entries are skipped', async ({
  fake,
  providers,
}) => {
  fake.misspelled.add('glo-data');
  fake.variations.set('airtel-data', [
    ...fake.variations.get('airtel-data')!,
    { variation_code: '', name: 'no code', variation_amount: '100', fixedPrice: 'Yes' },
    { variation_code: 'airt-bad', name: 'bad amount', variation_amount: 'ten naira', fixedPrice: 'Yes' },
  ]);
  const glo = await providers.data.listPlans!('glo', signal());
  assert.equal(
    glo.map((p) => p.code),
    ['glo100', 'glo1000'],
  );
  assert.equal(glo[1], { code: 'glo1000', name: 'Glo Data N1000 - 2.5GB - 30 days', amountKobo: kobo(1_000_00) });
  const airtel = await providers.data.listPlans!('airtel', signal());
  assert.equal(
    airtel.map((p) => p.code),
    ['airt-100', 'airt-1000'],
  );
  const call = [...fake.calls].reverse().find((c) => c.path.startsWith('/api/service-variations'))!;
  assert.is(call.method, 'GET');
  assert.is(call.headers['public-key'], fake.publicKey);
  assert.is(call.headers['secret-key'], undefined, 'the secret key goes only with POST');
  fake.misspelled.delete('glo-data');
});

test('bulk SMS: TG00 delivers to recipients less rejections; all rejected or TG17 fail; bad answers unknown', async ({
  fake,
  providers,
}) => {
  const sms = (recipients: string[]) =>
    request('bulksms', 'sms', '', 700, { sender: 'MyShop', message: 'Hello', recipients, pages: 1 });
  const ok = await providers.bulksms.purchase(sms(['08031234567', '08051234567']), signal());
  assert.is(ok.kind === 'delivered' && ok.result.sent, 2);
  const batch = fake.sms[fake.sms.length - 1]!;
  assert.equal(batch.recipients, ['08031234567', '08051234567']);
  assert.is(batch.sender, 'MyShop');
  const headers = [...fake.calls].reverse().find((c) => c.path === '/v2/api/sms/sendsms')!.headers;
  assert.is(headers['x-token'], fake.smsToken);
  assert.is(headers['x-secret'], fake.smsSecret);

  const some = await providers.bulksms.purchase(sms(['08031234567', '08052222222']), signal());
  assert.is(some.kind === 'delivered' && some.result.sent, 1, 'a rejected recipient is not counted as sent');
  assert.is((await providers.bulksms.purchase(sms(['08052222222']), signal())).kind, 'failed', 'nothing sent');
  fake.scriptSms({ answer: 'TG17' }, { answer: 'malformed' });
  assert.is((await providers.bulksms.purchase(sms(['08031234567']), signal())).kind, 'failed', 'TG17');
  assert.is((await providers.bulksms.purchase(sms(['08031234567']), signal())).kind, 'unknown', 'malformed');
  assert.is(
    (await providers.bulksms.query(sms(['08031234567']), signal())).kind,
    'unknown',
    'no requery in the messaging API',
  );
});

test('receipts go through the messaging API with the configured sender', async ({ fake, providers }) => {
  const accepted = await providers.bulksms.notify(
    { to: '08031234567', text: 'Token: 1234', reference: newReference(new Date()) },
    signal(),
  );
  assert.ok(accepted);
  assert.is(fake.sms[fake.sms.length - 1]!.sender, 'PrepaidRx');
  assert.not.ok(
    await providers.bulksms.notify({ to: '08032222222', text: 'x', reference: newReference(new Date()) }, signal()),
    'a rejected receipt is not accepted',
  );
});

test('no log line carries a key or secret', ({ fake, logged }) => {
  assert.ok(logged.length > 20, 'the adapter logged its calls');
  for (const secret of [fake.apiKey, fake.publicKey, fake.secretKey, fake.smsToken, fake.smsSecret]) {
    assert.not.ok(
      logged.some((line) => line.includes(secret)),
      'a secret in the log',
    );
  }
  assert.ok(
    logged.some((line) => line.includes('vtpass.account_error')),
    'account problems (018, 027...) are logged as errors',
  );
});

test.run();
