/**
 * Runs the real service as an operator does: built (bin/build.js, once per test run) and
 * started as `npm start` starts it, `node --enable-source-maps dist/bin/start.js`, as a
 * child process in a fresh data directory; and keeps everything it writes: stdout (the
 * JSON log lines of both threads) and stderr. Not a test file: the ops tests share it.
 */
import { type ChildProcess, execFileSync, spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { once } from 'node:events';
import { mkdtempSync, rmSync } from 'node:fs';
import http from 'node:http';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { type Client, createClient } from '@connectrpc/connect';
import { createGrpcTransport } from '@connectrpc/connect-node';
import { API_TIER_ID } from '../../core/catalog/defaults.js';
import { AdminService } from '../../gen/prepaid/v1/admin_pb.js';
import { ADMIN_TOKEN_FILE, readTokenFile, SERVICE_TOKEN_FILE } from '../../runtime/tokens.js';
import { bearer } from '../helpers/core.js';

/** Starting node, the core thread and the gateway takes a few seconds here. */
const START_TIMEOUT_MS = 20_000;

/** One parsed log line. */
export type LogLine = Record<string, unknown> & { event?: string; service?: string; level?: string };

/** A running service and what it has written so far. */
export interface Service {
  child: ChildProcess;
  dataDir: string;
  /** http://127.0.0.1:<port> of the gateway. */
  gatewayUrl: string;
  gatewayPort: number;
  /** http://127.0.0.1:<port> of the core's gRPC server. */
  coreUrl: string;
  /** http://127.0.0.1:<port>/metrics of the core's metrics listener. */
  coreMetricsUrl: string;
  admin: Client<typeof AdminService>;
  adminToken: string;
  serviceToken: string;
  /** Everything written to stdout and stderr so far. */
  stdout(): string;
  stderr(): string;
  /** stdout's JSON lines so far (a line that is not JSON fails the caller's checks: it is kept as {raw}). */
  lines(): LogLine[];
  /** Resolves with the exit code and signal once the process is gone. */
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
  /** Creates an API-tier account with a key pair and credits it. */
  apiAccount(balanceKobo: number): Promise<{ accountId: string; publicKey: string; secretKey: string }>;
  /** Sends SIGTERM and waits for the exit. */
  stop(): Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
  /** Kills it if still running and removes its data directory. */
  cleanup(): Promise<void>;
}

let builtAlready = false;

/** Builds dist/ from the sources of this checkout, the first time a test asks for the service. */
function buildOnce(): void {
  if (builtAlready) return;
  execFileSync(process.execPath, ['bin/build.js'], { stdio: ['ignore', 'ignore', 'inherit'] });
  builtAlready = true;
}

/** How the service is started: node itself (the default), or `npm start` as an operator types it. */
export interface StartOptions {
  /**
   * Run `npm start` (its prestart build included): `child` is then the npm process, the one a process manager
   * holds.
   */
  npm?: boolean;
}

/** Starts the service on free ports with `env` on top of quiet, test-friendly defaults. */
export async function startService(env: Record<string, string> = {}, options: StartOptions = {}): Promise<Service> {
  const dataDir = mkdtempSync(path.join(tmpdir(), 'prepaid-ops-'));
  // Nothing from the test process's own environment decides ports, tokens or the store.
  const inherited = Object.fromEntries(
    Object.entries(process.env).filter(
      ([name]) =>
        !/^(ADMIN_TOKEN|SERVICE_TOKEN|CORE_|DATA_DIR|PORT|HOST|MONGODB_|LOG_LEVEL|SHUTDOWN_|METRICS_|DASHBOARD_)/.test(
          name,
        ),
    ),
  );
  if (!options.npm) buildOnce();
  const [command, args] = options.npm
    ? ['npm', ['start', '--silent']]
    : [process.execPath, ['--enable-source-maps', 'dist/bin/start.js']];
  const child = spawn(command as string, args as string[], {
    env: {
      ...inherited,
      DATA_DIR: dataDir,
      PORT: '0',
      HOST: '127.0.0.1',
      CORE_PORT: '0',
      CORE_METRICS_PORT: '0',
      DASHBOARD_PORT: '0',
      CONSOLE_PORT: '0',
      DASHBOARD_HOST: '127.0.0.1',
      // These tests buy in bursts to many new numbers with one new key, which the velocity brake
      // would rightly freeze; the brake is test/gateway/velocity-brake.test.ts's.
      VELOCITY_BRAKE: 'off',
      ...env,
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  // 'close', not 'exit': 'exit' can come before the last of stdout is read, and a test reads
  // the stop's last lines as soon as this resolves (a full run once saw no shutdown line at all).
  const exited = once(child, 'close').then(([code, signal]) => ({
    code: code as number | null,
    signal: signal as NodeJS.Signals | null,
  }));
  let stdout = '';
  let stderr = '';
  child.stdout!.on('data', (chunk: Buffer) => (stdout += chunk.toString('utf8')));
  child.stderr!.on('data', (chunk: Buffer) => (stderr += chunk.toString('utf8')));
  const lines = () => parseLines(stdout);

  const listening = await new Promise<{ core: LogLine; gateway: LogLine }>((resolve, reject) => {
    const timer = setTimeout(
      () => reject(new Error(`the service did not start in time: ${stderr}\n${stdout}`)),
      START_TIMEOUT_MS,
    );
    const check = () => {
      const all = lines();
      const core = all.find((l) => l.event === 'core.listening');
      const gateway = all.find((l) => l.event === 'gateway.listening');
      const dashboard = all.find((l) => l.event === 'dashboard.listening');
      const consoleLine = all.find((l) => l.event === 'console.listening');
      if (core && gateway && dashboard && consoleLine) {
        clearTimeout(timer);
        child.stdout!.off('data', check);
        resolve({ core, gateway });
      }
    };
    child.stdout!.on('data', check);
    void exited.then(({ code }) => {
      clearTimeout(timer);
      reject(new Error(`the service exited (${code}) before listening: ${stderr}\n${stdout}`));
    });
  });

  const coreUrl = `http://${String(listening.core['address'])}`;
  const gatewayPort = Number(listening.gateway['port']);
  const adminToken = readTokenFile(dataDir, ADMIN_TOKEN_FILE)!;
  const serviceToken = readTokenFile(dataDir, SERVICE_TOKEN_FILE)!;
  const admin = createClient(
    AdminService,
    createGrpcTransport({ baseUrl: coreUrl, interceptors: [bearer(adminToken)] }),
  );
  const stop = async () => {
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGTERM');
    return exited;
  };
  return {
    child,
    dataDir,
    gatewayUrl: `http://127.0.0.1:${gatewayPort}`,
    gatewayPort,
    coreUrl,
    coreMetricsUrl: `http://${String(listening.core['metrics'])}/metrics`,
    admin,
    adminToken,
    serviceToken,
    stdout: () => stdout,
    stderr: () => stderr,
    lines,
    exited,
    async apiAccount(balanceKobo) {
      const created = await admin.createAccount({ name: `Ops ${randomBytes(3).toString('hex')}`, tierId: API_TIER_ID });
      const accountId = created.account!.accountId;
      if (balanceKobo > 0)
        await admin.creditWallet({ accountId, amountKobo: BigInt(balanceKobo), memo: 'ops test funding' });
      return { accountId, publicKey: created.issuedKey!.publicKey, secretKey: created.issuedKey!.secretKey };
    },
    stop,
    async cleanup() {
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
      await exited;
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

/** Every line of `text`, parsed; a line that is not JSON is kept as {raw} so that checks see it. */
export function parseLines(text: string): LogLine[] {
  return text
    .split('\n')
    .filter((line) => line.trim() !== '')
    .map((line) => {
      try {
        return JSON.parse(line) as LogLine;
      } catch {
        return { raw: line };
      }
    });
}

/** An HTTP answer. */
export interface Answer {
  status: number;
  text: string;
  json: any;
}

/** One request on a fresh connection (no keep-alive, so a shutdown never races a reused socket). */
export function request(
  baseUrl: string,
  target: string,
  options: { method?: string; headers?: Record<string, string>; body?: unknown } = {},
): Promise<Answer> {
  const payload = options.body === undefined ? undefined : Buffer.from(JSON.stringify(options.body));
  const headers: Record<string, string> = { ...(options.headers ?? {}) };
  if (payload) {
    headers['Content-Type'] = 'application/json';
    headers['Content-Length'] = String(payload.length);
  }
  return new Promise((resolve, reject) => {
    const req = http.request(
      new URL(target, baseUrl),
      { method: options.method ?? (payload ? 'POST' : 'GET'), headers, agent: false },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (chunk: Buffer) => chunks.push(chunk));
        res.on('end', () => {
          const text = Buffer.concat(chunks).toString('utf8');
          let json: unknown;
          try {
            json = JSON.parse(text);
          } catch {
            json = undefined;
          }
          resolve({ status: res.statusCode ?? 0, text, json });
        });
        res.on('error', reject);
      },
    );
    req.on('error', reject);
    req.end(payload);
  });
}

/** The key pair headers of an API request. */
export function keyHeaders(keys: { publicKey: string; secretKey: string }): Record<string, string> {
  return { 'X-Public-Key': keys.publicKey, 'X-Secret-Key': keys.secretKey };
}

/** Prometheus text exposition: the value of one sample, by name and exact labels; 0 when absent. */
export function sample(text: string, name: string, labels: Record<string, string> = {}): number {
  for (const line of text.split('\n')) {
    if (line.startsWith('#')) continue;
    const match = /^([a-zA-Z_:][a-zA-Z0-9_:]*)(?:\{(.*)\})? (\S+)$/.exec(line);
    if (!match || match[1] !== name) continue;
    const found = Object.fromEntries(
      [...(match[2] ?? '').matchAll(/(\w+)="((?:[^"\\]|\\.)*)"/g)].map((m) => [m[1], m[2]]),
    );
    const wanted = Object.entries(labels);
    if (Object.keys(found).length === wanted.length && wanted.every(([k, v]) => found[k] === v))
      return Number(match[3]);
  }
  return 0;
}

/** The names a Prometheus text exposition declares with # TYPE. */
export function declaredSeries(text: string): Set<string> {
  return new Set([...text.matchAll(/^# TYPE (\S+) /gm)].map((m) => m[1]!));
}

/** An idempotency key no other request of the run uses. */
export function unique(prefix: string): string {
  return `${prefix}-${randomBytes(6).toString('hex')}`;
}

/** Waits until `ready()` holds; fails (rather than hanging) when it still does not after `boundMs`. */
export async function waitFor(ready: () => boolean, what: string, boundMs = 20_000): Promise<void> {
  const deadline = Date.now() + boundMs;
  while (!ready()) {
    if (Date.now() > deadline) throw new Error(`gave up waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}
