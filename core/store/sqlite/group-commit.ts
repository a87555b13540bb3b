/**
 * Group commit for the embedded store. With `synchronous = FULL` every COMMIT waits for the
 * disk, and better-sqlite3 waits on the event loop: one commit per money operation would
 * cap the service at a few thousand operations a second and stall every request behind
 * each fsync. Instead, the money operations asked for in one turn of the event loop run
 * together in one IMMEDIATE transaction, each in its own SAVEPOINT, and share one COMMIT.
 *
 * What stays true: each operation is atomic on its own (a failing one rolls back to its
 * savepoint and rejects alone); operations run in the order they were asked for; and no
 * promise resolves before the COMMIT that holds its change is on disk, so nothing is
 * acknowledged that a power cut could take back.
 */
import type Database from 'better-sqlite3';

/** Operations per transaction: enough to amortise the fsync, few enough to keep one commit short. */
export const MAX_BATCH_OPERATIONS = 256;

interface Pending {
  run: () => unknown;
  resolve: (value: unknown) => void;
  reject: (error: unknown) => void;
}

export interface GroupCommit {
  /**
   * Runs `operation` (synchronous, using the database) in the next shared transaction. The
   * operation must be atomic on its own: a better-sqlite3 transaction function (which nests
   * as a SAVEPOINT, so a throw half-way rolls back what it wrote) or a single statement. The
   * store's operations all are; wrapping each in one more savepoint measurably cost
   * throughput for nothing.
   */
  run<T>(operation: () => T): Promise<T>;
}

export function createGroupCommit(db: Database.Database): GroupCommit {
  let queue: Pending[] = [];
  let scheduled = false;

  const flushBatch = db.transaction((batch: Pending[]) => {
    const outcomes: Array<{ ok: true; value: unknown } | { ok: false; error: unknown }> = [];
    for (const pending of batch) {
      try {
        outcomes.push({ ok: true, value: pending.run() });
      } catch (error) {
        outcomes.push({ ok: false, error });
      }
    }
    return outcomes;
  });

  function flush(): void {
    scheduled = false;
    while (queue.length > 0) {
      const batch = queue.slice(0, MAX_BATCH_OPERATIONS);
      queue = queue.slice(batch.length);
      let outcomes: ReturnType<typeof flushBatch>;
      try {
        outcomes = flushBatch.immediate(batch);
      } catch (error) {
        // The shared COMMIT (or BEGIN) failed: nothing of this batch is on disk.
        for (const pending of batch) pending.reject(error);
        continue;
      }
      batch.forEach((pending, i) => {
        const outcome = outcomes[i]!;
        if (outcome.ok) pending.resolve(outcome.value);
        else pending.reject(outcome.error);
      });
    }
  }

  return {
    run<T>(operation: () => T): Promise<T> {
      return new Promise<T>((resolve, reject) => {
        queue.push({ run: operation, resolve: resolve as (value: unknown) => void, reject });
        if (!scheduled) {
          scheduled = true;
          // setImmediate: after the I/O callbacks of this turn, so requests that arrived
          // together are committed together.
          setImmediate(flush);
        }
      });
    },
  };
}
