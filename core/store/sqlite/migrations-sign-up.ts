/**
 * SQLite schema step 38: accounts their owners sign up for (docs/sign-up.md). Each account
 * gains when its owner's email and phone were proven; every account made before this step was
 * made by the operator, so both are its creation time (nothing existing changes). A sign-up's
 * own row keeps the owner's phone, where they signed up from (the per-address budget), the
 * email link's and phone code's hashes, and the code's tries and sends.
 */
import type { Migration } from './migration.js';

export const SIGN_UP_MIGRATIONS: readonly Migration[] = [
  {
    version: 38,
    description: "sign-up: the account's proven email and phone, and the sign-ups with their link and code",
    sql: `
      ALTER TABLE accounts ADD COLUMN email_verified_at INTEGER;
      ALTER TABLE accounts ADD COLUMN phone_verified_at INTEGER;
      UPDATE accounts SET email_verified_at = created_at, phone_verified_at = created_at;

      CREATE TABLE sign_ups (
        account_id             TEXT PRIMARY KEY REFERENCES accounts (account_id),
        user_id                TEXT NOT NULL REFERENCES users (user_id),
        phone                  TEXT NOT NULL CHECK (length(phone) = 11),
        address_key            TEXT NOT NULL,
        email_domain           TEXT NOT NULL,
        created_at             INTEGER NOT NULL,
        email_token_hash       TEXT UNIQUE,
        email_token_expires_at INTEGER,
        phone_code_hash        TEXT,
        phone_code_expires_at  INTEGER,
        phone_code_tries       INTEGER NOT NULL DEFAULT 0 CHECK (phone_code_tries >= 0),
        phone_code_sent_at     INTEGER,
        phone_code_day         INTEGER,
        phone_codes_today      INTEGER NOT NULL DEFAULT 0 CHECK (phone_codes_today >= 0)
      ) STRICT;
      CREATE INDEX sign_ups_by_address ON sign_ups (address_key, created_at);
      CREATE INDEX sign_ups_by_time ON sign_ups (created_at);
    `,
  },
];
