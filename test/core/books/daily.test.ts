/**
 * The daily reconciliation's schedule (RECONCILE_AT, Lagos time): the runner looks at the
 * clock, runs the day before once it is past the hour, and only once a day; the variable is
 * HH:MM or off, anything else refused at start; the days run are kept in the store, so a
 * restart neither repeats one nor skips the ones it was down for. A real SQLite store, no upstream but the
 * one the test counts.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import * as assert from 'uvu/assert';
import { createReconciliation } from '../../../core/books/daily.js';
import { readCoreConfig } from '../../../core/config.js';
import { kobo } from '../../../core/domain/money.js';
import { upstreamOf } from '../../../core/providers/supply.js';
import { openSqliteStore } from '../../../core/store/sqlite/index.js';
import { suite } from '../../helpers/suite.js';

const test = suite('the daily reconciliation');

test('it runs the day before once, after RECONCILE_AT in Lagos, and never twice a day', async () => {
  const dir = mkdtempSync(path.join(tmpdir(), 'prepaid-reconcile-'));
  const store = openSqliteStore({ filename: path.join(dir, 'prepaid.sqlite') });
  try {
    let balances = 0;
    const site = upstreamOf(
      'site',
      'ported-number',
      {},
      {
        balance: async () => {
          balances += 1;
          return kobo(0);
        },
      },
    );
    // 02:29 in Lagos is 01:29 UTC.
    let now = new Date('2025-06-02T01:29:00Z');
    const reconciliation = createReconciliation({
      store,
      upstreams: new Map([[site.name, site]]),
      clock: () => now,
      dailyAtMinute: 2 * 60 + 30,
      log: () => {},
    });
    const daily = reconciliation.daily!;
    assert.is(await daily.runOnce(), null, 'not yet');
    assert.is(balances, 0);
    now = new Date('2025-06-02T01:30:00Z');
    assert.is(await daily.runOnce(), '2025-06-01', 'the day before');
    assert.is(balances, 1, 'the upstream was reconciled');
    now = new Date('2025-06-02T20:00:00Z');
    assert.is(await daily.runOnce(), null, 'once a day');
    // 23:30 UTC is already 00:30 of the next day in Lagos: still before the hour.
    now = new Date('2025-06-02T23:30:00Z');
    assert.is(await daily.runOnce(), null);
    now = new Date('2025-06-03T01:31:00Z');
    assert.is(await daily.runOnce(), '2025-06-02');
    assert.is(balances, 2);
    const off = createReconciliation({
      store,
      upstreams: new Map(),
      clock: () => now,
      dailyAtMinute: null,
      log: () => {},
    });
    assert.is(off.daily, null, 'off: nothing scheduled');
  } finally {
    await store.close();
    rmSync(dir, { recursive: true, force: true });
  }
});

test('RECONCILE_AT is HH:MM or off, 02:30 by default', () => {
  const dataDir = mkdtempSync(path.join(tmpdir(), 'prepaid-reconcile-'));
  try {
    assert.is(readCoreConfig({ DATA_DIR: dataDir }).reconcileAtMinute, 150);
    assert.is(readCoreConfig({ DATA_DIR: dataDir, RECONCILE_AT: '23:05' }).reconcileAtMinute, 23 * 60 + 5);
    assert.is(readCoreConfig({ DATA_DIR: dataDir, RECONCILE_AT: 'off' }).reconcileAtMinute, null);
    for (const bad of ['24:00', '2:30', '02:60', 'daily'])
      assert.throws(() => readCoreConfig({ DATA_DIR: dataDir, RECONCILE_AT: bad }), /RECONCILE_AT/, bad);
  } finally {
    rmSync(dataDir, { recursive: true, force: true });
  }
});

test('a day that is not a date, or an upstream not configured, is refused', async () => {
  const dir = mkdtempSync(path.join(tmpdir(), 'prepaid-reconcile-'));
  const store = openSqliteStore({ filename: path.join(dir, 'prepaid.sqlite') });
  try {
    const reconciliation = createReconciliation({
      store,
      upstreams: new Map(),
      clock: () => new Date(),
      dailyAtMinute: null,
      log: () => {},
    });
    const refusal = (run: Promise<unknown>) =>
      run.then(
        () => 'ran',
        (error: Error) => error.message,
      );
    assert.match(await refusal(reconciliation.run('2025-02-30')), /date must be a date/);
    assert.match(await refusal(reconciliation.run('2025-02-01', 'nowhere')), /No upstream is named "nowhere"/);
    assert.equal(await reconciliation.run('2025-02-01'), [], 'no upstream: nothing to do');
  } finally {
    await store.close();
    rmSync(dir, { recursive: true, force: true });
  }
});

test('a restarted core neither runs a finished day again nor skips the days it was down', async () => {
  const dir = mkdtempSync(path.join(tmpdir(), 'prepaid-reconcile-'));
  const file = path.join(dir, 'prepaid.sqlite');
  let balances = 0;
  const site = upstreamOf(
    'site',
    'ported-number',
    {},
    {
      balance: async () => {
        balances += 1;
        return kobo(0);
      },
    },
  );
  let now = new Date('2025-06-02T01:30:00Z');
  const daily = (store: ReturnType<typeof openSqliteStore>) =>
    createReconciliation({
      store,
      upstreams: new Map([[site.name, site]]),
      clock: () => now,
      dailyAtMinute: 2 * 60 + 30,
      log: () => {},
    }).daily!;
  let store = openSqliteStore({ filename: file });
  try {
    await daily(store).runOnce();
    assert.is(balances, 1, '2025-06-01 reconciled');
    assert.is(await store.findings.lastDay('site'), '2025-06-01');
    await store.close();
    store = openSqliteStore({ filename: file });
    await daily(store).runOnce();
    assert.is(balances, 1, 'restarted the same day: the finished day is not run again');
    await store.close();
    // Down until the 5th: the 2nd, 3rd and 4th are each run once, in order.
    now = new Date('2025-06-05T02:00:00Z');
    store = openSqliteStore({ filename: file });
    await daily(store).runOnce();
    assert.is(balances, 4, 'the three missed days caught up');
    assert.is(await store.findings.lastDay('site'), '2025-06-04');
  } finally {
    await store.close();
    rmSync(dir, { recursive: true, force: true });
  }
});

test.run();
