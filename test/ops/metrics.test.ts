/**
 * Prometheus metrics: a real `npm start` exposes the named series on the
 * gateway's GET /metrics and on the core's own listener, and they move when purchases
 * happen: scrape, buy, scrape again. Then who may read the gateway's /metrics, and the
 * core's listener on its own.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { createClient } from '@connectrpc/connect';
import { createGrpcTransport } from '@connectrpc/connect-node';
import * as assert from 'uvu/assert';
import { createCore } from '../../core/app.js';
import { API_TIER_ID } from '../../core/catalog/defaults.js';
import { readCoreConfig } from '../../core/config.js';
import { startCore as startMain } from '../../core/main.js';
import { createCoreMetrics, serveMetrics } from '../../core/metrics.js';
import { createSandbox } from '../../core/providers/sandbox/index.js';
import { SQLITE_FILE } from '../../core/store/index.js';
import { openSqliteStore } from '../../core/store/sqlite/index.js';
import { AdminService } from '../../gen/prepaid/v1/admin_pb.js';
import { PurchaseService } from '../../gen/prepaid/v1/purchase_pb.js';
import { Mode } from '../../gen/prepaid/v1/types_pb.js';
import { bearer, startCore, type TestCore } from '../helpers/core.js';
import { startTestGateway } from '../helpers/gateway.js';
import { suite } from '../helpers/suite.js';
import { declaredSeries, keyHeaders, request, type Service, sample, startService } from './service.js';

const test = suite('ops: metrics');

const GATEWAY_SERIES = [
  'prepaid_gateway_http_requests_total',
  'prepaid_gateway_http_request_duration_seconds',
  'prepaid_gateway_http_requests_in_flight',
  'prepaid_gateway_rate_limited_total',
  // Node's own, for the gateway's thread.
  'process_cpu_seconds_total',
  'nodejs_eventloop_lag_seconds',
];

const CORE_SERIES = [
  'prepaid_core_purchases_total',
  'prepaid_core_refunds_total',
  'prepaid_core_refunded_kobo_total',
  'prepaid_core_pending_transactions',
  'prepaid_core_pending_needs_attention',
  'prepaid_core_pending_oldest_age_seconds',
  'prepaid_core_provider_call_duration_seconds',
  'prepaid_core_provider_calls_total',
  'prepaid_core_wallet_operation_duration_seconds',
  // Supply by upstream: declared from the start, whatever the routes.
  'prepaid_core_upstream_purchases_total',
  'prepaid_core_upstream_failovers_total',
  'prepaid_core_upstream_skips_total',
  'prepaid_core_upstream_circuit_state',
  'prepaid_core_upstream_float_naira',
  'prepaid_core_upstream_float_alert_naira',
  'prepaid_core_upstream_float_low_total',
  'nodejs_eventloop_lag_seconds',
];

/** Both expositions at once. */
async function scrape(service: Service): Promise<{ gateway: string; core: string }> {
  const [gateway, core] = await Promise.all([
    request(service.gatewayUrl, '/metrics'),
    request(service.coreMetricsUrl, '/metrics'),
  ]);
  assert.is(gateway.status, 200, gateway.text);
  assert.is(core.status, 200, core.text);
  return { gateway: gateway.text, core: core.text };
}

test('both processes expose the named series, and they move when purchases happen', async () => {
  let service: Service | undefined;
  try {
    service = await startService({ RATE_LIMIT_PER_MINUTE: '3', AUTH_FAILURES_PER_MINUTE: '1' });
    const gw = service.gatewayUrl;
    const before = await scrape(service);
    const gatewaySeries = declaredSeries(before.gateway);
    for (const name of GATEWAY_SERIES) assert.ok(gatewaySeries.has(name), `the gateway exposes ${name}`);
    const coreSeries = declaredSeries(before.core);
    for (const name of CORE_SERIES) assert.ok(coreSeries.has(name), `the core exposes ${name}`);
    assert.is(sample(before.core, 'prepaid_core_pending_transactions'), 0);

    const buyer = keyHeaders(await service.apiAccount(100_000_00));
    const airtime = (phone: string) =>
      request(gw, '/api/v1?action=airtime', { headers: buyer, body: { network: 'mtn', phone, amount: 100 } });
    assert.is((await airtime('08031234567')).status, 200);
    assert.is((await airtime('08031239999')).status, 502);
    assert.is((await airtime('08031238888')).status, 202);

    // Another key spends its quota of 3 and is refused the 4th time.
    const browser = keyHeaders(await service.apiAccount(0));
    const statuses: number[] = [];
    for (let i = 0; i < 4; i++)
      statuses.push((await request(gw, '/api/v1?action=balance', { headers: browser })).status);
    assert.equal(statuses, [200, 200, 200, 429]);
    // Last, since it locks this address out: one wrong key pair is allowed, the next is 429.
    const wrong = { ...browser, 'X-Secret-Key': 'sk_wrong' };
    assert.is((await request(gw, '/api/v1?action=balance', { headers: wrong })).status, 401);
    assert.is((await request(gw, '/api/v1?action=balance', { headers: wrong })).status, 429);

    const after = await scrape(service);
    const moved = (text: { before: string; after: string }, name: string, labels: Record<string, string> = {}) =>
      sample(text.after, name, labels) - sample(text.before, name, labels);
    const g = { before: before.gateway, after: after.gateway };
    const c = { before: before.core, after: after.core };

    // The gateway: requests by action and status, their latency, both limits.
    assert.is(moved(g, 'prepaid_gateway_http_requests_total', { action: 'airtime', status: '200', mode: 'live' }), 1);
    assert.is(moved(g, 'prepaid_gateway_http_requests_total', { action: 'airtime', status: '502', mode: 'live' }), 1);
    assert.is(moved(g, 'prepaid_gateway_http_requests_total', { action: 'airtime', status: '202', mode: 'live' }), 1);
    assert.is(moved(g, 'prepaid_gateway_http_requests_total', { action: 'balance', status: '200', mode: 'live' }), 3);
    // The per-key 429 is answered for a verified (live) pair; the failed-authentication 429 for none.
    assert.is(moved(g, 'prepaid_gateway_http_requests_total', { action: 'balance', status: '429', mode: 'live' }), 1);
    assert.is(moved(g, 'prepaid_gateway_http_requests_total', { action: 'balance', status: '429', mode: 'none' }), 1);
    assert.is(moved(g, 'prepaid_gateway_http_requests_total', { action: 'balance', status: '401', mode: 'none' }), 1);
    assert.is(moved(g, 'prepaid_gateway_http_request_duration_seconds_count', { action: 'airtime', status: '200' }), 1);
    assert.ok(moved(g, 'prepaid_gateway_http_request_duration_seconds_sum', { action: 'airtime', status: '200' }) > 0);
    assert.is(moved(g, 'prepaid_gateway_rate_limited_total', { policy: 'per-key' }), 1);
    assert.is(moved(g, 'prepaid_gateway_rate_limited_total', { policy: 'auth-failures' }), 1);

    // The core: outcomes, the refund, the provider's answers and latency, the store's latency.
    assert.is(moved(c, 'prepaid_core_purchases_total', { product: 'airtime', state: 'success', mode: 'live' }), 1);
    assert.is(moved(c, 'prepaid_core_purchases_total', { product: 'airtime', state: 'failed', mode: 'live' }), 1);
    assert.is(moved(c, 'prepaid_core_purchases_total', { product: 'airtime', state: 'pending', mode: 'live' }), 1);
    assert.is(moved(c, 'prepaid_core_refunds_total', { product: 'airtime', cause: 'failed', mode: 'live' }), 1);
    assert.is(
      moved(c, 'prepaid_core_refunded_kobo_total', { product: 'airtime', mode: 'live' }),
      9_700,
      'the refund of a 100 Naira airtime at 3% off',
    );
    for (const outcome of ['delivered', 'failed', 'unknown']) {
      assert.is(
        moved(c, 'prepaid_core_provider_calls_total', {
          provider: 'sandbox',
          product: 'airtime',
          operation: 'purchase',
          outcome,
          mode: 'live',
        }),
        1,
        outcome,
      );
    }
    assert.is(
      moved(c, 'prepaid_core_provider_call_duration_seconds_count', {
        provider: 'sandbox',
        product: 'airtime',
        operation: 'purchase',
        mode: 'live',
      }),
      3,
    );
    // Nothing here was a test purchase: test traffic would count under mode="test" only.
    assert.is(moved(c, 'prepaid_core_purchases_total', { product: 'airtime', state: 'success', mode: 'test' }), 0);
    assert.is(moved(c, 'prepaid_core_wallet_operation_duration_seconds_count', { operation: 'reserve' }), 3);
    assert.is(moved(c, 'prepaid_core_wallet_operation_duration_seconds_count', { operation: 'settle' }), 1);
    assert.is(moved(c, 'prepaid_core_wallet_operation_duration_seconds_count', { operation: 'refund' }), 1);
    assert.is(
      moved(c, 'prepaid_core_wallet_operation_duration_seconds_count', { operation: 'credit' }),
      1,
      'the funding credit',
    );

    // The pending purchase shows in the gauges, with its age, read from the store at scrape time.
    assert.is(sample(after.core, 'prepaid_core_pending_transactions'), 1);
    assert.is(sample(after.core, 'prepaid_core_pending_needs_attention'), 0);
    await new Promise((resolve) => setTimeout(resolve, 50));
    const later = (await scrape(service)).core;
    assert.ok(sample(later, 'prepaid_core_pending_oldest_age_seconds') >= 0.05, 'the oldest pending purchase ages');

    assert.equal(await service.stop(), { code: 0, signal: null }, service.stderr());
  } finally {
    await service?.cleanup();
  }
});

test('a pending purchase the recovery worker delivers moves from the pending gauge to success', async () => {
  const dataDir = mkdtempSync(path.join(tmpdir(), 'prepaid-metrics-'));
  const store = openSqliteStore({ filename: path.join(dataDir, SQLITE_FILE) });
  const metrics = createCoreMetrics();
  const core = createCore({
    store,
    providers: createSandbox({ delayMs: 0 }),
    adminToken: 'admin-token-for-the-metrics-test',
    serviceToken: 'service-token-for-the-metrics-test',
    providerTimeoutMs: 1_000,
    recoveryIntervalMs: 60_000,
    recoveryAttentionAfterMs: 86_400_000,
    log: () => {},
    metrics,
  });
  try {
    await core.seed();
    const url = `http://127.0.0.1:${await core.rpc.listen('127.0.0.1', 0)}`;
    const admin = createClient(
      AdminService,
      createGrpcTransport({ baseUrl: url, interceptors: [bearer('admin-token-for-the-metrics-test')] }),
    );
    const purchase = createClient(
      PurchaseService,
      createGrpcTransport({ baseUrl: url, interceptors: [bearer('service-token-for-the-metrics-test')] }),
    );
    const created = await admin.createAccount({ name: 'Metrics Stores', tierId: API_TIER_ID });
    const accountId = created.account!.accountId;
    await admin.creditWallet({ accountId, amountKobo: 100_000n, memo: 'test' });
    await purchase.buyAirtime({ accountId, network: 'mtn', phone: '08031238888', amountKobo: 10_000n });
    const text = () => metrics.registry.metrics();
    const pendingState = { product: 'airtime', state: 'pending', mode: 'live' };
    const successState = { product: 'airtime', state: 'success', mode: 'live' };
    let now = await text();
    assert.is(sample(now, 'prepaid_core_purchases_total', pendingState), 1);
    assert.is(sample(now, 'prepaid_core_purchases_total', successState), 0);
    assert.is(sample(now, 'prepaid_core_pending_transactions'), 1);

    // As if every pending purchase were due: the sandbox delivers an 8888 on its requery.
    assert.is(await core.worker.runOnce(new Date(Date.now() + 86_400_000)), 1);
    now = await text();
    assert.is(sample(now, 'prepaid_core_purchases_total', pendingState), 1, 'still counted once as pending');
    assert.is(sample(now, 'prepaid_core_purchases_total', successState), 1, 'and now as a success');
    assert.is(sample(now, 'prepaid_core_pending_transactions'), 0);
    assert.is(
      sample(now, 'prepaid_core_provider_calls_total', {
        provider: 'sandbox',
        product: 'airtime',
        operation: 'query',
        outcome: 'delivered',
        mode: 'live',
      }),
      1,
    );
    // A second pass finds nothing to do and counts nothing.
    await core.worker.runOnce(new Date(Date.now() + 2 * 86_400_000));
    assert.is(sample(await text(), 'prepaid_core_purchases_total', successState), 1);

    // A test purchase counts under mode="test" only: live sales do not move.
    await admin.creditWallet({ accountId, amountKobo: 50_000n, memo: 'test money', mode: Mode.TEST });
    await purchase.buyAirtime({
      accountId,
      network: 'mtn',
      phone: '08031234567',
      amountKobo: 10_000n,
      mode: Mode.TEST,
    });
    now = await text();
    assert.is(sample(now, 'prepaid_core_purchases_total', { product: 'airtime', state: 'success', mode: 'test' }), 1);
    assert.is(sample(now, 'prepaid_core_purchases_total', successState), 1, 'live sales unchanged');
    assert.is(
      sample(now, 'prepaid_core_provider_calls_total', {
        provider: 'sandbox',
        product: 'airtime',
        operation: 'purchase',
        outcome: 'delivered',
        mode: 'test',
      }),
      1,
    );
  } finally {
    await core.shutdown();
    await store.close();
    rmSync(dataDir, { recursive: true, force: true });
  }
});

test('the gateway shows /metrics only to METRICS_ALLOW; anyone else gets the 404 of an unknown path', async () => {
  let core: TestCore | undefined;
  try {
    core = await startCore();
    const onlyLoopback2 = await startTestGateway(core, { metricsAllow: ['127.0.0.2'] });
    const off = await startTestGateway(core, { metricsAllow: [] });
    try {
      const refused = await onlyLoopback2.request({ path: '/metrics' });
      assert.is(refused.status, 404);
      assert.is(refused.json.code, 'NOT_FOUND');
      const allowed = await onlyLoopback2.request({ path: '/metrics', localAddress: '127.0.0.2' });
      assert.is(allowed.status, 200);
      assert.match(allowed.headers['content-type'] ?? '', /^text\/plain/);
      assert.ok(allowed.text.includes('# TYPE prepaid_gateway_http_requests_total counter'));
      assert.is(
        sample(allowed.text, 'prepaid_gateway_http_requests_total', {
          action: 'not_found',
          status: '404',
          mode: 'none',
        }),
        1,
        'the refused scrape counts as a 404',
      );
      assert.is(
        (await onlyLoopback2.request({ path: '/metrics', method: 'POST', localAddress: '127.0.0.2', body: {} })).status,
        405,
      );
      assert.is((await off.request({ path: '/metrics' })).status, 404, 'METRICS_ALLOW=none turns it off');
    } finally {
      await onlyLoopback2.close();
      await off.close();
    }
  } finally {
    await core?.close();
  }
});

test('the core listener answers GET /metrics only, on a free port; CORE_METRICS_PORT=off turns it off', async () => {
  const metrics = createCoreMetrics();
  const server = await serveMetrics(metrics.registry, '127.0.0.1', 0);
  try {
    assert.ok(server.port > 0);
    const base = `http://127.0.0.1:${server.port}`;
    const ok = await request(base, '/metrics');
    assert.is(ok.status, 200);
    assert.ok(ok.text.includes('# TYPE prepaid_core_purchases_total counter'));
    assert.is((await request(base, '/')).status, 404);
    assert.is((await request(base, '/metrics', { method: 'DELETE' })).status, 404);
  } finally {
    await server.close();
  }
  assert.is(readCoreConfig({ CORE_METRICS_PORT: 'off' }).metricsPort, null);
  assert.is(readCoreConfig({}).metricsPort, 9464);
  assert.is(readCoreConfig({ CORE_METRICS_PORT: '0' }).metricsPort, 0);
});

test("CORE_METRICS_HOST sets the metrics listener's address apart from the gRPC core's, which it follows unset", async () => {
  assert.is(readCoreConfig({}).metricsHost, '127.0.0.1');
  assert.is(readCoreConfig({ CORE_HOST: '10.1.2.3' }).metricsHost, '10.1.2.3');
  assert.is(readCoreConfig({ CORE_METRICS_HOST: '' }).metricsHost, '127.0.0.1');
  const apart = readCoreConfig({ CORE_METRICS_HOST: '0.0.0.0' });
  assert.equal([apart.host, apart.metricsHost], ['127.0.0.1', '0.0.0.0']);
  // The core itself listens there, and the gRPC core stays where CORE_HOST says.
  const dataDir = mkdtempSync(path.join(tmpdir(), 'prepaid-metrics-host-'));
  const running = await startMain({
    DATA_DIR: dataDir,
    CORE_PORT: '0',
    CORE_METRICS_PORT: '0',
    CORE_METRICS_HOST: '0.0.0.0',
    LOG_LEVEL: 'silent',
  });
  try {
    assert.match(String(running.metricsAddress), /^0\.0\.0\.0:\d+$/);
    assert.match(running.address, /^127\.0\.0\.1:\d+$/);
    assert.is((await request(`http://127.0.0.1:${running.metricsPort}`, '/metrics')).status, 200);
  } finally {
    await running.close();
    rmSync(dataDir, { recursive: true, force: true });
  }
});

test.run();
