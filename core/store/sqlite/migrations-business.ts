/**
 * SQLite schema steps 11 to 20: wallet funding (virtual accounts, inflows, low-balance
 * thresholds), users' recovery codes, requests for API access, the audit log, the platform's
 * staff and four-eyes proposals, one person in several accounts (memberships, revocable
 * invitations), mail (reset links, notices sent), plan types, costs and price rules, and
 * supply (upstream attempts, routes, upstream settings), funding openings answered later.
 */
import type { Migration } from './migration.js';

export const BUSINESS_MIGRATIONS: readonly Migration[] = [
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
  {
    version: 14,
    description: 'the audit log: staff actions and admin calls, append-only',
    sql: `
      CREATE TABLE audit_log (
        entry_id    TEXT PRIMARY KEY,
        at          INTEGER NOT NULL,
        actor       TEXT NOT NULL,
        action      TEXT NOT NULL,
        target      TEXT NOT NULL,
        before_json TEXT,
        after_json  TEXT,
        address     TEXT,
        note        TEXT NOT NULL
      ) STRICT;
      CREATE INDEX audit_log_actor ON audit_log (actor, entry_id);
      CREATE INDEX audit_log_target ON audit_log (target, entry_id);
      CREATE TRIGGER audit_log_no_update BEFORE UPDATE ON audit_log
      BEGIN
        SELECT RAISE(ABORT, 'the audit log is append-only');
      END;
      CREATE TRIGGER audit_log_no_delete BEFORE DELETE ON audit_log
      BEGIN
        SELECT RAISE(ABORT, 'the audit log is append-only');
      END;
    `,
  },
  {
    version: 15,
    description: "the platform's staff, their sessions and the four-eyes proposals of money moves",
    // Tokens are stored only as their SHA-256; a password only as its scrypt hash.
    sql: `
      CREATE TABLE staff_members (
        staff_id          TEXT PRIMARY KEY,
        email             TEXT NOT NULL UNIQUE,
        role              TEXT NOT NULL CHECK (role IN ('admin', 'support', 'finance')),
        password_hash     TEXT NOT NULL,
        totp_secret       TEXT NOT NULL,
        totp_last_step    INTEGER NOT NULL,
        disabled          INTEGER NOT NULL CHECK (disabled IN (0, 1)),
        setup_token_hash  TEXT UNIQUE,
        setup_expires_at  INTEGER,
        created_at        INTEGER NOT NULL
      ) STRICT;
      CREATE TABLE staff_sessions (
        token_hash          TEXT PRIMARY KEY,
        staff_id            TEXT NOT NULL REFERENCES staff_members (staff_id),
        created_at          INTEGER NOT NULL,
        last_seen_at        INTEGER NOT NULL,
        absolute_expires_at INTEGER NOT NULL
      ) STRICT;
      CREATE INDEX staff_sessions_by_member ON staff_sessions (staff_id);
      CREATE TABLE proposals (
        proposal_id  TEXT PRIMARY KEY,
        kind         TEXT NOT NULL CHECK (kind IN ('credit', 'refund', 'pending_failed', 'inflow_assign')),
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
        CHECK (decided_by IS NULL OR decided_by <> proposed_by OR status = 'refused')
      ) STRICT;
      CREATE INDEX proposals_open ON proposals (proposed_at) WHERE status = 'pending';
    `,
  },
  {
    version: 16,
    description: 'one person in several accounts: memberships apart from persons; invitations revocable',
    // Every user becomes a person with one membership: the account, role and disabled flag
    // they had, so nobody loses a password, a two-step secret or a recovery code. The users
    // table keeps its account_id, role and disabled columns: SQLite drops a column named by a
    // foreign key only by rebuilding the table, which sessions reference, and a step runs
    // inside a transaction where foreign keys cannot be turned off. From this step on no code
    // reads them; a new person's row is given the account and role of the invitation that
    // brought them, and memberships are the truth.
    sql: `
      CREATE TABLE memberships (
        user_id     TEXT NOT NULL REFERENCES users (user_id),
        account_id  TEXT NOT NULL REFERENCES accounts (account_id),
        role        TEXT NOT NULL CHECK (role IN ('owner', 'viewer')),
        disabled    INTEGER NOT NULL CHECK (disabled IN (0, 1)),
        created_at  INTEGER NOT NULL,
        PRIMARY KEY (user_id, account_id)
      ) STRICT;
      CREATE INDEX memberships_by_account ON memberships (account_id, created_at, user_id);
      INSERT INTO memberships (user_id, account_id, role, disabled, created_at)
        SELECT user_id, account_id, role, disabled, created_at FROM users;

      ALTER TABLE invitations ADD COLUMN revoked_at INTEGER;
      CREATE INDEX invitations_open ON invitations (account_id, email, created_at)
        WHERE used_at IS NULL AND revoked_at IS NULL;
    `,
  },
  {
    version: 17,
    description: 'email: password reset links (hashed), notices mailed once, and the low-balance events the mail reads',
    sql: `
      CREATE TABLE password_resets (
        token_hash TEXT PRIMARY KEY,
        user_id    TEXT NOT NULL,
        created_at INTEGER NOT NULL,
        expires_at INTEGER NOT NULL,
        used_at    INTEGER
      ) STRICT;
      CREATE INDEX password_resets_open ON password_resets (user_id) WHERE used_at IS NULL;
      CREATE INDEX password_resets_expiry ON password_resets (expires_at);
      CREATE TABLE notices_sent (
        notice_key TEXT PRIMARY KEY,
        sent_at    INTEGER NOT NULL
      ) STRICT;
      CREATE INDEX events_low_balance ON events (created_at) WHERE type = 'wallet.low_balance' AND mode = 'live';
    `,
  },
  {
    version: 18,
    description:
      'data plan types, sizes, validity days and costs; tier price rules; plan types switched off; plan events',
    // Plans written before types existed are the networks' retail bundles: direct. Their
    // size and validity days stay 0 (unknown) until a sync or an edit tells them. The events
    // table is rebuilt as in step 11, for its type CHECK (with every index since, step 17's
    // too); plan events are not once per subject (a plan changes many times), so the unique
    // index keeps to purchases.
    sql: `
      ALTER TABLE plans ADD COLUMN plan_type TEXT NOT NULL DEFAULT 'direct'
        CHECK (plan_type IN ('sme', 'sme2', 'cg', 'gifting', 'awoof', 'direct'));
      ALTER TABLE plans ADD COLUMN size_mb INTEGER NOT NULL DEFAULT 0 CHECK (size_mb >= 0);
      ALTER TABLE plans ADD COLUMN validity_days INTEGER NOT NULL DEFAULT 0 CHECK (validity_days >= 0);
      ALTER TABLE plans ADD COLUMN costs TEXT NOT NULL DEFAULT '{}' CHECK (json_valid(costs));
      ALTER TABLE tiers ADD COLUMN price_rules TEXT NOT NULL DEFAULT '[]' CHECK (json_valid(price_rules));

      -- One row per (network, type) the operator switched off; no row: on.
      CREATE TABLE plan_types_off (
        network    TEXT NOT NULL,
        plan_type  TEXT NOT NULL,
        PRIMARY KEY (network, plan_type)
      ) STRICT;

      CREATE TABLE events_next (
        seq              INTEGER PRIMARY KEY AUTOINCREMENT,
        event_id         TEXT NOT NULL UNIQUE,
        account_id       TEXT NOT NULL REFERENCES accounts (account_id),
        mode             TEXT NOT NULL CHECK (mode IN ('live', 'test')),
        type             TEXT NOT NULL CHECK (type IN ('transaction.success', 'transaction.failed',
                           'transaction.reversed', 'wallet.credited', 'wallet.low_balance', 'ping',
                           'plan.updated', 'plan.disabled')),
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
      CREATE INDEX events_low_balance ON events (created_at) WHERE type = 'wallet.low_balance' AND mode = 'live';
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
    version: 19,
    description: 'supply: the upstream attempts of each purchase, the route table, upstream settings',
    sql: `
      CREATE TABLE upstream_attempts (
        reference  TEXT NOT NULL REFERENCES transactions (reference),
        seq        INTEGER NOT NULL CHECK (seq >= 1),
        upstream   TEXT NOT NULL,
        started_at INTEGER NOT NULL,
        outcome    TEXT CHECK (outcome IN ('not_delivered', 'failed', 'pending', 'delivered')),
        evidence   TEXT,
        cost_kobo  INTEGER,
        ended_at   INTEGER,
        PRIMARY KEY (reference, seq)
      ) STRICT;
      CREATE INDEX upstream_attempts_started ON upstream_attempts (started_at);
      CREATE TABLE routes (
        product    TEXT NOT NULL,
        network    TEXT NOT NULL,
        plan_type  TEXT NOT NULL,
        disco      TEXT NOT NULL,
        upstreams  TEXT NOT NULL,
        updated_at INTEGER NOT NULL,
        PRIMARY KEY (product, network, plan_type, disco)
      ) STRICT;
      CREATE TABLE upstream_settings (
        upstream         TEXT PRIMARY KEY,
        float_alert_kobo INTEGER CHECK (float_alert_kobo IS NULL OR float_alert_kobo >= 0),
        updated_at       INTEGER NOT NULL
      ) STRICT;
    `,
  },
  {
    version: 20,
    description: "supply: each declared upstream's code for our data plans",
    sql: `
      CREATE TABLE plan_codes (
        plan_id    INTEGER NOT NULL REFERENCES plans (plan_id),
        upstream   TEXT NOT NULL,
        code       TEXT NOT NULL CHECK (code <> ''),
        updated_at INTEGER NOT NULL,
        PRIMARY KEY (upstream, plan_id)
      ) STRICT;
    `,
  },
  {
    version: 21,
    description: 'products: cost rules of airtime, electricity and cable per upstream (a commission off face value)',
    sql: `
      CREATE TABLE cost_rules (
        product                 TEXT NOT NULL CHECK (product IN ('airtime', 'electricity', 'cable')),
        service                 TEXT NOT NULL,
        upstream                TEXT NOT NULL,
        commission_basis_points INTEGER NOT NULL CHECK (commission_basis_points BETWEEN 0 AND 10000),
        PRIMARY KEY (product, service, upstream)
      ) STRICT;
    `,
  },
  {
    version: 22,
    description: 'funding: openings a provider answers later, claimed by one core at a time',
    // One row per (provider, customer): the store, not a core's memory, decides who opens the
    // customer's account when copies of the provider's event reach several cores at once.
    sql: `
      CREATE TABLE funding_openings (
        provider      TEXT NOT NULL CHECK (provider IN ('sandbox', 'paystack', 'monnify')),
        customer_ref  TEXT NOT NULL,
        account_id    TEXT NOT NULL REFERENCES accounts (account_id),
        mode          TEXT NOT NULL CHECK (mode IN ('live', 'test')),
        kyc_kind      TEXT NOT NULL CHECK (kyc_kind IN ('bvn', 'nin')),
        kyc_last4     TEXT NOT NULL,
        kyc_hash      TEXT NOT NULL,
        status        TEXT NOT NULL CHECK (status IN ('pending', 'opening', 'opened')),
        claimed_at    INTEGER,
        created_at    INTEGER NOT NULL,
        updated_at    INTEGER NOT NULL,
        CHECK ((status = 'opening') = (claimed_at IS NOT NULL)),
        PRIMARY KEY (provider, customer_ref)
      ) STRICT;
    `,
  },
  {
    version: 23,
    description: 'reports: live purchases and inflows by creation time, with the columns their sums read',
    // Partial (live only: test purchases never pay for it) and covering: a report reads one
    // range of the index and no table row, and the reference leads to the attempts' key.
    sql: `
      CREATE INDEX transactions_live_by_time
        ON transactions (created_at, product, status, charged_kobo, account_id, reference)
        WHERE mode = 'live';
      CREATE INDEX inflows_live_by_time
        ON inflows (created_at, provider, status, amount_paid_kobo, fee_kobo, credited_kobo)
        WHERE mode = 'live';
    `,
  },
  {
    version: 24,
    description: 'console: an account suspended by staff (when, by whom, why)',
    sql: `
      ALTER TABLE accounts ADD COLUMN suspended_at INTEGER;
      ALTER TABLE accounts ADD COLUMN suspended_by TEXT;
      ALTER TABLE accounts ADD COLUMN suspension_note TEXT;
    `,
  },
  {
    version: 25,
    description:
      'console: manual debits (a ledger kind of their own, once per reference), wallet.debited, debit proposals',
    // Three CHECKs widen, and SQLite cannot change a CHECK in place: ledger_entries, events and
    // proposals are rebuilt as in steps 3 and 18 (new table, copy every row, drop, rename, then
    // every index and trigger again). DROP TABLE removes a table's triggers before its implicit
    // delete, so the no-delete triggers do not fire; no table references these three.
    // AUTOINCREMENT positions move with the rows (the copies keep entry_id and seq).
    sql: `
      CREATE TABLE ledger_entries_next (
        entry_id            INTEGER PRIMARY KEY AUTOINCREMENT,
        account_id          TEXT NOT NULL REFERENCES accounts (account_id),
        amount_kobo         INTEGER NOT NULL,
        balance_after_kobo  INTEGER NOT NULL CHECK (balance_after_kobo >= 0),
        kind                TEXT NOT NULL CHECK (kind IN ('credit', 'debit', 'refund', 'manual_debit')),
        reference           TEXT NOT NULL,
        memo                TEXT NOT NULL,
        created_at          INTEGER NOT NULL,
        mode                TEXT NOT NULL DEFAULT 'live' CHECK (mode IN ('live', 'test')),
        CHECK ((kind IN ('debit', 'manual_debit') AND amount_kobo < 0)
          OR (kind IN ('credit', 'refund') AND amount_kobo > 0)),
        CHECK (kind <> 'manual_debit' OR memo <> '')
      ) STRICT;
      INSERT INTO ledger_entries_next (entry_id, account_id, amount_kobo, balance_after_kobo, kind, reference, memo,
          created_at, mode)
        SELECT entry_id, account_id, amount_kobo, balance_after_kobo, kind, reference, memo, created_at, mode
        FROM ledger_entries;
      DROP TABLE ledger_entries;
      ALTER TABLE ledger_entries_next RENAME TO ledger_entries;
      CREATE INDEX ledger_by_account ON ledger_entries (account_id, mode, entry_id, amount_kobo, balance_after_kobo);
      CREATE UNIQUE INDEX ledger_once_per_purchase ON ledger_entries (reference, kind)
        WHERE kind IN ('debit', 'refund');
      CREATE UNIQUE INDEX ledger_credit_reference ON ledger_entries (account_id, reference)
        WHERE kind = 'credit';
      -- A manual debit's reference (its proposal's id, or the CLI's) is used once per account:
      -- a proposal applied again after a crash cannot take the money twice.
      CREATE UNIQUE INDEX ledger_manual_debit_reference ON ledger_entries (account_id, reference)
        WHERE kind = 'manual_debit';
      CREATE TRIGGER ledger_entries_no_update BEFORE UPDATE ON ledger_entries
      BEGIN
        SELECT RAISE(ABORT, 'ledger entries are immutable');
      END;
      CREATE TRIGGER ledger_entries_no_delete BEFORE DELETE ON ledger_entries
      BEGIN
        SELECT RAISE(ABORT, 'ledger entries are immutable');
      END;

      CREATE TABLE events_next (
        seq              INTEGER PRIMARY KEY AUTOINCREMENT,
        event_id         TEXT NOT NULL UNIQUE,
        account_id       TEXT NOT NULL REFERENCES accounts (account_id),
        mode             TEXT NOT NULL CHECK (mode IN ('live', 'test')),
        type             TEXT NOT NULL CHECK (type IN ('transaction.success', 'transaction.failed',
                           'transaction.reversed', 'wallet.credited', 'wallet.debited', 'wallet.low_balance',
                           'ping', 'plan.updated', 'plan.disabled')),
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

      CREATE TABLE proposals_next (
        proposal_id  TEXT PRIMARY KEY,
        kind         TEXT NOT NULL CHECK (kind IN ('credit', 'refund', 'pending_failed', 'inflow_assign', 'debit')),
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
        CHECK (decided_by IS NULL OR decided_by <> proposed_by OR status = 'refused')
      ) STRICT;
      INSERT INTO proposals_next SELECT * FROM proposals;
      DROP TABLE proposals;
      ALTER TABLE proposals_next RENAME TO proposals;
      CREATE INDEX proposals_open ON proposals (proposed_at) WHERE status = 'pending';
    `,
  },
  {
    version: 26,
    description:
      "console: each purchase's upstream answers (purchase calls, re-queries, callbacks), cleaned and bounded",
    sql: `
      CREATE TABLE upstream_answers (
        reference  TEXT NOT NULL,
        n          INTEGER NOT NULL CHECK (n >= 1),
        upstream   TEXT NOT NULL,
        source     TEXT NOT NULL CHECK (source IN ('purchase', 'requery', 'callback')),
        body       TEXT NOT NULL,
        at         INTEGER NOT NULL,
        PRIMARY KEY (reference, n)
      ) STRICT, WITHOUT ROWID;
    `,
  },
  {
    version: 27,
    description: "supply: an attempt keeps the upstream's own id of the purchase, for re-queries by that id",
    sql: `
      ALTER TABLE upstream_attempts ADD COLUMN upstream_reference TEXT;
    `,
  },
  {
    version: 28,
    description: 'credit references unique per wallet (account and mode), as docs/cli.md says',
    // A reference rehearsed in the test wallet no longer blocks the live credit it rehearsed;
    // each wallet keeps its own once-only guard. The old index was stricter, so the rows meet it.
    sql: `
      DROP INDEX ledger_credit_reference;
      CREATE UNIQUE INDEX ledger_credit_reference ON ledger_entries (account_id, mode, reference)
        WHERE kind = 'credit';
    `,
  },
  {
    version: 29,
    description:
      "four eyes: a proposed credit's or debit's reference and memo, the reference once per account and kind",
    // Proposals made before kept no reference (their id was the ledger's): '' says so, and the
    // partial index leaves them out.
    sql: `
      ALTER TABLE proposals ADD COLUMN reference TEXT NOT NULL DEFAULT '';
      ALTER TABLE proposals ADD COLUMN memo TEXT NOT NULL DEFAULT '';
      CREATE UNIQUE INDEX proposals_reference ON proposals (account_id, kind, reference) WHERE reference <> '';
    `,
  },
  {
    version: 30,
    description: 'four eyes: who invited each staff member or changed their role, and since when they hold it',
    // Members from before are taken to hold their powers since they were created, invited by
    // nobody known: they are past any cooling time by now, and no inviter can be matched.
    sql: `
      ALTER TABLE staff_members ADD COLUMN invited_by TEXT NOT NULL DEFAULT '';
      ALTER TABLE staff_members ADD COLUMN role_set_by TEXT NOT NULL DEFAULT '';
      ALTER TABLE staff_members ADD COLUMN powers_since INTEGER NOT NULL DEFAULT 0;
      UPDATE staff_members SET powers_since = created_at;
    `,
  },
];
