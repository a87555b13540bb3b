/**
 * Group commit for the embedded store. With `synchronous = FULL` every COMMIT waits for the
 * disk, and better-sqlite3 waits on the event loop: one commit per money operation would
 * cap the service at a few thousand operations a second and stall every request behind
 * each fsync. Instead, the money operations asked for in one turn of the event loop run
 * together in one IMMEDIATE transaction and share one COMMIT.
 *
 * What stays true: each operation is atomic on its own (one that fails leaves nothing
 * behind and rejects alone); operations run in the order they were asked for; and no
 * promise resolves before the COMMIT that holds its change is on disk, so nothing is
 * acknowledged that a power cut could take back.
 *
 * How, cheaply: a batch first runs its operations back to back with no savepoints, the
 * common case. If one of them throws, the whole transaction rolls back (none of the batch
 * happened) and the batch runs again carefully, each operation in its own SAVEPOINT, so
 * the failure stays with its operation. A savepoint per operation on every batch cost
 * about a sixth of the store's time, for failures that almost never happen.
 *
 * Batches are small, and the event loop gets a turn between two of them: the requests of
 * the first batch go on (their provider calls, their answers) while the next one commits.
 * One long flush of everything queued made all requests in flight move in lockstep, each
 * process idle while another worked (measured: airtime at 36% of the one-hop ceiling with
 * unbounded batches, 46% with batches of 16).
 *
 * A batch grows with the queue, though: it takes a quarter of what waits, at least
 * MIN_BATCH_OPERATIONS and at most MAX_BATCH_OPERATIONS. With a few dozen requests in
 * flight that is the same 16; with thousands waiting on a slow upstream, whose answers come
 * back in waves, a fixed 16 meant one fsync for every 16 operations, so the disk's sync rate
 * capped the purchase rate and a wave of settles queued for seconds (3,000
 * purchases in flight behind a 2 s upstream reached 20% to 85% of the ideal rate, with
 * p99 up to 4.5 times the upstream's answer). That is how a batch is sized with no sync
 * off the loop (a database in memory); with one, see below.
 *
 * The fsync waits off the event loop. With a `Durability` (the store's, for a
 * WAL file on disk), a batch commits with `synchronous = NORMAL` (SQLite writes the WAL but
 * does not sync it) and the WAL is then synced on libuv's thread pool (`fs.fsync`). No
 * operation of the batch resolves or rejects before that sync is done, so the rule above
 * holds: nothing is acknowledged before the COMMIT that holds it is on disk. What changes is
 * only where the wait happens. With `synchronous = FULL` the core's one thread sat in every
 * fsync (about a third of its time under airtime load: on tmpfs, where fsync is free,
 * airtime reached 58% and 70% of the one-hop ceiling against 41% to 48% on disk); now it
 * goes on with the next requests meanwhile. At most one sync is in flight, and the
 * operations asked for during it wait for it to end, then commit together in one
 * transaction (up to MAX_BATCH_OPERATIONS; a full batch commits at once) that the next sync
 * covers. They would have waited for that next sync anyway; what they save is commits.
 * Committing each turn's few operations while the sync ran made about five transactions
 * per sync, and each transaction's BEGIN IMMEDIATE, COMMIT and WAL frames cost the same
 * for three purchases as for thirty: measured side by side (2026-11-27), holding them cut
 * the service's CPU a purchase by 10% and 19% in two runs, and 9% with webhooks.
 *
 * Why it is as safe as FULL:
 * - a sync started after a batch's COMMIT covers that batch and everything before it (the
 *   WAL is written in order, and SQLite's recovery keeps a prefix of it), so a batch built
 *   on an earlier batch's rows is never durable without them;
 * - a checkpoint under NORMAL syncs the WAL before it copies a page into the database;
 * - every other write on the connection (keys, accounts, the catalogue) still commits
 *   with FULL: NORMAL is set for a batch's transaction and FULL again right after it;
 * - what was committed but not yet synced is visible to reads on this connection, so the
 *   core answers no RPC before `settled()` (core/rpc/grpc.ts), and the webhook worker's
 *   claims are operations of their own: nothing committed is shown or sent before it is on
 *   disk;
 * - a sync that fails (the disk refused; the kernel may have dropped the pages) fails the
 *   batches waiting on it and every operation after: the store then acknowledges nothing
 *   more, as a crash would, and a restart reads back what is on disk.
 *
 * Bookkeeping that no request waits on (the webhook worker's leases and attempt records)
 * rides along instead (`ride`): it joins the next batch the requests start, outside their
 * count, and starts a batch of its own only when none came for RIDER_WAIT_MS. Under load
 * it then costs no commit of its own; each delivery's two writes each took a place in the
 * purchases' batches before, and so a share of their fsyncs.
 */
import type Database from 'better-sqlite3';

/** Makes what the connection has committed so far durable, off the event loop (the store's: index.ts). */
export interface Durability {
  /** Calls `done` once every write committed before the call is on disk, or with why it could not be. */
  sync(done: (error: Error | null) => void): void;
}

/** Operations per transaction when few wait: enough to amortise the fsync, few enough to keep requests flowing. */
export const MIN_BATCH_OPERATIONS = 16;
/**
 * Operations per transaction however many wait: about 25 ms of the store's work, so a batch
 * never holds the core's event loop for long while the fsync is a small share of it.
 */
export const MAX_BATCH_OPERATIONS = 256;
/** A batch takes this fraction of the operations waiting (within the two bounds above). */
const QUEUE_SHARE_PER_BATCH = 1 / 4;
/** Riding operations per transaction, besides the others: small writes, many of them. */
export const MAX_BATCH_RIDERS = 256;
/** How long a riding operation waits for a batch to join before it starts one. */
const RIDER_WAIT_MS = 10;

interface Pending {
  run: () => unknown;
  recover: ((error: unknown) => unknown) | undefined;
  resolve: (value: unknown) => void;
  reject: (error: unknown) => void;
}

type Outcome = { ok: true; value: unknown } | { ok: false; error: unknown };

export interface GroupCommit {
  /**
   * Runs `operation` (synchronous, using the database) in the next shared transaction, as
   * one atomic step. It must have no effect outside the database: it may run twice (the
   * first run rolled back) when another operation of its batch fails.
   *
   * `recover`, when given, answers for the operation if it throws: it runs in the same
   * transaction once the operation's own writes are rolled back (for example to read the
   * row that won a unique-index race). Whatever it returns or throws is the outcome.
   */
  run<T>(operation: () => T, recover?: (error: unknown) => T): Promise<T>;
  /**
   * As `run`, for an operation no request waits on: it joins the next batch, or starts one
   * after RIDER_WAIT_MS. The same atomicity, order among riders, and durability on resolve.
   */
  ride<T>(operation: () => T): Promise<T>;
  /**
   * Resolves once every batch committed so far is on disk (at once when none waits for its
   * sync, or with no Durability); rejects once a sync has failed. Whatever a read saw is
   * then durable.
   */
  settled(): Promise<void>;
}

/**
 * How many of `waiting` operations the next batch takes when nothing is synced off the
 * loop (a database in memory): with a Durability, a batch takes what gathered during the
 * last sync, up to MAX_BATCH_OPERATIONS.
 */
export function batchSize(waiting: number): number {
  return Math.min(MAX_BATCH_OPERATIONS, Math.max(MIN_BATCH_OPERATIONS, Math.ceil(waiting * QUEUE_SHARE_PER_BATCH)));
}

/** Thrown out of a fast batch when one of its operations failed: run it carefully. */
class OperationFailed extends Error {}

export function createGroupCommit(db: Database.Database, durability?: Durability): GroupCommit {
  const queue: Pending[] = [];
  const riders: Pending[] = [];
  let scheduled = false;
  let riderTimer: NodeJS.Timeout | undefined;
  /** Operations gather while a sync is in flight; its end flushes them. */
  let held = false;
  const sync = durability === undefined ? undefined : syncAfterCommit(db, durability);

  const commit = batchRunner(db);

  function flush(): void {
    if (riderTimer !== undefined) clearTimeout(riderTimer);
    riderTimer = undefined;
    if (queue.length === 0 && riders.length === 0) {
      scheduled = false;
      return;
    }
    // While a sync is in flight, what is asked for gathers for the batch after it (above).
    if (sync?.busy() && queue.length < MAX_BATCH_OPERATIONS && riders.length < MAX_BATCH_RIDERS) {
      if (!held) {
        held = true;
        // setImmediate: the answers the sync released go out before the next batch commits.
        sync.whenIdle(() => {
          held = false;
          setImmediate(flush);
        });
      }
      return;
    }
    const take = sync === undefined ? batchSize(queue.length) : Math.min(queue.length, MAX_BATCH_OPERATIONS);
    const batch = [...queue.splice(0, take), ...riders.splice(0, MAX_BATCH_RIDERS)];
    const failed = sync?.failure();
    if (failed !== undefined) answer(batch, failedAll(batch, failed));
    else {
      const outcomes = committed(batch);
      // With no sync, or a batch that committed nothing (BEGIN or COMMIT failed), nothing to wait for.
      if (sync === undefined || outcomes.every((outcome) => !outcome.ok)) answer(batch, outcomes);
      else
        sync.whenSynced(
          () => answer(batch, outcomes),
          (error) => answer(batch, failedAll(batch, error)),
        );
    }
    // setImmediate: after the I/O callbacks of this turn, so requests that arrived
    // together are committed together, and the answers of this batch (or, with a
    // Durability, of the batches its sync covered) go out first.
    if (queue.length > 0 || riders.length >= MAX_BATCH_RIDERS) setImmediate(flush);
    else {
      scheduled = false;
      if (riders.length > 0) waitForBatch();
    }
  }

  /** The batch committed (with the sync's NORMAL when there is a sync); its outcomes. */
  function committed(batch: Pending[]): Outcome[] {
    try {
      return sync === undefined ? commit(batch) : sync.withoutWaiting(() => commit(batch));
    } catch (error) {
      // BEGIN or the shared COMMIT failed: nothing of this batch is on disk.
      return failedAll(batch, error);
    }
  }

  /** Riders left: a batch of their own unless one starts first. */
  function waitForBatch(): void {
    if (scheduled || riderTimer !== undefined) return;
    riderTimer = setTimeout(() => {
      riderTimer = undefined;
      if (scheduled) return;
      scheduled = true;
      flush();
    }, RIDER_WAIT_MS);
  }

  function enqueue(
    target: Pending[],
    operation: () => unknown,
    recover: ((error: unknown) => unknown) | undefined,
  ): Promise<unknown> {
    return new Promise((resolve, reject) => {
      target.push({ run: operation, recover, resolve, reject });
    });
  }

  return {
    run<T>(operation: () => T, recover?: (error: unknown) => T): Promise<T> {
      const done = enqueue(queue, operation, recover as ((error: unknown) => unknown) | undefined);
      if (!scheduled) {
        scheduled = true;
        setImmediate(flush);
      } else if (held && queue.length === MAX_BATCH_OPERATIONS) setImmediate(flush);
      return done as Promise<T>;
    },
    ride<T>(operation: () => T): Promise<T> {
      const done = enqueue(riders, operation, undefined);
      if (riders.length >= MAX_BATCH_RIDERS && !scheduled) {
        scheduled = true;
        setImmediate(flush);
      } else if (held && riders.length === MAX_BATCH_RIDERS) setImmediate(flush);
      else waitForBatch();
      return done as Promise<T>;
    },
    settled: () => (sync === undefined ? SETTLED : sync.settled()),
  };
}

/** Runs a batch in one IMMEDIATE transaction: fast, then carefully when one of its operations failed (above). */
function batchRunner(db: Database.Database): (batch: Pending[]) => Outcome[] {
  const fast = db.transaction((batch: Pending[]): Outcome[] =>
    batch.map((pending) => {
      try {
        return { ok: true, value: pending.run() };
      } catch {
        // Rolls the whole transaction back; its cause is met again in the careful run.
        throw new OperationFailed();
      }
    }),
  );

  const careful = db.transaction((batch: Pending[]): Outcome[] =>
    batch.map((pending) => {
      try {
        // Nested in the batch, a transaction function is a savepoint.
        return { ok: true, value: db.transaction(pending.run)() };
      } catch (error) {
        if (!pending.recover) return { ok: false, error };
        try {
          return { ok: true, value: pending.recover(error) };
        } catch (recoverError) {
          return { ok: false, error: recoverError };
        }
      }
    }),
  );

  return function commit(batch: Pending[]): Outcome[] {
    try {
      return fast.immediate(batch);
    } catch (error) {
      if (error instanceof OperationFailed) return careful.immediate(batch);
      throw error;
    }
  };
}

const SETTLED = Promise.resolve();

function failedAll(batch: Pending[], error: unknown): Outcome[] {
  return batch.map(() => ({ ok: false, error }));
}

function answer(batch: Pending[], outcomes: Outcome[]): void {
  batch.forEach((pending, i) => {
    const outcome = outcomes[i]!;
    if (outcome.ok) pending.resolve(outcome.value);
    else pending.reject(outcome.error);
  });
}

/** Why a batch is refused once a sync failed: nothing more is acknowledged (above). */
export class SyncFailed extends Error {
  constructor(cause: unknown) {
    super(
      'store: the disk did not confirm a commit (fsync failed); the store acknowledges nothing more until restarted',
      {
        cause,
      },
    );
  }
}

/**
 * Commits without waiting for the disk, and one sync at a time after them: `whenSynced` runs its
 * callbacks once a sync started after the last commit is done; batches committed while a
 * sync is in flight share the next one.
 */
function syncAfterCommit(db: Database.Database, durability: Durability) {
  /** Commits so far, and how many of them the last finished sync covered. */
  let commits = 0;
  let synced = 0;
  let inFlight = false;
  let failure: SyncFailed | undefined;
  const waiting: { upTo: number; done: () => void; failed: (error: SyncFailed) => void }[] = [];
  let onIdle: (() => void) | undefined;
  function idle(): void {
    const next = onIdle;
    onIdle = undefined;
    next?.();
  }

  function start(): void {
    if (inFlight || failure !== undefined || synced === commits) return;
    inFlight = true;
    const upTo = commits;
    durability.sync((error) => {
      inFlight = false;
      if (error !== null) {
        failure = new SyncFailed(error);
        for (const waiter of waiting.splice(0)) waiter.failed(failure);
        idle();
        return;
      }
      synced = upTo;
      let covered = 0;
      while (covered < waiting.length && waiting[covered]!.upTo <= synced) covered += 1;
      for (const waiter of waiting.splice(0, covered)) waiter.done();
      idle();
      start();
    });
  }

  function after(done: () => void, failed: (error: SyncFailed) => void): void {
    if (failure !== undefined) failed(failure);
    else if (synced === commits) done();
    else {
      waiting.push({ upTo: commits, done, failed });
      start();
    }
  }

  return {
    failure: () => failure,
    busy: () => inFlight,
    /** Runs `next` once no sync is in flight (at once when none is); one at a time. */
    whenIdle(next: () => void): void {
      if (!inFlight) next();
      else onIdle = next;
    },
    /** Runs `transaction` (one or more commits) with NORMAL, FULL again after it. */
    withoutWaiting<T>(transaction: () => T): T {
      // exec, not a prepared statement: SQLite applies this pragma when it compiles it.
      db.exec('PRAGMA synchronous = NORMAL');
      try {
        return transaction();
      } finally {
        commits += 1;
        if (db.open) db.exec('PRAGMA synchronous = FULL');
      }
    },
    whenSynced: after,
    settled: (): Promise<void> =>
      failure !== undefined ? Promise.reject(failure) : synced === commits ? SETTLED : new Promise(after),
  };
}
