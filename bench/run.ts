/**
 * `npm run bench`: how fast the service is, against the limits of this machine, in one run.
 *
 * Baselines (ceilings) and scenarios are measured one after the other on the same machine,
 * so the ratios survive a noisy neighbour. Every server runs in its own child process, built
 * (bin/build.js) as `npm start` runs the service; the load generator (autocannon over
 * keep-alive HTTP/1.1, or a bounded gRPC loop) runs here. Any error or non-2xx answer is
 * counted, reported, and fails the run. The targets (shares of a ceiling, of the
 * ideal, of CPU) are reported as met or not; they fail the run only with BENCH_STRICT=1,
 * because on a small shared machine they measure the machine as much as the service.
 *
 * Environment: BENCH_DURATION_MS (per measurement, default 10000), BENCH_CONNECTIONS
 * (default 50), BENCH_OUTPUT (default bench/results.json), BENCH_ONLY (comma-separated
 * parts of measurement names, e.g. "airtime,balance": only those run, with the ceilings
 * their ratios need), BENCH_SCALE (opt-in, comma-separated sizes such as "100k,1m": the
 * scale benchmark of bench/scale.ts, after the rest; "BENCH_ONLY=none BENCH_SCALE=1m" runs it
 * alone), BENCH_STRICT (1: a missed target fails the run), BENCH_PAIRED_ROUNDS (default 8:
 * rounds of balance and airtime beside their ceiling, PAIRED below, of history and balance,
 * of the webhooks scenario's two accounts, and of purchases with and without transfers, in
 * turn), BENCH_SLOW_CONNECTIONS (default
 * 3000) and BENCH_SLOW_DELAY_MS (default 2000): the slow-upstream scenario's purchases in
 * flight and the sandbox's answer time, BENCH_SERVICE_NODE_ARGS (node's flags for the service
 * alone, e.g. "--cpu-prof --cpu-prof-dir=/tmp/prof" to profile it). The "funding" scenario (bank
 * transfers' notifications, and purchases beside them) is bench/funding.ts; "airtime during a backup"
 * is bench/backup.ts, on a filled store of its own (BENCH_BACKUP_STORE, default 250k purchases).
 */
import { execFileSync, spawn } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { AuthService } from '../gen/prepaid/v1/auth_pb.js';
import { PurchaseService } from '../gen/prepaid/v1/purchase_pb.js';
import { readTokenFile, SERVICE_TOKEN_FILE } from '../runtime/tokens.js';
import { BACKUP_SCENARIO, backupScenario } from './backup.js';
import { FUNDING_SCENARIO, fundingScenario } from './funding.js';
import { grpcJsCaller } from './grpc-js-client.js';
import {
  adminOf,
  airtimeLoad,
  balanceLoad,
  built,
  CONNECTIONS,
  children,
  DURATION_MS,
  drainWebhooks,
  freePort,
  fundedAccount,
  grpcLoad,
  type HttpLoad,
  hookAccount,
  http,
  inTurn,
  PAIRED_WINDOW,
  startChild,
  startService,
  steady,
  stop,
} from './harness.js';
import { parseScaleSizes, type ScaleFigures, scale } from './scale.js';
import { type Figures, median, percents } from './stats.js';

const OUTPUT = process.env['BENCH_OUTPUT'] ?? 'bench/results.json';
const ONLY = (process.env['BENCH_ONLY'] ?? '')
  .split(',')
  .map((part) => part.trim())
  .filter(Boolean);

const HOP_CEILING = 'baseline: one hop, grpc-js client';
const ECHO_CEILING = 'baseline: bare gRPC echo';
/**
 * Airtime with failover: the first upstream of the route refuses every connection
 * (a declared ported-number instance on a closed loopback port), the second (a declared
 * sandbox instance) delivers. Its purchases per second are compared with plain airtime of the
 * same run: at least FAILOVER_MIN_SHARE (a target: reported, failing only with BENCH_STRICT=1).
 * The first upstream's circuit opens after a few refusals, so most purchases skip it, as in
 * production; each half-open probe is refused again and moves on.
 */
const FAILOVER_SCENARIO = 'scenario: airtime with failover';
const FAILOVER_MIN_SHARE = 0.8;

/**
 * Airtime again after the data, bulk SMS and history scenarios' writes, on an account made
 * exactly as the webhooks scenario's (fresh, funded, no URL), just before it: the webhooks
 * target compares the two, so it measures what the deliveries add and not what the store and
 * the process grew by since the first airtime run (with bulk SMS in between, that growth alone
 * was read as +106% "for webhooks"). Against the first airtime run it is reported, not judged.
 */
const AIRTIME_AFTER_WRITES = 'scenario: airtime, after the writes';

/** A slow upstream: the sandbox answers after this long, with this many purchases in flight. */
/**
 * Key and recipient controls: airtime from a key with scopes, caps and a per-recipient limit
 * (all far above the load, so none refuses) against a key and account without any, window by
 * window in turn (PAIRED_ROUNDS rounds): what the controls' reads and writes in the reserve
 * cost. At most 5% more service CPU per purchase, at the median of the rounds.
 */
const CONTROLS_SCENARIO = 'scenario: airtime with key and recipient controls';
const CONTROLS_MAX_CPU_ADDED = 0.05;

const SLOW_SCENARIO = 'scenario: airtime, slow upstream';
const SLOW_BARE = 'baseline: bare HTTP answering slowly';
const SLOW_HOP = 'baseline: one hop, upstream answering slowly';
const SLOW_DELAY_MS = Number(process.env['BENCH_SLOW_DELAY_MS'] ?? 2_000);
const SLOW_CONNECTIONS = Number(process.env['BENCH_SLOW_CONNECTIONS'] ?? 3_000);
const SLOW_MIN_SHARE_OF_IDEAL = 0.95;
/** The ideal: every connection completes one purchase per upstream answer. */
const SLOW_IDEAL_PER_SECOND = SLOW_CONNECTIONS / (SLOW_DELAY_MS / 1000);
/** A slow measurement's rate as a share of the ideal. */
const shareOfIdeal = (figures: Figures) => Number((figures.requestsPerSecond / SLOW_IDEAL_PER_SECOND).toFixed(3));
/**
 * The slow scenarios' load, measured in a steady window (bench/harness.ts): several upstream
 * answers per connection, or the window measures the ramp and not the flow; a warm-up of two
 * answers and a second, so the window opens on connections long open and purchases in full flow.
 */
const SLOW_LOAD = {
  connections: SLOW_CONNECTIONS,
  durationMs: Math.max(DURATION_MS, 5 * SLOW_DELAY_MS),
  warmupMs: 2 * SLOW_DELAY_MS + 1_000,
};
const SLOW_MAX_P99_MS = 2_500;

/**
 * The ratio targets (balance and airtime against the one-hop ceiling) measured beside their
 * ceiling as well: PAIRED_ROUNDS rounds of one window on the ceiling and one on the
 * scenario, in turn (each round in the other order), and the median of the rounds' ratios.
 * On the development machine the ceiling measured once at the start of a run swung from 2,386
 * to 4,395 a second between quiet runs minutes apart, and with it every ratio; windows a few
 * seconds apart share the machine's mood. Single rounds still swing (69% to 91% for balance),
 * so the median of eight: in two runs balance measured 80% and 78% this way, against 66% and
 * 62% of the ceiling at their start (docs/performance.md). The targets are judged on the paired
 * ratio; the ratio to the ceiling at the start of the run is still reported.
 */
/** History after the writes, in turn with balance on the same service and account: at least a third of its rate. */
const HISTORY_SCENARIO = 'scenario: history';
const HISTORY_MIN_SHARE = 1 / 3;
const PAIRED: Record<string, { min: number }> = {
  'scenario: balance': { min: 0.8 },
  'scenario: airtime': { min: 0.6 },
};

/**
 * A data purchase through the MSORG dialect (docs/compat.md) in turn with one through
 * `?action=data`, on the same service and account: at least 90% of its rate.
 */
const MSORG_SCENARIO = 'scenario: data through the MSORG dialect';
const MSORG_MIN_SHARE = 0.9;

async function throughMsorg(
  admin: ReturnType<typeof adminOf>,
  port: number,
  keys: Record<string, string>,
  data: HttpLoad,
): Promise<void> {
  const { token } = await admin.createCompatToken({ publicKey: keys['X-Public-Key']!, dialect: 'msorg', inFlight: '' });
  const msorg: HttpLoad = {
    method: 'POST',
    path: '/compat/msorg/api/data/',
    headers: { Authorization: `Token  ${token}`, 'Content-Type': 'application/json' },
    body: JSON.stringify({ network: '1', plan: '1', mobile_number: '08031234567', Ported_number: true }),
  };
  const rounds = await inTurn(
    MSORG_SCENARIO,
    () => http(port, [data], PAIRED_WINDOW),
    () => http(port, [msorg], PAIRED_WINDOW),
  );
  const ratios = rounds.map(([ofData, ofMsorg]) => ofMsorg.requestsPerSecond / ofData.requestsPerSecond);
  const ratio = median(ratios);
  record(MSORG_SCENARIO, rounds[rounds.length - 1]![1]);
  results[MSORG_SCENARIO]!.pairedRatio = Number(ratio.toFixed(3));
  results[MSORG_SCENARIO]!.pairedRatios = ratios.map((r) => Number(r.toFixed(3)));
  console.error(
    `  ${MSORG_SCENARIO}, in turn with ?action=data: ${(ratio * 100).toFixed(0)}% at the median of ${ratios.length} ` +
      `rounds (${percents(ratios)}); target ${MSORG_MIN_SHARE * 100}%`,
  );
}

/** Each measurement's ceiling, for its ratio. */
const CEILINGS: Record<string, string> = {
  'baseline: one hop, connect client': HOP_CEILING,
  'baseline: one hop, connect-lean client': HOP_CEILING,
  'scenario: balance': HOP_CEILING,
  'scenario: airtime': HOP_CEILING,
  'scenario: airtime with webhooks': HOP_CEILING,
  [CONTROLS_SCENARIO]: HOP_CEILING,
  [AIRTIME_AFTER_WRITES]: HOP_CEILING,
  'scenario: data': HOP_CEILING,
  [MSORG_SCENARIO]: HOP_CEILING,
  'scenario: bulksms': HOP_CEILING,
  'scenario: history, fresh store': HOP_CEILING,
  'scenario: history': HOP_CEILING,
  'scenario: mixed': HOP_CEILING,
  'scenario: airtime over gRPC to the core': ECHO_CEILING,
  [SLOW_HOP]: SLOW_BARE,
  [SLOW_SCENARIO]: SLOW_BARE,
};

/** Whether BENCH_ONLY asks for this measurement, or for one whose ceiling it is. */
function selected(name: string): boolean {
  if (ONLY.length === 0) return true;
  const asked = (n: string) => ONLY.some((part) => n.includes(part));
  // The webhooks scenario is judged against airtime without webhooks in the same store state,
  // which is reported against the first airtime run.
  if ((name === 'scenario: airtime' || name === AIRTIME_AFTER_WRITES) && asked(WEBHOOKS_SCENARIO)) return true;
  // So is the failover scenario.
  if (name === 'scenario: airtime' && asked(FAILOVER_SCENARIO)) return true;
  // So is the funding scenario (notifications against purchases).
  if (name === 'scenario: airtime' && asked(FUNDING_SCENARIO)) return true;
  return asked(name) || Object.entries(CEILINGS).some(([n, ceiling]) => ceiling === name && asked(n));
}

/**
 * Webhooks: every purchase's event signed and POSTed to a receiver on loopback. What is ours
 * is the service's CPU per purchase with deliveries against without (at most 25%
 * more), and deliveries keeping up (the oldest undelivered event younger than
 * WEBHOOK_MAX_LAG_S at the end). The throughput share is reported too, but it also measures
 * the receiver and the load generator sharing the machine's cores, so it is no target.
 */
const WEBHOOKS_SCENARIO = 'scenario: airtime with webhooks';
const WEBHOOK_MAX_CPU_ADDED = 0.25;
const WEBHOOK_MAX_LAG_S = 5;

const STRICT = process.env['BENCH_STRICT'] === '1';
/** Each target of docs/performance.md as measured in this run: met or not, in words. */
const targets: { met: boolean; text: string }[] = [];
function target(met: boolean, text: string): void {
  targets.push({ met, text });
  console.error(`  target ${met ? 'met' : 'NOT met'}: ${text}`);
}

const results: Record<
  string,
  Figures & {
    ceiling?: string;
    ratio?: number;
    shareOfAirtime?: number;
    oldestUndeliveredSeconds?: number;
    cpuAddedByWebhooks?: number;
    idealPerSecond?: number;
    shareOfIdeal?: number;
    stagesMs?: Record<string, number>;
    pairedRatio?: number;
    pairedRatios?: number[];
    pairedCpuAdded?: number;
    pairedCpuAddedRounds?: number[];
  }
> = {};
function record(name: string, figures: Figures): void {
  const entry: Figures & { ceiling?: string; ratio?: number } = { ...figures };
  const ceiling = CEILINGS[name];
  if (ceiling && results[ceiling]) {
    entry.ceiling = ceiling;
    entry.ratio = Number((figures.requestsPerSecond / results[ceiling]!.requestsPerSecond).toFixed(3));
  }
  results[name] = entry;
  const cpu =
    figures.serviceCpuMsPerRequest === undefined ? '' : `, service CPU ${figures.serviceCpuMsPerRequest} ms a request`;
  const kinds = figures.errorKinds;
  const what =
    kinds === undefined
      ? ''
      : ` (${kinds.timeouts} timed out, ${kinds.connectionErrors} connection errors, ` +
        `statuses ${JSON.stringify(kinds.statuses)})`;
  console.error(
    `  ${name}: ${figures.requestsPerSecond} req/s, p50 ${figures.p50Ms} ms, p99 ` +
      `${figures.p99Ms} ms, errors ${figures.errors}${what}${cpu}`,
  );
}

async function baselines(): Promise<void> {
  console.error('baselines');
  if (selected('baseline: bare HTTP')) {
    const bare = await startChild('bench/servers/http-bare.ts');
    record('baseline: bare HTTP', await http(bare.port, [{ path: '/' }]));
    await stop(bare.child);
  }

  const hops = (['grpc-js', 'connect', 'connect-lean'] as const).filter((kind) =>
    selected(`baseline: one hop, ${kind} client`),
  );
  if (hops.length > 0 || selected(ECHO_CEILING)) {
    const echo = await startChild('bench/servers/grpc-echo.ts');
    const echoUrl = `http://127.0.0.1:${echo.port}`;
    // grpc-js is the ceiling docs/performance.md names; Connect's stock gRPC transport is what the
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
  const { service, port, corePort } = await startService(dataDir, {
    WEBHOOK_ALLOW_PRIVATE: 'true',
    CORE_METRICS_PORT: String(metricsPort),
  });
  const receiver = selected(WEBHOOKS_SCENARIO) ? await startChild('bench/servers/http-bare.ts') : undefined;
  try {
    const coreUrl = `http://127.0.0.1:${corePort}`;
    const admin = adminOf(dataDir, corePort);
    const { accountId, keys, json } = await fundedAccount(admin, 'Bench Stores');
    if (selected('scenario: history')) {
      // History reads a full page of 100 rows, so the account has more than a page before anything is measured.
      const buy = grpcJsCaller(coreUrl, PurchaseService, 'buyAirtime', readTokenFile(dataDir, SERVICE_TOKEN_FILE)!);
      for (let i = 0; i < 150; i += 1)
        await buy({ accountId, network: 'mtn', phone: '08031234567', amountKobo: 10_000n });
    }
    const recipients = Array.from({ length: 100 }, (_, i) => `0803${String(1_000_000 + i).padStart(7, '0')}`);
    const loads: Record<string, HttpLoad> = {
      balance: balanceLoad(keys),
      airtime: airtimeLoad(keys),
      data: {
        method: 'POST',
        path: '/api/v1?action=data',
        headers: json,
        body: JSON.stringify({ plan_id: 1, phone: '08031234567' }),
      },
      bulksms: {
        method: 'POST',
        path: '/api/v1?action=bulksms',
        headers: json,
        body: JSON.stringify({ sender: 'Bench', recipients, message: 'Your order has shipped.' }),
      },
      history: { path: '/api/v1?action=transactions&limit=100', headers: keys },
    };
    const cpuPid = service.pid!;
    if (selected('scenario: balance')) record('scenario: balance', await http(port, [loads.balance!], { cpuPid }));
    // History twice: on a store that holds only the account's first pages, and again after
    // the purchase scenarios' writes, as a real platform reads it after a day of sales.
    if (selected('scenario: history, fresh store'))
      record('scenario: history, fresh store', await http(port, [loads.history!], { cpuPid }));
    if (selected('scenario: airtime')) record('scenario: airtime', await http(port, [loads.airtime!], { cpuPid }));
    for (const name of ['data', 'bulksms', 'history'] as const) {
      if (selected(`scenario: ${name}`)) record(`scenario: ${name}`, await http(port, [loads[name]!], { cpuPid }));
    }
    if (selected(MSORG_SCENARIO)) await throughMsorg(admin, port, keys, loads.data!);
    if (selected(AIRTIME_AFTER_WRITES))
      await afterTheWrites({ port, cpuPid, metricsPort, admin, corePort, dataDir }, receiver?.port);
    if (selected(CONTROLS_SCENARIO)) await withControls({ port, cpuPid, metricsPort, admin, corePort, dataDir });
    if (selected('scenario: mixed')) {
      // Mixed: mostly reads and airtime, as a reseller's traffic looks.
      record(
        'scenario: mixed',
        await http(port, [
          loads.balance!,
          loads.airtime!,
          loads.airtime!,
          loads.data!,
          { path: '/api/v1?action=transactions&limit=20', headers: keys },
        ]),
      );
    }
    if (selected('scenario: airtime over gRPC to the core')) {
      const buy = grpcJsCaller(coreUrl, PurchaseService, 'buyAirtime', readTokenFile(dataDir, SERVICE_TOKEN_FILE)!);
      record(
        'scenario: airtime over gRPC to the core',
        await grpcLoad(() => buy({ accountId, network: 'mtn', phone: '08031234567', amountKobo: 10_000n })),
      );
    }
    // Last, so the scenarios before run as they always did; on the store after all their writes.
    // Only where the run judges the ratio: a scenario asked for by another (airtime for funding) has no ceiling here.
    const paired = Object.keys(PAIRED).filter((name) => results[name]?.ratio !== undefined);
    if (paired.length > 0) {
      const ceiling = await startHopCeiling();
      try {
        for (const name of paired)
          await pairedWithCeiling(
            name,
            { port: ceiling.port, load: { path: '/' } },
            { port, load: name === 'scenario: balance' ? loads.balance! : loads.airtime! },
          );
      } finally {
        await ceiling.stop();
      }
    }
    if (selected(HISTORY_SCENARIO) && results[HISTORY_SCENARIO] !== undefined && results['scenario: balance'])
      await pairedWithCeiling(HISTORY_SCENARIO, { port, load: loads.balance! }, { port, load: loads.history! });
    const check = await admin.checkLedger({});
    if (check.violationCount !== 0n) throw new Error(`ledger check after the run: ${check.violationCount} violations`);
  } finally {
    await stop(service);
    if (receiver !== undefined) await stop(receiver.child);
    rmSync(dataDir, { recursive: true, force: true });
  }
}

/** The one-hop ceiling's servers (an echo and the grpc-js hop in front of it), kept running beside the service. */
async function startHopCeiling(): Promise<{ port: number; stop(): Promise<void> }> {
  const echo = await startChild('bench/servers/grpc-echo.ts');
  const hop = await startChild('bench/servers/http-hop.ts', ['grpc-js'], { ECHO_URL: `http://127.0.0.1:${echo.port}` });
  // Warmed as the service is by then (its JIT, its connection to the echo), or its first window would flatter the scenario.
  await http(hop.port, [{ path: '/' }], PAIRED_WINDOW);
  return {
    port: hop.port,
    async stop() {
      await stop(hop.child);
      await stop(echo.child);
    },
  };
}

/** Where a paired measurement sends one side's load. */
interface Side {
  port: number;
  load: HttpLoad;
}

/**
 * `name` beside what it is compared with (its ceiling, or for history balance): the median
 * ratio of PAIRED_ROUNDS rounds, recorded with the scenario's figures.
 */
async function pairedWithCeiling(name: string, ceilingSide: Side, scenarioSide: Side): Promise<void> {
  const rounds = await inTurn(
    name,
    () => http(ceilingSide.port, [ceilingSide.load], PAIRED_WINDOW),
    () => http(scenarioSide.port, [scenarioSide.load], PAIRED_WINDOW),
  );
  const ratios = rounds.map(([ceiling, scenario]) => scenario.requestsPerSecond / ceiling.requestsPerSecond);
  const ratio = median(ratios);
  results[name]!.pairedRatio = Number(ratio.toFixed(3));
  results[name]!.pairedRatios = ratios.map((r) => Number(r.toFixed(3)));
  console.error(
    `  ${name}, in turn with ${name === HISTORY_SCENARIO ? 'balance' : 'its ceiling'}: ${(ratio * 100).toFixed(0)}% ` +
      `at the median of ${ratios.length} rounds (${percents(ratios)})`,
  );
}

/** What the scenarios after the writes need of the service the scenarios share. */
interface SharedService {
  port: number;
  cpuPid: number;
  metricsPort: number;
  admin: ReturnType<typeof adminOf>;
  corePort: number;
  dataDir: string;
}

/**
 * AIRTIME_AFTER_WRITES on one fresh account, then, when a receiver runs, WEBHOOKS_SCENARIO on
 * another made the same way but whose every event goes to the receiver (a bare HTTP server on
 * loopback answering 200). Both runs wait for the deliveries to catch up (or
 * WEBHOOK_DRAIN_MS, harness.ts) before the CPU is read, so the work left after the window counts, and
 * both pay the same metrics scrapes while waiting. Then PAIRED_ROUNDS rounds of a window on
 * each account in turn: the target is judged on the median of the rounds' added CPU, which in
 * the runs of 2026-11-27 read +29% where the two long windows read +61%.
 */
async function afterTheWrites(shared: SharedService, receiverPort: number | undefined): Promise<void> {
  const { port, cpuPid, metricsPort, admin } = shared;
  let lag = Number.NaN;
  const settle = async () => {
    lag = await drainWebhooks(metricsPort);
  };
  const plain = await fundedAccount(admin, 'Bench Plain');
  record(AIRTIME_AFTER_WRITES, await http(port, [airtimeLoad(plain.keys)], { cpuPid, settle }));
  const without = results[AIRTIME_AFTER_WRITES]!;
  const first = results['scenario: airtime'];
  if (first?.serviceCpuMsPerRequest !== undefined && without.serviceCpuMsPerRequest !== undefined)
    console.error(
      `  airtime after the writes: ${without.serviceCpuMsPerRequest} ms of service CPU ` +
        `a purchase, ${first.serviceCpuMsPerRequest} ms in the first airtime run ` +
        `(reported)`,
    );
  if (receiverPort === undefined) return;
  const hooked = await fundedAccount(admin, 'Bench Hooks');
  await hookAccount(shared.dataDir, shared.corePort, hooked.accountId, receiverPort);
  record(WEBHOOKS_SCENARIO, await http(port, [airtimeLoad(hooked.keys)], { cpuPid, settle }));
  const withHooks = results[WEBHOOKS_SCENARIO]!;
  const share = withHooks.requestsPerSecond / without.requestsPerSecond;
  const added = (withHooks.serviceCpuMsPerRequest ?? Number.NaN) / (without.serviceCpuMsPerRequest ?? Number.NaN) - 1;
  withHooks.shareOfAirtime = Number(share.toFixed(3));
  // The hooked window's lag: the rounds below settle too, and would overwrite it.
  const hookedLag = lag;
  withHooks.oldestUndeliveredSeconds = hookedLag;
  withHooks.cpuAddedByWebhooks = Number(added.toFixed(3));
  console.error(`  webhooks: throughput ${(share * 100).toFixed(0)}% of airtime without (reported, not a target)`);
  // Then the two accounts in turn, window by window, as the ratio targets are measured beside their ceiling.
  const window = (keys: Record<string, string>) => () =>
    http(port, [airtimeLoad(keys)], { cpuPid, settle, ...PAIRED_WINDOW });
  const rounds = (await inTurn('webhooks', window(plain.keys), window(hooked.keys))).map(
    ([plainWindow, hookedWindow]) => hookedWindow.serviceCpuMsPerRequest! / plainWindow.serviceCpuMsPerRequest! - 1,
  );
  const paired = median(rounds);
  withHooks.pairedCpuAdded = Number(paired.toFixed(3));
  withHooks.pairedCpuAddedRounds = rounds.map((r) => Number(r.toFixed(3)));
  console.error(
    `  webhooks, the two accounts in turn: +${(paired * 100).toFixed(0)}% at the median of ${rounds.length} rounds ` +
      `(${percents(rounds, { signed: true })})`,
  );
  target(
    paired <= WEBHOOK_MAX_CPU_ADDED,
    `webhooks add ${(paired * 100).toFixed(0)}% to the service's CPU per purchase, at the median of ` +
      `${rounds.length} rounds in turn with airtime after the same writes (at most ${WEBHOOK_MAX_CPU_ADDED * 100}%; ` +
      `${(added * 100).toFixed(0)}% in the two long windows: ${without.serviceCpuMsPerRequest} -> ` +
      `${withHooks.serviceCpuMsPerRequest} ms)`,
  );
  target(
    hookedLag < WEBHOOK_MAX_LAG_S,
    `oldest undelivered event ${hookedLag.toFixed(2)} s old when the load ended (under ${WEBHOOK_MAX_LAG_S} s)`,
  );
}

/** CONTROLS_SCENARIO: two fresh accounts made the same way, one of them (and its key) under controls. */
async function withControls(shared: SharedService): Promise<void> {
  const { port, cpuPid, admin } = shared;
  const plain = await fundedAccount(admin, 'Bench Uncontrolled');
  const controlled = await fundedAccount(admin, 'Bench Controlled');
  await admin.setApiKeyLimits({
    publicKey: controlled.keys['X-Public-Key']!,
    scopes: 'balance,purchase:airtime',
    capPerPurchaseKobo: 100_000n,
    capPerDayKobo: 10_000_000_000n,
  });
  await admin.setRecipientLimits({ accountId: controlled.accountId, perDayKobo: 10_000_000_000n });
  const window = (keys: Record<string, string>) => () => http(port, [airtimeLoad(keys)], { cpuPid, ...PAIRED_WINDOW });
  const pairs = await inTurn('controls', window(plain.keys), window(controlled.keys));
  const rounds = pairs.map(([a, b]) => b.serviceCpuMsPerRequest! / a.serviceCpuMsPerRequest! - 1);
  record(CONTROLS_SCENARIO, pairs[pairs.length - 1]![1]);
  const added = median(rounds);
  results[CONTROLS_SCENARIO]!.pairedCpuAdded = Number(added.toFixed(3));
  results[CONTROLS_SCENARIO]!.pairedCpuAddedRounds = rounds.map((r) => Number(r.toFixed(3)));
  console.error(
    `  controls, the two accounts in turn: ${(added * 100).toFixed(1)}% at the median of ${rounds.length} rounds ` +
      `(${percents(rounds, { signed: true })})`,
  );
  target(
    added <= CONTROLS_MAX_CPU_ADDED,
    `a key with scopes, caps and a per-recipient limit adds ${(added * 100).toFixed(1)}% to the service's CPU ` +
      `per airtime purchase, at the median of ${rounds.length} rounds in turn (at most ${CONTROLS_MAX_CPU_ADDED * 100}%)`,
  );
}

/** The admin client of a service this bench started, with the admin token its data directory holds. */
/**
 * The slow-upstream scenario's ceilings, under its load (SLOW_LOAD): a bare HTTP server that
 * answers after SLOW_DELAY_MS (the load generator and the measurement alone: it must reach the
 * ideal, or the scenario's verdict would be theirs), and the one-hop baseline over the gateway's
 * transport whose echo answers after SLOW_DELAY_MS (the HTTP/2 hop too; no store, no product code).
 */
async function slowCeilings(): Promise<void> {
  const measure = async (name: string, port: number, pid: number) => {
    record(name, await steady(port, [{ path: '/' }], { ...SLOW_LOAD, cpuPid: pid }));
    results[name]!.shareOfIdeal = shareOfIdeal(results[name]!);
  };
  // Both whenever the scenario runs: they say what of its verdict is the machine's.
  const wanted = (name: string) => selected(name) || selected(SLOW_SCENARIO);
  if (wanted(SLOW_BARE)) {
    const bare = await startChild('bench/servers/http-bare.ts', [], { BARE_DELAY_MS: String(SLOW_DELAY_MS) });
    await measure(SLOW_BARE, bare.port, bare.child.pid!).finally(() => stop(bare.child));
  }
  if (wanted(SLOW_HOP)) {
    const echo = await startChild('bench/servers/grpc-echo.ts', [], { ECHO_DELAY_MS: String(SLOW_DELAY_MS) });
    const hop = await startChild('bench/servers/http-hop.ts', ['connect-lean'], {
      ECHO_URL: `http://127.0.0.1:${echo.port}`,
    });
    await measure(SLOW_HOP, hop.port, hop.child.pid!).finally(async () => {
      await stop(hop.child);
      await stop(echo.child);
    });
  }
}

/** What the server that only waits reached under the same load, for the slow-upstream verdicts. */
function bareSays(): string {
  const bare = results[SLOW_BARE];
  if (bare?.shareOfIdeal === undefined) return '';
  return `; a server that only waits: ${(bare.shareOfIdeal * 100).toFixed(0)}%, p99 ${Math.round(bare.p99Ms)} ms`;
}

/**
 * Airtime against a slow upstream: the sandbox answers after SLOW_DELAY_MS, SLOW_CONNECTIONS
 * purchases in flight. Ideal is every connection completing one purchase per upstream
 * answer; the tail is compared with the upstream's own latency.
 */
async function slowUpstream(): Promise<void> {
  if (!selected(SLOW_SCENARIO)) return;
  console.error(`the service with an upstream answering after ${SLOW_DELAY_MS} ms`);
  const dataDir = mkdtempSync(path.join(tmpdir(), 'prepaid-bench-slow-'));
  const metricsPort = await freePort();
  const { service, port, corePort } = await startService(dataDir, {
    SANDBOX_DELAY_MS: String(SLOW_DELAY_MS),
    CORE_METRICS_PORT: String(metricsPort),
  });
  try {
    const admin = adminOf(dataDir, corePort);
    const { keys } = await fundedAccount(admin, 'Bench Slow');
    let atStart: StageSums | undefined;
    record(
      SLOW_SCENARIO,
      await steady(port, [airtimeLoad(keys)], {
        ...SLOW_LOAD,
        sliceMs: SLOW_DELAY_MS,
        cpuPid: service.pid!,
        atWindowStart: async () => {
          atStart = await stageSums(port, metricsPort);
        },
      }),
    );
    const figures = results[SLOW_SCENARIO]!;
    figures.stagesMs = stagesOver(atStart!, await stageSums(port, metricsPort));
    console.error(`  slow upstream, where a purchase's time went (mean ms): ${JSON.stringify(figures.stagesMs)}`);
    // The load opens its connections at once, so the purchases travel in waves that spread out
    // pass by pass: the window's p99 is mostly its first slices' (docs/performance.md).
    console.error(
      `  slow upstream, p99 by ${SLOW_DELAY_MS} ms slice of the window: ${(figures.sliceP99Ms ?? []).map(Math.round).join(', ')} ms`,
    );
    figures.idealPerSecond = SLOW_IDEAL_PER_SECOND;
    figures.shareOfIdeal = shareOfIdeal(figures);
    target(
      figures.shareOfIdeal >= SLOW_MIN_SHARE_OF_IDEAL,
      `slow upstream: ${figures.requestsPerSecond} purchases/s, ` +
        `${(figures.shareOfIdeal * 100).toFixed(0)}% of the ideal ${SLOW_IDEAL_PER_SECOND} (at least ` +
        `${SLOW_MIN_SHARE_OF_IDEAL * 100}%)${bareSays()}`,
    );
    target(
      figures.requests > 0 && figures.p99Ms < SLOW_MAX_P99_MS,
      `slow upstream: p99 ${figures.p99Ms} ms, ` +
        `${(figures.p99Ms / SLOW_DELAY_MS).toFixed(2)}x the upstream's ${SLOW_DELAY_MS} ` +
        `ms (under ${SLOW_MAX_P99_MS} ms); p50 ${figures.p50Ms} ms${bareSays()}`,
    );
    const check = await admin.checkLedger({});
    if (check.violationCount !== 0n)
      throw new Error(`ledger check after the slow-upstream run: ${check.violationCount} violations`);
  } finally {
    await stop(service);
    rmSync(dataDir, { recursive: true, force: true });
  }
}

/** Sums and counts of the service's stage histograms, and its threads' event-loop lag, at one moment. */
interface StageSums {
  sums: Record<string, number>;
  counts: Record<string, number>;
  lagP99: Record<string, number>;
}

/** The histograms a purchase passes through, by the name each is reported under. */
const STAGE_SERIES: Record<string, string> = {
  request: 'prepaid_gateway_http_request_duration_seconds',
  upstream: 'prepaid_core_provider_call_duration_seconds',
  reserve: 'prepaid_core_wallet_operation_duration_seconds{operation="reserve"',
  settle: 'prepaid_core_wallet_operation_duration_seconds{operation="settle"',
};

/**
 * Reads the stage histograms of the gateway (request) and the core (upstream call, reserve
 * and settle, each including its wait in the commit queue), and the event-loop lag p99 of
 * each thread (prom-client resets its lag histogram at every scrape, so the second reading
 * covers the time since the first).
 */
async function stageSums(gatewayPort: number, metricsPort: number): Promise<StageSums> {
  const texts = {
    gateway: await (await fetch(`http://127.0.0.1:${gatewayPort}/metrics`)).text(),
    core: await (await fetch(`http://127.0.0.1:${metricsPort}/metrics`)).text(),
  };
  const all = `${texts.gateway}\n${texts.core}`.split('\n');
  const total = (prefix: string, suffix: string) => {
    const [name, labels] = prefix.split('{');
    return all
      .filter((l) => l.startsWith(`${name}${suffix}`) && (labels === undefined || l.includes(`{${labels}`)))
      .reduce((sum, l) => sum + Number(l.split(' ').at(-1)), 0);
  };
  const lag = (text: string) =>
    Number(
      text
        .split('\n')
        .find((l) => l.startsWith('nodejs_eventloop_lag_p99_seconds '))
        ?.split(' ')[1] ?? Number.NaN,
    );
  return {
    sums: Object.fromEntries(Object.entries(STAGE_SERIES).map(([k, v]) => [k, total(v, '_sum')])),
    counts: Object.fromEntries(Object.entries(STAGE_SERIES).map(([k, v]) => [k, total(v, '_count')])),
    lagP99: { gatewayLoop: lag(texts.gateway), coreLoop: lag(texts.core) },
  };
}

/** Each stage's mean in ms between two readings, and each loop's lag p99 over them. */
function stagesOver(before: StageSums, after: StageSums): Record<string, number> {
  const means = Object.keys(STAGE_SERIES).map((k) => {
    const count = after.counts[k]! - before.counts[k]!;
    return [k, count > 0 ? Math.round(((after.sums[k]! - before.sums[k]!) * 1000) / count) : Number.NaN];
  });
  const lags = Object.entries(after.lagP99).map(([k, v]) => [`${k}LagP99`, Math.round(v * 1000)]);
  return Object.fromEntries([...means, ...lags]);
}

/** A counter's sum over every label set, read from the core's metrics listener. */
async function counterSum(metricsPort: number, name: string): Promise<number> {
  const text = await (await fetch(`http://127.0.0.1:${metricsPort}/metrics`)).text();
  return text
    .split('\n')
    .filter((line) => line.startsWith(`${name}{`))
    .reduce((sum, line) => sum + Number(line.split(' ').at(-1)), 0);
}

/** Airtime through a route whose first upstream refuses every connection (FAILOVER_SCENARIO). */
async function airtimeWithFailover(): Promise<void> {
  if (!selected(FAILOVER_SCENARIO)) return;
  console.error('the service with a route whose first upstream refuses every connection');
  const dataDir = mkdtempSync(path.join(tmpdir(), 'prepaid-bench-failover-'));
  const metricsPort = await freePort();
  // A port that was free a moment ago and that nothing listens on: connections are refused.
  const closedPort = await freePort();
  const { service, port, corePort } = await startService(dataDir, {
    CORE_METRICS_PORT: String(metricsPort),
    UPSTREAMS: 'dead,backup',
    UPSTREAM_DEAD_KIND: 'ported-number',
    UPSTREAM_DEAD_BASE_URL: `http://127.0.0.1:${closedPort}/api/`,
    UPSTREAM_DEAD_TOKEN: 'bench-token-never-sent',
    UPSTREAM_BACKUP_KIND: 'sandbox',
    PROVIDER_AIRTIME: 'dead,backup',
  });
  try {
    const admin = adminOf(dataDir, corePort);
    const { keys } = await fundedAccount(admin, 'Bench Failover');
    record(FAILOVER_SCENARIO, await http(port, [airtimeLoad(keys)], { cpuPid: service.pid! }));
    const failovers = await counterSum(metricsPort, 'prepaid_core_upstream_failovers_total');
    const skips = await counterSum(metricsPort, 'prepaid_core_upstream_skips_total');
    if (failovers === 0) throw new Error('airtime with failover: no purchase moved on from the refusing upstream');
    console.error(`  failover: ${failovers} purchases moved on from the refusing upstream, ${skips} skipped it`);
    const check = await admin.checkLedger({});
    if (check.violationCount !== 0n)
      throw new Error(`ledger check after the failover run: ${check.violationCount} violations`);
  } finally {
    await stop(service);
    rmSync(dataDir, { recursive: true, force: true });
  }
}

/** The targets of docs/performance.md that are ratios of this run's own figures. */
function ratioTargets(): void {
  const ratioOf = (name: string) => results[name]?.ratio;
  const share = (a: string, b: string) =>
    results[a] && results[b] ? results[a]!.requestsPerSecond / results[b]!.requestsPerSecond : undefined;
  const failover = share(FAILOVER_SCENARIO, 'scenario: airtime');
  if (failover !== undefined)
    target(
      failover >= FAILOVER_MIN_SHARE,
      `airtime with failover at ${(failover * 100).toFixed(0)}% of plain airtime (at ` +
        `least ${FAILOVER_MIN_SHARE * 100}%)`,
    );
  for (const [name, { min }] of Object.entries(PAIRED)) {
    const single = ratioOf(name);
    if (single === undefined) continue;
    const paired = results[name]!.pairedRatio;
    const what = name.replace('scenario: ', '');
    const percent = (r: number) => `${(r * 100).toFixed(0)}%`;
    target(
      (paired ?? single) >= min,
      paired === undefined
        ? `${what} at ${percent(single)} of the one-hop grpc-js ceiling (at least ${percent(min)})`
        : `${what} at ${percent(paired)} of the one-hop grpc-js ceiling measured beside it (at least ` +
            `${percent(min)}; ${percent(single)} of the ceiling measured at the start of the run)`,
    );
  }
  const fresh = share('scenario: history, fresh store', 'scenario: balance');
  if (fresh !== undefined) console.error(`  history on a fresh store: ${fresh.toFixed(2)} of balance (reported)`);
  const afterWrites = share(HISTORY_SCENARIO, 'scenario: balance');
  const inTurn = results[HISTORY_SCENARIO]?.pairedRatio;
  if (afterWrites !== undefined)
    target(
      (inTurn ?? afterWrites) >= HISTORY_MIN_SHARE,
      inTurn === undefined
        ? `history after the purchase scenarios' writes at ${afterWrites.toFixed(2)} of balance (at least a third)`
        : `history after the purchase scenarios' writes at ${inTurn.toFixed(2)} of balance, in turn with it ` +
            `(at least a third; ${afterWrites.toFixed(2)} against balance's first window)`,
    );
}

function table(): string {
  const rows = Object.entries(results).map(([name, f]) => [
    name,
    String(f.requestsPerSecond),
    f.p50Ms.toFixed(1),
    f.p99Ms.toFixed(1),
    String(f.errors),
    [
      f.ratio === undefined ? undefined : `${(f.ratio * 100).toFixed(0)}% of ${f.ceiling!.replace('baseline: ', '')}`,
      f.pairedRatio === undefined
        ? undefined
        : `${(f.pairedRatio * 100).toFixed(0)}% ${name === HISTORY_SCENARIO ? 'of balance' : 'of it'} in turn`,
    ]
      .filter((part) => part !== undefined)
      .join('; '),
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
await slowCeilings();
await slowUpstream();
await airtimeWithFailover();
if (selected(FUNDING_SCENARIO))
  await fundingScenario({
    record,
    target,
    airtimePerSecond: () => results['scenario: airtime']?.requestsPerSecond,
  });
if (selected(BACKUP_SCENARIO)) await backupScenario({ record, target });
ratioTargets();
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
    {
      at: new Date().toISOString(),
      node: process.version,
      durationMs: DURATION_MS,
      connections: CONNECTIONS,
      results,
      targets,
      scale: scaleResults,
    },
    null,
    2,
  )}\n`,
);
console.log(`Figures written to ${OUTPUT}.`);
const failed = [
  ...Object.entries(results),
  ...scaleResults.flatMap((s) => Object.entries(s.figures).map(([n, f]) => [`${s.size}: ${n}`, f] as const)),
].filter(([, f]) => f.errors > 0);
if (failed.length > 0) {
  console.error(`FAILED: errors during ${failed.map(([n]) => n).join(', ')}`);
  process.exit(1);
}
const missed = targets.filter((t) => !t.met);
if (missed.length > 0) {
  console.error(
    `${missed.length} of ${targets.length} targets not ` +
      `met${STRICT ? '' : ' (reported only; BENCH_STRICT=1 fails the run on them)'}:`,
  );
  for (const t of missed) console.error(`  - ${t.text}`);
  if (STRICT) process.exit(1);
}
process.exit(0);
