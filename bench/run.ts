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
 * their ratios need).
 */
import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { createInterface } from 'node:readline';
import autocannon from 'autocannon';
import { createClient } from '@connectrpc/connect';
import { createGrpcTransport } from '@connectrpc/connect-node';
import { AdminService } from '../gen/prepaid/v1/admin_pb.js';
import { AuthService } from '../gen/prepaid/v1/auth_pb.js';
import { PurchaseService } from '../gen/prepaid/v1/purchase_pb.js';
import { readTokenFile, ADMIN_TOKEN_FILE, SERVICE_TOKEN_FILE } from '../runtime/tokens.js';
import { bearer } from '../test/helpers/core.js';
import { grpcJsCaller } from './grpc-js-client.js';
import { summarize, type Figures } from './stats.js';

const DURATION_MS = Number(process.env['BENCH_DURATION_MS'] ?? 10_000);
const CONNECTIONS = Number(process.env['BENCH_CONNECTIONS'] ?? 50);
const OUTPUT = process.env['BENCH_OUTPUT'] ?? 'bench/results.json';
/** A short warm-up before each measurement lets the JIT and connections settle. */
const WARMUP_MS = Math.min(2_000, DURATION_MS / 4);
const ONLY = (process.env['BENCH_ONLY'] ?? '').split(',').map((part) => part.trim()).filter(Boolean);

const HOP_CEILING = 'baseline: one hop, grpc-js client';
const ECHO_CEILING = 'baseline: bare gRPC echo';
/** Each measurement's ceiling, for its ratio. */
const CEILINGS: Record<string, string> = {
  'baseline: one hop, connect client': HOP_CEILING,
  'baseline: one hop, connect-lean client': HOP_CEILING,
  'scenario: balance': HOP_CEILING,
  'scenario: airtime': HOP_CEILING,
  'scenario: data': HOP_CEILING,
  'scenario: bulksms': HOP_CEILING,
  'scenario: mixed': HOP_CEILING,
  'scenario: airtime over gRPC to the core': ECHO_CEILING,
};

/** Whether BENCH_ONLY asks for this measurement, or for one whose ceiling it is. */
function selected(name: string): boolean {
  if (ONLY.length === 0) return true;
  const asked = (n: string) => ONLY.some((part) => n.includes(part));
  return asked(name) || Object.entries(CEILINGS).some(([n, ceiling]) => ceiling === name && asked(n));
}

const children: ChildProcess[] = [];
process.on('exit', () => children.forEach((c) => c.kill('SIGKILL')));

/**
 * The command line that runs `script` (a .ts path) built, as `npm start` runs the service:
 * ceilings and scenarios alike run from dist/ (bin/build.js, done at the start of the run).
 */
function built(script: string, args: string[] = []): string[] {
  return ['--enable-source-maps', path.join('dist', script.replace(/\.ts$/, '.js')), ...args];
}

/** Starts `script` built and waits for its {"port":N} line. */
async function startChild(script: string, args: string[] = [], env: Record<string, string> = {}): Promise<{ child: ChildProcess; port: number }> {
  const child = spawn(process.execPath, built(script, args), {
    env: { ...process.env, ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  children.push(child);
  let stderr = '';
  child.stderr!.on('data', (c: Buffer) => (stderr += c.toString()));
  const lines = createInterface({ input: child.stdout! });
  const port = await new Promise<number>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`${script} did not start: ${stderr}`)), 30_000);
    lines.on('line', (line) => {
      const match = /^\{"port":(\d+)\}$/.exec(line);
      if (match) {
        clearTimeout(timer);
        resolve(Number(match[1]));
      }
    });
    child.once('exit', (code) => reject(new Error(`${script} exited (${code}): ${stderr}`)));
  });
  lines.on('line', () => {});
  return { child, port };
}

async function stop(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null) return;
  await new Promise((resolve) => {
    child.once('exit', resolve);
    child.kill('SIGTERM');
  });
}

/** Polls GET /healthz until the gateway says the core answers. */
async function waitForHealth(port: number): Promise<void> {
  const deadline = Date.now() + 30_000;
  while (Date.now() < deadline) {
    try {
      if ((await fetch(`http://127.0.0.1:${port}/healthz`)).ok) return;
    } catch {
      // Not listening yet.
    }
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  throw new Error('the service did not become healthy within 30 s');
}

async function freePort(): Promise<number> {
  return new Promise((resolve) => {
    const server = createServer();
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as { port: number };
      server.close(() => resolve(port));
    });
  });
}

interface HttpLoad {
  method?: 'GET' | 'POST';
  path: string;
  headers?: Record<string, string>;
  body?: string;
}

/** autocannon for DURATION_MS over CONNECTIONS keep-alive connections, after a warm-up. */
async function http(port: number, requests: HttpLoad[]): Promise<Figures> {
  const options = (durationMs: number): autocannon.Options => ({
    url: `http://127.0.0.1:${port}`,
    connections: CONNECTIONS,
    duration: durationMs / 1000,
    requests: requests.map((r) => ({ method: r.method ?? 'GET', path: r.path, headers: r.headers ?? {}, ...(r.body ? { body: r.body } : {}) })),
  });
  await autocannon(options(WARMUP_MS));
  const result = await autocannon(options(DURATION_MS));
  const errors = result.errors + result.timeouts + result.non2xx;
  return {
    requestsPerSecond: Math.round(result.requests.total / (DURATION_MS / 1000)),
    p50Ms: result.latency.p50,
    p99Ms: result.latency.p99,
    errors,
    requests: result.requests.total,
  };
}

/** A bounded gRPC load: CONNECTIONS calls in flight for DURATION_MS, after a warm-up. */
async function grpcLoad(call: () => Promise<unknown>): Promise<Figures> {
  const run = async (durationMs: number) => {
    const latencies: number[] = [];
    let errors = 0;
    const deadline = performance.now() + durationMs;
    const worker = async () => {
      while (performance.now() < deadline) {
        const started = performance.now();
        try {
          await call();
          latencies.push(performance.now() - started);
        } catch {
          errors += 1;
        }
      }
    };
    const started = performance.now();
    await Promise.all(Array.from({ length: CONNECTIONS }, worker));
    return summarize(latencies, performance.now() - started, errors);
  };
  await run(WARMUP_MS);
  return run(DURATION_MS);
}

const results: Record<string, Figures & { ceiling?: string; ratio?: number }> = {};
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
  const [port, corePort] = [await freePort(), await freePort()];
  const service = spawn(process.execPath, built('bin/start.ts'), {
    env: {
      ...process.env,
      DATA_DIR: dataDir,
      PORT: String(port),
      HOST: '127.0.0.1',
      CORE_PORT: String(corePort),
      // Bench-only: the per-key limit is still counted on every request, but 60 a minute
      // would make the limit, not the service, what is measured.
      RATE_LIMIT_PER_MINUTE: '1000000',
    },
    stdio: ['ignore', 'ignore', 'inherit'],
  });
  children.push(service);
  await waitForHealth(port);
  try {
    const coreUrl = `http://127.0.0.1:${corePort}`;
    const admin = createClient(AdminService, createGrpcTransport({ baseUrl: coreUrl, interceptors: [bearer(readTokenFile(dataDir, ADMIN_TOKEN_FILE)!)] }));
    const created = await admin.createAccount({ name: 'Bench Stores', tierId: 'api' });
    const accountId = created.account!.accountId;
    // 100 million Naira: room for a million airtime purchases.
    await admin.creditWallet({ accountId, amountKobo: 10_000_000_000n, memo: 'bench funding' });
    const keys = { 'X-Public-Key': created.issuedKey!.publicKey, 'X-Secret-Key': created.issuedKey!.secretKey };
    const json = { ...keys, 'Content-Type': 'application/json' };
    const recipients = Array.from({ length: 100 }, (_, i) => `0803${String(1_000_000 + i).padStart(7, '0')}`);
    const loads: Record<string, HttpLoad> = {
      balance: { path: '/api/v1?action=balance', headers: keys },
      airtime: { method: 'POST', path: '/api/v1?action=airtime', headers: json, body: JSON.stringify({ network: 'mtn', phone: '08031234567', amount: 100 }) },
      data: { method: 'POST', path: '/api/v1?action=data', headers: json, body: JSON.stringify({ plan_id: 1, phone: '08031234567' }) },
      bulksms: { method: 'POST', path: '/api/v1?action=bulksms', headers: json, body: JSON.stringify({ sender: 'Bench', recipients, message: 'Your order has shipped.' }) },
    };
    for (const [name, load] of Object.entries(loads)) {
      if (selected(`scenario: ${name}`)) record(`scenario: ${name}`, await http(port, [load]));
    }
    if (selected('scenario: mixed')) {
      // Mixed: mostly reads and airtime, as a reseller's traffic looks.
      record('scenario: mixed', await http(port, [loads.balance!, loads.airtime!, loads.airtime!, loads.data!, { path: '/api/v1?action=transactions&limit=20', headers: keys }]));
    }
    if (selected('scenario: airtime over gRPC to the core')) {
      const buy = grpcJsCaller(coreUrl, PurchaseService, 'buyAirtime', readTokenFile(dataDir, SERVICE_TOKEN_FILE)!);
      record('scenario: airtime over gRPC to the core', await grpcLoad(() => buy({ accountId, network: 'mtn', phone: '08031234567', amountKobo: 10_000n })));
    }
    const check = await admin.checkLedger({});
    if (check.violationCount !== 0n) throw new Error(`ledger check after the run: ${check.violationCount} violations`);
  } finally {
    await stop(service);
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

execFileSync(process.execPath, ['bin/build.js'], { stdio: 'inherit' });
await baselines();
await scenarios();
if (Object.keys(results).length === 0) {
  console.error(`FAILED: BENCH_ONLY=${process.env['BENCH_ONLY']} names no measurement`);
  process.exit(1);
}
const output = table();
console.log(`\n${output}\n`);
writeFileSync(
  OUTPUT,
  JSON.stringify({ at: new Date().toISOString(), node: process.version, durationMs: DURATION_MS, connections: CONNECTIONS, results }, null, 2) + '\n',
);
console.log(`Figures written to ${OUTPUT}.`);
const failed = Object.entries(results).filter(([, f]) => f.errors > 0);
if (failed.length > 0) {
  console.error(`FAILED: errors during ${failed.map(([n]) => n).join(', ')}`);
  process.exit(1);
}
process.exit(0);
