/**
 * The MongoDB indexes the schema steps build, named explicitly so that errors (a duplicate
 * key) and explain checks can name them. A shipped index is never edited: a step that
 * changes one creates the new index under a new name, then drops the old one.
 */
import type { IndexDescription } from 'mongodb';
import { COLLECTIONS, FUNDING_COLLECTIONS, JOURNAL_COLLECTION, PEOPLE_COLLECTIONS } from './collections.js';

/** Step 1's idempotency index, single-use per account; step 4 replaced it with REQUEST_ID_INDEX. */
export const ACCOUNT_REQUEST_ID_INDEX_NAME = 'transactions_request_id';

/**
 * The unique index that makes an idempotency key single-use per account and mode: a key used
 * with a live key pair is new to a test one. Partial on a string request_id, because a unique
 * index would otherwise also count every null as the same key.
 */
export const REQUEST_ID_INDEX = {
  name: 'transactions_request_id_by_mode',
  fields: ['account_id', 'mode', 'request_id'],
  description: {
    name: 'transactions_request_id_by_mode',
    key: { account_id: 1, mode: 1, request_id: 1 },
    unique: true,
    partialFilterExpression: { request_id: { $type: 'string' } },
  },
} as const;

/** A wallet's history (account and mode), newest first: what ?action=transactions pages through. */
export const HISTORY_BY_MODE_INDEX: IndexDescription = {
  name: 'transactions_history_by_mode',
  key: { account_id: 1, mode: 1, created_at: -1, _id: -1 },
};

/** A wallet's ledger in entry order: what the ledger pages read (backwards). */
export const LEDGER_BY_WALLET_INDEX: IndexDescription = {
  name: 'ledger_by_wallet',
  key: { account_id: 1, mode: 1, entry_id: 1 },
};

/**
 * The ledger by account in entry order, ascending: the order the audit's running balance
 * reads (a descending index made it sort the whole ledger in memory, and the history pages
 * read it backwards just as well). Unique, because entry ids are a sequence per account.
 */
export const LEDGER_BY_ACCOUNT_INDEX: IndexDescription = {
  name: 'ledger_by_account_asc',
  key: { account_id: 1, entry_id: 1 },
  unique: true,
};

/**
 * Step 3's index: an operator's credit reference single-use per account, in both modes. Step
 * 25 replaced it with CREDIT_REFERENCE_INDEX; kept as it was because shipped steps never change.
 */
export const CREDIT_REFERENCE_PER_ACCOUNT_INDEX = {
  name: 'ledger_credit_reference',
  key: { account_id: 1, reference: 1 },
  unique: true,
  partialFilterExpression: { kind: 'credit' },
} as const;

/**
 * The unique index that makes an operator's credit reference single-use per wallet (account
 * and mode), so a credit retried after an unknown outcome cannot be applied twice, and a
 * reference rehearsed in the test wallet does not block the live credit it rehearsed.
 */
export const CREDIT_REFERENCE_INDEX = {
  name: 'ledger_credit_reference_by_mode',
  fields: ['account_id', 'mode', 'reference'],
  description: {
    name: 'ledger_credit_reference_by_mode',
    key: { account_id: 1, mode: 1, reference: 1 },
    unique: true,
    partialFilterExpression: { kind: 'credit' },
  },
} as const;

/**
 * The unique index that makes a manual debit's reference (its proposal's id, or the CLI's)
 * single-use per account: a proposal applied again after a crash cannot take the money twice.
 */
export const MANUAL_DEBIT_REFERENCE_INDEX = {
  name: 'ledger_manual_debit_reference',
  fields: ['account_id', 'reference'],
  description: {
    name: 'ledger_manual_debit_reference',
    key: { account_id: 1, reference: 1 },
    unique: true,
    partialFilterExpression: { kind: 'manual_debit' },
  },
} as const;

/**
 * A proposed credit's or debit's reference is one proposal per account and kind: a retried
 * `wallet credit --reference` is the proposal it made the first time. Proposals without a
 * reference (an empty string, or none before step 26) are left out.
 */
export const PROPOSAL_REFERENCE_INDEX = {
  name: 'proposals_reference',
  fields: ['account_id', 'kind', 'reference'],
  description: {
    name: 'proposals_reference',
    key: { account_id: 1, kind: 1, reference: 1 },
    unique: true,
    partialFilterExpression: { reference: { $gt: '' } },
  },
} as const;

/** The unique index that allows one debit and one refund entry per purchase. */
export const ONCE_PER_PURCHASE_INDEX = { name: 'ledger_once_per_purchase', fields: ['reference', 'kind'] } as const;

/** Every index besides _id, by collection, as step 1 created them. Names are explicit so that errors can name them. */
export const INDEXES: Readonly<Record<string, readonly IndexDescription[]>> = {
  [COLLECTIONS.apiKeys]: [{ name: 'api_keys_by_account', key: { account_id: 1, created_at: -1, _id: -1 } }],
  [COLLECTIONS.plans]: [{ name: 'plans_by_network', key: { network: 1, _id: 1 } }],
  [COLLECTIONS.cablePackages]: [{ name: 'cable_packages_key', key: { provider: 1, package_code: 1 }, unique: true }],
  [COLLECTIONS.ledger]: [
    // Entry ids are a sequence per account: unique, and the order the ledger pages in.
    { name: 'ledger_by_account', key: { account_id: 1, entry_id: -1 }, unique: true },
    // A purchase has at most one debit and at most one refund, whatever the code above
    // does: the last line of defence against refunding twice. Credits are left out: their
    // references are unique per wallet instead (CREDIT_REFERENCE_INDEX).
    {
      name: ONCE_PER_PURCHASE_INDEX.name,
      key: { reference: 1, kind: 1 },
      unique: true,
      partialFilterExpression: { kind: { $in: ['debit', 'refund'] } },
    },
  ],
  [COLLECTIONS.transactions]: [
    // The idempotency record. Partial on a string request_id, because a unique index would
    // otherwise also count every null as the same key.
    {
      name: ACCOUNT_REQUEST_ID_INDEX_NAME,
      key: { account_id: 1, request_id: 1 },
      unique: true,
      partialFilterExpression: { request_id: { $type: 'string' } },
    },
    { name: 'transactions_history', key: { account_id: 1, created_at: -1, _id: -1 } },
    // Partial, so the recovery worker's scan and the attention list only ever touch pending
    // transactions; the trailing fields give the scans their order without a sort in memory.
    {
      name: 'transactions_due',
      key: { status: 1, next_attempt_at: 1, created_at: 1, _id: 1 },
      partialFilterExpression: { status: 'pending' },
    },
    {
      name: 'transactions_pending_by_age',
      key: { status: 1, created_at: 1, _id: 1 },
      partialFilterExpression: { status: 'pending' },
    },
  ],
};

/** The people collections' indexes (step 5). */
export const PEOPLE_INDEXES: Readonly<Record<string, readonly IndexDescription[]>> = {
  // One user per email across the store: sign-in names a user by email alone.
  [PEOPLE_COLLECTIONS.users]: [
    { name: 'users_email', key: { email: 1 }, unique: true },
    { name: 'users_by_account', key: { account_id: 1, created_at: 1, _id: 1 } },
  ],
  [PEOPLE_COLLECTIONS.sessions]: [
    { name: 'sessions_by_user', key: { user_id: 1 } },
    // MongoDB removes a session once its absolute expiry has passed; the core checks expiry on
    // every read anyway, so the TTL monitor's delay (up to a minute) never extends one.
    { name: 'sessions_expiry', key: { absolute_expires_at: 1 }, expireAfterSeconds: 0 },
  ],
};

/** The memberships' indexes and the open invitations of an account (step 15). */
export const MEMBERSHIP_INDEXES: readonly IndexDescription[] = [
  // An account's members in the order they joined (the Users page).
  { name: 'memberships_by_account', key: { account_id: 1, created_at: 1, user_id: 1 } },
  // A person's accounts (sign-in, the account switcher).
  { name: 'memberships_by_user', key: { user_id: 1, created_at: 1, account_id: 1 } },
];

/** An account's invitations by email, for the open ones listed and revoked (step 15). */
export const INVITATIONS_BY_ACCOUNT_INDEX: IndexDescription = {
  name: 'invitations_by_account',
  key: { account_id: 1, email: 1, created_at: 1 },
};

/** The holder's search by recipient without reading the account's whole history (step 5). */
export const TRANSACTIONS_BY_RECIPIENT_INDEX: IndexDescription = {
  name: 'transactions_by_recipient',
  key: { account_id: 1, mode: 1, recipient: 1, created_at: -1, _id: -1 },
};

/**
 * A wallet's events in seq order, unique: the feed's index, and the guard that a seq is
 * taken once per wallet now that each mode of an account has a counter of its own (step 9
 * replaced events_feed, the same keys without uniqueness, and events_seq, unique per account).
 */
export const EVENTS_SEQ_BY_WALLET_INDEX = {
  name: 'events_seq_by_wallet',
  key: { account_id: 1, mode: 1, seq: 1 },
  unique: true,
} as const;

/** The exactly-once key of every credit from a bank transfer. */
export const INFLOW_REFERENCE_INDEX = {
  name: 'inflows_provider_reference',
  fields: ['provider', 'provider_reference'],
  description: { name: 'inflows_provider_reference', key: { provider: 1, provider_reference: 1 }, unique: true },
} as const;

/** The funding collections' indexes (step 12). */
export const FUNDING_INDEXES = {
  [FUNDING_COLLECTIONS.virtualAccounts]: [
    { name: 'virtual_accounts_by_account', key: { account_id: 1, mode: 1, created_at: 1 } },
  ],
  [FUNDING_COLLECTIONS.inflows]: [
    { ...INFLOW_REFERENCE_INDEX.description },
    { name: 'inflows_by_status', key: { status: 1, created_at: 1, _id: 1 } },
    { name: 'inflows_by_account', key: { account_id: 1, mode: 1, created_at: -1 } },
  ],
} as const;

/**
 * The journal's indexes (step 28): a reference's entries by kind (a purchase's settle read by
 * its reversal, the audit's count of each purchase's entries); an account's postings by mode
 * (a wallet's sum: multikey over the postings); entries by time (the sums until a date).
 */
export const JOURNAL_INDEXES: Readonly<Record<string, readonly IndexDescription[]>> = {
  [JOURNAL_COLLECTION]: [
    { name: 'journal_by_reference', key: { reference: 1, kind: 1 } },
    { name: 'journal_by_account', key: { 'postings.account': 1, mode: 1 } },
    { name: 'journal_by_time', key: { at: 1 } },
  ],
};
