/**
 * The ported-number family adapter against a fake site over real HTTP: what a purchase
 * sends, Status successful/processing/failed, refusals (400, 401), an HTML 500 page, a
 * time-out, the re-query through the history list by our echoed reference, the balance and
 * the plan list, and the failover evidence each purchase reports.
 */
import * as assert from 'uvu/assert';
import { kobo } from '../../../core/domain/money.js';
import type { PurchaseDetails } from '../../../core/domain/products.js';
import { newReference } from '../../../core/domain/reference.js';
import { FAILOVER_RULES } from '../../../core/providers/failover-rules.js';
import type { ProviderOutcome, ProviderRequest } from '../../../core/providers/port.js';
import {
  createPortedNumberProviders,
  type PortedNumberProviders,
} from '../../../core/providers/ported-number/index.js';
import { type FakePortedNumber, startFakePortedNumber } from '../../helpers/fake-ported-number.js';
import { suite } from '../../helpers/suite.js';

const test = suite<{ fake: FakePortedNumber; site: PortedNumberProviders; logged: string[] }>('ported-number adapter');

const PLAN_CODES = new Map([
  [7, '353'],
  [8, '999'],
]);

test.before(async (ctx) => {
  ctx.fake = await startFakePortedNumber();
  ctx.logged = [];
  ctx.site = createPortedNumberProviders({
    name: 'datahub',
    baseUrl: ctx.fake.baseUrl,
    token: ctx.fake.token,
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
      : FAILOVER_RULES['ported-number'](outcome.evidence)
    : undefined;

test('airtime: sends the family body with the token, and successful is delivered', async ({ fake, site }) => {
  const req = request('08134567890');
  const bought = await site.airtime.purchase(req, signal());
  assert.is(bought.kind, 'delivered');
  assert.is(bought.kind === 'delivered' ? bought.result.providerReference : '', String(fake.records.at(-1)!.id));
  const sent = fake.calls.at(-1)!;
  assert.is(sent.path, '/api/topup/');
  assert.is(sent.headers.authorization, `Token ${fake.token}`);
  assert.equal(sent.body, {
    network: 1,
    amount: 100,
    mobile_number: '08134567890',
    airtime_type: 'VTU',
    Ported_number: true,
    ident: req.reference,
  });
});

test('data: processing is unknown and not proven; the history re-query follows it to successful or failed', async ({
  fake,
  site,
}) => {
  fake.script('08030000301', { answer: 'processing' });
  const req = request('08030000301', 23_900, 'data', { planId: 7 });
  const bought = await site.data.purchase(req, signal());
  assert.is(bought.kind, 'unknown');
  assert.is(proven(bought), false);
  assert.equal(fake.calls.at(-1)!.body?.['plan'], 353);
  assert.is((await site.data.query(req, signal())).kind, 'unknown', 'still processing');
  fake.settle(fake.records.at(-1)!.id, 'successful');
  assert.is((await site.data.query(req, signal())).kind, 'delivered');
  fake.script('08030000302', { answer: 'processing' });
  const other = request('08030000302', 23_900, 'data', { planId: 7 });
  await site.data.purchase(other, signal());
  fake.settle(fake.records.at(-1)!.id, 'failed');
  assert.is((await site.data.query(other, signal())).kind, 'failed');
  assert.is(
    (await site.data.query(request('08030000303', 23_900, 'data', { planId: 7 }), signal())).kind,
    'unknown',
    'never seen: unknown, not failed',
  );
});

test('refusals before purchase fail and prove non-delivery; Status failed too', async ({ fake, site }) => {
  const unknownPlan = await site.data.purchase(request('08030000400', 1_000, 'data', { planId: 8 }), signal());
  assert.is(unknownPlan.kind, 'failed', 'HTTP 400 {"plan":[...]}');
  assert.is(proven(unknownPlan), true);
  const saved = fake.balance;
  fake.balance = 10;
  const short = await site.airtime.purchase(request('08030000401'), signal());
  fake.balance = saved;
  assert.is(short.kind, 'failed', 'insufficient balance at the site');
  assert.is(proven(short), true);
  const wrong = createPortedNumberProviders({
    name: 'datahub',
    baseUrl: fake.baseUrl,
    token: 'not-the-token',
    planCode: async () => null,
  });
  const denied = await wrong.airtime.purchase(request('08030000402'), signal());
  assert.is(denied.kind, 'failed', 'HTTP 401');
  assert.is(proven(denied), true);
  assert.not.match(JSON.stringify(denied), /not-the-token/);
  fake.script('08030000403', { answer: 'failed' });
  const failed = await site.airtime.purchase(request('08030000403'), signal());
  assert.is(failed.kind, 'failed');
  assert.is(proven(failed), true);
});

test('an HTML 500 page and a time-out are unknown and prove nothing, though the site took both', async ({
  fake,
  site,
}) => {
  fake.script('08030000500', { answer: 'html500' });
  const before = fake.records.length;
  const page = await site.airtime.purchase(request('08030000500'), signal());
  assert.is(page.kind, 'unknown');
  assert.is(proven(page), false);
  fake.script('08030000777', { answer: 'hang' });
  const hungReq = request('08030000777');
  const hung = await site.airtime.purchase(hungReq, AbortSignal.timeout(300));
  assert.is(hung.kind, 'unknown');
  assert.equal(hung.kind === 'unknown' ? hung.evidence : null, { kind: 'no_answer', cause: 'timeout' });
  assert.is(fake.records.length, before + 2, 'both purchases exist at the site: failing over would buy twice');
  fake.settle(fake.records.at(-1)!.id, 'successful');
  assert.is((await site.airtime.query(hungReq, signal())).kind, 'delivered', 'found by our reference in the history');
});

test('re-query by the site id a processing answer gave: found however many sales came after', async ({
  fake,
  site,
}) => {
  fake.script('08030000601', { answer: 'processing' });
  const req = request('08030000601', 23_900, 'data', { planId: 7 });
  const bought = await site.data.purchase(req, signal());
  const id = String(fake.records.at(-1)!.id);
  assert.equal(bought.kind === 'unknown' ? bought.upstreamReference : null, id, 'the site id travels with unknown');
  fake.otherSales('data', 120);
  fake.settle(Number(id), 'successful');
  const before = fake.calls.length;
  const found = await site.data.query({ ...req, upstreamReference: id }, signal());
  assert.is(found.kind, 'delivered');
  assert.equal(
    fake.calls.slice(before).map((c) => `${c.method} ${c.path}`),
    [`GET /api/data/${id}`],
    'one read of the record by its id, no history',
  );
  const gone = await site.data.query({ ...req, upstreamReference: '99999999' }, signal());
  assert.is(gone.kind, 'unknown', 'a 404 by id is never a failure');
});

test('a lost answer has no site id: the history is followed page by page (50 a page) until found', async ({
  fake,
  site,
}) => {
  fake.script('08030000602', { answer: 'hang' });
  const req = request('08030000602');
  assert.is((await site.airtime.purchase(req, AbortSignal.timeout(300))).kind, 'unknown');
  const record = fake.records.at(-1)!;
  fake.otherSales('topup', 60);
  fake.settle(record.id, 'successful');
  const before = fake.calls.length;
  const found = await site.airtime.query(req, signal());
  assert.is(found.kind, 'delivered', 'on the second page');
  assert.equal(found.kind === 'delivered' ? found.result.providerReference : null, String(record.id));
  const pages = fake.calls.slice(before).map((c) => c.path);
  assert.equal(pages, ['/api/topup/', '/api/topup/'], 'two pages read, then it stops');
});

test('the history walk stops when the list has passed our purchase, and at its end', async ({ fake, site }) => {
  fake.otherSales('topup', 120);
  const total = fake.records.filter((r) => r.kind === 'topup').length;
  const never = request('08030000603');
  let before = fake.calls.length;
  assert.is((await site.airtime.query(never, signal())).kind, 'unknown', 'never seen: unknown, not failed');
  assert.is(fake.calls.length - before, Math.ceil(total / 50), 'every page once, to the last');
  // A purchase made three days after every record at the site: the first page is already older.
  const later = { ...never, reference: newReference(new Date(Date.now() + 3 * 86_400_000)) };
  before = fake.calls.length;
  assert.is((await site.airtime.query(later, signal())).kind, 'unknown');
  assert.is(fake.calls.length - before, 1, 'one page: the list had passed it');
});

test('balance and plan list from /api/user/', async ({ fake, site }) => {
  fake.balance = 20176.49999999992;
  assert.is(await site.balance(signal()), 2_017_650, 'a number with float noise is read as 20176.50 naira');
  assert.equal(await site.data.listPlans!('mtn', signal()), [
    { code: '292', name: '50.0MB CORPORATE GIFTING - 30 days', amountKobo: 1_800 },
    { code: '353', name: '1.0GB SME - 30 days', amountKobo: 23_900 },
  ]);
  assert.equal(await site.data.listPlans!('airtel', signal()), []);
});

test('logs never carry the token', ({ fake, logged }) => {
  assert.ok(logged.length > 5);
  for (const line of logged) assert.not.ok(line.includes(fake.token), line);
});

test.run();
