/**
 * `npm run bench:side-by-side`: is one way of running the service cheaper than another? Two or
 * more services, started at once and loaded in turn, window by window, so that they share
 * the machine's mood; alternating whole `npm run bench` runs cannot tell 15% apart on the
 * development machine (docs/performance.md). Each variant runs as `npm start` runs the
 * service, with its own data directory and a funded account; after a warm-up window each,
 * SIDE_BY_SIDE_ROUNDS rounds (default BENCH_PAIRED_ROUNDS, 8) of one window per variant (BENCH_DURATION_MS / 2,
 * each round in the other order), then the median, per variant, of the service's CPU a request
 * (gateway and core, every thread) and of the requests a second.
 *
 * SIDE_BY_SIDE (required): a JSON object naming each variant, each with node's flags for the
 * service (`nodeArgs`), environment variables (`env`) and the built directory it runs from
 * (`dist`, default dist/, built at the start; another checkout's, e.g. a git worktree of the
 * commit before, built there with `npm run build`), or `"codec": "stock"`: this checkout built
 * again with protobuf-es's own toBinary and fromBinary in the place of runtime/proto-codec/
 * (bench/stock-codec.ts), in dist/.stock-codec. SIDE_BY_SIDE_LOAD: `airtime` (default),
 * `balance`, `history` (pages of 100 transactions, after a window of airtime fills the
 * account), or `webhooks`: airtime for an account whose every event is POSTed to a bare
 * receiver on loopback, each window's CPU read once the deliveries have caught up. For example:
 *
 *   SIDE_BY_SIDE='{"info":{},"warn":{"env":{"LOG_LEVEL":"warn"}}}' npm run bench:side-by-side
 *   SIDE_BY_SIDE='{"compiled":{},"stock":{"codec":"stock"}}' SIDE_BY_SIDE_LOAD=history npm run bench:side-by-side
 */
import { execFileSync } from 'node:child_process';
import { copyFileSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import {
  adminOf,
  airtimeLoad,
  balanceLoad,
  drainWebhooks,
  freePort,
  fundedAccount,
  type HttpLoad,
  hookAccount,
  http,
  PAIRED_ROUNDS,
  PAIRED_WINDOW,
  startChild,
  startService,
  stop,
} from './harness.js';
import { median } from './stats.js';

interface Variant {
  nodeArgs: string[];
  env: Record<string, string>;
  dist: string;
}

/** Where the `"codec": "stock"` variant is built. */
const STOCK_CODEC_DIST = 'dist/.stock-codec';

/**
 * SIDE_BY_SIDE, checked: every variant an object of nodeArgs (strings), env (strings), and
 * dist (a string) or codec ("stock"), nothing else.
 */
function parseVariants(text: string | undefined): Record<string, Variant> {
  const fail = (why: string): never => {
    throw new Error(`SIDE_BY_SIDE: ${why}`);
  };
  const strings = (value: unknown) => Array.isArray(value) && value.every((x) => typeof x === 'string');
  const parsed: unknown = JSON.parse(text ?? 'null');
  if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) return fail('a JSON object of variants');
  return Object.fromEntries(
    Object.entries(parsed).map(([name, given]): [string, Variant] => {
      if (typeof given !== 'object' || given === null || Array.isArray(given)) return fail(`${name} is not an object`);
      const { nodeArgs = [], env = {}, codec, ...rest } = given as Record<string, unknown>;
      const { dist = codec === 'stock' ? STOCK_CODEC_DIST : 'dist', ...unknown } = rest;
      if (codec !== undefined && (codec !== 'stock' || 'dist' in rest)) fail(`${name}: codec is "stock", without dist`);
      if (Object.keys(unknown).length > 0) fail(`${name}: no ${Object.keys(unknown).join(', ')}`);
      if (!strings(nodeArgs)) fail(`${name}: nodeArgs is a list of strings`);
      if (typeof env !== 'object' || env === null || !strings(Object.values(env)))
        fail(`${name}: env maps names to strings`);
      if (typeof dist !== 'string') fail(`${name}: dist is a directory`);
      return [name, { nodeArgs: nodeArgs as string[], env: env as Record<string, string>, dist: dist as string }];
    }),
  );
}
const variants = parseVariants(process.env['SIDE_BY_SIDE']);
const names = Object.keys(variants);
if (names.length < 2) throw new Error('SIDE_BY_SIDE names at least two variants');
const rounds = Number(process.env['SIDE_BY_SIDE_ROUNDS'] ?? PAIRED_ROUNDS);
const kind = process.env['SIDE_BY_SIDE_LOAD'] ?? 'airtime';
if (kind !== 'airtime' && kind !== 'balance' && kind !== 'history' && kind !== 'webhooks')
  throw new Error('SIDE_BY_SIDE_LOAD is airtime, balance, history or webhooks');

execFileSync(process.execPath, ['bin/build.js'], { stdio: 'inherit' });
if (Object.values(variants).some((v) => v.dist === STOCK_CODEC_DIST)) {
  // The same build, with the stock codec's module in the compiled one's place.
  execFileSync(process.execPath, ['bin/build.js', STOCK_CODEC_DIST], { stdio: 'inherit' });
  for (const ext of ['.js', '.js.map'])
    copyFileSync(
      path.join(STOCK_CODEC_DIST, 'bench', `stock-codec${ext}`),
      path.join(STOCK_CODEC_DIST, 'runtime', 'proto-codec', `codec${ext}`),
    );
}
/** Purchases made before a history load: more than the page of 100 it reads. */
const HISTORY_FILL = 150;

/** The load of one variant's account; for history, the account is given more than a page first. */
async function loadOf(port: number, keys: Record<string, string>): Promise<HttpLoad> {
  if (kind === 'balance') return balanceLoad(keys);
  const airtime = airtimeLoad(keys);
  if (kind !== 'history') return airtime;
  for (let i = 0; i < HISTORY_FILL; i += 1) {
    const answer = await fetch(`http://127.0.0.1:${port}${airtime.path}`, {
      method: 'POST',
      headers: airtime.headers!,
      body: airtime.body!,
    });
    if (answer.status !== 200) throw new Error(`filling the history: ${answer.status} ${await answer.text()}`);
  }
  return { path: '/api/v1?action=transactions&limit=100', headers: keys };
}

const receiver = kind === 'webhooks' ? await startChild('bench/servers/http-bare.ts') : undefined;
const running = await Promise.all(
  names.map(async (name) => {
    const { nodeArgs, env, dist } = variants[name]!;
    const dataDir = mkdtempSync(path.join(tmpdir(), 'prepaid-side-by-side-'));
    const metricsPort = await freePort();
    const { service, port, corePort } = await startService(
      dataDir,
      { WEBHOOK_ALLOW_PRIVATE: 'true', CORE_METRICS_PORT: String(metricsPort), ...env },
      { nodeArgs, dist },
    );
    const { accountId, keys } = await fundedAccount(adminOf(dataDir, corePort), `Side by side ${name}`);
    if (receiver !== undefined) await hookAccount(dataDir, corePort, accountId, receiver.port);
    const load = await loadOf(port, keys);
    const settle = receiver === undefined ? undefined : () => drainWebhooks(metricsPort).then(() => undefined);
    return { name, service, port, load, settle, dataDir, cpu: [] as number[], rates: [] as number[] };
  }),
);
try {
  for (const one of running) await http(one.port, [one.load], PAIRED_WINDOW);
  for (let round = 0; round < rounds; round += 1) {
    const order = round % 2 === 0 ? running : [...running].reverse();
    for (const one of order) {
      const window = { ...PAIRED_WINDOW, cpuPid: one.service.pid!, ...(one.settle ? { settle: one.settle } : {}) };
      const figures = await http(one.port, [one.load], window);
      if (figures.errors > 0) throw new Error(`${one.name}: ${figures.errors} errors in round ${round}`);
      one.cpu.push(figures.serviceCpuMsPerRequest!);
      one.rates.push(figures.requestsPerSecond);
      console.error(
        `  round ${round + 1}, ${one.name}: ${figures.requestsPerSecond} req/s, ` +
          `${figures.serviceCpuMsPerRequest} ms of service CPU a request`,
      );
    }
  }
  console.log(`\n${kind}, ${rounds} rounds of ${PAIRED_WINDOW.durationMs / 1000} s, medians:`);
  for (const one of running)
    console.log(`  ${one.name}: ${median(one.cpu).toFixed(4)} ms of service CPU a request, ${median(one.rates)} req/s`);
} finally {
  for (const one of running) {
    await stop(one.service);
    rmSync(one.dataDir, { recursive: true, force: true });
  }
  if (receiver !== undefined) await stop(receiver.child);
}
process.exit(0);
