/**
 * A prepaid electricity vend an upstream reports delivered without its token is not a
 * success: it stays pending (the charge held), is re-queried for the token, is flagged for a
 * person in the console's attention queue past the deadline, and becomes a success only with
 * the token. One case per upstream kind (VTpass, ClubKonnect, the ported-number family),
 * through the real gateway and core with the fakes on port 0, each ending with the ledger
 * check. A postpaid payment, which has no token, still settles at once.
 */
import * as assert from 'uvu/assert';
import { createProviders } from '../../core/providers/index.js';
import { startCore, type TestCore } from '../helpers/core.js';
import { CK_METER_TOKEN, type FakeClubkonnect, startFakeClubkonnect } from '../helpers/fake-clubkonnect.js';
import { type FakePortedNumber, startFakePortedNumber } from '../helpers/fake-ported-number.js';
import { type FakeVtpass, startFakeVtpass } from '../helpers/fake-vtpass.js';
import { type ApiKeys, startTestGateway, type TestGateway } from '../helpers/gateway.js';
import { suite } from '../helpers/suite.js';
import { testProvidersConfig } from '../helpers/supply.js';

interface Stack {
  vtpass: FakeVtpass;
  ck: FakeClubkonnect;
  site: FakePortedNumber;
  core: TestCore;
  gateway: TestGateway;
  keys: ApiKeys & { accountId: string };
  close(): Promise<void>;
}

/** The token as ClubKonnect's and the ported-number sites' documented samples carry it, shown 4-4-4-4-4. */
const SAMPLE_TOKEN = CK_METER_TOKEN.match(/\d{4}/g)!.join('-');

/** A core whose electricity route is the one upstream `only`; a purchase still pending at its first re-query is past the deadline. */
async function startStack(only: 'vtpass' | 'ck' | 'site'): Promise<Stack> {
  const vtpass = await startFakeVtpass();
  const ck = await startFakeClubkonnect();
  const site = await startFakePortedNumber();
  const core = await startCore({
    recoveryAttentionAfterMs: 0,
    upstreams: (store, planCodes) =>
      createProviders(
        testProvidersConfig({
          routing: { electricity: [only] },
          upstreams: [
            { name: 'ck', kind: 'clubkonnect', baseUrl: ck.baseUrl, userId: ck.userId, apiKey: ck.apiKey },
            { name: 'site', kind: 'ported-number', baseUrl: site.baseUrl, token: site.token },
          ],
          vtpass,
        }),
        { catalog: store.catalog, planCodes },
      ),
  });
  const gateway = await startTestGateway(core);
  const keys = await core.createApiAccount({ balanceKobo: 100_000_00 });
  return {
    vtpass,
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
      await vtpass.close();
    },
  };
}

function buyPower(stack: Stack, meter: string, meterType: 'prepaid' | 'postpaid' = 'prepaid') {
  return stack.gateway.request({
    query: { action: 'electricity' },
    keys: stack.keys,
    body: { disco: 'ikedc', meter_number: meter, meter_type: meterType, amount: 1500 },
  });
}

async function transaction(stack: Stack, reference: string) {
  return (await stack.gateway.request({ query: { action: 'transaction', reference }, keys: stack.keys })).json
    .transaction;
}

/** What the console's attention queue lists: pending purchases flagged for a person. */
async function flagged(stack: Stack): Promise<string[]> {
  return (await stack.core.store.transactions.listPending({ needsAttentionOnly: true }, { limit: 100 })).items.map(
    (tx) => tx.reference,
  );
}

/** Still pending with the charge held, re-queried for the token, and in the attention queue. */
async function heldForItsToken(stack: Stack, reference: string): Promise<void> {
  assert.is(await stack.core.recoverNow(), 0, 'the re-query finds no token: nothing becomes final');
  const tx = await transaction(stack, reference);
  assert.is(tx.status, 'pending', 'never success without the goods');
  assert.is(tx.token, null);
  assert.equal(await flagged(stack), [reference], "past the deadline it is in the console's queue");
  assert.equal(await entriesOf(stack, reference), ['debit'], 'the charge is held, never refunded');
}

/** The token arrived: success with it, once, out of the queue. */
async function deliveredWithIt(stack: Stack, reference: string, token: string): Promise<void> {
  assert.is(await stack.core.recoverNow(), 1);
  const tx = await transaction(stack, reference);
  assert.is(tx.status, 'success');
  assert.is(tx.token, token);
  assert.equal(await flagged(stack), []);
  assert.equal(await entriesOf(stack, reference), ['debit']);
  const attempts = await stack.core.store.supply.attemptsOf(reference);
  assert.equal(
    attempts.map((a) => a.outcome),
    ['delivered'],
    'the attempt is delivered once the goods are',
  );
  const audit = await stack.core.admin.checkLedger({});
  assert.is(audit.violationCount, 0n, 'prepaid ledger check finds nothing');
}

async function entriesOf(stack: Stack, reference: string): Promise<string[]> {
  return (await stack.core.store.wallet.ledgerOf(stack.keys.accountId, 'live', reference)).map((e) => e.kind);
}

const test = suite('a prepaid vend without its token is not a success');

test('VTpass: 000 delivered without a token is answered pending, then success with the requery that has it', async () => {
  const stack = await startStack('vtpass');
  try {
    stack.vtpass.script('1111111111111', { answer: 'delivered', shape: 'no_token' });
    const reply = await buyPower(stack, '1111111111111');
    assert.is(reply.status, 202, reply.text);
    assert.is(reply.json.status, 'pending');
    const reference = reply.json.reference as string;
    assert.equal(
      (await stack.core.store.supply.attemptsOf(reference)).map((a) => [a.outcome, a.evidence]),
      [['pending', 'the provider reports the prepaid vend as delivered without its token']],
      'the attempt says why it is pending',
    );
    await heldForItsToken(stack, reference);
    stack.vtpass.transactions.get(reference)!.shape = 'standard';
    const token = stack.vtpass.tokenDigits(reference).match(/\d{4}/g)!.join('-');
    await deliveredWithIt(stack, reference, token);
  } finally {
    await stack.close();
  }
});

test('ClubKonnect: ORDER_COMPLETED with an empty metertoken stays pending until the query shows it', async () => {
  const stack = await startStack('ck');
  try {
    stack.ck.script('04185663657', { answer: 'complete', tokenLate: true });
    const reply = await buyPower(stack, '04185663657');
    assert.is(reply.status, 202, reply.text);
    const reference = reply.json.reference as string;
    await heldForItsToken(stack, reference);
    stack.ck.giveToken(reference);
    await deliveredWithIt(stack, reference, SAMPLE_TOKEN);
  } finally {
    await stack.close();
  }
});

test('ported-number site: a successful bill payment with an empty token is pending until its record has it', async () => {
  const stack = await startStack('site');
  try {
    stack.site.script('43067784709', { answer: 'successful', tokenLate: true });
    const reply = await buyPower(stack, '43067784709');
    assert.is(reply.status, 202, reply.text);
    const reference = reply.json.reference as string;
    await heldForItsToken(stack, reference);
    stack.site.giveToken(stack.site.records.find((r) => r.kind === 'billpayment')!.id);
    await deliveredWithIt(stack, reference, SAMPLE_TOKEN);
  } finally {
    await stack.close();
  }
});

test('a postpaid payment has no token and settles at once', async () => {
  const stack = await startStack('site');
  try {
    const reply = await buyPower(stack, '43067784709', 'postpaid');
    assert.is(reply.status, 200, reply.text);
    assert.is(reply.json.status, 'success');
    assert.is(reply.json.token, null);
    const audit = await stack.core.admin.checkLedger({});
    assert.is(audit.violationCount, 0n, 'prepaid ledger check finds nothing');
  } finally {
    await stack.close();
  }
});

test.run();
