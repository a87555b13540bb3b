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
import { DomainError } from '../../../core/domain/errors.js';
import { kobo } from '../../../core/domain/money.js';
import type { PurchaseOrder } from '../../../core/domain/products.js';
import { createSandbox } from '../../../core/providers/sandbox/index.js';
import { executePurchase, orderHash, type PurchaseDeps } from '../../../core/purchases/flow.js';
import { Background } from '../../../core/purchases/receipts.js';
import { createRecoveryWorker } from '../../../core/purchases/recovery.js';
import type { MoneyMove } from '../../../core/store/moves.js';
import type { Store } from '../../../core/store/port.js';
import { openSqliteStore } from '../../../core/store/sqlite/index.js';
import { airtimePurchase } from '../../helpers/purchases.js';
import { suite } from '../../helpers/suite.js';

const test = suite('recovery pass');
let dir = '';
let store: Store;

test.before.each(async () => {
  dir = mkdtempSync(join(tmpdir(), 'prepaid-recovery-'));
  store = openSqliteStore({ filename: join(dir, 'prepaid.db') });
  await store.accounts.create({ accountId: 'acct-1', name: 'Ada', tierId: 'standard', createdAt: new Date(1_000) });
  await store.ledger.post({
    kind: 'credit',
    credit: {
      mode: 'live',
      accountId: 'acct-1',
      amountKobo: kobo(100_000),
      reference: 'CR-1',
      memo: 'opening',
      at: new Date(2_000),
    },
  });
});

test.after.each(async () => {
  await store.close();
  rmSync(dir, { recursive: true, force: true });
});

async function pending(reference: string, createdAtMs: number): Promise<void> {
  const reserved = await store.ledger.post({
    kind: 'reserve',
    tx: airtimePurchase(reference, { nextAttemptAt: new Date(createdAtMs), createdAt: new Date(createdAtMs) }),
  });
  assert.is(reserved.outcome, 'reserved');
}

test('one transaction whose store write fails does not stop the others from settling', async () => {
  await pending('TX-A', 3_000);
  await pending('TX-B', 4_000);
  await pending('TX-C', 5_000);
  const failing: Store['ledger'] = {
    post: (move) => {
      const settling: MoneyMove = move;
      return settling.kind === 'settle' && settling.reference === 'TX-B'
        ? Promise.reject(new Error('disk I/O error on TX-B'))
        : store.ledger.post(move);
    },
  };
  const logged: [string, Record<string, unknown>][] = [];
  const deps: PurchaseDeps = {
    store: { ledger: failing, wallet: store.wallet, transactions: store.transactions, supply: store.supply },
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
  assert.is((await store.transactions.get('TX-B'))?.status, 'pending', 'the failing one stays pending');
  const failure = logged.find(([event]) => event === 'recovery.transaction_failed');
  assert.equal(failure?.[1], { reference: 'TX-B', error: 'disk I/O error on TX-B' });

  // Its claim holds it until the lease ends (twice the provider timeout); once the fault is
  // gone, the next pass after that settles it too.
  assert.equal(
    await store.transactions.listDuePending(new Date(61_999), 10),
    [],
    'not due again while the claim holds',
  );
  const healthy = createRecoveryWorker({ ...deps, store, clock: () => new Date(62_000) }, { intervalMs: 60_000 });
  assert.is(await healthy.runOnce(new Date(62_000)), 1);
  assert.is((await store.transactions.get('TX-B'))?.status, 'success');
  assert.equal((await store.wallet.audit()).violations, []);
});

/** A core's purchase dependencies on the shared store: its own in-flight set, as on another machine. */
function coreOn(providers: PurchaseDeps['providers'], clock: () => Date): PurchaseDeps {
  return {
    store,
    providers,
    clock,
    providerTimeoutMs: 1_000,
    inFlight: new Set(),
    background: new Background(),
    log: () => {},
  };
}

const ORDER: PurchaseOrder = {
  product: 'airtime',
  service: 'mtn',
  recipient: '08031234567',
  faceValueKobo: kobo(10_000),
  chargedKobo: kobo(9_800),
  details: {},
  asked: { network: 'mtn', phone: '08031234567', amount: 10_000 },
};

test('a retry at another core while the first waits for the provider is REQUEST_IN_PROGRESS, not pending', async () => {
  const sandbox = createSandbox();
  let release!: () => void;
  const held = new Promise<void>((resolve) => {
    release = resolve;
  });
  let reached!: () => void;
  const called = new Promise<void>((resolve) => {
    reached = resolve;
  });
  // Core A's provider call starts (the purchase is reserved) and waits until released.
  const slow = {
    ...sandbox,
    airtime: {
      ...sandbox.airtime,
      purchase: async (...args: Parameters<typeof sandbox.airtime.purchase>) => {
        reached();
        await held;
        return sandbox.airtime.purchase(...args);
      },
    },
  };
  const clock = () => new Date(10_000);
  const coreA = coreOn({ live: slow, test: slow }, clock);
  const coreB = coreOn({ live: sandbox, test: sandbox }, clock);

  const first = executePurchase(coreA, 'acct-1', 'live', ORDER, 'key-1');
  await called;
  const refused = await executePurchase(coreB, 'acct-1', 'live', ORDER, 'key-1').then(
    () => null,
    (error: unknown) => error,
  );
  assert.instance(refused, DomainError);
  assert.is((refused as DomainError).code, 'REQUEST_IN_PROGRESS');

  release();
  const answered = await first;
  assert.is(answered.transaction.status, 'success');
  const replayed = await executePurchase(coreB, 'acct-1', 'live', ORDER, 'key-1');
  assert.equal([replayed.replayed, replayed.transaction.reference], [true, answered.transaction.reference]);
  assert.is((await store.wallet.audit()).violations.length, 0);
});

test('a crash survivor whose lease ended is answered pending on any core, not in progress', async () => {
  const sandbox = createSandbox();
  await store.ledger.post({
    kind: 'reserve',
    tx: airtimePurchase('TX-SURVIVOR', {
      requestId: 'key-2',
      requestHash: orderHash(ORDER),
      nextAttemptAt: new Date(12_000),
      createdAt: new Date(10_000),
    }),
  });
  const during = coreOn({ live: sandbox, test: sandbox }, () => new Date(11_999));
  const inProgress = await executePurchase(during, 'acct-1', 'live', ORDER, 'key-2').catch((error: unknown) => error);
  assert.is((inProgress as DomainError).code, 'REQUEST_IN_PROGRESS', "within the first call's lease");
  const after = coreOn({ live: sandbox, test: sandbox }, () => new Date(12_000));
  const replayed = await executePurchase(after, 'acct-1', 'live', ORDER, 'key-2');
  assert.equal([replayed.replayed, replayed.transaction.status], [true, 'pending']);
});

test.run();
