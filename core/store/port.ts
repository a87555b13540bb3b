/**
 * The store port: the few intention-revealing operations the use cases need, one small
 * interface per aggregate. Each operation is atomic on its own; the transaction boundary
 * belongs to the adapter. The records they read and write are the domain's
 * (core/domain/records.ts). Every adapter must pass the shared conformance suite in
 * test/core/store/.
 */
import type { AccountListQuery } from '../domain/account-list.js';
import type { AuditOptions, LedgerAudit } from '../domain/audit.js';
import type { EntryKind, Posting } from '../domain/books.js';
import type { Dialect } from '../domain/compat.js';
import type { DeskTransactionQuery } from '../domain/desk-search.js';
import type { EventRecord, FundingFacts, NewEvent } from '../domain/events.js';
import type {
  FundingOpeningRecord,
  FundingProviderName,
  InflowCredit,
  InflowRecord,
  InflowStatus,
  NewFundingOpening,
  NewInflow,
  VirtualAccountRecord,
} from '../domain/funding.js';
import type { HolderMailKind } from '../domain/holder-mail.js';
import type { KeyControls } from '../domain/key-controls.js';
import type { AccountLevel, HoldRecord, Level, LevelLimits, LevelRequestRecord } from '../domain/levels.js';
import type { Mode } from '../domain/mode.js';
import type { Kobo } from '../domain/money.js';
import type { Page, PageRequest } from '../domain/paging.js';
import type { DeliveryResult, PlanType } from '../domain/products.js';
import type { RecipientControls } from '../domain/recipient-controls.js';
import type { BalanceReading, FindingKey } from '../domain/reconcile.js';
import type {
  AcceptInvitationResult,
  AccountRecord,
  AccountSuspension,
  ApiKeyRecord,
  AuditEntryRecord,
  CablePackageRecord,
  CatalogSeed,
  CompatCallbackRecord,
  CompatTokenRecord,
  CostRule,
  DaySpend,
  FindingResolution,
  InvitationRecord,
  LedgerEntryRecord,
  MemberRecord,
  MembershipRecord,
  NewTransaction,
  PasswordResetRecord,
  PendingSummary,
  PlanAliasRecord,
  PlanCodeRecord,
  PlanRecord,
  ReconcileFindingRecord,
  ReserveChecks,
  ReserveResult,
  RouteRecord,
  SessionRecord,
  SignUpRecord,
  TierRecord,
  TransactionQuery,
  TransactionRecord,
  UpgradeRequestRecord,
  UpstreamAnswerRecord,
  UpstreamAttemptRecord,
  UpstreamSettingsRecord,
  UserRecord,
} from '../domain/records.js';
import type { FundingDayRow, ManualDayRow, ReportGroup, SalesDayRow } from '../domain/reports.js';
import type { ProposalRecord, StaffMemberRecord, StaffRole, StaffSessionRecord } from '../domain/staff.js';
import type { KeyFreeze, KeyUnfreeze, VelocityDay } from '../domain/velocity.js';
import type { EventStore, WebhookStore } from './event-port.js';
import type { LedgerStore } from './moves.js';

export interface AccountStore {
  /**
   * Both wallets, live and test, start at zero. The operator makes it, so its owner's email
   * and phone count as proven at `createdAt` (an account signed up for is SignUpStore's).
   */
  create(
    account: Omit<AccountRecord, 'balanceKobo' | 'testBalanceKobo' | 'emailVerifiedAt' | 'phoneVerifiedAt'>,
  ): Promise<AccountRecord>;
  get(accountId: string): Promise<AccountRecord | null>;
  /**
   * The account with its tier (null when the tier does not exist), read at once: what every
   * API call reads first (core/purchases/service.ts). Null when the account does not exist.
   */
  getWithTier(accountId: string): Promise<{ account: AccountRecord; tier: TierRecord | null } | null>;
  /** Returns null when the account does not exist. */
  setTier(accountId: string, tierId: string): Promise<AccountRecord | null>;
  /**
   * The ids of the accounts on a tier greater than `afterId` ("" from the start), in id
   * order, at most `limit`: who a price change concerns, read a page at a time.
   */
  listIdsOnTier(tierId: string, afterId: string, limit: number): Promise<string[]>;
  /** Suspends (a suspension) or resumes (null) the account; null when it does not exist. */
  setSuspension(accountId: string, suspension: AccountSuspension | null): Promise<AccountRecord | null>;
  /**
   * The accounts whose name contains `fragment` literally, ignoring the case of ASCII letters at least, in id order,
   * at most `limit`. A bounded scan: no index serves a substring.
   */
  searchByName(fragment: string, limit: number): Promise<AccountRecord[]>;
  /**
   * The console's list: the accounts the filter keeps, sorted by the query's key (the account id
   * breaking ties, in the same direction), at most `limit`, after the cursor a previous page
   * answered. An unknown cursor throws InvalidCursorError.
   */
  list(query: AccountListQuery): Promise<Page<AccountRecord>>;
}

/** What names one cost rule: its product, service ('' for all) and upstream. */
export type CostRuleKey = Omit<CostRule, 'commissionBasisPoints'>;

/** A data plan type switched off on one network. */
export interface PlanTypeOff {
  network: string;
  type: PlanType;
}

/**
 * A change of the data plans partners see, written at once: the plans as they are now,
 * a plan type switched on or off, and the events that tell partners (plan.updated,
 * plan.disabled), each queued for delivery when its account's webhook for its mode is on.
 */
export interface PlanChangeSet {
  plans: readonly PlanRecord[];
  typeSwitch?: PlanTypeOff & { enabled: boolean };
  /** A tier whose price rules changed, written whole. */
  tier?: TierRecord;
  events: readonly NewEvent[];
}

export interface KeyStore {
  insert(key: ApiKeyRecord): Promise<void>;
  find(publicKey: string): Promise<ApiKeyRecord | null>;
  /** The keys whose public key starts with `prefix`, by public key, at most `limit` (the console's search). */
  findByPrefix(prefix: string, limit: number): Promise<ApiKeyRecord[]>;
  /** Newest first, revoked ones included, both modes. */
  listByAccount(accountId: string): Promise<ApiKeyRecord[]>;
  /** Returns null when the key does not exist. */
  revoke(publicKey: string): Promise<ApiKeyRecord | null>;
  /** Returns null when the key does not exist. */
  setAllowedIps(publicKey: string, ips: string[]): Promise<ApiKeyRecord | null>;
  /**
   * Rolls a key: inserts `next` and ends the old pair at `oldExpiresAt` (or earlier, if it
   * already ends sooner), in one transaction. Null, with nothing written, when the old key
   * does not exist.
   */
  roll(publicKey: string, next: ApiKeyRecord, oldExpiresAt: Date): Promise<ApiKeyRecord | null>;
  /** Replaces the key's controls; null takes them away (everything, no caps). Null when the key does not exist. */
  setControls(publicKey: string, controls: KeyControls | null): Promise<ApiKeyRecord | null>;
  /**
   * What each key's capped purchases have charged on Africa/Lagos day `day` (lagosDay),
   * refunds given back; a key with nothing counted that day is absent.
   */
  spentOn(publicKeys: readonly string[], day: number): Promise<Map<string, Kobo>>;
  /**
   * Freezes the key (core/domain/velocity.ts), and in the same transaction writes its
   * `key.frozen` event (in the key's mode) and the audit row (`key.freeze`). A key frozen
   * already keeps its first freeze and nothing is written (`changed` false). Null when the
   * key does not exist.
   */
  freeze(publicKey: string, freeze: KeyFreeze, who: KeyFreezeActor): Promise<KeyFreezeChange | null>;
  /** As freeze, the other way: the freeze taken off, `key.unfrozen` and `key.unfreeze` written with it. */
  unfreeze(publicKey: string, unfreeze: KeyUnfreeze, who: KeyFreezeActor): Promise<KeyFreezeChange | null>;
  /** The frozen keys, longest frozen first, at most `limit` (the console's attention queue). */
  listFrozen(limit: number): Promise<ApiKeyRecord[]>;
}

/** Who froze or unfroze a key, as the audit row names them. */
export interface KeyFreezeActor {
  /** The audit's actor: `system` (the velocity brake), `cli`, `staff:<email>`, `owner:<email>` (the developer area). */
  actor: string;
  address: string | null;
  note: string;
}

/** A key after a freeze or unfreeze, and whether that call changed it (false: it already was). */
export interface KeyFreezeChange {
  key: ApiKeyRecord;
  changed: boolean;
}

export interface CatalogStore {
  listTiers(): Promise<TierRecord[]>;
  getTier(tierId: string): Promise<TierRecord | null>;
  upsertTier(tier: TierRecord): Promise<TierRecord>;
  /** Ordered by network, then planId. */
  listPlans(filter?: { network?: string; activeOnly?: boolean }): Promise<PlanRecord[]>;
  getPlan(planId: number): Promise<PlanRecord | null>;
  /** planId 0 allocates the next free id. */
  upsertPlan(plan: PlanRecord): Promise<PlanRecord>;
  listCablePackages(filter?: { provider?: string }): Promise<CablePackageRecord[]>;
  getCablePackage(provider: string, packageCode: string): Promise<CablePackageRecord | null>;
  upsertCablePackage(pkg: CablePackageRecord): Promise<CablePackageRecord>;
  getSmsRateKobo(): Promise<Kobo>;
  setSmsRateKobo(kobo: Kobo): Promise<void>;
  /** The plan types switched off, per network. */
  listPlanTypesOff(): Promise<PlanTypeOff[]>;
  /** Writes a plan change set in one transaction (plans, switch and events together); returns the plans written. */
  applyPlanChanges(change: PlanChangeSet): Promise<PlanRecord[]>;
  /** The cost rules of the face-value products (airtime, electricity, cable), by product, service, upstream. */
  listCostRules(): Promise<CostRule[]>;
  /** Sets the rule for its product, service and upstream (replacing it), or removes it (null). */
  setCostRule(key: CostRuleKey, commissionBasisPoints: number | null): Promise<void>;
  /** Writes the default catalog once, the first time the store starts empty. Returns true if it seeded. */
  seedIfEmpty(seed: CatalogSeed): Promise<boolean>;
}

/**
 * What a wallet credit is told: whose wallet (account and mode), how much, and what the
 * ledger entry says. The reference is unique among the credits of one wallet (account and mode).
 */
export interface CreditInput {
  accountId: string;
  mode: Mode;
  amountKobo: Kobo;
  reference: string;
  memo: string;
  at: Date;
  /** A bank transfer's facts for the event; absent for an operator's credit. */
  funding?: FundingFacts | undefined;
  /** What of a bank transfer was held over the wallet's level limits (in no wallet yet); 0 when absent. */
  heldKobo?: Kobo | undefined;
}

/** What a credit did: the balance after it, its ledger entry, and whether it had been made before. */
export interface Credited {
  balanceKobo: Kobo;
  entry: LedgerEntryRecord;
  replayed: boolean;
}

/**
 * A manual debit: money the operator takes out of one wallet, with a required reason (kept as
 * the entry's memo and told in `wallet.debited`). The reference is unique among the account's
 * manual debits: a retry (a proposal applied again after a crash) writes nothing twice.
 */
export interface DebitInput {
  accountId: string;
  mode: Mode;
  amountKobo: Kobo;
  reference: string;
  reason: string;
  at: Date;
}

/** What a manual debit did; it never leaves a negative balance, so a short wallet refuses it. */
export type Debited =
  | { outcome: 'debited'; balanceKobo: Kobo; entry: LedgerEntryRecord; replayed: boolean }
  | { outcome: 'insufficient'; balanceKobo: Kobo }
  | { outcome: 'no_account' };

/** A state change of a purchase, and whether this call made it (false: it was already final). */
export interface Moved {
  transaction: TransactionRecord;
  changed: boolean;
}

/**
 * Wallets: one live and one test wallet per account, each with its own balance and its own
 * entries. Every guard holds per wallet (account and mode): no negative balance, balance =
 * sum of its entries, one debit and at most one refund per purchase, in the purchase's wallet.
 *
 * Every change of money a partner is told about writes its event (core/domain/events.ts) in
 * the same transaction: a credit, and each settle, refund or reversal that changed the
 * purchase (changed = true). A call that changed nothing writes no event.
 */
/**
 * The wallet's money operations. An adapter keeps them behind its one door (`Store.ledger`,
 * core/store/moves.ts): nothing outside the adapters calls them.
 */
export interface WalletMoney {
  /**
   * Adds money and writes a credit entry atomically. Null when the account does not exist.
   * A credit whose reference the account has credited before writes nothing and returns that
   * first entry, with the balance it left, as `replayed` (whatever its amount: the caller
   * compares). The check runs inside the transaction, behind a unique index.
   */
  credit(input: CreditInput): Promise<Credited | null>;
  /**
   * Takes money out and writes a `manual_debit` entry and the `wallet.debited` event (and
   * `wallet.low_balance` when it crosses the threshold) atomically, only if the wallet's
   * balance covers it. A reference the account has manually debited before writes nothing and
   * returns that first entry as `replayed` (whatever its amount: the caller compares).
   */
  debit(input: DebitInput): Promise<Debited>;
  /**
   * Phase one of a purchase, atomically: if the idempotency key is new in the account's
   * `tx.mode` and that wallet's balance covers the charge, debit it, write the debit entry
   * and the pending transaction. With `first`, the purchase's first upstream attempt (seq 1,
   * started at `tx.createdAt`) is written in the same transaction, only when it reserved: the
   * attempt is on disk before the call, with no commit of its own.
   * With `checks.cappedKey`, that key's caps are read and its day's spend counted in the
   * same transaction (`key_cap` when they refuse); a refund or reversal gives the charge
   * back to the day it was counted on.
   */
  reserve(tx: NewTransaction, first?: FirstAttempt, checks?: ReserveChecks): Promise<ReserveResult>;
  /**
   * pending -> success with the provider's result. A transaction not pending is returned unchanged.
   * With `attempt`, that upstream attempt's outcome is written in the same transaction, whether
   * or not the purchase moved (as SupplyStore.endAttempt: one ended already is left as it is).
   * `answers`: the upstream's answers that led here, kept in the same transaction
   * (SupplyStore.answersOf; one equal to the last kept is not kept again).
   */
  settle(
    reference: string,
    result: DeliveryResult,
    at: Date,
    attempt?: AttemptEnd,
    answers?: readonly NewUpstreamAnswer[],
  ): Promise<Moved | null>;
  /**
   * pending -> failed and a refund entry of the full charge, exactly once, atomically.
   * A transaction not pending is returned unchanged (changed = false). `attempt` as in settle.
   */
  refund(
    reference: string,
    reason: string,
    at: Date,
    attempt?: AttemptEnd,
    answers?: readonly NewUpstreamAnswer[],
  ): Promise<Moved | null>;
  /**
   * success -> reversed and a refund entry of the full charge, exactly once, atomically: the
   * provider undid a delivered purchase. Any other state is returned unchanged (changed = false).
   */
  reverse(reference: string, reason: string, at: Date): Promise<Moved | null>;
}

/** Wallets as the rest of the core reads them, and a pending purchase's recovery bookkeeping. */
export interface WalletStore {
  /**
   * Records a recovery attempt on a pending transaction; no effect on other states, nor
   * when the transaction already counts more attempts (a later claim by another core).
   * `attempt` as in settle: the upstream attempt's outcome, in the same transaction.
   */
  recordAttempt(
    reference: string,
    next: AttemptRecord,
    attempt?: AttemptEnd,
    answers?: readonly NewUpstreamAnswer[],
  ): Promise<void>;
  /**
   * Claims a due pending transaction for one re-query, atomically: only if it is still
   * pending, due by `claim.dueBy` and at `claim.attempts` attempts, its attempts go up by one
   * and its nextAttemptAt moves to `claim.leaseUntil`, so no other core (whose claim then
   * matches nothing) queries it until the lease ends. Returns the claimed transaction, or
   * null when another core got there first or it is no longer pending or due.
   */
  claimAttempt(reference: string, claim: AttemptClaim): Promise<TransactionRecord | null>;
  /** One wallet's entries, newest first. */
  listLedger(accountId: string, mode: Mode, page: PageRequest): Promise<Page<LedgerEntryRecord>>;
  /**
   * The entries one purchase wrote in one wallet (its debit, and its refund once failed or
   * reversed), oldest first; none for a reference of another account or mode. Credits are
   * not purchases and are never returned.
   */
  ledgerOf(accountId: string, mode: Mode, reference: string): Promise<LedgerEntryRecord[]>;
  /**
   * Checks every wallet against its ledger: balance = sum of entries, running balances,
   * nothing negative, one debit of the charge per purchase, exactly one refund of the charge
   * for every failed or reversed purchase and none for any other. Reads only, from one
   * snapshot, and never holds up the money operations while it reads.
   */
  audit(options?: AuditOptions): Promise<LedgerAudit>;
}

/** The first upstream a purchase is sent to, written with its reserve. */
export interface FirstAttempt {
  upstream: string;
}

/** An upstream's answer to keep with a write about its purchase (the store adds reference, n and time). */
export type NewUpstreamAnswer = Pick<UpstreamAnswerRecord, 'upstream' | 'source' | 'body'>;

/**
 * What came of one upstream attempt, written with the money operation that follows the call.
 * `upstreamReference` is written when given (absent or null keeps what the attempt has).
 */
export interface AttemptEnd
  extends Pick<UpstreamAttemptRecord, 'outcome' | 'evidence' | 'costKobo'>,
    Partial<Pick<UpstreamAttemptRecord, 'upstreamReference'>> {
  seq: number;
}

/** What a claim of a due transaction expects of it, and the lease it takes. */
export interface AttemptClaim {
  /** The transaction must be due by then (nextAttemptAt <= dueBy). */
  dueBy: Date;
  /** The attempts the claimer saw when it listed the transaction. */
  attempts: number;
  leaseUntil: Date;
  at: Date;
}

/** What the recovery worker writes after a re-query that left a purchase pending. */
export interface AttemptRecord {
  attempts: number;
  nextAttemptAt: Date;
  needsAttention: boolean;
  at: Date;
}

export interface TransactionStore {
  get(reference: string): Promise<TransactionRecord | null>;
  /**
   * The account's purchase in `mode` made with this idempotency key (its `requestId`), or
   * null: the compatible endpoints' re-query by the client's own key. Served by the unique
   * (account, mode, request_id) index both adapters keep for idempotency.
   */
  getByRequestId(accountId: string, mode: Mode, requestId: string): Promise<TransactionRecord | null>;
  /**
   * The account's purchases in one mode, newest first. A bulk SMS comes with
   * `details.recipientCount` instead of `details.recipients`: a page of 100 rows of SMS to
   * 10,000 numbers each would otherwise read 14 MB to show 100 counts (pages of
   * SMS to 100 numbers cost 3.7 to 4.6 times a page of airtime in the store).
   */
  listByAccount(accountId: string, mode: Mode, page: PageRequest): Promise<Page<TransactionRecord>>;
  /** Pending transactions whose nextAttemptAt <= now, oldest first, at most `limit`. */
  listDuePending(now: Date, limit: number): Promise<TransactionRecord[]>;
  /** Every pending transaction (or only those flagged for a person), oldest first. */
  listPending(filter: { needsAttentionOnly: boolean }, page: PageRequest): Promise<Page<TransactionRecord>>;
  /**
   * How many transactions are pending and when the oldest was made, in one cheap read
   * (served by the pending-by-age index), for the metrics a scrape collects.
   */
  pendingSummary(): Promise<PendingSummary>;
}

/** What may change on a person; fields left out stay as they are. */
export type UserChange = Partial<
  Pick<UserRecord, 'totpSecret' | 'totpPendingSecret' | 'passwordHash' | 'recoveryCodeHashes'>
>;

/**
 * The people of the developer area: persons (email, password, two-step sign-in), their
 * memberships of accounts (role, disabled), invitations and sessions.
 */
export interface PeopleStore {
  insertInvitation(invitation: InvitationRecord): Promise<void>;
  findInvitation(tokenHash: string): Promise<InvitationRecord | null>;
  /** An account's invitations neither used, revoked nor expired at `at`, oldest first. */
  listOpenInvitations(accountId: string, at: Date): Promise<InvitationRecord[]>;
  /** Revokes the account's open invitations of `email` (as of `at`); returns how many. */
  revokeInvitations(accountId: string, email: string, at: Date): Promise<number>;
  /**
   * Atomically: if the invitation exists and is unused, unrevoked and unexpired at `at`
   * (default `user.createdAt`), marks it used and gives `user` a membership of its account
   * with its role, active (a disabled membership is enabled again with the new role). `user`
   * is either new (no person has its email: it is inserted) or the person who has the email
   * (same userId: nothing of the person changes). Another person's email is 'email_taken'.
   * Single use even under races.
   */
  acceptInvitation(tokenHash: string, user: UserRecord, at?: Date): Promise<AcceptInvitationResult>;
  getUser(userId: string): Promise<UserRecord | null>;
  /** By lower-case email. */
  findUserByEmail(email: string): Promise<UserRecord | null>;
  /** The account's members, oldest membership first, disabled ones included. */
  listMembers(accountId: string): Promise<MemberRecord[]>;
  /** A person's memberships, oldest first, disabled ones included. */
  listMemberships(userId: string): Promise<MembershipRecord[]>;
  getMembership(userId: string, accountId: string): Promise<MembershipRecord | null>;
  /** Disables (or enables) one membership; null when there is none. */
  setMembershipDisabled(userId: string, accountId: string, disabled: boolean): Promise<MembershipRecord | null>;
  /** Null when the user does not exist. */
  updateUser(userId: string, change: UserChange): Promise<UserRecord | null>;
  /**
   * Records that a TOTP code of time step `step` was accepted, only if `step` is later than
   * the last one recorded: true when recorded, false when that step (or a later one) was
   * used already. Atomic, so one code cannot be accepted twice, even by two cores at once.
   */
  claimTotpStep(userId: string, step: number): Promise<boolean>;
  /**
   * Removes `codeHash` from the user's recovery codes if it is there: true when this call
   * removed it. Atomic, so one recovery code works once, even for two cores at once.
   */
  useRecoveryCode(userId: string, codeHash: string): Promise<boolean>;
  insertSession(session: SessionRecord): Promise<void>;
  findSession(tokenHash: string): Promise<SessionRecord | null>;
  /** Moves lastSeenAt forward (never back). Null when the session is gone. */
  touchSession(tokenHash: string, at: Date): Promise<SessionRecord | null>;
  /** Moves a session to another account (the account switcher); null when the session is gone. */
  setSessionAccount(tokenHash: string, accountId: string): Promise<SessionRecord | null>;
  /** True when this call deleted it (so a challenge is used once). */
  deleteSession(tokenHash: string): Promise<boolean>;
  /**
   * Ends every session of a person (password or two-step sign-in changed), or with
   * `accountId` only those acting for that account (a membership disabled); returns how many.
   */
  deleteUserSessions(userId: string, accountId?: string): Promise<number>;
  /** Removes sessions and challenges whose absolute expiry or idle limit passed; returns how many. */
  deleteExpiredSessions(absoluteBefore: Date, idleBefore: Date): Promise<number>;
}

/** The holder's reads of one wallet's purchases (account and mode): filtered history and spend. */
export interface HistoryStore {
  /** The wallet's transactions matching `query`, newest first, paged like listByAccount. */
  search(accountId: string, mode: Mode, query: TransactionQuery, page: PageRequest): Promise<Page<TransactionRecord>>;
  /**
   * Charges of the wallet's purchases made in [from, until) that were not refunded (pending
   * and success), summed per day and product; a day is `floor((createdAt + offsetMs) / 1 day)`.
   */
  spendByDay(accountId: string, mode: Mode, from: Date, until: Date, offsetMs: number): Promise<DaySpend[]>;
  /** How many of the wallet's purchases are pending. */
  pendingCount(accountId: string, mode: Mode): Promise<number>;
  /**
   * The console's transactions desk: live purchases made in [from, until), of every account or
   * of one, matching the query's filters (an upstream: any attempt sent there), newest first,
   * paged like listByAccount.
   */
  searchDesk(query: DeskTransactionQuery, page: PageRequest): Promise<Page<TransactionRecord>>;
}

/**
 * When each key pair last authenticated a request, kept apart from the keys so that the
 * key check stays a read. The core writes it in batches from memory (core/accounts/key-use.ts).
 */
export interface KeyUseStore {
  /**
   * Moves each key's last use forward to its time (never back: an older time than the one
   * stored changes nothing), all keys in one write. Keys never used have no row.
   */
  recordUses(uses: ReadonlyMap<string, Date>): Promise<void>;
  /** The last use of each of these keys that has one; keys never used are absent. */
  lastUses(publicKeys: readonly string[]): Promise<Map<string, Date>>;
  /**
   * Adds to each key's Lagos day what the velocity brake counted (core/accounts/velocity.ts):
   * the spending added, the day's peak of new recipients in one window moved up (never
   * down), all in one write; several cores writing the same day add up.
   */
  recordVelocity(days: readonly VelocityDayDelta[]): Promise<void>;
  /** The key's days from `fromDay` to before `toDay` that have a row, in day order. */
  velocityDays(publicKey: string, fromDay: number, toDay: number): Promise<VelocityDay[]>;
}

/** What one core counted of one key on one Lagos day since its last write. */
export interface VelocityDayDelta {
  publicKey: string;
  day: number;
  addKobo: Kobo;
  peakNewRecipients: number;
}

/** One blocked recipient: the platform's (accountId '') or an account's. */
export interface RecipientBlock {
  accountId: string;
  value: string;
  reason: string;
  /** `staff:<email>`, `cli` or `owner:<email>`. */
  by: string;
  at: Date;
}

/**
 * Recipient controls (core/domain/recipient-controls.ts): the blocklists and each account's
 * limits. The reserve checks them (ReserveChecks.recipient) in its own transaction.
 */
export interface RecipientStore {
  /**
   * Blocks `value` for the account ('' for the platform), replacing an earlier block's reason;
   * an account's first block also marks its controls (`blocklist`), in the same transaction.
   */
  block(block: RecipientBlock): Promise<void>;
  /** True when there was such a block. */
  unblock(accountId: string, value: string): Promise<boolean>;
  /** The account's (or the platform's, '') blocks, newest first, at most `limit`. */
  listBlocks(accountId: string, limit: number): Promise<RecipientBlock[]>;
  /** Every value the platform blocks, at most `limit` (kept in memory by the purchase path). */
  platformValues(limit: number): Promise<string[]>;
  /** Replaces the account's limits, keeping its blocklist mark; null when the account does not exist. */
  setLimits(
    accountId: string,
    limits: Pick<RecipientControls, 'perDayCount' | 'perDayKobo' | 'duplicateGuard'>,
  ): Promise<AccountRecord | null>;
}

/** What recording an inflow did: the row for its (provider, reference), and whether this call wrote it. */
export interface RecordedInflow {
  inflow: InflowRecord;
  created: boolean;
}

export type CreditInflowResult =
  /**
   * Credited now: the wallet, its ledger entry, the event and the inflow's status, in one transaction;
   * `heldKobo` of it, over the wallet's level limits, held instead (docs/kyc.md).
   */
  | { outcome: 'credited'; inflow: InflowRecord; balanceKobo: Kobo; heldKobo: Kobo }
  /** Credited before (by another notification, the sweeper or a person): nothing written. */
  | { outcome: 'already_credited'; inflow: InflowRecord }
  /** Not in the status the caller expected (rejected, or not unmatched for an assignment): nothing written. */
  | { outcome: 'wrong_status'; inflow: InflowRecord }
  | { outcome: 'not_found' }
  /** The account to credit does not exist: nothing written. */
  | { outcome: 'no_account' };

/**
 * Money in: the virtual accounts each wallet was given and the transfers into them. Every
 * inflow is one row per (provider, provider reference) under a unique constraint; crediting
 * one moves it to `credited` in the same transaction as the wallet's credit, its ledger entry
 * and its `wallet.credited` event, so it is credited at most once whoever asks and however often.
 */
export interface FundingStore {
  /** Inserts a virtual account, or replaces the one with the same (provider, account number). */
  saveVirtualAccount(account: VirtualAccountRecord): Promise<void>;
  /** One wallet's virtual accounts, oldest first, closed ones included. */
  listVirtualAccounts(accountId: string, mode: Mode): Promise<VirtualAccountRecord[]>;
  findVirtualAccount(provider: FundingProviderName, accountNumber: string): Promise<VirtualAccountRecord | null>;
  /** Every provider's active virtual accounts, oldest first, at most `limit` (the sweeper's list). */
  listActiveVirtualAccounts(limit: number): Promise<VirtualAccountRecord[]>;
  /** Marks it closed; null when it does not exist. */
  closeVirtualAccount(provider: FundingProviderName, accountNumber: string): Promise<VirtualAccountRecord | null>;
  getInflow(inflowId: string): Promise<InflowRecord | null>;
  findInflow(provider: FundingProviderName, providerReference: string): Promise<InflowRecord | null>;
  /**
   * An unmatched inflow's reason replaced by one found again (its account assigned since, for example); any
   * other status is returned unchanged. Null when missing.
   */
  reconsiderInflow(inflowId: string, reason: string, at: Date): Promise<InflowRecord | null>;
  /** Inflows in one status, oldest first, at most `limit`. */
  listInflows(status: InflowStatus, limit: number): Promise<InflowRecord[]>;
  /** One wallet's inflows, newest first, at most `limit`. */
  listAccountInflows(accountId: string, mode: Mode, limit: number): Promise<InflowRecord[]>;
  /**
   * Keeps an opening the provider answers later, as `pending`: inserted, or replacing the one of
   * the same (provider, customer) unless that one is being opened right now (`opening`).
   */
  saveOpening(opening: NewFundingOpening): Promise<void>;
  getOpening(provider: FundingProviderName, customerRef: string): Promise<FundingOpeningRecord | null>;
  /**
   * Claims the opening for the one caller that may open its account, atomically across
   * processes sharing the store: a `pending` opening (inserted from `fallback` when there is
   * none), or an `opening` one claimed before `staleBefore` (its claimer died), becomes
   * `opening` at `at` and is returned; null for everyone else and once it is `opened`.
   */
  claimOpening(fallback: NewFundingOpening, at: Date, staleBefore: Date): Promise<FundingOpeningRecord | null>;
  /** `opening` -> `opened` (its account is saved) or back to `pending` (released after a failure). */
  finishOpening(
    provider: FundingProviderName,
    customerRef: string,
    status: 'opened' | 'pending',
    at: Date,
  ): Promise<void>;
  /** Sets (or, with null, removes) a wallet's low-balance threshold; false when the account does not exist. */
  setLowBalanceThreshold(accountId: string, mode: Mode, thresholdKobo: Kobo | null): Promise<boolean>;
  getLowBalanceThreshold(accountId: string, mode: Mode): Promise<Kobo | null>;
}

/** Money in: the inflows' money operations, kept by an adapter behind its one door (core/store/moves.ts). */
export interface FundingMoney {
  /**
   * Inserts the inflow unless one with its (provider, provider reference) exists; either way
   * returns the row that is there, and whether this call wrote it. Atomic under races.
   */
  recordInflow(inflow: NewInflow): Promise<RecordedInflow>;
  /**
   * Credits the inflow, only if its status is `from`: sets its wallet and fee, adds its
   * amount paid less the fee to that wallet with a credit entry (reference: the inflow id)
   * and writes `wallet.credited` with the transfer's facts, all in one transaction.
   */
  creditInflow(inflowId: string, credit: InflowCredit, from: 'verified' | 'unmatched'): Promise<CreditInflowResult>;
  /**
   * recordInflow, then, only when this call wrote the row and wrote it `verified` (to a
   * wallet), creditInflow of it from `verified`, with the row's wallet and mode: a new
   * notification's two writes in one transaction where the store can (SQLite: the credit in a
   * savepoint, so a credit that fails leaves the verified row for the sweeper), in two steps
   * where it cannot (MongoDB). `credit` is null when no credit was tried, or when SQLite's
   * credit failed on anything but a missing wallet: the row stays verified, and the caller
   * credits it with creditInflow as it would have.
   */
  recordAndCreditInflow(
    inflow: NewInflow,
    credit: { feeKobo: Kobo; at: Date },
  ): Promise<RecordedInflow & { credit: CreditInflowResult | null }>;
  /** verified or unmatched -> rejected with the reason; any other status is returned unchanged. Null when missing. */
  rejectInflow(inflowId: string, reason: string, at: Date): Promise<InflowRecord | null>;
}

/** Requests for API access (core/people/upgrades.ts): one per account. */
export interface UpgradeStore {
  /**
   * Files a request, or returns the account's open one unchanged: a pending or approved
   * request stays as it is, a refused one is replaced by the new request.
   */
  open(request: { accountId: string; requestedBy: string; note: string; at: Date }): Promise<UpgradeRequestRecord>;
  get(accountId: string): Promise<UpgradeRequestRecord | null>;
  /** Pending requests, oldest first, at most `limit`. */
  listPending(limit: number): Promise<UpgradeRequestRecord[]>;
  /** pending -> approved or refused, atomically; null when there is no pending request. */
  decide(accountId: string, status: 'approved' | 'refused', at: Date): Promise<UpgradeRequestRecord | null>;
  /**
   * Marks the approved request's first key as issued, atomically, once: true for the one
   * caller that may issue it, false for everyone after (and when nothing was approved).
   */
  claimFirstKey(accountId: string, at: Date): Promise<boolean>;
}

/** Who decided something about an account's level, for the audit row written with it. */
export interface LevelDecision {
  actor: string;
  address: string | null;
  note: string;
  at: Date;
}

/** What a level change did (the `level_change` move): the level before, after, the request decided, what was released. */
export type LevelChanged =
  | {
      outcome: 'changed';
      before: Level;
      level: AccountLevel;
      request: LevelRequestRecord | null;
      released: HoldRecord[];
    }
  | { outcome: 'no_account' };

/**
 * Identity levels (docs/kyc.md): each level's limits, an account's level, the holders' requests
 * for the next one and the credits held over the limits. A level change moves money (what it
 * releases) and is the `level_change` move of the one door; a refusal moves none.
 */
export interface KycStore {
  levels(): Promise<LevelLimits[]>;
  /** Sets a level's limits with its audit row in one transaction; null for a level that does not exist. */
  setLimits(
    limits: LevelLimits,
    audit: Omit<AuditEntryRecord, 'id' | 'action' | 'target' | 'before' | 'after'>,
  ): Promise<LevelLimits | null>;
  levelOf(accountId: string): Promise<AccountLevel | null>;
  /** Files a request unless the account has one open; either way the open request, and whether this call filed it. */
  openRequest(request: LevelRequestRecord): Promise<{ opened: boolean; request: LevelRequestRecord }>;
  /** One account's requests, newest first, at most `limit`. */
  requestsOf(accountId: string, limit: number): Promise<LevelRequestRecord[]>;
  /** Every open request, oldest first, at most `limit`. */
  pendingRequests(limit: number): Promise<LevelRequestRecord[]>;
  /** The account's open request refused, with its audit row; null when none is open. */
  refuse(accountId: string, decision: LevelDecision): Promise<LevelRequestRecord | null>;
  /** One account's held credits (held and released), newest first. */
  holdsOf(accountId: string, limit: number): Promise<HoldRecord[]>;
  /** Every credit still held, oldest first (the console's attention queue). */
  heldCredits(limit: number): Promise<HoldRecord[]>;
}

/** Which audit rows a list returns; every field narrows it. */
interface AuditFilter {
  actor?: string;
  /** An exact action (`wallet.credit`) or an area with a dot (`wallet.`). */
  action?: string;
  target?: string;
  /** Only rows older than this id (the next page). */
  beforeId?: string;
  limit: number;
}

/** The audit log: append-only, newest first when read. */
export interface AuditLogStore {
  append(entry: Omit<AuditEntryRecord, 'id'>): Promise<AuditEntryRecord>;
  list(filter: AuditFilter): Promise<AuditEntryRecord[]>;
}

/** The platform's staff (the console): members, their set-up and their sessions. */
export interface StaffStore {
  /** False (and nothing written) when a member already has the email. */
  insertMember(member: StaffMemberRecord): Promise<boolean>;
  getMember(staffId: string): Promise<StaffMemberRecord | null>;
  /** By lower-case email. */
  findMemberByEmail(email: string): Promise<StaffMemberRecord | null>;
  /** The member whose unused set-up token has this hash. */
  findMemberBySetup(tokenHash: string): Promise<StaffMemberRecord | null>;
  /** Oldest first, disabled ones included. */
  listMembers(): Promise<StaffMemberRecord[]>;
  /**
   * Atomically: if a member's set-up token has this hash and expires after `at`, sets the
   * password hash, records the TOTP step the set-up code used, clears the token and moves
   * powersSince to `at`. Null otherwise.
   */
  completeSetup(tokenHash: string, passwordHash: string, totpStep: number, at: Date): Promise<StaffMemberRecord | null>;
  /** Null when the member does not exist. */
  setDisabled(staffId: string, disabled: boolean): Promise<StaffMemberRecord | null>;
  /** Sets the role, who set it and powersSince (`at`). Null when the member does not exist. */
  setRole(staffId: string, role: StaffRole, by: string, at: Date): Promise<StaffMemberRecord | null>;
  /** Like PeopleStore.claimTotpStep: true only when `step` is later than the last accepted. */
  claimTotpStep(staffId: string, step: number): Promise<boolean>;
  insertSession(session: StaffSessionRecord): Promise<void>;
  findSession(tokenHash: string): Promise<StaffSessionRecord | null>;
  /** Moves lastSeenAt forward (never back). Null when the session is gone. */
  touchSession(tokenHash: string, at: Date): Promise<StaffSessionRecord | null>;
  deleteSession(tokenHash: string): Promise<boolean>;
  /** Ends every session of a member; returns how many. */
  deleteMemberSessions(staffId: string): Promise<number>;
}

/** Four-eyes proposals of money moves (core/staff/proposals.ts). */
export interface ProposalStore {
  /**
   * Writes a new proposal and returns it; when one of the same account and kind already has
   * its non-empty reference, writes nothing and returns that earlier one as it is.
   */
  insert(proposal: ProposalRecord): Promise<ProposalRecord>;
  get(proposalId: string): Promise<ProposalRecord | null>;
  /** Pending proposals not expired at `now`, oldest first, at most `limit`. */
  listOpen(now: Date, limit: number): Promise<ProposalRecord[]>;
  /**
   * pending -> approved or refused, atomically, only if it expires after `at` and, for an
   * approval, `by` is not who proposed it. Null when nothing matched.
   */
  decide(proposalId: string, status: 'approved' | 'refused', by: string, at: Date): Promise<ProposalRecord | null>;
  /** Records that an approved proposal's move was made; once (true for the first caller). */
  markApplied(proposalId: string, at: Date): Promise<boolean>;
}

/** Password reset links (core/people/resets.ts), kept as hashes. */
export interface PasswordResetStore {
  /** Records a new link; links that ended more than a day before `reset.createdAt` are removed. */
  insert(reset: PasswordResetRecord): Promise<void>;
  find(tokenHash: string): Promise<PasswordResetRecord | null>;
  /**
   * Uses the link once: when it is unused and `at` is before its end, marks it used, and every
   * other open link of the same person with it (a new password makes them pointless). The link
   * as it was before, or null when it is unknown, used or expired (nothing is written then).
   */
  claim(tokenHash: string, at: Date): Promise<PasswordResetRecord | null>;
}

/** What a new sign-up writes: the person, their account on a tier, and how they signed up. */
export interface NewSignUp {
  user: UserRecord;
  account: Pick<AccountRecord, 'accountId' | 'name' | 'tierId' | 'createdAt'>;
  signUp: SignUpRecord;
}

/** One Lagos day of sign-ups and how far each has come since (the funnel; counted by the day it signed up). */
export interface SignUpDayRow {
  /** Lagos day number (core/domain/people.ts, lagosDay). */
  day: number;
  signedUp: number;
  emailVerified: number;
  phoneVerified: number;
  /** Its live wallet was credited at least once. */
  funded: number;
  /** It has a delivered live purchase. */
  purchased: number;
  /** It is at identity level 2 or above now. */
  level2: number;
  /** It is on a tier with API access now. */
  apiTier: number;
}

/**
 * Accounts their owners signed up for (core/people/sign-up.ts, verification.ts). The account's
 * own email_verified_at and phone_verified_at are set here, each with the step that proves it.
 */
export interface SignUpStore {
  /**
   * The person, the account (both wallets at zero, nothing proven), its owner membership and
   * the sign-up, in one transaction; `email_taken` (nothing written) when the email is a person's.
   */
  create(signUp: NewSignUp): Promise<'created' | 'email_taken'>;
  get(accountId: string): Promise<SignUpRecord | null>;
  /** Sign-ups from one address key since `since` whose account has not proven both email and phone. */
  unverifiedFrom(addressKey: string, since: Date): Promise<number>;
  /** Replaces the account's email link (a resend); false when the account did not sign up. */
  setEmailLink(accountId: string, tokenHash: string, expiresAt: Date): Promise<boolean>;
  /**
   * Uses an email link once: when it is open at `at`, clears it and sets the account's
   * email_verified_at (kept if set before) in one transaction. The account after, or null.
   */
  claimEmailLink(tokenHash: string, at: Date): Promise<AccountRecord | null>;
  /**
   * A new phone code: its hash, its end, no wrong tries; counts the send in `day` (a send on a
   * new day starts the count at one). False when the account did not sign up.
   */
  setPhoneCode(accountId: string, code: { hash: string; expiresAt: Date; sentAt: Date; day: number }): Promise<boolean>;
  /** One wrong try of the waiting code, counted atomically; the tries after it. */
  phoneCodeMissed(accountId: string): Promise<number>;
  /**
   * The right code: when `codeHash` is still the waiting one with tries left, clears it and sets
   * the account's phone_verified_at, in one transaction. The account after, or null.
   */
  claimPhoneCode(accountId: string, codeHash: string, maxTries: number, at: Date): Promise<AccountRecord | null>;
  /** The funnel per Lagos day of sign-up, days `fromDay` to `toDay` inclusive, days without sign-ups left out. */
  funnel(fromDay: number, toDay: number): Promise<SignUpDayRow[]>;
}

/** What the mail notices read and remember (core/mail/). */
export interface NoticeStore {
  /** Live `wallet.low_balance` events created at or after `since`, oldest first, at most `limit`. */
  lowBalanceSince(since: Date, limit: number): Promise<EventRecord[]>;
  /**
   * Live `wallet.credited` and `wallet.debited` events created at or after `since`, oldest first,
   * at most `limit`: written by the money move in its own transaction, the outbox of their mails.
   */
  walletMoneySince(since: Date, limit: number): Promise<EventRecord[]>;
  /** The holder mails each of these people turned off (core/domain/holder-mail.ts); a person with none is absent. */
  mailOptOuts(userIds: readonly string[]): Promise<Map<string, HolderMailKind[]>>;
  /** A person's holder mails turned off, in place of what they were; an empty list turns every one on. */
  setMailOptOuts(userId: string, off: readonly HolderMailKind[], at: Date): Promise<void>;
  /** True the first time a key is claimed, false ever after: a notice is mailed once, by one core. */
  claimOnce(key: string, at: Date): Promise<boolean>;
}

/** Where a route applies: a product, and "" or a value for each narrower key. */
export type RouteKey = Pick<RouteRecord, 'product' | 'network' | 'planType' | 'disco'>;

/**
 * Supply: the upstream attempts of each purchase, the route table and each
 * upstream's settings. An attempt is written before its call and ended once; nothing here
 * moves money.
 */
export interface SupplyStore {
  /** Records that an upstream is about to be called for a purchase; false (nothing written) when that seq exists. */
  beginAttempt(attempt: { reference: string; seq: number; upstream: string; at: Date }): Promise<boolean>;
  /** What came of an attempt; one ended already is left as it is. */
  endAttempt(
    reference: string,
    seq: number,
    end: Pick<UpstreamAttemptRecord, 'outcome' | 'evidence' | 'costKobo'> & {
      at: Date;
      answers?: readonly NewUpstreamAnswer[];
    },
  ): Promise<void>;
  /** A purchase's attempts, in order; none for a purchase made before upstreams were recorded. */
  attemptsOf(reference: string): Promise<UpstreamAttemptRecord[]>;
  /** A purchase's kept upstream answers, in the order written (at most RAW_ANSWERS_PER_PURCHASE). */
  answersOf(reference: string): Promise<UpstreamAnswerRecord[]>;
  /** Attempts started in [from, to), oldest first, at most `limit`. */
  attemptsBetween(from: Date, to: Date, limit: number): Promise<UpstreamAttemptRecord[]>;
  /** Every route, by product then key. */
  listRoutes(): Promise<RouteRecord[]>;
  /** Sets one route; returns the row it replaced (null: none). */
  setRoute(route: RouteRecord): Promise<RouteRecord | null>;
  /** Removes one route; returns the row removed (null: there was none). */
  clearRoute(key: RouteKey): Promise<RouteRecord | null>;
  listUpstreamSettings(): Promise<UpstreamSettingsRecord[]>;
  /** Sets one upstream's settings; returns the row it replaced (null: none). */
  setUpstreamSettings(settings: UpstreamSettingsRecord): Promise<UpstreamSettingsRecord | null>;
}

/** An attempt marked delivered later, and its cost booked: a money operation behind the one door. */
export interface SupplyMoney {
  /**
   * An attempt whose answer was not certain (pending, or never recorded) that a re-query or a
   * callback later found delivered: marks it delivered with the cost the upstream stated (null:
   * none). An attempt with any other outcome is left as it is; true when it changed.
   */
  deliveredLater(reference: string, seq: number, costKobo: Kobo | null, at: Date): Promise<boolean>;
}

/** Each declared upstream's code for our data plans. */
export interface PlanCodeStore {
  /** Every code, by upstream then plan id; only one upstream's when it is given. */
  list(filter: { upstream?: string }): Promise<PlanCodeRecord[]>;
  /** Sets one plan's code at one upstream; returns the row it replaced (null: none). */
  set(record: PlanCodeRecord): Promise<PlanCodeRecord | null>;
  /** Removes one plan's code at one upstream; returns the row removed (null: there was none). */
  clear(planId: number, upstream: string): Promise<PlanCodeRecord | null>;
}

/**
 * Compatible tokens and plan aliases (docs/compat.md). A token is found by its hash (a unique
 * index), never by scanning; nothing here moves money.
 */
export interface CompatStore {
  /** Keeps a new token; its hash and id are unique. */
  insertToken(record: CompatTokenRecord): Promise<void>;
  /** The token with this hash, revoked or not; null when there is none. */
  findToken(tokenHash: string): Promise<CompatTokenRecord | null>;
  /** The token with this id; null when there is none. */
  getToken(tokenId: string): Promise<CompatTokenRecord | null>;
  /** An account's tokens, newest first. */
  listTokens(accountId: string): Promise<CompatTokenRecord[]>;
  /** Revokes a token not yet revoked; returns it revoked, or null when there is none to revoke. */
  revokeToken(tokenId: string, at: Date): Promise<CompatTokenRecord | null>;
  /** Sets one alias; returns the row it replaced (null: none). */
  setAlias(record: PlanAliasRecord): Promise<PlanAliasRecord | null>;
  /** Removes one alias, or every alias of the account in the dialect when `aliasId` is undefined; returns how many. */
  clearAliases(accountId: string, dialect: Dialect, aliasId?: string): Promise<number>;
  /** An account's aliases by dialect then alias id; one dialect's when it is given. */
  listAliases(accountId: string, dialect?: Dialect): Promise<PlanAliasRecord[]>;
  /** Sets an account's callback in a dialect; returns the one it replaced (null: none). */
  setCallback(record: CompatCallbackRecord): Promise<CompatCallbackRecord | null>;
  /** Removes an account's callback in a dialect; returns it (null: there was none). */
  clearCallback(accountId: string, dialect: Dialect): Promise<CompatCallbackRecord | null>;
  /** An account's callback in a dialect; null when it has none. */
  getCallback(accountId: string, dialect: Dialect): Promise<CompatCallbackRecord | null>;
}

/** What a report reads: a period of instants, and the offset that makes whole days local (Lagos: one hour). */
export interface ReportWindow {
  from: Date;
  until: Date;
  /** Added to an instant before it is cut into whole days of 86 400 000 ms. */
  offsetMs: number;
}

/**
 * The reports' aggregations (core/reports/): sums of the books' postings per day, done where
 * the data is. Both read live purchases and inflows only (test money is not the business's)
 * created in [from, until), which give each its day and key; the figures are their entries' postings.
 */
export interface ReportStore {
  /**
   * Live purchases summed per day and per group key: the product, the upstream of the
   * purchase's last attempt ("" when none), or the account's tier now. Each figure sums the
   * purchase's postings (docs/console.md, Reports): its cost is what its upstream's cost
   * account took, and a charge in revenue:sales_cost_unknown counts as of unknown cost.
   */
  salesByDay(window: ReportWindow, group: ReportGroup): Promise<SalesDayRow[]>;
  /** Live inflows summed per day and per funding provider. */
  fundingByDay(window: ReportWindow): Promise<FundingDayRow[]>;
  /**
   * The operator's manual credits and debits of live wallets summed per day of their entry
   * (the journal's kind index: they are few, so the read is short whatever the period).
   */
  manualByDay(window: ReportWindow): Promise<ManualDayRow[]>;
}

/** The whole store: one sub-port per aggregate. Use cases take only the sub-ports they use. */
/** Why the store cannot write, since when (core/store/write-health.ts). */
/** One account's sum of postings in one mode (debit positive: core/domain/books.ts). */
interface BookSum {
  account: string;
  mode: Mode;
  sumKobo: number;
}

/** An entry of the books as kept: its kind, the reference of the move, and its balanced postings. */
export interface JournalEntryRecord {
  /** Sortable within one store: later entries have greater ids (SQLite's integer, as text). */
  entryId: string;
  kind: EntryKind;
  mode: Mode;
  reference: string;
  at: Date;
  postings: Posting[];
}

/** An entry of the platform's own money that no other move makes: an upstream's top-up, a provider's settlement. */
export interface OwnEntry {
  kind: 'upstream_funded' | 'provider_settled';
  mode: Mode;
  /** The operator's reference (their bank's): one entry per kind and reference, whatever its amount. */
  reference: string;
  at: Date;
  postings: Posting[];
}

/**
 * The books (docs/money.md, The books): every money move's balanced postings, written by the
 * money operations of the other sub-ports in their own transactions, and read here.
 */
export interface BooksStore {
  /** Every account's sum of postings, of the entries before `until` when given (all of them otherwise). */
  sums(until?: Date): Promise<BookSum[]>;
  /** One reference's entries, oldest first: a purchase's reserve, settle, refund; an inflow's receipt. */
  entriesOf(reference: string): Promise<JournalEntryRecord[]>;
  /** One account's sum of postings in one mode, of the entries before `until` when given (all otherwise). */
  sumOf(account: string, mode: Mode, until?: Date): Promise<number>;
  /** Entries of one kind and mode made in [from, until), oldest first, at most `limit`. */
  entriesBetween(kind: EntryKind, mode: Mode, from: Date, until: Date, limit: number): Promise<JournalEntryRecord[]>;
}

/**
 * What the daily reconciliation found (core/books/): one row per day, upstream, reference and
 * class, written once however often the day is run again; the console's attention queue
 * shows the open ones. Nothing here moves money.
 */
export interface ReconcileFindingStore {
  /** Keeps the findings not kept before (same day, upstream, reference and class); returns how many were new. */
  record(findings: readonly ReconcileFindingRecord[]): Promise<number>;
  /** Open findings, oldest day first, at most `limit`. */
  listOpen(limit: number): Promise<ReconcileFindingRecord[]>;
  /** One day's findings (of one upstream when given), as kept. */
  listDay(day: string, upstream?: string): Promise<ReconcileFindingRecord[]>;
  /** Findings newest day first (the open ones only with `openOnly`), at most `limit`. */
  list(openOnly: boolean, limit: number): Promise<ReconcileFindingRecord[]>;
  /**
   * Marks an open finding resolved. Answers the finding as it stands after (`changed` false
   * when it was resolved before: the first resolution is kept), null when there is none.
   */
  resolve(
    key: FindingKey,
    resolution: FindingResolution,
  ): Promise<{ finding: ReconcileFindingRecord; changed: boolean } | null>;
  /** The last Lagos day the daily run finished for an upstream; null before its first. */
  lastDay(upstream: string): Promise<string | null>;
  /** Notes that the daily run finished `day` for an upstream; an earlier day than the one kept changes nothing. */
  markDay(upstream: string, day: string, at: Date): Promise<void>;
  /**
   * Keeps a balance an upstream told (the float poller's), once per upstream and instant;
   * readings older than READINGS_KEPT_DAYS (bounds.ts) before it are let go in the same write.
   */
  keepReading(upstream: string, reading: BalanceReading): Promise<void>;
  /** The readings of [from, until), oldest first, at most `limit`. */
  readingsBetween(upstream: string, from: Date, until: Date, limit: number): Promise<BalanceReading[]>;
}

/** The platform's own entries: a money operation behind the one door. */
export interface BooksMoney {
  /**
   * Books an entry of the platform's own money with its audit row, in one transaction. An
   * entry of the same kind and reference booked before writes nothing and is returned as
   * `replayed` (whatever its amount: the caller compares).
   */
  bookOwn(
    entry: OwnEntry,
    audit: Omit<AuditEntryRecord, 'id'>,
  ): Promise<{ entry: JournalEntryRecord; replayed: boolean }>;
}

export interface StoreFault {
  /** A sentence for the log, the console and the health answer: "the disk is full", ... */
  reason: string;
  since: Date;
}

/**
 * Whether the store can write. A write refused by the disk (full, read-only, an I/O error)
 * rejects with STORE_UNAVAILABLE and records the fault; only a probe that wrote clears it, so
 * a write that needed no room (a refused purchase, an empty commit) never reads as recovery.
 */
export interface StoreWriteHealth {
  /** Null while the store writes. */
  fault(): StoreFault | null;
  /** One small real write now, on the path money takes; true when it landed (the fault is then cleared). */
  probe(): Promise<boolean>;
  /** Told each time the store stops or starts writing again. */
  onChange(listener: (fault: StoreFault | null) => void): void;
}

export interface Store {
  readonly accounts: AccountStore;
  readonly keys: KeyStore;
  readonly catalog: CatalogStore;
  readonly wallet: WalletStore;
  readonly transactions: TransactionStore;
  readonly people: PeopleStore;
  readonly history: HistoryStore;
  readonly events: EventStore;
  readonly webhooks: WebhookStore;
  readonly keyUse: KeyUseStore;
  readonly recipients: RecipientStore;
  readonly funding: FundingStore;
  readonly upgrades: UpgradeStore;
  readonly auditLog: AuditLogStore;
  readonly staff: StaffStore;
  readonly proposals: ProposalStore;
  readonly passwordResets: PasswordResetStore;
  readonly notices: NoticeStore;
  readonly supply: SupplyStore;
  readonly planCodes: PlanCodeStore;
  readonly compat: CompatStore;
  readonly reports: ReportStore;
  readonly books: BooksStore;
  readonly findings: ReconcileFindingStore;
  readonly signUps: SignUpStore;
  readonly kyc: KycStore;
  /** The one door every money move goes through (core/store/moves.ts). */
  readonly ledger: LedgerStore;
  /**
   * Resolves once every write committed so far is durable; the core answers no RPC before
   * (core/rpc/grpc.ts). SQLite's money operations commit before their fsync, which runs off
   * the event loop (core/store/sqlite/group-commit.ts); MongoDB's majority commits are durable
   * when they return. Rejects once the store can no longer make a commit durable.
   */
  settled(): Promise<void>;
  /** Whether the store can write, and its probe (a full or read-only disk). */
  readonly writes: StoreWriteHealth;
  close(): Promise<void>;
}
