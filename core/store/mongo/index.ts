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
import { MongoClient, type MongoClientOptions, ReadConcern, ReadPreference } from 'mongodb';
import { ledgerStore, moneyHandlers } from '../moves.js';
import type { Store } from '../port.js';
import { createWriteHealth } from '../write-health.js';
import { createAccountStore } from './accounts.js';
import { createApproval } from './approve.js';
import { createAuditLogStore } from './audit-log.js';
import { createBooksStore } from './books.js';
import { createCatalogStore } from './catalog.js';
import { leaseClockVerdict, measureClock } from './clock.js';
import { createCompatStore } from './compat.js';
import { createMongoContext, type MongoContext, majorityReads, majorityWrites } from './context.js';
import { createEventStore, createWebhookStore } from './events.js';
import { createFindingStore } from './findings.js';
import { createFundingStore } from './funding.js';
import {
  checkDeployment,
  checkFeatureCompatibility,
  explainSchemaFailure,
  UnsuitableDeploymentError,
} from './guard.js';
import { createHistoryStore } from './history.js';
import { createKeyUseStore } from './key-use.js';
import { createKeyStore } from './keys.js';
import { changeLevelMongo, createKycStore, returnHoldIn } from './levels.js';
import { createNoticeStore, createPasswordResetStore } from './mail.js';
import { createPlanCodeStore } from './plan-codes.js';
import { createRecipientStore } from './recipients.js';
import { createReportStore } from './reports.js';
import { ensureSchema, schemaTarget } from './schema.js';
import { createSignUpStore } from './sign-ups.js';
import { createProposalStore, createStaffStore } from './staff.js';
import { createSupplyStore } from './supply.js';
import { createTransactionStore } from './transactions.js';
import { createUpgradeStore } from './upgrades.js';
import { createPeopleStore } from './users.js';
import { createWalletStore } from './wallet.js';

/** Where the store lives. */
export interface MongoStoreOptions {
  /** A mongodb:// or mongodb+srv:// connection string to a replica set or a mongos. */
  uri: string;
  /** The database that holds the store's collections. */
  dbName: string;
  /** Extra driver options (tests shorten serverSelectionTimeoutMS); the concerns above always win. */
  clientOptions?: MongoClientOptions;
  /** Told what the start-up checks found wrong but not bad enough to refuse (a validator edited by hand). */
  warn?: (event: string, fields: Record<string, unknown>) => void;
}

/** What the start-up guard found, for the start-up log line. */
interface MongoDeployment {
  topology: 'replica_set' | 'sharded';
  serverVersion: string;
  dbName: string;
}

/** The store, plus what it runs on. */
export interface MongoStore extends Store {
  readonly deployment: MongoDeployment;
}

/**
 * Connects, refuses a deployment without transactions (see guard.ts), brings the schema up
 * to date (schema.ts), and returns the store. Any failure closes the client and rejects,
 * so the core stops at start with the reason.
 */
/**
 * The sub-ports that move money, handed out with their reads only, and the one door in front
 * of their money operations (core/store/moves.ts).
 */
function moneyParts(ctx: MongoContext): Pick<MongoStore, 'wallet' | 'funding' | 'supply' | 'books' | 'ledger'> {
  const { credit, debit, reserve, settle, refund, reverse, ...wallet } = createWalletStore(ctx);
  const { recordInflow, recordAndCreditInflow, creditInflow, rejectInflow, ...funding } = createFundingStore(ctx);
  const { deliveredLater, ...supply } = createSupplyStore(ctx);
  const { bookOwn, ...books } = createBooksStore(ctx);
  const ledger = ledgerStore(
    moneyHandlers({
      wallet: { credit, debit, reserve, settle, refund, reverse },
      funding: { recordInflow, recordAndCreditInflow, creditInflow, rejectInflow },
      supply: { deliveredLater },
      books: { bookOwn },
      changeLevel: (m) => changeLevelMongo(ctx, m),
      returnHold: (m) => ctx.inTransaction((session) => returnHoldIn(ctx, session, m.inflowId, m.at)),
      approve: createApproval(ctx),
    }),
  );
  return { wallet, funding, supply, books, ledger };
}

export async function openMongoStore(options: MongoStoreOptions): Promise<MongoStore> {
  const client = new MongoClient(options.uri, {
    appName: 'prepaid-core',
    ...options.clientOptions,
    readPreference: ReadPreference.primary,
    readConcern: majorityReads(),
    writeConcern: majorityWrites(),
    retryWrites: true,
    retryReads: true,
  });
  try {
    await client.connect();
    const check = checkDeployment(await client.db('admin').command({ hello: 1 }));
    if (!check.ok) throw new UnsuitableDeploymentError(check.reason);
    const db = client.db(options.dbName, {
      readPreference: ReadPreference.primary,
      readConcern: new ReadConcern(majorityReads().level),
      writeConcern: majorityWrites(),
    });
    const clock = leaseClockVerdict(await measureClock(client));
    if (!clock.ok) throw new UnsuitableDeploymentError(clock.reason);
    const fcv = checkFeatureCompatibility(await readFeatureCompatibility(client));
    if (!fcv.ok) throw new UnsuitableDeploymentError(fcv.reason);
    const report = await ensureSchema(schemaTarget(db)).catch((error: unknown) => {
      throw explainSchemaFailure(error);
    });
    if (report.different.length > 0) {
      options.warn?.('store.validator_differs', {
        collections: report.different,
        detail:
          'a collection validator differs from the one this build sets; the store runs, ' +
          'but check that the money guards are still there',
      });
    }
    const ctx = createMongoContext(client, db);
    const money = moneyParts(ctx);
    return {
      deployment: { topology: check.topology, serverVersion: check.serverVersion, dbName: options.dbName },
      accounts: createAccountStore(ctx),
      books: money.books,
      findings: createFindingStore(ctx),
      signUps: createSignUpStore(ctx),
      ledger: money.ledger,
      keys: createKeyStore(ctx),
      catalog: createCatalogStore(ctx),
      wallet: money.wallet,
      transactions: createTransactionStore(ctx),
      people: createPeopleStore(ctx),
      history: createHistoryStore(ctx),
      upgrades: createUpgradeStore(ctx),
      auditLog: createAuditLogStore(ctx),
      staff: createStaffStore(ctx),
      proposals: createProposalStore(ctx),
      passwordResets: createPasswordResetStore(ctx),
      notices: createNoticeStore(ctx),
      supply: money.supply,
      planCodes: createPlanCodeStore(ctx),
      compat: createCompatStore(ctx),
      reports: createReportStore(ctx),
      events: createEventStore(ctx),
      webhooks: createWebhookStore(ctx),
      keyUse: createKeyUseStore(ctx),
      recipients: createRecipientStore(ctx),
      funding: money.funding,
      kyc: createKycStore(ctx),
      // Majority-committed transactions are durable when they return: nothing waits.
      settled: () => Promise.resolve(),
      // A mongod whose disk fills stops (WiredTiger does not go on without room to write)
      // and the replica set elects another primary; the driver retries the write there. So
      // no MongoDB error is read as "this store cannot write" here, and the probe is a ping
      // of the primary: the replica set's own monitoring watches its disks (docs/mongodb.md).
      writes: createWriteHealth({
        reasonOf: () => null,
        probeWrite: async () => {
          await db.command({ ping: 1 });
        },
      }),
      close: () => ctx.close(),
    };
  } catch (error) {
    await client.close().catch(() => undefined);
    throw error;
  }
}

/**
 * The replica set's featureCompatibilityVersion, or null when this user may not ask (the
 * application's readWrite user usually may not; the index error is then explained instead).
 */
async function readFeatureCompatibility(client: MongoClient): Promise<unknown> {
  try {
    return await client.db('admin').command({ getParameter: 1, featureCompatibilityVersion: 1 });
  } catch {
    return null;
  }
}
