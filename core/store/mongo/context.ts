/**
 * What every part of the MongoDB adapter shares: the collections, the concerns, and the
 * one way a money transaction runs (see index.ts for why it runs this way).
 */
import {
  type ClientSession,
  type Collection,
  type Db,
  type MongoClient,
  type ObjectId,
  ReadPreference,
  type TransactionOptions,
} from 'mongodb';
import { COLLECTIONS } from './collections.js';
import type {
  AccountDoc,
  ApiKeyDoc,
  CablePackageDoc,
  CounterDoc,
  LedgerEntryDoc,
  PlanDoc,
  SettingDoc,
  TierDoc,
  TransactionDoc,
} from './documents.js';
import { isUnknownCommitResult } from './errors.js';

/**
 * Lists the port returns whole (an account's keys, the catalog) are still bounded: far
 * above any real catalog or key count, and a list that reaches it is refused loudly
 * rather than cut short, because a silently truncated price list is worse than an error.
 */
export const MAX_LIST_ITEMS = 10_000;

/**
 * How long a majority write, or a transaction's commit, may wait for the secondaries
 * before it reports an error. Without a bound a purchase would hang for as long as a
 * majority is unreachable. A write that times out stays applied on the primary and may
 * still become durable, so the error means "unknown", never "not written" (see index.ts).
 */
export const MAJORITY_WRITE_TIMEOUT_MS = 10_000;

/**
 * How much longer than maxCommitTimeMS a commit's write concern may wait. The driver
 * re-sends a commit whose write concern timed out (for up to 120 s), but reports at once a
 * commit that ran out of maxCommitTimeMS. Left implicit, the driver's wtimeout equals
 * MAJORITY_WRITE_TIMEOUT_MS and the two race; with the wtimeout clearly longer,
 * maxCommitTimeMS always ends a commit stuck on a majority first, after
 * MAJORITY_WRITE_TIMEOUT_MS, and the error reaches the caller then.
 */
export const COMMIT_WTIMEOUT_MARGIN_MS = 5_000;

/**
 * The concerns of the client and database handles. The driver builds these once per
 * handle; the per-operation and per-transaction ones below are built fresh each time.
 */
export function majorityWrites(): { w: 'majority'; wtimeoutMS: number } {
  return { w: 'majority', wtimeoutMS: MAJORITY_WRITE_TIMEOUT_MS };
}
export function majorityReads(): { level: 'majority' } {
  return { level: 'majority' };
}

/**
 * Every money transaction: read one snapshot, commit to a majority, on the primary, the
 * commit bounded as COMMIT_WTIMEOUT_MARGIN_MS explains. Built fresh for each transaction,
 * as plain objects: the driver keeps a ReadConcern instance it is given and writes the
 * session's afterClusterTime onto it (sessions.js applySession), so one shared object would
 * carry one session's cluster time into every other transaction.
 */
export function transactionOptions(): TransactionOptions {
  return {
    readConcern: { level: 'snapshot' },
    writeConcern: { w: 'majority', wtimeoutMS: MAJORITY_WRITE_TIMEOUT_MS + COMMIT_WTIMEOUT_MARGIN_MS },
    readPreference: ReadPreference.primary,
    maxCommitTimeMS: MAJORITY_WRITE_TIMEOUT_MS,
  };
}

/**
 * How long a follow-up read may wait for another writer's commit to reach a majority (a
 * duplicate idempotency key, a status changed under a settle). That normally takes a
 * replication round trip; the bound only keeps a degraded replica set from hanging a
 * request, and the original answer (an error) stands when it is reached.
 */
const FOLLOW_UP_READ_TIMEOUT_MS = 5_000;

/**
 * Options of a read that follows a write in a causally consistent session: bounded, and
 * with its own fresh majority read concern (see transactionOptions for why fresh).
 */
export function followUpRead(session: ClientSession): {
  session: ClientSession;
  maxTimeMS: number;
  readConcern: { level: 'majority' };
} {
  return { session, maxTimeMS: FOLLOW_UP_READ_TIMEOUT_MS, readConcern: majorityReads() };
}

export interface Collections {
  accounts: Collection<AccountDoc>;
  apiKeys: Collection<ApiKeyDoc>;
  tiers: Collection<TierDoc>;
  plans: Collection<PlanDoc>;
  cablePackages: Collection<CablePackageDoc>;
  settings: Collection<SettingDoc>;
  counters: Collection<CounterDoc>;
  ledger: Collection<LedgerEntryDoc>;
  transactions: Collection<TransactionDoc>;
}

/** Runs `work` as one transaction; `recover` may still find the answer when the driver gives up. */
type InTransaction = <T>(
  work: (session: ClientSession) => Promise<T>,
  recover?: (error: unknown, session: ClientSession) => Promise<T | undefined>,
) => Promise<T>;

/** The adapter's shared state, handed to each sub-port. */
export interface MongoContext {
  readonly client: MongoClient;
  readonly db: Db;
  /** The collections of a store that is still open. The driver would quietly reconnect after close. */
  live(): Collections;
  inTransaction: InTransaction;
  /**
   * After a transaction failed with an unknown commit result: the ledger entry it was
   * writing, if a majority has it, which proves the transaction committed. Null means
   * "not known", never "not committed".
   */
  committedEntry(error: unknown, entryId: ObjectId, session: ClientSession): Promise<LedgerEntryDoc | null>;
  /** Marks the store closed; later calls throw instead of reconnecting. */
  close(): Promise<void>;
}

function collectionsOf(db: Db): Collections {
  return {
    accounts: db.collection<AccountDoc>(COLLECTIONS.accounts),
    apiKeys: db.collection<ApiKeyDoc>(COLLECTIONS.apiKeys),
    tiers: db.collection<TierDoc>(COLLECTIONS.tiers),
    plans: db.collection<PlanDoc>(COLLECTIONS.plans),
    cablePackages: db.collection<CablePackageDoc>(COLLECTIONS.cablePackages),
    settings: db.collection<SettingDoc>(COLLECTIONS.settings),
    counters: db.collection<CounterDoc>(COLLECTIONS.counters),
    ledger: db.collection<LedgerEntryDoc>(COLLECTIONS.ledger),
    transactions: db.collection<TransactionDoc>(COLLECTIONS.transactions),
  };
}

export function createMongoContext(client: MongoClient, db: Db): MongoContext {
  const collections = collectionsOf(db);
  let closed = false;
  const live = (): Collections => {
    if (closed) throw new Error('store: the MongoDB store is closed');
    return collections;
  };

  /**
   * Runs `work` as one transaction with the options above (see index.ts for what `work`
   * may do). `recover` runs in the same causally consistent session, so its majority reads
   * wait until they include everything the failed transaction saw (a conflicting commit,
   * or its own commit). Its failure, or an undefined answer, leaves the original error to
   * the caller.
   */
  const inTransaction: InTransaction = async (work, recover) => {
    live();
    const session = client.startSession({ causalConsistency: true });
    try {
      return await session.withTransaction(work, transactionOptions());
    } catch (error) {
      const recovered = recover === undefined ? undefined : await recover(error, session).catch(() => undefined);
      if (recovered !== undefined) return recovered;
      throw error;
    } finally {
      await session.endSession();
    }
  };

  return {
    client,
    db,
    live,
    inTransaction,
    async committedEntry(error, entryId, session) {
      if (!isUnknownCommitResult(error)) return null;
      return live().ledger.findOne({ _id: entryId }, followUpRead(session));
    },
    async close() {
      if (closed) return;
      closed = true;
      await client.close();
    },
  };
}

/** A whole-list read fetched MAX_LIST_ITEMS + 1 documents; reaching the bound is refused. */
export function bounded<D>(docs: D[], what: string): D[] {
  if (docs.length > MAX_LIST_ITEMS)
    throw new RangeError(`store: more than ${MAX_LIST_ITEMS} ${what}; refusing to load them all`);
  return docs;
}
