/**
 * Builds the core from its parts without binding anything: use cases, the gRPC server and
 * the recovery worker over a given store and providers. core/main.ts and the tests both
 * start it this way; only they decide where it listens.
 */

import { randomBytes } from 'node:crypto';
import { type ClockJumpWatch, createClockJumpWatch } from '../runtime/clock-jump.js';
import type { Logger } from '../runtime/log.js';
import { createCompatService } from './accounts/compat.js';
import { createKeyUseRecorder, type KeyUseRecorder } from './accounts/key-use.js';
import { createLedgerCheck } from './accounts/ledger-check.js';
import { createLevels } from './accounts/levels.js';
import { createRecipientControls } from './accounts/recipients.js';
import { type AccountService, createAccountService } from './accounts/service.js';
import { createVelocityBrake, type VelocityBrake } from './accounts/velocity.js';
import { createReconciliation, type Reconciliation } from './books/daily.js';
import { createCableFollow } from './catalog/cable-follow.js';
import { createPlanChanges } from './catalog/changes.js';
import { createCostRules } from './catalog/costs.js';
import { defaultCatalog } from './catalog/defaults.js';
import { createPlanBook, createPlanCodesAdmin, type PlanBook } from './catalog/plan-codes.js';
import { createVariationsPush } from './catalog/push.js';
import { createCatalogService } from './catalog/service.js';
import { createPlanSync } from './catalog/sync.js';
import {
  DEFAULT_CONSOLE_PUBLIC_URL,
  DEFAULT_DASHBOARD_PUBLIC_URL,
  DEFAULT_DELIVERY_CONCURRENCY,
  DEFAULT_PER_DESTINATION,
} from './config.js';
import { DEFAULT_DELIVERY_SCHEDULE } from './domain/events.js';
import type { FundingFee } from './domain/funding.js';
import type { Mode } from './domain/mode.js';
import { lagosDay } from './domain/people.js';
import { DEFAULT_FOUR_EYES_COOLING_MS } from './domain/staff.js';
import { DEFAULT_RETRY_SCHEDULE } from './domain/transactions.js';
import { NEW_KEY_WINDOW_KOBO, type VelocitySettings } from './domain/velocity.js';
import type { FundingProvider } from './funding/port.js';
import { createSandboxFunding, type SandboxFunding } from './funding/sandbox.js';
import { createFundingService, type FundingService } from './funding/service.js';
import { createFundingSweeper, type FundingSweeper } from './funding/sweeper.js';
import { createHolderDesk } from './holders/desk.js';
import { createShopDesk } from './holders/shop.js';
import { createJournal } from './ledger/journal.js';
import { createOwnMoney } from './ledger/own-money.js';
import type { EventMail } from './mail/event-mail.js';
import { createLowBalanceMail, type LowBalanceMail } from './mail/low-balance.js';
import { createMailer, type Mailer } from './mail/mailer.js';
import { createNotices, type Notices } from './mail/notices.js';
import type { MailSettings } from './mail/smtp.js';
import { createWalletMail } from './mail/wallet-mail.js';
import {
  type CoreMetrics,
  createOutcomeRecorder,
  instrumentProviders,
  instrumentSupply,
  isTimedMove,
} from './metrics.js';
import { createOnboarding, type SignUpSettings } from './people/onboarding.js';
import { createPeopleService, type PeopleService } from './people/service.js';
import { createUpgrades, type Upgrades } from './people/upgrades.js';
import { SANDBOX_UPSTREAM } from './providers/index.js';
import type { Providers } from './providers/port.js';
import { createSandbox } from './providers/sandbox/index.js';
import type { Supply } from './providers/supply.js';
import { parseVtpassCallback, parseVtpassVariationsUpdate } from './providers/vtpass/callback.js';
import { VTPASS_NAME } from './providers/vtpass/index.js';
import { cableProviderOfServiceId, dataNetworkOfServiceId } from './providers/vtpass/services.js';
import { createCallbackService } from './purchases/callbacks.js';
import { createFloatPoller, type FloatPoller } from './purchases/float-poller.js';
import type { PurchaseDeps } from './purchases/flow.js';
import { type CommissionRules, createCostObserver, type SetPlanCost } from './purchases/observed-costs.js';
import { createPendingList } from './purchases/pending-list.js';
import { Background } from './purchases/receipts.js';
import { createRecoveryWorker, type RecoveryWorker } from './purchases/recovery.js';
import { createRouter } from './purchases/routing.js';
import { createPurchaseService, type PurchaseService } from './purchases/service.js';
import { createSupplyAdmin } from './purchases/supply-admin.js';
import type { SupplyDeps } from './purchases/upstream-calls.js';
import { createUpstreamHealth } from './purchases/upstream-health.js';
import { createVerificationService } from './purchases/verification.js';
import { createReports } from './reports/service.js';
import type { ProposedMove } from './rpc/admin.js';
import type { OwnProposal } from './rpc/books.js';
import { type CoreServer, createCoreServer, SERVICE_NAMES } from './rpc/server.js';
import { createAccountsDesk } from './staff/accounts-desk.js';
import { type AuditTrail, CLI_ACTOR, createAuditTrail } from './staff/audit.js';
import { createDesk, type Desk } from './staff/desk.js';
import { createStaffRealm } from './staff/realm.js';
import { createTransactionsDesk } from './staff/transactions-desk.js';
import { type OperationsAlert, operationsAlerts } from './storage/alerts.js';
import { type BackupSchedule, type Backups, createBackups } from './storage/backup.js';
import { type StoreWriteWatch, watchStoreWrites } from './storage/write-watch.js';
import type { Store } from './store/port.js';
import { type CompatCallbacks, createCompatCallbacks } from './webhooks/compat-callbacks.js';
import { createDeliveryWorker, type DeliveryWorker } from './webhooks/delivery.js';
import { checkWebhookUrl, createPoster, DELIVERY_TIMEOUT_MS, type Poster } from './webhooks/destination.js';
import { createEventFeed } from './webhooks/feed.js';
import { createWebhookService } from './webhooks/service.js';

export interface CoreDeps {
  store: Store;
  /** The live providers, as each family is routed. */
  providers: Providers;
  /**
   * What serves test purchases: a sandbox, always (core/main.ts passes the one it built;
   * a fresh one by default). Never anything that reaches a real upstream.
   */
  testProviders?: Providers;
  /**
   * Every upstream and the default routes (core/providers/index.ts): live purchases are then
   * routed, recorded per upstream and fail over on proven non-delivery. Without it each
   * family's provider in `providers` takes every purchase.
   */
  supply?: Supply;
  /** RECONCILE_AT: minutes after Lagos midnight of the daily reconciliation; absent or null: none scheduled. */
  reconcileAtMinute?: number | null;
  /**
   * The plan codes and types kept in memory, the same book createProviders' `planCodes` reads
   * (so a code changed here is in force at once); one over the store when not given.
   */
  planBook?: PlanBook;
  /** How often each upstream's float is read (UPSTREAM_FLOAT_POLL_MS); a minute by default. */
  floatPollMs?: number;
  adminToken: string;
  serviceToken: string;
  providerTimeoutMs: number;
  /** How long an account's duplicate guard remembers a purchase (DUPLICATE_WINDOW_S); 30 s when not given. */
  duplicateWindowMs?: number;
  /** The velocity brake (VELOCITY_BRAKE, VELOCITY_WINDOW_MIN, VELOCITY_FACTOR, ...); off when not given. */
  velocity?: VelocitySettings;
  recoveryIntervalMs: number;
  recoveryAttentionAfterMs: number;
  log: Logger;
  /** The dashboard's public base URL, for invitation links (DASHBOARD_PUBLIC_URL). */
  dashboardPublicUrl?: string;
  /** The console's public base URL, for staff set-up links (CONSOLE_PUBLIC_URL). */
  consolePublicUrl?: string;
  /** FOUR_EYES_COOLING_H in ms: how long a member new to their powers may not approve their inviter's proposals. */
  fourEyesCoolingMs?: number;
  /** CLI_MONEY_MOVES: `proposals` makes the CLI's live credits and debits four-eyes proposals. */
  cliMoneyMoves?: 'direct' | 'proposals';
  clock?: () => Date;
  /** Where the core's series go (core/metrics.ts); without it only the outcome log lines are written. */
  metrics?: CoreMetrics;
  /** Webhook deliveries; the defaults are the contract's (a minute's first retry, public https only). */
  webhooks?: WebhookDeps;
  /** How often key uses noted in memory are written (core/accounts/key-use.ts); a few seconds by default. */
  keyUseFlushMs?: number;
  /** Money in (core/funding/); without it the live wallet is funded through the sandbox, with no fee. */
  funding?: FundingConfig;
  /** SMTP_URL and MAIL_FROM; without them nothing is mailed. */
  mail?: MailSettings | null;
  /** SIGNUP and SIGNUP_PER_ADDRESS_DAY (docs/sign-up.md); none: `invite`, no sign-up page. */
  signUp?: SignUpSettings;
  /** API_TIER_MIN_LEVEL: the identity level an account needs to ask for API access (2 when not given). */
  apiTierMinLevel?: number;
  /** How often the low-balance mail reads the events (a minute by default). */
  lowBalanceMailIntervalMs?: number;
  /** How often a store that cannot write is probed (core/storage/write-watch.ts); two seconds by default. */
  storeProbeMs?: number;
  /** Backups of the embedded store (core/storage/backup.ts); without it `prepaid backup` is refused. */
  backups?: BackupSettings;
}

/** What the core's backups need: the store's file, the secrets it does not hold, where and how often. */
export interface BackupSettings {
  /** The SQLite file; null on MongoDB. */
  storeFile: string | null;
  /** File name in DATA_DIR -> content: the tokens and the KYC key a restore writes back. */
  secrets: Record<string, string>;
  /** BACKUP_DIR; null: `prepaid backup` needs --to. */
  dir: string | null;
  /** BACKUP_EVERY with its directory, keep count and passphrase; null: none scheduled. */
  schedule: BackupSchedule | null;
}

/** How often the low-balance alerts are looked for: a minute late is soon enough for a wallet to be topped up. */
const DEFAULT_LOW_BALANCE_MAIL_MS = 60_000;

/** How this core takes money in. */
export interface FundingConfig {
  /**
   * The live providers (Paystack, Monnify); none: live wallets have no bank transfer funding
   * (no account number is shown) unless `sandboxLive`. Test mode always has only the sandbox.
   */
  providers?: FundingProvider[];
  /**
   * FUNDING_SANDBOX_LIVE=on: the sandbox bank serves live wallets as well, so a simulated
   * transfer credits live money. Off by default: only for a demonstration without real money.
   */
  sandboxLive?: boolean;
  fee?: FundingFee;
  /** The key of the identity numbers' keyed hash; a random one per process by default (tests). */
  kycKey?: string;
  /** How often the sweeper runs (FUNDING_SWEEP_INTERVAL_MS). */
  sweepIntervalMs?: number;
  /** The sandbox bank; tests hand in their own to make transfers no notification announces. */
  sandbox?: SandboxFunding;
}

/** How this core delivers webhooks. */
export interface WebhookDeps {
  retryBaseMs?: number;
  allowPrivate?: boolean;
  /** Events held at once in this core: being delivered, or waiting for their receiver. */
  concurrency?: number;
  /** Deliveries in flight at once to one account's webhook. */
  perDestination?: number;
  /** How often the store is asked for due events when nothing nudged the worker. */
  pollIntervalMs?: number;
  /** How long a receiver has to answer (the contract's 10 s at most). */
  timeoutMs?: number;
  /** The HTTP client; tests stand in one with a fake DNS. */
  poster?: Poster;
}

/** Each upstream's float is read this often unless UPSTREAM_FLOAT_POLL_MS says otherwise. */
const DEFAULT_FLOAT_POLL_MS = 60_000;

/** The worker also looks for due events this often (retries fall due without a nudge). */
const DEFAULT_DELIVERY_POLL_MS = 1_000;

export interface Core {
  rpc: CoreServer;
  worker: RecoveryWorker;
  /** Money in: the use cases, and the sweeper core/main.ts starts like the recovery worker. */
  funding: FundingService;
  fundingSweeper: FundingSweeper;
  /** Reads each upstream's float; started by core/main.ts like the recovery worker. Null without upstreams. */
  floatPoller: FloatPoller | null;
  /** The webhook delivery worker; started by core/main.ts like the recovery worker. */
  deliveries: DeliveryWorker;
  /** Key uses noted in memory; written in the background, and by shutdown(). */
  keyUses: KeyUseRecorder;
  /** The velocity brake's counts in memory; written in the background, and by shutdown(). */
  velocity: VelocityBrake;
  /** Work after a purchase's answer (receipts, observed costs); shutdown() waits for it, and so may a test. */
  background: Pick<Background, 'drain'>;
  /** The mail queue; null without SMTP_URL. */
  mailer: Mailer | null;
  /** The low-balance alerts by mail; started by core/main.ts like the recovery worker. */
  lowBalanceMail: LowBalanceMail;
  /** The live wallet's credit and manual-debit mails (core/mail/wallet-mail.ts); started by core/main.ts. */
  walletMail: EventMail;
  /** Probes a store that cannot write until it can (core/storage/write-watch.ts); started by core/main.ts. */
  storeWatch: StoreWriteWatch;
  /** Backups on demand and, with BACKUP_EVERY, on a schedule whose runner core/main.ts starts. */
  backups: Backups;
  /** Compares the wall clock with the monotonic one (runtime/clock-jump.ts); started by core/main.ts. */
  clockWatch: ClockJumpWatch;
  /** The reconciliation with the upstreams, on demand and (RECONCILE_AT) daily, whose runner core/main.ts starts. */
  reconciliation: Reconciliation;
  /** Seeds the default catalog into an empty store. */
  seed(): Promise<boolean>;
  /**
   * The first step of a shutdown: gRPC health turns NOT_SERVING, so load balancers and the
   * gateway's /healthz stop sending work here, while calls are still taken; open health
   * Watch streams get that NOT_SERVING and end, so none holds the stop.
   */
  drain(): void;
  /**
   * drain(), then stops taking calls, lets in-flight calls finish (a purchase ends settled,
   * refunded or pending), stops the recovery worker, sends the receipts still queued and
   * writes the key uses not written yet.
   * The caller closes the store afterwards.
   */
  shutdown(): Promise<void>;
  /** Past the shutdown deadline: cancels every call still open, at once. */
  forceShutdown(): void;
}

/**
 * Routing and health over the configured upstreams; circuit changes are logged and, like the
 * rest of supply, counted; what an upstream charged is kept after delivery (observed-costs.ts).
 */
function createSupplyDeps(
  supply: Supply,
  store: Store,
  planBook: PlanBook,
  deps: { log: Logger; clock: () => Date; metrics: CoreMetrics | undefined } & CatalogueLater,
): SupplyDeps {
  const { log, clock } = deps;
  const observer = deps.metrics?.supply;
  const health = createUpstreamHealth({
    onCircuit: (upstream, state) => {
      log('upstream.circuit', { upstream, state });
      observer?.circuit(upstream, state);
    },
  });
  // Every upstream's circuit is a series from the start, closed.
  for (const name of supply.upstreams.keys()) observer?.circuit(name, 'closed');
  const costs = createCostObserver({
    store,
    setPlanCost: deps.setPlanCost,
    commissions: deps.commissions,
    clock,
    log,
  });
  return {
    router: createRouter({ supply, store, health, clock }),
    health,
    costs,
    planTypeOf: planBook.typeOf,
    ...(observer === undefined ? {} : { observer }),
  };
}

/** The embedded store's backups, on demand and on the BACKUP_EVERY schedule. */
function backupsOf(deps: CoreDeps, clock: () => Date): Backups {
  return createBackups(
    {
      storeFile: deps.backups?.storeFile ?? null,
      secrets: deps.backups?.secrets ?? {},
      clock,
      log: deps.log,
      observer: deps.metrics?.storage,
    },
    { dir: deps.backups?.dir ?? null, schedule: deps.backups?.schedule ?? null },
  );
}

/**
 * The core from its groups, each a builder over the same deps: the money path every use case
 * shares, purchasing, people, money in, staff and the console, the background jobs, and the
 * lifecycle that stops them in order.
 */
export function createCore(deps: CoreDeps): Core {
  const clock = deps.clock ?? (() => new Date());
  // The catalogue is built with purchasing; a cost is only ever observed after a purchase.
  const money = moneyPath(deps, clock, {
    setPlanCost: (...args) => buying.catalog.setPlanCost(...args),
    commissions: { current: () => buying.costRules.current(), set: (rule, who) => buying.costRules.set(rule, who) },
  });
  // The brake freezes through the account service, which is built with the people below.
  let accountsLater: AccountService | undefined;
  const velocity = createVelocityBrake({
    store: money.store.keyUse,
    settings: deps.velocity ?? DEFAULT_VELOCITY,
    clock,
    log: deps.log,
    freeze: async (publicKey, reason) => {
      await accountsLater?.freezeKey(publicKey, reason, VELOCITY_FREEZER);
    },
  });
  const buying = purchasing(deps, money, velocity);
  const holders = peopleParts(deps, money, buying.purchases, velocity);
  accountsLater = holders.accounts;
  const funding = fundingParts(deps, money);
  // The queue reads the backups' state when asked; they are built below, after the staff.
  let backupsLater: Backups | undefined;
  const staff = staffParts(deps, money, {
    accounts: holders.accounts,
    funding,
    upgrades: holders.upgrades,
    notices: holders.notices,
    operations: () => operationsAlerts(deps.store.writes, backupsLater),
  });
  const { store } = money;
  const backups = backupsOf(deps, clock);
  backupsLater = backups;
  // The wall clock against the monotonic one, checked periodically: a jump is logged, counted and shown to staff.
  const clockWatch = createClockJumpWatch({ wall: clock, log: deps.log, observe: deps.metrics?.clockJump });
  const reconciliation = reconciliationOf(deps, store, clock);
  const rpc = createCoreServer({
    ...buying,
    backups,
    ownMoney: staff.ownMoney,
    reconciliation,
    accounts: holders.accounts,
    people: holders.people,
    onboarding: holders.onboarding,
    holderDesk: holders.holderDesk,
    compat: compatOf(store, clock, holders.keyUses, money.allowPrivate),
    upgrades: holders.upgrades,
    levels: holders.levels,
    webhooks: holders.webhooks,
    supplyAdmin: staff.supplyAdmin,
    planCodes: createPlanCodesAdmin({
      store,
      book: money.planBook,
      catalog: buying.catalog,
      supply: deps.supply,
      clock,
      log: deps.log,
    }),
    shopDesk: createShopDesk({ store, purchases: buying.purchases }),
    staff: {
      realm: staff.realm,
      desk: staff.desk,
      ...consoleDesks(store, holders, staff.audit, clock),
      audit: staff.audit,
      auditLog: store.auditLog,
      reports: createReports(store),
      clockJump: clockWatch.last,
      ...cliProposals(deps, staff.desk),
    },
    eventFeed: createEventFeed({ accounts: store.accounts, events: store.events }),
    funding,
    adminToken: deps.adminToken,
    serviceToken: deps.serviceToken,
    log: deps.log,
    settled: () => store.settled(),
  });
  let draining = false;
  const storeWatch = watchStoreWrites({
    writes: deps.store.writes,
    log: deps.log,
    observer: deps.metrics?.storage,
    // The core as a whole is not ready while it cannot write; a drain's NOT_SERVING stays.
    serving: (ok) => {
      if (!draining) rpc.health.setStatus('', ok ? 'SERVING' : 'NOT_SERVING');
    },
    ...(deps.storeProbeMs === undefined ? {} : { intervalMs: deps.storeProbeMs }),
  });
  const parts = {
    rpc,
    storeWatch,
    backups,
    reconciliation,
    ...backgroundJobs(deps, money, funding),
    clockWatch,
    funding,
    background: money.background,
    deliveries: money.deliveries,
    keyUses: holders.keyUses,
    velocity,
    mailer: holders.mailer,
    lowBalanceMail: holders.lowBalanceMail,
    walletMail: holders.walletMail,
  };
  return {
    ...parts,
    seed: () => store.catalog.seedIfEmpty(defaultCatalog()),
    ...lifecycle(parts, { poster: money.poster, compatCallbacks: money.compatCallbacks }, () => {
      draining = true;
    }),
  };
}

/** The compatible tokens, aliases and callbacks; a callback's address follows the webhooks' rules. */
function compatOf(
  store: Store,
  clock: () => Date,
  keyUses: Parameters<typeof createCompatService>[0]['keyUses'],
  allowPrivate: boolean,
) {
  return createCompatService({
    store,
    clock,
    keyUses,
    checkCallbackUrl: (url) => checkWebhookUrl(url, allowPrivate).problem,
  });
}

/** The books read and the platform's own entries booked (top-ups, settlements). */
function ownMoneyOf(deps: CoreDeps, store: Store, clock: () => Date) {
  return createOwnMoney({
    store,
    // Without routed upstreams the sandbox serves every family (core/purchases/supply-admin.ts).
    upstreams: deps.supply === undefined ? [SANDBOX_UPSTREAM] : [...deps.supply.upstreams.keys()],
    clock,
  });
}

/** The reconciliation with the upstreams: on demand, and daily at RECONCILE_AT. */
function reconciliationOf(deps: CoreDeps, store: Store, clock: () => Date): Reconciliation {
  return createReconciliation({
    store,
    upstreams: deps.supply?.upstreams ?? new Map(),
    clock,
    dailyAtMinute: deps.reconcileAtMinute ?? null,
    log: deps.log,
  });
}

/** What every use case shares: the store as announced and counted, providers, supply, the purchase deps. */
type MoneyPath = ReturnType<typeof moneyPath>;

/** What supply's cost observer calls in the catalogue, which is built after it (purchasing). */
interface CatalogueLater {
  setPlanCost: SetPlanCost;
  commissions: CommissionRules;
}

/**
 * The money path: the store with its outcomes logged and counted and its money changes
 * announced to the webhook worker, the providers of both modes, supply over the upstreams,
 * and the purchase deps the purchasing use cases and the workers share.
 */
function moneyPath(deps: CoreDeps, clock: () => Date, catalogue: CatalogueLater) {
  const background = new Background();
  // Every purchase outcome is logged (and counted) where it is decided: a settlement, refund
  // or reversal where the store records it, a pending answer where the flow gives it.
  const outcomes = createOutcomeRecorder({ log: deps.log, metrics: deps.metrics });
  const { deliveries, poster, allowPrivate } = createDeliveries(deps, clock);
  // The Adex clients' callbacks, told of each purchase made final after its move is written.
  const compatCallbacks = createCompatCallbacks({ store: deps.store, poster, log: deps.log });
  deps.metrics?.watchUndelivered(() => deps.store.events.undeliveredSummary(), clock);
  // Every money move goes through the journal, which tells the webhook worker of the events it
  // wrote, logs and counts each purchase it made final, and times the moves.
  const ledger = createJournal({
    ledger: deps.store.ledger,
    wroteEvent: (destination) => deliveries.nudge(destination),
    madeFinal: (tx) => {
      outcomes.recorded(tx);
      compatCallbacks.told(tx);
    },
    timed: (kind, seconds) => {
      if (deps.metrics !== undefined && isTimedMove(kind)) deps.metrics.walletOperation(kind, seconds);
    },
  });
  // settled() and close() are the store's own, asked each time (a test may hold settled()).
  const store: Store = {
    ...tellingFreezes(deps.store, (destination) => deliveries.nudge(destination)),
    ledger,
    settled: () => deps.store.settled(),
    close: () => deps.store.close(),
  };
  const instrumented = (providers: Providers, mode: Mode) =>
    deps.metrics === undefined ? providers : instrumentProviders(providers, deps.metrics, mode);
  const providers = instrumented(deps.providers, 'live');
  const testProviders = instrumented(deps.testProviders ?? createSandbox({ delayMs: 0, record: false }), 'test');
  deps.metrics?.watchPending(() => deps.store.transactions.pendingSummary(), clock);
  const supply =
    deps.supply === undefined || deps.metrics === undefined ? deps.supply : instrumentSupply(deps.supply, deps.metrics);
  const planBook = deps.planBook ?? createPlanBook({ store, clock });
  const supplyDeps =
    supply === undefined
      ? undefined
      : createSupplyDeps(supply, store, planBook, { log: deps.log, clock, metrics: deps.metrics, ...catalogue });
  const purchaseDeps = {
    store,
    providers: { live: providers, test: testProviders },
    clock,
    providerTimeoutMs: deps.providerTimeoutMs,
    inFlight: new Set(),
    background,
    log: deps.log,
    observer: outcomes,
    retrySchedule: { ...DEFAULT_RETRY_SCHEDULE, attentionAfterMs: deps.recoveryAttentionAfterMs },
    ...(supplyDeps === undefined ? {} : { supply: supplyDeps }),
  } satisfies PurchaseDeps;
  return {
    clock,
    background,
    deliveries,
    compatCallbacks,
    poster,
    allowPrivate,
    store,
    providers,
    planBook,
    supplyDeps,
    purchaseDeps,
  };
}

/**
 * Purchasing: the catalogue and its cost rules, the purchases (the developer area's and the
 * API's, which refuses a suspended account), lookups, the pending list, the ledger check, and
 * the upstreams' callbacks and pushes.
 */
function purchasing(deps: CoreDeps, money: MoneyPath, velocity: VelocityBrake) {
  const { store, clock, providers } = money;
  const recipients = createRecipientControls({ store, clock, duplicateWindowMs: deps.duplicateWindowMs ?? 30_000 });
  const purchaseDeps = { ...money.purchaseDeps, recipients, velocity };
  const planChanges = createPlanChanges({ store, clock, log: deps.log });
  const catalog = createCatalogService({ store, changes: planChanges, clock });
  const costRules = createCostRules({ store, clock, log: deps.log });
  const purchases = createPurchaseService({ ...purchaseDeps, costRules });
  const planSync = createPlanSync({ store, catalog, changes: planChanges, providers, log: deps.log });
  // Callbacks are accepted from the upstreams that send them; each is confirmed by a requery.
  const callbacks = createCallbackService(
    purchaseDeps,
    { [VTPASS_NAME]: parseVtpassCallback },
    {
      [VTPASS_NAME]: createVariationsPush({
        upstream: VTPASS_NAME,
        parse: parseVtpassVariationsUpdate,
        networkOf: dataNetworkOfServiceId,
        planSync,
        cableProviderOf: cableProviderOfServiceId,
        cableFollow: createCableFollow({ store, providers, clock, log: deps.log }),
        log: deps.log,
      }),
    },
  );
  return {
    purchases,
    recipients,
    apiPurchases: createPurchaseService({ ...purchaseDeps, costRules, refuseSuspended: true }),
    catalog,
    costRules,
    pendingList: createPendingList({ transactions: store.transactions }),
    ledgerCheck: createLedgerCheck({ wallet: store.wallet, log: deps.log }),
    verification: createVerificationService(purchaseDeps),
    callbacks,
    planSync,
  };
}

/**
 * People and their accounts: keys and their uses, invitations and resets, the mail they
 * get, webhooks, the developer area's desk and plan upgrades.
 */
function peopleParts(deps: CoreDeps, money: MoneyPath, purchases: PurchaseService, velocity: VelocityBrake) {
  const { store, clock, deliveries } = money;
  const keyUses = createKeyUseRecorder({
    keyUse: store.keyUse,
    log: deps.log,
    ...(deps.keyUseFlushMs === undefined ? {} : { intervalMs: deps.keyUseFlushMs }),
  });
  // The core sends the mail: it owns people, their addresses and the reset links, and it
  // reads the events the low-balance alert comes from.
  const mailer = deps.mail ? createMailer(deps.mail, deps.log) : null;
  const notices = createNotices({ mailer, people: store.people, optOuts: store.notices, log: deps.log });
  const accounts = createAccountService({ store, clock, keyUses, velocity, notices });
  const people = createPeopleService({
    store,
    clock,
    dashboardUrl: deps.dashboardPublicUrl ?? DEFAULT_DASHBOARD_PUBLIC_URL,
    log: deps.log,
    notices,
  });
  const lowBalanceMail = createLowBalanceMail({
    notices,
    store: store.notices,
    clock,
    log: deps.log,
    intervalMs: deps.lowBalanceMailIntervalMs ?? DEFAULT_LOW_BALANCE_MAIL_MS,
  });
  const walletMail = createWalletMail({
    notices,
    store: store.notices,
    clock,
    log: deps.log,
    intervalMs: deps.lowBalanceMailIntervalMs ?? DEFAULT_LOW_BALANCE_MAIL_MS,
  });
  const webhooks = createWebhookService({
    accounts: store.accounts,
    events: store.events,
    webhooks: store.webhooks,
    clock,
    allowPrivate: money.allowPrivate,
    nudge: (destination) => deliveries.nudge(destination),
  });
  const holderDesk = createHolderDesk({ store, accounts, purchases, webhooks, clock, notices });
  const upgrades = createUpgrades({ store, accounts, clock, minLevel: deps.apiTierMinLevel ?? 2, notices });
  const levels = createLevels({ store, ledger: store.ledger, clock, kycKey: kycKeyOf(deps) });
  const onboarding = createOnboarding({
    store,
    clock,
    dashboardUrl: deps.dashboardPublicUrl ?? DEFAULT_DASHBOARD_PUBLIC_URL,
    notices,
    log: deps.log,
    sms: money.providers.bulksms,
    timeoutMs: deps.providerTimeoutMs,
    settings: deps.signUp,
  });
  return {
    keyUses,
    accounts,
    mailer,
    notices,
    people,
    lowBalanceMail,
    walletMail,
    webhooks,
    holderDesk,
    upgrades,
    levels,
    onboarding,
  };
}

/** A core without FUNDING_KYC_KEY (tests) hashes identity numbers under one random key for its life. */
const PROCESS_KYC_KEY = randomBytes(32).toString('hex');

/** The key of the identity numbers' keyed hash, shared by funding and the identity levels. */
function kycKeyOf(deps: CoreDeps): string {
  return deps.funding?.kycKey ?? PROCESS_KYC_KEY;
}

/**
 * Money in: the funding providers of each mode (the sandbox bank in test mode, and in live
 * mode only when FUNDING_SANDBOX_LIVE says so), the fee, the KYC hash.
 */
function fundingParts(deps: CoreDeps, money: MoneyPath): FundingService {
  const { store, clock } = money;
  const sandboxFunding =
    deps.funding?.sandbox ??
    createSandboxFunding({
      isTaken: async (number) => (await store.funding.findVirtualAccount('sandbox', number)) !== null,
    });
  // Sandbox money never reaches a live wallet unless the operator said so.
  const liveFunding = [...(deps.funding?.providers ?? []), ...(deps.funding?.sandboxLive ? [sandboxFunding] : [])];
  const funding = createFundingService({
    store,
    providers: { live: liveFunding, test: [sandboxFunding] },
    sandbox: sandboxFunding,
    fee: deps.funding?.fee ?? { basisPoints: 0, capKobo: null },
    kycKey: kycKeyOf(deps),
    clock,
    log: deps.log,
    ...(deps.metrics === undefined ? {} : { observer: deps.metrics.funding }),
  });
  deps.metrics?.watchUnmatched(async () => (await deps.store.funding.listInflows('unmatched', 1_000)).length);
  deps.metrics?.watchSignUps(async () => {
    const day = lagosDay(clock());
    const [today] = await store.signUps.funnel(day, day);
    return {
      signed_up: today?.signedUp ?? 0,
      email_verified: today?.emailVerified ?? 0,
      phone_verified: today?.phoneVerified ?? 0,
      funded: today?.funded ?? 0,
      purchased: today?.purchased ?? 0,
      level_2: today?.level2 ?? 0,
      api_tier: today?.apiTier ?? 0,
      pending_reviews: (await store.kyc.pendingRequests(1_000)).length,
    };
  });
  return funding;
}

/** Staff and the console: the audit trail, staff sign-in, supply administration and the desk. */
function staffParts(
  deps: CoreDeps,
  money: MoneyPath,
  uses: {
    accounts: AccountService;
    funding: FundingService;
    upgrades: Upgrades;
    notices: Notices;
    operations: () => OperationsAlert[];
  },
) {
  const { store, clock, supplyDeps } = money;
  // The books' own money: the desk books a top-up or settlement proposal's entry with it.
  const ownMoney = ownMoneyOf(deps, store, clock);
  const audit = createAuditTrail(store.auditLog, clock);
  const realm = createStaffRealm({
    store,
    audit,
    clock,
    consoleUrl: deps.consolePublicUrl ?? DEFAULT_CONSOLE_PUBLIC_URL,
    notices: uses.notices,
    fourEyesCoolingMs: deps.fourEyesCoolingMs ?? DEFAULT_FOUR_EYES_COOLING_MS,
  });
  const supplyAdmin = createSupplyAdmin({
    store,
    supply: deps.supply,
    router: supplyDeps?.router,
    health: supplyDeps?.health,
    clock,
  });
  const desk = createDesk({
    store,
    ...uses,
    purchases: money.purchaseDeps,
    audit,
    clock,
    upstreamHealth: supplyAdmin,
    fourEyesCoolingMs: deps.fourEyesCoolingMs ?? DEFAULT_FOUR_EYES_COOLING_MS,
    ownMoney,
  });
  return { audit, realm, supplyAdmin, desk, ownMoney };
}

/** The console's accounts list and account changes, and its transactions desk. */
function consoleDesks(
  store: Store,
  holders: { accounts: AccountService; people: PeopleService },
  audit: AuditTrail,
  clock: () => Date,
) {
  return {
    accountsDesk: createAccountsDesk({ store, accounts: holders.accounts, people: holders.people, audit }),
    transactionsDesk: createTransactionsDesk({ store, clock }),
  };
}

/**
 * With CLI_MONEY_MOVES=proposals the CLI's live credits and debits become four-eyes
 * proposals on the desk; otherwise (direct) there are none and the CLI moves the money.
 */
function cliProposals(deps: CoreDeps, desk: Desk) {
  if (deps.cliMoneyMoves !== 'proposals')
    return { proposeCredit: undefined, proposeDebit: undefined, proposeAssign: undefined, proposeOwn: undefined };
  return {
    proposeOwn: async (own: OwnProposal) => {
      const what = own.kind === 'upstream_topup' ? `Top-up of ${own.target}` : `Settlement from ${own.target}`;
      const proposal = await desk.propose(
        { ...own, accountId: '', note: `${what} from the CLI, bank reference ${own.reference}`.slice(0, 500) },
        CLI_ACTOR,
      );
      return { proposalId: proposal.proposalId, replayed: proposal.replayed, status: proposal.status };
    },
    proposeAssign: async (inflowId: string, accountId: string) => {
      const proposal = await desk.propose(
        { kind: 'inflow_assign', accountId, target: inflowId, amountKobo: 0, note: 'Transfer assigned from the CLI' },
        CLI_ACTOR,
      );
      return { proposalId: proposal.proposalId, status: proposal.status };
    },
    proposeCredit: async (credit: ProposedMove) => {
      const proposal = await desk.propose(
        {
          kind: 'credit',
          accountId: credit.accountId,
          target: credit.accountId,
          amountKobo: credit.amountKobo,
          note: credit.text || 'Credit from the CLI',
          reference: credit.reference,
          memo: credit.text,
        },
        CLI_ACTOR,
      );
      return { proposalId: proposal.proposalId, replayed: proposal.replayed, status: proposal.status };
    },
    proposeDebit: async (debit: ProposedMove) => {
      const proposal = await desk.propose(
        {
          kind: 'debit',
          accountId: debit.accountId,
          target: debit.accountId,
          amountKobo: debit.amountKobo,
          note: debit.text,
          reference: debit.reference,
        },
        CLI_ACTOR,
      );
      return {
        proposalId: proposal.proposalId,
        replayed: proposal.replayed,
        status: proposal.status,
        warning: await desk.warningFor(proposal),
      };
    },
  };
}

/** The workers core/main.ts starts: the float poller (with upstreams), the funding sweeper, the recovery worker. */
function backgroundJobs(deps: CoreDeps, money: MoneyPath, funding: FundingService) {
  const { supplyDeps, clock } = money;
  const floatPoller =
    supplyDeps === undefined
      ? null
      : createFloatPoller({
          router: supplyDeps.router,
          health: supplyDeps.health,
          intervalMs: deps.floatPollMs ?? DEFAULT_FLOAT_POLL_MS,
          clock,
          log: deps.log,
          observer: deps.metrics?.supply,
          keep: (upstream, reading) => money.store.findings.keepReading(upstream, reading),
        });
  const fundingSweeper = createFundingSweeper({
    funding,
    store: money.store.funding,
    intervalMs: deps.funding?.sweepIntervalMs ?? 600_000,
    log: deps.log,
  });
  const worker = createRecoveryWorker(money.purchaseDeps, {
    intervalMs: deps.recoveryIntervalMs,
  });
  return { floatPoller, fundingSweeper, worker };
}

/** The core's stop: drain, then the calls, the workers, the queued work, the key uses and the mail, in that order. */
function lifecycle(
  parts: Pick<
    Core,
    | 'rpc'
    | 'worker'
    | 'fundingSweeper'
    | 'floatPoller'
    | 'deliveries'
    | 'background'
    | 'keyUses'
    | 'velocity'
    | 'lowBalanceMail'
    | 'walletMail'
    | 'mailer'
    | 'storeWatch'
    | 'backups'
    | 'clockWatch'
    | 'reconciliation'
  >,
  outbound: { poster: Poster; compatCallbacks: CompatCallbacks },
  onDrain: () => void,
): Pick<Core, 'drain' | 'shutdown' | 'forceShutdown'> {
  const { poster, compatCallbacks } = outbound;
  const { rpc, worker, fundingSweeper, floatPoller, deliveries, background, keyUses, lowBalanceMail, mailer } = parts;
  const { clockWatch } = parts;
  const drain = () => {
    onDrain();
    for (const name of ['', ...SERVICE_NAMES]) rpc.health.setStatus(name, 'NOT_SERVING');
    // Watchers have their NOT_SERVING; an open Watch stream would hold the stop until its bound.
    rpc.health.endWatches();
  };
  return {
    drain,
    async shutdown() {
      drain();
      // tryShutdown refuses new calls and lets calls in progress (purchases waiting on a
      // provider, at most PROVIDER_TIMEOUT_MS) finish: each ends settled, refunded or pending.
      await new Promise<void>((resolve) => rpc.server.tryShutdown(() => resolve()));
      await worker.stop();
      await fundingSweeper.stop();
      await floatPoller?.stop();
      await deliveries.stop();
      await compatCallbacks.stop();
      poster.close();
      await background.drain();
      await keyUses.stop();
      await parts.velocity.stop();
      await lowBalanceMail.stop();
      await parts.walletMail.stop();
      await clockWatch.stop();
      await mailer?.close();
      await parts.storeWatch.stop();
      await parts.backups.scheduled?.runner.stop();
      await parts.reconciliation.daily?.stop();
    },
    forceShutdown() {
      // A purchase cut off here stays pending in the store; the recovery worker of the next
      // start re-queries it, exactly as after a crash.
      rpc.server.forceShutdown();
    },
  };
}

/** The webhook delivery worker and its HTTP client, as CoreDeps.webhooks asks (defaults otherwise). */
function createDeliveries(
  deps: CoreDeps,
  clock: () => Date,
): { deliveries: DeliveryWorker; poster: Poster; allowPrivate: boolean } {
  const hooks = deps.webhooks ?? {};
  const allowPrivate = hooks.allowPrivate ?? false;
  const attemptTimeoutMs = hooks.timeoutMs ?? DELIVERY_TIMEOUT_MS;
  const perDestination = hooks.perDestination ?? DEFAULT_PER_DESTINATION;
  // Each account's connections to an origin: as many as its attempts in flight (the worker's bound).
  const poster =
    hooks.poster ?? createPoster({ allowPrivate, timeoutMs: attemptTimeoutMs, maxSockets: perDestination });
  const deliveries = createDeliveryWorker({
    events: deps.store.events,
    webhooks: deps.store.webhooks,
    poster,
    log: deps.log,
    clock,
    schedule: { ...DEFAULT_DELIVERY_SCHEDULE, baseMs: hooks.retryBaseMs ?? DEFAULT_DELIVERY_SCHEDULE.baseMs },
    concurrency: hooks.concurrency ?? DEFAULT_DELIVERY_CONCURRENCY,
    perDestination,
    attemptTimeoutMs,
    pollIntervalMs: hooks.pollIntervalMs ?? DEFAULT_DELIVERY_POLL_MS,
    ...(deps.metrics === undefined ? {} : { observe: deps.metrics.webhookDelivery }),
  });
  return { deliveries, poster, allowPrivate };
}

/**
 * The brake when the composition names none (a core built in a test): off. The process's config
 * (core/config.ts) turns it on by default, with these figures.
 */
const DEFAULT_VELOCITY: VelocitySettings = {
  enabled: false,
  windowMin: 10,
  factor: 5,
  newKeyWindowKobo: NEW_KEY_WINDOW_KOBO,
};
/** Who the brake is in a freeze's record and audit row. */
const VELOCITY_FREEZER = { by: 'velocity', actor: 'system', address: null };

/**
 * The store whose key freezes and unfreezes, which write key.frozen and key.unfrozen, are told
 * to the webhook worker at once, as the journal tells it of a money move's events.
 */
function tellingFreezes(store: Store, recorded: (destination: { accountId: string; mode: Mode }) => void): Store {
  const keys = {
    ...store.keys,
    freeze: async (...args: Parameters<Store['keys']['freeze']>) => {
      const done = await store.keys.freeze(...args);
      if (done?.changed) recorded(done.key);
      return done;
    },
    unfreeze: async (...args: Parameters<Store['keys']['unfreeze']>) => {
      const done = await store.keys.unfreeze(...args);
      if (done?.changed) recorded(done.key);
      return done;
    },
  };
  return { ...store, keys };
}
