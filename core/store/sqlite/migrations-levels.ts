/**
 * SQLite schema step 41: identity levels (docs/kyc.md). Each account gains its level and the
 * cumulative inflow its live wallet has taken from the funding providers. Every account made
 * before this step starts at level 3, which has no limit by default, so nothing it did before
 * is limited now; a self-signed-up account whose owner has not proven both email and phone
 * (it could touch no live money before) starts at level 1. The cumulative inflow is what the
 * providers credited to each live wallet so far. The limits of each level are seeded with
 * core/domain/levels.ts's defaults; the credits held over them and the holders' requests for
 * the next level get tables of their own. The proposals are rebuilt (as in step 36 of migrations-books.ts: a new table,
 * every row copied, the indexes again) to take `hold_return`, a held credit returned to its payer.
 */
import { DEFAULT_LEVEL_LIMITS } from '../../domain/levels.js';
import type { Migration } from './migration.js';

const sqlValue = (value: number | null) => (value === null ? 'NULL' : String(value));

const SEED = DEFAULT_LEVEL_LIMITS.map(
  (l) =>
    `(${l.level}, ${sqlValue(l.maxBalanceKobo)}, ${sqlValue(l.maxInflowKobo)}, ${sqlValue(l.maxDailySpendKobo)}, 0)`,
).join(', ');

export const LEVELS_MIGRATIONS: readonly Migration[] = [
  {
    version: 41,
    description: "identity levels: each account's level and inflow, the levels' limits, held credits, requests",
    sql: `
      ALTER TABLE accounts ADD COLUMN kyc_level INTEGER NOT NULL DEFAULT 3 CHECK (kyc_level IN (1, 2, 3));
      ALTER TABLE accounts ADD COLUMN kyc_inflow_kobo INTEGER NOT NULL DEFAULT 0 CHECK (kyc_inflow_kobo >= 0);
      UPDATE accounts SET kyc_level = 1
        WHERE account_id IN (SELECT account_id FROM sign_ups)
          AND (email_verified_at IS NULL OR phone_verified_at IS NULL);
      UPDATE accounts SET kyc_inflow_kobo = coalesce((SELECT sum(i.credited_kobo) FROM inflows i
        WHERE i.account_id = accounts.account_id AND i.mode = 'live' AND i.status = 'credited'), 0);

      CREATE TABLE kyc_levels (
        level                 INTEGER PRIMARY KEY CHECK (level IN (1, 2, 3)),
        max_balance_kobo      INTEGER CHECK (max_balance_kobo >= 0),
        max_inflow_kobo       INTEGER CHECK (max_inflow_kobo >= 0),
        max_daily_spend_kobo  INTEGER CHECK (max_daily_spend_kobo >= 0),
        updated_at            INTEGER NOT NULL
      ) STRICT;
      INSERT INTO kyc_levels (level, max_balance_kobo, max_inflow_kobo, max_daily_spend_kobo, updated_at)
        VALUES ${SEED};

      CREATE TABLE kyc_holds (
        inflow_id    TEXT PRIMARY KEY REFERENCES inflows (inflow_id),
        account_id   TEXT NOT NULL REFERENCES accounts (account_id),
        provider     TEXT NOT NULL,
        amount_kobo  INTEGER NOT NULL CHECK (amount_kobo > 0),
        status       TEXT NOT NULL CHECK (status IN ('held', 'released', 'returned')),
        created_at   INTEGER NOT NULL,
        updated_at   INTEGER NOT NULL
      ) STRICT;
      CREATE INDEX kyc_holds_by_account ON kyc_holds (account_id, status, created_at);
      CREATE INDEX kyc_holds_held ON kyc_holds (created_at, inflow_id) WHERE status = 'held';

      CREATE TABLE kyc_requests (
        request_id          TEXT PRIMARY KEY,
        account_id          TEXT NOT NULL REFERENCES accounts (account_id),
        level               INTEGER NOT NULL CHECK (level IN (2, 3)),
        kind                TEXT NOT NULL CHECK (kind IN ('bvn', 'nin', 'cac')),
        number_last4        TEXT NOT NULL CHECK (length(number_last4) = 4),
        number_hash         TEXT NOT NULL,
        document_reference  TEXT NOT NULL,
        requested_by        TEXT NOT NULL,
        status              TEXT NOT NULL CHECK (status IN ('pending', 'approved', 'refused')),
        created_at          INTEGER NOT NULL,
        decided_at          INTEGER,
        decided_by          TEXT,
        note                TEXT NOT NULL DEFAULT ''
      ) STRICT;
      CREATE UNIQUE INDEX kyc_requests_one_open ON kyc_requests (account_id) WHERE status = 'pending';

      CREATE TABLE proposals_next (
        proposal_id  TEXT PRIMARY KEY,
        kind         TEXT NOT NULL CHECK (kind IN ('credit', 'refund', 'pending_failed', 'inflow_assign', 'debit',
                       'upstream_topup', 'provider_settlement', 'hold_return')),
        account_id   TEXT NOT NULL,
        target       TEXT NOT NULL,
        amount_kobo  INTEGER NOT NULL CHECK (amount_kobo >= 0),
        note         TEXT NOT NULL,
        proposed_by  TEXT NOT NULL,
        proposed_at  INTEGER NOT NULL,
        expires_at   INTEGER NOT NULL,
        status       TEXT NOT NULL CHECK (status IN ('pending', 'approved', 'refused')),
        decided_by   TEXT,
        decided_at   INTEGER,
        applied_at   INTEGER,
        reference    TEXT NOT NULL DEFAULT '',
        memo         TEXT NOT NULL DEFAULT '',
        fee_kobo     INTEGER NOT NULL DEFAULT 0 CHECK (fee_kobo >= 0),
        CHECK (decided_by IS NULL OR decided_by <> proposed_by OR status = 'refused')
      ) STRICT;
      INSERT INTO proposals_next SELECT proposal_id, kind, account_id, target, amount_kobo, note, proposed_by,
          proposed_at, expires_at, status, decided_by, decided_at, applied_at, reference, memo, fee_kobo FROM proposals;
      DROP TABLE proposals;
      ALTER TABLE proposals_next RENAME TO proposals;
      CREATE INDEX proposals_open ON proposals (proposed_at) WHERE status = 'pending';
      CREATE UNIQUE INDEX proposals_reference ON proposals (account_id, kind, reference) WHERE reference <> '';
      CREATE INDEX kyc_requests_by_account ON kyc_requests (account_id, created_at);
      CREATE INDEX kyc_requests_pending ON kyc_requests (created_at, request_id) WHERE status = 'pending';
    `,
  },
];
