/**
 * Electricity answers kept whole, through a real gateway and core: a vend with two key-change
 * tokens (KCT) and a bonus token shows all of them in the purchase answer, the transaction,
 * the history page, the event and the receipt SMS; a meter whose disco tells a higher minimum
 * (or arrears) than the platform's is refused with a 422 naming that minimum, before anything
 * is paid. Against the fake VTpass (built from VTpass's documentation) and against the sandbox.
 */
import * as assert from 'uvu/assert';
import { eventually } from '../core/rpc/support.js';
import { assertLedgerInvariant, startCore, type TestCore } from '../helpers/core.js';
import { startVtpassStack, type VtpassStack } from '../helpers/fake-vtpass.js';
import { type ApiKeys, startTestGateway, type TestGateway } from '../helpers/gateway.js';
import { suite } from '../helpers/suite.js';

const test = suite<{ stack: VtpassStack; core: TestCore; gateway: TestGateway }>(
  'electricity: key-change and bonus tokens, per-meter minimum',
);

test.before(async (ctx) => {
  ctx.stack = await startVtpassStack({ providerTimeoutMs: 1_500 });
  ctx.core = await startCore();
  ctx.gateway = await startTestGateway(ctx.core);
});

test.after(async (ctx) => {
  await ctx.stack.close();
  await ctx.gateway.close();
  await ctx.core.close();
});

/** "1234 5678 ..." digits as the API shows a token. */
const shown = (digits: string) => digits.match(/\d{4}/g)!.join('-');

async function keysOn(core: TestCore): Promise<{ accountId: string; keys: ApiKeys }> {
  const { accountId, publicKey, secretKey } = await core.createApiAccount({ balanceKobo: 100_000_00 });
  return { accountId, keys: { publicKey, secretKey } };
}

test('a VTpass vend with two KCTs and a bonus token shows all of them everywhere the token is shown', async ({
  stack,
}) => {
  const { accountId, keys } = await keysOn(stack.core);
  stack.fake.script('1111111111111', { answer: 'delivered', shape: 'kct' });
  const power = await stack.gateway.request({
    query: { action: 'electricity' },
    keys,
    body: { disco: 'ikedc', meter_number: '1111111111111', meter_type: 'prepaid', amount: 5000, phone: '08031234567' },
  });
  assert.is(power.status, 200, power.text);
  const reference = power.json.reference as string;
  const token = shown(stack.fake.tokenDigits(reference));
  const kcts = [shown(stack.fake.tokenDigits(reference, 'kct1')), shown(stack.fake.tokenDigits(reference, 'kct2'))];
  const bonus = [shown(stack.fake.tokenDigits(reference, 'bonus'))];
  assert.is(power.json.token, token);
  assert.equal(power.json.kct_tokens, kcts, 'both KCTs, kct1 first');
  assert.equal(power.json.bonus_tokens, bonus, 'the bonus token once, though VTpass sent it twice');

  const one = await stack.gateway.request({ query: { action: 'transaction', reference }, keys });
  assert.is(one.status, 200, one.text);
  assert.equal(
    [one.json.transaction.token, one.json.transaction.kct_tokens, one.json.transaction.bonus_tokens],
    [token, kcts, bonus],
  );

  const page = await stack.gateway.request({ query: { action: 'transactions' }, keys });
  const row = (page.json.transactions as Record<string, unknown>[]).find((t) => t['reference'] === reference)!;
  assert.equal(
    [row['kct_tokens'], row['bonus_tokens']],
    [kcts, bonus],
    'the history page (written from the bytes) agrees',
  );

  const events = await stack.gateway.request({ query: { action: 'events' }, keys });
  const event = (events.json.events as { type: string; data: { transaction: Record<string, unknown> } }[]).find(
    (e) => e.data.transaction?.['reference'] === reference,
  )!;
  assert.is(event.type, 'transaction.success');
  assert.equal(
    [event.data.transaction['kct_tokens'], event.data.transaction['bonus_tokens']],
    [kcts, bonus],
    'the event carries them',
  );

  assert.ok(
    await eventually(() => stack.fake.sms.some((sms) => sms.message.includes(reference))),
    'a receipt was sent',
  );
  const receipt = stack.fake.sms.find((sms) => sms.message.includes(reference))!;
  assert.equal(receipt.recipients, ['08031234567']);
  const lines = receipt.message.split('\n');
  assert.ok(lines.includes(`KCT1: ${kcts[0]}`) && lines.includes(`KCT2: ${kcts[1]}`), receipt.message);
  assert.ok(lines.includes(`Token: ${token}`) && lines.includes(`Bonus token: ${bonus[0]}`), receipt.message);
  assert.ok(
    lines.indexOf(`KCT2: ${kcts[1]}`) < lines.indexOf(`Token: ${token}`),
    'the KCTs come before the token they unlock',
  );
  await assertLedgerInvariant(stack.core, accountId);
});

test('a vend without KCTs answers empty arrays; a postpaid payment too; other products null', async ({ stack }) => {
  const { keys } = await keysOn(stack.core);
  const prepaid = await stack.gateway.request({
    query: { action: 'electricity' },
    keys,
    body: { disco: 'ikedc', meter_number: '1111111111111', meter_type: 'prepaid', amount: 2000 },
  });
  assert.is(prepaid.status, 200, prepaid.text);
  assert.equal([prepaid.json.kct_tokens, prepaid.json.bonus_tokens], [[], []]);
  const postpaid = await stack.gateway.request({
    query: { action: 'electricity' },
    keys,
    body: { disco: 'ikedc', meter_number: '1010101010101', meter_type: 'postpaid', amount: 1000 },
  });
  assert.is(postpaid.status, 200, postpaid.text);
  assert.equal([postpaid.json.token, postpaid.json.kct_tokens, postpaid.json.bonus_tokens], [null, [], []]);
  const airtime = await stack.gateway.request({
    query: { action: 'airtime' },
    keys,
    body: { network: 'mtn', phone: '08011111111', amount: 100 },
  });
  const view = await stack.gateway.request({
    query: { action: 'transaction', reference: airtime.json.reference },
    keys,
  });
  assert.equal([view.json.transaction.kct_tokens, view.json.transaction.bonus_tokens], [null, null]);
});

test('a meter whose disco tells a higher minimum is refused with 422 naming it, and nothing is paid', async ({
  stack,
}) => {
  const { accountId, keys } = await keysOn(stack.core);
  stack.fake.customers.set('2222222222222', {
    Customer_Name: 'HIGH MINIMUM',
    Meter_Number: '2222222222222',
    Min_Purchase_Amount: '3,000.00',
    Customer_Arrears: '',
    Meter_Type: 'PREPAID',
    WrongBillersCode: false,
  });
  stack.fake.customers.set('3333333333333', {
    Customer_Name: 'OWES THE DISCO',
    Meter_Number: '3333333333333',
    Minimum_Amount: '1000',
    Customer_Arrears: '1,500.50',
    Meter_Type: 'PREPAID',
    WrongBillersCode: false,
  });
  const buy = (meter: string, amount: number) =>
    stack.gateway.request({
      query: { action: 'electricity' },
      keys,
      body: { disco: 'aedc', meter_number: meter, meter_type: 'prepaid', amount },
    });

  const low = await buy('2222222222222', 2500);
  assert.is(low.status, 422, low.text);
  assert.is(low.json.code, 'INVALID_PARAMETER');
  assert.match(low.json.message, /at least 3,000\.00 Naira for meter 2222222222222/);
  assert.equal(
    low.json.errors?.map((e: { field: string }) => e.field),
    ['amount'],
  );
  const owes = await buy('3333333333333', 2000);
  assert.is(owes.status, 422, owes.text);
  assert.match(owes.json.message, /at least 2,500\.50 Naira/);
  assert.match(owes.json.message, /1,500\.50 Naira of arrears/);
  assert.is(
    stack.fake.paysFor('2222222222222').length + stack.fake.paysFor('3333333333333').length,
    0,
    'nothing was sent to pay',
  );

  stack.fake.script('2222222222222', { answer: 'delivered' });
  const enough = await buy('2222222222222', 3000);
  assert.is(enough.status, 200, enough.text);
  const balance = await stack.gateway.request({ query: { action: 'balance' }, keys });
  assert.is(balance.json.balance, 100_000 - enough.json.charged, 'only the paid vend was debited');
  await assertLedgerInvariant(stack.core, accountId);
});

test('the sandbox: meters ending 6666 get two KCTs and a bonus token; meters ending 5555 need 2,500 Naira', async ({
  core,
  gateway,
}) => {
  const { keys } = await keysOn(core);
  const buy = (meter: string, amount: number) =>
    gateway.request({
      query: { action: 'electricity' },
      keys,
      body: { disco: 'kedco', meter_number: meter, meter_type: 'prepaid', amount },
    });
  const kct = await buy('45012346666', 5000);
  assert.is(kct.status, 200, kct.text);
  assert.is(kct.json.kct_tokens.length, 2);
  assert.is(kct.json.bonus_tokens.length, 1);
  const all = [kct.json.token, ...kct.json.kct_tokens, ...kct.json.bonus_tokens];
  for (const token of all) assert.match(token, /^\d{4}(-\d{4}){4}$/);
  assert.is(new Set(all).size, 4, 'four different tokens');
  const again = await gateway.request({ query: { action: 'transaction', reference: kct.json.reference }, keys });
  assert.equal(again.json.transaction.kct_tokens, kct.json.kct_tokens, 'the same tokens when read again');

  const plain = await buy('45012341234', 5000);
  assert.equal([plain.json.kct_tokens, plain.json.bonus_tokens], [[], []]);

  const low = await buy('45012345555', 2000);
  assert.is(low.status, 422, low.text);
  assert.match(low.json.message, /at least 2,500\.00 Naira for meter 45012345555/);
  const enough = await buy('45012345555', 2500);
  assert.is(enough.status, 200, enough.text);
});

test.run();
