/**
 * What the benchmark's parts share: the load generators, the built servers they measure,
 * and starting the service as `npm start` runs it.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { createServer } from 'node:net';
import path from 'node:path';
import { createInterface } from 'node:readline';
import { createClient } from '@connectrpc/connect';
import { createGrpcTransport } from '@connectrpc/connect-node';
import autocannon from 'autocannon';
import { AdminService } from '../gen/prepaid/v1/admin_pb.js';
import { WebhookService } from '../gen/prepaid/v1/webhooks_pb.js';
import { ADMIN_TOKEN_FILE, readTokenFile } from '../runtime/tokens.js';
import { bearer } from '../test/helpers/core.js';
import { type Figures, sliceP99s, summarize } from './stats.js';

export const DURATION_MS = Number(process.env['BENCH_DURATION_MS'] ?? 10_000);
export const CONNECTIONS = Number(process.env['BENCH_CONNECTIONS'] ?? 50);
/** A short warm-up before each measurement lets the JIT and connections settle. */
const WARMUP_MS = Math.min(2_000, DURATION_MS / 4);
/**
 * Measurements in turn (bench/run.ts, PAIRED; bench/side-by-side.ts): this many rounds
 * (BENCH_PAIRED_ROUNDS) of one window on each side, each window half a measurement long.
 */
export const PAIRED_ROUNDS = Number(process.env['BENCH_PAIRED_ROUNDS'] ?? 8);
export const PAIRED_WINDOW = { durationMs: Math.max(2_000, Math.round(DURATION_MS / 2)), warmupMs: 500 };

/**
 * PAIRED_ROUNDS rounds of one window of `a` and one of `b`, each round in the other order so
 * that neither always runs first: each round's two figures. Any error fails the run.
 */
export async function inTurn(
  what: string,
  a: () => Promise<Figures>,
  b: () => Promise<Figures>,
): Promise<[Figures, Figures][]> {
  const rounds: [Figures, Figures][] = [];
  for (let round = 0; round < PAIRED_ROUNDS; round += 1) {
    let ofA: Figures;
    let ofB: Figures;
    if (round % 2 === 0) {
      ofA = await a();
      ofB = await b();
    } else {
      ofB = await b();
      ofA = await a();
    }
    if (ofA.errors > 0 || ofB.errors > 0)
      throw new Error(`${what}, round ${round + 1} in turn: errors ${ofA.errors} and ${ofB.errors}`);
    rounds.push([ofA, ofB]);
  }
  return rounds;
}

export const children: ChildProcess[] = [];
process.on('exit', () => {
  for (const child of children) child.kill('SIGKILL');
});

/**
 * The command line that runs `script` (a .ts path) built, as `npm start` runs the service:
 * ceilings and scenarios alike run from dist/ (bin/build.js, done at the start of the run).
 */
export function built(script: string, args: string[] = [], dist = 'dist'): string[] {
  return ['--enable-source-maps', path.join(dist, script.replace(/\.ts$/, '.js')), ...args];
}

/** Starts `script` built and waits for its {"port":N} line. */
export async function startChild(
  script: string,
  args: string[] = [],
  env: Record<string, string> = {},
): Promise<{ child: ChildProcess; port: number }> {
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

export async function stop(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null) return;
  await new Promise((resolve) => {
    child.once('exit', resolve);
    child.kill('SIGTERM');
  });
}

/** Polls GET /healthz until the gateway says the core answers. */
export async function waitForHealth(port: number): Promise<void> {
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

export async function freePort(): Promise<number> {
  return new Promise((resolve) => {
    const server = createServer();
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as { port: number };
      server.close(() => resolve(port));
    });
  });
}

/** The API's balance request with a key pair's headers. */
export function balanceLoad(keys: Record<string, string>): HttpLoad {
  return { path: '/api/v1?action=balance', headers: keys };
}

/** The benchmark's airtime purchase (100 Naira of MTN) with a key pair's headers, Content-Type added. */
export function airtimeLoad(keys: Record<string, string>): HttpLoad {
  return {
    method: 'POST',
    path: '/api/v1?action=airtime',
    headers: { ...keys, 'Content-Type': 'application/json' },
    body: JSON.stringify({ network: 'mtn', phone: '08031234567', amount: 100 }),
  };
}

export interface HttpLoad {
  method?: 'GET' | 'POST';
  path: string;
  headers?: Record<string, string>;
  body?: string;
  /** Called before each request goes out: its own body and extra headers (a new transfer each time). */
  fresh?: () => { body: string; headers: Record<string, string> };
}

/**
 * Seconds of CPU (user and system, every thread) a process has used so far, from
 * /proc/PID/stat (fields 14 and 15, in clock ticks). Linux only, as the benchmark is.
 */
export function cpuSeconds(pid: number): number {
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  // The command name (field 2) is in parentheses and may hold spaces: count after it.
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return (Number(fields[11]) + Number(fields[12])) / CLOCK_TICKS_PER_SECOND;
}
/** USER_HZ, which /proc counts CPU time in: 100 on every Linux this runs on. */
const CLOCK_TICKS_PER_SECOND = 100;

/** What a measurement may ask of `http` beyond the load itself. */
export interface HttpOptions {
  /** Keep-alive connections (default CONNECTIONS). */
  connections?: number;
  /** The measured window (default DURATION_MS). */
  durationMs?: number;
  /** The warm-up before it (default WARMUP_MS). */
  warmupMs?: number;
  /**
   * The service's process: its CPU from the start of the measured window to the end of
   * `settle` is reported per request, gateway and core together.
   */
  cpuPid?: number;
  /** Waited for after the load and before the CPU is read again (e.g. deliveries catching up). */
  settle?: () => Promise<void>;
  /** Requests a second over all connections, at most (default: as fast as answers come back). */
  overallRate?: number;
  /** Called just before the measured window opens (e.g. to read the service's counters). */
  atWindowStart?: () => Promise<void>;
  /** `steady` only: also the p99 of each slice of this many ms of the window (`sliceP99Ms`). */
  sliceMs?: number;
}

/** autocannon's options for `requests` over `port`, for `durationMs`. */
function loadOptions(port: number, requests: HttpLoad[], extra: HttpOptions, durationMs: number): autocannon.Options {
  return {
    url: `http://127.0.0.1:${port}`,
    connections: extra.connections ?? CONNECTIONS,
    duration: durationMs / 1000,
    ...(extra.overallRate === undefined ? {} : { overallRate: extra.overallRate }),
    requests: requests.map((r) => ({
      method: r.method ?? 'GET',
      path: r.path,
      headers: r.headers ?? {},
      ...(r.body ? { body: r.body } : {}),
      ...(r.fresh
        ? {
            setupRequest: (request: autocannon.Request) => {
              const next = r.fresh!();
              return { ...request, body: next.body, headers: { ...request.headers, ...next.headers } };
            },
          }
        : {}),
    })),
  };
}

/** The errors of an autocannon result, by kind, when there were any. */
function errorsOf(result: autocannon.Result): Pick<Figures, 'errors' | 'errorKinds'> {
  // autocannon counts its time-outs among its errors already (adding them again counted each twice).
  const errors = result.errors + result.non2xx;
  if (errors === 0) return { errors };
  const statuses = Object.fromEntries(
    Object.entries(result.statusCodeStats ?? {})
      .filter(([status]) => !status.startsWith('2'))
      .map(([status, stat]) => [status, stat?.count ?? 0]),
  );
  return {
    errors,
    errorKinds: { timeouts: result.timeouts, connectionErrors: result.errors - result.timeouts, statuses },
  };
}

/** autocannon for DURATION_MS over CONNECTIONS keep-alive connections, after a warm-up. */
export async function http(port: number, requests: HttpLoad[], extra: HttpOptions = {}): Promise<Figures> {
  const options = (durationMs: number) => loadOptions(port, requests, extra, durationMs);
  await autocannon(options(extra.warmupMs ?? WARMUP_MS));
  await extra.atWindowStart?.();
  const cpuBefore = extra.cpuPid === undefined ? 0 : cpuSeconds(extra.cpuPid);
  const windowMs = extra.durationMs ?? DURATION_MS;
  const result = await autocannon(options(windowMs));
  await extra.settle?.();
  const cpuAfter = extra.cpuPid === undefined ? 0 : cpuSeconds(extra.cpuPid);
  const errors = errorsOf(result);
  return {
    requestsPerSecond: Math.round(result.requests.total / (windowMs / 1000)),
    p50Ms: result.latency.p50,
    p99Ms: result.latency.p99,
    maxMs: result.latency.max,
    ...errors,
    requests: result.requests.total,
    ...(extra.cpuPid === undefined || result.requests.total === 0
      ? {}
      : { serviceCpuMsPerRequest: Number((((cpuAfter - cpuBefore) * 1000) / result.requests.total).toFixed(4)) }),
  };
}

/**
 * A steady window: one autocannon run whose connections stay open from the warm-up through the
 * window, counting only the answers that arrive inside the window (their rate, their latency).
 * For long answers (a slow upstream): a fresh run per window would open all its connections at
 * once (a burst of thousands of connects, each answer's latency counting its connect) and cut
 * off the requests in flight at its end, so with answers of 2 s and a 10 s window a connection
 * could complete at most 4 of the 5 it had time for, and a server that does nothing but wait
 * measured 79% of the ideal with p99 3.5 s. Errors count over the whole run.
 */
export async function steady(port: number, requests: HttpLoad[], extra: HttpOptions = {}): Promise<Figures> {
  const warmupMs = extra.warmupMs ?? WARMUP_MS;
  const windowMs = extra.durationMs ?? DURATION_MS;
  let run!: autocannon.Instance;
  const ended = new Promise<autocannon.Result>((resolve, reject) => {
    run = autocannon(loadOptions(port, requests, extra, warmupMs + windowMs), (error, result) =>
      error ? reject(error) : resolve(result),
    );
  });
  const started = performance.now();
  const latencies: number[] = [];
  const answers: { atMs: number; latencyMs: number }[] = [];
  let cpuBefore = 0;
  let cpuAfter = 0;
  const opens = setTimeout(() => {
    void extra.atWindowStart?.();
    if (extra.cpuPid !== undefined) cpuBefore = cpuSeconds(extra.cpuPid);
  }, warmupMs);
  const closes = setTimeout(() => {
    if (extra.cpuPid !== undefined) cpuAfter = cpuSeconds(extra.cpuPid);
  }, warmupMs + windowMs);
  run.on('response', (_client: unknown, _status: number, _bytes: number, responseTime: number) => {
    const at = performance.now() - started;
    if (at >= warmupMs && at < warmupMs + windowMs) {
      latencies.push(responseTime);
      if (extra.sliceMs !== undefined) answers.push({ atMs: at, latencyMs: responseTime });
    }
  });
  const result = await ended;
  clearTimeout(opens);
  clearTimeout(closes);
  const figures = { ...summarize(latencies, windowMs, 0), ...errorsOf(result) };
  figures.maxMs = Math.max(0, ...latencies);
  if (extra.sliceMs !== undefined)
    figures.sliceP99Ms = sliceP99s(answers, warmupMs, extra.sliceMs, Math.ceil(windowMs / extra.sliceMs));
  if (extra.cpuPid !== undefined && latencies.length > 0 && cpuAfter > 0)
    figures.serviceCpuMsPerRequest = Number((((cpuAfter - cpuBefore) * 1000) / latencies.length).toFixed(4));
  return figures;
}

/** A bounded gRPC load: CONNECTIONS calls in flight for DURATION_MS, after a warm-up. */
export async function grpcLoad(call: () => Promise<unknown>): Promise<Figures> {
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

/**
 * The service as `npm start` runs it (built, core on its thread), on `dataDir`, with the
 * per-address connection cap and the per-key limit out of the way: it is still counted on every request, but 60 a minute would
 * make the limit, not the service, what is measured.
 */
export async function startService(
  dataDir: string,
  env: Record<string, string> = {},
  // BENCH_SERVICE_NODE_ARGS (e.g. "--cpu-prof --cpu-prof-dir=/tmp/prof"): node's flags for the service alone.
  {
    nodeArgs = (process.env['BENCH_SERVICE_NODE_ARGS'] ?? '').split(' ').filter(Boolean),
    dist = 'dist',
  }: { nodeArgs?: string[]; dist?: string } = {},
): Promise<{ service: ChildProcess; port: number; corePort: number }> {
  const [port, corePort] = [await freePort(), await freePort()];
  const service = spawn(process.execPath, [...nodeArgs, ...built('bin/start.ts', [], dist)], {
    env: {
      ...process.env,
      DATA_DIR: dataDir,
      PORT: String(port),
      HOST: '127.0.0.1',
      CORE_PORT: String(corePort),
      RATE_LIMIT_PER_MINUTE: '1000000',
      // Every load comes from this one address, the slow scenario's 3,000 connections at once.
      CONNECTIONS_PER_ADDRESS: '4096',
      // Free ports for the rest too, so a bench beside a running `npm start` (or another bench) starts.
      DASHBOARD_PORT: '0',
      CONSOLE_PORT: '0',
      CORE_METRICS_PORT: '0',
      // The velocity brake stays on and counts every purchase, but its allowance is beyond any
      // bench load: one key buying thousands a second is the bench, not a leak.
      VELOCITY_NEW_KEY_NAIRA: '100000000',
      ...env,
    },
    stdio: ['ignore', 'ignore', 'inherit'],
  });
  children.push(service);
  await waitForHealth(port);
  return { service, port, corePort };
}

/** The core on `corePort`, with the admin token the service wrote in `dataDir`: for its admin-only services. */
export function adminTransport(dataDir: string, corePort: number) {
  return createGrpcTransport({
    baseUrl: `http://127.0.0.1:${corePort}`,
    interceptors: [bearer(readTokenFile(dataDir, ADMIN_TOKEN_FILE)!)],
  });
}

/** The core's admin service, with the admin token the service wrote in `dataDir`. */
export function adminOf(dataDir: string, corePort: number) {
  return createClient(AdminService, adminTransport(dataDir, corePort));
}

/** An API account with 100 million Naira (room for a million airtime purchases) and its key pair's headers. */
export async function fundedAccount(admin: ReturnType<typeof adminOf>, name: string) {
  const created = await admin.createAccount({ name, tierId: 'api' });
  const accountId = created.account!.accountId;
  await admin.creditWallet({ accountId, amountKobo: 10_000_000_000n, memo: 'bench funding' });
  const keys = { 'X-Public-Key': created.issuedKey!.publicKey, 'X-Secret-Key': created.issuedKey!.secretKey };
  return { accountId, keys, json: { ...keys, 'Content-Type': 'application/json' } };
}

/** Points the account's live webhook at a receiver on loopback (the service needs WEBHOOK_ALLOW_PRIVATE). */
export async function hookAccount(dataDir: string, corePort: number, accountId: string, receiverPort: number) {
  const webhooks = createClient(WebhookService, adminTransport(dataDir, corePort));
  await webhooks.setWebhook({ accountId, url: `http://127.0.0.1:${receiverPort}/hooks` });
}

/** The core's oldest-undelivered gauge, read from its metrics listener. */
export async function oldestUndeliveredSeconds(metricsPort: number): Promise<number> {
  const text = await (await fetch(`http://127.0.0.1:${metricsPort}/metrics`)).text();
  const line = text.split('\n').find((l) => l.startsWith('prepaid_core_webhook_oldest_undelivered_age_seconds '));
  if (line === undefined)
    throw new Error('the core does not export prepaid_core_webhook_oldest_undelivered_age_seconds');
  return Number(line.split(' ')[1]);
}

/** How long a webhooks measurement waits for the deliveries to catch up before reading the CPU. */
const WEBHOOK_DRAIN_MS = 30_000;

/**
 * Waits until nothing is left undelivered (or WEBHOOK_DRAIN_MS), so that a window's CPU counts
 * the deliveries of its purchases; returns the oldest undelivered event's age when it was called.
 */
export async function drainWebhooks(metricsPort: number): Promise<number> {
  const lag = await oldestUndeliveredSeconds(metricsPort);
  const deadline = Date.now() + WEBHOOK_DRAIN_MS;
  while ((await oldestUndeliveredSeconds(metricsPort)) > 0 && Date.now() < deadline)
    await new Promise((r) => setTimeout(r, 100));
  return lag;
}
