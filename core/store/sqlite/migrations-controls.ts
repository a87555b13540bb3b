/**
 * SQLite schema steps of key and recipient controls (docs/security.md): what each key pair
 * may do, what its capped purchases charged each Africa/Lagos day, what accounts allow
 * to one recipient, and the velocity brake's freezes and history.
 */
import type { Migration } from './migration.js';

export const CONTROLS_MIGRATIONS: readonly Migration[] = [
  {
    version: 31,
    description: "key pairs' scopes and caps, and each capped key's spend per Lagos day",
    // A key's controls are a column of its row, so the key-pair check reads them with the key
    // it reads anyway. key_spends names the capped key each counted purchase was charged to,
    // so that its refund gives the charge back to that key's day (one look-up by reference,
    // on refunds only; the purchase rows keep their columns).
    sql: `
      ALTER TABLE api_keys ADD COLUMN controls TEXT CHECK (controls IS NULL OR json_valid(controls));
      CREATE TABLE key_spends (
        reference   TEXT PRIMARY KEY REFERENCES transactions (reference),
        public_key  TEXT NOT NULL,
        day         INTEGER NOT NULL
      ) STRICT, WITHOUT ROWID;
      CREATE TABLE key_day_spend (
        public_key  TEXT NOT NULL REFERENCES api_keys (public_key),
        day         INTEGER NOT NULL,
        spent_kobo  INTEGER NOT NULL CHECK (spent_kobo >= 0),
        PRIMARY KEY (public_key, day)
      ) STRICT, WITHOUT ROWID;
    `,
  },
  {
    version: 32,
    description: 'recipient controls: blocklists, per-recipient limits per Lagos day, the duplicate guard',
    // account_id '' is the platform's list. An account's controls are a column of its row, so
    // the purchase path reads them with the account and tier it reads anyway. recipient_days
    // counts each controlled recipient's purchases per Lagos day; recipient_last is the last
    // purchase of each (account, mode, product, recipient, amount) for the duplicate guard;
    // recipient_spends names each controlled purchase and the day it was counted on, for its refund.
    sql: `
      ALTER TABLE accounts ADD COLUMN recipient_controls TEXT
        CHECK (recipient_controls IS NULL OR json_valid(recipient_controls));
      CREATE TABLE recipient_blocks (
        account_id  TEXT NOT NULL,
        value       TEXT NOT NULL,
        reason      TEXT NOT NULL,
        blocked_by  TEXT NOT NULL,
        created_at  INTEGER NOT NULL,
        PRIMARY KEY (account_id, value)
      ) STRICT, WITHOUT ROWID;
      CREATE TABLE recipient_days (
        account_id  TEXT NOT NULL,
        mode        TEXT NOT NULL,
        recipient   TEXT NOT NULL,
        day         INTEGER NOT NULL,
        count       INTEGER NOT NULL CHECK (count >= 0),
        spent_kobo  INTEGER NOT NULL CHECK (spent_kobo >= 0),
        PRIMARY KEY (account_id, mode, recipient, day)
      ) STRICT, WITHOUT ROWID;
      CREATE TABLE recipient_last (
        account_id       TEXT NOT NULL,
        mode             TEXT NOT NULL,
        product          TEXT NOT NULL,
        recipient        TEXT NOT NULL,
        face_value_kobo  INTEGER NOT NULL,
        reference        TEXT NOT NULL,
        at               INTEGER NOT NULL,
        PRIMARY KEY (account_id, mode, product, recipient, face_value_kobo)
      ) STRICT, WITHOUT ROWID;
      CREATE TABLE recipient_spends (
        reference  TEXT PRIMARY KEY REFERENCES transactions (reference),
        day        INTEGER NOT NULL,
        counted    INTEGER NOT NULL CHECK (counted IN (0, 1))
      ) STRICT, WITHOUT ROWID;
    `,
  },
  {
    version: 33,
    description: 'key rolls: a rolled key pair works until the end of its grace period',
    sql: 'ALTER TABLE api_keys ADD COLUMN expires_at INTEGER;',
  },
  {
    version: 34,
    description: "the velocity brake: a key's freeze, each key's spending per Lagos day, key.frozen and key.unfrozen",
    // A key's freeze is a column of its row, so the key-pair check reads it with the key; the
    // partial index serves the console's queue of frozen keys. key_velocity_days is what the
    // brake judges a key by, written in the background (core/accounts/velocity.ts), never by
    // a reserve. The events' CHECK widens for the two new types: the table is rebuilt exactly
    // as in step 25 (which says why that is safe), with every index and trigger again.
    sql: `
      ALTER TABLE api_keys ADD COLUMN frozen TEXT CHECK (frozen IS NULL OR json_valid(frozen));
      CREATE INDEX api_keys_frozen ON api_keys (public_key) WHERE frozen IS NOT NULL;
      CREATE TABLE key_velocity_days (
        public_key           TEXT NOT NULL,
        day                  INTEGER NOT NULL,
        spent_kobo           INTEGER NOT NULL CHECK (spent_kobo >= 0),
        peak_new_recipients  INTEGER NOT NULL CHECK (peak_new_recipients >= 0),
        PRIMARY KEY (public_key, day)
      ) STRICT, WITHOUT ROWID;

      CREATE TABLE events_next (
        seq              INTEGER PRIMARY KEY AUTOINCREMENT,
        event_id         TEXT NOT NULL UNIQUE,
        account_id       TEXT NOT NULL REFERENCES accounts (account_id),
        mode             TEXT NOT NULL CHECK (mode IN ('live', 'test')),
        type             TEXT NOT NULL CHECK (type IN ('transaction.success', 'transaction.failed',
                           'transaction.reversed', 'wallet.credited', 'wallet.debited', 'wallet.low_balance',
                           'ping', 'plan.updated', 'plan.disabled', 'key.frozen', 'key.unfrozen')),
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
      CREATE INDEX events_due_by_destination ON events (account_id, mode, next_attempt_at, seq)
        WHERE delivery = 'pending';
      CREATE INDEX events_low_balance ON events (created_at) WHERE type = 'wallet.low_balance' AND mode = 'live';
      CREATE TRIGGER events_fixed BEFORE UPDATE OF seq, event_id, account_id, mode, type, subject, body, created_at
        ON events
      BEGIN
        SELECT RAISE(ABORT, 'an event cannot be changed');
      END;
      CREATE TRIGGER events_no_delete BEFORE DELETE ON events
      BEGIN
        SELECT RAISE(ABORT, 'events are kept');
      END;
    `,
  },
];
