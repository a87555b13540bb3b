/**
 * The reconciliation through a real core, read from its books: a ported-number fake on port 0
 * is the only upstream; purchases go through the real gateway; `prepaid books reconcile --date`
 * runs it over gRPC; the staff's attention queue (ConsoleService.GetAttention) shows what it
 * found. A purchase the site delivered but answered as failed is its class with its amount, a
 * rerun adds nothing, and no money moves. A top-up booked in the journal is the float the
 * books expect, so a wallet moved at the site outside any purchase shows as drift.
 */
import * as assert from 'uvu/assert';
import { upstreamFundedPostings } from '../../../core/domain/books.js';
import { kobo } from '../../../core/domain/money.js';
import { lagosDate, lagosDay } from '../../../core/domain/people.js';
import { createProviders } from '../../../core/providers/index.js';
import { runJson } from '../../cli/run.js';
import { startTestConsole } from '../../helpers/console.js';
import { startCore, type TestCore } from '../../helpers/core.js';
import { type FakePortedNumber, startFakePortedNumber } from '../../helpers/fake-ported-number.js';
import { type ApiKeys, startTestGateway, type TestGateway } from '../../helpers/gateway.js';
import { consoleClients, signedInStaff, TestClock } from '../../helpers/staff.js';
import { suite } from '../../helpers/suite.js';
import { testProvidersConfig } from '../../helpers/supply.js';

interface Context {
  site: FakePortedNumber;
  clock: TestClock;
  core: TestCore;
  gateway: TestGateway;
  keys: ApiKeys & { accountId: string };
}

const test = suite<Context>('reconciliation from the books, through a real core');

test.before.each(async (ctx) => {
  ctx.site = await startFakePortedNumber();
  ctx.site.balance = 10_000;
  const config = testProvidersConfig({
    routing: { airtime: ['site'] },
    upstreams: [{ name: 'site', kind: 'ported-number', baseUrl: ctx.site.baseUrl, token: ctx.site.token }],
  });
  ctx.clock = new TestClock();
  ctx.core = await startCore({
    clock: ctx.clock.now,
    upstreams: (store) => createProviders(config, { catalog: store.catalog, planCodes: async () => null }),
  });
  ctx.gateway = await startTestGateway(ctx.core);
  ctx.keys = await ctx.core.createApiAccount({ balanceKobo: 100_000_00 });
});

test.after.each(async (ctx) => {
  await ctx.gateway.close();
  await ctx.core.close();
  await ctx.site.close();
});

/** Books the operator's top-up of the site's float, as `prepaid upstreams fund` would. */
async function topUp(ctx: Context, reference: string, amountKobo: number): Promise<void> {
  const at = ctx.clock.now();
  await ctx.core.store.ledger.post({
    kind: 'own_entry',
    entry: {
      kind: 'upstream_funded',
      mode: 'live',
      reference,
      at,
      postings: upstreamFundedPostings('site', kobo(amountKobo)),
    },
    audit: {
      at,
      actor: 'cli',
      action: 'upstreams.fund',
      target: 'site',
      before: null,
      after: null,
      address: null,
      note: '',
    },
  });
  ctx.clock.advance(1_000);
}

async function buy(ctx: Context, phone: string): Promise<{ reference: string; status: string }> {
  const reply = await ctx.gateway.request({
    query: { action: 'airtime' },
    keys: ctx.keys,
    body: { network: 'mtn', phone, amount: 100 },
  });
  const reference = reply.json.reference as string;
  // The core's clock moves only when told: each purchase a second after the one before.
  ctx.clock.advance(1_000);
  return { reference, status: (await ctx.core.store.transactions.get(reference))!.status };
}

async function wallet(ctx: Context): Promise<bigint> {
  return (await ctx.core.admin.getAccount({ accountId: ctx.keys.accountId })).account!.balanceKobo;
}

async function liveSums(ctx: Context): Promise<Map<string, number>> {
  return new Map(
    (await ctx.core.store.books.sums()).filter((r) => r.mode === 'live').map((r) => [r.account, r.sumKobo]),
  );
}

test('a delivery answered as failed lands in the attention queue with its class and amount, once', async (ctx) => {
  await topUp(ctx, 'BANK-TOPUP-1', 1_000_000);
  const fine = await buy(ctx, '08134567890');
  ctx.site.script('08134567891', { answer: 'successful', lie: true });
  const lied = await buy(ctx, '08134567891');
  assert.is(fine.status, 'success');
  assert.is(lied.status, 'failed', 'the site answered failed, so the wallet was refunded');
  const day = lagosDate(lagosDay(ctx.clock.now()));
  const walletBefore = await wallet(ctx);
  const booksBefore = await liveSums(ctx);
  const siteRecords = ctx.site.records.length;

  const run = await runJson(ctx.core, ['books', 'reconcile', '--date', day]);
  assert.is(run.code, 0, run.stderr);
  const [site] = run.json['upstreams'] as Record<string, unknown>[];
  assert.is(site!['upstream'], 'site');
  assert.is(site!['purchases'], 2);
  assert.is(site!['added'], 1);
  const findings = site!['findings'] as Record<string, unknown>[];
  assert.equal(
    findings.map((f) => [f['reference'], f['class'], f['at_stake_kobo'], f['their_status']]),
    [[lied.reference, 'failed_here_delivered_there', -findings[0]!['their_charged_kobo']!, 'delivered']],
  );
  assert.ok((findings[0]!['their_charged_kobo'] as number) > 0, 'the site says what it charged');
  assert.match(findings[0]!['evidence'] as string, /successful/, "the site's own record is the evidence");
  assert.not.match(findings[0]!['evidence'] as string, new RegExp(ctx.site.token), 'no credential in it');
  // The books and the site agree but for the lie: the drift is exactly what the site charged for it.
  assert.is(site!['drift_kobo'], findings[0]!['at_stake_kobo']);
  assert.equal(site!['between'], [lied.reference]);

  const staff = await signedInStaff(ctx.core, ctx.clock, 'support');
  const { console } = consoleClients(ctx.core);
  const queue = await console.getAttention({ sessionToken: staff.token, clientAddress: '127.0.0.1' });
  assert.equal(
    queue.reconcileFindings.map((f) => [f.reference, f.class, Number(f.atStakeKobo), f.upstream, f.date]),
    [[lied.reference, 'failed_here_delivered_there', findings[0]!['at_stake_kobo'], 'site', day]],
  );

  const app = await startTestConsole(ctx.core);
  try {
    const page = await fetch(`${app.url}/`, { headers: { cookie: `prepaid_staff_session=${staff.token}` } });
    const text = await page.text();
    assert.is(page.status, 200, text.slice(0, 200));
    assert.match(text, /Reconciliation: records that do not agree \(1\)/);
    assert.match(text, new RegExp(`<a href="/accounts\\?q=${lied.reference}">${lied.reference}</a>`), 'linked');
    assert.match(text, /failed_here_delivered_there/);
    assert.match(text, /a correction is a proposal/);
  } finally {
    await app.close();
  }

  const again = await runJson(ctx.core, ['books', 'reconcile', '--date', day, '--upstream', 'site']);
  const [second] = again.json['upstreams'] as Record<string, unknown>[];
  assert.is(second!['added'], 0, 'a rerun of the day adds nothing');
  assert.is((second!['findings'] as unknown[]).length, 1, 'and still finds it');
  const queued = await console.getAttention({ sessionToken: staff.token, clientAddress: '127.0.0.1' });
  assert.is(queued.reconcileFindings.length, 1);

  assert.is(await wallet(ctx), walletBefore, 'no money moved in the wallet');
  assert.equal(await liveSums(ctx), booksBefore, 'nor anywhere in the books');
  assert.is(ctx.site.records.length, siteRecords, 'nothing was bought at the site');
  const check = await ctx.core.admin.checkLedger({});
  assert.is(check.violationCount, 0n);
});

test('a top-up booked is the float the books expect; money moved at the site outside any purchase is drift', async (ctx) => {
  await topUp(ctx, 'BANK-TOPUP-2', 1_000_000);
  const fine = await buy(ctx, '08134567890');
  assert.is(fine.status, 'success');
  ctx.site.skewBalance(-50);
  const day = lagosDate(lagosDay(ctx.clock.now()));
  const run = await runJson(ctx.core, ['books', 'reconcile', '--date', day, '--upstream', 'site']);
  const [site] = run.json['upstreams'] as Record<string, unknown>[];
  assert.equal(site!['findings'], [], 'the purchase itself agrees');
  const float = (await liveSums(ctx)).get('upstream:site:float')!;
  assert.ok(float < 1_000_000 && float > 0, 'the top-up less the purchase cost');
  assert.is(site!['current_expected_kobo'], float, 'the books expect the top-up less what the purchase cost');
  assert.is(site!['current_reported_kobo'], float - 5_000, 'the site holds 50 naira less');

  const unknown = await runJson(ctx.core, ['books', 'reconcile', '--date', day, '--upstream', 'nowhere']);
  assert.is.not(unknown.code, 0, 'an upstream that is not configured is refused');
  const bad = await runJson(ctx.core, ['books', 'reconcile', '--date', '2025-02-30']).catch((e: Error) => e);
  assert.ok(bad instanceof Error || bad.code === 2, 'a date that is not a day is refused before the core');
});

test.run();
