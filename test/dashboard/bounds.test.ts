/**
 * The developer area's port is as public as the API's: the attacks that once grew the process
 * by gigabytes (pipelined requests never read) and held every file descriptor (half-sent
 * requests) replayed against it, while a partner keeps calling the public API beside it. The
 * bounds are runtime/http-bounds.ts's, the same the gateway keeps. Odd paths are a 404.
 */
import net from 'node:net';
import { performance } from 'node:perf_hooks';
import * as assert from 'uvu/assert';
import {
  HEADERS_TIMEOUT_MS,
  MAX_HEADER_BYTES,
  MAX_OPEN_CONNECTIONS,
  MAX_PIPELINED_REQUESTS,
  SOCKET_IDLE_TIMEOUT_MS,
} from '../../runtime/http-bounds.js';
import { startCore, type TestCore } from '../helpers/core.js';
import { startTestDashboard, type TestDashboard } from '../helpers/dashboard.js';
import { type ApiKeys, startTestGateway, type TestGateway } from '../helpers/gateway.js';
import { suite } from '../helpers/suite.js';

/** A cap low enough for a test to reach with a few hundred sockets. */
const TEST_CONNECTION_CAP = 40;

const test = suite<{
  core: TestCore;
  gateway: TestGateway;
  dashboard: TestDashboard;
  capped: TestDashboard;
  partner: ApiKeys;
}>('dashboard: connection bounds', {} as never);

test.before(async (context) => {
  context.core = await startCore();
  context.gateway = await startTestGateway(context.core);
  context.dashboard = await startTestDashboard(context.core);
  context.capped = await startTestDashboard(context.core, {}, { bounds: { maxOpenConnections: TEST_CONNECTION_CAP } });
  context.partner = await context.core.createApiAccount({ balanceKobo: 100_000 });
  // The pair's first use is verified by the core; from then on it is the partner's usual call.
  assert.is((await context.gateway.request({ query: { action: 'balance' }, keys: context.partner })).status, 200);
});
test.after(async ({ core, gateway, dashboard, capped }) => {
  await capped.close();
  await dashboard.close();
  await gateway.close();
  await core.close();
});

function portOf(dashboard: TestDashboard): number {
  return Number(new URL(dashboard.url).port);
}

async function connect(port: number): Promise<net.Socket> {
  const socket = net.connect({ port, host: '127.0.0.1' });
  socket.on('error', () => undefined);
  await new Promise<void>((resolve, reject) => socket.once('connect', resolve).once('error', reject));
  return socket;
}

/** How long each of `calls` balance calls took, sorted, each answered 200. */
async function balanceTimes(gateway: TestGateway, partner: ApiKeys, calls: number): Promise<number[]> {
  const times: number[] = [];
  for (let i = 0; i < calls; i++) {
    const started = performance.now();
    const reply = await gateway.request({ query: { action: 'balance' }, keys: partner });
    times.push(performance.now() - started);
    assert.is(reply.status, 200, reply.text);
  }
  return times.sort((a, b) => a - b);
}

const median = (times: number[]) => times[Math.floor(times.length / 2)]!;

/**
 * Each partner call is answered, the typical one (the median) within 100 ms, or, on a test
 * machine so busy that even quiet calls are slow, within four times the quiet median; none
 * slower than two seconds. Unbounded, the same call took most of a second on a quiet machine.
 */
async function partnerIsServed(gateway: TestGateway, partner: ApiKeys, quiet: number[], calls: number): Promise<void> {
  const times = await balanceTimes(gateway, partner, calls);
  const bound = Math.max(100, 4 * median(quiet));
  assert.ok(
    median(times) < bound,
    `the public API's median answer took ${Math.round(median(times))} ms during the flood (bound ` +
      `${Math.round(bound)} ms)`,
  );
  assert.ok(
    times.at(-1)! < 2000,
    `the public API's slowest answer took ${Math.round(times.at(-1)!)} ms during the flood`,
  );
}

test('the server is built with the shared bounds: connections, headers, slow clients, idle sockets', ({
  dashboard,
}) => {
  const server = dashboard.dashboard.server;
  assert.is(server.maxConnections, MAX_OPEN_CONNECTIONS);
  assert.is(server.headersTimeout, HEADERS_TIMEOUT_MS);
  // Node keeps the option on the server without typing it.
  assert.is((server as unknown as { maxHeaderSize?: number }).maxHeaderSize, MAX_HEADER_BYTES);
  assert.is(server.timeout, SOCKET_IDLE_TIMEOUT_MS);
});

test(
  'sockets that pipeline hundreds of requests and never read get at most the bound served; memory stays ' +
    'bounded and the API answers',
  async ({ dashboard, gateway, partner }) => {
    const SOCKETS = 100;
    const REQUESTS_PER_SOCKET = 300;
    const quiet = await balanceTimes(gateway, partner, 11);
    const answeredBefore = dashboard.logged.filter((line) => line.event === 'http.request').length;
    const rssBefore = process.memoryUsage().rss;
    const sockets: net.Socket[] = [];
    try {
      for (let i = 0; i < SOCKETS; i++) {
        const socket = await connect(portOf(dashboard));
        socket.pause();
        socket.write('GET /healthz HTTP/1.1\r\nHost: dashboard\r\n\r\n'.repeat(REQUESTS_PER_SOCKET));
        sockets.push(socket);
      }
      // Once the dashboard has dealt with what was sent (its count of answers stops growing),
      // the partner's calls are served as usual.
      let answered = -1;
      for (;;) {
        await new Promise((resolve) => setTimeout(resolve, 200));
        const now = dashboard.logged.filter((line) => line.event === 'http.request').length - answeredBefore;
        if (now === answered) break;
        answered = now;
      }
      // Unbounded, the dashboard would have built an answer for each of the 30,000 requests.
      assert.ok(
        answered <= SOCKETS * MAX_PIPELINED_REQUESTS,
        `answered ${answered} of ${SOCKETS * REQUESTS_PER_SOCKET} requests`,
      );
      assert.ok(answered >= 1);
      await partnerIsServed(gateway, partner, quiet, 11);
      const grownMb = (process.memoryUsage().rss - rssBefore) / 1024 / 1024;
      assert.ok(grownMb < 256, `the process grew by ${Math.round(grownMb)} MB`);
    } finally {
      for (const socket of sockets) socket.destroy();
    }
  },
);

test('half-sent requests past the connection cap are closed at once; the API keeps answering', async ({
  capped,
  gateway,
  partner,
}) => {
  const quiet = await balanceTimes(gateway, partner, 11);
  const SOCKETS = TEST_CONNECTION_CAP * 4;
  const sockets: net.Socket[] = [];
  let closedByServer = 0;
  try {
    for (let i = 0; i < SOCKETS; i++) {
      const socket = await connect(portOf(capped));
      socket.once('close', () => closedByServer++);
      // Headers never finished: the request stays half-sent.
      socket.write('GET /sign-in HTTP/1.1\r\nHost: dashboard\r\nX-Slow: ');
      sockets.push(socket);
    }
    await new Promise((resolve) => setTimeout(resolve, 300));
    const open = await new Promise<number>((resolve, reject) =>
      capped.dashboard.server.getConnections((error, count) => (error ? reject(error) : resolve(count))),
    );
    assert.ok(open <= TEST_CONNECTION_CAP, `${open} connections held open`);
    assert.ok(closedByServer >= SOCKETS - TEST_CONNECTION_CAP, `only ${closedByServer} sockets closed`);
    await partnerIsServed(gateway, partner, quiet, 11);
  } finally {
    for (const socket of sockets) socket.destroy();
  }
});

test('odd paths are a 404 page, with no error in the log', async ({ dashboard }) => {
  for (const path of ['//', '//@', '/\\', '//evil.example/sign-in', '/%', '/test//']) {
    const errorsBefore = dashboard.logged.filter((line) => line.level === 'error').length;
    const socket = await connect(portOf(dashboard));
    const answer = await new Promise<string>((resolve) => {
      let text = '';
      socket.on('data', (chunk) => {
        text += chunk.toString('latin1');
      });
      socket.once('close', () => resolve(text));
      socket.end(`GET ${path} HTTP/1.1\r\nHost: dashboard\r\nConnection: close\r\n\r\n`);
    });
    assert.match(answer, /^HTTP\/1\.1 404 /, `${path}: ${answer.slice(0, 40)}`);
    assert.is(dashboard.logged.filter((line) => line.level === 'error').length, errorsBefore, path);
  }
});

test.run();
