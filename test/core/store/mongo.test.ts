/**
 * The MongoDB adapter against a real server: the shared conformance suite, unchanged, on
 * a fresh database per test, then what only MongoDB can show (validators and unique
 * indexes that hold behind the adapter, the audit finding tampering, two stores on one
 * database, the schema version). It needs MONGODB_URI pointing at a replica set (a
 * one-node set is enough, see README "Running on MongoDB"); without it the file says so
 * and counts one skipped test, so a green run never hides that MongoDB was not tested.
 */
import { randomUUID } from 'node:crypto';
import { type Db, Long, MongoClient, MongoServerError } from 'mongodb';
import * as assert from 'uvu/assert';
import { kobo } from '../../../core/domain/money.js';
import type { AccountDoc } from '../../../core/store/mongo/documents.js';
import { type MongoStore, openMongoStore } from '../../../core/store/mongo/index.js';
import { COLLECTIONS, JOURNAL_COLLECTION, SCHEMA_VERSION } from '../../../core/store/mongo/schema.js';
import type { Store } from '../../../core/store/port.js';
import { airtimePurchase } from '../../helpers/purchases.js';
import { suite } from '../../helpers/suite.js';
import { storeConformance } from './conformance.js';

const uri = process.env['MONGODB_URI']?.trim() ?? '';

/** MongoDB's code for a write refused by a collection validator. */
const DOCUMENT_VALIDATION_FAILURE = 121;

if (uri === '') {
  console.log('mongo store conformance: SKIPPED (set MONGODB_URI to a replica set to run it)');
  const skipped = suite('mongo store (MONGODB_URI not set)');
  skipped.skip('the store conformance suite and the MongoDB-only checks', () => {});
  skipped.run();
} else {
  runAgainst(uri);
}

function runAgainst(uri: string): void {
  /** A database name no other test (or run) uses; dropped when the test ends. */
  const freshName = () => `prepaid_test_${randomUUID().replaceAll('-', '').slice(0, 16)}`;

  async function dropDatabase(dbName: string): Promise<void> {
    const client = new MongoClient(uri);
    try {
      await client.db(dbName).dropDatabase();
    } finally {
      await client.close();
    }
  }

  storeConformance('mongo', async () => {
    const dbName = freshName();
    const store = await openMongoStore({ uri, dbName });
    return {
      store,
      async cleanup() {
        await store.close();
        await dropDatabase(dbName);
      },
    };
  });

  /** A collection seen from outside the adapter: any fields, string ids. */
  interface Loose {
    _id: string;
    [field: string]: unknown;
  }

  const mongo = suite('mongo store: the database');
  let dbName: string;
  let raw: MongoClient;
  let db: Db;
  const opened: Store[] = [];

  async function open(): Promise<MongoStore> {
    const store = await openMongoStore({ uri, dbName });
    opened.push(store);
    return store;
  }

  mongo.before.each(async () => {
    dbName = freshName();
    raw = new MongoClient(uri);
    db = raw.db(dbName);
  });

  mongo.after.each(async () => {
    for (const store of opened.splice(0)) await store.close();
    await db.dropDatabase().catch(() => undefined);
    await raw.close();
  });

  /** An account with ₦500, one settled and one pending purchase (as in the SQLite tests). */
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
  }

  async function refusedWith(code: number, write: () => Promise<unknown>): Promise<void> {
    let caught: unknown;
    try {
      await write();
    } catch (error) {
      caught = error;
    }
    assert.instance(caught, MongoServerError);
    assert.is((caught as MongoServerError).code, code);
  }

  mongo('the deployment passed the guard as a replica set or sharded cluster', async () => {
    const store = await open();
    assert.ok(['replica_set', 'sharded'].includes(store.deployment.topology));
    assert.is(store.deployment.dbName, dbName);
    assert.is((await db.collection<Loose>(COLLECTIONS.meta).findOne({ _id: 'schema' }))?.['version'], SCHEMA_VERSION);
  });

  mongo(
    'money is stored as int64, and the validators refuse a negative balance or a wrong sign behind the adapter',
    async () => {
      await populate(await open());
      const accounts = raw.db(dbName, { promoteLongs: false }).collection<Loose>(COLLECTIONS.accounts);
      const account = await accounts.findOne({ _id: 'acct-1' });
      assert.instance(account?.['balance_kobo'], Long);
      await refusedWith(DOCUMENT_VALIDATION_FAILURE, () =>
        accounts.updateOne({ _id: 'acct-1' }, { $set: { balance_kobo: Long.fromNumber(-1) } }),
      );
      await refusedWith(DOCUMENT_VALIDATION_FAILURE, () =>
        accounts.updateOne({ _id: 'acct-1' }, { $set: { balance_kobo: 100.5 } }),
      );
      await refusedWith(DOCUMENT_VALIDATION_FAILURE, () =>
        db.collection(COLLECTIONS.ledger).insertOne({
          account_id: 'acct-1',
          entry_id: Long.fromNumber(99),
          amount_kobo: Long.fromNumber(500),
          balance_after_kobo: Long.fromNumber(40_700),
          kind: 'debit',
          reference: 'TX-x',
          memo: '',
          created_at: new Date(),
        }),
      );
      await refusedWith(DOCUMENT_VALIDATION_FAILURE, () =>
        db.collection<Loose>(COLLECTIONS.transactions).updateOne({ _id: 'TX-1' }, { $set: { status: 'refunded' } }),
      );
    },
  );

  mongo('the unique indexes refuse a second refund entry and a reused idempotency key behind the adapter', async () => {
    const store = await open();
    await populate(store);
    await store.ledger.post({ kind: 'refund', reference: 'TX-2', reason: 'failed', at: new Date(6_000) });
    const entry = {
      account_id: 'acct-1',
      entry_id: Long.fromNumber(50),
      amount_kobo: Long.fromNumber(9_800),
      balance_after_kobo: Long.fromNumber(50_000),
      kind: 'refund',
      reference: 'TX-2',
      memo: 'again',
      created_at: new Date(7_000),
    };
    await refusedWith(11_000, () => db.collection(COLLECTIONS.ledger).insertOne(entry));
    const copy = await db.collection<Loose>(COLLECTIONS.transactions).findOne({ _id: 'TX-2' });
    await refusedWith(11_000, () => db.collection<Loose>(COLLECTIONS.transactions).insertOne({ ...copy, _id: 'TX-3' }));
  });

  mongo('the audit finds money changed behind the adapter', async () => {
    const store = await open();
    await populate(store);
    assert.equal((await store.wallet.audit()).violations, [], 'clean before tampering');
    // A balance edited by hand, a purchase failed without its refund, a refund for a delivered purchase.
    await db
      .collection<AccountDoc>(COLLECTIONS.accounts)
      .updateOne({ _id: 'acct-1' }, { $inc: { balance_kobo: Long.fromNumber(500) } });
    await db.collection<Loose>(COLLECTIONS.transactions).updateOne({ _id: 'TX-2' }, { $set: { status: 'failed' } });
    await db.collection(COLLECTIONS.ledger).insertOne({
      account_id: 'acct-1',
      entry_id: Long.fromNumber(100),
      amount_kobo: Long.fromNumber(9_800),
      balance_after_kobo: Long.fromNumber(99_999),
      kind: 'refund',
      reference: 'TX-1',
      memo: 'wrong',
      created_at: new Date(7_000),
    });
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
    assert.is(audit.accountsChecked, 1);
    assert.is(audit.transactionsChecked, 2);
    assert.is(audit.entriesChecked, 4);
  });

  mongo(
    'the journal refuses an entry written past the adapter unless it balances, and the check finds one forced in',
    async () => {
      await populate(await open());
      const journal = db.collection<Loose>(JOURNAL_COLLECTION);
      const entry = (amounts: number[]) => ({
        _id: `forced:${amounts.join(',')}`,
        entryId: '000000000000000000000000:0',
        kind: 'credit',
        mode: 'live',
        reference: 'FORCED',
        at: new Date(9_000),
        postings: amounts.map((amount, i) => ({
          account: i === 0 ? 'adjustments:manual' : 'wallet:acct-1',
          amountKobo: Long.fromNumber(amount),
        })),
      });
      await refusedWith(DOCUMENT_VALIDATION_FAILURE, () => journal.insertOne(entry([500, -400])));
      await refusedWith(DOCUMENT_VALIDATION_FAILURE, () => journal.insertOne(entry([500])));
      await refusedWith(DOCUMENT_VALIDATION_FAILURE, () => journal.insertOne(entry([500, -500, 0])));
      await refusedWith(DOCUMENT_VALIDATION_FAILURE, () =>
        journal.insertOne({
          ...entry([500, -500]),
          postings: [
            { account: 'held:inflows', amountKobo: 500 },
            { account: 'held:purchases', amountKobo: -500 },
          ],
        }),
      );
      const store = await open();
      assert.equal((await store.wallet.audit()).violations, [], 'nothing refused was kept');
      await journal.insertOne(entry([500, -400]), { bypassDocumentValidation: true });
      const found = (await store.wallet.audit()).violations.map((v) => v.kind).sort();
      assert.equal(found, ['books_unbalanced', 'books_unbalanced', 'wallet_books_mismatch']);
    },
  );

  mongo('schema step 28 books a history as the live moves booked it, and run again books nothing twice', async () => {
    const store = await open();
    await populate(store);
    await store.ledger.post({ kind: 'refund', reference: 'TX-2', reason: 'upstream refused', at: new Date(6_000) });
    await store.ledger.post({ kind: 'reverse', reference: 'TX-1', reason: 'upstream reversed', at: new Date(7_000) });
    const live = await db.collection<Loose>(JOURNAL_COLLECTION).find({}).sort({ _id: 1 }).toArray();
    // The store as the build before the books left it: no journal, schema 27.
    await store.close();
    await db.collection(JOURNAL_COLLECTION).drop();
    await db.collection<Loose>(COLLECTIONS.meta).updateOne({ _id: 'schema' }, { $set: { version: 27 } });
    const upgraded = await open();
    const migrated = await db.collection<Loose>(JOURNAL_COLLECTION).find({}).sort({ _id: 1 }).toArray();
    const booked = (docs: Loose[]) => docs.map((d) => `${d._id} ${d['kind']} ${JSON.stringify(d['postings'])}`);
    assert.equal(booked(migrated), booked(live), 'the same _ids and postings as the live moves wrote');
    assert.equal((await upgraded.wallet.audit()).violations, []);
    await db.collection<Loose>(COLLECTIONS.meta).updateOne({ _id: 'schema' }, { $set: { version: 27 } });
    await open();
    assert.is(await db.collection(JOURNAL_COLLECTION).countDocuments(), migrated.length, 'run again: nothing twice');
  });

  mongo('two stores (two cores) on one database see each other and never overdraw', async () => {
    const a = await open();
    const b = await open();
    await a.accounts.create({ accountId: 'shared', name: 'Shared', tierId: 'standard', createdAt: new Date(0) });
    await b.ledger.post({
      kind: 'credit',
      credit: {
        mode: 'live',
        accountId: 'shared',
        amountKobo: kobo(5_000),
        reference: 'CR',
        memo: '',
        at: new Date(1),
      },
    });
    const results = await Promise.all(
      Array.from({ length: 12 }, (_, i) =>
        (i % 2 === 0 ? a : b).ledger.post({
          kind: 'reserve',
          tx: airtimePurchase(`TX-${i}`, { accountId: 'shared', chargedKobo: kobo(1_000), createdAt: new Date(2 + i) }),
        }),
      ),
    );
    assert.is(results.filter((r) => r.outcome === 'reserved').length, 5);
    assert.is((await a.accounts.get('shared'))?.balanceKobo, 0);
    assert.is((await b.accounts.get('shared'))?.balanceKobo, 0);
    assert.equal((await a.wallet.audit()).violations, []);
  });

  mongo('reopening keeps the money and the plan id counter; a database from a newer schema is refused', async () => {
    const first = await open();
    await populate(first);
    const plan = {
      planId: 0,
      network: 'mtn',
      label: '1GB',
      validity: '30 days',
      faceValueKobo: kobo(100_000),
      tierPricesKobo: {},
      type: 'direct' as const,
      sizeMb: 0,
      validityDays: 0,
      costsKobo: {},
      active: true,
      providerCode: '',
    };
    assert.is((await first.catalog.upsertPlan(plan)).planId, 1);
    await first.close();
    const second = await open();
    assert.is((await second.accounts.get('acct-1'))?.balanceKobo, 30_400);
    assert.is(
      (await second.ledger.post({ kind: 'reserve', tx: airtimePurchase('TX-9', { requestId: 'r-2' }) })).outcome,
      'duplicate',
    );
    assert.is((await second.catalog.upsertPlan(plan)).planId, 2, 'plan ids continue where they stopped');

    await db
      .collection<Loose>(COLLECTIONS.meta)
      .updateOne({ _id: 'schema' }, { $set: { version: SCHEMA_VERSION + 1 } });
    let refused: unknown;
    try {
      await open();
    } catch (error) {
      refused = error;
    }
    assert.match(String(refused), /newer than this build understands/);
  });

  mongo('close is safe to call twice, and a closed store refuses work', async () => {
    const store = await open();
    await store.close();
    await store.close();
    let refused = false;
    await store.accounts.get('x').catch(() => {
      refused = true;
    });
    assert.ok(refused);
  });

  mongo.run();
}
