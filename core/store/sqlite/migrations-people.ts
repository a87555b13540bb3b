/**
 * SQLite schema steps 7 to 10: the developer area's users, invitations and sessions, the
 * events outbox and webhook endpoints, key pairs' last use, and due events by destination.
 */
import type { Migration } from './migration.js';

export const PEOPLE_AND_EVENTS_MIGRATIONS: readonly Migration[] = [
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
];
