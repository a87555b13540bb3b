/**
 * Crash safety: the core runs as a child process with a slow sandbox provider
 * and is killed with SIGKILL at random moments while purchases stream in, again and again.
 * After the last restart the recovery worker must bring every transaction to a final state,
 * the ledger check must find nothing, and no purchase answered as delivered may be lost.
 */

import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { createClient } from '@connectrpc/connect';
import { createGrpcTransport } from '@connectrpc/connect-node';
import * as assert from 'uvu/assert';
import { AdminService } from '../../gen/prepaid/v1/admin_pb.js';
import { PurchaseService } from '../../gen/prepaid/v1/purchase_pb.js';
import { TransactionStatus } from '../../gen/prepaid/v1/types_pb.js';
import { ADMIN_TOKEN_FILE, readTokenFile, SERVICE_TOKEN_FILE } from '../../runtime/tokens.js';
import { bearer } from '../helpers/core.js';
import { type CoreProcess, spawnCore } from '../helpers/process.js';
import { suite } from '../helpers/suite.js';

const test = suite('crash safety');

/** At least 20 kills, so that a window between two writes is hit often enough to show. */
const KILLS = 20;
/** Each life of the core lasts a random 150..900 ms of purchases before SIGKILL. */
const MIN_LIFE_MS = 150;
const MAX_LIFE_MS = 900;
/** Purchases sent at once; more than one so kills land in the middle of several. */
const CONCURRENT_BUYERS = 4;

const env = (dataDir: string) => ({
  DATA_DIR: dataDir,
  // Slow enough that kills often land between reserve and settle.
  SANDBOX_DELAY_MS: '120',
  PROVIDER_TIMEOUT_MS: '1000',
  RECOVERY_INTERVAL_MS: '200',
});

function clients(url: string, dataDir: string) {
  const adminToken = readTokenFile(dataDir, ADMIN_TOKEN_FILE)!;
  const serviceToken = readTokenFile(dataDir, SERVICE_TOKEN_FILE)!;
  return {
    admin: createClient(AdminService, createGrpcTransport({ baseUrl: url, interceptors: [bearer(adminToken)] })),
    purchase: createClient(
      PurchaseService,
      createGrpcTransport({ baseUrl: url, interceptors: [bearer(serviceToken)] }),
    ),
  };
}

test('SIGKILL at random moments never loses or doubles money', async () => {
  const dataDir = mkdtempSync(path.join(tmpdir(), 'prepaid-crash-'));
  let core: CoreProcess | undefined;
  try {
    core = await spawnCore(env(dataDir));
    let api = clients(core.url, dataDir);
    const created = await api.admin.createAccount({ name: 'Crash Test Stores', tierId: 'api' });
    const accountId = created.account!.accountId;
    await api.admin.creditWallet({ accountId, amountKobo: 100_000_000n, memo: 'crash test funding' });

    /** References the core answered as delivered: these must end as success. */
    const delivered = new Set<string>();
    let answered = 0;
    /** Purchases found pending right after a restart: proof that kills landed mid-purchase. */
    let leftPending = 0n;

    for (let life = 0; life < KILLS; life++) {
      let alive = true;
      const buyer = async () => {
        while (alive) {
          try {
            const response = await api.purchase.buyAirtime({
              accountId,
              network: 'mtn',
              phone: `0803${String(1_000_000 + Math.floor(Math.random() * 8_000_000))}`,
              amountKobo: 10_000n,
              requestId: randomBytes(8).toString('hex'),
            });
            answered += 1;
            if (response.transaction!.status === TransactionStatus.SUCCESS)
              delivered.add(response.transaction!.reference);
          } catch {
            // The core died under this call; what happened to it is for recovery to settle.
            return;
          }
        }
      };
      const buyers = Array.from({ length: CONCURRENT_BUYERS }, buyer);
      await new Promise((resolve) => setTimeout(resolve, MIN_LIFE_MS + Math.random() * (MAX_LIFE_MS - MIN_LIFE_MS)));
      core.child.kill('SIGKILL');
      const { signal } = await core.exited;
      assert.is(signal, 'SIGKILL');
      alive = false;
      await Promise.all(buyers);
      core = await spawnCore(env(dataDir));
      api = clients(core.url, dataDir);
      // The invariants hold at every restart, before any recovery has run.
      const check = await api.admin.checkLedger({});
      assert.is(check.violationCount, 0n, `after kill ${life + 1}: ${JSON.stringify(check.violations.slice(0, 3))}`);
      leftPending += check.pendingCount;
    }

    assert.ok(leftPending > 0n, 'some kills landed between reserve and settle');

    assert.ok(answered > KILLS, `purchases were answered between kills (${answered})`);

    // The last life: let the recovery worker finish every transaction a kill left behind.
    const deadline = Date.now() + 30_000;
    let check = await api.admin.checkLedger({});
    while (check.pendingCount > 0n && Date.now() < deadline) {
      await new Promise((resolve) => setTimeout(resolve, 250));
      check = await api.admin.checkLedger({});
    }
    assert.is(check.pendingCount, 0n, 'every transaction is final after recovery');
    assert.is(check.violationCount, 0n, `ledger check: ${JSON.stringify(check.violations.slice(0, 3))}`);
    assert.ok(check.transactionsChecked >= BigInt(answered), 'every answered purchase is recorded');

    for (const reference of delivered) {
      const { transaction } = await api.purchase.getTransaction({ accountId, reference });
      assert.is(transaction!.status, TransactionStatus.SUCCESS, `delivered purchase ${reference} stayed delivered`);
    }
  } finally {
    core?.child.kill('SIGKILL');
    if (core) await core.exited;
    rmSync(dataDir, { recursive: true, force: true });
  }
});

test.run();
