/**
 * Several upstreams per product, failover only on proven non-delivery, through the
 * real gateway and core with fake upstreams on port 0: the purchase moves to the next upstream
 * only when the first provably did not deliver (a refused connection, VTpass 091 or 018); a
 * time-out, a 5xx or garbage keeps it pending at the first, where it is re-queried even after
 * the route changed. Every case ends with the ledger check.
 */
import net from 'node:net';
import * as assert from 'uvu/assert';
import { kobo } from '../../core/domain/money.js';
import { createProviders } from '../../core/providers/index.js';
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
 * A core whose airtime and data routes are `routes` over: `site` (a ported-number fake, or a
 * closed port when `siteRefuses`) and `vtpass` (the VTpass fake). Data plan 7 has the site's
 * code 353 unless `siteSellsPlans` is false.
 */
async function startStack(
  routes: { airtime: string[]; data?: string[] },
  options: { siteUrl?: string; siteSellsPlans?: boolean; balanceKobo?: number } = {},
): Promise<Stack> {
  const vtpass = await startFakeVtpass();
  const site = await startFakePortedNumber();
  const coreLog: Stack['coreLog'] = [];
  const log = (event: string, fields: Record<string, unknown>) => coreLog.push({ event, ...fields });
  const config = testProvidersConfig({
    routing: { airtime: routes.airtime, data: routes.data ?? routes.airtime },
    upstreams: [{ name: 'site', kind: 'ported-number', baseUrl: options.siteUrl ?? site.baseUrl, token: site.token }],
    vtpass,
  });
  const planCodes = async (upstream: string, planId: number) =>
    upstream === 'site' && planId === 7 && options.siteSellsPlans !== false ? '353' : null;
  const core = await startCore({
    providerTimeoutMs: 1_000,
    upstreams: (store) => createProviders(config, { catalog: store.catalog, planCodes, log }),
    log,
  });
  const gateway = await startTestGateway(core);
  const keys = await core.createApiAccount({ balanceKobo: options.balanceKobo ?? 100_000_00 });
  return {
    vtpass,
    site,
    core,
    gateway,
    keys,
    coreLog,
    async close() {
      await gateway.close();
      await core.close();
      await site.close();
      await vtpass.close();
    },
  };
}

function buyAirtime(stack: Stack, phone: string, keys: ApiKeys = stack.keys) {
  return stack.gateway.request({ query: { action: 'airtime' }, keys, body: { network: 'mtn', phone, amount: 250 } });
}

async function attemptsOf(stack: Stack, reference: string) {
  return (await stack.core.store.supply.attemptsOf(reference)).map((a) => [a.upstream, a.outcome, a.evidence]);
}

async function ledgerIsExact(stack: Stack): Promise<void> {
  const audit = await stack.core.admin.checkLedger({});
  assert.is(audit.violationCount, 0n, 'prepaid ledger check finds nothing');
}

async function debitsOf(stack: Stack, reference: string): Promise<number> {
  const entries = await stack.core.store.wallet.ledgerOf(stack.keys.accountId, 'live', reference);
  return entries.filter((e) => e.kind === 'debit').length;
}

const test = suite('failover only on proven non-delivery');

test('the first upstream refuses the connection: the second delivers, one debit, the attempt recorded', async () => {
  const stack = await startStack(
    { airtime: ['site', 'vtpass'] },
    { siteUrl: `http://127.0.0.1:${await closedPort()}/api/` },
  );
  try {
    const reply = await buyAirtime(stack, '08011111111');
    assert.is(reply.status, 200, reply.text);
    assert.is(reply.json.status, 'success');
    const reference = reply.json.reference as string;
    assert.ok(stack.vtpass.transactions.has(reference), 'VTpass got the pay');
    assert.is(await debitsOf(stack, reference), 1);
    assert.equal(await attemptsOf(stack, reference), [
      ['site', 'not_delivered', 'refused'],
      ['vtpass', 'delivered', null],
    ]);
    assert.ok(stack.coreLog.some((l) => l.event === 'purchase.failover' && l['reference'] === reference));
    assert.not.ok('upstream' in reply.json, 'partners never see the upstream');
    await ledgerIsExact(stack);
  } finally {
    await stack.close();
  }
});

for (const code of ['091', '018']) {
  test(`the first answers VTpass ${code}: the second delivers`, async () => {
    const stack = await startStack({ airtime: ['vtpass', 'site'] });
    try {
      stack.vtpass.script('08031234567', { answer: 'code', code });
      const reply = await buyAirtime(stack, '08031234567');
      assert.is(reply.status, 200, reply.text);
      const reference = reply.json.reference as string;
      assert.is(stack.site.records.filter((r) => r.body['mobile_number'] === '08031234567').length, 1);
      assert.equal(await attemptsOf(stack, reference), [
        ['vtpass', 'not_delivered', `http 200, code ${code}`],
        ['site', 'delivered', null],
      ]);
      assert.is(await debitsOf(stack, reference), 1);
      await ledgerIsExact(stack);
    } finally {
      await stack.close();
    }
  });
}

test('VTpass 016 (processed, then failed) is refunded once and never moves on', async () => {
  const stack = await startStack({ airtime: ['vtpass', 'site'] });
  try {
    stack.vtpass.script('08031234567', { answer: 'code', code: '016' });
    const reply = await buyAirtime(stack, '08031234567');
    assert.is(reply.status, 502, reply.text);
    assert.is(stack.site.records.length, 0, 'no call to the second');
    await ledgerIsExact(stack);
  } finally {
    await stack.close();
  }
});

test('a DNS failure at the only upstream proves nothing was sent: 502, refunded at once, never re-queried', async () => {
  const stack = await startStack({ airtime: ['site'] }, { siteUrl: 'https://site.invalid/api/' });
  try {
    const reply = await buyAirtime(stack, '08031234567');
    assert.is(reply.status, 502, reply.text);
    assert.match(reply.json.message, /refunded in full/);
    assert.not.match(reply.text, /invalid|ENOTFOUND/, 'partners never see the upstream or its error');
    const reference = reply.json.reference as string;
    assert.equal(await attemptsOf(stack, reference), [['site', 'failed', 'dns']]);
    const entries = await stack.core.store.wallet.ledgerOf(stack.keys.accountId, 'live', reference);
    assert.equal(
      entries.map((e) => e.kind),
      ['debit', 'refund'],
    );
    assert.is(await stack.core.recoverNow(), 0, 'nothing is left pending');
    await ledgerIsExact(stack);
  } finally {
    await stack.close();
  }
});

test('every upstream of the route provably did not deliver (091, then refused): 502 and one refund', async () => {
  const stack = await startStack(
    { airtime: ['vtpass', 'site'] },
    { siteUrl: `http://127.0.0.1:${await closedPort()}/api/` },
  );
  try {
    stack.vtpass.script('08031234567', { answer: 'code', code: '091' });
    const reply = await buyAirtime(stack, '08031234567');
    assert.is(reply.status, 502, reply.text);
    const reference = reply.json.reference as string;
    assert.equal(await attemptsOf(stack, reference), [
      ['vtpass', 'not_delivered', 'http 200, code 091'],
      ['site', 'failed', 'refused'],
    ]);
    const entries = await stack.core.store.wallet.ledgerOf(stack.keys.accountId, 'live', reference);
    assert.equal(
      entries.map((e) => e.kind),
      ['debit', 'refund'],
    );
    await ledgerIsExact(stack);
  } finally {
    await stack.close();
  }
});

test('the first times out, then delivers: second not called; pending, then success on requery at first', async () => {
  const stack = await startStack({ airtime: ['vtpass', 'site'] });
  try {
    stack.vtpass.script('08031234567', { answer: 'hang', later: 'delivered' });
    const reply = await buyAirtime(stack, '08031234567');
    assert.is(reply.status, 202, reply.text);
    const reference = reply.json.reference as string;
    assert.is(stack.site.records.length, 0, 'no call to the second');
    assert.equal(await attemptsOf(stack, reference), [['vtpass', 'pending', 'timeout']]);
    // The route changes while the purchase is pending: its re-query still goes to the first.
    await stack.core.store.supply.setRoute({
      product: 'airtime',
      network: '',
      planType: '',
      disco: '',
      upstreams: ['site'],
      updatedAt: new Date(),
    });
    const queriesBefore = stack.vtpass.calls.filter((c) => c.path === '/api/requery').length;
    assert.is(await stack.core.recoverNow(), 1);
    assert.is(stack.vtpass.calls.filter((c) => c.path === '/api/requery').length, queriesBefore + 1);
    assert.is(stack.site.calls.length, 0, 'the new route was not asked');
    const status = await stack.gateway.request({ query: { action: 'transaction', reference }, keys: stack.keys });
    assert.is(status.json.transaction.status, 'success');
    await ledgerIsExact(stack);
  } finally {
    await stack.close();
  }
});

for (const answer of ['html500', 'hang'] as const) {
  const what = answer === 'html500' ? 'a 5xx page' : 'nothing';
  test(`the first answers ${what}: no call to the second; pending and re-queried at the first`, async () => {
    const stack = await startStack({ airtime: ['site', 'vtpass'] });
    try {
      stack.site.script('08031234567', { answer });
      const reply = await buyAirtime(stack, '08031234567');
      assert.is(reply.status, 202, reply.text);
      const reference = reply.json.reference as string;
      assert.is(stack.vtpass.calls.filter((c) => c.path === '/api/pay').length, 0, 'no call to the second');
      assert.equal(
        (await attemptsOf(stack, reference)).map(([u, o]) => [u, o]),
        [['site', 'pending']],
      );
      const listed = stack.site.calls.length;
      await stack.core.recoverNow();
      assert.ok(stack.site.calls.length > listed, 're-queried at the first');
      assert.is(stack.vtpass.calls.filter((c) => c.path === '/api/requery').length, 0);
      await ledgerIsExact(stack);
    } finally {
      await stack.close();
    }
  });
}

test('the attempt is stored while its call runs: written with the reserve, ended with the pending write', async () => {
  const stack = await startStack({ airtime: ['vtpass', 'site'] });
  try {
    stack.vtpass.script('08031234567', { answer: 'hang', later: 'delivered' });
    const replied = buyAirtime(stack, '08031234567');
    // The upstream has the pay: what a crash now would leave in the store.
    while (!stack.vtpass.calls.some((c) => c.path === '/api/pay')) await new Promise((r) => setTimeout(r, 10));
    const page = await stack.core.store.transactions.listByAccount(stack.keys.accountId, 'live', { limit: 10 });
    assert.equal(
      page.items.map((t) => t.status),
      ['pending'],
    );
    const reference = page.items[0]!.reference;
    assert.equal(await attemptsOf(stack, reference), [['vtpass', null, null]]);
    const reply = await replied;
    assert.is(reply.json.reference, reference);
    assert.is(reply.status, 202, reply.text);
    assert.equal(await attemptsOf(stack, reference), [['vtpass', 'pending', 'timeout']]);
    await ledgerIsExact(stack);
  } finally {
    await stack.close();
  }
});

test('a data plan the first does not sell goes straight to the second', async () => {
  const stack = await startStack({ airtime: ['site', 'vtpass'] }, { siteSellsPlans: false });
  try {
    const plans = await stack.core.admin.listCatalogPlans({});
    const plan = plans.plans.find((p) => Number(p.planId) === 7);
    assert.ok(plan, 'plan 7 is in the catalogue');
    await stack.core.admin.upsertPlan({ plan: { ...plan, providerCode: 'mtn-100mb-1000' } });
    const reply = await stack.gateway.request({
      query: { action: 'data' },
      keys: stack.keys,
      body: { network: plan.network, phone: '08011111111', plan_id: 7 },
    });
    assert.is(reply.status, 200, reply.text);
    const reference = reply.json.reference as string;
    assert.is(stack.site.calls.filter((c) => c.method === 'POST').length, 0, 'the first was never called');
    assert.equal(
      (await attemptsOf(stack, reference)).map(([u]) => u),
      ['vtpass'],
    );
    await ledgerIsExact(stack);
  } finally {
    await stack.close();
  }
});

test("the first's float is under its alert: routed to the second without a call to the first", async () => {
  const stack = await startStack({ airtime: ['site', 'vtpass'] });
  try {
    stack.site.balance = 100;
    await stack.core.store.supply.setUpstreamSettings({
      upstream: 'site',
      floatAlertKobo: kobo(50_000_00),
      updatedAt: new Date(),
    });
    await stack.core.core.floatPoller!.runOnce();
    assert.ok(stack.coreLog.some((l) => l.event === 'upstream.float_low' && l['upstream'] === 'site'));
    const reply = await buyAirtime(stack, '08011111111');
    assert.is(reply.status, 200, reply.text);
    assert.is(stack.site.calls.filter((c) => c.method === 'POST').length, 0, 'no call to the first');
    assert.equal(
      (await attemptsOf(stack, reply.json.reference as string)).map(([u]) => u),
      ['vtpass'],
    );
    await ledgerIsExact(stack);
  } finally {
    await stack.close();
  }
});

/**
 * A TCP front for the site that flaps: listening (the site delivers) or closed (connections
 * refused). Closing stops new connections only; those open finish, as at a real upstream.
 */
async function flappingFront(target: URL): Promise<{ url: string; open(): Promise<void>; shut(): Promise<void> }> {
  const sockets = new Set<net.Socket>();
  let server: net.Server | null = null;
  const port = await closedPort();
  const open = async () => {
    if (server !== null) return;
    const s = net.createServer((client) => {
      const upstream = net.connect(Number(target.port), target.hostname);
      sockets.add(client).add(upstream);
      client.pipe(upstream).pipe(client);
      const end = () => {
        client.destroy();
        upstream.destroy();
      };
      client.on('error', end).on('close', end);
      upstream.on('error', end).on('close', end);
    });
    await new Promise<void>((resolve) => s.listen(port, '127.0.0.1', resolve));
    server = s;
  };
  const shut = async () => {
    const s = server;
    if (s === null) return;
    server = null;
    await new Promise<void>((resolve) => s.close(() => resolve()));
  };
  await open();
  return {
    url: `http://127.0.0.1:${port}${target.pathname}`,
    open,
    async shut() {
      await shut();
      for (const socket of sockets) socket.destroy();
    },
  };
}

test('200 concurrent purchases while the first flaps: each delivered at most once in all; ledger exact', async () => {
  const site = await startFakePortedNumber();
  const front = await flappingFront(new URL(site.baseUrl));
  const stack = await startStack({ airtime: ['site', 'vtpass'] }, { siteUrl: front.url, balanceKobo: 0 });
  try {
    site.balance = 1_000_000;
    const accounts: ApiKeys[] = [];
    for (let i = 0; i < 4; i += 1) accounts.push(await stack.core.createApiAccount({ balanceKobo: 20_000_00 }));
    const phones = Array.from({ length: 200 }, (_, i) => `0803${String(10_000_000 + i).slice(1)}`);
    for (const phone of phones) stack.vtpass.script(phone, { answer: 'delivered' });
    let flapping = true;
    const flapper = (async () => {
      for (let i = 0; flapping; i += 1) {
        await (i % 2 === 0 ? front.shut() : front.open());
        await new Promise((resolve) => setTimeout(resolve, 15));
      }
    })();
    const replies = await Promise.all(
      phones.map((phone, i) =>
        buyAirtime(stack, phone, accounts[i % accounts.length]!).then((r) => [phone, r] as const),
      ),
    );
    flapping = false;
    await flapper;
    await stack.core.recoverNow();
    let delivered = 0;
    for (const [phone, reply] of replies) {
      assert.ok([200, 202].includes(reply.status), `${phone}: ${reply.status} ${reply.text}`);
      const atSite = site.records.filter((r) => r.body['mobile_number'] === phone).length;
      const atVtpass = stack.vtpass.paysFor(phone).length;
      assert.ok(atSite + atVtpass <= 1, `${phone} was sent to ${atSite} + ${atVtpass} upstreams`);
      if (reply.status === 200) {
        assert.is(atSite + atVtpass, 1, `${phone} delivered exactly once`);
        delivered += 1;
      }
    }
    assert.ok(delivered > 0);
    assert.ok(
      stack.coreLog.some((l) => l.event === 'purchase.failover'),
      'some purchases met the first refusing and moved on',
    );
    await ledgerIsExact(stack);
  } finally {
    await stack.close();
    await front.shut();
    await site.close();
  }
});

test.run();
