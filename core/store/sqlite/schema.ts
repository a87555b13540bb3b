/**
 * The SQLite schema as an ordered list of migrations. `PRAGMA user_version` records how
 * many have run; opening a store runs the missing ones, each in its own transaction. A
 * later change to the schema appends a migration here and never edits a shipped one,
 * because files written by older versions must still open.
 */
import type Database from 'better-sqlite3';

/** One schema step; `version` is the user_version the file has once it ran. */
export interface Migration {
  version: number;
  description: string;
  sql: string;
}

export const MIGRATIONS: readonly Migration[] = [
  {
    version: 1,
    description: 'accounts, keys, catalog, ledger and transactions',
    sql: `
      -- Every time column holds integer milliseconds since the Unix epoch, UTC.
      -- Every money column holds integer kobo.

      CREATE TABLE tiers (
        tier_id     TEXT PRIMARY KEY,
        name        TEXT NOT NULL,
        api_access  INTEGER NOT NULL CHECK (api_access IN (0, 1)),
        discounts   TEXT NOT NULL CHECK (json_valid(discounts))
      ) STRICT;

      -- tier_id is not a foreign key: the store port lets an account name a tier the
      -- catalog use case checks, and the MongoDB adapter could not enforce it anyway.
      CREATE TABLE accounts (
        account_id    TEXT PRIMARY KEY,
        name          TEXT NOT NULL,
        tier_id       TEXT NOT NULL,
        balance_kobo  INTEGER NOT NULL CHECK (balance_kobo >= 0),
        created_at    INTEGER NOT NULL
      ) STRICT;

      CREATE TABLE api_keys (
        public_key   TEXT PRIMARY KEY,
        account_id   TEXT NOT NULL REFERENCES accounts (account_id),
        secret_hash  TEXT NOT NULL,
        allowed_ips  TEXT NOT NULL CHECK (json_valid(allowed_ips)),
        revoked      INTEGER NOT NULL CHECK (revoked IN (0, 1)),
        created_at   INTEGER NOT NULL
      ) STRICT;
      CREATE INDEX api_keys_by_account ON api_keys (account_id, created_at DESC, public_key);

      -- AUTOINCREMENT so that an allocated plan id is never handed out again, even if a
      -- row were ever removed by hand: partners keep plan ids in their own code.
      CREATE TABLE plans (
        plan_id          INTEGER PRIMARY KEY AUTOINCREMENT CHECK (plan_id > 0),
        network          TEXT NOT NULL,
        label            TEXT NOT NULL,
        validity         TEXT NOT NULL,
        face_value_kobo  INTEGER NOT NULL CHECK (face_value_kobo >= 0),
        tier_prices      TEXT NOT NULL CHECK (json_valid(tier_prices)),
        active           INTEGER NOT NULL CHECK (active IN (0, 1))
      ) STRICT;
      CREATE INDEX plans_by_network ON plans (network, plan_id);

      CREATE TABLE cable_packages (
        provider      TEXT NOT NULL,
        package_code  TEXT NOT NULL,
        name          TEXT NOT NULL,
        price_kobo    INTEGER NOT NULL CHECK (price_kobo >= 0),
        active        INTEGER NOT NULL CHECK (active IN (0, 1)),
        PRIMARY KEY (provider, package_code)
      ) STRICT;

      CREATE TABLE settings (
        key    TEXT PRIMARY KEY,
        value  ANY NOT NULL
      ) STRICT;

      -- The ledger is append-only: the triggers below refuse every UPDATE and DELETE.
      -- The sign of an amount follows its kind, and no entry may leave a negative balance.
      CREATE TABLE ledger_entries (
        entry_id            INTEGER PRIMARY KEY AUTOINCREMENT,
        account_id          TEXT NOT NULL REFERENCES accounts (account_id),
        amount_kobo         INTEGER NOT NULL,
        balance_after_kobo  INTEGER NOT NULL CHECK (balance_after_kobo >= 0),
        kind                TEXT NOT NULL CHECK (kind IN ('credit', 'debit', 'refund')),
        reference           TEXT NOT NULL,
        memo                TEXT NOT NULL,
        created_at          INTEGER NOT NULL,
        CHECK ((kind = 'debit' AND amount_kobo < 0) OR (kind <> 'debit' AND amount_kobo > 0))
      ) STRICT;
      CREATE INDEX ledger_by_account ON ledger_entries (account_id, entry_id DESC);
      -- A purchase has at most one debit and at most one refund, whatever the code above
      -- does: this is the last line of defence against refunding twice. Credits are left
      -- out so that the admin's credit references need not be unique.
      CREATE UNIQUE INDEX ledger_once_per_purchase ON ledger_entries (reference, kind)
        WHERE kind IN ('debit', 'refund');

      CREATE TRIGGER ledger_entries_no_update BEFORE UPDATE ON ledger_entries
      BEGIN
        SELECT RAISE(ABORT, 'ledger entries are immutable');
      END;
      CREATE TRIGGER ledger_entries_no_delete BEFORE DELETE ON ledger_entries
      BEGIN
        SELECT RAISE(ABORT, 'ledger entries are immutable');
      END;

      CREATE TABLE transactions (
        reference           TEXT PRIMARY KEY,
        account_id          TEXT NOT NULL REFERENCES accounts (account_id),
        product             TEXT NOT NULL,
        status              TEXT NOT NULL CHECK (status IN ('pending', 'success', 'failed')),
        service             TEXT NOT NULL,
        recipient           TEXT NOT NULL,
        face_value_kobo     INTEGER NOT NULL CHECK (face_value_kobo >= 0),
        charged_kobo        INTEGER NOT NULL CHECK (charged_kobo > 0),
        balance_after_kobo  INTEGER NOT NULL CHECK (balance_after_kobo >= 0),
        details             TEXT NOT NULL CHECK (json_valid(details)),
        result              TEXT CHECK (result IS NULL OR json_valid(result)),
        failure_reason      TEXT,
        request_id          TEXT,
        request_hash        TEXT,
        attempts            INTEGER NOT NULL CHECK (attempts >= 0),
        next_attempt_at     INTEGER NOT NULL,
        needs_attention     INTEGER NOT NULL CHECK (needs_attention IN (0, 1)),
        created_at          INTEGER NOT NULL,
        updated_at          INTEGER NOT NULL
      ) STRICT;
      -- The idempotency record: one request_id per account.
      CREATE UNIQUE INDEX transactions_request_id ON transactions (account_id, request_id)
        WHERE request_id IS NOT NULL;
      CREATE INDEX transactions_history ON transactions (account_id, created_at DESC, reference DESC);
      -- Partial, so the recovery worker's scan only ever touches pending rows.
      CREATE INDEX transactions_due ON transactions (next_attempt_at, created_at, reference)
        WHERE status = 'pending';

      -- success and failed are final: a bug that tries to move a settled purchase to
      -- refunded (or back) fails loudly instead of moving money twice.
      CREATE TRIGGER transactions_final_states BEFORE UPDATE OF status ON transactions
      WHEN OLD.status <> 'pending' AND NEW.status <> OLD.status
      BEGIN
        SELECT RAISE(ABORT, 'a settled transaction cannot change status');
      END;
    `,
  },
  {
    version: 2,
    description: 'pending transactions by age, for the attention list',
    sql: `
      CREATE INDEX transactions_pending_by_age ON transactions (created_at, reference)
        WHERE status = 'pending';
    `,
  },
  {
    version: 3,
    description: 'the reversed state; provider codes on plans and cable packages',
    // SQLite cannot change a CHECK constraint in place, so the transactions table is
    // rebuilt (the documented 12-step way: new table, copy, drop, rename, then indexes and
    // triggers again). Ledger rows reference purchases by text, so nothing else moves.
    sql: `
      CREATE TABLE transactions_v3 (
        reference           TEXT PRIMARY KEY,
        account_id          TEXT NOT NULL REFERENCES accounts (account_id),
        product             TEXT NOT NULL,
        status              TEXT NOT NULL CHECK (status IN ('pending', 'success', 'failed', 'reversed')),
        service             TEXT NOT NULL,
        recipient           TEXT NOT NULL,
        face_value_kobo     INTEGER NOT NULL CHECK (face_value_kobo >= 0),
        charged_kobo        INTEGER NOT NULL CHECK (charged_kobo > 0),
        balance_after_kobo  INTEGER NOT NULL CHECK (balance_after_kobo >= 0),
        details             TEXT NOT NULL CHECK (json_valid(details)),
        result              TEXT CHECK (result IS NULL OR json_valid(result)),
        failure_reason      TEXT,
        request_id          TEXT,
        request_hash        TEXT,
        attempts            INTEGER NOT NULL CHECK (attempts >= 0),
        next_attempt_at     INTEGER NOT NULL,
        needs_attention     INTEGER NOT NULL CHECK (needs_attention IN (0, 1)),
        created_at          INTEGER NOT NULL,
        updated_at          INTEGER NOT NULL
      ) STRICT;
      INSERT INTO transactions_v3 SELECT * FROM transactions;
      DROP TABLE transactions;
      ALTER TABLE transactions_v3 RENAME TO transactions;
      CREATE UNIQUE INDEX transactions_request_id ON transactions (account_id, request_id)
        WHERE request_id IS NOT NULL;
      CREATE INDEX transactions_history ON transactions (account_id, created_at DESC, reference DESC);
      CREATE INDEX transactions_due ON transactions (next_attempt_at, created_at, reference)
        WHERE status = 'pending';
      CREATE INDEX transactions_pending_by_age ON transactions (created_at, reference)
        WHERE status = 'pending';
      -- Final states stay final; the one move out of one is a reversal of a success.
      CREATE TRIGGER transactions_final_states BEFORE UPDATE OF status ON transactions
      WHEN OLD.status <> 'pending' AND NEW.status <> OLD.status
        AND NOT (OLD.status = 'success' AND NEW.status = 'reversed')
      BEGIN
        SELECT RAISE(ABORT, 'a settled transaction cannot change status');
      END;

      ALTER TABLE plans ADD COLUMN provider_code TEXT NOT NULL DEFAULT '';
      ALTER TABLE cable_packages ADD COLUMN provider_code TEXT NOT NULL DEFAULT '';
    `,
  },
  {
    version: 4,
    description: 'the ledger index in entry order, with the amounts the ledger check reads',
    // The ledger check walks every account's entries oldest first and needs each amount and
    // recorded balance: with them in the index it reads the index alone, in order, instead of
    // a table row per entry at a random place. History (newest first) scans it backwards.
    sql: `
      DROP INDEX ledger_by_account;
      CREATE INDEX ledger_by_account ON ledger_entries (account_id, entry_id, amount_kobo, balance_after_kobo);
    `,
  },
  {
    version: 5,
    description: 'test mode: a test wallet per account; the mode of every key, entry and purchase',
    // Every existing row was made before test mode existed, so it is live (the defaults).
    // The idempotency index and the indexes a wallet's history pages through are re-scoped
    // to (account, mode): a request_id used in live is new in test, and each mode's history
    // and ledger page through their own rows only. ADD COLUMN does not touch the ledger's
    // rows, so its no-update trigger is not in the way.
    sql: `
      ALTER TABLE accounts ADD COLUMN test_balance_kobo INTEGER NOT NULL DEFAULT 0 CHECK (test_balance_kobo >= 0);
      ALTER TABLE api_keys ADD COLUMN mode TEXT NOT NULL DEFAULT 'live' CHECK (mode IN ('live', 'test'));
      ALTER TABLE ledger_entries ADD COLUMN mode TEXT NOT NULL DEFAULT 'live' CHECK (mode IN ('live', 'test'));
      ALTER TABLE transactions ADD COLUMN mode TEXT NOT NULL DEFAULT 'live' CHECK (mode IN ('live', 'test'));

      DROP INDEX ledger_by_account;
      CREATE INDEX ledger_by_account ON ledger_entries (account_id, mode, entry_id, amount_kobo, balance_after_kobo);
      DROP INDEX transactions_request_id;
      CREATE UNIQUE INDEX transactions_request_id ON transactions (account_id, mode, request_id)
        WHERE request_id IS NOT NULL;
      DROP INDEX transactions_history;
      CREATE INDEX transactions_history ON transactions (account_id, mode, created_at DESC, reference DESC);
    `,
  },
  {
    version: 6,
    description: 'credit references unique per account',
    // An operator's credit may be retried with its reference; the store answers the first
    // credit instead of writing a second one, and this index is the guard behind that check.
    // Credits written before had references the core made up (unique by construction), so
    // an existing ledger meets it.
    sql: `
      CREATE UNIQUE INDEX ledger_credit_reference ON ledger_entries (account_id, reference)
        WHERE kind = 'credit';
    `,
  },
  {
    version: 7,
    description: 'users, invitations and sessions of the developer area',
    // Tokens are stored only as their SHA-256; a password only as its scrypt hash.
    sql: `
      CREATE TABLE users (
        user_id              TEXT PRIMARY KEY,
        account_id           TEXT NOT NULL REFERENCES accounts (account_id),
        email                TEXT NOT NULL UNIQUE,
        role                 TEXT NOT NULL CHECK (role IN ('owner', 'viewer')),
        password_hash        TEXT NOT NULL,
        disabled             INTEGER NOT NULL CHECK (disabled IN (0, 1)),
        totp_secret          TEXT,
        totp_pending_secret  TEXT,
        totp_last_step       INTEGER NOT NULL,
        created_at           INTEGER NOT NULL
      ) STRICT;
      CREATE INDEX users_by_account ON users (account_id, created_at, user_id);

      CREATE TABLE invitations (
        token_hash  TEXT PRIMARY KEY,
        account_id  TEXT NOT NULL REFERENCES accounts (account_id),
        email       TEXT NOT NULL,
        role        TEXT NOT NULL CHECK (role IN ('owner', 'viewer')),
        invited_by  TEXT NOT NULL,
        created_at  INTEGER NOT NULL,
        expires_at  INTEGER NOT NULL,
        used_at     INTEGER
      ) STRICT;

      CREATE TABLE sessions (
        token_hash           TEXT PRIMARY KEY,
        stage                TEXT NOT NULL CHECK (stage IN ('session', 'totp')),
        user_id              TEXT NOT NULL REFERENCES users (user_id),
        account_id           TEXT NOT NULL,
        created_at           INTEGER NOT NULL,
        last_seen_at         INTEGER NOT NULL,
        absolute_expires_at  INTEGER NOT NULL
      ) STRICT;
      CREATE INDEX sessions_by_user ON sessions (user_id);
      CREATE INDEX sessions_by_expiry ON sessions (absolute_expires_at);

      -- The holder's search by recipient (a phone, meter or card) without reading the
      -- account's whole history.
      CREATE INDEX transactions_by_recipient ON transactions (account_id, mode, recipient, created_at DESC, reference DESC);
    `,
  },
  {
    version: 8,
    description: 'events (the outbox of webhooks and the events feed) and webhook endpoints',
    // seq is the feed's order: one writer at a time holds the file's write lock, so events
    // commit in seq order and a poller reading after the last seq it saw never skips one.
    // An event is written by the same transaction as the change it announces (wallet.ts).
    sql: `
      CREATE TABLE events (
        seq              INTEGER PRIMARY KEY AUTOINCREMENT,
        event_id         TEXT NOT NULL UNIQUE,
        account_id       TEXT NOT NULL REFERENCES accounts (account_id),
        mode             TEXT NOT NULL CHECK (mode IN ('live', 'test')),
        type             TEXT NOT NULL CHECK (type IN ('transaction.success', 'transaction.failed',
                           'transaction.reversed', 'wallet.credited', 'ping')),
        subject          TEXT NOT NULL,
        body             TEXT NOT NULL CHECK (json_valid(body)),
        created_at       INTEGER NOT NULL,
        delivery         TEXT NOT NULL CHECK (delivery IN ('none', 'pending', 'delivered', 'failed')),
        attempts         INTEGER NOT NULL CHECK (attempts >= 0),
        -- While pending: when the next attempt is due. A claim moves it to the end of the
        -- claim's lease, so a leased event is not due again unless its worker died.
        next_attempt_at  INTEGER,
        queued_at        INTEGER NOT NULL,
        lease_owner      TEXT,
        last_status      INTEGER,
        last_error       TEXT,
        last_attempt_at  INTEGER,
        CHECK ((delivery = 'pending') = (next_attempt_at IS NOT NULL))
      ) STRICT;
      CREATE INDEX events_feed ON events (account_id, mode, seq);
      CREATE INDEX events_due ON events (next_attempt_at, seq) WHERE delivery = 'pending';
      CREATE INDEX events_undelivered ON events (created_at) WHERE delivery = 'pending';
      -- One event per state change of a purchase, whatever the code above does.
      CREATE UNIQUE INDEX events_once_per_move ON events (subject, type)
        WHERE type IN ('transaction.success', 'transaction.failed', 'transaction.reversed');
      -- What an event says is fixed when it is recorded; only its delivery moves.
      CREATE TRIGGER events_fixed BEFORE UPDATE OF seq, event_id, account_id, mode, type, subject, body, created_at ON events
      BEGIN
        SELECT RAISE(ABORT, 'an event cannot be changed');
      END;
      CREATE TRIGGER events_no_delete BEFORE DELETE ON events
      BEGIN
        SELECT RAISE(ABORT, 'events are kept');
      END;

      CREATE TABLE webhook_endpoints (
        account_id              TEXT NOT NULL REFERENCES accounts (account_id),
        mode                    TEXT NOT NULL CHECK (mode IN ('live', 'test')),
        url                     TEXT NOT NULL,
        secret                  TEXT NOT NULL,
        previous_secret         TEXT,
        previous_secret_until   INTEGER,
        enabled                 INTEGER NOT NULL CHECK (enabled IN (0, 1)),
        created_at              INTEGER NOT NULL,
        updated_at              INTEGER NOT NULL,
        PRIMARY KEY (account_id, mode)
      ) STRICT;
    `,
  },
  {
    version: 9,
    description: 'when each key pair last authenticated a request',
    // Apart from api_keys, so the key check stays a read and these batched writes
    // (core/accounts/key-use.ts) never touch a key's row.
    sql: `
      CREATE TABLE api_key_use (
        public_key    TEXT PRIMARY KEY REFERENCES api_keys (public_key),
        last_used_at  INTEGER NOT NULL
      ) STRICT;
    `,
  },
  {
    version: 10,
    description: 'due events by destination, for the webhook worker',
    // The worker claims for one destination whenever its receiver has room; events_due alone
    // would make it step over every other destination's due events to find them.
    sql: `
      CREATE INDEX events_due_by_destination ON events (account_id, mode, next_attempt_at, seq) WHERE delivery = 'pending';
    `,
  },
  {
    version: 11,
    description: 'wallet funding: virtual accounts, inflows, low-balance thresholds and the wallet.low_balance event',
    // The events table is rebuilt because SQLite cannot change a CHECK in place; its rows,
    // seq values (the feed's order) and AUTOINCREMENT position move over unchanged. DROP
    // TABLE removes the table's triggers before its implicit delete, so events_no_delete
    // does not fire, and no table references events.
    sql: `
      ALTER TABLE accounts ADD COLUMN low_balance_kobo INTEGER CHECK (low_balance_kobo IS NULL OR low_balance_kobo > 0);
      ALTER TABLE accounts ADD COLUMN test_low_balance_kobo INTEGER CHECK (test_low_balance_kobo IS NULL OR test_low_balance_kobo > 0);

      -- A BVN or NIN is never stored whole: its last four digits and a keyed hash only.
      CREATE TABLE virtual_accounts (
        provider               TEXT NOT NULL CHECK (provider IN ('sandbox', 'paystack', 'monnify')),
        account_number         TEXT NOT NULL,
        account_id             TEXT NOT NULL REFERENCES accounts (account_id),
        mode                   TEXT NOT NULL CHECK (mode IN ('live', 'test')),
        bank_name              TEXT NOT NULL,
        bank_code              TEXT NOT NULL,
        account_name           TEXT NOT NULL,
        provider_customer_ref  TEXT NOT NULL,
        status                 TEXT NOT NULL CHECK (status IN ('active', 'closed')),
        kyc_kind               TEXT NOT NULL CHECK (kyc_kind IN ('bvn', 'nin')),
        kyc_last4              TEXT NOT NULL CHECK (length(kyc_last4) = 4),
        kyc_hash               TEXT NOT NULL,
        created_at             INTEGER NOT NULL,
        PRIMARY KEY (provider, account_number)
      ) STRICT;
      CREATE INDEX virtual_accounts_by_account ON virtual_accounts (account_id, mode, created_at);

      -- One row per (provider, provider reference): the exactly-once key of every credit.
      CREATE TABLE inflows (
        inflow_id           TEXT PRIMARY KEY,
        provider            TEXT NOT NULL CHECK (provider IN ('sandbox', 'paystack', 'monnify')),
        provider_reference  TEXT NOT NULL,
        account_number      TEXT NOT NULL,
        account_id          TEXT REFERENCES accounts (account_id),
        mode                TEXT NOT NULL CHECK (mode IN ('live', 'test')),
        amount_paid_kobo    INTEGER NOT NULL CHECK (amount_paid_kobo > 0),
        fee_kobo            INTEGER NOT NULL CHECK (fee_kobo >= 0),
        credited_kobo       INTEGER NOT NULL CHECK (credited_kobo >= 0),
        payer_name          TEXT NOT NULL,
        status              TEXT NOT NULL CHECK (status IN ('verified', 'credited', 'unmatched', 'rejected')),
        reason              TEXT NOT NULL,
        raw                 TEXT NOT NULL,
        credit_reference    TEXT NOT NULL,
        created_at          INTEGER NOT NULL,
        updated_at          INTEGER NOT NULL,
        CHECK (status <> 'credited' OR (account_id IS NOT NULL AND credited_kobo > 0 AND credit_reference <> '')),
        UNIQUE (provider, provider_reference)
      ) STRICT;
      CREATE INDEX inflows_by_status ON inflows (status, created_at, inflow_id);
      CREATE INDEX inflows_by_account ON inflows (account_id, mode, created_at DESC);
      -- A credited inflow stays credited: the credit it made is in the ledger for good.
      CREATE TRIGGER inflows_credited_final BEFORE UPDATE ON inflows WHEN OLD.status = 'credited'
      BEGIN
        SELECT RAISE(ABORT, 'a credited inflow cannot change');
      END;

      CREATE TABLE events_next (
        seq              INTEGER PRIMARY KEY AUTOINCREMENT,
        event_id         TEXT NOT NULL UNIQUE,
        account_id       TEXT NOT NULL REFERENCES accounts (account_id),
        mode             TEXT NOT NULL CHECK (mode IN ('live', 'test')),
        type             TEXT NOT NULL CHECK (type IN ('transaction.success', 'transaction.failed',
                           'transaction.reversed', 'wallet.credited', 'wallet.low_balance', 'ping')),
        subject          TEXT NOT NULL,
        body             TEXT NOT NULL CHECK (json_valid(body)),
        created_at       INTEGER NOT NULL,
        delivery         TEXT NOT NULL CHECK (delivery IN ('none', 'pending', 'delivered', 'failed')),
        attempts         INTEGER NOT NULL CHECK (attempts >= 0),
        next_attempt_at  INTEGER,
        queued_at        INTEGER NOT NULL,
        lease_owner      TEXT,
        last_status      INTEGER,
        last_error       TEXT,
        last_attempt_at  INTEGER,
        CHECK ((delivery = 'pending') = (next_attempt_at IS NOT NULL))
      ) STRICT;
      INSERT INTO events_next SELECT * FROM events;
      DROP TABLE events;
      ALTER TABLE events_next RENAME TO events;
      CREATE INDEX events_feed ON events (account_id, mode, seq);
      CREATE INDEX events_due ON events (next_attempt_at, seq) WHERE delivery = 'pending';
      CREATE INDEX events_undelivered ON events (created_at) WHERE delivery = 'pending';
      CREATE UNIQUE INDEX events_once_per_move ON events (subject, type)
        WHERE type IN ('transaction.success', 'transaction.failed', 'transaction.reversed');
      CREATE INDEX events_due_by_destination ON events (account_id, mode, next_attempt_at, seq) WHERE delivery = 'pending';
      CREATE TRIGGER events_fixed BEFORE UPDATE OF seq, event_id, account_id, mode, type, subject, body, created_at ON events
      BEGIN
        SELECT RAISE(ABORT, 'an event cannot be changed');
      END;
      CREATE TRIGGER events_no_delete BEFORE DELETE ON events
      BEGIN
        SELECT RAISE(ABORT, 'events are kept');
      END;
      `,
  },
  {
    version: 12,
    description: "users' recovery codes for two-step sign-in, stored as their hashes",
    sql: `
      ALTER TABLE users ADD COLUMN recovery_code_hashes TEXT NOT NULL DEFAULT '[]';
      `,
  },
  {
    version: 13,
    description: 'requests for API access, one per account',
    sql: `
      CREATE TABLE upgrade_requests (
        account_id    TEXT PRIMARY KEY REFERENCES accounts (account_id),
        status        TEXT NOT NULL CHECK (status IN ('pending', 'approved', 'refused')),
        requested_by  TEXT NOT NULL,
        note          TEXT NOT NULL,
        created_at    INTEGER NOT NULL,
        decided_at    INTEGER,
        key_issued_at INTEGER
      ) STRICT;
      CREATE INDEX upgrade_requests_pending ON upgrade_requests (created_at) WHERE status = 'pending';
    `,
  },
];

/** The schema version this code writes. */
export const SCHEMA_VERSION = MIGRATIONS[MIGRATIONS.length - 1]!.version;

/**
 * Brings the file up to SCHEMA_VERSION. Each migration runs in an IMMEDIATE transaction
 * that re-reads user_version first, so two processes opening a new file at once cannot
 * both run the same step.
 */
export function migrate(db: Database.Database): void {
  const found = db.pragma('user_version', { simple: true }) as number;
  if (found > SCHEMA_VERSION) {
    // A newer build wrote this file; running old code against it could corrupt money rows.
    throw new Error(`store schema version ${found} is newer than this build understands (${SCHEMA_VERSION})`);
  }
  for (const migration of MIGRATIONS) {
    const step = db.transaction(() => {
      const current = db.pragma('user_version', { simple: true }) as number;
      if (current >= migration.version) return;
      if (current !== migration.version - 1) {
        throw new Error(`schema version ${current} cannot be migrated by step ${migration.version}`);
      }
      db.exec(migration.sql);
      db.pragma(`user_version = ${migration.version}`);
    });
    step.immediate();
  }
}
