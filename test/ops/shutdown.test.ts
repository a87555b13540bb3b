/**
 * Graceful shutdown: SIGTERM to a real `npm start` in the middle of a
 * stream of slow purchases. Health turns 503 first while requests are still taken, then the
 * gateway stops accepting; every purchase in flight ends settled or pending, every request
 * that got a 2xx is in the store, no transaction exists without its answer, the ledger check
 * is clean, and the process exits 0. And the bound: a core that cannot finish within
 * SHUTDOWN_TIMEOUT_MS is ended anyway, says so, and exits 1, leaving the cut-off purchase
 * pending for the next start's recovery worker.
 */

import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { createClient } from '@connectrpc/connect';
import { createGrpcTransport } from '@connectrpc/connect-node';
import * as assert from 'uvu/assert';
import { SQLITE_FILE } from '../../core/store/index.js';
import { openSqliteStore } from '../../core/store/sqlite/index.js';
import { AdminService } from '../../gen/prepaid/v1/admin_pb.js';
import { PurchaseService } from '../../gen/prepaid/v1/purchase_pb.js';
import { ADMIN_TOKEN_FILE, readTokenFile, SERVICE_TOKEN_FILE } from '../../runtime/tokens.js';
import { bearer } from '../helpers/core.js';
import { spawnCore } from '../helpers/process.js';
import { suite } from '../helpers/suite.js';
import { type Answer, keyHeaders, parseLines, request, type Service, startService, unique } from './service.js';

const test = suite('ops: graceful shutdown');

/** Every purchase waits this long for the sandbox, so several are always in flight. */
const PROVIDER_DELAY_MS = 500;
/** Buyers sending at once, each one purchase after another. */
const BUYERS = 6;
/** Purchases stream for this long before SIGTERM. */
const STREAM_BEFORE_SIGTERM_MS = 1_200;
/** How long /healthz says 503 while purchases are still taken. */
const DRAIN_MS = 600;

interface Sent {
  requestId: string;
  /** The answer, or the connection error when none came. */
  answer?: Answer;
  error?: string;
  /** When the answer came, relative to SIGTERM (negative: before). */
  answeredAtMs?: number;
}

test('SIGTERM in slow purchases: 503 first, in-flight ones finish, each 2xx stored, ledger clean, exit 0', async () => {
  let service: Service | undefined;
  try {
    service = await startService({
      SANDBOX_DELAY_MS: String(PROVIDER_DELAY_MS),
      PROVIDER_TIMEOUT_MS: '5000',
      SHUTDOWN_DRAIN_MS: String(DRAIN_MS),
      SHUTDOWN_TIMEOUT_MS: '15000',
      RATE_LIMIT_PER_MINUTE: '100000',
    });
    const gw = service.gatewayUrl;
    const account = await service.apiAccount(1_000_000_00);
    const accountId = account.accountId;
    const headers = keyHeaders(account);
    let sigtermAt: number | undefined;
    const since = () => (sigtermAt === undefined ? -1 : Date.now() - sigtermAt);

    const sent: Sent[] = [];
    const buyer = async (index: number) => {
      for (let n = 0; ; n++) {
        // Every third purchase has no answer in time (sandbox 8888): it must end pending, not lost.
        const phone = n % 3 === 2 ? '08031238888' : `0803${String(1_000_000 + index * 1000 + n).padStart(7, '0')}`;
        const one: Sent = { requestId: unique('sd') };
        sent.push(one);
        try {
          one.answer = await request(gw, '/api/v1?action=airtime', {
            headers: { ...headers, 'Idempotency-Key': one.requestId },
            body: { network: 'mtn', phone, amount: 100 },
          });
          one.answeredAtMs = since();
        } catch (error) {
          one.error = (error as NodeJS.ErrnoException).code ?? String(error);
          return;
        }
      }
    };
    const health: { atMs: number; status: number | string }[] = [];
    let probing = true;
    const prober = async () => {
      while (probing) {
        try {
          health.push({ atMs: since(), status: (await request(gw, '/healthz')).status });
        } catch (error) {
          health.push({ atMs: since(), status: (error as NodeJS.ErrnoException).code ?? 'error' });
        }
        await new Promise((resolve) => setTimeout(resolve, 25));
      }
    };

    const buyers = Array.from({ length: BUYERS }, (_, i) => buyer(i));
    const probe = prober();
    await new Promise((resolve) => setTimeout(resolve, STREAM_BEFORE_SIGTERM_MS));
    sigtermAt = Date.now();
    service.child.kill('SIGTERM');
    await Promise.all(buyers);
    const exit = await service.exited;
    const stoppedInMs = Date.now() - sigtermAt;
    probing = false;
    await probe;

    assert.equal(exit, { code: 0, signal: null }, service.stderr());
    assert.ok(stoppedInMs < 15_000, `stopped within SHUTDOWN_TIMEOUT_MS (${stoppedInMs} ms)`);

    // Health first: after SIGTERM /healthz said 503 while the gateway still accepted, and only
    // then were connections refused.
    const after = health.filter((h) => h.atMs >= 0);
    const first503 = after.findIndex((h) => h.status === 503);
    const firstRefused = after.findIndex((h) => h.status === 'ECONNREFUSED');
    assert.ok(first503 >= 0, `/healthz said 503 during the drain: ${JSON.stringify(after.slice(0, 8))}`);
    assert.ok(
      after.slice(0, first503).every((h) => h.status === 200),
      'nothing else came before the 503',
    );
    assert.ok(firstRefused === -1 || firstRefused > first503, '503 came before the port closed');

    // Every request got an HTTP answer or was refused at connect (or, in the instant the port
    // closes, reset before it was read): none was cut off. The store below shows that none
    // of the unanswered ones bought anything.
    const unanswered = sent.filter((s) => s.answer === undefined);
    assert.equal(
      unanswered.filter((s) => s.error !== 'ECONNREFUSED' && s.error !== 'ECONNRESET').map((s) => s.error),
      [],
      'no request lost its answer',
    );
    const answered = sent.filter((s) => s.answer !== undefined);
    for (const s of answered) assert.ok([200, 202].includes(s.answer!.status), `${s.answer!.status} ${s.answer!.text}`);
    assert.ok(
      answered.some((s) => s.answeredAtMs! >= 0),
      'purchases in flight at SIGTERM were answered after it',
    );
    assert.ok(
      answered.some((s) => s.answeredAtMs! >= DRAIN_MS / 2),
      'purchases were still taken during the drain',
    );
    assert.ok(
      answered.some((s) => s.answer!.status === 202),
      'some ended pending',
    );

    // The store, read after the exit: every 2xx is there in the state it was answered with,
    // and no transaction exists that was not answered.
    const store = openSqliteStore({ filename: path.join(service.dataDir, SQLITE_FILE) });
    try {
      for (const s of answered) {
        const tx = await store.transactions.get(s.answer!.json.reference);
        assert.ok(tx, `answered purchase ${s.answer!.json.reference} is stored`);
        assert.is(tx.requestId, s.requestId);
        assert.is(tx.status, s.answer!.status === 200 ? 'success' : 'pending');
      }
      const boughtWithoutAnswer = (
        await store.transactions.listByAccount(accountId, 'live', { limit: 1_000 })
      ).items.filter((tx) => unanswered.some((s) => s.requestId === tx.requestId));
      assert.equal(
        boughtWithoutAnswer.map((tx) => tx.reference),
        [],
        'no purchase was made for a request that got no answer',
      );
      const audit = await store.wallet.audit();
      assert.equal(audit.violations, [], 'the ledger check is clean');
      assert.is(audit.transactionsChecked, answered.length, 'every stored purchase was answered');
      assert.is(audit.pendingCount, answered.filter((s) => s.answer!.status === 202).length);
    } finally {
      await store.close();
    }

    const lines = service.lines();
    const events = lines.map((l) => l.event);
    assert.ok(events.indexOf('gateway.draining') < events.indexOf('gateway.stopped'));
    // The gateway's thread and the core's each write their lines through a stream of their own,
    // asynchronously, so across the two threads the order of lines in stdout need not be the
    // order of the events (checking it failed once in a full suite); the lines' times are.
    const at = (event: string) => Date.parse(String(lines.find((l) => l.event === event)?.time));
    assert.ok(at('gateway.stopped') <= at('core.stopped'), 'the gateway stops before the core');
    assert.ok(events.includes('shutdown.completed'));
  } finally {
    await service?.cleanup();
  }
});

test('start:core alone: SIGTERM turns health NOT_SERVING, closes the store, flushes its log, exits 0', async () => {
  const dataDir = mkdtempSync(path.join(tmpdir(), 'prepaid-core-stop-'));
  try {
    const core = await spawnCore({ DATA_DIR: dataDir, CORE_METRICS_PORT: '0' });
    let stdout = '';
    core.child.stdout!.on('data', (chunk: Buffer) => (stdout += chunk.toString('utf8')));
    const stdoutEnded = once(core.child.stdout!, 'end');
    core.child.kill('SIGTERM');
    assert.equal(await core.exited, { code: 0, signal: null });
    // 'exit' can come before the last of the pipe is read.
    await stdoutEnded;
    const events = parseLines(stdout).map((l) => l.event);
    for (const event of ['shutdown.started', 'core.draining', 'core.stopped', 'shutdown.completed'])
      assert.ok(events.includes(event), `${event}: ${stdout}`);
    assert.ok(events.indexOf('core.draining') < events.indexOf('core.stopped'));
    assert.equal(events.at(-1), 'shutdown.completed', 'the last line is written before the exit');
  } finally {
    rmSync(dataDir, { recursive: true, force: true });
  }
});

test(
  'SIGTERM while npm start is still starting (the core listens, the other parts not yet): the stop waits ' +
    'for the start, then is graceful, exit 0',
  async () => {
    const dataDir = mkdtempSync(path.join(tmpdir(), 'prepaid-early-stop-'));
    const child = spawn(process.execPath, ['--enable-source-maps', 'dist/bin/start.js'], {
      env: {
        ...process.env,
        DATA_DIR: dataDir,
        PORT: '0',
        HOST: '127.0.0.1',
        CORE_PORT: '0',
        CORE_METRICS_PORT: '0',
        DASHBOARD_PORT: '0',
        DASHBOARD_HOST: '127.0.0.1',
        CONSOLE_PORT: '0',
        SHUTDOWN_DRAIN_MS: '0',
      },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    try {
      const closed = once(child, 'close');
      let stdout = '';
      let signalled = false;
      child.stdout!.on('data', (chunk: Buffer) => {
        stdout += chunk.toString('utf8');
        // The first part's listening line: before it the process may still be loading; after
        // it the start goes on with the gateway, the dashboard and the console.
        if (!signalled && parseLines(stdout).some((l) => l.event === 'core.listening')) {
          signalled = true;
          child.kill('SIGTERM');
        }
      });
      const [code, signal] = await closed;
      assert.ok(signalled, `the core never said it listens: ${stdout}`);
      assert.equal({ code, signal }, { code: 0, signal: null }, stdout);
      const events = parseLines(stdout).map((l) => l.event);
      assert.ok(events.includes('shutdown.started'), stdout);
      assert.equal(events.at(-1), 'shutdown.completed', stdout);
    } finally {
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
      rmSync(dataDir, { recursive: true, force: true });
    }
  },
);

test('past SHUTDOWN_TIMEOUT_MS the core ends anyway, logs it, exits 1; the cut-off purchase is pending', async () => {
  const dataDir = mkdtempSync(path.join(tmpdir(), 'prepaid-forced-'));
  try {
    // A provider slower than the shutdown bound: the purchase cannot finish in time.
    const core = await spawnCore({
      DATA_DIR: dataDir,
      CORE_METRICS_PORT: 'off',
      SANDBOX_DELAY_MS: '5000',
      PROVIDER_TIMEOUT_MS: '10000',
      SHUTDOWN_TIMEOUT_MS: '300',
    });
    let stdout = '';
    core.child.stdout!.on('data', (chunk: Buffer) => (stdout += chunk.toString('utf8')));
    const admin = createClient(
      AdminService,
      createGrpcTransport({ baseUrl: core.url, interceptors: [bearer(readTokenFile(dataDir, ADMIN_TOKEN_FILE)!)] }),
    );
    const purchase = createClient(
      PurchaseService,
      createGrpcTransport({ baseUrl: core.url, interceptors: [bearer(readTokenFile(dataDir, SERVICE_TOKEN_FILE)!)] }),
    );
    const created = await admin.createAccount({ name: 'Forced Stop Stores', tierId: 'api' });
    const accountId = created.account!.accountId;
    await admin.creditWallet({ accountId, amountKobo: 100_000n, memo: 'test' });
    const buying = purchase
      .buyAirtime({ accountId, network: 'mtn', phone: '08031234567', amountKobo: 10_000n, requestId: 'cut-off-1' })
      .catch((error: unknown) => error);
    await new Promise((resolve) => setTimeout(resolve, 300));
    const started = Date.now();
    core.child.kill('SIGTERM');
    const exit = await core.exited;
    assert.is(exit.code, 1, 'a forced stop exits non-zero');
    assert.ok(Date.now() - started < 3_000, 'the bound held');
    assert.instance(await buying, Error, 'the cut-off call got no answer');

    const lines = parseLines(stdout);
    const forced = lines.find((l) => l.event === 'shutdown.timeout_error');
    assert.ok(forced, `the forced stop is logged: ${stdout}`);
    assert.is(forced.level, 'error');
    assert.match(String(forced['message']), 'SHUTDOWN_TIMEOUT_MS');

    const store = openSqliteStore({ filename: path.join(dataDir, SQLITE_FILE) });
    try {
      const pending = await store.transactions.listPending({ needsAttentionOnly: false }, { limit: 10 });
      assert.equal(
        pending.items.map((t) => [t.requestId, t.status]),
        [['cut-off-1', 'pending']],
        'the purchase is kept, pending, for recovery',
      );
      assert.equal((await store.wallet.audit()).violations, []);
    } finally {
      await store.close();
    }
  } finally {
    rmSync(dataDir, { recursive: true, force: true });
  }
});

test.run();
