/**
 * The SQLite schema steps of the compatible endpoints (docs/compat.md): tokens of other sites'
 * API shapes bound to a key pair, and each account's plan aliases and callback per dialect.
 */
import type { Migration } from './migration.js';

export const COMPAT_MIGRATIONS: readonly Migration[] = [
  {
    version: 39,
    description: 'compatible endpoints: tokens bound to a key pair (only their hash), and plan aliases per dialect',
    // A token is found by its hash alone (the unique index); the plan an alias names must exist.
    sql: `
      CREATE TABLE compat_tokens (
        token_id   TEXT PRIMARY KEY,
        token_hash TEXT NOT NULL UNIQUE CHECK (length(token_hash) = 64),
        last_four  TEXT NOT NULL,
        dialect    TEXT NOT NULL CHECK (dialect IN ('msorg', 'adex', 'vtpass')),
        in_flight  TEXT NOT NULL CHECK (in_flight IN ('pending', 'processing')),
        public_key TEXT NOT NULL REFERENCES api_keys (public_key),
        account_id TEXT NOT NULL REFERENCES accounts (account_id),
        mode       TEXT NOT NULL CHECK (mode IN ('live', 'test')),
        created_at INTEGER NOT NULL,
        revoked_at INTEGER
      ) STRICT;
      CREATE INDEX compat_tokens_by_account ON compat_tokens (account_id, created_at);
      CREATE TABLE plan_aliases (
        account_id TEXT NOT NULL REFERENCES accounts (account_id),
        dialect    TEXT NOT NULL CHECK (dialect IN ('msorg', 'adex', 'vtpass')),
        alias_id   TEXT NOT NULL CHECK (length(alias_id) BETWEEN 1 AND 20),
        plan_id    INTEGER NOT NULL REFERENCES plans (plan_id),
        updated_at INTEGER NOT NULL,
        PRIMARY KEY (account_id, dialect, alias_id)
      ) STRICT;
    `,
  },
  {
    version: 40,
    description: "compatible endpoints: each account's callback per dialect (Adex's final-status posts)",
    sql: `
      CREATE TABLE compat_callbacks (
        account_id TEXT NOT NULL REFERENCES accounts (account_id),
        dialect    TEXT NOT NULL CHECK (dialect IN ('msorg', 'adex', 'vtpass')),
        url        TEXT NOT NULL CHECK (length(url) BETWEEN 1 AND 2048),
        updated_at INTEGER NOT NULL,
        PRIMARY KEY (account_id, dialect)
      ) STRICT;
    `,
  },
];
