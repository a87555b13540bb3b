/**
 * The MongoDB schema as an ordered list of steps, like the SQLite adapter's migrations: a
 * schema document in the `meta` collection records the last step that ran, and opening
 * the store runs the missing ones, in order, each once. A later change (a new collection,
 * a new index, a changed validator) appends a step here and never edits a shipped one, so
 * that an existing deployment is brought up to date instead of only a fresh one. A
 * database written by a newer build is refused, as the SQLite adapter refuses a newer file.
 *
 * Several cores may start at once against the same database, so every step must be
 * idempotent: creating a collection that another core has just created is accepted, an
 * index that exists with the same definition is left alone by the server, collMod sets
 * the same validator twice to the same effect, and dropping an index that is gone is
 * accepted. The schema document only ever moves forward ($max).
 *
 * What the steps build lives beside this file: collection names in collections.ts, indexes
 * in indexes.ts, validators in validators.ts, and the database as the steps see it in
 * schema-target.ts.
 */
import { type Document, Long } from 'mongodb';
import { DEFAULT_LEVEL_LIMITS, SIGN_UP_LEVEL } from '../../domain/levels.js';
import { checkHistory, migrateHistory } from './books-history.js';
import {
  AUDIT_LOG_COLLECTION,
  COLLECTIONS,
  COMPAT_CALLBACKS_COLLECTION,
  COMPAT_COLLECTIONS,
  FUNDING_COLLECTIONS,
  FUNDING_OPENINGS_COLLECTION,
  JOURNAL_COLLECTION,
  KEY_DAY_SPEND_COLLECTION,
  KEY_USE_COLLECTION,
  KEY_VELOCITY_COLLECTION,
  KYC_COLLECTIONS,
  MAIL_COLLECTIONS,
  MAIL_OPT_OUTS_COLLECTION,
  MEMBERSHIPS_COLLECTION,
  PEOPLE_COLLECTIONS,
  PLAN_CODES_COLLECTION,
  RECIPIENT_COLLECTIONS,
  RECONCILE_COLLECTIONS,
  RECONCILE_FINDINGS_COLLECTION,
  SIGN_UPS_COLLECTION,
  STAFF_COLLECTIONS,
  SUPPLY_COLLECTIONS,
  UPGRADE_REQUESTS_COLLECTION,
  UPSTREAM_ANSWERS_COLLECTION,
} from './collections.js';
import {
  DELIVERIES_INDEX,
  FAILED_DELIVERIES_INDEX,
  TRANSACTIONS_BY_PRODUCT_INDEX,
  TRANSACTIONS_BY_STATUS_INDEX,
} from './developer-reads.js';
import { EVENT_COLLECTIONS, EVENT_INDEXES, EVENTS_DUE_BY_DESTINATION_INDEX } from './event-indexes.js';
import {
  ACCOUNT_REQUEST_ID_INDEX_NAME,
  CREDIT_REFERENCE_INDEX,
  CREDIT_REFERENCE_PER_ACCOUNT_INDEX,
  EVENTS_SEQ_BY_WALLET_INDEX,
  FUNDING_INDEXES,
  HISTORY_BY_MODE_INDEX,
  INDEXES,
  INVITATIONS_BY_ACCOUNT_INDEX,
  JOURNAL_INDEXES,
  LEDGER_BY_ACCOUNT_INDEX,
  LEDGER_BY_WALLET_INDEX,
  MANUAL_DEBIT_REFERENCE_INDEX,
  MEMBERSHIP_INDEXES,
  PEOPLE_INDEXES,
  PROPOSAL_REFERENCE_INDEX,
  REQUEST_ID_INDEX,
  TRANSACTIONS_BY_RECIPIENT_INDEX,
} from './indexes.js';
import { levelToDoc } from './level-checks.js';
import type { SchemaTarget } from './schema-target.js';
import {
  checkValidators,
  currentValidators,
  JOURNAL_VALIDATOR,
  MissingValidatorError,
  setValidator,
  VALIDATORS,
  VALIDATORS_V4,
  type ValidatorReport,
  validatorOptions,
} from './validators.js';

export * from './collections.js';
export * from './indexes.js';
export * from './schema-target.js';
export * from './validators.js';

/** One schema step; `version` is what the schema document says once it ran. */
export interface SchemaStep {
  version: number;
  description: string;
  apply(target: SchemaTarget): Promise<void>;
}

/** Creates every collection in `names` that is missing, with its validator from `validators`. */
async function createMissingCollections(
  target: SchemaTarget,
  names: readonly string[],
  validators: Partial<Record<string, Document>>,
): Promise<void> {
  const existing = new Set(await target.collectionNames());
  for (const name of names) {
    if (existing.has(name)) continue;
    const validator = validators[name];
    await target.createCollection(name, validator === undefined ? {} : validatorOptions(validator));
  }
}

/**
 * Sets every validator to what this build writes (currentValidators), with collMod on the
 * existing collections. A build that changes a list a validator holds (a new product,
 * status or kind) appends a step that calls this; the test of LISTS_AT_LAST_VALIDATORS_STEP
 * fails until it does.
 */
async function refreshValidators(target: SchemaTarget): Promise<void> {
  // A collection a later step creates (the journal, step 28) is left to that step: collMod
  // needs the collection, and the step creates it with its validator.
  const existing = new Set(await target.collectionNames());
  for (const [collection, validator] of Object.entries(currentValidators()))
    if (existing.has(collection)) await target.command(setValidator(collection, validator));
}

/**
 * The rows without a mode (written before test mode, or by a core of an earlier build during an upgrade), made live.
 */
async function giveOlderRowsTheirMode(target: SchemaTarget): Promise<void> {
  await target.updateMany(
    COLLECTIONS.accounts,
    { test_balance_kobo: { $exists: false } },
    { test_balance_kobo: Long.ZERO },
  );
  for (const collection of [COLLECTIONS.apiKeys, COLLECTIONS.ledger, COLLECTIONS.transactions]) {
    await target.updateMany(collection, { mode: { $exists: false } }, { mode: 'live' });
  }
}

export const SCHEMA_STEPS: readonly SchemaStep[] = [
  {
    version: 1,
    description: 'accounts, keys, catalog, ledger and transactions, with their validators and indexes',
    async apply(target) {
      await createMissingCollections(target, Object.values(COLLECTIONS), VALIDATORS);
      for (const [name, indexes] of Object.entries(INDEXES)) await target.createIndexes(name, [...indexes]);
    },
  },
  {
    version: 2,
    description: 'the ledger by account in ascending entry order, for the audit',
    async apply(target) {
      // The new index first, so that (account_id, entry_id) stays unique throughout.
      await target.createIndexes(COLLECTIONS.ledger, [LEDGER_BY_ACCOUNT_INDEX]);
      await target.dropIndex(COLLECTIONS.ledger, 'ledger_by_account');
    },
  },
  {
    version: 3,
    description: 'credit references unique per account',
    async apply(target) {
      await target.createIndexes(COLLECTIONS.ledger, [{ ...CREDIT_REFERENCE_PER_ACCOUNT_INDEX }]);
    },
  },
  {
    version: 4,
    description:
      'test mode: a test wallet per account; the mode of every key, entry and ' +
      'purchase; idempotency and history per mode',
    async apply(target) {
      // Everything written before test mode is live, and every account's test wallet starts
      // empty. Each update matches only documents still without the field, so a step
      // interrupted half-way (or run by two cores at once) finishes the same.
      await giveOlderRowsTheirMode(target);
      for (const [collection, validator] of Object.entries(VALIDATORS_V4))
        await target.command(setValidator(collection, validator!));
      // The new idempotency index first, so that a key stays single-use throughout.
      await target.createIndexes(COLLECTIONS.transactions, [
        { ...REQUEST_ID_INDEX.description },
        HISTORY_BY_MODE_INDEX,
      ]);
      await target.dropIndex(COLLECTIONS.transactions, ACCOUNT_REQUEST_ID_INDEX_NAME);
      await target.dropIndex(COLLECTIONS.transactions, 'transactions_history');
      await target.createIndexes(COLLECTIONS.ledger, [LEDGER_BY_WALLET_INDEX]);
    },
  },
  {
    version: 5,
    description: 'users, invitations and sessions of the developer area; history by recipient',
    async apply(target) {
      await createMissingCollections(target, Object.values(PEOPLE_COLLECTIONS), {});
      for (const [name, indexes] of Object.entries(PEOPLE_INDEXES)) await target.createIndexes(name, [...indexes]);
      await target.createIndexes(COLLECTIONS.transactions, [TRANSACTIONS_BY_RECIPIENT_INDEX]);
    },
  },
  {
    version: 6,
    description: 'events (the outbox of webhooks and the events feed) and webhook endpoints',
    async apply(target) {
      await createMissingCollections(target, Object.values(EVENT_COLLECTIONS), {});
      for (const [name, indexes] of Object.entries(EVENT_INDEXES))
        if (indexes.length > 0)
          await target.createIndexes(
            name,
            indexes.map((index) => ({ ...index })),
          );
    },
  },
  {
    version: 7,
    description: 'when each key pair last authenticated a request',
    async apply(target) {
      await createMissingCollections(target, [KEY_USE_COLLECTION], {});
    },
  },
  {
    version: 8,
    description: 'due events by destination, for the webhook worker',
    async apply(target) {
      await target.createIndexes(EVENT_COLLECTIONS.events, [{ ...EVENTS_DUE_BY_DESTINATION_INDEX }]);
    },
  },
  {
    version: 9,
    description: 'event sequences per account and mode (counter documents), unique per wallet',
    async apply(target) {
      // The new unique index first: seqs were unique per account, so they are per wallet too.
      await target.createIndexes(EVENT_COLLECTIONS.events, [{ ...EVENTS_SEQ_BY_WALLET_INDEX }]);
      await target.dropIndex(EVENT_COLLECTIONS.events, 'events_seq');
      await target.dropIndex(EVENT_COLLECTIONS.events, 'events_feed');
    },
  },
  {
    version: 10,
    description:
      'a mode required on every entry and purchase, and given to older rows; validators from the current lists',
    async apply(target) {
      // The validators first, so that no write without a mode (a core of the previous build
      // still running) is accepted from here on; then every row still without one is made
      // live, so that the rule "no mode means live" is true of every stored row and every
      // equality filter on mode finds them. Each update matches only rows still without the
      // field, so a step interrupted half-way, or run by two cores at once, finishes the same.
      await refreshValidators(target);
      await giveOlderRowsTheirMode(target);
    },
  },
  {
    version: 11,
    description: 'indexes for the developer area: history by status and by product, deliveries and failed deliveries',
    async apply(target) {
      await target.createIndexes(COLLECTIONS.transactions, [
        TRANSACTIONS_BY_STATUS_INDEX,
        TRANSACTIONS_BY_PRODUCT_INDEX,
      ]);
      await target.createIndexes(EVENT_COLLECTIONS.events, [DELIVERIES_INDEX, FAILED_DELIVERIES_INDEX]);
    },
  },
  {
    version: 12,
    description: 'wallet funding: virtual accounts and inflows, one inflow per (provider, provider reference)',
    // The low-balance thresholds are optional fields of the account documents (no data step)
    // and wallet.low_balance needs nothing: the events collection has no validator on type.
    async apply(target) {
      await createMissingCollections(target, Object.values(FUNDING_COLLECTIONS), {});
      for (const [name, indexes] of Object.entries(FUNDING_INDEXES))
        await target.createIndexes(
          name,
          indexes.map((index) => ({ ...index })),
        );
    },
  },
  {
    version: 13,
    description: 'requests for API access, one per account',
    async apply(target) {
      await createMissingCollections(target, [UPGRADE_REQUESTS_COLLECTION], {});
      await target.createIndexes(UPGRADE_REQUESTS_COLLECTION, [
        {
          name: 'upgrade_requests_pending',
          key: { created_at: 1, _id: 1 },
          partialFilterExpression: { status: 'pending' },
        },
      ]);
    },
  },
  {
    version: 14,
    description: 'the audit log: staff actions and admin calls, append-only',
    async apply(target) {
      await createMissingCollections(target, [AUDIT_LOG_COLLECTION], {});
      await target.createIndexes(AUDIT_LOG_COLLECTION, [
        { name: 'audit_log_actor', key: { actor: 1, _id: -1 } },
        { name: 'audit_log_target', key: { target: 1, _id: -1 } },
      ]);
    },
  },
  {
    version: 15,
    description: "the platform's staff, their sessions and the four-eyes proposals of money moves",
    async apply(target) {
      await createMissingCollections(target, Object.values(STAFF_COLLECTIONS), {});
      await target.createIndexes(STAFF_COLLECTIONS.members, [
        { name: 'staff_members_email', key: { email: 1 }, unique: true },
        {
          name: 'staff_members_setup',
          key: { setup_token_hash: 1 },
          unique: true,
          partialFilterExpression: { setup_token_hash: { $type: 'string' } },
        },
      ]);
      await target.createIndexes(STAFF_COLLECTIONS.sessions, [
        { name: 'staff_sessions_by_member', key: { staff_id: 1 } },
        // MongoDB removes ended sessions by itself; expiry is still checked on every read.
        { name: 'staff_sessions_expiry', key: { absolute_expires_at: 1 }, expireAfterSeconds: 0 },
      ]);
      await target.createIndexes(STAFF_COLLECTIONS.proposals, [
        {
          name: 'proposals_open',
          key: { proposed_at: 1, _id: 1 },
          partialFilterExpression: { status: 'pending' },
        },
      ]);
    },
  },
  {
    version: 16,
    description: 'one person in several accounts: memberships apart from persons; invitations revocable',
    async apply(target) {
      await createMissingCollections(target, [MEMBERSHIPS_COLLECTION], {});
      await target.createIndexes(MEMBERSHIPS_COLLECTION, [...MEMBERSHIP_INDEXES]);
      await target.createIndexes(PEOPLE_COLLECTIONS.invitations, [INVITATIONS_BY_ACCOUNT_INDEX]);
      // Every user becomes a person with one membership: the account, role and disabled flag
      // they had. $merge keyed by _id keeps a membership that exists already, so the step
      // run twice (or by two cores at once) ends the same. The users keep their old fields.
      await target.aggregate(PEOPLE_COLLECTIONS.users, MEMBERSHIPS_FROM_USERS);
    },
  },
  {
    version: 17,
    description: 'email: password reset links (hashed), notices mailed once, and the low-balance events the mail reads',
    async apply(target) {
      await createMissingCollections(target, Object.values(MAIL_COLLECTIONS), {});
      await target.createIndexes(MAIL_COLLECTIONS.passwordResets, [
        { name: 'password_resets_user', key: { user_id: 1 } },
        // A link is removed a day after it ended.
        { name: 'password_resets_ttl', key: { expires_at: 1 }, expireAfterSeconds: 86_400 },
      ]);
      await target.createIndexes(EVENT_COLLECTIONS.events, [
        {
          name: 'events_low_balance',
          key: { created_at: 1 },
          partialFilterExpression: { type: 'wallet.low_balance', mode: 'live' },
        },
      ]);
    },
  },
  {
    version: 18,
    description: 'data plan types, sizes, validity days and costs; tier price rules',
    // Plans written before types existed are the networks' retail bundles: direct, with
    // size and validity days unknown (0) until a sync or an edit tells them. Each update
    // matches only documents still without the field, so a step interrupted half-way, or
    // run by two cores at once, finishes the same. Types switched off are settings
    // documents, and plan events need nothing: the events collection has no validator on type.
    async apply(target) {
      await target.updateMany(
        COLLECTIONS.plans,
        { plan_type: { $exists: false } },
        { plan_type: 'direct', size_mb: 0, validity_days: 0, costs: [] },
      );
      await target.updateMany(COLLECTIONS.tiers, { price_rules: { $exists: false } }, { price_rules: [] });
    },
  },
  {
    version: 19,
    description: 'supply: the upstream attempts of each purchase, the route table, upstream settings',
    async apply(target) {
      await createMissingCollections(target, Object.values(SUPPLY_COLLECTIONS), {});
      // An attempt's _id is "<reference>:<seq>", unique by itself; these serve the reads.
      await target.createIndexes(SUPPLY_COLLECTIONS.attempts, [
        { name: 'upstream_attempts_reference', key: { reference: 1, seq: 1 }, unique: true },
        { name: 'upstream_attempts_started', key: { started_at: 1 } },
      ]);
    },
  },
  {
    version: 20,
    description: "supply: each declared upstream's code for our data plans",
    async apply(target) {
      await createMissingCollections(target, [PLAN_CODES_COLLECTION], {});
      // A code's _id is "<upstream>:<plan id>", unique by itself; this serves the listing.
      await target.createIndexes(PLAN_CODES_COLLECTION, [
        { name: 'plan_codes_by_upstream', key: { upstream: 1, plan_id: 1 }, unique: true },
      ]);
    },
  },
  {
    version: 21,
    description: 'funding: openings a provider answers later, claimed by one core at a time',
    // Keyed by _id "<provider>:<customer>", unique by itself: nothing else to index.
    async apply(target) {
      await createMissingCollections(target, [FUNDING_OPENINGS_COLLECTION], {});
    },
  },
  {
    version: 22,
    description: 'reports: purchases and inflows by creation time',
    // A report's first stage is a range on created_at. Purchases written before test mode have
    // no mode (they are live), which a partial index cannot select, so that index is whole;
    // every inflow has its mode, so theirs holds live ones only.
    async apply(target) {
      await target.createIndexes(COLLECTIONS.transactions, [{ name: 'transactions_by_time', key: { created_at: 1 } }]);
      await target.createIndexes(FUNDING_COLLECTIONS.inflows, [
        { name: 'inflows_live_by_time', key: { created_at: 1 }, partialFilterExpression: { mode: 'live' } },
      ]);
    },
  },
  {
    version: 23,
    description: 'console: manual debits, a ledger kind of their own, once per reference per account',
    // The ledger's validator learns the kind (negative, with a reason); proposals and events
    // have no validator, so a debit proposal and wallet.debited need nothing more.
    async apply(target) {
      await refreshValidators(target);
      await target.createIndexes(COLLECTIONS.ledger, [{ ...MANUAL_DEBIT_REFERENCE_INDEX.description }]);
    },
  },
  {
    version: 24,
    description:
      "console: each purchase's upstream answers (purchase calls, re-queries, callbacks), cleaned and bounded",
    // An answer's _id is "<reference>:<n>", unique by itself; this serves a purchase's list and its last one.
    async apply(target) {
      await createMissingCollections(target, [UPSTREAM_ANSWERS_COLLECTION], {});
      await target.createIndexes(UPSTREAM_ANSWERS_COLLECTION, [
        { name: 'upstream_answers_reference', key: { reference: 1, n: 1 }, unique: true },
      ]);
    },
  },
  {
    version: 25,
    description: 'credit references unique per wallet (account and mode), as docs/cli.md says',
    // The new index first, so that a live reference stays guarded throughout; every ledger
    // row has its mode since step 4, and the old index was stricter, so the rows meet it.
    async apply(target) {
      await target.createIndexes(COLLECTIONS.ledger, [{ ...CREDIT_REFERENCE_INDEX.description }]);
      await target.dropIndex(COLLECTIONS.ledger, CREDIT_REFERENCE_PER_ACCOUNT_INDEX.name);
    },
  },
  {
    version: 26,
    description: "four eyes: a proposed credit's or debit's reference, once per account and kind",
    // Proposals have no validator; those made before have no reference and stay out of the index.
    async apply(target) {
      await target.createIndexes(STAFF_COLLECTIONS.proposals, [{ ...PROPOSAL_REFERENCE_INDEX.description }]);
    },
  },
  {
    version: 27,
    description: "key and recipient controls: each capped key's spend and each controlled recipient's, per Lagos day",
    // Every document is keyed by what it counts ("<public key> <day>", ...), unique by itself;
    // the collections are created here, not implicitly inside a reserve's transaction. A key's
    // controls live on its own document, an account's on the account's.
    async apply(target) {
      await createMissingCollections(target, [KEY_DAY_SPEND_COLLECTION, ...Object.values(RECIPIENT_COLLECTIONS)], {});
      await target.createIndexes(RECIPIENT_COLLECTIONS.blocks, [
        { name: 'recipient_blocks_by_account', key: { account_id: 1, created_at: -1 } },
      ]);
    },
  },
  {
    version: 28,
    description: 'the books: a double-entry journal of every money move, the history booked into it and checked',
    // The journal with the validator that refuses an unbalanced entry, and its indexes, before
    // any entry; then the history, resumable (books-history.ts), then the check that every
    // wallet equals minus its postings, which stops the step (and the core) when it fails.
    async apply(target) {
      await createMissingCollections(target, [JOURNAL_COLLECTION], { [JOURNAL_COLLECTION]: JOURNAL_VALIDATOR });
      for (const [name, indexes] of Object.entries(JOURNAL_INDEXES)) await target.createIndexes(name, [...indexes]);
      await migrateHistory(target);
      await checkHistory(target);
    },
  },
  {
    version: 29,
    description: "the velocity brake: frozen keys for the console's queue, and each key's spending per Lagos day",
    // A key's freeze lives on its own document (no validator to widen); the partial index holds
    // only the frozen ones. Events have no validator either, so key.frozen needs nothing more.
    async apply(target) {
      await createMissingCollections(target, [KEY_VELOCITY_COLLECTION], {});
      await target.createIndexes(KEY_VELOCITY_COLLECTION, [
        { name: 'key_velocity_days_by_key', key: { public_key: 1, day: 1 } },
      ]);
      await target.createIndexes(COLLECTIONS.apiKeys, [
        {
          name: 'api_keys_frozen',
          key: { 'frozen.at': 1, _id: 1 },
          partialFilterExpression: { frozen: { $exists: true } },
        },
      ]);
    },
  },
  {
    version: 30,
    description:
      "reconciliation: each day's findings against the upstreams, and the journal's entries by kind and time",
    // A finding's _id is its day, upstream, reference and class, so a rerun of a day upserts
    // nothing new; the open ones (resolved_at null) lead an index of their own for the attention queue. journal_by_kind
    // reads one kind's entries in a window (an upstream's top-ups).
    async apply(target) {
      await createMissingCollections(target, [RECONCILE_FINDINGS_COLLECTION], {});
      await target.createIndexes(RECONCILE_FINDINGS_COLLECTION, [
        { name: 'reconcile_findings_open', key: { resolved_at: 1, day: 1, upstream: 1, reference: 1 } },
        { name: 'reconcile_findings_by_day', key: { day: 1, upstream: 1 } },
      ]);
      await target.createIndexes(JOURNAL_COLLECTION, [{ name: 'journal_by_kind', key: { kind: 1, mode: 1, at: 1 } }]);
    },
  },
  {
    version: 31,
    description:
      "the books under four eyes: top-up and settlement proposals, findings resolved, the reconciliation's days and float readings",
    // Proposals have no validator: the new kinds and a settlement's fee_kobo need nothing. A
    // resolved finding's fields are set on it; reconcile_days is keyed by its upstream, and
    // float_readings by upstream and instant, read by upstream in time order.
    async apply(target) {
      await createMissingCollections(target, [RECONCILE_COLLECTIONS.days, RECONCILE_COLLECTIONS.floatReadings], {});
      await target.createIndexes(RECONCILE_COLLECTIONS.floatReadings, [
        { name: 'float_readings_by_time', key: { upstream: 1, at: 1 } },
      ]);
    },
  },
  {
    version: 32,
    description: "sign-up: the account's proven email and phone, and the sign-ups with their link and code",
    // Every account before this step was made by the operator: both proofs are its creation
    // time ($merge into the collection it reads, MongoDB 4.4 and later; run again, it finds
    // nothing without the fields). Accounts have no validator property to widen.
    async apply(target) {
      await target.aggregate(COLLECTIONS.accounts, ACCOUNTS_PROVEN_WHEN_MADE);
      await createMissingCollections(target, [SIGN_UPS_COLLECTION], {});
      await target.createIndexes(SIGN_UPS_COLLECTION, [
        { name: 'sign_ups_by_address', key: { address_key: 1, created_at: 1 } },
        { name: 'sign_ups_by_time', key: { created_at: 1 } },
        {
          name: 'sign_ups_email_token',
          key: { email_token_hash: 1 },
          unique: true,
          partialFilterExpression: { email_token_hash: { $type: 'string' } },
        },
      ]);
    },
  },
  {
    version: 33,
    description: 'compatible endpoints: tokens bound to a key pair (only their hash), and plan aliases per dialect',
    // A token is found by its hash alone (unique); an account's tokens and aliases are listed by account.
    async apply(target) {
      await createMissingCollections(target, Object.values(COMPAT_COLLECTIONS), {});
      await target.createIndexes(COMPAT_COLLECTIONS.tokens, [
        { name: 'compat_tokens_by_hash', key: { token_hash: 1 }, unique: true },
        { name: 'compat_tokens_by_account', key: { account_id: 1, created_at: -1 } },
      ]);
      await target.createIndexes(COMPAT_COLLECTIONS.aliases, [
        { name: 'plan_aliases_by_account', key: { account_id: 1, dialect: 1, alias_id: 1 } },
      ]);
    },
  },
  {
    version: 34,
    description: "compatible endpoints: each account's callback per dialect (Adex's final-status posts)",
    // Its _id is "<account> <dialect>": read and written by that alone, so it needs no other index.
    async apply(target) {
      await createMissingCollections(target, [COMPAT_CALLBACKS_COLLECTION], {});
    },
  },
  {
    version: 35,
    description: "identity levels: each account's level and inflow, the levels' limits, held credits, requests",
    // An account without kyc_level reads as level 3 (every account the operator made, which had
    // no limit before); a self-signed-up account not yet proven (it could touch no live money)
    // starts at 1. The cumulative inflow is what the providers credited so far ($merge, run
    // again it writes the same sums). The limits are seeded with the defaults once (insertNew).
    async apply(target) {
      await createMissingCollections(target, Object.values(KYC_COLLECTIONS), {});
      await target.insertNew(
        KYC_COLLECTIONS.levels,
        DEFAULT_LEVEL_LIMITS.map((limits) => levelToDoc(limits, new Date(0))),
      );
      await target.updateMany(
        COLLECTIONS.accounts,
        { kyc_level: { $exists: false }, $or: [{ email_verified_at: null }, { phone_verified_at: null }] },
        { kyc_level: SIGN_UP_LEVEL },
      );
      await target.aggregate(FUNDING_COLLECTIONS.inflows, INFLOW_TOTALS);
      await target.createIndexes(KYC_COLLECTIONS.holds, [
        { name: 'kyc_holds_by_account', key: { account_id: 1, status: 1, created_at: 1 } },
        { name: 'kyc_holds_by_status', key: { status: 1, created_at: 1, _id: 1 } },
      ]);
      await target.createIndexes(KYC_COLLECTIONS.requests, [
        {
          name: 'kyc_requests_one_open',
          key: { account_id: 1 },
          unique: true,
          partialFilterExpression: { status: 'pending' },
        },
        { name: 'kyc_requests_by_account', key: { account_id: 1, created_at: -1 } },
        { name: 'kyc_requests_by_status', key: { status: 1, created_at: 1, _id: 1 } },
      ]);
    },
  },
  {
    version: 36,
    description: "holders' mail choices: the mails a person turned off; the wallet mails' events by time",
    // One document a person (_id the user id); the wallet mails read live credits and debits by time.
    async apply(target) {
      await createMissingCollections(target, [MAIL_OPT_OUTS_COLLECTION], {});
      await target.createIndexes(EVENT_COLLECTIONS.events, [
        { name: 'events_wallet_money', key: { type: 1, mode: 1, created_at: 1 } },
      ]);
    },
  },
];

/** Schema step 35's data step: each account's live inflow credited so far. */
const INFLOW_TOTALS: readonly Document[] = [
  { $match: { mode: 'live', status: 'credited', account_id: { $type: 'string' } } },
  { $group: { _id: '$account_id', kyc_inflow_kobo: { $sum: '$credited_kobo' } } },
  { $merge: { into: COLLECTIONS.accounts, on: '_id', whenMatched: 'merge', whenNotMatched: 'discard' } },
];

/** Schema step 32's data step: an account without its proofs gets its creation time for both. */
const ACCOUNTS_PROVEN_WHEN_MADE: readonly Document[] = [
  { $match: { email_verified_at: { $exists: false } } },
  { $project: { _id: 1, email_verified_at: '$created_at', phone_verified_at: '$created_at' } },
  { $merge: { into: COLLECTIONS.accounts, on: '_id', whenMatched: 'merge', whenNotMatched: 'discard' } },
];

/**
 * Schema step 16's data step: one membership per user, keyed "<user id> <account id>" as
 * users.ts keys them; a membership already there is kept (whenMatched: keepExisting).
 */
export const MEMBERSHIPS_FROM_USERS: readonly Document[] = [
  { $match: { account_id: { $type: 'string' } } },
  {
    $project: {
      _id: { $concat: ['$_id', ' ', '$account_id'] },
      user_id: '$_id',
      account_id: '$account_id',
      role: '$role',
      disabled: '$disabled',
      created_at: '$created_at',
    },
  },
  { $merge: { into: MEMBERSHIPS_COLLECTION, on: '_id', whenMatched: 'keepExisting', whenNotMatched: 'insert' } },
];

/** The schema version this build writes. */
export const SCHEMA_VERSION = SCHEMA_STEPS[SCHEMA_STEPS.length - 1]!.version;

/**
 * Runs the steps the database has not had yet, in order, recording each one as it
 * finishes (so a core that stops half-way resumes at the step it was in). Returns the
 * versions it ran.
 */
export async function runSchemaSteps(
  target: SchemaTarget,
  steps: readonly SchemaStep[] = SCHEMA_STEPS,
): Promise<number[]> {
  steps.forEach((step, i) => {
    if (step.version !== i + 1)
      throw new Error(`schema step ${i + 1} is numbered ${step.version}; steps run 1, 2, 3, ...`);
  });
  const latest = steps.length;
  const found = await target.readVersion();
  if (found > latest) {
    // A newer build wrote this database; running old code against it could corrupt money.
    throw new Error(`store schema version ${found} is newer than this build understands (${latest})`);
  }
  const ran: number[] = [];
  for (const step of steps.slice(found)) {
    await step.apply(target);
    await target.recordVersion(step.version);
    ran.push(step.version);
  }
  return ran;
}

/**
 * Brings the database up to SCHEMA_VERSION (see the header), then checks that every
 * validator is in force: returns the report, and throws when a collection runs without
 * its money guards.
 */
export async function ensureSchema(target: SchemaTarget): Promise<ValidatorReport> {
  await runSchemaSteps(target);
  const report = checkValidators(await target.collections());
  if (report.missing.length > 0) {
    throw new MissingValidatorError(report.missing);
  }
  return report;
}
