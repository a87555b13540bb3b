/**
 * SQLite schema step of the books (docs/money.md, The books): the journal of entries and
 * their postings in the chart of core/domain/books.ts, the store's own refusal of an entry
 * that does not balance, and the history before the books migrated into entries.
 */
import type { Migration } from './migration.js';

/**
 * The journal and its postings. An entry's postings are written first and its journal row
 * last: the row's trigger refuses it unless its postings (two or more, all of its mode) sum to
 * zero, and a posting whose entry is already in the journal is refused, so a kept entry can
 * neither be unbalanced nor gain a line later. Neither table takes an UPDATE or a DELETE.
 */
const JOURNAL_TABLES = `
  CREATE TABLE journal (
    entry_id   INTEGER PRIMARY KEY,
    kind       TEXT NOT NULL CHECK (kind IN ('reserve', 'settle', 'refund', 'reverse', 'cost_known', 'credit',
                 'debit', 'inflow_received', 'inflow_credited', 'inflow_returned', 'upstream_funded',
                 'provider_settled')),
    mode       TEXT NOT NULL CHECK (mode IN ('live', 'test')),
    reference  TEXT NOT NULL,
    at         INTEGER NOT NULL
  ) STRICT;
  CREATE INDEX journal_by_reference ON journal (reference, kind);
  CREATE INDEX journal_by_time ON journal (at, entry_id);
  CREATE TABLE postings (
    entry_id     INTEGER NOT NULL,
    leg          INTEGER NOT NULL CHECK (leg >= 0),
    account      TEXT NOT NULL CHECK (length(account) BETWEEN 3 AND 200),
    mode         TEXT NOT NULL CHECK (mode IN ('live', 'test')),
    amount_kobo  INTEGER NOT NULL CHECK (amount_kobo <> 0),
    PRIMARY KEY (entry_id, leg)
  ) STRICT, WITHOUT ROWID;
  CREATE INDEX postings_by_account ON postings (account, mode, amount_kobo);
`;

const JOURNAL_GUARDS = `
  CREATE TRIGGER journal_balanced BEFORE INSERT ON journal
  BEGIN
    SELECT RAISE(ABORT, 'books: an entry must balance')
    WHERE (SELECT COUNT(*) FROM postings WHERE entry_id = NEW.entry_id) < 2
       OR (SELECT SUM(amount_kobo) FROM postings WHERE entry_id = NEW.entry_id) <> 0
       OR EXISTS (SELECT 1 FROM postings WHERE entry_id = NEW.entry_id AND mode <> NEW.mode);
  END;
  CREATE TRIGGER postings_closed BEFORE INSERT ON postings
  BEGIN
    SELECT RAISE(ABORT, 'books: a kept entry takes no more postings')
    WHERE EXISTS (SELECT 1 FROM journal WHERE entry_id = NEW.entry_id);
  END;
  CREATE TRIGGER journal_no_update BEFORE UPDATE ON journal
  BEGIN SELECT RAISE(ABORT, 'books: the journal is append-only'); END;
  CREATE TRIGGER journal_no_delete BEFORE DELETE ON journal
  BEGIN SELECT RAISE(ABORT, 'books: the journal is append-only'); END;
  CREATE TRIGGER postings_no_update BEFORE UPDATE ON postings
  BEGIN SELECT RAISE(ABORT, 'books: postings are append-only'); END;
  CREATE TRIGGER postings_no_delete BEFORE DELETE ON postings
  BEGIN SELECT RAISE(ABORT, 'books: postings are append-only'); END;
`;

/**
 * The history before the books, as entries: every wallet entry keeps its place (entry id
 * = its ledger id x 4, the settle of a purchase right after its reserve at +1, an inflow's
 * receipt and credit at +0 and +1), and the inflows that reached no wallet come after them
 * all. A delivered purchase's cost is the one its delivered attempt recorded; where none was
 * recorded (before attempts were kept, or an upstream that did not say) the charge is booked
 * to `revenue:sales_cost_unknown`, never as a cost of zero.
 */
const HISTORY = `
  CREATE TEMP TABLE books_lines (
    entry_id INTEGER NOT NULL, leg INTEGER NOT NULL, kind TEXT NOT NULL, mode TEXT NOT NULL,
    reference TEXT NOT NULL, at INTEGER NOT NULL, account TEXT NOT NULL, amount_kobo INTEGER NOT NULL
  );
  CREATE TEMP TABLE books_costs AS
    SELECT t.reference AS reference,
           (SELECT a.upstream FROM upstream_attempts a WHERE a.reference = t.reference AND a.outcome = 'delivered'
              AND a.cost_kobo IS NOT NULL ORDER BY a.seq DESC LIMIT 1) AS upstream,
           (SELECT a.cost_kobo FROM upstream_attempts a WHERE a.reference = t.reference AND a.outcome = 'delivered'
              AND a.cost_kobo IS NOT NULL ORDER BY a.seq DESC LIMIT 1) AS cost_kobo
    FROM transactions t WHERE t.status IN ('success', 'reversed');

  -- Reserves: the charge from the wallet into held:purchases.
  INSERT INTO books_lines
    SELECT l.entry_id * 4, 0, 'reserve', l.mode, l.reference, l.created_at, 'wallet:' || l.account_id, -l.amount_kobo
    FROM ledger_entries l WHERE l.kind = 'debit'
    UNION ALL
    SELECT l.entry_id * 4, 1, 'reserve', l.mode, l.reference, l.created_at, 'held:purchases', l.amount_kobo
    FROM ledger_entries l WHERE l.kind = 'debit';

  -- Settles of delivered (and later reversed) purchases, right after their reserve.
  INSERT INTO books_lines
    SELECT l.entry_id * 4 + 1, 0, 'settle', t.mode, t.reference,
           CASE t.status WHEN 'success' THEN t.updated_at ELSE t.created_at END, 'held:purchases', t.charged_kobo
    FROM ledger_entries l JOIN transactions t ON t.reference = l.reference AND l.kind = 'debit'
    WHERE t.status IN ('success', 'reversed')
    UNION ALL
    SELECT l.entry_id * 4 + 1, 1, 'settle', t.mode, t.reference,
           CASE t.status WHEN 'success' THEN t.updated_at ELSE t.created_at END,
           CASE WHEN c.cost_kobo IS NULL THEN 'revenue:sales_cost_unknown' ELSE 'revenue:sales' END, -t.charged_kobo
    FROM ledger_entries l JOIN transactions t ON t.reference = l.reference AND l.kind = 'debit'
    JOIN books_costs c ON c.reference = t.reference
    UNION ALL
    SELECT l.entry_id * 4 + 1, 2, 'settle', t.mode, t.reference,
           CASE t.status WHEN 'success' THEN t.updated_at ELSE t.created_at END,
           'upstream:' || c.upstream || ':cost', c.cost_kobo
    FROM ledger_entries l JOIN transactions t ON t.reference = l.reference AND l.kind = 'debit'
    JOIN books_costs c ON c.reference = t.reference WHERE c.cost_kobo > 0
    UNION ALL
    SELECT l.entry_id * 4 + 1, 3, 'settle', t.mode, t.reference,
           CASE t.status WHEN 'success' THEN t.updated_at ELSE t.created_at END,
           'upstream:' || c.upstream || ':float', -c.cost_kobo
    FROM ledger_entries l JOIN transactions t ON t.reference = l.reference AND l.kind = 'debit'
    JOIN books_costs c ON c.reference = t.reference WHERE c.cost_kobo > 0;

  -- Refunds of failed purchases: held:purchases back to the wallet.
  INSERT INTO books_lines
    SELECT l.entry_id * 4, 0, 'refund', l.mode, l.reference, l.created_at, 'held:purchases', l.amount_kobo
    FROM ledger_entries l JOIN transactions t ON t.reference = l.reference
    WHERE l.kind = 'refund' AND t.status <> 'reversed'
    UNION ALL
    SELECT l.entry_id * 4, 1, 'refund', l.mode, l.reference, l.created_at, 'wallet:' || l.account_id, -l.amount_kobo
    FROM ledger_entries l JOIN transactions t ON t.reference = l.reference
    WHERE l.kind = 'refund' AND t.status <> 'reversed';

  -- Reversals: what the settle booked, taken back.
  INSERT INTO books_lines
    SELECT l.entry_id * 4, 0, 'reverse', l.mode, l.reference, l.created_at,
           CASE WHEN c.cost_kobo IS NULL THEN 'revenue:sales_cost_unknown' ELSE 'revenue:sales' END, l.amount_kobo
    FROM ledger_entries l JOIN transactions t ON t.reference = l.reference JOIN books_costs c ON c.reference = t.reference
    WHERE l.kind = 'refund' AND t.status = 'reversed'
    UNION ALL
    SELECT l.entry_id * 4, 1, 'reverse', l.mode, l.reference, l.created_at, 'wallet:' || l.account_id, -l.amount_kobo
    FROM ledger_entries l JOIN transactions t ON t.reference = l.reference
    WHERE l.kind = 'refund' AND t.status = 'reversed'
    UNION ALL
    SELECT l.entry_id * 4, 2, 'reverse', l.mode, l.reference, l.created_at,
           'upstream:' || c.upstream || ':cost', -c.cost_kobo
    FROM ledger_entries l JOIN transactions t ON t.reference = l.reference JOIN books_costs c ON c.reference = t.reference
    WHERE l.kind = 'refund' AND t.status = 'reversed' AND c.cost_kobo > 0
    UNION ALL
    SELECT l.entry_id * 4, 3, 'reverse', l.mode, l.reference, l.created_at,
           'upstream:' || c.upstream || ':float', c.cost_kobo
    FROM ledger_entries l JOIN transactions t ON t.reference = l.reference JOIN books_costs c ON c.reference = t.reference
    WHERE l.kind = 'refund' AND t.status = 'reversed' AND c.cost_kobo > 0;

  -- Credits of inflows: received at the provider's clearing, then credited less the fee.
  CREATE TEMP TABLE books_inflow_credits AS
    SELECT l.entry_id AS entry_id, l.mode AS mode, l.reference AS reference, l.created_at AS at,
           l.account_id AS account_id, l.amount_kobo AS credited_kobo, i.provider AS provider,
           MAX(i.amount_paid_kobo, l.amount_kobo) AS paid_kobo
    FROM ledger_entries l JOIN inflows i
      ON i.credit_reference = l.reference AND i.account_id = l.account_id AND i.mode = l.mode AND i.status = 'credited'
    WHERE l.kind = 'credit';
  INSERT INTO books_lines
    SELECT entry_id * 4, 0, 'inflow_received', mode, reference, at, 'funding:' || provider || ':clearing', paid_kobo
    FROM books_inflow_credits
    UNION ALL
    SELECT entry_id * 4, 1, 'inflow_received', mode, reference, at, 'held:inflows', -paid_kobo FROM books_inflow_credits
    UNION ALL
    SELECT entry_id * 4 + 1, 0, 'inflow_credited', mode, reference, at, 'held:inflows', paid_kobo
    FROM books_inflow_credits
    UNION ALL
    SELECT entry_id * 4 + 1, 1, 'inflow_credited', mode, reference, at, 'wallet:' || account_id, -credited_kobo
    FROM books_inflow_credits
    UNION ALL
    SELECT entry_id * 4 + 1, 2, 'inflow_credited', mode, reference, at, 'revenue:funding_fees',
           credited_kobo - paid_kobo
    FROM books_inflow_credits WHERE paid_kobo > credited_kobo;

  -- The operator's credits and debits.
  INSERT INTO books_lines
    SELECT l.entry_id * 4, 0, 'credit', l.mode, l.reference, l.created_at, 'adjustments:manual', l.amount_kobo
    FROM ledger_entries l WHERE l.kind = 'credit' AND l.entry_id NOT IN (SELECT entry_id FROM books_inflow_credits)
    UNION ALL
    SELECT l.entry_id * 4, 1, 'credit', l.mode, l.reference, l.created_at, 'wallet:' || l.account_id, -l.amount_kobo
    FROM ledger_entries l WHERE l.kind = 'credit' AND l.entry_id NOT IN (SELECT entry_id FROM books_inflow_credits)
    UNION ALL
    SELECT l.entry_id * 4, 0, 'debit', l.mode, l.reference, l.created_at, 'wallet:' || l.account_id, -l.amount_kobo
    FROM ledger_entries l WHERE l.kind = 'manual_debit'
    UNION ALL
    SELECT l.entry_id * 4, 1, 'debit', l.mode, l.reference, l.created_at, 'adjustments:manual', l.amount_kobo
    FROM ledger_entries l WHERE l.kind = 'manual_debit';

  -- Confirmed transfers in no wallet yet (verified, unmatched): received, held for a person.
  CREATE TEMP TABLE books_waiting AS
    SELECT (SELECT COALESCE(MAX(entry_id), 0) FROM ledger_entries) * 4 + 4
             + ROW_NUMBER() OVER (ORDER BY created_at, inflow_id) AS entry_id,
           mode, inflow_id AS reference, created_at AS at, provider, amount_paid_kobo
    FROM inflows WHERE status IN ('verified', 'unmatched');
  INSERT INTO books_lines
    SELECT entry_id, 0, 'inflow_received', mode, reference, at, 'funding:' || provider || ':clearing', amount_paid_kobo
    FROM books_waiting
    UNION ALL
    SELECT entry_id, 1, 'inflow_received', mode, reference, at, 'held:inflows', -amount_paid_kobo FROM books_waiting;

  INSERT INTO postings (entry_id, leg, account, mode, amount_kobo)
    SELECT entry_id, leg, account, mode, amount_kobo FROM books_lines;
  INSERT INTO journal (entry_id, kind, mode, reference, at)
    SELECT entry_id, MIN(kind), MIN(mode), MIN(reference), MIN(at) FROM books_lines GROUP BY entry_id;

  -- Proven before the guards exist: no entry of the history is unbalanced (the CHECK aborts the step).
  CREATE TEMP TABLE books_proof (sum_kobo INTEGER CHECK (sum_kobo = 0));
  INSERT INTO books_proof SELECT SUM(amount_kobo) FROM books_lines GROUP BY entry_id;
  DROP TABLE books_proof;
  DROP TABLE books_waiting;
  DROP TABLE books_inflow_credits;
  DROP TABLE books_costs;
  DROP TABLE books_lines;
`;

export const BOOKS_MIGRATIONS: readonly Migration[] = [
  {
    version: 35,
    description: 'the books: a double-entry journal of every money move, the history migrated into it',
    sql: JOURNAL_TABLES + HISTORY + JOURNAL_GUARDS,
  },
  {
    version: 36,
    description:
      "reconciliation: each day's findings against the upstreams, and the journal's entries by kind and time",
    // A finding is kept once per day, upstream, reference and class (the primary key: a rerun
    // of the day inserts nothing twice); the partial index serves the attention queue's open
    // ones. journal_by_kind reads one kind's entries in a window (an upstream's top-ups).
    sql: `
      CREATE TABLE reconcile_findings (
        day                 TEXT NOT NULL CHECK (length(day) = 10),
        upstream            TEXT NOT NULL,
        reference           TEXT NOT NULL,
        class               TEXT NOT NULL CHECK (class IN ('delivered_here_failed_there',
                              'failed_here_delivered_there', 'charged_twice_there', 'cost_differs', 'unknown_there')),
        at_stake_kobo       INTEGER NOT NULL,
        our_cost_kobo       INTEGER,
        their_charged_kobo  INTEGER,
        outcome             TEXT NOT NULL,
        their_status        TEXT NOT NULL,
        their_charges       INTEGER,
        reason              TEXT,
        evidence            TEXT,
        found_at            INTEGER NOT NULL,
        resolved_at         INTEGER,
        PRIMARY KEY (day, upstream, reference, class)
      ) STRICT;
      CREATE INDEX reconcile_findings_open ON reconcile_findings (day, upstream, reference) WHERE resolved_at IS NULL;
      CREATE INDEX journal_by_kind ON journal (kind, mode, at, entry_id);
    `,
  },
  {
    version: 37,
    description:
      "the books under four eyes: top-up and settlement proposals, findings resolved, the reconciliation's days and float readings",
    // proposals are rebuilt as in step 25 (new table, copy every row, drop, rename, the indexes
    // again) to widen the kind CHECK; fee_kobo is a settlement's fee (0 for every other kind).
    // A finding resolved keeps who and why; reconcile_days is the last day the daily run
    // finished per upstream, float_readings the balances the float poller read.
    sql: `
      CREATE TABLE proposals_next (
        proposal_id  TEXT PRIMARY KEY,
        kind         TEXT NOT NULL CHECK (kind IN ('credit', 'refund', 'pending_failed', 'inflow_assign', 'debit',
                       'upstream_topup', 'provider_settlement')),
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
      INSERT INTO proposals_next (proposal_id, kind, account_id, target, amount_kobo, note, proposed_by, proposed_at,
          expires_at, status, decided_by, decided_at, applied_at, reference, memo)
        SELECT proposal_id, kind, account_id, target, amount_kobo, note, proposed_by, proposed_at,
          expires_at, status, decided_by, decided_at, applied_at, reference, memo FROM proposals;
      DROP TABLE proposals;
      ALTER TABLE proposals_next RENAME TO proposals;
      CREATE INDEX proposals_open ON proposals (proposed_at) WHERE status = 'pending';
      CREATE UNIQUE INDEX proposals_reference ON proposals (account_id, kind, reference) WHERE reference <> '';

      ALTER TABLE reconcile_findings ADD COLUMN resolved_by TEXT;
      ALTER TABLE reconcile_findings ADD COLUMN resolution TEXT;
      ALTER TABLE reconcile_findings ADD COLUMN corrected_by TEXT;

      CREATE TABLE reconcile_days (
        upstream  TEXT PRIMARY KEY,
        day       TEXT NOT NULL CHECK (length(day) = 10),
        at        INTEGER NOT NULL
      ) STRICT;
      CREATE TABLE float_readings (
        upstream      TEXT NOT NULL,
        at            INTEGER NOT NULL,
        balance_kobo  INTEGER NOT NULL,
        PRIMARY KEY (upstream, at)
      ) STRICT, WITHOUT ROWID;
    `,
  },
];
