/**
 * The production store: the store port on a MongoDB replica set (or sharded cluster)
 * through the official driver.
 *
 * Concerns, all explicit. Every operation goes to the primary. Writes outside a
 * transaction use majority write concern, so nothing a caller was told is written can be
 * rolled back by a failover; reads outside a transaction use majority read concern, so
 * nothing read can be rolled back either, and a caller reads its own acknowledged writes.
 * Money moves only inside `session.withTransaction` with snapshot read concern and
 * majority write concern: the debit (or credit, or refund), its ledger entry and the
 * transaction record commit together or not at all.
 *
 * Transaction callbacks may run more than once: the driver re-runs the whole callback on
 * a TransientTransactionError (a write conflict with a concurrent transaction, a
 * failover) and re-sends the commit on an UnknownTransactionCommitResult, for up to 120
 * seconds. So a callback does nothing but database operations on its session: ids, dates
 * and amounts are computed before it starts, no error is caught inside it (a swallowed
 * error would leave the driver unable to tell whether the transaction aborted), and the
 * provider is never called from the store at all. A duplicate-key error aborts the
 * transaction and is classified outside the callback.
 *
 * What happens after the driver gives up: the error reaches the caller (the purchase
 * fails with an internal error). An UnknownTransactionCommitResult may still have
 * committed; each money operation writes one ledger entry whose _id it chose in advance,
 * so the adapter looks that entry up (a majority read in the same causally consistent
 * session, bounded in time) and, if it is there, answers as if the commit had been
 * acknowledged. If it is not found, the outcome stays unknown and the error is raised: a
 * reserve that did commit after all is then an ordinary crash survivor that the recovery
 * worker finishes, and a retry with the same idempotency key is answered "duplicate".
 * A TransientTransactionError that outlives the driver's retries means the transaction
 * was aborted; nothing was written and the error is raised as it is.
 *
 * Ledger entry ids. The port wants entry ids that grow in the order a wallet's entries
 * were written. They come from a counter on the account document (`ledger_seq`),
 * incremented by the same atomic update that changes the balance, so the new balance and
 * the entry id are read from one write of one document. A store-wide counter document
 * would do the same job but make every money movement of every account, on every core,
 * conflict on that one document; per account, only movements of the same wallet contend,
 * and they must be serialized anyway. Entry ids are therefore unique per account, not
 * per store.
 */
import {
  MongoClient,
  ObjectId,
  ReadConcern,
  ReadPreference,
  WriteConcern,
  Long,
  type ClientSession,
  type Collection,
  type Db,
  type Filter,
  type MongoClientOptions,
  type TransactionOptions,
} from 'mongodb';
import type { Kobo } from '../../domain/money.js';
import type {
  AccountStore,
  CablePackageRecord,
  CatalogStore,
  KeyStore,
  LedgerEntryRecord,
  Page,
  PlanRecord,
  ReserveResult,
  Store,
  TransactionRecord,
  TransactionStore,
  WalletStore,
} from '../port.js';
import { requireAmount, requireLimit } from '../bounds.js';
import { auditLedger } from './audit.js';
import { decodeLedgerCursor, decodeTransactionCursor, encodeLedgerCursor, encodeTransactionCursor } from './cursors.js';
import {
  accountFromDoc,
  accountToDoc,
  apiKeyFromDoc,
  apiKeyToDoc,
  cablePackageFields,
  cablePackageFromDoc,
  ledgerEntryFromDoc,
  ledgerEntryToDoc,
  newTransactionToDoc,
  planFields,
  planFromDoc,
  purchaseMemo,
  readInteger,
  readKobo,
  tierFromDoc,
  tierToDoc,
  toDate,
  toLong,
  transactionFromDoc,
  type AccountDoc,
  type ApiKeyDoc,
  type CablePackageDoc,
  type CounterDoc,
  type LedgerEntryDoc,
  type PlanDoc,
  type SettingDoc,
  type TierDoc,
  type TransactionDoc,
  withoutUndefined,
} from './documents.js';
import { isDuplicateKeyOn, isUnknownCommitResult } from './errors.js';
import { checkDeployment, UnsuitableDeploymentError } from './guard.js';
import { COLLECTIONS, REQUEST_ID_INDEX, ensureSchema } from './schema.js';

export { MAX_PAGE_LIMIT } from '../bounds.js';

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
 * still become durable, so the error means "unknown", never "not written" (see the header).
 */
export const MAJORITY_WRITE_TIMEOUT_MS = 10_000;

const MAJORITY_WRITES = new WriteConcern('majority', MAJORITY_WRITE_TIMEOUT_MS);
const MAJORITY_READS = new ReadConcern('majority');

/**
 * Every money transaction: read one snapshot, commit to a majority, on the primary. The
 * commit is bounded by maxCommitTimeMS rather than by a wtimeout: the driver re-sends a
 * commit that failed on its write concern for up to 120 s, but reports a commit that ran
 * out of maxCommitTimeMS at once (with UnknownTransactionCommitResult).
 */
const TRANSACTION_OPTIONS: TransactionOptions = {
  readConcern: new ReadConcern('snapshot'),
  writeConcern: new WriteConcern('majority'),
  readPreference: ReadPreference.primary,
  maxCommitTimeMS: MAJORITY_WRITE_TIMEOUT_MS,
};

/**
 * How long a follow-up read may wait for another writer's commit to reach a majority (a
 * duplicate idempotency key, a status changed under a settle). That normally takes a
 * replication round trip; the bound only keeps a degraded replica set from hanging a
 * request, and the original answer (an error) stands when it is reached.
 */
const FOLLOW_UP_READ_TIMEOUT_MS = 5_000;

/** The settings document that holds the price of one SMS page. */
const SMS_RATE_ID = 'sms_rate_kobo';
/** The counter that holds the largest plan id ever allocated or written. */
const PLAN_ID_COUNTER = 'plan_id';

/** Where the store lives. */
export interface MongoStoreOptions {
  /** A mongodb:// or mongodb+srv:// connection string to a replica set or a mongos. */
  uri: string;
  /** The database that holds the store's collections. */
  dbName: string;
  /** Extra driver options (tests shorten serverSelectionTimeoutMS); the concerns above always win. */
  clientOptions?: MongoClientOptions;
}

/** What the start-up guard found, for the start-up log line. */
export interface MongoDeployment {
  topology: 'replica_set' | 'sharded';
  serverVersion: string;
  dbName: string;
}

/** The store, plus what it runs on. */
export interface MongoStore extends Store {
  readonly deployment: MongoDeployment;
}

/**
 * Connects, refuses a deployment without transactions (see guard.ts), creates the
 * collections and indexes, and returns the store. Any failure closes the client and
 * rejects, so the core stops at start with the reason.
 */
export async function openMongoStore(options: MongoStoreOptions): Promise<MongoStore> {
  const client = new MongoClient(options.uri, {
    appName: 'prepaid-core',
    ...options.clientOptions,
    readPreference: ReadPreference.primary,
    readConcern: MAJORITY_READS,
    writeConcern: MAJORITY_WRITES,
    retryWrites: true,
    retryReads: true,
  });
  try {
    await client.connect();
    const check = checkDeployment(await client.db('admin').command({ hello: 1 }));
    if (!check.ok) throw new UnsuitableDeploymentError(check.reason);
    const db = client.db(options.dbName, {
      readPreference: ReadPreference.primary,
      readConcern: MAJORITY_READS,
      writeConcern: MAJORITY_WRITES,
    });
    await ensureSchema(db);
    return buildStore(client, db, { topology: check.topology, serverVersion: check.serverVersion, dbName: options.dbName });
  } catch (error) {
    await client.close().catch(() => undefined);
    throw error;
  }
}

interface Collections {
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

function buildStore(client: MongoClient, db: Db, deployment: MongoDeployment): MongoStore {
  const collections: Collections = {
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
  let closed = false;

  /** The collections of a store that is still open. The driver would quietly reconnect after close. */
  function live(): Collections {
    if (closed) throw new Error('store: the MongoDB store is closed');
    return collections;
  }

  /**
   * Runs `work` as one transaction with the options above (see the header for what `work`
   * may do). When the driver gives up, `recover` may still find the answer; it runs in the
   * same causally consistent session, so its majority reads wait until they include
   * everything the failed transaction saw (a conflicting commit, or its own commit). Its
   * failure, or an undefined answer, leaves the original error to the caller.
   */
  async function inTransaction<T>(
    work: (session: ClientSession) => Promise<T>,
    recover?: (error: unknown, session: ClientSession) => Promise<T | undefined>,
  ): Promise<T> {
    live();
    const session = client.startSession({ causalConsistency: true });
    try {
      return await session.withTransaction(work, TRANSACTION_OPTIONS);
    } catch (error) {
      const recovered = recover === undefined ? undefined : await recover(error, session).catch(() => undefined);
      if (recovered !== undefined) return recovered;
      throw error;
    } finally {
      await session.endSession();
    }
  }

  /**
   * After a transaction failed with an unknown commit result: the ledger entry it was
   * writing, if a majority has it, which proves the transaction committed. Null means
   * "not known", never "not committed".
   */
  async function committedEntry(error: unknown, entryId: ObjectId, session: ClientSession): Promise<LedgerEntryDoc | null> {
    if (!isUnknownCommitResult(error)) return null;
    return live().ledger.findOne({ _id: entryId }, { session, maxTimeMS: FOLLOW_UP_READ_TIMEOUT_MS });
  }

  const accounts: AccountStore = {
    async create(account) {
      const doc = accountToDoc(account);
      await live().accounts.insertOne(doc);
      return accountFromDoc(doc);
    },
    async get(accountId) {
      const doc = await live().accounts.findOne({ _id: accountId });
      return doc === null ? null : accountFromDoc(doc);
    },
    async setTier(accountId, tierId) {
      const doc = await live().accounts.findOneAndUpdate({ _id: accountId }, { $set: { tier_id: tierId } }, { returnDocument: 'after' });
      return doc === null ? null : accountFromDoc(doc);
    },
  };

  const keys: KeyStore = {
    async insert(key) {
      await live().apiKeys.insertOne(apiKeyToDoc(key));
    },
    async find(publicKey) {
      const doc = await live().apiKeys.findOne({ _id: publicKey });
      return doc === null ? null : apiKeyFromDoc(doc);
    },
    async listByAccount(accountId) {
      const docs = await live().apiKeys.find({ account_id: accountId }).sort({ created_at: -1, _id: -1 }).limit(MAX_LIST_ITEMS + 1).toArray();
      return bounded(docs, `keys of account ${accountId}`).map(apiKeyFromDoc);
    },
    async revoke(publicKey) {
      const doc = await live().apiKeys.findOneAndUpdate({ _id: publicKey }, { $set: { revoked: true } }, { returnDocument: 'after' });
      return doc === null ? null : apiKeyFromDoc(doc);
    },
    async setAllowedIps(publicKey, ips) {
      const doc = await live().apiKeys.findOneAndUpdate({ _id: publicKey }, { $set: { allowed_ips: [...ips] } }, { returnDocument: 'after' });
      return doc === null ? null : apiKeyFromDoc(doc);
    },
  };

  async function writeTier(tier: TierDoc, session?: ClientSession): Promise<TierDoc> {
    const { _id, ...fields } = tier;
    const doc = await live().tiers.findOneAndReplace({ _id }, fields, { upsert: true, returnDocument: 'after', session });
    return doc!;
  }

  /**
   * Writes a plan; planId 0 allocates one past the largest id ever allocated or written.
   * The counter only ever grows ($inc, $max), so an id is never handed out twice even if a
   * plan were removed by hand: partners keep plan ids in their own code.
   */
  async function writePlan(plan: PlanRecord, session: ClientSession): Promise<PlanRecord> {
    requireAmount('planId', plan.planId, 0);
    const fields = planFields(plan);
    const c = live();
    let planId = plan.planId;
    if (planId === 0) {
      const counter = await c.counters.findOneAndUpdate(
        { _id: PLAN_ID_COUNTER },
        { $inc: { value: Long.ONE } },
        { upsert: true, returnDocument: 'after', session },
      );
      planId = readInteger(counter!.value, 'counters.plan_id');
    } else {
      await c.counters.updateOne({ _id: PLAN_ID_COUNTER }, { $max: { value: toLong(planId, 'planId') } }, { upsert: true, session });
    }
    const doc = await c.plans.findOneAndUpdate({ _id: planId }, { $set: fields }, { upsert: true, returnDocument: 'after', session });
    return planFromDoc(doc!);
  }

  async function writeCablePackage(pkg: CablePackageRecord, session?: ClientSession): Promise<CablePackageRecord> {
    const doc = await live().cablePackages.findOneAndUpdate(
      { provider: pkg.provider, package_code: pkg.packageCode },
      { $set: cablePackageFields(pkg) },
      { upsert: true, returnDocument: 'after', session },
    );
    return cablePackageFromDoc(doc!);
  }

  async function writeSmsRate(kobo: Kobo, session?: ClientSession): Promise<void> {
    requireAmount('smsRateKobo', kobo, 0);
    await live().settings.updateOne({ _id: SMS_RATE_ID }, { $set: { value: toLong(kobo, 'smsRateKobo') } }, { upsert: true, session });
  }

  const catalog: CatalogStore = {
    async listTiers() {
      const docs = await live().tiers.find({}).sort({ _id: 1 }).limit(MAX_LIST_ITEMS + 1).toArray();
      return bounded(docs, 'tiers').map(tierFromDoc);
    },
    async getTier(tierId) {
      const doc = await live().tiers.findOne({ _id: tierId });
      return doc === null ? null : tierFromDoc(doc);
    },
    async upsertTier(tier) {
      return tierFromDoc(await writeTier(tierToDoc(tier)));
    },
    async listPlans(filter = {}) {
      const query: Filter<PlanDoc> = {};
      if (filter.network !== undefined) query.network = filter.network;
      if (filter.activeOnly === true) query.active = true;
      const docs = await live().plans.find(query).sort({ network: 1, _id: 1 }).limit(MAX_LIST_ITEMS + 1).toArray();
      return bounded(docs, 'plans').map(planFromDoc);
    },
    async getPlan(planId) {
      const doc = await live().plans.findOne({ _id: planId });
      return doc === null ? null : planFromDoc(doc);
    },
    async upsertPlan(plan) {
      // A transaction, so that the id counter and the plan can never disagree.
      return inTransaction((session) => writePlan(plan, session));
    },
    async listCablePackages(filter = {}) {
      const query: Filter<CablePackageDoc> = filter.provider === undefined ? {} : { provider: filter.provider };
      const docs = await live().cablePackages.find(query).sort({ provider: 1, package_code: 1 }).limit(MAX_LIST_ITEMS + 1).toArray();
      return bounded(docs, 'cable packages').map(cablePackageFromDoc);
    },
    async getCablePackage(provider, packageCode) {
      const doc = await live().cablePackages.findOne({ provider, package_code: packageCode });
      return doc === null ? null : cablePackageFromDoc(doc);
    },
    async upsertCablePackage(pkg) {
      return writeCablePackage(pkg);
    },
    async getSmsRateKobo() {
      const doc = await live().settings.findOne({ _id: SMS_RATE_ID });
      // Selling SMS at a made-up price is worse than failing the request: the catalog is
      // seeded on first start, so a missing rate means a broken setup.
      if (doc === null) throw new Error('store: the SMS rate is not set; seed the catalog first');
      return readKobo(doc.value, 'settings.sms_rate_kobo');
    },
    async setSmsRateKobo(kobo) {
      await writeSmsRate(kobo);
    },
    async seedIfEmpty(seed) {
      // Validated before the transaction, so that a bad seed fails without a round trip.
      for (const plan of seed.plans) planFields(plan);
      for (const pkg of seed.cablePackages) cablePackageFields(pkg);
      requireAmount('smsRateKobo', seed.smsRateKobo, 0);
      const tiers = seed.tiers.map(tierToDoc);
      // The tiers are the marker, as in the SQLite adapter: a catalog without tiers has never
      // been set up, while an operator's later edits must survive restarts. Two cores seeding
      // at once both write the same tier documents; one transaction wins and the other is
      // retried by the driver, finds the tiers and does nothing.
      return inTransaction(async (session) => {
        if ((await live().tiers.findOne({}, { session })) !== null) return false;
        for (const tier of tiers) await writeTier(tier, session);
        for (const plan of seed.plans) await writePlan(plan, session);
        for (const pkg of seed.cablePackages) await writeCablePackage(pkg, session);
        await writeSmsRate(seed.smsRateKobo, session);
        return true;
      });
    },
  };

  /**
   * Adds `amountKobo` to the account and writes its ledger entry, inside the caller's
   * transaction. The balance and the entry id come from the same update of the account.
   * Null when the account does not exist.
   */
  async function addToWallet(
    session: ClientSession,
    entry: { accountId: string; amountKobo: Kobo; kind: 'credit' | 'refund'; reference: string; memo: string; at: Date; id: ObjectId },
  ): Promise<LedgerEntryRecord | null> {
    const c = live();
    const account = await c.accounts.findOneAndUpdate(
      { _id: entry.accountId },
      { $inc: { balance_kobo: toLong(entry.amountKobo, 'amountKobo'), ledger_seq: Long.ONE } },
      { session, returnDocument: 'after' },
    );
    if (account === null) return null;
    const record: LedgerEntryRecord = {
      entryId: readInteger(account.ledger_seq, 'accounts.ledger_seq'),
      accountId: entry.accountId,
      amountKobo: entry.amountKobo,
      // readKobo throws beyond 2^53, which aborts the transaction: such a balance could
      // not be read back exactly.
      balanceAfterKobo: readKobo(account.balance_kobo, 'accounts.balance_kobo'),
      kind: entry.kind,
      reference: entry.reference,
      memo: entry.memo,
      createdAt: entry.at,
    };
    await c.ledger.insertOne(ledgerEntryToDoc(record, entry.id), { session });
    return record;
  }

  /** pending -> failed, or success -> reversed, with a refund entry of the full charge, in one transaction. */
  async function giveBack(
    reference: string,
    move: { from: 'pending' | 'success'; to: 'failed' | 'reversed'; memo: string },
    reason: string,
    at: Date,
  ): Promise<{ transaction: TransactionRecord; changed: boolean } | null> {
    const updatedAt = toDate(at, 'at');
    const entryId = new ObjectId();
    return inTransaction(
      async (session) => {
        const c = live();
        // The status change is conditional and the ledger's unique (reference, kind) index
        // refuses a second refund entry, so the money goes back at most once however many
        // cores try at the same moment.
        const moved = await c.transactions.findOneAndUpdate(
          { _id: reference, status: move.from },
          { $set: { status: move.to, failure_reason: reason, updated_at: updatedAt } },
          { session, returnDocument: 'after' },
        );
        if (moved === null) {
          const current = await c.transactions.findOne({ _id: reference }, { session });
          return current === null ? null : { transaction: transactionFromDoc(current), changed: false };
        }
        const refunded = await addToWallet(session, {
          accountId: moved.account_id,
          amountKobo: readKobo(moved.charged_kobo, 'transactions.charged_kobo'),
          kind: 'refund',
          reference,
          memo: move.memo,
          at: updatedAt,
          id: entryId,
        });
        // Thrown, not returned: it aborts the transaction, so the status change is undone too.
        if (refunded === null) throw new Error(`store: the account of transaction ${reference} does not exist`);
        return { transaction: transactionFromDoc(moved), changed: true };
      },
      async (error, session) => {
        if ((await committedEntry(error, entryId, session)) === null) return undefined;
        const current = await live().transactions.findOne({ _id: reference }, { session, maxTimeMS: FOLLOW_UP_READ_TIMEOUT_MS });
        return current === null ? undefined : { transaction: transactionFromDoc(current), changed: true };
      },
    );
  }

  const wallet: WalletStore = {
    async credit(input) {
      requireAmount('amountKobo', input.amountKobo, 1);
      const at = toDate(input.at, 'at');
      const entryId = new ObjectId();
      return inTransaction(
        async (session) => {
          const entry = await addToWallet(session, { ...input, kind: 'credit', at, id: entryId });
          return entry === null ? null : { balanceKobo: entry.balanceAfterKobo, entry };
        },
        async (error, session) => {
          const committed = await committedEntry(error, entryId, session);
          if (committed === null) return undefined;
          const entry = ledgerEntryFromDoc(committed);
          return { balanceKobo: entry.balanceAfterKobo, entry };
        },
      );
    },

    async reserve(tx) {
      requireAmount('chargedKobo', tx.chargedKobo, 1);
      requireAmount('faceValueKobo', tx.faceValueKobo, 0);
      // Everything the callback writes is fixed here, before the first attempt.
      const chargeKobo = toLong(tx.chargedKobo, 'chargedKobo');
      const debitKobo = toLong(-tx.chargedKobo, 'chargedKobo');
      const createdAt = toDate(tx.createdAt, 'createdAt');
      const memo = purchaseMemo(tx);
      const entryId = new ObjectId();
      const sameRequest: Filter<TransactionDoc> | null =
        tx.requestId === null ? null : { account_id: tx.accountId, request_id: tx.requestId };
      return inTransaction(
        async (session): Promise<ReserveResult> => {
          const c = live();
          if (sameRequest !== null) {
            const existing = await c.transactions.findOne(sameRequest, { session });
            if (existing !== null) return { outcome: 'duplicate', transaction: transactionFromDoc(existing) };
          }
          // The conditional debit is the guard. Two reserves on one wallet conflict on this
          // document; the later one is aborted and re-run by the driver on a fresh snapshot,
          // so no debit is ever computed from a stale balance.
          const debited = await c.accounts.findOneAndUpdate(
            { _id: tx.accountId, balance_kobo: { $gte: chargeKobo } },
            { $inc: { balance_kobo: debitKobo, ledger_seq: Long.ONE } },
            { session, returnDocument: 'after' },
          );
          if (debited === null) {
            // Nothing was written; the read only tells the two refusals apart.
            const account = await c.accounts.findOne({ _id: tx.accountId }, { session });
            if (account === null) return { outcome: 'no_account' };
            return { outcome: 'insufficient', balanceKobo: readKobo(account.balance_kobo, 'accounts.balance_kobo') };
          }
          const balanceAfterKobo = readKobo(debited.balance_kobo, 'accounts.balance_kobo');
          const entry: LedgerEntryRecord = {
            entryId: readInteger(debited.ledger_seq, 'accounts.ledger_seq'),
            accountId: tx.accountId,
            amountKobo: -tx.chargedKobo,
            balanceAfterKobo,
            kind: 'debit',
            reference: tx.reference,
            memo,
            createdAt,
          };
          await c.ledger.insertOne(ledgerEntryToDoc(entry, entryId), { session });
          const doc = newTransactionToDoc(tx, balanceAfterKobo);
          // A concurrent reserve with the same idempotency key that committed first makes
          // this insert fail on the unique (account_id, request_id) index; the error aborts
          // the transaction (debit included) and is classified below.
          await c.transactions.insertOne(doc, { session });
          return { outcome: 'reserved', transaction: transactionFromDoc(doc) };
        },
        async (error, session): Promise<ReserveResult | undefined> => {
          const c = live();
          const options = { session, maxTimeMS: FOLLOW_UP_READ_TIMEOUT_MS };
          if (sameRequest !== null && isDuplicateKeyOn(error, REQUEST_ID_INDEX.name, REQUEST_ID_INDEX.fields)) {
            // The other request's transaction has committed on the primary; this majority read
            // waits (causal consistency) until it is majority-committed too, then returns it.
            const existing = await c.transactions.findOne(sameRequest, options);
            return existing === null ? undefined : { outcome: 'duplicate', transaction: transactionFromDoc(existing) };
          }
          if ((await committedEntry(error, entryId, session)) === null) return undefined;
          const committed = await c.transactions.findOne({ _id: tx.reference }, options);
          return committed === null ? undefined : { outcome: 'reserved', transaction: transactionFromDoc(committed) };
        },
      );
    },

    async settle(reference, result, at) {
      const c = live();
      const updatedAt = toDate(at, 'at');
      // One conditional update of one document needs no transaction: it either moves a
      // pending transaction to success or matches nothing. When it matches nothing, the read
      // that follows is in the same causally consistent session, so it includes whatever
      // made the update miss (a refund committed a moment ago by another core).
      const session = client.startSession({ causalConsistency: true });
      try {
        const settled = await c.transactions.findOneAndUpdate(
          { _id: reference, status: 'pending' },
          { $set: { status: 'success', result: withoutUndefined(result), updated_at: updatedAt } },
          { session, returnDocument: 'after' },
        );
        if (settled !== null) return { transaction: transactionFromDoc(settled), changed: true };
        const current = await c.transactions.findOne({ _id: reference }, { session, maxTimeMS: FOLLOW_UP_READ_TIMEOUT_MS });
        return current === null ? null : { transaction: transactionFromDoc(current), changed: false };
      } finally {
        await session.endSession();
      }
    },

    async refund(reference, reason, at) {
      return giveBack(reference, { from: 'pending', to: 'failed', memo: `refund: ${reason}` }, reason, at);
    },

    async reverse(reference, reason, at) {
      return giveBack(reference, { from: 'success', to: 'reversed', memo: `reversal: ${reason}` }, reason, at);
    },

    async recordAttempt(reference, next) {
      if (!Number.isSafeInteger(next.attempts) || next.attempts < 0) {
        throw new RangeError('store: attempts must be a non-negative integer');
      }
      await live().transactions.updateOne(
        { _id: reference, status: 'pending' },
        {
          $set: {
            attempts: next.attempts,
            next_attempt_at: toDate(next.nextAttemptAt, 'nextAttemptAt'),
            needs_attention: next.needsAttention,
            updated_at: toDate(next.at, 'at'),
          },
        },
      );
    },

    async listLedger(accountId, page) {
      const limit = requireLimit(page.limit);
      const query: Filter<LedgerEntryDoc> = { account_id: accountId };
      if (page.after !== undefined) query.entry_id = { $lt: toLong(decodeLedgerCursor(page.after), 'cursor') };
      const docs = await live().ledger.find(query).sort({ entry_id: -1 }).limit(limit + 1).toArray();
      return toPage(docs, limit, ledgerEntryFromDoc, (doc) => encodeLedgerCursor(readInteger(doc.entry_id, 'ledger_entries.entry_id')));
    },

    async audit() {
      live();
      // A snapshot session: every check reads the same point in time (MongoDB 5.0+).
      const session = client.startSession({ snapshot: true });
      try {
        return await auditLedger(db, session);
      } finally {
        await session.endSession();
      }
    },
  };

  const transactions: TransactionStore = {
    async get(reference) {
      const doc = await live().transactions.findOne({ _id: reference });
      return doc === null ? null : transactionFromDoc(doc);
    },

    async listByAccount(accountId, page) {
      const limit = requireLimit(page.limit);
      const query: Filter<TransactionDoc> = { account_id: accountId };
      if (page.after !== undefined) {
        // Strictly older than the cursor in (created_at desc, _id desc) order, written as one
        // range on created_at so that the history index serves both the filter and the order.
        const cursor = decodeTransactionCursor(page.after);
        const createdAt = new Date(cursor.createdAtMs);
        query.created_at = { $lte: createdAt };
        query.$nor = [{ created_at: createdAt, _id: { $gte: cursor.reference } }];
      }
      const docs = await live().transactions.find(query).sort({ created_at: -1, _id: -1 }).limit(limit + 1).toArray();
      return toPage(docs, limit, transactionFromDoc, (doc) => encodeTransactionCursor(doc.created_at, doc._id));
    },

    async listDuePending(now, limit) {
      requireLimit(limit);
      // The literal status matches the partial index transactions_due.
      const docs = await live()
        .transactions.find({ status: 'pending', next_attempt_at: { $lte: toDate(now, 'now') } })
        .sort({ next_attempt_at: 1, created_at: 1, _id: 1 })
        .limit(limit)
        .toArray();
      return docs.map(transactionFromDoc);
    },

    async listPending(filter, page) {
      const limit = requireLimit(page.limit);
      const query: Filter<TransactionDoc> = { status: 'pending' };
      if (filter.needsAttentionOnly) query.needs_attention = true;
      if (page.after !== undefined) {
        // Strictly newer than the cursor in (created_at, _id) order: the oldest-first list.
        const cursor = decodeTransactionCursor(page.after);
        const createdAt = new Date(cursor.createdAtMs);
        query.created_at = { $gte: createdAt };
        query.$nor = [{ created_at: createdAt, _id: { $lte: cursor.reference } }];
      }
      const docs = await live().transactions.find(query).sort({ created_at: 1, _id: 1 }).limit(limit + 1).toArray();
      return toPage(docs, limit, transactionFromDoc, (doc) => encodeTransactionCursor(doc.created_at, doc._id));
    },

    async pendingSummary() {
      // The literal status matches the partial index transactions_pending_by_age, so the
      // $match reads pending documents only; $group folds them into one row (none when
      // nothing is pending).
      const rows = await live()
        .transactions.aggregate<{ count: unknown; attention: unknown; oldest: unknown }>([
          { $match: { status: 'pending' } },
          {
            $group: {
              _id: null,
              count: { $sum: 1 },
              attention: { $sum: { $cond: [{ $eq: ['$needs_attention', true] }, 1, 0] } },
              oldest: { $min: '$created_at' },
            },
          },
        ])
        .toArray();
      const row = rows[0];
      if (row === undefined) return { count: 0, needsAttentionCount: 0, oldestCreatedAt: null };
      return {
        count: readInteger(row.count, 'pending count'),
        needsAttentionCount: readInteger(row.attention, 'pending needs_attention count'),
        oldestCreatedAt: row.oldest instanceof Date ? row.oldest : null,
      };
    },
  };

  return {
    deployment,
    accounts,
    keys,
    catalog,
    wallet,
    transactions,
    async close() {
      if (closed) return;
      closed = true;
      await client.close();
    },
  };
}

/** Documents were fetched with limit + 1: the extra one only proves there is a next page. */
function toPage<D, T>(docs: D[], limit: number, map: (doc: D) => T, cursor: (doc: D) => string): Page<T> {
  const more = docs.length > limit;
  const kept = more ? docs.slice(0, limit) : docs;
  const page: Page<T> = { items: kept.map(map) };
  if (more) page.next = cursor(kept[kept.length - 1]!);
  return page;
}

/** A whole-list read fetched MAX_LIST_ITEMS + 1 documents; reaching the bound is refused. */
function bounded<D>(docs: D[], what: string): D[] {
  if (docs.length > MAX_LIST_ITEMS) throw new RangeError(`store: more than ${MAX_LIST_ITEMS} ${what}; refusing to load them all`);
  return docs;
}

