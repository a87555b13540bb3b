/**
 * A real kill -9 between verification and credit: the core runs as a child process
 * (`node --import tsx core/main.ts`) with Paystack pointed at the fake Paystack in this process,
 * behind a real gateway. To land the kill deterministically at that point, the test adds a
 * trigger to the core's SQLite file that refuses the one update that marks an inflow credited:
 * the notification is re-queried, the inflow recorded as `verified`, and the credit refused,
 * so the process holds exactly the state a crash between the two leaves. It is then killed
 * with SIGKILL, the trigger removed, and the core started again: the sweeper's run at start
 * credits the inflow once; Paystack's resend of the notification and another restart credit
 * nothing more, and the ledger check finds nothing. No hook in the core is involved.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { createClient } from '@connectrpc/connect';
import { createGrpcTransport } from '@connectrpc/connect-node';
import Database from 'better-sqlite3';
import * as assert from 'uvu/assert';
import { SQLITE_FILE } from '../../core/store/index.js';
import { AdminService } from '../../gen/prepaid/v1/admin_pb.js';
import { FundingService } from '../../gen/prepaid/v1/funding_pb.js';
import { ADMIN_TOKEN_FILE, readTokenFile, SERVICE_TOKEN_FILE } from '../../runtime/tokens.js';
import { bearer, type TestCore } from '../helpers/core.js';
import { type FakePaystack, startFakePaystack } from '../helpers/fake-paystack.js';
import { startTestGateway, type TestGateway } from '../helpers/gateway.js';
import { type CoreProcess, spawnCore } from '../helpers/process.js';
import { suite } from '../helpers/suite.js';

const test = suite('funding: kill -9 between verification and credit');

/**
 * How long the restarted core's first sweep may take before the test gives up (not a timed assertion: a bound on
 * waiting).
 */
const SWEEP_WAIT_MS = 30_000;

function clients(url: string, dataDir: string) {
  const admin = createGrpcTransport({
    baseUrl: url,
    interceptors: [bearer(readTokenFile(dataDir, ADMIN_TOKEN_FILE)!)],
  });
  return { admin: createClient(AdminService, admin), funding: createClient(FundingService, admin) };
}

/** A gateway in this process in front of the child core. */
function gatewayFor(core: CoreProcess, dataDir: string): Promise<TestGateway> {
  const serviceToken = readTokenFile(dataDir, SERVICE_TOKEN_FILE)!;
  return startTestGateway({ url: core.url, serviceToken } as TestCore);
}

async function postNotification(gateway: TestGateway, sent: { body: string; signature: string }): Promise<number> {
  const response = await fetch(`http://127.0.0.1:${gateway.port}/callbacks/paystack`, {
    method: 'POST',
    body: sent.body,
    headers: { 'Content-Type': 'application/json', 'x-paystack-signature': sent.signature },
  });
  await response.text();
  return response.status;
}

async function kill(core: CoreProcess): Promise<void> {
  core.child.kill('SIGKILL');
  const { signal } = await core.exited;
  assert.is(signal, 'SIGKILL');
}

test('killed with the inflow verified and not credited, restarted: credited exactly once', async () => {
  const dataDir = mkdtempSync(path.join(tmpdir(), 'prepaid-funding-crash-'));
  const paystack: FakePaystack = await startFakePaystack();
  const env = {
    DATA_DIR: dataDir,
    PAYSTACK_SECRET_KEY: paystack.secretKey,
    PAYSTACK_BASE_URL: paystack.url,
    PAYSTACK_PREFERRED_BANK: 'test-bank',
    // Only the run at start matters here; the next one is an hour away.
    FUNDING_SWEEP_INTERVAL_MS: '3600000',
  };
  let core: CoreProcess | undefined;
  let gateway: TestGateway | undefined;
  const db = () => new Database(path.join(dataDir, SQLITE_FILE), { timeout: 5_000 });
  try {
    core = await spawnCore(env);
    let api = clients(core.url, dataDir);
    const accountId = (await api.admin.createAccount({ name: 'Crash Funding Stores', tierId: 'api' })).account!
      .accountId;
    const opened = await api.funding.openFundingAccounts({
      accountId,
      kyc: {
        kind: 'bvn',
        number: '22222222222',
        firstName: 'Ada',
        lastName: 'Obi',
        phone: '08031234567',
        email: 'ada@example.com',
        bankCode: '',
        bankAccount: '',
      },
    });
    const number = opened.accounts[0]!.accountNumber;

    const lock = db();
    lock.exec(`CREATE TRIGGER test_crash_before_credit BEFORE UPDATE OF status ON inflows WHEN NEW.status = 'credited'
      BEGIN SELECT RAISE(ABORT, 'test: the process dies before this credit'); END;`);
    lock.close();

    gateway = await gatewayFor(core, dataDir);
    const sent = paystack.transfer(number, 750_000, 'ref_crash_0001');
    assert.is(await postNotification(gateway, sent), 503, 'not credited: Paystack is told to send it again');
    const verifiedRow = db();
    const row = verifiedRow
      .prepare('SELECT status, credited_kobo FROM inflows WHERE provider = ? AND provider_reference = ?')
      .get('paystack', 'ref_crash_0001') as { status: string; credited_kobo: number };
    verifiedRow.close();
    assert.equal(row, { status: 'verified', credited_kobo: 0 }, 're-queried and recorded, not credited');
    assert.is((await api.admin.getAccount({ accountId })).account!.balanceKobo, 0n);

    await gateway.close();
    gateway = undefined;
    await kill(core);
    core = undefined;
    const unlock = db();
    unlock.exec('DROP TRIGGER test_crash_before_credit');
    unlock.close();

    // Restarted: the sweeper's run at start finishes the verified inflow.
    core = await spawnCore(env);
    api = clients(core.url, dataDir);
    const deadline = Date.now() + SWEEP_WAIT_MS;
    let balance = 0n;
    while (Date.now() < deadline) {
      balance = (await api.admin.getAccount({ accountId })).account!.balanceKobo;
      if (balance !== 0n) break;
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    assert.is(balance, 750_000n, 'credited after the restart');

    // Paystack's resend, and another kill and restart: nothing more.
    gateway = await gatewayFor(core, dataDir);
    assert.is(await postNotification(gateway, sent), 200);
    await gateway.close();
    gateway = undefined;
    await kill(core);
    core = await spawnCore(env);
    api = clients(core.url, dataDir);
    assert.is((await api.admin.getAccount({ accountId })).account!.balanceKobo, 750_000n);
    const credits = (await api.admin.listLedgerEntries({ accountId })).entries.filter((e) => e.kind === 'credit');
    assert.is(credits.length, 1, 'one ledger credit');
    assert.is((await api.admin.checkLedger({})).violationCount, 0n);
  } finally {
    await gateway?.close();
    if (core !== undefined) await kill(core).catch(() => {});
    await paystack.stop();
    rmSync(dataDir, { recursive: true, force: true });
  }
});

test.run();
