/**
 * Electricity and cable at ClubKonnect and the ported-number family, through the
 * real gateway and core with the fakes on port 0: verify, purchase and re-query at
 * ClubKonnect (ORDER_RECEIVED, then the token of the completed order), an ORDER_ERROR failing
 * over to the site, electricity at the site (token in the purchase record), a disco the site
 * has no id for going straight to ClubKonnect, a cancelled order refunded once and never moved
 * on. Every case ends with the ledger check.
 */
import * as assert from 'uvu/assert';
import { createProviders } from '../../core/providers/index.js';
import { startCore, type TestCore } from '../helpers/core.js';
import { CK_METER_TOKEN, type FakeClubkonnect, startFakeClubkonnect } from '../helpers/fake-clubkonnect.js';
import { type FakePortedNumber, startFakePortedNumber } from '../helpers/fake-ported-number.js';
import { type ApiKeys, startTestGateway, type TestGateway } from '../helpers/gateway.js';
import { suite } from '../helpers/suite.js';
import { testProvidersConfig } from '../helpers/supply.js';

interface Stack {
  ck: FakeClubkonnect;
  site: FakePortedNumber;
  core: TestCore;
  gateway: TestGateway;
  keys: ApiKeys & { accountId: string };
  close(): Promise<void>;
}

const TOKEN = CK_METER_TOKEN.match(/\d{4}/g)!.join('-');

async function startStack(electricity: string[], cable: string[] = ['ck']): Promise<Stack> {
  const ck = await startFakeClubkonnect();
  const site = await startFakePortedNumber();
  const core = await startCore({
    upstreams: (store, planCodes) =>
      createProviders(
        testProvidersConfig({
          routing: { electricity, cable },
          upstreams: [
            { name: 'ck', kind: 'clubkonnect', baseUrl: ck.baseUrl, userId: ck.userId, apiKey: ck.apiKey },
            { name: 'site', kind: 'ported-number', baseUrl: site.baseUrl, token: site.token },
          ],
        }),
        { catalog: store.catalog, planCodes },
      ),
  });
  const gateway = await startTestGateway(core);
  const keys = await core.createApiAccount({ balanceKobo: 100_000_00 });
  return {
    ck,
    site,
    core,
    gateway,
    keys,
    async close() {
      await gateway.close();
      await core.close();
      await site.close();
      await ck.close();
    },
  };
}

function buyPower(stack: Stack, disco: string, meter: string, amount = 1500) {
  return stack.gateway.request({
    query: { action: 'electricity' },
    keys: stack.keys,
    body: { disco, meter_number: meter, meter_type: 'prepaid', amount, phone: '08031234567' },
  });
}

async function attemptsOf(stack: Stack, reference: string) {
  return (await stack.core.store.supply.attemptsOf(reference)).map((a) => [a.upstream, a.outcome]);
}

async function transaction(stack: Stack, reference: string) {
  return (await stack.gateway.request({ query: { action: 'transaction', reference }, keys: stack.keys })).json
    .transaction;
}

async function ledgerIsExact(stack: Stack): Promise<void> {
  const audit = await stack.core.admin.checkLedger({});
  assert.is(audit.violationCount, 0n, 'prepaid ledger check finds nothing');
}

async function entriesOf(stack: Stack, reference: string): Promise<string[]> {
  return (await stack.core.store.wallet.ledgerOf(stack.keys.accountId, 'live', reference)).map((e) => e.kind);
}

const test = suite('electricity and cable at ClubKonnect and the ported-number family');

test('ClubKonnect electricity: verify, ORDER_RECEIVED pending, the re-query delivers the token', async () => {
  const stack = await startStack(['ck', 'site']);
  try {
    const verified = await stack.gateway.request({
      query: { action: 'verify' },
      keys: stack.keys,
      body: { disco: 'ikedc', meter_number: '04185663657', meter_type: 'prepaid' },
    });
    assert.is(verified.status, 200, verified.text);
    assert.is(verified.json.customer_name, 'JOHN DOE');
    const unknown = await stack.gateway.request({
      query: { action: 'verify' },
      keys: stack.keys,
      body: { disco: 'ikedc', meter_number: '04100000000', meter_type: 'prepaid' },
    });
    assert.is(unknown.status, 404, unknown.text);

    const reply = await buyPower(stack, 'ikedc', '04185663657');
    assert.is(reply.status, 202, reply.text);
    const reference = reply.json.reference as string;
    const sent = stack.ck.calls.find((c) => c.script === 'APIElectricityV1.asp')!;
    assert.equal(
      [sent.params['ElectricCompany'], sent.params['MeterType'], sent.params['MeterNo'], sent.params['Amount']],
      ['02', '01', '04185663657', '1500'],
    );
    assert.is(sent.params['RequestID'], reference);
    assert.is(stack.site.calls.length, 0, 'ORDER_RECEIVED proves nothing: no call to the second');
    assert.is(await stack.core.recoverNow(), 1);
    const tx = await transaction(stack, reference);
    assert.is(tx.status, 'success');
    assert.is(tx.token, TOKEN, 'the token of the completed order');
    assert.equal(
      await attemptsOf(stack, reference),
      [['ck', 'delivered']],
      "the re-query's answer marks the attempt delivered",
    );
    assert.equal(await entriesOf(stack, reference), ['debit']);
    await ledgerIsExact(stack);
  } finally {
    await stack.close();
  }
});

test('ClubKonnect refuses with an ORDER_ERROR: the site delivers, token in its record, one debit', async () => {
  const stack = await startStack(['ck', 'site']);
  try {
    stack.ck.script('43067784709', { answer: 'error', code: '412', status: 'INSUFFICIENT_APIAMOUNT' });
    const reply = await buyPower(stack, 'ikedc', '43067784709', 2000);
    assert.is(reply.status, 200, reply.text);
    assert.is(reply.json.status, 'success');
    assert.is(reply.json.token, TOKEN);
    const reference = reply.json.reference as string;
    assert.equal(await attemptsOf(stack, reference), [
      ['ck', 'not_delivered'],
      ['site', 'delivered'],
    ]);
    const posted = stack.site.calls.find((c) => c.path === '/api/billpayment/')!;
    assert.equal(
      [posted.body?.['disco_name'], posted.body?.['MeterType'], posted.body?.['meter_number'], posted.body?.['amount']],
      [1, 1, '43067784709', 2000],
    );
    assert.equal(await entriesOf(stack, reference), ['debit']);
    await ledgerIsExact(stack);
  } finally {
    await stack.close();
  }
});

test('electricity at the site: verify there; a disco it has no id for goes straight to ClubKonnect', async () => {
  const stack = await startStack(['site', 'ck']);
  try {
    const verified = await stack.gateway.request({
      query: { action: 'verify' },
      keys: stack.keys,
      body: { disco: 'ikedc', meter_number: '43067784709', meter_type: 'prepaid' },
    });
    assert.is(verified.status, 200, verified.text);
    assert.is(verified.json.customer_name, 'David Dele');
    const missing = await stack.gateway.request({
      query: { action: 'verify' },
      keys: stack.keys,
      body: { disco: 'ikedc', meter_number: '43000000000', meter_type: 'prepaid' },
    });
    assert.is(missing.status, 404, missing.text);

    const reply = await buyPower(stack, 'aba', '04185663657');
    assert.is(reply.status, 202, reply.text);
    const reference = reply.json.reference as string;
    assert.equal(await attemptsOf(stack, reference), [['ck', 'pending']], 'the site has no id for Aba');
    assert.is(stack.site.calls.filter((c) => c.method === 'POST').length, 0);
    assert.is(stack.ck.calls.find((c) => c.script === 'APIElectricityV1.asp')?.params['ElectricCompany'], '12');
    await stack.core.recoverNow();
    assert.is((await transaction(stack, reference)).status, 'success');
    await ledgerIsExact(stack);
  } finally {
    await stack.close();
  }
});

test('a site bill payment still processing is pending, then delivered with its token on requery there', async () => {
  const stack = await startStack(['site', 'ck']);
  try {
    stack.site.script('43067784709', { answer: 'processing' });
    const reply = await buyPower(stack, 'ekedc', '43067784709', 1000);
    assert.is(reply.status, 202, reply.text);
    const reference = reply.json.reference as string;
    assert.equal(await attemptsOf(stack, reference), [['site', 'pending']]);
    assert.is(stack.ck.calls.length, 0, 'processing proves nothing: no call to ClubKonnect');
    const record = stack.site.records.find((r) => r.kind === 'billpayment')!;
    assert.is(record.body['disco_name'], 2, "Eko is the site's disco 2");
    stack.site.settle(record.id, 'successful');
    assert.is(await stack.core.recoverNow(), 1);
    const tx = await transaction(stack, reference);
    assert.is(tx.status, 'success');
    assert.is(tx.token, TOKEN);
    assert.ok(
      stack.site.calls.some((c) => c.method === 'GET' && c.path === `/api/billpayment/${record.id}`),
      "asked for by the site's id its processing answer gave",
    );
    assert.equal(await entriesOf(stack, reference), ['debit']);
    await ledgerIsExact(stack);
  } finally {
    await stack.close();
  }
});

test('a ClubKonnect order cancelled after ORDER_RECEIVED is refunded once and never moves on', async () => {
  const stack = await startStack(['ck', 'site']);
  try {
    stack.ck.script('04185663657', { answer: 'cancel' });
    const reply = await buyPower(stack, 'ikedc', '04185663657');
    assert.is(reply.status, 202, reply.text);
    const reference = reply.json.reference as string;
    await stack.core.recoverNow();
    assert.is((await transaction(stack, reference)).status, 'failed');
    assert.equal(await entriesOf(stack, reference), ['debit', 'refund']);
    assert.is(stack.site.calls.length, 0, 'no second upstream after the order was taken');
    await ledgerIsExact(stack);
  } finally {
    await stack.close();
  }
});

test('ClubKonnect cable: verify the card, the package sent by its ClubKonnect code, delivered on requery', async () => {
  const stack = await startStack(['ck'], ['ck']);
  try {
    const verified = await stack.gateway.request({
      query: { action: 'verify' },
      keys: stack.keys,
      body: { provider: 'gotv', smart_card: '7034567890' },
    });
    assert.is(verified.status, 200, verified.text);
    assert.is(verified.json.customer_name, 'ADA NWAIKPO');
    const reply = await stack.gateway.request({
      query: { action: 'cable' },
      keys: stack.keys,
      body: { provider: 'gotv', smart_card: '7034567890', package_code: 'GOTV MAX', phone: '08031234567' },
    });
    assert.is(reply.status, 202, reply.text);
    const reference = reply.json.reference as string;
    const sent = stack.ck.calls.find((c) => c.script === 'APICableTVV1.asp')!;
    assert.equal(
      [sent.params['CableTV'], sent.params['Package'], sent.params['SmartCardNo']],
      ['gotv', 'gotv-max', '7034567890'],
    );
    await stack.core.recoverNow();
    assert.is((await transaction(stack, reference)).status, 'success');
    assert.equal(await entriesOf(stack, reference), ['debit']);
    await ledgerIsExact(stack);
  } finally {
    await stack.close();
  }
});

test.run();
