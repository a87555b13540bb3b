/**
 * The recovery pass goes on past a transaction it cannot write: one pending purchase whose
 * settle throws (a store fault on that row) is logged and left due, and the others in the
 * same pass are still settled. The store is the real embedded one; only the one failing
 * write is made to fail.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import * as assert from 'uvu/assert';
import { kobo } from '../../../core/domain/money.js';
import { createSandbox } from '../../../core/providers/sandbox/index.js';
import type { PurchaseDeps } from '../../../core/purchases/flow.js';
import { Background } from '../../../core/purchases/receipts.js';
import { createRecoveryWorker } from '../../../core/purchases/recovery.js';
import type { Store } from '../../../core/store/port.js';
import { openSqliteStore } from '../../../core/store/sqlite/index.js';
import { suite } from '../../helpers/suite.js';

const test = suite('recovery pass');
let dir = '';
let store: Store;

test.before.each(async () => {
  dir = mkdtempSync(join(tmpdir(), 'prepaid-recovery-'));
  store = openSqliteStore({ filename: join(dir, 'prepaid.db') });
  await store.accounts.create({ accountId: 'acct-1', name: 'Ada', tierId: 'standard', createdAt: new Date(1_000) });
  await store.wallet.credit({ mode: 'live', accountId: 'acct-1', amountKobo: kobo(100_000), reference: 'CR-1', memo: 'opening', at: new Date(2_000) });
});

test.after.each(async () => {
  await store.close();
  rmSync(dir, { recursive: true, force: true });
});

async function pending(reference: string, createdAtMs: number): Promise<void> {
  const reserved = await store.wallet.reserve({
    reference,
    accountId: 'acct-1',
    mode: 'live',
    product: 'airtime',
    service: 'mtn',
    recipient: '08031234567',
    faceValueKobo: kobo(10_000),
    chargedKobo: kobo(9_800),
    details: {},
    requestId: null,
    requestHash: null,
    nextAttemptAt: new Date(createdAtMs),
    createdAt: new Date(createdAtMs),
  });
  assert.is(reserved.outcome, 'reserved');
}

test('one transaction whose store write fails does not stop the others from settling', async () => {
  await pending('TX-A', 3_000);
  await pending('TX-B', 4_000);
  await pending('TX-C', 5_000);
  const failing: Store['wallet'] = {
    ...store.wallet,
    settle: (reference, result, at) =>
      reference === 'TX-B' ? Promise.reject(new Error('disk I/O error on TX-B')) : store.wallet.settle(reference, result, at),
  };
  const logged: [string, Record<string, unknown>][] = [];
  const deps: PurchaseDeps = {
    store: { wallet: failing, transactions: store.transactions },
    providers: { live: createSandbox(), test: createSandbox() },
    clock: () => new Date(60_000),
    providerTimeoutMs: 1_000,
    inFlight: new Set(),
    background: new Background(),
    log: (event, fields) => logged.push([event, fields]),
  };
  const worker = createRecoveryWorker(deps, { intervalMs: 60_000 });

  assert.is(await worker.runOnce(new Date(60_000)), 2, 'the two others became final');
  assert.is((await store.transactions.get('TX-A'))?.status, 'success');
  assert.is((await store.transactions.get('TX-C'))?.status, 'success');
  assert.is((await store.transactions.get('TX-B'))?.status, 'pending', 'the failing one stays pending, still due');
  const failure = logged.find(([event]) => event === 'recovery.transaction_failed');
  assert.equal(failure?.[1], { reference: 'TX-B', error: 'disk I/O error on TX-B' });

  // Once the fault is gone, the next pass settles it too.
  const healthy = createRecoveryWorker({ ...deps, store }, { intervalMs: 60_000 });
  assert.is(await healthy.runOnce(new Date(60_000)), 1);
  assert.is((await store.transactions.get('TX-B'))?.status, 'success');
  assert.equal((await store.wallet.audit()).violations, []);
});

test.run();
