/**
 * `npm run bench`: how fast the service is, against the limits of this machine, in one run.
 *
 * Baselines (ceilings) and scenarios are measured one after the other on the same machine,
 * so the ratios survive a noisy neighbour. Every server runs in its own child process, built
 * (bin/build.js) as `npm start` runs the service; the load generator (autocannon over
 * keep-alive HTTP/1.1, or a bounded gRPC loop) runs here. Any error or non-2xx answer is
 * counted, reported, and fails the run.
 *
 * Environment: BENCH_DURATION_MS (per measurement, default 10000), BENCH_CONNECTIONS
 * (default 50), BENCH_OUTPUT (default bench/results.json), BENCH_ONLY (comma-separated
 * parts of measurement names, e.g. "airtime,balance": only those run, with the ceilings
 * their ratios need), BENCH_SCALE (opt-in, comma-separated sizes such as "100k,1m": the
 * scale benchmark of bench/scale.ts, after the rest; "BENCH_ONLY=none BENCH_SCALE=1m" runs it
 * alone).
 */
import { execFileSync, spawn } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { createClient } from '@connectrpc/connect';
import { createGrpcTransport } from '@connectrpc/connect-node';
import { AdminService } from '../gen/prepaid/v1/admin_pb.js';
import { AuthService } from '../gen/prepaid/v1/auth_pb.js';
import { PurchaseService } from '../gen/prepaid/v1/purchase_pb.js';
import { WebhookService } from '../gen/prepaid/v1/webhooks_pb.js';
import { ADMIN_TOKEN_FILE, readTokenFile, SERVICE_TOKEN_FILE } from '../runtime/tokens.js';
import { bearer } from '../test/helpers/core.js';
import { grpcJsCaller } from './grpc-js-client.js';
import { built, CONNECTIONS, children, DURATION_MS, freePort, grpcLoad, type HttpLoad, http, startChild, startService, stop } from './harness.js';
import { parseScaleSizes, type ScaleFigures, scale } from './scale.js';
import type { Figures } from './stats.js';

const OUTPUT = process.env['BENCH_OUTPUT'] ?? 'bench/results.json';
const ONLY = (process.env['BENCH_ONLY'] ?? '')
  .split(',')
  .map((part) => part.trim())
  .filter(Boolean);

const HOP_CEILING = 'baseline: one hop, grpc-js client';
const ECHO_CEILING = 'baseline: bare gRPC echo';
/** Each measurement's ceiling, for its ratio. */
const CEILINGS: Record<string, string> = {
  'baseline: one hop, connect client': HOP_CEILING,
  'baseline: one hop, connect-lean client': HOP_CEILING,
  'scenario: balance': HOP_CEILING,
  'scenario: airtime': HOP_CEILING,
  'scenario: airtime with webhooks': HOP_CEILING,
  'scenario: data': HOP_CEILING,
  'scenario: bulksms': HOP_CEILING,
  'scenario: history': HOP_CEILING,
  'scenario: mixed': HOP_CEILING,
  'scenario: airtime over gRPC to the core': ECHO_CEILING,
};

/** Whether BENCH_ONLY asks for this measurement, or for one whose ceiling it is. */
function selected(name: string): boolean {
  if (ONLY.length === 0) return true;
  const asked = (n: string) => ONLY.some((part) => n.includes(part));
  // The webhooks scenario is judged against airtime without webhooks, in the same run.
  if (name === 'scenario: airtime' && asked(WEBHOOKS_SCENARIO)) return true;
  return asked(name) || Object.entries(CEILINGS).some(([n, ceiling]) => ceiling === name && asked(n));
}

/**
 * Issue 17: with every purchase's event signed and POSTed to a receiver on loopback, airtime
 * keeps at least this share of airtime without webhooks, and deliveries keep up: at the end
 * the oldest undelivered event is younger than WEBHOOK_MAX_LAG_S.
 */
const WEBHOOKS_SCENARIO = 'scenario: airtime with webhooks';
const WEBHOOK_MIN_SHARE = 0.85;
const WEBHOOK_MAX_LAG_S = 5;
const webhookVerdicts: string[] = [];

/** The core's oldest-undelivered gauge, read from its metrics listener. */
async function oldestUndeliveredSeconds(metricsPort: number): Promise<number> {
  const text = await (await fetch(`http://127.0.0.1:${metricsPort}/metrics`)).text();
  const line = text.split('\n').find((l) => l.startsWith('prepaid_core_webhook_oldest_undelivered_age_seconds '));
  if (line === undefined) throw new Error('the core does not export prepaid_core_webhook_oldest_undelivered_age_seconds');
  return Number(line.split(' ')[1]);
}

const results: Record<string, Figures & { ceiling?: string; ratio?: number; shareOfAirtime?: number; oldestUndeliveredSeconds?: number }> = {};
function record(name: string, figures: Figures): void {
  const entry: Figures & { ceiling?: string; ratio?: number } = { ...figures };
  const ceiling = CEILINGS[name];
  if (ceiling && results[ceiling]) {
    entry.ceiling = ceiling;
    entry.ratio = Number((figures.requestsPerSecond / results[ceiling]!.requestsPerSecond).toFixed(3));
  }
  results[name] = entry;
  console.error(`  ${name}: ${figures.requestsPerSecond} req/s, p50 ${figures.p50Ms} ms, p99 ${figures.p99Ms} ms, errors ${figures.errors}`);
}

async function baselines(): Promise<void> {
  console.error('baselines');
  if (selected('baseline: bare HTTP')) {
    const bare = await startChild('bench/servers/http-bare.ts');
    record('baseline: bare HTTP', await http(bare.port, [{ path: '/' }]));
    await stop(bare.child);
  }

  const hops = (['grpc-js', 'connect', 'connect-lean'] as const).filter((kind) => selected(`baseline: one hop, ${kind} client`));
  if (hops.length > 0 || selected(ECHO_CEILING)) {
    const echo = await startChild('bench/servers/grpc-echo.ts');
    const echoUrl = `http://127.0.0.1:${echo.port}`;
    // grpc-js is the ceiling the issue names; Connect's stock gRPC transport is what the
    // gateway would get out of the box; connect-lean is the gateway's own transport.
    for (const kind of hops) {
      const hop = await startChild('bench/servers/http-hop.ts', [kind], { ECHO_URL: echoUrl });
      record(`baseline: one hop, ${kind} client`, await http(hop.port, [{ path: '/' }]));
      await stop(hop.child);
    }
    if (selected(ECHO_CEILING)) {
      const verify = grpcJsCaller(echoUrl, AuthService, 'verifyKeyPair');
      record(ECHO_CEILING, await grpcLoad(() => verify({ publicKey: 'pk', secretKey: 'sk', clientIp: '127.0.0.1' })));
    }
    await stop(echo.child);
  }

  if (selected('baseline: store reserve+settle')) {
    const store = spawn(process.execPath, built('bench/servers/store-ceiling.ts', [String(CONNECTIONS)]), {
      env: { ...process.env, BENCH_DURATION_MS: String(DURATION_MS) },
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    children.push(store);
    let out = '';
    store.stdout!.on('data', (c: Buffer) => (out += c.toString()));
    await new Promise((resolve) => store.once('exit', resolve));
    record('baseline: store reserve+settle', JSON.parse(out.trim()) as Figures);
  }
}

async function scenarios(): Promise<void> {
  if (!Object.keys(CEILINGS).some((name) => name.startsWith('scenario: ') && selected(name))) return;
  console.error('the service, as npm start runs it');
  const dataDir = mkdtempSync(path.join(tmpdir(), 'prepaid-bench-'));
  const metricsPort = await freePort();
  // Webhook receivers on loopback need WEBHOOK_ALLOW_PRIVATE; accounts without a URL are unaffected.
  const { service, port, corePort } = await startService(dataDir, { WEBHOOK_ALLOW_PRIVATE: 'true', CORE_METRICS_PORT: String(metricsPort) });
  const receiver = selected(WEBHOOKS_SCENARIO) ? await startChild('bench/servers/http-bare.ts') : undefined;
  try {
    const coreUrl = `http://127.0.0.1:${corePort}`;
    const admin = createClient(AdminService, createGrpcTransport({ baseUrl: coreUrl, interceptors: [bearer(readTokenFile(dataDir, ADMIN_TOKEN_FILE)!)] }));
    const created = await admin.createAccount({ name: 'Bench Stores', tierId: 'api' });
    const accountId = created.account!.accountId;
    // 100 million Naira: room for a million airtime purchases.
    await admin.creditWallet({ accountId, amountKobo: 10_000_000_000n, memo: 'bench funding' });
    const keys = { 'X-Public-Key': created.issuedKey!.publicKey, 'X-Secret-Key': created.issuedKey!.secretKey };
    const json = { ...keys, 'Content-Type': 'application/json' };
    if (selected('scenario: history')) {
      // History reads a full page of 100 rows, so the account has more than a page before anything is measured.
      const buy = grpcJsCaller(coreUrl, PurchaseService, 'buyAirtime', readTokenFile(dataDir, SERVICE_TOKEN_FILE)!);
      for (let i = 0; i < 150; i += 1) await buy({ accountId, network: 'mtn', phone: '08031234567', amountKobo: 10_000n });
    }
    const recipients = Array.from({ length: 100 }, (_, i) => `0803${String(1_000_000 + i).padStart(7, '0')}`);
    const loads: Record<string, HttpLoad> = {
      balance: { path: '/api/v1?action=balance', headers: keys },
      airtime: { method: 'POST', path: '/api/v1?action=airtime', headers: json, body: JSON.stringify({ network: 'mtn', phone: '08031234567', amount: 100 }) },
      data: { method: 'POST', path: '/api/v1?action=data', headers: json, body: JSON.stringify({ plan_id: 1, phone: '08031234567' }) },
      bulksms: {
        method: 'POST',
        path: '/api/v1?action=bulksms',
        headers: json,
        body: JSON.stringify({ sender: 'Bench', recipients, message: 'Your order has shipped.' }),
      },
      history: { path: '/api/v1?action=transactions&limit=100', headers: keys },
    };
    for (const [name, load] of Object.entries(loads)) {
      if (selected(`scenario: ${name}`)) record(`scenario: ${name}`, await http(port, [load]));
    }
    if (receiver !== undefined) {
      // Another account whose every event goes to a receiver on loopback (a bare HTTP server
      // answering 200), so the same airtime load runs with deliveries beside it.
      const hooked = await admin.createAccount({ name: 'Bench Hooks', tierId: 'api' });
      const hookedId = hooked.account!.accountId;
      const webhooks = createClient(
        WebhookService,
        createGrpcTransport({ baseUrl: coreUrl, interceptors: [bearer(readTokenFile(dataDir, ADMIN_TOKEN_FILE)!)] }),
      );
      await webhooks.setWebhook({ accountId: hookedId, url: `http://127.0.0.1:${receiver.port}/hooks` });
      await admin.creditWallet({ accountId: hookedId, amountKobo: 10_000_000_000n, memo: 'bench funding' });
      const hookedKeys = { 'X-Public-Key': hooked.issuedKey!.publicKey, 'X-Secret-Key': hooked.issuedKey!.secretKey, 'Content-Type': 'application/json' };
      record(WEBHOOKS_SCENARIO, await http(port, [{ ...loads.airtime!, headers: hookedKeys }]));
      const lag = await oldestUndeliveredSeconds(metricsPort);
      const without = results['scenario: airtime'];
      const share = without === undefined ? Number.NaN : results[WEBHOOKS_SCENARIO]!.requestsPerSecond / without.requestsPerSecond;
      const verdict =
        `webhooks: airtime with webhooks at ${(share * 100).toFixed(0)}% of airtime without (at least ${WEBHOOK_MIN_SHARE * 100}% wanted); ` +
        `oldest undelivered event ${lag.toFixed(2)} s old at the end (under ${WEBHOOK_MAX_LAG_S} s wanted)`;
      console.error(`  ${verdict}`);
      results[WEBHOOKS_SCENARIO]!.shareOfAirtime = Number(share.toFixed(3));
      results[WEBHOOKS_SCENARIO]!.oldestUndeliveredSeconds = lag;
      if (!(share >= WEBHOOK_MIN_SHARE) || !(lag < WEBHOOK_MAX_LAG_S)) webhookVerdicts.push(verdict);
    }
    if (selected('scenario: mixed')) {
      // Mixed: mostly reads and airtime, as a reseller's traffic looks.
      record(
        'scenario: mixed',
        await http(port, [loads.balance!, loads.airtime!, loads.airtime!, loads.data!, { path: '/api/v1?action=transactions&limit=20', headers: keys }]),
      );
    }
    if (selected('scenario: airtime over gRPC to the core')) {
      const buy = grpcJsCaller(coreUrl, PurchaseService, 'buyAirtime', readTokenFile(dataDir, SERVICE_TOKEN_FILE)!);
      record('scenario: airtime over gRPC to the core', await grpcLoad(() => buy({ accountId, network: 'mtn', phone: '08031234567', amountKobo: 10_000n })));
    }
    const check = await admin.checkLedger({});
    if (check.violationCount !== 0n) throw new Error(`ledger check after the run: ${check.violationCount} violations`);
  } finally {
    await stop(service);
    if (receiver !== undefined) await stop(receiver.child);
    rmSync(dataDir, { recursive: true, force: true });
  }
}

function table(): string {
  const rows = Object.entries(results).map(([name, f]) => [
    name,
    String(f.requestsPerSecond),
    f.p50Ms.toFixed(1),
    f.p99Ms.toFixed(1),
    String(f.errors),
    f.ratio === undefined ? '' : `${(f.ratio * 100).toFixed(0)}% of ${f.ceiling!.replace('baseline: ', '')}`,
  ]);
  const header = ['measurement', 'req/s', 'p50 ms', 'p99 ms', 'errors', 'ratio to its ceiling'];
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => r[i]!.length)));
  const line = (cells: string[]) => `| ${cells.map((c, i) => c.padEnd(widths[i]!)).join(' | ')} |`;
  return [line(header), `|${widths.map((w) => '-'.repeat(w + 2)).join('|')}|`, ...rows.map(line)].join('\n');
}

const SCALE_SIZES = parseScaleSizes(process.env['BENCH_SCALE'] ?? '');
execFileSync(process.execPath, ['bin/build.js'], { stdio: 'inherit' });
await baselines();
await scenarios();
const scaleResults: ScaleFigures[] = SCALE_SIZES.length > 0 ? await scale(SCALE_SIZES) : [];
if (Object.keys(results).length === 0 && scaleResults.length === 0) {
  console.error(`FAILED: BENCH_ONLY=${process.env['BENCH_ONLY']} names no measurement`);
  process.exit(1);
}
const output = table();
console.log(`\n${output}\n`);
writeFileSync(
  OUTPUT,
  `${JSON.stringify(
    { at: new Date().toISOString(), node: process.version, durationMs: DURATION_MS, connections: CONNECTIONS, results, scale: scaleResults },
    null,
    2,
  )}\n`,
);
console.log(`Figures written to ${OUTPUT}.`);
const failed = [...Object.entries(results), ...scaleResults.flatMap((s) => Object.entries(s.figures).map(([n, f]) => [`${s.size}: ${n}`, f] as const))].filter(
  ([, f]) => f.errors > 0,
);
if (failed.length > 0) {
  console.error(`FAILED: errors during ${failed.map(([n]) => n).join(', ')}`);
  process.exit(1);
}
if (webhookVerdicts.length > 0) {
  console.error(`FAILED: ${webhookVerdicts.join('; ')}`);
  process.exit(1);
}
process.exit(0);
