/**
 * SQLite schema steps of key and recipient controls (docs/security.md): what each key pair
 * may do, what its capped purchases charged each Africa/Lagos day, and what accounts allow
 * to one recipient.
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
];
