/**
 * The ClubKonnect adapter against the fake ClubKonnect over real HTTP: what a purchase sends,
 * ORDER_RECEIVED read as pending and settled by a query on our RequestID, refusals, a
 * cancellation, an HTML page, a time-out, the balance and the plan list, and the failover
 * evidence each call reports.
 */
import * as assert from 'uvu/assert';
import { kobo } from '../../../core/domain/money.js';
import type { PurchaseDetails } from '../../../core/domain/products.js';
import { newReference } from '../../../core/domain/reference.js';
import { type ClubkonnectProviders, createClubkonnectProviders } from '../../../core/providers/clubkonnect/index.js';
import { FAILOVER_RULES } from '../../../core/providers/failover-rules.js';
import type { ProviderOutcome, ProviderRequest } from '../../../core/providers/port.js';
import { type FakeClubkonnect, startFakeClubkonnect } from '../../helpers/fake-clubkonnect.js';
import { suite } from '../../helpers/suite.js';

const test = suite<{ fake: FakeClubkonnect; ck: ClubkonnectProviders; logged: string[] }>('ClubKonnect adapter');

const PLAN_CODES = new Map([[7, '500.01']]);

test.before(async (ctx) => {
  ctx.fake = await startFakeClubkonnect();
  ctx.logged = [];
  ctx.ck = createClubkonnectProviders({
    name: 'ck',
    baseUrl: ctx.fake.baseUrl,
    userId: ctx.fake.userId,
    apiKey: ctx.fake.apiKey,
    planCode: async (planId) => PLAN_CODES.get(planId) ?? null,
    log: (event, fields) => ctx.logged.push(JSON.stringify({ event, ...fields })),
  });
});

test.after(async (ctx) => {
  await ctx.fake.close();
});

const signal = () => AbortSignal.timeout(3_000);
const request = (
  recipient: string,
  faceValueKobo = 10_000,
  product: 'airtime' | 'data' = 'airtime',
  details: PurchaseDetails = {},
): ProviderRequest => ({
  reference: newReference(new Date()),
  product,
  service: 'mtn',
  recipient,
  faceValueKobo: kobo(faceValueKobo),
  details,
});
const proven = (outcome: ProviderOutcome) =>
  outcome.kind === 'failed' || outcome.kind === 'unknown'
    ? outcome.evidence === undefined
      ? undefined
      : FAILOVER_RULES.clubkonnect(outcome.evidence)
    : undefined;

test('a purchase is ORDER_RECEIVED (pending, not proven) and the query on our RequestID delivers it', async ({
  fake,
  ck,
}) => {
  const req = request('08149659347');
  const bought = await ck.airtime.purchase(req, signal());
  assert.is(bought.kind, 'unknown', 'ORDER_RECEIVED is not success');
  assert.is(proven(bought), false);
  const sent = fake.calls.at(-1)!;
  assert.is(sent.script, 'APIAirtimeV1.asp');
  assert.equal(
    { ...sent.params },
    {
      UserID: fake.userId,
      APIKey: fake.apiKey,
      MobileNetwork: '01',
      Amount: '100',
      MobileNumber: '08149659347',
      RequestID: req.reference,
    },
  );
  const queried = await ck.airtime.query(req, signal());
  assert.is(queried.kind, 'delivered');
  assert.is(
    queried.kind === 'delivered' ? queried.result.providerReference : '',
    [...fake.orders.values()].at(-1)!.orderId,
  );
  assert.equal(
    { ...fake.calls.at(-1)!.params, UserID: '', APIKey: '' },
    { UserID: '', APIKey: '', RequestID: req.reference },
  );
});

test('pending stays unknown through 300, 201 and 6xx, then 200 delivers; a cancellation fails', async ({
  fake,
  ck,
}) => {
  for (const code of ['300', '201', '600'] as const) {
    fake.script('08030000300', { answer: 'pending', code });
    const req = request('08030000300');
    await ck.airtime.purchase(req, signal());
    assert.is((await ck.airtime.query(req, signal())).kind, 'unknown', `${code} is not final`);
    fake.settle(req.reference, '200');
    assert.is((await ck.airtime.query(req, signal())).kind, 'delivered');
  }
  fake.script('08030000506', { answer: 'cancel' });
  const req = request('08030000506');
  await ck.airtime.purchase(req, signal());
  const cancelled = await ck.airtime.query(req, signal());
  assert.is(cancelled.kind, 'failed', '506 ORDER_CANCELLED: not delivered');
});

test('ORDER_ERROR refusals fail and prove non-delivery; on a query they prove nothing', async ({ fake, ck }) => {
  fake.script('08030000412', { answer: 'error', code: '412', status: 'INSUFFICIENT_APIAMOUNT' });
  const low = await ck.airtime.purchase(request('08030000412'), signal());
  assert.is(low.kind, 'failed');
  assert.is(proven(low), true, 'our ClubKonnect wallet ran empty: the next upstream may take it');
  const small = await ck.airtime.purchase(request('08030000001', 5_000), signal());
  assert.is(small.kind, 'failed', 'MINIMUM_100');
  assert.match(small.kind === 'failed' ? small.reason : '', /407 MINIMUM_100/);
  // A wrong key: the error name comes without a statuscode.
  const wrong = createClubkonnectProviders({
    name: 'ck',
    baseUrl: fake.baseUrl,
    userId: fake.userId,
    apiKey: 'WRONG-SECRET',
    planCode: async () => null,
  });
  const refused = await wrong.airtime.purchase(request('08030000002'), signal());
  assert.is(refused.kind, 'failed');
  assert.is(proven(refused), true);
  assert.not.match(JSON.stringify(refused), /WRONG-SECRET/);
  const query = await wrong.airtime.query(request('08030000002'), signal());
  assert.is(query.kind, 'unknown', 'INVALID_CREDENTIALS on a query says nothing about the order');
});

test('an HTML page, an unknown order and a time-out are unknown and prove nothing', async ({ fake, ck }) => {
  fake.script('08030000403', { answer: 'html' });
  const html = await ck.airtime.purchase(request('08030000403'), signal());
  assert.is(html.kind, 'unknown');
  assert.is(proven(html), false);
  assert.is((await ck.airtime.query(request('08030000404'), signal())).kind, 'unknown', 'an order it never took');
  fake.script('08030000777', { answer: 'hang' });
  const hung = await ck.airtime.purchase(request('08030000777'), AbortSignal.timeout(300));
  assert.is(hung.kind, 'unknown');
  assert.equal(hung.kind === 'unknown' ? hung.evidence : null, { kind: 'no_answer', cause: 'timeout' });
  assert.is(proven(hung), false);
  assert.not.match(JSON.stringify(hung), new RegExp(fake.apiKey));
});

test('data sends the plan code ClubKonnect sells; a plan it does not sell is refused unsent', async ({ fake, ck }) => {
  const req = request('08030000020', 39_000, 'data', { planId: 7 });
  assert.is((await ck.data.purchase(req, signal())).kind, 'unknown');
  const sent = fake.calls.at(-1)!;
  assert.is(sent.script, 'APIDatabundleV1.asp');
  assert.is(sent.params['DataPlan'], '500.01');
  assert.is(sent.params['RequestID'], req.reference);
  const before = fake.calls.length;
  const unsold = await ck.data.purchase(request('08030000021', 39_000, 'data', { planId: 99 }), signal());
  assert.is(unsold.kind, 'failed');
  assert.is(fake.calls.length, before, 'nothing sent');
});

test('balance and plan list', async ({ fake, ck }) => {
  fake.balance = '3651.449';
  assert.is(await ck.balance(signal()), 365_144, '3651.449 naira, rounded down to kobo');
  fake.balance = '<b>';
  await ck.balance(signal()).then(
    () => assert.unreachable('a balance that is not an amount is refused'),
    (error: Error) => assert.match(error.message, /no balance/),
  );
  assert.equal(await ck.data.listPlans!('mtn', signal()), [
    { code: '500.01', name: '500 MB - 30 days (SME)', amountKobo: 39_000 },
    { code: '1000.01', name: '1 GB - 30 days (SME)', amountKobo: 78_050 },
  ]);
  assert.equal(await ck.data.listPlans!('airtel', signal()), []);
});

test('logs carry codes, never the key', ({ fake, logged }) => {
  assert.ok(logged.length > 5);
  for (const line of logged) assert.not.ok(line.includes(fake.apiKey), line);
  assert.ok(logged.some((line) => line.includes('"code":"412"')));
});

test.run();
