/**
 * Group commit (core/store/sqlite/group-commit.ts) on a real SQLite file: operations asked
 * for together share one transaction yet stay atomic one by one (a failure is retried in
 * the careful, savepoint-per-operation run), keep their order, are acknowledged only once
 * committed, come in bounded batches, and all fail together when the commit cannot happen.
 * Riding operations join the others' batches outside their count, or commit alone soon.
 * With a Durability (the store's WAL fsync, held here by the test), nothing resolves before
 * the sync that covers it, what is asked for meanwhile gathers for the batch after it (a full
 * batch commits at once), answers wait on settled(), and a failed sync fails what waits and
 * refuses everything after.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import Database from 'better-sqlite3';
import * as assert from 'uvu/assert';
import {
  batchSize,
  createGroupCommit,
  type Durability,
  MAX_BATCH_OPERATIONS,
  MAX_BATCH_RIDERS,
  MIN_BATCH_OPERATIONS,
  SyncFailed,
} from '../../../core/store/sqlite/group-commit.js';
import { settledAfter } from '../../helpers/pending.js';
import { suite } from '../../helpers/suite.js';

const test = suite('sqlite group commit');
let dir: string;
let file: string;
let db: Database.Database;
const others: Database.Database[] = [];

test.before.each(() => {
  dir = mkdtempSync(path.join(tmpdir(), 'prepaid-group-'));
  file = path.join(dir, 'g.sqlite');
  db = new Database(file, { timeout: 100 });
  db.pragma('journal_mode = WAL');
  db.exec('CREATE TABLE t (id INTEGER PRIMARY KEY, v TEXT NOT NULL UNIQUE)');
});
test.after.each(() => {
  for (const other of others.splice(0)) other.close();
  db.close();
  rmSync(dir, { recursive: true, force: true });
});

const insert = (v: string) => () => db.prepare('INSERT INTO t (v) VALUES (?)').run(v).lastInsertRowid;

test('operations asked for together run in one transaction, in order, each atomic on its own', async () => {
  const commit = createGroupCommit(db);
  const insideTransaction: boolean[] = [];
  const results = await Promise.allSettled([
    commit.run(() => {
      insideTransaction.push(db.inTransaction);
      return insert('a')();
    }),
    // A plain function with two writes that then fails: neither write may stay.
    commit.run(() => {
      insert('b1')();
      insert('b2')();
      throw new Error('this operation fails after two writes');
    }),
    commit.run(insert('a')), // violates UNIQUE: rejected alone
    commit.run(() => {
      insideTransaction.push(db.inTransaction);
      return insert('c')();
    }),
  ]);
  assert.equal(
    results.map((r) => r.status),
    ['fulfilled', 'rejected', 'rejected', 'fulfilled'],
  );
  assert.match(String((results[1] as PromiseRejectedResult).reason), /fails after two writes/);
  assert.match(String((results[2] as PromiseRejectedResult).reason), /UNIQUE/);
  assert.ok(
    insideTransaction.length >= 2 && insideTransaction.every(Boolean),
    'they ran inside the shared transaction',
  );
  assert.equal(
    db.prepare('SELECT v FROM t ORDER BY id').pluck().all(),
    ['a', 'c'],
    'the failed operations left nothing',
  );
  assert.not.ok(db.inTransaction, 'the batch was committed');
});

test('recover answers for a failed operation after its own writes are rolled back', async () => {
  const commit = createGroupCommit(db);
  await commit.run(insert('taken'));
  const count = () => db.prepare('SELECT count(*) FROM t').pluck().get() as number;
  const [recovered, rethrown, plain] = await Promise.allSettled([
    commit.run<unknown>(
      () => {
        insert('half')();
        return insert('taken')(); // fails after one write
      },
      (error) => {
        assert.match(String(error), /UNIQUE/);
        // Inside the same transaction, with the operation's first write already gone.
        return { rows: count(), inTransaction: db.inTransaction };
      },
    ),
    commit.run(insert('taken'), () => {
      throw new Error('not a case I handle');
    }),
    commit.run(insert('ok')),
  ]);
  assert.equal((recovered as PromiseFulfilledResult<unknown>).value, { rows: 1, inTransaction: true });
  assert.match(String((rethrown as PromiseRejectedResult).reason), /not a case I handle/);
  assert.is(plain.status, 'fulfilled');
  assert.equal(db.prepare('SELECT v FROM t ORDER BY id').pluck().all(), ['taken', 'ok']);
});

test('a resolved operation is already committed: another connection sees it', async () => {
  const commit = createGroupCommit(db);
  await commit.run(insert('seen'));
  const other = new Database(file);
  others.push(other);
  assert.equal(other.prepare('SELECT v FROM t').pluck().all(), ['seen']);
});

test('more operations than one batch holds all complete, in order, one batch per turn', async () => {
  const commit = createGroupCommit(db);
  const count = MIN_BATCH_OPERATIONS * 2 + 7;
  const batchOf: number[] = [];
  let turn = 0;
  // Counts event-loop turns: an immediate that re-arms itself until the work is done.
  let counting = true;
  const tick = () => {
    turn += 1;
    if (counting) setImmediate(tick);
  };
  setImmediate(tick);
  const ids = await Promise.all(
    Array.from({ length: count }, (_, i) =>
      commit.run(() => {
        batchOf.push(turn);
        return insert(`v${i}`)();
      }),
    ),
  );
  counting = false;
  assert.is(ids.length, count);
  assert.equal(
    ids.map(Number),
    Array.from({ length: count }, (_, i) => i + 1),
    'committed in the order asked',
  );
  const sizes = [...new Set(batchOf)].map((t) => batchOf.filter((b) => b === t).length);
  assert.equal(
    sizes,
    [MIN_BATCH_OPERATIONS, MIN_BATCH_OPERATIONS, 7],
    'bounded batches, each in its own turn of the event loop',
  );
});

test('a deep queue commits in larger batches: a quarter of what waits, within bounds, each in its turn', async () => {
  const commit = createGroupCommit(db);
  // Thousands in flight behind a slow upstream: a fixed 16 would take one fsync per 16 of them.
  const count = MAX_BATCH_OPERATIONS * 4 + 100;
  const batchOf: number[] = [];
  let turn = 0;
  let counting = true;
  const tick = () => {
    turn += 1;
    if (counting) setImmediate(tick);
  };
  setImmediate(tick);
  const ids = await Promise.all(
    Array.from({ length: count }, (_, i) =>
      commit.run(() => {
        batchOf.push(turn);
        return insert(`v${i}`)();
      }),
    ),
  );
  counting = false;
  assert.equal(
    ids.map(Number),
    Array.from({ length: count }, (_, i) => i + 1),
    'committed in the order asked',
  );
  const sizes = [...new Set(batchOf)].map((t) => batchOf.filter((b) => b === t).length);
  let waiting = count;
  const expected: number[] = [];
  while (waiting > 0) {
    const size = Math.min(waiting, batchSize(waiting));
    expected.push(size);
    waiting -= size;
  }
  assert.equal(sizes, expected, 'each batch as batchSize says, in a turn of its own');
  assert.is(sizes[0], MAX_BATCH_OPERATIONS, 'never more than the upper bound');
  assert.ok(sizes.length < count / MIN_BATCH_OPERATIONS / 3, `${sizes.length} commits for ${count} operations`);
  assert.equal([batchSize(0), batchSize(40), batchSize(100), batchSize(10_000)], [16, 16, 25, 256]);
});

test('when the transaction cannot start, every operation of the batch fails and nothing is written', async () => {
  const commit = createGroupCommit(db);
  const locker = new Database(file);
  others.push(locker);
  locker.prepare('BEGIN IMMEDIATE').run();
  const results = await Promise.allSettled([commit.run(insert('x')), commit.run(insert('y'))]);
  assert.ok(results.every((r) => r.status === 'rejected' && /locked|busy/i.test(String(r.reason))));
  locker.prepare('ROLLBACK').run();
  assert.equal(db.prepare('SELECT v FROM t').pluck().all(), []);
  // And the next batch works again.
  await commit.run(insert('after'));
  assert.equal(db.prepare('SELECT v FROM t').pluck().all(), ['after']);
});

test('a rider joins the next batch the others start, outside their count, and resolves once committed', async () => {
  const commit = createGroupCommit(db);
  const transactions = new Set<number>();
  // Which transaction an operation ran in: the batch's first insert's id stands for it.
  let current = 0;
  const rider = commit.ride(() => {
    transactions.add(current);
    return insert('rider')();
  });
  const batch = Array.from({ length: MIN_BATCH_OPERATIONS }, (_, i) =>
    commit.run(() => {
      if (i === 0) current = 1;
      transactions.add(current);
      return insert(`o${i}`)();
    }),
  );
  await Promise.all([rider, ...batch]);
  assert.equal([...transactions], [1], 'one transaction held the rider and a full batch of the others');
  const other = new Database(file);
  others.push(other);
  assert.is(other.prepare('SELECT count(*) FROM t').pluck().get(), MIN_BATCH_OPERATIONS + 1, 'committed when resolved');
  assert.equal(
    db.prepare('SELECT v FROM t ORDER BY id').pluck().all().slice(-1),
    ['rider'],
    'riders run after the batch they join',
  );
});

test('a rider with no batch to join commits on its own; a failing rider fails alone', async () => {
  const commit = createGroupCommit(db);
  await commit.run(insert('taken'));
  const results = await Promise.allSettled([
    commit.ride(insert('alone')),
    commit.ride(insert('taken')),
    commit.ride(insert('too')),
  ]);
  assert.equal(
    results.map((r) => r.status),
    ['fulfilled', 'rejected', 'fulfilled'],
  );
  assert.equal(db.prepare('SELECT v FROM t ORDER BY id').pluck().all(), ['taken', 'alone', 'too']);
  assert.not.ok(db.inTransaction);
});

test('more riders than one batch holds all commit, in order', async () => {
  const commit = createGroupCommit(db);
  const count = MAX_BATCH_RIDERS * 2 + 3;
  const ids = await Promise.all(Array.from({ length: count }, (_, i) => commit.ride(insert(`r${i}`))));
  assert.equal(
    ids.map(Number),
    Array.from({ length: count }, (_, i) => i + 1),
  );
});

/** A Durability whose syncs the test finishes by hand; `calls` are the syncs asked for. */
function heldSync() {
  const calls: ((error: Error | null) => void)[] = [];
  const durability: Durability = { sync: (done) => calls.push(done) };
  return { durability, calls };
}

const synchronous = () => db.pragma('synchronous', { simple: true });

test('with a durability: committed with NORMAL, answered only after the sync that covers it', async () => {
  const { durability, calls } = heldSync();
  const commit = createGroupCommit(db, durability);
  db.pragma('synchronous = FULL');
  let during: unknown;
  const first = commit.run(() => {
    during = synchronous();
    return insert('a')();
  });
  assert.not.ok(await settledAfter(first), 'not answered before the sync');
  assert.is(during, 1, 'the batch ran with synchronous = NORMAL');
  assert.is(synchronous(), 2, 'FULL again for every other write on the connection');
  const other = new Database(file);
  others.push(other);
  assert.equal(other.prepare('SELECT v FROM t').pluck().all(), ['a'], 'committed already, waiting for the disk');
  assert.is(calls.length, 1, 'one sync asked for');
  const settled = commit.settled();
  assert.not.ok(await settledAfter(settled), 'settled() waits for the same sync');

  // Asked for while that sync is in flight: held until it is done, then committed and covered by the next.
  const second = commit.run(insert('b'));
  await settledAfter(second);
  assert.is(calls.length, 1, 'one sync at a time');
  assert.equal(other.prepare('SELECT v FROM t').pluck().all(), ['a'], 'held, not committed, during the sync');
  calls[0]!(null);
  assert.is(await first, 1);
  await settled;
  assert.not.ok(await settledAfter(second), 'what was held waits for the next sync');
  assert.equal(other.prepare('SELECT v FROM t').pluck().all(), ['a', 'b'], 'committed once the sync was done');
  assert.is(calls.length, 2, 'the next sync starts as soon as the first is done');
  const third = commit.settled();
  calls[1]!(null);
  assert.is(await second, 2);
  await third;
  assert.ok(await settledAfter(commit.settled()), 'nothing left to sync: settled() at once');
});

test('with a durability: what gathers during a sync commits after it, back to back; a full batch at once', async () => {
  const { durability, calls } = heldSync();
  const commit = createGroupCommit(db, durability);
  const other = new Database(file);
  others.push(other);
  const count = () => other.prepare('SELECT count(*) FROM t').pluck().get();
  const first = commit.run(insert('first'));
  await settledAfter(first);
  assert.is(calls.length, 1);
  // Fewer than a full batch: they wait for the sync, then share one transaction.
  const transactions: number[] = [];
  const gathered = Array.from({ length: 3 }, (_, i) =>
    commit.run(() => {
      transactions.push(Number(db.prepare('SELECT count(*) FROM t').pluck().get()));
      return insert(`g${i}`)();
    }),
  );
  await settledAfter(Promise.all(gathered));
  assert.is(count(), 1, 'nothing of them committed during the sync');
  // A full batch does not wait: the sync's wait is then worth using. What is left over gathers again.
  const full = Array.from({ length: MAX_BATCH_OPERATIONS }, (_, i) => commit.run(insert(`f${i}`)));
  await settledAfter(Promise.all(full));
  assert.is(count(), 1 + MAX_BATCH_OPERATIONS, 'a full batch commits while the sync is in flight');
  assert.equal(transactions, [1, 2, 3], 'the gathered ones ran back to back, first of the batch');
  calls[0]!(null);
  await first;
  assert.is(calls.length, 2, 'the next sync covers the full batch at once');
  await settledAfter(Promise.all(full));
  assert.is(count(), 1 + MAX_BATCH_OPERATIONS, 'the three left over gather during it');
  calls[1]!(null);
  assert.equal(await Promise.all(gathered), [2, 3, 4], "the gathered ones, with the full batch's sync");
  assert.not.ok(await settledAfter(Promise.all(full)), 'the three left over wait for the sync after');
  assert.is(count(), 1 + 3 + MAX_BATCH_OPERATIONS, 'committed once that sync was done');
  assert.is(calls.length, 3);
  calls[2]!(null);
  assert.is((await Promise.all(full)).length, MAX_BATCH_OPERATIONS);
});

test('with a durability: a failed sync fails what waits, and the store acknowledges nothing more', async () => {
  const { durability, calls } = heldSync();
  const commit = createGroupCommit(db, durability);
  const waiting = commit.run(insert('a'));
  await settledAfter(waiting);
  calls[0]!(new Error('EIO: the disk refused'));
  const [failed, settled] = await Promise.allSettled([waiting, commit.settled()]);
  assert.ok(failed.status === 'rejected' && failed.reason instanceof SyncFailed, 'the waiting operation fails');
  assert.match(String((failed as PromiseRejectedResult).reason.cause), /EIO/);
  assert.is(settled.status, 'rejected', 'and so does settled()');
  const after = await Promise.allSettled([commit.run(insert('b')), commit.ride(insert('c'))]);
  assert.equal(
    after.map((r) => r.status),
    ['rejected', 'rejected'],
  );
  assert.equal(db.prepare('SELECT v FROM t ORDER BY id').pluck().all(), ['a'], 'nothing written after the failure');
  assert.is(calls.length, 1, 'no sync asked for after it');
});

test('with a durability: a batch whose commit failed is answered at once, with nothing to sync', async () => {
  const { durability, calls } = heldSync();
  const commit = createGroupCommit(db, durability);
  const blocker = new Database(file, { timeout: 0 });
  others.push(blocker);
  blocker.exec('BEGIN IMMEDIATE'); // BEGIN IMMEDIATE of the batch then fails: SQLITE_BUSY
  const results = await Promise.allSettled([commit.run(insert('a'))]);
  blocker.exec('ROLLBACK');
  assert.is(results[0]!.status, 'rejected');
  assert.match(String((results[0] as PromiseRejectedResult).reason), /locked|busy/i);
  assert.is(calls.length, 0);
});

test('with a durability: a database closed before the batch runs fails the batch, it does not throw', async () => {
  const { durability, calls } = heldSync();
  const commit = createGroupCommit(db, durability);
  const waiting = commit.run(insert('a'));
  db.close(); // as a shutdown can, with an operation still queued
  const [result] = await Promise.allSettled([waiting]);
  assert.is(result!.status, 'rejected');
  assert.match(String((result as PromiseRejectedResult).reason), /not open/);
  assert.is(calls.length, 0);
  db = new Database(file); // for after.each
});

test.run();
