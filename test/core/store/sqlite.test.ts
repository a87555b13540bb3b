/**
 * The SQLite adapter: the shared conformance suite on a fresh file per test, then what
 * only SQLite can show (the file on disk, its pragmas and its guards against edits made
 * behind the adapter's back).
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import * as assert from 'uvu/assert';
import { kobo } from '../../../core/domain/money.js';
import type { TransactionRecord } from '../../../core/domain/records.js';
import type { Store } from '../../../core/store/port.js';
import { openSqliteStore } from '../../../core/store/sqlite/index.js';
import { TRANSACTION_COLUMNS } from '../../../core/store/sqlite/rows.js';
import { MIGRATIONS, SCHEMA_VERSION } from '../../../core/store/sqlite/schema.js';
import { airtimePurchase } from '../../helpers/purchases.js';
import { suite } from '../../helpers/suite.js';
import { storeConformance } from './conformance.js';

function freshFile(): { filename: string; remove(): void } {
  const dir = mkdtempSync(join(tmpdir(), 'prepaid-store-'));
  return { filename: join(dir, 'prepaid.db'), remove: () => rmSync(dir, { recursive: true, force: true }) };
}

storeConformance('sqlite', async () => {
  const file = freshFile();
  const store = openSqliteStore({ filename: file.filename });
  return {
    store,
    async cleanup() {
      await store.close();
      file.remove();
    },
  };
});

const sqlite = suite('sqlite store: the file');
let file: ReturnType<typeof freshFile>;
const opened: Store[] = [];
const raws: Database.Database[] = [];

function open(): Store {
  const store = openSqliteStore({ filename: file.filename });
  opened.push(store);
  return store;
}

function raw(): Database.Database {
  const db = new Database(file.filename);
  raws.push(db);
  return db;
}

sqlite.before.each(() => {
  file = freshFile();
});

sqlite.after.each(async () => {
  for (const store of opened.splice(0)) await store.close();
  for (const db of raws.splice(0)) if (db.open) db.close();
  file.remove();
});

/** An account with ₦500, one settled and one pending purchase. */
async function populate(store: Store): Promise<void> {
  await store.accounts.create({ accountId: 'acct-1', name: 'Ada', tierId: 'standard', createdAt: new Date(1_000) });
  await store.ledger.post({
    kind: 'credit',
    credit: {
      mode: 'live',
      accountId: 'acct-1',
      amountKobo: kobo(50_000),
      reference: 'CR-1',
      memo: 'opening',
      at: new Date(2_000),
    },
  });
  await store.ledger.post({ kind: 'reserve', tx: airtimePurchase('TX-1') });
  await store.ledger.post({
    kind: 'settle',
    reference: 'TX-1',
    result: { providerReference: 'P-1' },
    at: new Date(4_000),
  });
  await store.ledger.post({
    kind: 'reserve',
    tx: airtimePurchase('TX-2', { requestId: 'r-2', createdAt: new Date(5_000) }),
  });
  await store.catalog.upsertPlan({
    planId: 0,
    network: 'mtn',
    label: '1GB',
    validity: '30 days',
    faceValueKobo: kobo(100_000),
    tierPricesKobo: { standard: kobo(98_000) },
    type: 'direct',
    sizeMb: 0,
    validityDays: 0,
    costsKobo: {},
    active: true,
    providerCode: '',
  });
}

sqlite('what was committed is still there after close and reopen', async () => {
  const first = open();
  await populate(first);
  const before = {
    account: await first.accounts.get('acct-1'),
    ledger: await first.wallet.listLedger('acct-1', 'live', { limit: 100 }),
    history: await first.transactions.listByAccount('acct-1', 'live', { limit: 100 }),
  };
  await first.close();

  const second = open();
  assert.equal(await second.accounts.get('acct-1'), before.account);
  assert.is(before.account?.balanceKobo, 30_400);
  assert.equal(await second.wallet.listLedger('acct-1', 'live', { limit: 100 }), before.ledger);
  assert.equal(await second.transactions.listByAccount('acct-1', 'live', { limit: 100 }), before.history);
  const replay = await second.ledger.post({
    kind: 'reserve',
    tx: { ...(await second.transactions.get('TX-2'))!, reference: 'TX-3' },
  });
  assert.is(replay.outcome, 'duplicate', 'the idempotency record survived too');
  const next = await second.catalog.upsertPlan({
    planId: 0,
    network: 'glo',
    label: '2GB',
    validity: '30 days',
    faceValueKobo: kobo(1),
    tierPricesKobo: {},
    type: 'direct',
    sizeMb: 0,
    validityDays: 0,
    costsKobo: {},
    active: true,
    providerCode: '',
  });
  assert.is(next.planId, 2, 'plan ids continue where they stopped');
});

sqlite('the file is in WAL mode at the current schema version', () => {
  open();
  const db = raw();
  assert.is(db.pragma('journal_mode', { simple: true }), 'wal');
  assert.is(db.pragma('user_version', { simple: true }), SCHEMA_VERSION);
});

sqlite('the lists read every column of a transaction row, by position', () => {
  open();
  const columns = raw()
    .prepare<[], { name: string }>("SELECT name FROM pragma_table_info('transactions')")
    .all()
    .map((c) => c.name);
  assert.equal(TRANSACTION_COLUMNS.split(', ').sort(), columns.sort());
});

sqlite('reopening an up-to-date file changes nothing', async () => {
  await populate(open());
  const again = open();
  assert.is((await again.accounts.get('acct-1'))?.balanceKobo, 30_400);
});

sqlite('a file written by a newer schema is refused', () => {
  open();
  raw().pragma(`user_version = ${SCHEMA_VERSION + 1}`);
  assert.throws(() => openSqliteStore({ filename: file.filename }), /newer than this build/);
});

sqlite('ledger rows cannot be updated or deleted, even behind the adapter', async () => {
  await populate(open());
  const db = raw();
  assert.throws(
    () => db.prepare('UPDATE ledger_entries SET amount_kobo = 1000000').run(),
    /ledger entries are immutable/,
  );
  assert.throws(() => db.prepare('DELETE FROM ledger_entries').run(), /ledger entries are immutable/);
  assert.is((db.prepare('SELECT count(*) AS n FROM ledger_entries').get() as { n: number }).n, 3);
});

sqlite('the schema refuses a second refund, a negative balance and reopening a settled purchase', async () => {
  const store = open();
  await populate(store);
  await store.ledger.post({ kind: 'refund', reference: 'TX-2', reason: 'failed', at: new Date(6_000) });
  const db = raw();
  assert.throws(
    () =>
      db
        .prepare(`INSERT INTO ledger_entries (account_id, amount_kobo, balance_after_kobo, kind, reference, memo,
                    created_at)
                  VALUES ('acct-1', 9800, 50000, 'refund', 'TX-2', 'again', 7000)`)
        .run(),
    /UNIQUE/,
  );
  assert.throws(() => db.prepare("UPDATE accounts SET balance_kobo = -1 WHERE account_id = 'acct-1'").run(), /CHECK/);
  assert.throws(
    () => db.prepare("UPDATE transactions SET status = 'pending' WHERE reference = 'TX-1'").run(),
    /cannot change status/,
  );
  assert.throws(
    () => db.prepare("UPDATE transactions SET status = 'failed' WHERE reference = 'TX-1'").run(),
    /cannot change status/,
  );
});

sqlite('two stores on one file see each other and never overdraw', async () => {
  const a = open();
  const b = open();
  await a.accounts.create({ accountId: 'shared', name: 'Shared', tierId: 'standard', createdAt: new Date(0) });
  await b.ledger.post({
    kind: 'credit',
    credit: {
      mode: 'live',
      accountId: 'shared',
      amountKobo: kobo(5 * 1_000),
      reference: 'CR',
      memo: '',
      at: new Date(1),
    },
  });
  const results = await Promise.all(
    Array.from({ length: 12 }, (_, i) =>
      (i % 2 === 0 ? a : b).ledger.post({
        kind: 'reserve',
        tx: {
          reference: `TX-${i}`,
          accountId: 'shared',
          mode: 'live',
          product: 'airtime',
          service: 'glo',
          recipient: '08051234567',
          faceValueKobo: kobo(1_000),
          chargedKobo: kobo(1_000),
          details: {},
          requestId: null,
          requestHash: null,
          nextAttemptAt: new Date(10),
          createdAt: new Date(2 + i),
        },
      }),
    ),
  );
  assert.is(results.filter((r) => r.outcome === 'reserved').length, 5);
  assert.is((await a.accounts.get('shared'))?.balanceKobo, 0);
  assert.is((await b.accounts.get('shared'))?.balanceKobo, 0);
});

sqlite('the audit checks the test wallet apart and names the mode of what it finds', async () => {
  const store = open();
  await populate(store);
  await store.ledger.post({
    kind: 'credit',
    credit: {
      mode: 'test',
      accountId: 'acct-1',
      amountKobo: kobo(20_000),
      reference: 'CR-T',
      memo: 'test money',
      at: new Date(6_000),
    },
  });
  const db = raw();
  // The test balance edited by hand, and a live purchase's refund written to the test wallet
  // (money moved between worlds): each is found, in the mode it is in.
  db.prepare("UPDATE accounts SET test_balance_kobo = test_balance_kobo + 700 WHERE account_id = 'acct-1'").run();
  db.prepare(`INSERT INTO ledger_entries (account_id, mode, amount_kobo, balance_after_kobo, kind, reference, memo,
                created_at)
              VALUES ('acct-1', 'test', 9800, 29800, 'refund', 'TX-2', 'wrong wallet', 7000)`).run();
  const audit = await store.wallet.audit();
  const found = audit.violations.map((v) => `${v.mode}:${v.kind}:${v.reference}`).sort();
  // The books see the hand-edited balance too: the wallet no longer equals minus its postings.
  assert.equal(found, ['test:balance_mismatch:', 'test:orphan_entry:TX-2', 'test:wallet_books_mismatch:']);
  assert.is(audit.modes.test.violationCount, 3);
  assert.is(audit.modes.live.violationCount, 0, 'the live wallet still adds up');
});

sqlite('close is safe to call twice, and a closed store refuses work', async () => {
  const store = open();
  await store.close();
  await store.close();
  let refused = false;
  await store.accounts.get('x').catch(() => {
    refused = true;
  });
  assert.ok(refused);
});

sqlite('the audit finds money changed behind the adapter', async () => {
  const store = open();
  await populate(store);
  assert.equal((await store.wallet.audit()).violations, [], 'clean before tampering');
  const db = raw();
  // A balance edited by hand, a purchase failed without its refund, a refund for a delivered purchase.
  db.prepare("UPDATE accounts SET balance_kobo = balance_kobo + 500 WHERE account_id = 'acct-1'").run();
  db.prepare("UPDATE transactions SET status = 'failed' WHERE reference = 'TX-2'").run();
  db.prepare(`INSERT INTO ledger_entries (account_id, amount_kobo, balance_after_kobo, kind, reference, memo,
                created_at)
              VALUES ('acct-1', 9800, 99999, 'refund', 'TX-1', 'wrong', 7000)`).run();
  const audit = await store.wallet.audit();
  const kinds = audit.violations.map((v) => `${v.kind}:${v.reference}`).sort();
  // The books see two of them as well: a failed purchase with no refund entry, a balance they do not hold.
  assert.equal(kinds, [
    'balance_mismatch:',
    'not_refunded_once:TX-2',
    'purchase_books_wrong:TX-2',
    'refund_without_failure:TX-1',
    'running_balance_mismatch:TX-1',
    'wallet_books_mismatch:',
  ]);
  assert.is(audit.violationCount, 6);
  assert.ok(audit.violations.every((v) => v.accountId === 'acct-1' && v.detail.length > 0));
});

sqlite('step 16 makes every user a person with one membership, keeping passwords and two-step sign-in', async () => {
  const db = raw();
  db.pragma('foreign_keys = ON');
  for (const migration of MIGRATIONS.filter((m) => m.version <= 15)) db.exec(migration.sql);
  db.pragma('user_version = 15');
  db.prepare(
    'INSERT INTO accounts (account_id, name, tier_id, balance_kobo, created_at) ' +
      "VALUES ('acct-1', 'Ada', 'standard', 0, 1000)",
  ).run();
  db.prepare(
    `INSERT INTO users (user_id, account_id, email, role, password_hash, disabled, totp_secret, totp_pending_secret,
       totp_last_step, recovery_code_hashes, created_at)
     VALUES ('usr_a', 'acct-1', 'ada@example.com', 'owner', 'scrypt$a', 0, 'SECRETA', NULL, 77, '["r1","r2"]', 2000),
            ('usr_b', 'acct-1', 'bea@example.com', 'viewer', 'scrypt$b', 1, NULL, NULL, 0, '[]', 3000)`,
  ).run();
  db.prepare(
    `INSERT INTO sessions (token_hash, stage, user_id, account_id, created_at, last_seen_at, absolute_expires_at)
     VALUES ('ses-a', 'session', 'usr_a', 'acct-1', 4000, 4000, 9999999999999)`,
  ).run();
  db.prepare(
    `INSERT INTO invitations (token_hash, account_id, email, role, invited_by, created_at, expires_at, used_at)
     VALUES ('inv-c', 'acct-1', 'cy@example.com', 'viewer', 'usr_a', 5000, 9999999999999, NULL)`,
  ).run();
  db.close();

  const store = open();
  assert.is(raw().pragma('user_version', { simple: true }), SCHEMA_VERSION);
  assert.equal(await store.people.getUser('usr_a'), {
    userId: 'usr_a',
    email: 'ada@example.com',
    passwordHash: 'scrypt$a',
    totpSecret: 'SECRETA',
    totpPendingSecret: null,
    totpLastStep: 77,
    recoveryCodeHashes: ['r1', 'r2'],
    createdAt: new Date(2000),
  });
  assert.equal(
    (await store.people.listMembers('acct-1')).map(({ user, membership }) => [
      user.email,
      membership.role,
      membership.disabled,
      membership.createdAt.getTime(),
    ]),
    [
      ['ada@example.com', 'owner', false, 2000],
      ['bea@example.com', 'viewer', true, 3000],
    ],
  );
  assert.is((await store.people.findSession('ses-a'))?.accountId, 'acct-1', 'sessions stay signed in');
  assert.equal(
    (await store.people.listOpenInvitations('acct-1', new Date(6000))).map((one) => [one.email, one.revokedAt]),
    [['cy@example.com', null]],
  );
});

sqlite('a file at schema version 2 migrates to the current one with its money intact', async () => {
  const db = raw();
  for (const migration of MIGRATIONS.filter((m) => m.version <= 2)) db.exec(migration.sql);
  db.pragma('user_version = 2');
  db.prepare("INSERT INTO accounts VALUES ('acct-1', 'Ada', 'standard', 40200, 1000)").run();
  db.prepare(
    'INSERT INTO ledger_entries (account_id, amount_kobo, balance_after_kobo, kind, ' +
      "reference, memo, created_at) VALUES ('acct-1', 50000, 50000, 'credit', 'CR-1', " +
      "'', 1000), ('acct-1', -9800, 40200, 'debit', 'TX-1', '', 2000)",
  ).run();
  db.prepare(`INSERT INTO transactions VALUES ('TX-1', 'acct-1', 'airtime', 'success', 'mtn', '08031234567', 10000,
              9800, 40200, '{}', '{}', NULL, 'r-1', 'h', 0, 3000, 0, 2000, 2500)`).run();
  db.prepare(
    'INSERT INTO plans (plan_id, network, label, validity, face_value_kobo, ' +
      "tier_prices, active) VALUES (7, 'mtn', '1GB', '30 days', 100000, '{}', 1)",
  ).run();
  db.close();

  const store = open();
  assert.is(raw().pragma('user_version', { simple: true }), SCHEMA_VERSION);
  const tx = await store.transactions.get('TX-1');
  assert.is(tx?.status, 'success');
  assert.is(tx?.requestId, 'r-1');
  assert.is((await store.catalog.getPlan(7))?.providerCode, '', 'new columns get their default');
  const reversed = await store.ledger.post({
    kind: 'reverse',
    reference: 'TX-1',
    reason: 'reversal',
    at: new Date(4_000),
  });
  assert.is(reversed?.transaction.status, 'reversed');
  assert.is((await store.accounts.get('acct-1'))?.balanceKobo, 50_000);
  assert.equal((await store.wallet.audit()).violations, []);
  // The rebuilt table kept its idempotency index.
  const duplicate = await store.ledger.post({
    kind: 'reserve',
    tx: airtimePurchase('TX-2', {
      requestId: 'r-1',
      requestHash: 'h',
      nextAttemptAt: new Date(5_000),
      createdAt: new Date(5_000),
    }),
  });
  assert.is(duplicate.outcome, 'duplicate');
  // Everything written before test mode is live, and the test wallet starts empty.
  assert.is(tx?.mode, 'live');
  assert.is((await store.accounts.get('acct-1'))?.testBalanceKobo, 0);
  assert.equal(
    (await store.wallet.listLedger('acct-1', 'live', { limit: 10 })).items.map((e) => e.reference),
    ['TX-1', 'TX-1', 'CR-1'],
  );
  assert.equal((await store.wallet.listLedger('acct-1', 'test', { limit: 10 })).items, []);
  // The same idempotency key is new in test mode.
  await store.ledger.post({
    kind: 'credit',
    credit: {
      mode: 'test',
      accountId: 'acct-1',
      amountKobo: kobo(10_000),
      reference: 'CR-T',
      memo: '',
      at: new Date(6_000),
    },
  });
  const inTest = await store.ledger.post({
    kind: 'reserve',
    tx: { ...duplicateOf(tx!), reference: 'TX-3', mode: 'test' },
  });
  assert.is(inTest.outcome, 'reserved');
});

/** A new purchase asking what `tx` asked, with the same idempotency key. */
function duplicateOf(tx: TransactionRecord) {
  return {
    accountId: tx.accountId,
    product: tx.product,
    service: tx.service,
    recipient: tx.recipient,
    faceValueKobo: tx.faceValueKobo,
    chargedKobo: tx.chargedKobo,
    details: {},
    requestId: tx.requestId,
    requestHash: tx.requestHash,
    nextAttemptAt: new Date(7_000),
    createdAt: new Date(7_000),
  };
}

sqlite('step 25 rebuilds the ledger, events and proposals keeping every row, index and guard', async () => {
  const db = raw();
  for (const migration of MIGRATIONS.filter((m) => m.version <= 24)) db.exec(migration.sql);
  db.pragma('user_version = 24');
  db.prepare(
    'INSERT INTO accounts (account_id, name, tier_id, balance_kobo, created_at) ' +
      "VALUES ('acct-1', 'Ada', 'standard', 40200, 1000)",
  ).run();
  db.prepare(`INSERT INTO ledger_entries (account_id, amount_kobo, balance_after_kobo, kind, reference, memo,
                created_at, mode)
              VALUES ('acct-1', 50000, 50000, 'credit', 'CR-1', '', 1000, 'live'),
                     ('acct-1', -9800, 40200, 'debit', 'TX-1', 'airtime', 2000, 'live')`).run();
  db.prepare(`INSERT INTO events (event_id, account_id, mode, type, subject, body, created_at, delivery, attempts,
                next_attempt_at, queued_at)
              VALUES ('evt_1', 'acct-1', 'live', 'wallet.credited', 'CR-1', '{}', 1000, 'none', 0, NULL, 1000)`).run();
  db.prepare(`INSERT INTO proposals VALUES ('prp_1', 'credit', 'acct-1', 'acct-1', 500, 'why', 'staff:a@x.ng', 1000,
              9000, 'pending', NULL, NULL, NULL)`).run();
  const shape = () =>
    db
      .prepare(
        `SELECT type, name, tbl_name FROM sqlite_master
         WHERE tbl_name IN ('ledger_entries', 'events', 'proposals') AND name NOT LIKE 'sqlite_autoindex%'
           ORDER BY name`,
      )
      .all() as { name: string }[];
  const rows = () => ({
    ledger: db.prepare('SELECT * FROM ledger_entries ORDER BY entry_id').all(),
    events: db.prepare('SELECT * FROM events ORDER BY seq').all(),
    proposals: db.prepare('SELECT * FROM proposals').all(),
  });
  const kept = rows();
  const objects = shape();
  const store = open();
  assert.is(db.pragma('user_version', { simple: true }), SCHEMA_VERSION);
  // Step 29 gives every proposal made before it an empty reference and memo, step 37 a fee of 0.
  const later = {
    ...kept,
    proposals: kept.proposals.map((p) => ({ ...(p as object), reference: '', memo: '', fee_kobo: 0 })),
  };
  assert.equal(rows(), later, 'every row is kept, with its ids and seq');
  assert.equal(
    shape().map((o) => o.name),
    [
      ...objects.map((o) => o.name),
      'ledger_manual_debit_reference',
      'proposals_reference',
      'events_wallet_money',
    ].sort(),
    "every index and trigger again, the manual debits' reference index, step 29's of proposals and step 42's of events",
  );
  assert.throws(() => db.prepare('DELETE FROM ledger_entries').run(), /ledger entries are immutable/);
  assert.throws(() => db.prepare('DELETE FROM events').run(), /events are kept/);
  // A manual debit is negative and says why; the schema refuses anything else.
  const insert = (amount: number, memo: string) =>
    db
      .prepare(`INSERT INTO ledger_entries (account_id, amount_kobo, balance_after_kobo, kind, reference, memo,
                  created_at)
                VALUES ('acct-1', ?, 0, 'manual_debit', 'M-1', ?, 7000)`)
      .run(amount, memo);
  assert.throws(() => insert(100, 'why'), /CHECK/);
  assert.throws(() => insert(-100, ''), /CHECK/);
  // New entries continue the sequence after the kept ones.
  const debited = await store.ledger.post({
    kind: 'debit',
    debit: {
      accountId: 'acct-1',
      mode: 'live',
      amountKobo: kobo(200),
      reference: 'M-2',
      reason: 'Chargeback',
      at: new Date(8_000),
    },
  });
  assert.ok(debited.outcome === 'debited' && debited.entry.entryId === 3 && debited.balanceKobo === 40_000);
  // The purchase debit written above has no purchase row: the check still says so, and the
  // manual debit, tied to no purchase by design, is not reported.
  assert.equal(
    (await store.wallet.audit()).violations.map((v) => `${v.kind}:${v.reference}`),
    ['orphan_entry:TX-1'],
  );
});

sqlite('the audit still finds a manual debit that breaks the running balance', async () => {
  const store = open();
  await populate(store);
  const balance = (await store.accounts.get('acct-1'))!.balanceKobo;
  const debited = await store.ledger.post({
    kind: 'debit',
    debit: {
      accountId: 'acct-1',
      mode: 'live',
      amountKobo: kobo(1_000),
      reference: 'M-1',
      reason: 'Chargeback',
      at: new Date(8_000),
    },
  });
  assert.is(debited.outcome, 'debited');
  assert.equal((await store.wallet.audit()).violations, [], 'a manual debit needs no purchase');
  raw()
    .prepare(`INSERT INTO ledger_entries (account_id, amount_kobo, balance_after_kobo, kind, reference, memo,
                created_at)
              VALUES ('acct-1', -500, ?, 'manual_debit', 'M-2', 'behind the adapter', 9000)`)
    .run(balance - 1_000);
  const kinds = (await store.wallet.audit()).violations.map((v) => `${v.kind}:${v.reference}`).sort();
  assert.equal(kinds, ['balance_mismatch:', 'running_balance_mismatch:M-2']);
});

sqlite.run();
