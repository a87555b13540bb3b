/**
 * What each upstream adapter tells about our wallet there for the daily match
 * (docs/reconciliation.md), against the fakes over real HTTP: the charge and the balances a
 * re-query carries, the balance call, and the fakes' reconciliation knobs (a wallet that drifts,
 * a purchase delivered but answered as failed, a double charge, an overcharge), each read back
 * as the fake states it.
 */
import * as assert from 'uvu/assert';
import { kobo } from '../../../core/domain/money.js';
import { newReference } from '../../../core/domain/reference.js';
import { type ClubkonnectProviders, createClubkonnectProviders } from '../../../core/providers/clubkonnect/index.js';
import type { ProviderOutcome, ProviderRequest } from '../../../core/providers/port.js';
import {
  createPortedNumberProviders,
  type PortedNumberProviders,
} from '../../../core/providers/ported-number/index.js';
import { createVtpassProviders, type VtpassProviders } from '../../../core/providers/vtpass/index.js';
import { type FakeClubkonnect, startFakeClubkonnect } from '../../helpers/fake-clubkonnect.js';
import { type FakePortedNumber, startFakePortedNumber } from '../../helpers/fake-ported-number.js';
import { type FakeVtpass, startFakeVtpass } from '../../helpers/fake-vtpass.js';
import { suite } from '../../helpers/suite.js';

interface Context {
  vt: FakeVtpass;
  vtpass: VtpassProviders;
  ckFake: FakeClubkonnect;
  ck: ClubkonnectProviders;
  pnFake: FakePortedNumber;
  pn: PortedNumberProviders;
}

const test = suite<Context>('what the upstreams tell about our wallet there');

test.before(async (ctx) => {
  ctx.vt = await startFakeVtpass();
  ctx.vtpass = createVtpassProviders(
    {
      baseUrl: ctx.vt.baseUrl,
      apiKey: ctx.vt.apiKey,
      publicKey: ctx.vt.publicKey,
      secretKey: ctx.vt.secretKey,
      fallbackPhone: '08011111111',
    },
    { getPlan: async () => null, getCablePackage: async () => null },
  );
  ctx.ckFake = await startFakeClubkonnect();
  ctx.ck = createClubkonnectProviders({
    name: 'ck',
    baseUrl: ctx.ckFake.baseUrl,
    userId: ctx.ckFake.userId,
    apiKey: ctx.ckFake.apiKey,
    planCode: async () => null,
  });
  ctx.pnFake = await startFakePortedNumber();
  ctx.pn = createPortedNumberProviders({
    name: 'datahub',
    baseUrl: ctx.pnFake.baseUrl,
    token: ctx.pnFake.token,
    planCode: async () => null,
  });
});

test.after(async (ctx) => {
  await Promise.all([ctx.vt.close(), ctx.ckFake.close(), ctx.pnFake.close()]);
});

const signal = () => AbortSignal.timeout(5_000);
const airtime = (recipient: string, faceValueKobo = 10_000): ProviderRequest => ({
  reference: newReference(new Date()),
  product: 'airtime',
  service: 'mtn',
  recipient,
  faceValueKobo: kobo(faceValueKobo),
  details: {},
});
const charge = (outcome: ProviderOutcome) => outcome.upstreamCharge;

test('VTpass: the balance call, moved by each charge and by a skew; a re-query carries total_amount', async ({
  vt,
  vtpass,
}) => {
  assert.is(await vtpass.balance(signal()), 5_000_000);
  const req = airtime('08011111111');
  assert.is((await vtpass.airtime.purchase(req, signal())).kind, 'delivered');
  assert.is(await vtpass.balance(signal()), 5_000_000 - 9_700, '100 naira less the 3% commission');
  const again = await vtpass.airtime.query(req, signal());
  assert.equal(charge(again), { chargedKobo: 9_700 }, 'no balance in a VTpass answer');
  vt.skewBalance(-12.5);
  assert.is(await vtpass.balance(signal()), 5_000_000 - 9_700 - 1_250);
  const balanceCall = vt.calls.at(-1)!;
  assert.is(balanceCall.path, '/api/balance');
  assert.is(balanceCall.headers['public-key'], vt.publicKey, 'a GET with the public key');
});

test('VTpass: a balance written as text, or the code "000", is no reading', async ({ vt, vtpass }) => {
  const real = vt.balance;
  (vt as { balance: unknown }).balance = '49903.00';
  await vtpass.balance(signal()).then(
    () => assert.unreachable('text is not the documented number'),
    (error: Error) => assert.match(error.message, /no balance/),
  );
  vt.balance = real;
});

test('VTpass: an overcharge and a pay answered failed although delivered, as the re-query tells them', async ({
  vt,
  vtpass,
}) => {
  vt.script('08011111111', { answer: 'delivered', overchargeNaira: 5 });
  const over = airtime('08011111111');
  assert.equal(charge(await vtpass.airtime.purchase(over, signal())), { chargedKobo: 10_200 });
  vt.script('08011111111', { answer: 'delivered', lie: true });
  const lied = airtime('08011111111');
  const before = vt.balance;
  assert.is((await vtpass.airtime.purchase(lied, signal())).kind, 'failed', 'the pay answer says 016');
  assert.is(vt.balance, before - 97, 'yet the wallet paid');
  const requeried = await vtpass.airtime.query(lied, signal());
  assert.is(requeried.kind, 'delivered');
  assert.equal(charge(requeried), { chargedKobo: 9_700 });
  const unknown = await vtpass.airtime.query(airtime('08011111111'), signal());
  assert.is(unknown.kind === 'unknown' && unknown.noRecord, true, '015 within its grace: no record yet');
});

test('ClubKonnect: a completed order carries amountcharged and the walletbalance right after it', async ({
  ckFake,
  ck,
}) => {
  ckFake.balance = '3651.449';
  const first = airtime('08030000001');
  const second = airtime('08030000002');
  await ck.airtime.purchase(first, signal());
  await ck.airtime.purchase(second, signal());
  assert.equal(charge(await ck.airtime.query(first, signal())), { chargedKobo: 9_650, balanceAfterKobo: 355_494 });
  assert.equal(charge(await ck.airtime.query(second, signal())), { chargedKobo: 9_650, balanceAfterKobo: 345_844 });
  assert.is(await ck.balance(signal()), 345_844, 'the balance call agrees with the last order');
  ckFake.skewBalance(-100);
  assert.is(await ck.balance(signal()), 335_844);
});

test('ClubKonnect: an overcharge, and an order refused on its answer that completes anyway', async ({ ckFake, ck }) => {
  ckFake.script('08030000003', { answer: 'complete', overchargeNaira: 3.5 });
  const over = airtime('08030000003');
  await ck.airtime.purchase(over, signal());
  assert.is(charge(await ck.airtime.query(over, signal()))?.chargedKobo, 10_000);
  ckFake.script('08030000004', { answer: 'complete', lie: { code: '499', status: 'ORDER_ERROR' } });
  const lied = airtime('08030000004');
  assert.is((await ck.airtime.purchase(lied, signal())).kind, 'failed');
  const requeried = await ck.airtime.query(lied, signal());
  assert.is(requeried.kind, 'delivered');
  assert.is(charge(requeried)?.chargedKobo, 9_650);
});

test('ported-number: a record carries its cost and the balances around it; a skew shows in /api/user/', async ({
  pnFake,
  pn,
}) => {
  pnFake.balance = 10_000;
  const req = airtime('08134567890');
  const bought = await pn.airtime.purchase(req, signal());
  assert.equal(charge(bought), { chargedKobo: 9_700, balanceBeforeKobo: 1_000_000, balanceAfterKobo: 990_300 });
  const id = bought.kind === 'delivered' ? bought.result.providerReference : undefined;
  const byId = await pn.airtime.query({ ...req, ...(id === undefined ? {} : { upstreamReference: id }) }, signal());
  assert.equal(charge(byId), charge(bought));
  pnFake.skewBalance(-0.5);
  assert.is(await pn.balance(signal()), 990_250);
});

test('ported-number: a double charge shows as two entries under our ident, counted when asked for every charge', async ({
  pnFake,
  pn,
}) => {
  pnFake.balance = 10_000;
  pnFake.script('08134567891', { answer: 'successful', twice: true });
  const req = airtime('08134567891');
  const bought = await pn.airtime.purchase(req, signal());
  assert.is(pnFake.balance, 10_000 - 2 * 97, 'the wallet moved twice');
  const id = bought.kind === 'delivered' ? bought.result.providerReference : '';
  const counted = await pn.airtime.query({ ...req, upstreamReference: id, everyCharge: true }, signal());
  assert.is(counted.kind, 'delivered');
  assert.is(charge(counted)?.charges, 2);
  assert.is(charge(counted)?.chargedKobo, 9_700);
  const plain = await pn.airtime.query({ ...req, upstreamReference: id }, signal());
  assert.is(charge(plain)?.charges, undefined, 'by id alone the site cannot tell');
  const single = airtime('08134567892');
  await pn.airtime.purchase(single, signal());
  assert.is(charge(await pn.airtime.query({ ...single, everyCharge: true }, signal()))?.charges, 1);
});

test('ported-number: answered failed although delivered; an overcharge; no record at all', async ({ pnFake, pn }) => {
  pnFake.balance = 10_000;
  pnFake.script('08134567893', { answer: 'successful', lie: true });
  const lied = airtime('08134567893');
  const answered = await pn.airtime.purchase(lied, signal());
  assert.is(answered.kind, 'failed');
  assert.is(pnFake.balance, 10_000 - 97, 'the site charged it');
  const requeried = await pn.airtime.query(lied, signal());
  assert.is(requeried.kind, 'delivered', 'the history says successful');
  assert.is(charge(requeried)?.chargedKobo, 9_700);
  pnFake.script('08134567894', { answer: 'successful', overchargeNaira: 2 });
  assert.is(charge(await pn.airtime.purchase(airtime('08134567894'), signal()))?.chargedKobo, 9_900);
  const none = await pn.airtime.query({ ...airtime('08134567895'), upstreamReference: '999999' }, signal());
  assert.is(none.kind === 'unknown' && none.noRecord, true, 'a 404 by id');
  const unseen = await pn.airtime.query(airtime('08134567896'), signal());
  assert.is(unseen.kind === 'unknown' && unseen.noRecord, true, 'the whole history read, not in it');
});

test.run();
