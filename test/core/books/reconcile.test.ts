/**
 * The daily reconciliation of one upstream against fakes built from the upstreams'
 * documentation, over real HTTP on port 0: purchases are made through the adapters, the fakes
 * told to misbehave (a delivery answered as failed, a double charge, an overcharge, a wallet
 * moved outside any purchase), and the match finds each as its class with its amount, and the
 * balance chain the purchases where the drift began. The books are the port's in-memory
 * stand-in here: what our journal would hold for these purchases.
 */
import * as assert from 'uvu/assert';
import { createReconciler, type DayPurchase, type ReconcileBooks } from '../../../core/books/reconcile.js';
import { type Kobo, kobo } from '../../../core/domain/money.js';
import type { OurOutcome } from '../../../core/domain/reconcile.js';
import { newReference } from '../../../core/domain/reference.js';
import { createClubkonnectProviders } from '../../../core/providers/clubkonnect/index.js';
import type { ProductProvider, ProviderRequest } from '../../../core/providers/port.js';
import { createPortedNumberProviders } from '../../../core/providers/ported-number/index.js';
import { type Upstream, upstreamOf } from '../../../core/providers/supply.js';
import { createVtpassProviders } from '../../../core/providers/vtpass/index.js';
import { startFakeClubkonnect } from '../../helpers/fake-clubkonnect.js';
import { type FakePortedNumber, startFakePortedNumber } from '../../helpers/fake-ported-number.js';
import { type FakeVtpass, startFakeVtpass } from '../../helpers/fake-vtpass.js';
import { suite } from '../../helpers/suite.js';

interface Context {
  site: FakePortedNumber;
  vt: FakeVtpass;
}

const test = suite<Context>('reconciliation of one upstream');

test.before.each(async (ctx) => {
  ctx.site = await startFakePortedNumber();
  ctx.vt = await startFakeVtpass();
});

test.after.each(async (ctx) => {
  await Promise.all([ctx.site.close(), ctx.vt.close()]);
});

/** Our books for one upstream: an opening float, the purchases with what was booked for them. */
function books(openingKobo: number) {
  const purchases: DayPurchase[] = [];
  const port: ReconcileBooks = {
    dayPurchases: async () => purchases,
    expectedFloat: async (_upstream, at) =>
      kobo(
        purchases
          .filter((p) => p.at.getTime() < at.getTime() && p.outcome === 'success')
          .reduce((float, p) => float - (p.costKobo ?? 0), openingKobo),
      ),
    topUps: async () => [],
  };
  return { purchases, port };
}

/** Buys 100 naira of MTN airtime through the provider and books it as the adapter's answer says, at `costKobo`. */
async function buy(
  provider: ProductProvider,
  book: DayPurchase[],
  recipient: string,
  costKobo: number,
): Promise<{ reference: string; outcome: OurOutcome }> {
  const request: ProviderRequest = {
    reference: newReference(new Date()),
    product: 'airtime',
    service: 'mtn',
    recipient,
    faceValueKobo: kobo(10_000),
    details: {},
  };
  const answer = await provider.purchase(request, AbortSignal.timeout(5_000));
  const outcome: OurOutcome = answer.kind === 'delivered' ? 'success' : answer.kind === 'failed' ? 'failed' : 'pending';
  const id = answer.kind === 'delivered' ? answer.result.providerReference : undefined;
  book.push({
    request: { ...request, ...(id === undefined ? {} : { upstreamReference: id }) },
    at: new Date(Date.now() + book.length),
    outcome,
    ...(outcome === 'success' ? { costKobo: kobo(costKobo) as Kobo } : {}),
  });
  return { reference: request.reference, outcome };
}

const today = () => new Date(Date.now() + 3_600_000).toISOString().slice(0, 10);
const site = (fake: FakePortedNumber) =>
  createPortedNumberProviders({
    name: 'datahub',
    baseUrl: fake.baseUrl,
    token: fake.token,
    planCode: async () => null,
  });
const upstreams = (upstream: Upstream) => new Map([[upstream.name, upstream]]);

test('each misbehaviour of the site is its class with its amount, and the chain breaks at the first', async (ctx) => {
  ctx.site.balance = 10_000;
  const pn = site(ctx.site);
  const { purchases, port } = books(1_000_000);
  // The catalogue's cost of 100 naira of airtime at the site: 97 naira.
  const fine = await buy(pn.airtime, purchases, '08134567890', 9_700);
  ctx.site.script('08134567891', { answer: 'successful', lie: true });
  const lied = await buy(pn.airtime, purchases, '08134567891', 9_700);
  ctx.site.script('08134567892', { answer: 'successful', twice: true });
  const twice = await buy(pn.airtime, purchases, '08134567892', 9_700);
  ctx.site.script('08134567893', { answer: 'successful', overchargeNaira: 2 });
  const over = await buy(pn.airtime, purchases, '08134567893', 9_700);
  assert.is(lied.outcome, 'failed', 'the site answered failed, so we refunded it');

  const reconciler = createReconciler({
    books: port,
    upstreams: upstreams(upstreamOf('datahub', 'ported-number', { airtime: pn.airtime }, { balance: pn.balance })),
    clock: () => new Date(Date.now() + 60_000),
  });
  const result = await reconciler.reconcile('datahub', today());
  assert.is(result.purchases, 4);
  assert.equal(
    result.mismatches.map((m) => [m.reference, m.class, m.atStakeKobo]),
    [
      [lied.reference, 'failed_here_delivered_there', -9_700],
      [twice.reference, 'charged_twice_there', -9_700],
      [over.reference, 'cost_differs', -200],
    ],
  );
  assert.not.ok(result.mismatches.some((m) => m.reference === fine.reference));
  const evidence = result.mismatches[0]!.evidence ?? '';
  assert.match(evidence, /"Status": "successful"/, "the site's own record is the evidence");
  assert.not.match(evidence, new RegExp(ctx.site.token), 'no credential in it');
  assert.is(result.mismatches[1]!.there.charges, 2);
  assert.is(result.mismatches[2]!.theirChargedKobo, 9_900);

  const { chain } = result;
  assert.is(chain.lastAgreeing?.source, 'before');
  assert.is(chain.lastAgreeing?.reference, lied.reference);
  assert.is(chain.firstDisagreeing?.source, 'after');
  assert.equal(
    chain.between.map((m) => m.reference),
    [lied.reference],
  );
  assert.is(chain.firstDisagreeing?.driftKobo, -9_700);
  // The second charge lands between the double-charged purchase and the next one; the overcharge on its own purchase.
  assert.equal(
    chain.steps.map((s) => [s.changeKobo, s.between.map((m) => m.reference)]),
    [
      [-9_700, [lied.reference]],
      [-9_700, []],
      [-200, [over.reference]],
    ],
  );
  assert.is(chain.driftKobo, -19_600);
  assert.equal(result.current && 'driftKobo' in result.current ? result.current.driftKobo : undefined, -19_600);
  assert.is(ctx.site.records.length, 5, 'nothing was bought or changed at the site by the reconciliation');
});

test('money taken at the site between two purchases: the chain shows no purchase of ours between', async (ctx) => {
  ctx.site.balance = 10_000;
  const pn = site(ctx.site);
  const { purchases, port } = books(1_000_000);
  const first = await buy(pn.airtime, purchases, '08134567890', 9_700);
  ctx.site.skewBalance(-25);
  const second = await buy(pn.airtime, purchases, '08134567890', 9_700);
  const result = await createReconciler({
    books: port,
    upstreams: upstreams(upstreamOf('datahub', 'ported-number', { airtime: pn.airtime })),
    clock: () => new Date(),
  }).reconcile('datahub', today());
  assert.equal(result.mismatches, [], 'each purchase agrees on its own');
  assert.is(result.chain.lastAgreeing?.reference, first.reference);
  assert.is(result.chain.firstDisagreeing?.reference, second.reference);
  assert.is(result.chain.firstDisagreeing?.source, 'before');
  assert.equal(result.chain.between, []);
  assert.is(result.chain.driftKobo, -2_500);
  assert.is(result.current, undefined, 'no balance call given');
});

test('VTpass: a pay answered failed yet delivered, and the drift of its balance now', async (ctx) => {
  const vtpass = createVtpassProviders(
    {
      baseUrl: ctx.vt.baseUrl,
      apiKey: ctx.vt.apiKey,
      publicKey: ctx.vt.publicKey,
      secretKey: ctx.vt.secretKey,
      fallbackPhone: '08011111111',
    },
    { getPlan: async () => null, getCablePackage: async () => null },
  );
  const { purchases, port } = books(5_000_000);
  await buy(vtpass.airtime, purchases, '08011111111', 9_700);
  ctx.vt.script('08011111111', { answer: 'delivered', lie: true });
  const lied = await buy(vtpass.airtime, purchases, '08011111111', 9_700);
  const result = await createReconciler({
    books: port,
    upstreams: upstreams(upstreamOf('vtpass', 'vtpass', { airtime: vtpass.airtime }, { balance: vtpass.balance })),
    clock: () => new Date(Date.now() + 60_000),
  }).reconcile('vtpass', today());
  assert.equal(
    result.mismatches.map((m) => [m.reference, m.class, m.atStakeKobo]),
    [[lied.reference, 'failed_here_delivered_there', -9_700]],
  );
  assert.equal(result.chain.checkpoints, [], 'VTpass tells no balance beside a purchase');
  assert.equal(result.current && 'driftKobo' in result.current ? result.current.driftKobo : undefined, -9_700);
});

test('ClubKonnect: the walletbalance after each order chains to the order that was overcharged', async () => {
  const fake = await startFakeClubkonnect();
  try {
    fake.balance = '3651.449';
    const ck = createClubkonnectProviders({
      name: 'ck',
      baseUrl: fake.baseUrl,
      userId: fake.userId,
      apiKey: fake.apiKey,
      planCode: async () => null,
    });
    // 365144 kobo: the balance call's "3651.449", rounded down as it reads it.
    const { purchases, port } = books(365_144);
    await buy(ck.airtime, purchases, '08030000001', 9_650);
    fake.script('08030000002', { answer: 'complete', overchargeNaira: 1 });
    const over = await buy(ck.airtime, purchases, '08030000002', 9_650);
    await buy(ck.airtime, purchases, '08030000003', 9_650);
    // ClubKonnect answers ORDER_RECEIVED: the purchases are pending until its query says completed.
    for (const p of purchases) (p as { outcome: OurOutcome }).outcome = 'success';
    for (const p of purchases) (p as { costKobo?: Kobo }).costKobo = kobo(9_650);
    const result = await createReconciler({
      books: port,
      upstreams: upstreams(upstreamOf('ck', 'clubkonnect', { airtime: ck.airtime }, { balance: ck.balance })),
      clock: () => new Date(Date.now() + 60_000),
    }).reconcile('ck', today());
    assert.equal(
      result.mismatches.map((m) => [m.reference, m.class, m.atStakeKobo]),
      [[over.reference, 'cost_differs', -100]],
    );
    assert.equal(
      result.chain.between.map((m) => m.reference),
      [over.reference],
    );
    assert.is(result.chain.driftKobo, -100);
    assert.equal(result.current && 'driftKobo' in result.current ? result.current.driftKobo : undefined, -100);
  } finally {
    await fake.close();
  }
});

test('an unknown upstream or a bad day is refused before anything is asked', async () => {
  const reconciler = createReconciler({ books: books(0).port, upstreams: new Map(), clock: () => new Date() });
  await reconciler.reconcile('nobody', '2026-12-01').then(
    () => assert.unreachable(),
    (error: Error) => assert.match(error.message, /no upstream named nobody/),
  );
});

test.run();
