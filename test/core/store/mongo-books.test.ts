/**
 * The books on MongoDB without a server: the journal's validator as the schema step sets it,
 * and schema step 28's history, booked from a store's ledger, purchases, attempts and inflows
 * held in memory (mongo-schema-target.ts) — what it books for each kind of history, that it
 * books nothing twice when run again or resumed after an interruption, that it keeps an entry
 * a live move wrote first, and that its check stops the step when a wallet disagrees. The
 * same history given to SQLite's step 35 books the same entries.
 */
import Database from 'better-sqlite3';
import { Long, ObjectId } from 'mongodb';
import * as assert from 'uvu/assert';
import { isBalanced, type Posting } from '../../../core/domain/books.js';
import type { JournalDoc } from '../../../core/store/mongo/books.js';
import { historyDisagreements, migrateHistory } from '../../../core/store/mongo/books-history.js';
import {
  COLLECTIONS,
  CURRENT_VALIDATORS,
  ENTRY_KINDS,
  FUNDING_COLLECTIONS,
  JOURNAL_COLLECTION,
  JOURNAL_VALIDATOR,
  runSchemaSteps,
  SCHEMA_STEPS,
  SCHEMA_VERSION,
  SUPPLY_COLLECTIONS,
} from '../../../core/store/mongo/schema.js';
import { MIGRATIONS } from '../../../core/store/sqlite/schema.js';
import { suite } from '../../helpers/suite.js';
import { RecordingTarget } from './mongo-schema-target.js';

const BASE = Math.floor(Date.UTC(2026, 0, 5) / 1000);
/** The i-th ObjectId of the history: ids made a second apart sort in that order. */
const oid = (i: number): ObjectId => ObjectId.createFromTime(BASE + i * 10);
const when = (i: number): Date => new Date((BASE + i * 10) * 1000);

type Row = Record<string, unknown>;

/** One account's live history, as the code before the books wrote it. */
function history(): Map<string, Row[]> {
  let seq = 0;
  const ledger = (i: number, kind: string, reference: string, amount: number): Row => ({
    _id: oid(i),
    account_id: 'acct-1',
    mode: 'live',
    entry_id: Long.fromNumber(++seq),
    amount_kobo: Long.fromNumber(amount),
    kind,
    reference,
    created_at: when(i),
  });
  const purchase = (reference: string, status: string, charged: number, i: number): Row => ({
    _id: reference,
    account_id: 'acct-1',
    mode: 'live',
    status,
    charged_kobo: Long.fromNumber(charged),
    created_at: when(i),
    updated_at: when(i + 1),
  });
  const attempt = (reference: string, seq: number, upstream: string, outcome: string, cost: number | null): Row => ({
    _id: `${reference}:${seq}`,
    reference,
    seq,
    upstream,
    outcome,
    cost_kobo: cost,
  });
  return new Map<string, Row[]>([
    [COLLECTIONS.accounts, [{ _id: 'acct-1', balance_kobo: Long.fromNumber(133_000), test_balance_kobo: Long.ZERO }]],
    [
      COLLECTIONS.ledger,
      [
        ledger(1, 'credit', 'BANK-1', 100_000),
        ledger(2, 'debit', 'P1', -9_800),
        ledger(3, 'debit', 'P2', -5_000),
        // P3's refund was written by another core whose ObjectId sorts before the debit's.
        ledger(4, 'refund', 'P3', 2_000),
        ledger(5, 'debit', 'P3', -2_000),
        ledger(6, 'debit', 'P4', -3_000),
        ledger(7, 'refund', 'P4', 3_000),
        ledger(8, 'debit', 'P5', -1_000),
        ledger(9, 'credit', 'inf_1', 49_500),
        ledger(10, 'manual_debit', 'FIX-1', -700),
      ],
    ],
    [
      COLLECTIONS.transactions,
      [
        purchase('P1', 'success', 9_800, 2),
        purchase('P2', 'success', 5_000, 3),
        purchase('P3', 'failed', 2_000, 5),
        purchase('P4', 'reversed', 3_000, 6),
        purchase('P5', 'pending', 1_000, 8),
      ],
    ],
    [
      SUPPLY_COLLECTIONS.attempts,
      [
        attempt('P1', 1, 'ported', 'failed', null),
        attempt('P1', 2, 'vtpass', 'delivered', 9_500),
        attempt('P2', 1, 'clubkonnect', 'delivered', null),
        attempt('P4', 1, 'clubkonnect', 'delivered', 2_900),
      ],
    ],
    [
      FUNDING_COLLECTIONS.inflows,
      [
        {
          _id: 'inf_1',
          provider: 'paystack',
          account_id: 'acct-1',
          mode: 'live',
          amount_paid_kobo: Long.fromNumber(50_000),
          status: 'credited',
          credit_reference: 'inf_1',
          created_at: when(9),
        },
        {
          _id: 'inf_2',
          provider: 'paystack',
          account_id: null,
          mode: 'live',
          amount_paid_kobo: Long.fromNumber(20_000),
          status: 'unmatched',
          credit_reference: '',
          created_at: when(11),
        },
        {
          _id: 'inf_3',
          provider: 'paystack',
          account_id: null,
          mode: 'live',
          amount_paid_kobo: Long.fromNumber(7_000),
          status: 'rejected',
          credit_reference: '',
          created_at: when(12),
        },
      ],
    ],
  ]);
}

/** A target at step 27 holding the history. */
async function beforeTheBooks(): Promise<RecordingTarget> {
  const target = new RecordingTarget();
  await runSchemaSteps(target, SCHEMA_STEPS.slice(0, 27));
  for (const [collection, docs] of history()) target.data.set(collection, docs);
  target.log.length = 0;
  return target;
}

const journal = (target: RecordingTarget): JournalDoc[] =>
  (target.data.get(JOURNAL_COLLECTION) ?? []) as unknown as JournalDoc[];
const postings = (doc: JournalDoc): Posting[] =>
  doc.postings.map((p) => ({ account: p.account as Posting['account'], amountKobo: p.amountKobo.toNumber() }));
function entriesOf(target: RecordingTarget, reference: string) {
  return journal(target)
    .filter((doc) => doc.reference === reference)
    .sort((a, b) => (a.entryId < b.entryId ? -1 : 1))
    .map((doc) => ({ kind: doc.kind, postings: postings(doc) }));
}
function sums(target: RecordingTarget): Map<string, number> {
  const found = new Map<string, number>();
  for (const doc of journal(target))
    for (const p of postings(doc)) found.set(p.account, (found.get(p.account) ?? 0) + p.amountKobo);
  return found;
}

const validator = suite('mongo books: the journal validator');

validator(
  'refuses by shape and by balance: two postings or more, whole int64 amounts, none zero, summing to zero',
  () => {
    const [shape, balance] = JOURNAL_VALIDATOR['$and'];
    const schema = shape.$jsonSchema;
    assert.equal(schema.required, ['_id', 'entryId', 'kind', 'mode', 'reference', 'at', 'postings']);
    assert.equal(schema.properties.kind, { enum: [...ENTRY_KINDS] });
    assert.is(schema.properties.postings.minItems, 2);
    assert.equal(schema.properties.postings.items.properties.amountKobo, { bsonType: 'long' });
    assert.equal(balance, {
      $expr: {
        $and: [
          { $eq: [{ $sum: '$postings.amountKobo' }, 0] },
          { $gte: [{ $size: '$postings' }, 2] },
          { $not: [{ $in: [0, '$postings.amountKobo'] }] },
        ],
      },
    });
    // The start-up check expects exactly what step 28 sets.
    assert.equal(JSON.stringify(CURRENT_VALIDATORS[JOURNAL_COLLECTION]), JSON.stringify(JOURNAL_VALIDATOR));
  },
);

validator.run();

const step = suite('mongo books: schema step 28 books the history');

step('every ledger entry, purchase and inflow is booked as SQLite step 35 books it', async () => {
  const target = await beforeTheBooks();
  await runSchemaSteps(target);
  assert.is(target.version, SCHEMA_VERSION, 'step 28 and every later one ran');
  assert.ok(
    journal(target).every((doc) => isBalanced(postings(doc))),
    'every entry balances',
  );
  assert.equal(entriesOf(target, 'P1'), [
    {
      kind: 'reserve',
      postings: [
        { account: 'wallet:acct-1', amountKobo: 9_800 },
        { account: 'held:purchases', amountKobo: -9_800 },
      ],
    },
    {
      kind: 'settle',
      postings: [
        { account: 'held:purchases', amountKobo: 9_800 },
        { account: 'revenue:sales', amountKobo: -9_800 },
        { account: 'upstream:vtpass:cost', amountKobo: 9_500 },
        { account: 'upstream:vtpass:float', amountKobo: -9_500 },
      ],
    },
  ]);
  assert.equal(entriesOf(target, 'P2')[1], {
    kind: 'settle',
    postings: [
      { account: 'held:purchases', amountKobo: 5_000 },
      { account: 'revenue:sales_cost_unknown', amountKobo: -5_000 },
    ],
  });
  // In order although the refund's ledger entry sorts before the debit's.
  assert.equal(
    entriesOf(target, 'P3').map((e) => e.kind),
    ['reserve', 'refund'],
  );
  assert.equal(entriesOf(target, 'P3')[1]!.postings, [
    { account: 'held:purchases', amountKobo: 2_000 },
    { account: 'wallet:acct-1', amountKobo: -2_000 },
  ]);
  assert.equal(entriesOf(target, 'P4'), [
    {
      kind: 'reserve',
      postings: [
        { account: 'wallet:acct-1', amountKobo: 3_000 },
        { account: 'held:purchases', amountKobo: -3_000 },
      ],
    },
    {
      kind: 'settle',
      postings: [
        { account: 'held:purchases', amountKobo: 3_000 },
        { account: 'revenue:sales', amountKobo: -3_000 },
        { account: 'upstream:clubkonnect:cost', amountKobo: 2_900 },
        { account: 'upstream:clubkonnect:float', amountKobo: -2_900 },
      ],
    },
    {
      kind: 'reverse',
      postings: [
        { account: 'revenue:sales', amountKobo: 3_000 },
        { account: 'wallet:acct-1', amountKobo: -3_000 },
        { account: 'upstream:clubkonnect:cost', amountKobo: -2_900 },
        { account: 'upstream:clubkonnect:float', amountKobo: 2_900 },
      ],
    },
  ]);
  assert.equal(
    entriesOf(target, 'P5').map((e) => e.kind),
    ['reserve'],
  );
  assert.equal(entriesOf(target, 'inf_1'), [
    {
      kind: 'inflow_received',
      postings: [
        { account: 'funding:paystack:clearing', amountKobo: 50_000 },
        { account: 'held:inflows', amountKobo: -50_000 },
      ],
    },
    {
      kind: 'inflow_credited',
      postings: [
        { account: 'held:inflows', amountKobo: 50_000 },
        { account: 'wallet:acct-1', amountKobo: -49_500 },
        { account: 'revenue:funding_fees', amountKobo: -500 },
      ],
    },
  ]);
  assert.equal(entriesOf(target, 'BANK-1'), [
    {
      kind: 'credit',
      postings: [
        { account: 'adjustments:manual', amountKobo: 100_000 },
        { account: 'wallet:acct-1', amountKobo: -100_000 },
      ],
    },
  ]);
  assert.equal(entriesOf(target, 'FIX-1'), [
    {
      kind: 'debit',
      postings: [
        { account: 'wallet:acct-1', amountKobo: 700 },
        { account: 'adjustments:manual', amountKobo: -700 },
      ],
    },
  ]);
  assert.equal(
    entriesOf(target, 'inf_2').map((e) => e.kind),
    ['inflow_received'],
  );
  assert.equal(entriesOf(target, 'inf_3'), [], 'a rejected transfer was never ours: nothing to book');
  const all = sums(target);
  assert.is(all.get('wallet:acct-1'), -133_000, 'the wallet is minus its balance');
  assert.is(all.get('held:purchases'), -1_000, "only the pending purchase's charge is held");
  assert.is(all.get('held:inflows'), -20_000, 'the unmatched transfer waits for a person');
  assert.is(all.get('funding:paystack:clearing'), 70_000);
  assert.is(
    [...all.values()].reduce((a, b) => a + b, 0),
    0,
    'the trial balance is zero',
  );
});

step('run again, or resumed after an interruption, it books nothing twice', async () => {
  const whole = await beforeTheBooks();
  const written = await migrateHistory(whole, 3);
  assert.is(written, journal(whole).length);
  assert.is(await migrateHistory(whole, 3), 0, 'a second run finds everything booked');

  const interrupted = await beforeTheBooks();
  interrupted.failInsertsAfter = 2;
  await migrateHistory(interrupted, 3).then(
    () => assert.unreachable('the fake interrupts the third batch'),
    (error: Error) => assert.match(error.message, 'interrupted'),
  );
  assert.ok(journal(interrupted).length > 0 && journal(interrupted).length < written, 'half-way');
  interrupted.failInsertsAfter = null;
  await runSchemaSteps(interrupted);
  const ids = (target: RecordingTarget) =>
    journal(target)
      .map((doc) => `${doc._id} ${doc.entryId}`)
      .sort();
  assert.equal(ids(interrupted), ids(whole));
});

step('an entry a live move wrote first is kept as it is', async () => {
  const target = await beforeTheBooks();
  // A core already past the step settled P5 and wrote its settle before this one got there.
  target.data.get(COLLECTIONS.transactions)!.find((p) => p['_id'] === 'P5')!['status'] = 'success';
  const live = {
    _id: 'settle:P5',
    entryId: `${new ObjectId().toHexString()}:0`,
    kind: 'settle',
    mode: 'live',
    reference: 'P5',
    at: when(20),
    postings: [
      { account: 'held:purchases', amountKobo: Long.fromNumber(1_000) },
      { account: 'revenue:sales_cost_unknown', amountKobo: Long.fromNumber(-1_000) },
    ],
  };
  target.data.set(JOURNAL_COLLECTION, [live]);
  await runSchemaSteps(target);
  const settles = journal(target).filter((doc) => doc.reference === 'P5' && doc.kind === 'settle');
  assert.equal(settles.length, 1);
  assert.is(settles[0]!.entryId, live.entryId);
});

step('a wallet that disagrees with its postings stops the step, which is not recorded', async () => {
  const target = await beforeTheBooks();
  // A core of the earlier build took 500 kobo more without an entry in the books.
  target.data.get(COLLECTIONS.accounts)![0]!['balance_kobo'] = Long.fromNumber(132_500);
  await runSchemaSteps(target).then(
    () => assert.unreachable('the check refuses'),
    (error: Error) => {
      assert.match(error.message, 'the live wallet of acct-1 holds 132500 kobo, its postings 133000');
      assert.match(error.message, 'stop every such core and start again');
    },
  );
  assert.is(target.version, 27);
});

step('a delivered purchase without its settle stops the step too: a settle moves no wallet', async () => {
  const target = await beforeTheBooks();
  await runSchemaSteps(target);
  // A core of the earlier build settled P5 after the step had booked it pending.
  target.data.get(COLLECTIONS.transactions)!.find((p) => p['_id'] === 'P5')!['status'] = 'success';
  target.version = 27;
  await runSchemaSteps(target);
  assert.is(target.version, SCHEMA_VERSION, 'run again, the step books the settle it missed');
  assert.equal(
    entriesOf(target, 'P5').map((e) => e.kind),
    ['reserve', 'settle'],
  );
  // A delivered purchase whose debit is in no ledger entry gets no settle: the check names it.
  const later = await beforeTheBooks();
  later.data.set(
    COLLECTIONS.ledger,
    later.data.get(COLLECTIONS.ledger)!.filter((row) => row['reference'] !== 'P1'),
  );
  later.data.get(COLLECTIONS.accounts)![0]!['balance_kobo'] = Long.fromNumber(142_800);
  await runSchemaSteps(later).then(
    () => assert.unreachable('the check refuses'),
    (error: Error) => assert.match(error.message, '1 disagreement(s): the success purchase P1 has no settle.'),
  );
});

step('the check names the test wallet and an unbalanced mode apart', () => {
  const found = historyDisagreements(
    [{ _id: 'acct-2', balance_kobo: Long.ZERO, test_balance_kobo: Long.fromNumber(300) }],
    [{ _id: { account: 'wallet:acct-2', mode: 'test' }, sum: -300 }],
    [{ _id: 'test', sum: 5 }],
  );
  assert.equal(found, ['the test postings sum to 5 kobo, not zero']);
});

/** Inserts a row, giving every other NOT NULL column without a default a plain value (the parity test's rows). */
function insertRow(db: Database.Database, table: string, row: Record<string, unknown>): void {
  const columns = db.prepare(`PRAGMA table_info(${table})`).all() as {
    name: string;
    type: string;
    notnull: number;
    dflt_value: unknown;
  }[];
  const full: Record<string, unknown> = {};
  for (const column of columns) {
    if (column.name in row) full[column.name] = row[column.name];
    else if (column.notnull === 1 && column.dflt_value === null)
      full[column.name] = column.type === 'INTEGER' ? 0 : column.name.endsWith('s') ? '[]' : '{}';
  }
  const names = Object.keys(full);
  db.prepare(`INSERT INTO ${table} (${names.join(', ')}) VALUES (${names.map((n) => `@${n}`).join(', ')})`).run(full);
}

/** The same history in a SQLite file at step 34, then step 35 run: its entries as kind, reference and postings. */
function sqliteBooks(): string[] {
  const db = new Database(':memory:');
  for (const migration of MIGRATIONS.filter((m) => m.version <= 34)) db.exec(migration.sql);
  const data = history();
  const ms = (value: unknown) => (value as Date).getTime();
  const num = (value: unknown) => Number(value as Long);
  for (const a of data.get(COLLECTIONS.accounts)!)
    insertRow(db, 'accounts', {
      account_id: a['_id'],
      name: 'Ada',
      tier_id: 'standard',
      balance_kobo: num(a['balance_kobo']),
      created_at: 0,
    });
  let balance = 0;
  const ledger = [...data.get(COLLECTIONS.ledger)!].sort((a, b) => num(a['entry_id']) - num(b['entry_id']));
  for (const l of ledger) {
    balance += num(l['amount_kobo']);
    insertRow(db, 'ledger_entries', {
      entry_id: num(l['entry_id']),
      account_id: l['account_id'],
      amount_kobo: num(l['amount_kobo']),
      balance_after_kobo: balance,
      kind: l['kind'],
      reference: l['reference'],
      memo: l['kind'] === 'manual_debit' ? 'a reason' : '',
      created_at: ms(l['created_at']),
      mode: 'live',
    });
  }
  for (const t of data.get(COLLECTIONS.transactions)!)
    insertRow(db, 'transactions', {
      reference: t['_id'],
      account_id: t['account_id'],
      product: 'airtime',
      status: t['status'],
      service: 'mtn',
      recipient: '08031234567',
      face_value_kobo: num(t['charged_kobo']),
      charged_kobo: num(t['charged_kobo']),
      created_at: ms(t['created_at']),
      updated_at: ms(t['updated_at']),
      mode: 'live',
    });
  for (const a of data.get(SUPPLY_COLLECTIONS.attempts)!)
    insertRow(db, 'upstream_attempts', {
      reference: a['reference'],
      seq: a['seq'],
      upstream: a['upstream'],
      started_at: 0,
      outcome: a['outcome'],
      cost_kobo: a['cost_kobo'],
    });
  for (const i of data.get(FUNDING_COLLECTIONS.inflows)!)
    insertRow(db, 'inflows', {
      inflow_id: i['_id'],
      provider: i['provider'],
      provider_reference: `ref-${String(i['_id'])}`,
      account_number: '9930000737',
      account_id: i['account_id'],
      mode: 'live',
      amount_paid_kobo: num(i['amount_paid_kobo']),
      fee_kobo: i['status'] === 'credited' ? 500 : 0,
      credited_kobo: i['status'] === 'credited' ? 49_500 : 0,
      payer_name: 'ADA OBI',
      status: i['status'],
      reason: '',
      raw: '{}',
      credit_reference: i['credit_reference'],
      created_at: ms(i['created_at']),
      updated_at: ms(i['created_at']),
    });
  db.exec(MIGRATIONS.find((m) => m.version === 35)!.sql);
  const entries = db.prepare('SELECT entry_id, kind, reference FROM journal ORDER BY entry_id').all() as {
    entry_id: number;
    kind: string;
    reference: string;
  }[];
  const lines = db.prepare('SELECT account, amount_kobo FROM postings WHERE entry_id = ? ORDER BY leg');
  const found = entries.map((e) =>
    `${e.kind} ${e.reference} ${JSON.stringify(lines.all(e.entry_id))}`.replaceAll('amount_kobo', 'amountKobo'),
  );
  db.close();
  return found.sort();
}

step('the same history booked by SQLite step 35 gives the same entries, line for line', async () => {
  const target = await beforeTheBooks();
  await runSchemaSteps(target);
  const mongo = journal(target)
    .map((doc) => `${doc.kind} ${doc.reference} ${JSON.stringify(postings(doc))}`)
    .sort();
  assert.is(mongo.length, 15, 'fifteen entries of the history');
  assert.equal(mongo, sqliteBooks());
});

step.run();
