/**
 * What each upstream charged, and supply's metrics, through the real
 * gateway and core with fake upstreams on port 0: a delivered purchase's attempt carries the
 * cost its upstream stated (VTpass: the face value less our commission; a ported-number site:
 * `paid_amount` or the fall of our balance), also when it is found delivered on a re-query; a
 * data plan's cost at the upstream follows what it charged, once per change, audited; the
 * Prometheus series count attempts, failovers, skips, circuits and floats per upstream.
 * Partners never see any of it. Every case ends with the ledger check.
 */
import net from 'node:net';
import * as assert from 'uvu/assert';
import { kobo } from '../../core/domain/money.js';
import { type CoreMetrics, createCoreMetrics } from '../../core/metrics.js';
import { createProviders } from '../../core/providers/index.js';
import { runAgainst, runJson } from '../cli/run.js';
import { startCore, type TestCore } from '../helpers/core.js';
import { type FakePortedNumber, startFakePortedNumber } from '../helpers/fake-ported-number.js';
import { type FakeVtpass, startFakeVtpass } from '../helpers/fake-vtpass.js';
import { type ApiKeys, startTestGateway, type TestGateway } from '../helpers/gateway.js';
import { suite } from '../helpers/suite.js';
import { testProvidersConfig } from '../helpers/supply.js';

interface Stack {
  vtpass: FakeVtpass;
  site: FakePortedNumber;
  core: TestCore;
  gateway: TestGateway;
  keys: ApiKeys & { accountId: string };
  metrics: CoreMetrics;
  coreLog: { event: string; [field: string]: unknown }[];
  close(): Promise<void>;
}

/** A loopback port nothing listens on: connecting to it is refused. */
async function closedPort(): Promise<number> {
  const server = net.createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as net.AddressInfo;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

/**
 * A core routing airtime and data over `route`: `site` (a ported-number fake) and `vtpass`. Plan 7 is 353 at the site.
 */
async function startStack(route: string[], options: { siteUrl?: string } = {}): Promise<Stack> {
  const vtpass = await startFakeVtpass();
  const site = await startFakePortedNumber();
  const metrics = createCoreMetrics();
  const coreLog: Stack['coreLog'] = [];
  const log = (event: string, fields: Record<string, unknown>) => coreLog.push({ event, ...fields });
  const config = testProvidersConfig({
    routing: { airtime: route, data: route },
    upstreams: [{ name: 'site', kind: 'ported-number', baseUrl: options.siteUrl ?? site.baseUrl, token: site.token }],
    vtpass,
  });
  const planCodes = async (upstream: string, planId: number) => (upstream === 'site' && planId === 7 ? '353' : null);
  const core = await startCore({
    providerTimeoutMs: 1_000,
    upstreams: (store) => createProviders(config, { catalog: store.catalog, planCodes, log }),
    log,
    metrics,
  });
  const gateway = await startTestGateway(core);
  const keys = await core.createApiAccount({ balanceKobo: 100_000_00 });
  return {
    vtpass,
    site,
    core,
    gateway,
    keys,
    metrics,
    coreLog,
    async close() {
      await gateway.close();
      await core.close();
      await site.close();
      await vtpass.close();
    },
  };
}

function buyAirtime(stack: Stack, phone: string) {
  return stack.gateway.request({
    query: { action: 'airtime' },
    keys: stack.keys,
    body: { network: 'mtn', phone, amount: 250 },
  });
}

function buyPlan7(stack: Stack, phone: string) {
  return stack.gateway.request({
    query: { action: 'data' },
    keys: stack.keys,
    body: { network: 'mtn', phone, plan_id: 7 },
  });
}

/** The operator's view of a purchase's attempts (the admin RPC behind `prepaid routes attempts`). */
async function attemptsSeen(stack: Stack, reference: string) {
  const { attempts } = await stack.core.admin.listUpstreamAttempts({ reference });
  return attempts.map((a) => [a.upstream, a.outcome, a.costKobo]);
}

async function ledgerIsExact(stack: Stack): Promise<void> {
  const audit = await stack.core.admin.checkLedger({});
  assert.is(audit.violationCount, 0n, 'prepaid ledger check finds nothing');
}

/** The value of one series with exactly these labels in the scrape, or undefined when absent. */
async function sampleOf(stack: Stack, name: string, labels: Record<string, string>): Promise<number | undefined> {
  const text = await stack.metrics.registry.metrics();
  const wanted = Object.entries(labels)
    .map(([k, v]) => `${k}="${v}"`)
    .sort()
    .join(',');
  for (const line of text.split('\n')) {
    const m = /^(\w+)\{([^}]*)\} (\S+)$/.exec(line);
    if (m?.[1] !== name) continue;
    if (m[2]!.split(',').sort().join(',') === wanted) return Number(m[3]);
  }
  return undefined;
}

const test = suite('supply: costs and metrics');

test('VTpass delivers: the attempt keeps what VTpass charged (face value less commission), not partner', async () => {
  const stack = await startStack(['vtpass']);
  try {
    const reply = await buyAirtime(stack, '08011111111');
    assert.is(reply.status, 200, reply.text);
    const reference = reply.json.reference as string;
    // N250 less the fake's 3% airtime commission (its total_amount): N242.50.
    assert.equal(await attemptsSeen(stack, reference), [['vtpass', 'delivered', 24_250n]]);
    const cli = await runJson(stack.core, ['routes', 'attempts', reference]);
    assert.is((cli.json['attempts'] as { cost_naira: string | null }[])[0]?.cost_naira, '242.50', 'the CLI shows it');
    assert.match((await runAgainst(stack.core, ['routes', 'attempts', reference])).stdout, /COST[\s\S]*242\.50/);
    assert.not.match(reply.text, /cost|upstream|vtpass/i, 'partners never see the cost or the upstream');
    assert.is(
      await sampleOf(stack, 'prepaid_core_upstream_purchases_total', {
        upstream: 'vtpass',
        product: 'airtime',
        outcome: 'delivered',
      }),
      1,
    );
    await ledgerIsExact(stack);
  } finally {
    await stack.close();
  }
});

test("a data plan delivered at the site: its balance fall is the cost; the plan's cost follows, audited", async () => {
  const stack = await startStack(['site', 'vtpass']);
  try {
    const first = await buyPlan7(stack, '08031234567');
    assert.is(first.status, 200, first.text);
    await stack.core.core.background.drain();
    assert.equal(await attemptsSeen(stack, first.json.reference as string), [['site', 'delivered', 23_900n]]);
    assert.is((await stack.core.store.catalog.getPlan(7))?.costsKobo['site'], kobo(23_900));
    const costRows = () => stack.core.store.auditLog.list({ action: 'prices.cost', target: 'plan:7', limit: 10 });
    const rows = await costRows();
    assert.is(rows.length, 1, 'one audited change');
    assert.is(rows[0]!.actor, 'system');
    assert.equal(JSON.parse(rows[0]!.after!), { upstream: 'site', cost_kobo: 23_900, source: 'observed' });
    assert.ok(rows[0]!.note.includes(first.json.reference as string), 'the note names the purchase');

    const second = await buyPlan7(stack, '08031234568');
    assert.is(second.status, 200, second.text);
    await stack.core.core.background.drain();
    assert.is((await costRows()).length, 1, 'the same cost again writes nothing');

    // The operator sets another cost; the next answer from the site says otherwise, and wins.
    await stack.core.admin.setPlanCost({ planId: 7n, upstream: 'site', costKobo: 25_000n, note: 'price list' });
    const third = await buyPlan7(stack, '08031234569');
    assert.is(third.status, 200, third.text);
    await stack.core.core.background.drain();
    assert.is((await stack.core.store.catalog.getPlan(7))?.costsKobo['site'], kobo(23_900));
    assert.is((await costRows()).length, 3, 'the operator and the observation, each audited');
    await ledgerIsExact(stack);
  } finally {
    await stack.close();
  }
});

test('airtime pending at the site, delivered on requery: the attempt turns delivered with paid_amount', async () => {
  const stack = await startStack(['site', 'vtpass']);
  try {
    stack.site.script('08134567890', { answer: 'processing' });
    const reply = await buyAirtime(stack, '08134567890');
    assert.is(reply.status, 202, reply.text);
    const reference = reply.json.reference as string;
    assert.equal(await attemptsSeen(stack, reference), [['site', 'pending', 0n]]);
    stack.site.settle(stack.site.records.at(-1)!.id, 'successful');
    await stack.core.recoverNow();
    await stack.core.core.background.drain();
    assert.is((await stack.core.store.transactions.get(reference))?.status, 'success');
    // N250 at the site's 3% discount: paid_amount "242.5".
    assert.equal(await attemptsSeen(stack, reference), [['site', 'delivered', 24_250n]]);
    assert.is(stack.vtpass.transactions.size, 0, 'never sent to the second');
    await ledgerIsExact(stack);
  } finally {
    await stack.close();
  }
});

test('a refusing first upstream: failovers counted by from, to, reason; its circuit opens and is skipped', async () => {
  const stack = await startStack(['site', 'vtpass'], { siteUrl: `http://127.0.0.1:${await closedPort()}/api/` });
  try {
    assert.is(await sampleOf(stack, 'prepaid_core_upstream_circuit_state', { upstream: 'site' }), 0, 'closed');
    // Five proven failures in a row open the circuit (core/purchases/upstream-health.ts).
    for (let i = 0; i < 5; i += 1) {
      const reply = await buyAirtime(stack, '08011111111');
      assert.is(reply.status, 200, reply.text);
    }
    assert.is(
      await sampleOf(stack, 'prepaid_core_upstream_failovers_total', { from: 'site', to: 'vtpass', reason: 'refused' }),
      5,
    );
    assert.is(
      await sampleOf(stack, 'prepaid_core_upstream_purchases_total', {
        upstream: 'site',
        product: 'airtime',
        outcome: 'not_delivered',
      }),
      5,
    );
    assert.is(await sampleOf(stack, 'prepaid_core_upstream_circuit_state', { upstream: 'site' }), 2, 'open');
    const sixth = await buyAirtime(stack, '08011111111');
    assert.is(sixth.status, 200, sixth.text);
    assert.is(
      await sampleOf(stack, 'prepaid_core_upstream_skips_total', { upstream: 'site', reason: 'circuit_open' }),
      1,
    );
    const routed = stack.coreLog.find((l) => l.event === 'purchase.routed' && l['reference'] === sixth.json.reference);
    assert.is(routed?.['chosen'], 'vtpass', 'the routing log names the chosen upstream');
    assert.is(routed?.['skipped'], 'site:circuit_open', 'and the one skipped, with why');
    assert.is(
      await sampleOf(stack, 'prepaid_core_upstream_purchases_total', {
        upstream: 'vtpass',
        product: 'airtime',
        outcome: 'delivered',
      }),
      6,
    );
    await ledgerIsExact(stack);
  } finally {
    await stack.close();
  }
});

test('the float in Naira, its alert and each reading under it are series per upstream', async () => {
  const stack = await startStack(['site', 'vtpass']);
  try {
    stack.site.balance = 1_234.5;
    await stack.core.core.floatPoller!.runOnce();
    assert.is(await sampleOf(stack, 'prepaid_core_upstream_float_naira', { upstream: 'site' }), 1_234.5);
    assert.is(await sampleOf(stack, 'prepaid_core_upstream_float_alert_naira', { upstream: 'site' }), 0);
    assert.is(await sampleOf(stack, 'prepaid_core_upstream_float_low_total', { upstream: 'site' }), undefined);
    await stack.core.admin.setUpstreamFloatAlert({ name: 'site', alertKobo: 50_000_00n });
    await stack.core.core.floatPoller!.runOnce();
    assert.is(await sampleOf(stack, 'prepaid_core_upstream_float_alert_naira', { upstream: 'site' }), 50_000);
    assert.is(await sampleOf(stack, 'prepaid_core_upstream_float_low_total', { upstream: 'site' }), 1);
    const reply = await buyAirtime(stack, '08011111111');
    assert.is(reply.status, 200, reply.text);
    assert.is(await sampleOf(stack, 'prepaid_core_upstream_skips_total', { upstream: 'site', reason: 'float_low' }), 1);
    await ledgerIsExact(stack);
  } finally {
    await stack.close();
  }
});

test.run();
