/**
 * The MongoDB adapter's parts that need no server: money and document mapping through
 * real BSON, page cursors, the reading of driver errors, the start-up guard's decision,
 * the configuration, and the choice of store. The adapter against a real replica set is
 * in mongo.test.ts; the guard against the real driver is in mongo-guard.test.ts.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { BSON, Long, MongoServerError, ReadConcern } from 'mongodb';
import * as assert from 'uvu/assert';
import { CORE_CONFIG_HELP, readCoreConfig, readMongoConfig } from '../../../core/config.js';
import { DomainError } from '../../../core/domain/errors.js';
import { kobo } from '../../../core/domain/money.js';
import { InvalidCursorError } from '../../../core/domain/paging.js';
import type { LedgerEntryRecord, NewTransaction, PlanRecord } from '../../../core/domain/records.js';
import { mongoHosts, openStore, SQLITE_FILE } from '../../../core/store/index.js';
import { attemptFilter, claimFilter, claimUpdate } from '../../../core/store/mongo/claims.js';
import {
  COMMIT_WTIMEOUT_MARGIN_MS,
  MAJORITY_WRITE_TIMEOUT_MS,
  transactionOptions,
} from '../../../core/store/mongo/context.js';
import {
  type AccountDoc,
  accountFromDoc,
  accountToDoc,
  type LedgerEntryDoc,
  ledgerEntryFromDoc,
  ledgerEntryToDoc,
  newTransactionToDoc,
  type PlanDoc,
  planFields,
  planFromDoc,
  readKobo,
  type TransactionDoc,
  toLong,
  transactionFromDoc,
} from '../../../core/store/mongo/documents.js';
import {
  creditFailure,
  isDuplicateKeyOn,
  isTransientTransactionError,
  isUnknownCommitResult,
} from '../../../core/store/mongo/errors.js';
import { checkDeployment, type HelloReply, MIN_WIRE_VERSION } from '../../../core/store/mongo/guard.js';
import { historySearchFilter } from '../../../core/store/mongo/history.js';
import {
  CREDIT_REFERENCE_INDEX,
  INDEXES,
  ONCE_PER_PURCHASE_INDEX,
  REQUEST_ID_INDEX,
} from '../../../core/store/mongo/schema.js';
import { sameCreditQuery, sameRequestQuery } from '../../../core/store/mongo/wallet.js';
import {
  decodeLedgerCursor,
  decodeTransactionCursor,
  encodeLedgerCursor,
  encodeTransactionCursor,
} from '../../../core/store/paging.js';
import {
  type LedgerRow,
  ledgerCursor,
  type TransactionRow,
  transactionCursor,
} from '../../../core/store/sqlite/rows.js';
import { ConfigError } from '../../../runtime/env-schema.js';
import { suite } from '../../helpers/suite.js';

/** Through the wire and back with the driver's default read options, as a stored document would travel. */
function roundTrip<T extends BSON.Document>(doc: T): T {
  return BSON.deserialize(BSON.serialize(doc)) as T;
}

/** The same, but keeping int64 as Long, to see which BSON type was written. */
function rawTypes(doc: BSON.Document): BSON.Document {
  return BSON.deserialize(BSON.serialize(doc), { promoteLongs: false });
}

const money = suite('mongo store: money and documents');

money('money is written as int64 and read back exactly, up to 2^53 - 1', () => {
  for (const kobo of [0, 1, 2 ** 31, 10_000_000_000, Number.MAX_SAFE_INTEGER, -Number.MAX_SAFE_INTEGER]) {
    const stored = rawTypes({ kobo: toLong(kobo, 'kobo') });
    assert.instance(stored['kobo'], Long, `${kobo} is stored as int64`);
    assert.is(readKobo(roundTrip({ kobo: toLong(kobo, 'kobo') })['kobo'], 'kobo'), kobo);
  }
});

money('an amount that is not a safe integer is refused when written', () => {
  for (const bad of [1.5, Number.NaN, Number.POSITIVE_INFINITY, 2 ** 53]) {
    assert.throws(() => toLong(bad, 'amountKobo'), /amountKobo must be a safe integer/);
  }
});

money('a stored value that is not an exact integer is refused when read, never rounded', () => {
  // A value typed by hand in mongosh is a double; an integral one is still an exact amount.
  assert.is(readKobo(roundTrip({ v: 250.0 })['v'], 'v'), 250);
  assert.is(readKobo(roundTrip({ v: new BSON.Int32(77) })['v'], 'v'), 77);
  for (const bad of [12.5, '100', null, undefined, Long.fromString('9007199254740993'), Long.fromNumber(2 ** 53)]) {
    assert.throws(
      () => readKobo(bad, 'accounts.balance_kobo'),
      /accounts\.balance_kobo is not a safe integer/,
      `refuses ${String(bad)}`,
    );
  }
  // The driver hands 2^53 back as a number (it fits in a double), which is not a safe integer either.
  assert.throws(() => readKobo(roundTrip({ v: Long.fromNumber(2 ** 53) })['v'], 'v'));
});

money('a new account stores zero as int64 and reads back as created', () => {
  const account = { accountId: 'acct-1', name: 'Ada Stores', tierId: 'api', createdAt: new Date(Date.UTC(2025, 0, 1)) };
  const doc = roundTrip(accountToDoc(account));
  assert.equal(accountFromDoc(doc), {
    ...account,
    balanceKobo: kobo(0),
    testBalanceKobo: kobo(0),
    emailVerifiedAt: account.createdAt,
    phoneVerifiedAt: account.createdAt,
  });
  assert.instance(rawTypes(accountToDoc(account))['test_balance_kobo'], Long);
  const raw = rawTypes(accountToDoc(account));
  assert.instance(raw['balance_kobo'], Long);
  assert.instance(raw['ledger_seq'], Long);
});

money('a pending purchase survives BSON exactly; undefined detail keys are dropped as JSON drops them', () => {
  const tx: NewTransaction = {
    reference: 'TX-1',
    accountId: 'acct-1',
    mode: 'live',
    product: 'bulksms',
    service: 'sms',
    recipient: '',
    faceValueKobo: kobo(9_007_199_254_740),
    chargedKobo: kobo(9_007_199_254_740),
    details: {
      sender: 'MyShop',
      recipients: ['08031234567', '08051234567'],
      pages: 2,
      message: 'hi',
      planLabel: undefined,
    },
    requestId: 'order-1',
    requestHash: 'h'.repeat(64),
    nextAttemptAt: new Date(60_000),
    createdAt: new Date(1_000),
  };
  const stored = roundTrip(newTransactionToDoc(tx, kobo(12_345)));
  const { planLabel: _dropped, ...details } = tx.details;
  assert.equal(transactionFromDoc(stored), {
    ...tx,
    details,
    status: 'pending',
    balanceAfterKobo: kobo(12_345),
    result: null,
    failureReason: null,
    attempts: 0,
    needsAttention: false,
    updatedAt: tx.createdAt,
  });
  assert.ok(!('planLabel' in stored.details), 'no null left behind for an undefined key');
  const raw = rawTypes(newTransactionToDoc(tx, kobo(12_345)));
  for (const field of ['face_value_kobo', 'charged_kobo', 'balance_after_kobo'])
    assert.instance(raw[field], Long, `${field} is int64`);
});

money('a ledger entry survives BSON exactly', () => {
  const entry: LedgerEntryRecord = {
    entryId: 42,
    accountId: 'acct-1',
    mode: 'live',
    amountKobo: kobo(-9_800),
    balanceAfterKobo: kobo(10_200),
    kind: 'debit',
    reference: 'TX-1',
    memo: 'airtime mtn 08031234567',
    createdAt: new Date(5_000),
  };
  const id = new BSON.ObjectId();
  const stored = roundTrip<LedgerEntryDoc>(ledgerEntryToDoc(entry, id));
  assert.equal(ledgerEntryFromDoc(stored), entry);
  assert.ok(stored._id.equals(id), 'the _id chosen before the transaction is the one written');
});

money('a plan keeps tier prices under any tier id, even one with "." or "$" in it', () => {
  const plan: PlanRecord = {
    planId: 7,
    network: 'mtn',
    label: '1GB',
    validity: '30 days',
    faceValueKobo: kobo(100_000),
    tierPricesKobo: { standard: kobo(98_000), 'gold.v2': kobo(95_000), $vip: kobo(90_000) },
    type: 'direct',
    sizeMb: 0,
    validityDays: 0,
    costsKobo: {},
    active: true,
    providerCode: 'mtn-1gb',
  };
  const doc: PlanDoc = { _id: plan.planId, ...planFields(plan) };
  assert.equal(planFromDoc(roundTrip(doc)), plan);
});

money('a stored document with a damaged amount is refused when read', () => {
  const doc: AccountDoc = {
    ...accountToDoc({ accountId: 'a', name: 'n', tierId: 't', createdAt: new Date(0) }),
    balance_kobo: 10.5,
  };
  assert.throws(() => accountFromDoc(doc), /accounts\.balance_kobo/);
  const tx = newTransactionToDoc(
    {
      reference: 'T',
      accountId: 'a',
      mode: 'live',
      product: 'airtime',
      service: 'mtn',
      recipient: '0',
      faceValueKobo: kobo(1),
      chargedKobo: kobo(1),
      details: {},
      requestId: null,
      requestHash: null,
      nextAttemptAt: new Date(0),
      createdAt: new Date(0),
    },
    kobo(0),
  );
  const damaged: TransactionDoc = { ...tx, charged_kobo: Long.fromString('99999999999999999') };
  assert.throws(() => transactionFromDoc(damaged), /transactions\.charged_kobo/);
});

money.run();

const cursors = suite('mongo store: page cursors');

cursors('transaction and ledger cursors round-trip', () => {
  const at = new Date(Date.UTC(2025, 5, 1, 12, 0, 0, 123));
  assert.equal(decodeTransactionCursor(encodeTransactionCursor(at, 'TX-9')), {
    createdAtMs: at.getTime(),
    reference: 'TX-9',
  });
  assert.is(decodeLedgerCursor(encodeLedgerCursor(123_456)), 123_456);
});

cursors('cursors are the same as the SQLite adapter issues, so they mean the same on either store', () => {
  const at = new Date(1_735_718_400_000);
  const mongoCursor = encodeTransactionCursor(at, 'TX-1');
  assert.equal(decodeTransactionCursor(mongoCursor), { createdAtMs: at.getTime(), reference: 'TX-1' });
  const sqliteRow = { created_at: at.getTime(), reference: 'TX-1' } as TransactionRow;
  assert.is(transactionCursor(sqliteRow), mongoCursor);
  assert.is(ledgerCursor({ entry_id: 77 } as LedgerRow), encodeLedgerCursor(77));
  assert.is(decodeLedgerCursor(ledgerCursor({ entry_id: 77 } as LedgerRow)), 77);
});

cursors('a forged or mangled cursor is InvalidCursorError', () => {
  const forged = [
    'not a cursor!',
    'bm9wZQ', // "nope"
    Buffer.from('{"a":1}').toString('base64url'),
    Buffer.from('[1.5,"TX"]').toString('base64url'),
    Buffer.from('["1","TX"]').toString('base64url'),
    Buffer.from('[1,"TX","extra"]').toString('base64url'),
    '',
  ];
  for (const cursor of forged) {
    assert.throws(
      () => decodeTransactionCursor(cursor),
      (e: unknown) => e instanceof InvalidCursorError,
      `transaction cursor ${cursor}`,
    );
  }
  for (const cursor of [
    'x',
    Buffer.from('["7"]').toString('base64url'),
    Buffer.from('[1,2]').toString('base64url'),
    Buffer.from('[1e300]').toString('base64url'),
  ]) {
    assert.throws(
      () => decodeLedgerCursor(cursor),
      (e: unknown) => e instanceof InvalidCursorError,
      `ledger cursor ${cursor}`,
    );
  }
});

cursors.run();

const errors = suite('mongo store: reading driver errors');

/** A duplicate-key write error as the server reports it for insertOne (MongoDB 4.4+). */
function duplicateKey(index: string, keyPattern: Record<string, number> | undefined): MongoServerError {
  return new MongoServerError({
    message: `E11000 duplicate key error collection: prepaid.transactions index: ${index} dup key: { }`,
    errmsg: `E11000 duplicate key error collection: prepaid.transactions index: ${index} dup key: { }`,
    code: 11000,
    ...(keyPattern === undefined ? {} : { keyPattern }),
  });
}

errors('a duplicate idempotency key is told apart from any other duplicate', () => {
  const fields = REQUEST_ID_INDEX.fields;
  assert.ok(
    isDuplicateKeyOn(
      duplicateKey('transactions_request_id_by_mode', { account_id: 1, mode: 1, request_id: 1 }),
      REQUEST_ID_INDEX.name,
      fields,
    ),
  );
  // Without keyPattern (an older reply shape) the index name in errmsg decides.
  assert.ok(
    isDuplicateKeyOn(duplicateKey('transactions_request_id_by_mode', undefined), REQUEST_ID_INDEX.name, fields),
  );
  // The index test mode replaced (one key per account, whatever the mode) is not this one.
  assert.not.ok(
    isDuplicateKeyOn(
      duplicateKey('transactions_request_id', { account_id: 1, request_id: 1 }),
      REQUEST_ID_INDEX.name,
      fields,
    ),
  );
  // A clash of references (the _id) must not pass for a replayed request.
  assert.not.ok(isDuplicateKeyOn(duplicateKey('_id_', { _id: 1 }), REQUEST_ID_INDEX.name, fields));
  assert.not.ok(isDuplicateKeyOn(duplicateKey('_id_', undefined), REQUEST_ID_INDEX.name, fields));
  assert.not.ok(
    isDuplicateKeyOn(duplicateKey('transactions_request_id_old', undefined), REQUEST_ID_INDEX.name, fields),
  );
  assert.not.ok(
    isDuplicateKeyOn(new MongoServerError({ message: 'WriteConflict', code: 112 }), REQUEST_ID_INDEX.name, fields),
  );
  assert.not.ok(
    isDuplicateKeyOn(
      new Error('E11000 duplicate key error index: transactions_request_id dup key'),
      REQUEST_ID_INDEX.name,
      fields,
    ),
  );
});

errors('transaction error labels are read from the labels, not the message', () => {
  const transient = new MongoServerError({
    message: 'WriteConflict',
    code: 112,
    errorLabels: ['TransientTransactionError'],
  });
  const unknown = new MongoServerError({
    message: 'operation exceeded time limit',
    code: 50,
    errorLabels: ['UnknownTransactionCommitResult'],
  });
  assert.ok(isTransientTransactionError(transient));
  assert.not.ok(isUnknownCommitResult(transient));
  assert.ok(isUnknownCommitResult(unknown));
  assert.not.ok(isTransientTransactionError(unknown));
  assert.not.ok(isTransientTransactionError(new Error('TransientTransactionError')));
  assert.not.ok(isUnknownCommitResult(duplicateKey('transactions_request_id', undefined)));
});

errors('the indexes the adapter classifies errors by are the ones the schema creates', () => {
  for (const index of [REQUEST_ID_INDEX, ONCE_PER_PURCHASE_INDEX]) {
    // Step 1's indexes, and the idempotency index step 4 put in place of step 1's
    // (mongo-schema.test.ts checks that the steps create it).
    const defined = [...Object.values(INDEXES).flat(), REQUEST_ID_INDEX.description].find((d) => d.name === index.name);
    assert.ok(defined, `${index.name} is created`);
    assert.equal(Object.keys(defined.key), [...index.fields]);
    assert.is(defined.unique, true);
  }
});

errors('a duplicate credit reference is told apart from a duplicate entry id', () => {
  const { name, fields } = CREDIT_REFERENCE_INDEX;
  assert.ok(isDuplicateKeyOn(duplicateKey(name, { account_id: 1, mode: 1, reference: 1 }), name, fields));
  assert.not.ok(isDuplicateKeyOn(duplicateKey(name, { account_id: 1, reference: 1 }), name, fields), 'step 3 index');
  assert.ok(isDuplicateKeyOn(duplicateKey(name, undefined), name, fields));
  assert.not.ok(isDuplicateKeyOn(duplicateKey('ledger_by_account_asc', { account_id: 1, entry_id: 1 }), name, fields));
  assert.not.ok(isDuplicateKeyOn(duplicateKey(ONCE_PER_PURCHASE_INDEX.name, { reference: 1, kind: 1 }), name, fields));
  assert.equal(Object.keys(CREDIT_REFERENCE_INDEX.description.key), [...fields]);
  assert.is(CREDIT_REFERENCE_INDEX.description.name, name);
  assert.is(CREDIT_REFERENCE_INDEX.description.unique, true);
});

errors(
  'a credit whose commit result is unknown is OUTCOME_UNKNOWN, saying to check the ' +
    'ledger and which reference to retry with',
  () => {
    const credit = { accountId: 'acct-1', reference: 'GTB-42' };
    const unknown = new MongoServerError({
      message: 'operation exceeded time limit',
      code: 50,
      errorLabels: ['UnknownTransactionCommitResult'],
    });
    const told = creditFailure(unknown, credit);
    assert.instance(told, DomainError);
    assert.is((told as DomainError).code, 'OUTCOME_UNKNOWN');
    assert.match((told as DomainError).message, /check the ledger before retrying/i);
    assert.match((told as DomainError).message, /GTB-42.*at most once/);
    assert.equal((told as DomainError).metadata, { reference: 'GTB-42' });
    // Anything else is passed on as it is: an aborted transaction wrote nothing.
    const transient = new MongoServerError({
      message: 'WriteConflict',
      code: 112,
      errorLabels: ['TransientTransactionError'],
    });
    for (const other of [
      transient,
      duplicateKey(CREDIT_REFERENCE_INDEX.name, undefined),
      new Error('UnknownTransactionCommitResult'),
    ]) {
      assert.is(creditFailure(other, credit), other);
    }
  },
);

errors.run();

const guard = suite('mongo store: the start-up guard');

const PRIMARY_70: HelloReply = {
  setName: 'rs0',
  isWritablePrimary: true,
  maxWireVersion: 21,
  logicalSessionTimeoutMinutes: 30,
};

guard('a replica set primary or a mongos at MongoDB 6.0 or newer is accepted', () => {
  assert.equal(checkDeployment(PRIMARY_70), { ok: true, topology: 'replica_set', serverVersion: '7.0' });
  assert.equal(checkDeployment({ ...PRIMARY_70, maxWireVersion: MIN_WIRE_VERSION }), {
    ok: true,
    topology: 'replica_set',
    serverVersion: '6.0',
  });
  assert.equal(checkDeployment({ ...PRIMARY_70, maxWireVersion: 25 }), {
    ok: true,
    topology: 'replica_set',
    serverVersion: '8.0',
  });
  assert.equal(checkDeployment({ ...PRIMARY_70, maxWireVersion: 22 }), {
    ok: true,
    topology: 'replica_set',
    serverVersion: '7.x',
  });
  const mongos: HelloReply = {
    msg: 'isdbgrid',
    isWritablePrimary: true,
    maxWireVersion: 21,
    logicalSessionTimeoutMinutes: 30,
  };
  assert.equal(checkDeployment(mongos), { ok: true, topology: 'sharded', serverVersion: '7.0' });
});

guard('a standalone server is refused, with how to make a one-node replica set', () => {
  for (const hello of [
    { isWritablePrimary: true, maxWireVersion: 21, logicalSessionTimeoutMinutes: 30 },
    { setName: '', isWritablePrimary: true, maxWireVersion: 21, logicalSessionTimeoutMinutes: 30 },
    { msg: 'something else', isWritablePrimary: true, maxWireVersion: 25, logicalSessionTimeoutMinutes: 30 },
  ]) {
    const check = checkDeployment(hello);
    assert.is(check.ok, false);
    if (!check.ok) {
      assert.match(check.reason, /standalone/);
      assert.match(check.reason, /--replSet rs0/);
      assert.match(check.reason, /rs\.initiate\(\)/);
    }
  }
});

guard('a server too old for what the store uses is refused with the version it needs', () => {
  const cases: Array<[HelloReply, RegExp]> = [
    [
      { ...PRIMARY_70, maxWireVersion: 13 },
      /MongoDB 5\.0 \(wire version 13\) is too old: the store needs MongoDB 6\.0 or newer/,
    ],
    [{ ...PRIMARY_70, maxWireVersion: 16 }, /MongoDB 5\.x \(wire version 16\) is too old/],
    [{ ...PRIMARY_70, maxWireVersion: 7 }, /MongoDB 4\.0 \(wire version 7\) is too old/],
    [
      { msg: 'isdbgrid', maxWireVersion: 9, logicalSessionTimeoutMinutes: 30 },
      /MongoDB 4\.4 \(wire version 9\) is too old/,
    ],
    [{ ...PRIMARY_70, maxWireVersion: undefined }, /wire version 0\) is too old/],
  ];
  for (const [hello, reason] of cases) {
    const check = checkDeployment(hello);
    assert.is(check.ok, false);
    if (!check.ok) assert.match(check.reason, reason);
  }
});

guard('a server without sessions, or a member that is not the primary, is refused', () => {
  for (const missing of [undefined, null]) {
    const check = checkDeployment({ ...PRIMARY_70, logicalSessionTimeoutMinutes: missing });
    assert.is(check.ok, false);
    if (!check.ok) assert.match(check.reason, /logical sessions/);
  }
  const secondary = checkDeployment({ ...PRIMARY_70, isWritablePrimary: false, secondary: true });
  assert.is(secondary.ok, false);
  if (!secondary.ok) assert.match(secondary.reason, /is a secondary; connect to the replica set/);
  const arbiter = checkDeployment({ ...PRIMARY_70, isWritablePrimary: false, arbiterOnly: true });
  assert.is(arbiter.ok, false);
  if (!arbiter.ok) assert.match(arbiter.reason, /is an arbiter/);
});

guard.run();

const config = suite('mongo store: configuration and choice of store');

config('MONGODB_URI chooses MongoDB; unset (or blank) keeps the embedded store', () => {
  assert.is(readMongoConfig({}), null);
  assert.is(readMongoConfig({ MONGODB_URI: '  ' }), null);
  assert.equal(readMongoConfig({ MONGODB_URI: 'mongodb://db1:27017,db2:27017/?replicaSet=rs0' }), {
    uri: 'mongodb://db1:27017,db2:27017/?replicaSet=rs0',
    dbName: 'prepaid',
  });
  assert.equal(readMongoConfig({ MONGODB_URI: 'mongodb+srv://cluster0.example.net', MONGODB_DB: 'prepaid_live' }), {
    uri: 'mongodb+srv://cluster0.example.net',
    dbName: 'prepaid_live',
  });
  assert.is(readCoreConfig({}).mongo, null);
  assert.equal(readCoreConfig({ MONGODB_URI: 'mongodb://127.0.0.1:27017/?replicaSet=rs0' }).mongo, {
    uri: 'mongodb://127.0.0.1:27017/?replicaSet=rs0',
    dbName: 'prepaid',
  });
});

config('a bad MONGODB_URI or MONGODB_DB stops the core with the variable named and no password repeated', () => {
  const cases: Array<[Record<string, string>, string]> = [
    [{ MONGODB_URI: 'http://user:s3cret@db:27017' }, 'MONGODB_URI'],
    [{ MONGODB_URI: 'mongodb://' }, 'MONGODB_URI'],
    [{ MONGODB_URI: 'user:s3cret@db:27017' }, 'MONGODB_URI'],
    [{ MONGODB_URI: 'mongodb://db', MONGODB_DB: 'pre.paid' }, 'MONGODB_DB'],
    [{ MONGODB_URI: 'mongodb://db', MONGODB_DB: 'pre paid' }, 'MONGODB_DB'],
    [{ MONGODB_URI: 'mongodb://db', MONGODB_DB: 'a/b' }, 'MONGODB_DB'],
    [{ MONGODB_URI: 'mongodb://db', MONGODB_DB: 'x'.repeat(64) }, 'MONGODB_DB'],
    [{ MONGODB_URI: 'mongodb://db', MONGODB_DB: 'é'.repeat(32) }, 'MONGODB_DB'],
  ];
  for (const [env, variable] of cases) {
    let caught: unknown;
    try {
      readMongoConfig(env);
    } catch (error) {
      caught = error;
    }
    assert.instance(caught, ConfigError, JSON.stringify(env));
    assert.ok((caught as Error).message.includes(variable), `the message names ${variable}`);
    assert.not.ok((caught as Error).message.includes('s3cret'), 'the password is not repeated');
  }
  assert.equal(readMongoConfig({ MONGODB_URI: 'mongodb://db', MONGODB_DB: 'x'.repeat(63) })?.dbName, 'x'.repeat(63));
});

config('--help lists MONGODB_URI and MONGODB_DB', () => {
  const names = CORE_CONFIG_HELP.map(([name]) => name);
  assert.ok(names.includes('MONGODB_URI'));
  assert.ok(names.includes('MONGODB_DB'));
});

config('the logged hosts of a connection string leave out credentials and options', () => {
  assert.is(
    mongoHosts('mongodb://app:p%40ss@db1:27017,db2:27017/prepaid?replicaSet=rs0&authSource=admin'),
    'mongodb://db1:27017,db2:27017',
  );
  assert.is(
    mongoHosts('mongodb+srv://app:secret@cluster0.example.net/?retryWrites=true'),
    'mongodb+srv://cluster0.example.net',
  );
  assert.is(mongoHosts('mongodb://127.0.0.1:27017'), 'mongodb://127.0.0.1:27017');
  // A password with a raw "@" (it should be percent-encoded) still does not leak.
  assert.is(mongoHosts('mongodb://app:pa@ss@db1:27017/'), 'mongodb://db1:27017');
});

config('without MONGODB_URI, openStore opens the SQLite file in DATA_DIR and says so', async () => {
  const dataDir = mkdtempSync(path.join(tmpdir(), 'prepaid-open-store-'));
  const logged: Array<[string, Record<string, unknown>]> = [];
  try {
    const store = await openStore({ dataDir, mongo: null }, (event, fields) => logged.push([event, fields]));
    await store.accounts.create({ accountId: 'acct-1', name: 'Ada', tierId: 'standard', createdAt: new Date(0) });
    assert.is((await store.accounts.get('acct-1'))?.balanceKobo, 0);
    await store.close();
    assert.equal(logged, [['store.opened', { store: 'sqlite', file: path.join(dataDir, SQLITE_FILE) }]]);
  } finally {
    rmSync(dataDir, { recursive: true, force: true });
  }
});

config.run();

const shapes = suite('mongo store: query shapes and options');

shapes('an idempotency lookup states the string type, so the partial unique index can serve it', () => {
  const query = sameRequestQuery({ accountId: 'acct-1', mode: 'live', requestId: 'k-1' });
  assert.equal(query, { account_id: 'acct-1', mode: 'live', request_id: { $eq: 'k-1', $type: 'string' } });
  const index = REQUEST_ID_INDEX.description;
  // The planner uses the partial index only when the query implies its filter expression.
  assert.equal(index.partialFilterExpression, { request_id: { $type: 'string' } });
  assert.is(
    (query as { request_id: { $type: string } }).request_id.$type,
    index.partialFilterExpression!['request_id'].$type,
  );
  assert.is(sameRequestQuery({ accountId: 'acct-1', mode: 'live', requestId: null }), null);
});

shapes(
  "a holder's search by idempotency key states the string type too, so the same partial index can serve it",
  () => {
    const filter = historySearchFilter('acct-1', 'test', { requestId: 'k-1' }, undefined);
    assert.equal(filter, { account_id: 'acct-1', mode: 'test', request_id: { $eq: 'k-1', $type: 'string' } });
    // Its equality fields are the index's fields, in order.
    assert.equal(REQUEST_ID_INDEX.fields, ['account_id', 'mode', 'request_id']);
    assert.equal(historySearchFilter('acct-1', 'live', { product: 'airtime' }, undefined), {
      account_id: 'acct-1',
      mode: 'live',
      product: 'airtime',
    });
  },
);

shapes(
  'a credit reference lookup implies the partial unique index filter (kind credit), so the index can serve it',
  () => {
    const query = sameCreditQuery({ accountId: 'acct-1', mode: 'live', reference: 'GTB-42' });
    assert.equal(query, { account_id: 'acct-1', mode: 'live', reference: 'GTB-42', kind: 'credit' });
    assert.equal(CREDIT_REFERENCE_INDEX.description.partialFilterExpression, { kind: 'credit' });
    for (const field of Object.keys(CREDIT_REFERENCE_INDEX.description.key)) assert.ok(field in query, field);
  },
);

shapes(
  'a recovery claim matches only a pending, due transaction at the attempts its claimer saw, and takes the lease',
  () => {
    const claim = { dueBy: new Date(100_000), attempts: 2, leaseUntil: new Date(160_000), at: new Date(100_000) };
    assert.equal(claimFilter('TX-1', claim), {
      _id: 'TX-1',
      status: 'pending',
      next_attempt_at: { $lte: new Date(100_000) },
      attempts: 2,
    });
    // The lease moves the transaction out of due, so a second claim with the same view matches nothing.
    assert.equal(claimUpdate(claim), {
      $inc: { attempts: 1 },
      $set: { next_attempt_at: new Date(160_000), updated_at: new Date(100_000) },
    });
    assert.ok(
      (claimUpdate(claim).$set as { next_attempt_at: Date }).next_attempt_at >
        (claimFilter('TX-1', claim).next_attempt_at as { $lte: Date }).$lte,
      "after a claim the transaction is not due by the claimer's time",
    );
    // A late write of an attempt never takes the count back below a later claim's.
    assert.equal(attemptFilter('TX-1', { attempts: 3 }), { _id: 'TX-1', status: 'pending', attempts: { $lte: 3 } });
  },
);

shapes(
  'each transaction gets fresh plain concern objects, which the driver copies instead of mutating a shared one',
  () => {
    const a = transactionOptions();
    const b = transactionOptions();
    assert.is.not(a, b);
    assert.is.not(a.readConcern, b.readConcern);
    assert.is.not(a.writeConcern, b.writeConcern);
    assert.not.instance(a.readConcern, ReadConcern);
    // The driver keeps a ReadConcern instance it is given (and writes afterClusterTime on it);
    // from a plain object it builds a new one each time.
    assert.is.not(ReadConcern.fromOptions(transactionOptions()), ReadConcern.fromOptions(transactionOptions()));
    const shared = new ReadConcern('snapshot');
    assert.is(ReadConcern.fromOptions({ readConcern: shared }), shared);
    assert.equal(a.readConcern, { level: 'snapshot' });
  },
);

shapes('a commit stuck on a majority ends at maxCommitTimeMS, never on a wtimeout the driver would retry', () => {
  const options = transactionOptions();
  assert.is(options.maxCommitTimeMS, MAJORITY_WRITE_TIMEOUT_MS);
  const wtimeout = (options.writeConcern as { wtimeoutMS: number }).wtimeoutMS;
  assert.ok(
    wtimeout >= MAJORITY_WRITE_TIMEOUT_MS + COMMIT_WTIMEOUT_MARGIN_MS,
    `wtimeout ${wtimeout} leaves maxCommitTimeMS to fire first`,
  );
  assert.is((options.writeConcern as { w: string }).w, 'majority');
});

shapes.run();
