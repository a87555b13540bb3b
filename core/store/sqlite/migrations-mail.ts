/**
 * The SQLite schema steps of the holders' mail choices (docs/email.md): which mails each person
 * turned off, and the index the wallet mails read their events by.
 */
import type { Migration } from './migration.js';

export const MAIL_MIGRATIONS: readonly Migration[] = [
  {
    version: 42,
    description: "holders' mail choices: the mails a person turned off; the wallet mails' events by time",
    // The literal types and mode are the query's in sqlite/mail.ts (walletMoneySince).
    sql: `
      CREATE TABLE mail_opt_outs (
        user_id TEXT NOT NULL REFERENCES users (user_id),
        kind    TEXT NOT NULL CHECK (kind IN ('wallet_credited', 'wallet_debited', 'api_access_approved')),
        at      INTEGER NOT NULL,
        PRIMARY KEY (user_id, kind)
      ) STRICT;
      CREATE INDEX events_wallet_money ON events (created_at)
        WHERE type IN ('wallet.credited', 'wallet.debited') AND mode = 'live';
    `,
  },
];
