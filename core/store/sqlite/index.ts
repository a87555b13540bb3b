/**
 * The embedded store: the store port on one SQLite file through better-sqlite3.
 *
 * better-sqlite3 is synchronous, so every port operation runs to completion inside one
 * SQLite transaction before its promise settles; within a process, operations never
 * interleave. Writing transactions start IMMEDIATE (they take the write lock up front)
 * so that another process on the same file makes them wait out the busy timeout instead
 * of failing half-way with a stale snapshot.
 */
import { closeSync, fsync, fsyncSync, openSync } from 'node:fs';
import path from 'node:path';
import Database from 'better-sqlite3';
import { ledgerStore, moneyHandlers } from '../moves.js';
import type { Store } from '../port.js';
import { createWriteHealth } from '../write-health.js';
import { createAccountStore, prepareAccountStatements } from './accounts.js';
import { createApproval } from './approve.js';
import { auditAppender, createAuditLogStore } from './audit-log.js';
import { createBooksStore, prepareBookStatements } from './books.js';
import { createCatalogStore } from './catalog.js';
import { createCompatStore } from './compat.js';
import { createEventStore, createWebhookStore, prepareEventStatements } from './events.js';
import { createFindingStore } from './findings.js';
import { createFundingStore } from './funding.js';
import { createGroupCommit, type Durability, type GroupCommit } from './group-commit.js';
import { createHistoryStore } from './history.js';
import { createKeyUseStore } from './key-use.js';
import { createKeyStore } from './keys.js';
import { changeLevel, createKycStore, prepareLevelStatements, returnHold } from './levels.js';
import { createNoticeStore, createPasswordResetStore } from './mail.js';
import { createPlanCodeStore } from './plan-codes.js';
import { createRecipientStore, prepareRecipientStatements } from './recipients.js';
import { createReportStore } from './reports.js';
import { migrate } from './schema.js';
import { createSignUpStore } from './sign-ups.js';
import { prepareSpendStatements } from './spend.js';
import { createProposalStore, createStaffStore } from './staff.js';
import { createSupplyStore, prepareAttemptStatements } from './supply.js';
import { createTransactionStore, prepareTransactionStatements } from './transactions.js';
import { createUpgradeStore } from './upgrades.js';
import { createPeopleStore } from './users.js';
import { createWalletStore, moneyOperations, prepareLedgerStatements } from './wallet.js';
import { sqliteWriteFault } from './write-faults.js';

/**
 * How long a statement waits for another process's write lock before failing. Writes
 * here are a few row changes and finish in well under a millisecond, so five seconds is
 * only ever reached when something is badly wrong.
 */
const BUSY_TIMEOUT_MS = 5_000;

/** Where the SQLite file lives. */
export interface SqliteStoreOptions {
  /** Path of the database file; it is created with its schema when missing. */
  filename: string;
}

/**
 * Opens (creating or migrating as needed) the SQLite store at `options.filename`. The
 * open is synchronous; a file that cannot be opened or migrated throws here.
 */
export function openSqliteStore(options: SqliteStoreOptions): Store {
  const db = new Database(options.filename, { timeout: BUSY_TIMEOUT_MS });
  try {
    configure(db);
    migrate(db);
    return buildStore(db);
  } catch (error) {
    db.close();
    throw error;
  }
}

function configure(db: Database.Database): void {
  db.pragma(`busy_timeout = ${BUSY_TIMEOUT_MS}`);
  // WAL lets readers (history, balance) proceed while a purchase commits.
  db.pragma('journal_mode = WAL');
  // FULL syncs the WAL on every commit. With NORMAL, a purchase we already answered 2xx
  // could vanish on power loss while the provider delivered it; that is money we cannot
  // reconcile, so we pay the fsync.
  db.pragma('synchronous = FULL');
  db.pragma('foreign_keys = ON');
}

/** One sub-port per file; the statements the wallet shares with accounts and purchases are prepared once. */
function buildStore(db: Database.Database): Store {
  const accountSql = prepareAccountStatements(db);
  const transactionSql = prepareTransactionStatements(db);
  const eventSql = prepareEventStatements(db);
  const attemptSql = prepareAttemptStatements(db);
  // Money operations share commits (see group-commit.ts) and wait for the disk off the event
  // loop; the rare admin writes commit alone, with FULL.
  const wal = walDurability(db);
  const grouped = createGroupCommit(db, wal);
  // The probe rewrites the schema version the file already has: a real page written to the
  // WAL (so it needs room on the disk), and no table of its own.
  const version = db.pragma('user_version', { simple: true }) as number;
  const writes = createWriteHealth({
    reasonOf: sqliteWriteFault,
    probeWrite: () => grouped.run(() => void db.pragma(`user_version = ${version}`)),
  });
  const commit = refusingWithReason(grouped, writes.refused);
  const money = moneyParts(db, commit, {
    accounts: accountSql,
    transactions: transactionSql,
    events: eventSql,
    attempts: attemptSql,
  });
  return {
    accounts: createAccountStore(accountSql, db),
    keys: createKeyStore(db, commit, eventSql),
    catalog: createCatalogStore(db, eventSql),
    wallet: money.wallet,
    transactions: createTransactionStore(transactionSql),
    people: createPeopleStore(db),
    history: createHistoryStore(db),
    upgrades: createUpgradeStore(db),
    auditLog: createAuditLogStore(db),
    staff: createStaffStore(db),
    proposals: createProposalStore(db),
    passwordResets: createPasswordResetStore(db),
    notices: createNoticeStore(db),
    supply: money.supply,
    planCodes: createPlanCodeStore(db),
    compat: createCompatStore(db),
    reports: createReportStore(db),
    books: money.books,
    findings: createFindingStore(db, commit),
    signUps: createSignUpStore(db),
    ledger: money.ledger,
    events: createEventStore(eventSql, commit),
    webhooks: createWebhookStore(eventSql),
    keyUse: createKeyUseStore(db, commit),
    recipients: createRecipientStore(db, commit),
    funding: money.funding,
    kyc: money.kyc,
    settled: () => commit.settled(),
    writes,
    async close() {
      // What was committed is synced first (a failed sync changes nothing here: SQLite's
      // close checkpoints, and what the disk holds is what a restart reads).
      await commit.settled().catch(() => undefined);
      if (db.open) db.close();
      wal?.close();
    },
  };
}

/**
 * The sub-ports that move money, and the one door in front of their money operations
 * (core/store/moves.ts): the sub-ports are handed out with their reads only.
 */
function moneyParts(
  db: Database.Database,
  commit: GroupCommit,
  statements: Parameters<typeof createWalletStore>[2],
): Pick<Store, 'wallet' | 'funding' | 'supply' | 'books' | 'ledger' | 'kyc'> {
  const { credit, debit, reserve, settle, refund, reverse, ...wallet } = createWalletStore(db, commit, statements);
  const money = moneyOperations({
    ...statements,
    ledger: prepareLedgerStatements(db),
    spend: prepareSpendStatements(db),
    recipients: prepareRecipientStatements(db),
    books: prepareBookStatements(db),
    levels: prepareLevelStatements(db),
  });
  const { recordInflow, recordAndCreditInflow, creditInflow, rejectInflow, creditNow, ...funding } = createFundingStore(
    db,
    commit,
    money,
  );
  const { deliveredLater, ...supply } = createSupplyStore(db, commit);
  const { bookOwn, bookOwnNow, ...books } = createBooksStore(db, commit);
  const balances = prepareAccountStatements(db);
  const appendAudit = auditAppender(db);
  const levelParts = { sql: money.levels, books: prepareBookStatements(db), events: statements.events, appendAudit };
  const approve = createApproval(db, commit, {
    money,
    creditInflow: (move) => creditNow(move.inflowId, move.credit, move.from),
    bookOwn: bookOwnNow,
    appendAudit,
    returnHold: (inflowId, at) => returnHold(levelParts, inflowId, at),
    balanceOf: (accountId) => balances.get.get(accountId)?.balance_kobo ?? null,
  });
  const ledger = ledgerStore(
    moneyHandlers({
      wallet: { credit, debit, reserve, settle, refund, reverse },
      funding: { recordInflow, recordAndCreditInflow, creditInflow, rejectInflow },
      supply: { deliveredLater },
      books: { bookOwn },
      changeLevel: (m) =>
        commit.run(() =>
          changeLevel(levelParts, { accountId: m.accountId, level: m.level, at: m.decision.at, audit: m.decision }),
        ),
      returnHold: (m) => commit.run(() => returnHold(levelParts, m.inflowId, m.at)),
      approve,
    }),
  );
  return { wallet, funding, supply, books, ledger, kyc: createKycStore(commit, money.levels, appendAudit) };
}

/**
 * The money operations' commits, each failure the disk caused turned into STORE_UNAVAILABLE
 * (and the fault noted) before anyone hears of it; every other failure is passed on as it is.
 */
function refusingWithReason(commit: GroupCommit, refused: (error: unknown) => unknown): GroupCommit {
  const watched = <T>(done: Promise<T>): Promise<T> =>
    done.catch((error: unknown) => {
      throw refused(error);
    });
  return {
    run: (operation, recover) => watched(commit.run(operation, recover)),
    ride: (operation) => watched(commit.ride(operation)),
    settled: () => watched(commit.settled()),
  };
}

/**
 * The WAL's sync for the group commit: `fs.fsync` of the `-wal` file on libuv's thread pool,
 * which makes durable what SQLite's FULL would have synced in the COMMIT. The file is
 * opened at the first sync (it exists once anything was written in WAL mode) and kept
 * open: while this connection is open SQLite never deletes it. The directory is synced
 * once then, as SQLite does after creating the file. None for a database in memory.
 */
function walDurability(db: Database.Database): (Durability & { close(): void }) | undefined {
  if (db.memory || db.pragma('journal_mode', { simple: true }) !== 'wal') return undefined;
  const file = `${db.name}-wal`;
  let fd: number | undefined;
  return {
    sync(done) {
      try {
        fd ??= openWal(file);
      } catch (error) {
        done(error as Error);
        return;
      }
      fsync(fd, (error) => done(error));
    },
    close() {
      if (fd !== undefined) closeSync(fd);
      fd = undefined;
    },
  };
}

function openWal(file: string): number {
  const fd = openSync(file, 'r');
  const dir = openSync(path.dirname(file), 'r');
  try {
    fsyncSync(dir);
  } finally {
    closeSync(dir);
  }
  return fd;
}
