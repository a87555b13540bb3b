/**
 * SQLite schema steps 1 to 6: accounts, keys, the catalogue, the ledger and transactions,
 * then the pending list, the reversed state, the ledger's entry-order index, test mode and
 * single-use credit references. Shipped steps are never edited (schema.ts says why).
 */
import type { Migration } from './migration.js';

export const MONEY_MIGRATIONS: readonly Migration[] = [
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
];
