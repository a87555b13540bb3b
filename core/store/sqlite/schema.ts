/**
 * The SQLite schema as an ordered list of migrations (the steps themselves, by what they
 * build, in migrations-money.ts, migrations-people.ts, migrations-business.ts,
 * migrations-controls.ts, migrations-books.ts, migrations-sign-up.ts,
 * migrations-compat.ts and migrations-levels.ts; their
 * shape in migration.ts). `PRAGMA user_version` records how many have run; opening a store
 * runs the missing ones, each in its own transaction. A later change to the schema appends a
 * migration here and never edits a shipped one, because files written by older versions must
 * still open.
 */
import type Database from 'better-sqlite3';
import type { Migration } from './migration.js';
import { BOOKS_MIGRATIONS } from './migrations-books.js';
import { BUSINESS_MIGRATIONS } from './migrations-business.js';
import { COMPAT_MIGRATIONS } from './migrations-compat.js';
import { CONTROLS_MIGRATIONS } from './migrations-controls.js';
import { LEVELS_MIGRATIONS } from './migrations-levels.js';
import { MAIL_MIGRATIONS } from './migrations-mail.js';
import { MONEY_MIGRATIONS } from './migrations-money.js';
import { PEOPLE_AND_EVENTS_MIGRATIONS } from './migrations-people.js';
import { SIGN_UP_MIGRATIONS } from './migrations-sign-up.js';

export const MIGRATIONS: readonly Migration[] = [
  ...MONEY_MIGRATIONS,
  ...PEOPLE_AND_EVENTS_MIGRATIONS,
  ...BUSINESS_MIGRATIONS,
  ...CONTROLS_MIGRATIONS,
  ...BOOKS_MIGRATIONS,
  ...SIGN_UP_MIGRATIONS,
  ...COMPAT_MIGRATIONS,
  ...LEVELS_MIGRATIONS,
  ...MAIL_MIGRATIONS,
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
