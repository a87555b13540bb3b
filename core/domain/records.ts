/**
 * The records the platform keeps: accounts, keys, the catalog, the ledger and purchases.
 * They are the domain's shapes, plain data with money in integer kobo; the store port
 * (core/store/port.ts) reads and writes them, and every adapter maps its rows or
 * documents to exactly these types.
 */
import type { Dialect, InFlightWord } from './compat.js';
import type { CapRefusal, KeyControls } from './key-controls.js';
import type { SpendRefusal } from './levels.js';
import type { Mode } from './mode.js';
import type { Kobo } from './money.js';
import type { DeliveryResult, PlanType, ProductName, PurchaseDetails, TransactionStatus } from './products.js';
import type { RecipientControls, RecipientRefusal } from './recipient-controls.js';
import type { MatchClass, OurOutcome, TheirRecord } from './reconcile.js';
import type { KeyFreeze } from './velocity.js';

export interface AccountRecord {
  accountId: string;
  name: string;
  tierId: string;
  /** The live wallet's balance. */
  balanceKobo: Kobo;
  /** The test wallet's balance: test money only, moved only by test keys and test credits. */
  testBalanceKobo: Kobo;
  createdAt: Date;
  /**
   * Set while the platform's staff have suspended the account (its keys answer 401, its developer area is read-
   * only).
   */
  suspension?: AccountSuspension;
  /** What the account allows to one recipient (core/domain/recipient-controls.ts); absent: no controls. */
  recipientControls?: RecipientControls;
  /**
   * When the owner who signed the account up proved their email and their phone; null: not yet
   * (core/domain/sign-up.ts, liveAllowed). An account the operator made is proven when made.
   */
  emailVerifiedAt: Date | null;
  phoneVerifiedAt: Date | null;
}

/**
 * An account its owner signed up for in the developer area (core/people/sign-up.ts): who, from
 * where, the email link and the phone code waiting. Tokens and codes are kept as their SHA-256.
 */
export interface SignUpRecord {
  accountId: string;
  userId: string;
  /** The owner's mobile number, 11 digits from 0. */
  phone: string;
  /** The client address's budget key (core/domain/addresses.ts: an IPv6 client by its /64). */
  addressKey: string;
  emailDomain: string;
  createdAt: Date;
  /** The open email link's hash and end; null once used (or never made). */
  emailTokenHash: string | null;
  emailTokenExpiresAt: Date | null;
  /** The phone code waiting, its end, and the wrong tries it has taken. */
  phoneCodeHash: string | null;
  phoneCodeExpiresAt: Date | null;
  phoneCodeTries: number;
  /** The last code sent, and how many were sent on that Lagos day. */
  phoneCodeSentAt: Date | null;
  phoneCodesToday: number;
}

/** Why and by whom an account was suspended (docs/console.md). */
export interface AccountSuspension {
  at: Date;
  /** `staff:<email>` or `cli`. */
  by: string;
  note: string;
}

/** A wallet's balance: the account's live or test one. */
export function balanceOf(account: Pick<AccountRecord, 'balanceKobo' | 'testBalanceKobo'>, mode: Mode): Kobo {
  return mode === 'test' ? account.testBalanceKobo : account.balanceKobo;
}

export interface ApiKeyRecord {
  publicKey: string;
  accountId: string;
  /** SHA-256 of the secret key, hex. The secret itself is never stored. */
  secretHash: string;
  allowedIps: string[];
  revoked: boolean;
  /** Which wallet and world the pair acts in: pk_test_ pairs are 'test'. */
  mode: Mode;
  createdAt: Date;
  /** What the pair may do (core/domain/key-controls.ts); absent: everything, no caps. */
  controls?: KeyControls;
  /** A rolled pair works until then (its grace period), then no longer; absent: until revoked. */
  expiresAt?: Date;
  /** The pair is frozen (core/domain/velocity.ts): every call is KEY_FROZEN until it is unfrozen; absent: not. */
  frozen?: KeyFreeze;
}

/** A key as the key lists show it: with when it last authenticated a request (null: never, or not written yet). */
export interface ListedApiKey extends ApiKeyRecord {
  lastUsedAt: Date | null;
}

export interface DiscountRule {
  product: ProductName;
  /** A service of the product, or "" for every service of it. */
  service: string;
  basisPoints: number;
}

export interface TierRecord {
  tierId: string;
  name: string;
  apiAccess: boolean;
  discounts: DiscountRule[];
  /**
   * Cost-plus rules for data plans, airtime, electricity and cable (core/domain/pricing.ts);
   * the most specific one of the sale's product applies.
   */
  priceRules: PriceRule[];
}

/**
 * A tier's price as a rule over cost: the cost plus a margin (basis points of the cost and a
 * flat amount, either may be 0), then raised to the floor and lowered to the ceiling where
 * they are set (0: none). A data rule applies to the plans of `network` and `planType` (""
 * for every one), and a plan's fixed tier price, where set, wins over it. An airtime,
 * electricity or cable rule applies to the sales of `service` ("" for every one), and is also
 * lowered to the face value unless `aboveFaceValue`.
 */
export interface PriceRule {
  product: PricedProduct;
  /** Data rules only ('' otherwise). */
  network: string;
  planType: string;
  marginBasisPoints: number;
  marginKobo: Kobo;
  floorKobo: Kobo;
  ceilingKobo: Kobo;
  /** Airtime, electricity, cable: the network (canonical), disco or cable provider; '' for all (and for data). */
  service: string;
  /** Airtime, electricity, cable: the price may go above the face value (false for data). */
  aboveFaceValue: boolean;
}

/** The products a tier prices by a rule over cost. */
export type PricedProduct = 'data' | CostRule['product'];

/**
 * What an upstream charges for a product sold at face value (airtime, electricity, cable):
 * the face value less the upstream's commission on it (VTpass tells its commission per
 * service). One rule per product, service and upstream; `service` '' is every network,
 * disco or cable provider of the product that has no rule of its own.
 */
export interface CostRule {
  product: 'airtime' | 'electricity' | 'cable';
  /** The network (canonical: 9mobile, never t2), the disco or the cable provider; '' for all. */
  service: string;
  upstream: string;
  /** The upstream's commission in basis points of the face value (250 = 2.5%). */
  commissionBasisPoints: number;
}

export interface PlanRecord {
  planId: number;
  network: string;
  label: string;
  validity: string;
  /** How the market sells it: sme, sme2, cg, gifting, awoof or direct. */
  type: PlanType;
  /** The data it gives in megabytes (1GB = 1024); 0 when not known. */
  sizeMb: number;
  /** How many days it lasts; 0 when not known. */
  validityDays: number;
  faceValueKobo: Kobo;
  /** tierId -> a fixed price in kobo, which wins over the tier's price rules. */
  tierPricesKobo: Record<string, Kobo>;
  /**
   * upstream name -> what the upstream charges us for the plan, in kobo (from a sync, a
   * variations-update push, an observed answer, or the operator). Absent: not known.
   */
  costsKobo: Record<string, Kobo>;
  active: boolean;
  /** The upstream's code for this plan (VTpass variation_code); "" when none is known yet. */
  providerCode: string;
}

/**
 * One upstream's code for one of our data plans: what a declared upstream
 * (ClubKonnect's `PRODUCT_ID`, a ported-number site's integer plan id) is sent for the plan.
 * An upstream without a row for a plan does not sell it.
 */
export interface PlanCodeRecord {
  planId: number;
  /** The upstream instance's name (UPSTREAMS). */
  upstream: string;
  code: string;
  updatedAt: Date;
}

export interface CablePackageRecord {
  provider: string;
  packageCode: string;
  name: string;
  priceKobo: Kobo;
  active: boolean;
  /** The upstream's code for this package (VTpass variation_code); "" means the package code itself. */
  providerCode: string;
}

/**
 * credit: money in (operator or bank transfer); debit: a purchase's charge; refund: a purchase's
 * charge given back; manual_debit: money taken out by the operator with a reason (negative,
 * tied to no purchase, never below zero).
 */
export type LedgerKind = 'credit' | 'debit' | 'refund' | 'manual_debit';

export interface LedgerEntryRecord {
  entryId: number;
  accountId: string;
  /** The wallet the entry belongs to: the account's live or test one. */
  mode: Mode;
  /** Signed: negative for debits. */
  amountKobo: Kobo;
  balanceAfterKobo: Kobo;
  kind: LedgerKind;
  reference: string;
  memo: string;
  createdAt: Date;
}

export interface TransactionRecord {
  reference: string;
  accountId: string;
  /** The world the purchase was made in: its wallet, its idempotency scope, its provider (test: the sandbox). */
  mode: Mode;
  product: ProductName;
  status: TransactionStatus;
  service: string;
  recipient: string;
  faceValueKobo: Kobo;
  chargedKobo: Kobo;
  /** Balance right after this purchase's debit. */
  balanceAfterKobo: Kobo;
  details: PurchaseDetails;
  result: DeliveryResult | null;
  failureReason: string | null;
  /** The caller's idempotency key, unique per account and mode. */
  requestId: string | null;
  /** Hash of the request the idempotency key was first used with. */
  requestHash: string | null;
  /** Provider re-queries made by the recovery worker. */
  attempts: number;
  /** When the recovery worker may next look at a pending transaction. */
  nextAttemptAt: Date;
  /** A pending transaction past the recovery deadline, waiting for a person. */
  needsAttention: boolean;
  createdAt: Date;
  updatedAt: Date;
}

/** A purchase about to be reserved; the store fills balanceAfterKobo. */
export type NewTransaction = Omit<
  TransactionRecord,
  'status' | 'balanceAfterKobo' | 'result' | 'failureReason' | 'attempts' | 'needsAttention' | 'updatedAt'
>;

export type ReserveResult =
  /** Debited, ledger entry and pending transaction written together. */
  | { outcome: 'reserved'; transaction: TransactionRecord }
  /** The balance does not cover the charge; nothing was written. */
  | { outcome: 'insufficient'; balanceKobo: Kobo }
  /** The account's idempotency key exists already; nothing was written. */
  | { outcome: 'duplicate'; transaction: TransactionRecord }
  /** A cap of the purchase's key pair refuses the charge; nothing was written. */
  | { outcome: 'key_cap'; refusal: CapRefusal }
  /** The account's (or the platform's) recipient controls refuse it; nothing was written. */
  | { outcome: 'recipient'; refusal: RecipientRefusal }
  /** The account's identity level's daily spend limit refuses the charge (docs/kyc.md); nothing was written. */
  | { outcome: 'level_limit'; refusal: SpendRefusal }
  | { outcome: 'no_account' };

/**
 * What a reserve checks beyond the balance, in its own transaction, only when the purchase
 * has such controls (a purchase without them reads nothing more than before).
 */
export interface ReserveChecks {
  /**
   * The key pair whose caps apply: its caps are read, the charge is counted against its
   * Africa/Lagos day, and a refund gives it back to that day.
   */
  cappedKey?: string;
  /**
   * The key pair that asked, whatever its controls: read by the purchase flow only (the
   * velocity brake refuses a key this core froze, and counts the reserve in memory); the
   * stores read nothing for it.
   */
  key?: string;
  /**
   * The account's recipient controls: its blocklist looked up, the recipient's Lagos day
   * checked against its limits and counted, and the same purchase within `duplicateWindowMs`
   * without a request_id refused. A refund gives the purchase back to the recipient's day.
   */
  recipient?: { controls: RecipientControls; duplicateWindowMs: number };
}

/** The catalog a store starts with the first time it opens empty (see CatalogStore.seedIfEmpty). */
export interface CatalogSeed {
  tiers: TierRecord[];
  plans: PlanRecord[];
  cablePackages: CablePackageRecord[];
  smsRateKobo: Kobo;
}

/** The pending transactions in brief. */
export interface PendingSummary {
  count: number;
  /** Those among them flagged for a person (past the recovery deadline). */
  needsAttentionCount: number;
  /** createdAt of the oldest pending transaction; null when none is pending. */
  oldestCreatedAt: Date | null;
}

/** What a user of the developer area may do: owner everything, viewer read only. */
export type UserRole = 'owner' | 'viewer';

/**
 * A person who signs in to the developer area: one email, one password, one two-step
 * sign-in, whatever the number of accounts they belong to (their memberships).
 */
export interface UserRecord {
  /** usr_... */
  userId: string;
  /** Lower case, unique across the store. */
  email: string;
  /** scrypt$N$r$p$salt$key (core/people/passwords.ts); never the password. */
  passwordHash: string;
  /** The base32 TOTP secret once two-step sign-in is on; null when off. It must be readable to verify codes. */
  totpSecret: string | null;
  /** A secret being set up (BeginTotpSetup), not yet confirmed; null when none. */
  totpPendingSecret: string | null;
  /** The last TOTP time step a code was accepted for; a code of that step or an earlier one is refused (no replay). */
  totpLastStep: number;
  /**
   * The SHA-256 of each recovery code not used yet (given once when two-step sign-in is
   * turned on; each works once instead of a code). Empty when two-step sign-in is off.
   */
  recoveryCodeHashes: readonly string[];
  createdAt: Date;
}

/**
 * A person's place in one account: their role there, and whether it is disabled. Disabling
 * a membership shuts the person out of that account only; their other accounts go on.
 */
export interface MembershipRecord {
  userId: string;
  accountId: string;
  role: UserRole;
  disabled: boolean;
  /** When the person first joined the account (a re-invitation keeps it). */
  createdAt: Date;
}

/** A person as one account sees them: the person and their membership there. */
export interface MemberRecord {
  user: UserRecord;
  membership: MembershipRecord;
}

/** An invitation to an account; its token is stored only as its SHA-256. */
export interface InvitationRecord {
  /** SHA-256 hex of the token in the link. */
  tokenHash: string;
  accountId: string;
  email: string;
  role: UserRole;
  /** Who invited: a user id, or "operator". */
  invitedBy: string;
  createdAt: Date;
  expiresAt: Date;
  /** When it was accepted; null while unused. */
  usedAt: Date | null;
  /** When an owner (or a newer invitation of the same email) withdrew it; null while it stands. */
  revokedAt: Date | null;
}

/**
 * A signed-in browser (stage "session"), or a sign-in waiting for its TOTP code (stage
 * "totp", a short-lived challenge). Its token is stored only as its SHA-256.
 */
export interface SessionRecord {
  tokenHash: string;
  stage: 'session' | 'totp';
  userId: string;
  /** The account the session acts for now: one of the person's active memberships (the account switcher moves it). */
  accountId: string;
  createdAt: Date;
  lastSeenAt: Date;
  /** The session ends at this time whatever happens. */
  absoluteExpiresAt: Date;
}

/** What accepting an invitation did. */
export type AcceptInvitationResult =
  | { outcome: 'accepted'; user: UserRecord; membership: MembershipRecord }
  /** Unknown, used or expired: nothing was written. */
  | { outcome: 'invalid' }
  /** The email belongs to another person than the one given: nothing was written. */
  | { outcome: 'email_taken' };

/** Which of an account's transactions a holder asks for; every field set must match. */
export interface TransactionQuery {
  product?: ProductName;
  status?: TransactionStatus;
  /** createdAt >= from. */
  from?: Date;
  /** createdAt < until. */
  until?: Date;
  recipient?: string;
  /** Recipients starting with this (recipient-search.ts: the start of a phone, meter or card number). */
  recipientPrefix?: string;
  reference?: string;
  requestId?: string;
}

/** Spend (charges not refunded) of one product in one day bucket. */
export interface DaySpend {
  /** Whole days since the epoch, counted in the offset the query named. */
  day: number;
  product: ProductName;
  spentKobo: Kobo;
}

/**
 * An account holder's request for API access, one per account (a new request replaces a
 * refused one). Approval moves the account to an API tier; its first live key pair is then
 * issued to an owner on their next visit to the developer area, once (keyIssuedAt).
 */
export interface UpgradeRequestRecord {
  accountId: string;
  status: 'pending' | 'approved' | 'refused';
  /** The owner who asked (email), and what they said they will do with the API. */
  requestedBy: string;
  note: string;
  createdAt: Date;
  decidedAt: Date | null;
  keyIssuedAt: Date | null;
}

/**
 * One row of the audit log: a staff member's action in the console or an operator's admin
 * call (the CLI), with what it changed. Rows are only ever appended.
 */
export interface AuditEntryRecord {
  /** Sortable by time: newer rows have greater ids. */
  id: string;
  at: Date;
  /**
   * Who: `cli` (the admin token), `staff:<email>`, `owner:<email>` (an account's owner in the
   * developer area, unfreezing a key), or `system` for the core's own decisions.
   */
  actor: string;
  /** What, as `area.verb`: `wallet.credit`, `routes.set`, `prices.change`. */
  action: string;
  /** What it was done to: an account id, a plan code, a route's key. */
  target: string;
  /** The state before and after, as JSON text; null where there is none (a creation, a removal). */
  before: string | null;
  after: string | null;
  /** The client address the request came from, where known. */
  address: string | null;
  /** Why, in the actor's words; empty when none was asked. */
  note: string;
}

/**
 * A password reset link (core/people/resets.ts): its token exists only in the mail or the
 * operator's terminal; the store keeps its SHA-256. Used once, within the hour.
 */
export interface PasswordResetRecord {
  tokenHash: string;
  userId: string;
  createdAt: Date;
  expiresAt: Date;
  usedAt: Date | null;
}

/** What came of one call of a purchase to an upstream. */
export type UpstreamAttemptOutcome =
  /** The upstream provably did not deliver; the purchase moved to the next upstream. */
  | 'not_delivered'
  /** The upstream refused or failed it, and no other upstream was tried. */
  | 'failed'
  /** No certain answer: the purchase stays with this upstream and is re-queried there. */
  | 'pending'
  | 'delivered';

/**
 * One call of a purchase to an upstream, written before the call, so a re-query, a
 * callback or a reversal goes to the upstream that got the `pay`, whatever the routes say later.
 * The operator sees them; partners never do.
 */
export interface UpstreamAttemptRecord {
  reference: string;
  /** 1 for the first upstream called, 2 for the next after a proven non-delivery, ... */
  seq: number;
  /** The instance name (UPSTREAMS, `sandbox`, `vtpass`). */
  upstream: string;
  startedAt: Date;
  /** Null while the call runs (or its answer was never recorded: a crash). */
  outcome: UpstreamAttemptOutcome | null;
  /** What happened on the call, as the failover rule read it, for example `refused` or `http 200, code 091`. */
  evidence: string | null;
  /** What the upstream says it charged us, where it says so. */
  costKobo: Kobo | null;
  /**
   * The upstream's own id of the purchase, when its answer gave one (a ported-number site's
   * record `id`): what a re-query asks by where the upstream looks purchases up by its id only.
   */
  upstreamReference: string | null;
  endedAt: Date | null;
}

/** Where an upstream's answer about a purchase came from. */
export type UpstreamAnswerSource = 'purchase' | 'requery' | 'callback';

/**
 * One answer of an upstream about a purchase: the body of a purchase call, a
 * re-query or a callback, cleaned of secrets and bounded (core/domain/raw-answers.ts), written
 * in the same store transaction as what it did to the purchase. The operator sees them.
 */
export interface UpstreamAnswerRecord {
  reference: string;
  /** 1, 2, ... in the order written; at the bound the last one is replaced by the newest. */
  n: number;
  upstream: string;
  source: UpstreamAnswerSource;
  body: string;
  at: Date;
}

/**
 * One row of the route table: the upstreams, in order, that sell a product, optionally only
 * for a network, a data plan type or a disco ("" matches any). The most specific row wins;
 * without one, the family's PROVIDER_<FAMILY> default.
 */
export interface RouteRecord {
  product: ProductName;
  network: string;
  planType: string;
  disco: string;
  upstreams: string[];
  updatedAt: Date;
}

/** The operator's settings of one upstream instance. */
export interface UpstreamSettingsRecord {
  upstream: string;
  /**
   * Below this float (our wallet at the upstream) it is taken out of routes that have another choice; null: no
   * alert.
   */
  floatAlertKobo: Kobo | null;
  updatedAt: Date;
}

/**
 * One mismatch of the daily reconciliation (docs/reconciliation.md): a purchase whose record at
 * an upstream does not agree with our books, kept once per day, upstream, reference and class.
 */
export interface ReconcileFindingRecord {
  /** The Lagos day reconciled, YYYY-MM-DD. */
  day: string;
  upstream: string;
  /** Our purchase's reference. */
  reference: string;
  class: Exclude<MatchClass, 'agrees'>;
  /** The money at stake at the upstream against our books (negative: the platform's loss). */
  atStakeKobo: Kobo;
  ourCostKobo: Kobo | null;
  theirChargedKobo: Kobo | null;
  /** Our outcome of its attempt there. */
  outcome: OurOutcome;
  /** What the upstream's record says: delivered, failed, unknown, not_found. */
  theirStatus: TheirRecord['status'];
  /** How many charges it shows under our reference, where it tells. */
  theirCharges: number | null;
  /** The upstream's reason when it gave no certain answer. */
  reason: string | null;
  /** Its answer, cleaned of credentials and bounded (raw-answers.ts). */
  evidence: string | null;
  foundAt: Date;
  /** How a staff member ended it; absent while it is open. Resolving corrects no money. */
  resolution?: FindingResolution;
}

/** A finding marked resolved: when, by whom (`staff:<email>` or `cli`), why, and the proposal that corrected it. */
export interface FindingResolution {
  at: Date;
  by: string;
  note: string;
  /** The four-eyes proposal that made the correction, when one did; null otherwise. */
  correctedBy: string | null;
}

/**
 * A compatible token (docs/compat.md): a token of another site's API shape bound to one key
 * pair, which it acts as. Only its SHA-256 is kept.
 */
export interface CompatTokenRecord {
  /** Its handle, ct_ and 16 hex characters: what listing shows and revoking names. */
  tokenId: string;
  /** SHA-256 of the token, hex; unique. */
  tokenHash: string;
  /** The token's last four characters, to tell tokens apart in a list. */
  lastFour: string;
  dialect: Dialect;
  inFlight: InFlightWord;
  /** The key pair it is bound to, and that pair's account and mode (copied: neither ever changes). */
  publicKey: string;
  accountId: string;
  mode: Mode;
  createdAt: Date;
  /** Set once revoked; a revoked token never works again. */
  revokedAt?: Date;
}

/**
 * An account's compat callback in a dialect (docs/compat.md): where each of its purchases'
 * final status is posted in the dialect's callback shape (Adex: `{"status","request-id"}`).
 */
export interface CompatCallbackRecord {
  accountId: string;
  dialect: Dialect;
  url: string;
  updatedAt: Date;
}

/** One plan alias: in `dialect`, the account's clients send `aliasId` to buy our plan `planId`. */
export interface PlanAliasRecord {
  accountId: string;
  dialect: Dialect;
  aliasId: string;
  planId: number;
  updatedAt: Date;
}
