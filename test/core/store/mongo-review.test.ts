/**
 * The third MongoDB review, for what is MongoDB's alone and needs no server: the
 * shapes of the commands, filters and pipelines the adapter sends, built by the same
 * functions the adapter calls. What both adapters share is pinned in conformance.ts; what
 * needs a replica set is in mongo-replica.test.ts.
 */
import { BSON, type Db, type Document, type IndexDescription } from 'mongodb';
import * as assert from 'uvu/assert';
import { PRODUCTS } from '../../../core/domain/products.js';
import { RUNNING_BALANCE_PIPELINE } from '../../../core/store/mongo/audit.js';
import { leaseClockVerdict, MAX_LEASE_CLOCK_SKEW_MS } from '../../../core/store/mongo/clock.js';
import {
  DELIVERIES_INDEX,
  DEVELOPER_READ_MAX_TIME_MS,
  deliveriesFilter,
  developerRead,
  FAILED_DELIVERIES_INDEX,
  TRANSACTIONS_BY_PRODUCT_INDEX,
  TRANSACTIONS_BY_STATUS_INDEX,
} from '../../../core/store/mongo/developer-reads.js';
import { eventSeqCounterId, NEXT_SEQ_UPDATE, startSeqUpdate } from '../../../core/store/mongo/event-seq.js';
import { historySearchFilter } from '../../../core/store/mongo/history.js';
import {
  COLLECTIONS,
  CURRENT_VALIDATORS,
  checkValidators,
  ENTRY_KINDS,
  EVENTS_SEQ_BY_WALLET_INDEX,
  HISTORY_BY_MODE_INDEX,
  INDEX_BUILD_OPTIONS,
  LEDGER_BY_ACCOUNT_INDEX,
  LEDGER_BY_WALLET_INDEX,
  LEDGER_KINDS,
  LISTS_AT_LAST_VALIDATORS_STEP,
  runSchemaSteps,
  SCHEMA_STEPS,
  SCHEMA_VERSION,
  schemaTarget,
  TRANSACTION_STATUSES,
  TRANSACTIONS_BY_RECIPIENT_INDEX,
} from '../../../core/store/mongo/schema.js';
import { clockSample } from '../../../runtime/clock-skew.js';
import { suite } from '../../helpers/suite.js';
import { RecordingTarget } from './mongo-schema-target.js';

/** A command or pipeline as the server reads it, int64 values as plain numbers. */
const plain = (value: unknown) => BSON.EJSON.serialize(value, { relaxed: true });

const builds = suite('mongo review: index builds');

builds('every index build commits once a majority of the voting members has it', async () => {
  assert.equal(INDEX_BUILD_OPTIONS, { commitQuorum: 'majority' });
  const sent: Document[] = [];
  const db = {
    collection: (name: string) => ({
      createIndexes: async (indexes: Document[], options: Document) => {
        sent.push({ name, indexes, options });
        return indexes.map((index) => index['name']);
      },
    }),
  } as unknown as Db;
  await schemaTarget(db).createIndexes('ledger_entries', [{ name: 'x', key: { a: 1 } }]);
  assert.equal(sent, [
    { name: 'ledger_entries', indexes: [{ name: 'x', key: { a: 1 } }], options: { commitQuorum: 'majority' } },
  ]);
});

builds.run();

const seq = suite('mongo review: event sequences per wallet');

seq(
  'each account and mode has its own counter document; an existing one is ' +
    'incremented, a new one starts after the old per-account seq',
  () => {
    assert.is.not(eventSeqCounterId('acct-1', 'live'), eventSeqCounterId('acct-1', 'test'));
    assert.is.not(eventSeqCounterId('acct-1', 'live'), eventSeqCounterId('acct-2', 'live'));
    assert.equal(plain(NEXT_SEQ_UPDATE), { $inc: { value: 1 } });
    // A pipeline: the larger of what is there and the old account counter, plus one.
    assert.equal(plain(startSeqUpdate(41)), [
      { $set: { value: { $add: [{ $max: [{ $ifNull: ['$value', 0] }, 41] }, 1] } } },
    ]);
  },
);

seq(
  'step 9 makes seq unique per wallet before it drops the per-account unique index and the feed index it replaces',
  async () => {
    const db = new RecordingTarget();
    await runSchemaSteps(db, SCHEMA_STEPS.slice(0, 8));
    db.log.length = 0;
    await runSchemaSteps(db, SCHEMA_STEPS.slice(0, 9));
    assert.equal(db.log, [
      'indexes events events_seq_by_wallet',
      'drop events.events_seq',
      'drop events.events_feed',
      'record 9',
    ]);
    assert.equal(db.indexes.get('events')?.get(EVENTS_SEQ_BY_WALLET_INDEX.name), { ...EVENTS_SEQ_BY_WALLET_INDEX });
    assert.equal(EVENTS_SEQ_BY_WALLET_INDEX.key, { account_id: 1, mode: 1, seq: 1 });
    assert.is(EVENTS_SEQ_BY_WALLET_INDEX.unique, true);
  },
);

seq.run();

const audit = suite('mongo review: the audit');

audit(
  'the running balance partitions by the plain account_id and sorts by entry_id, ' +
    'the keys of an index, with one conditional running sum per mode',
  () => {
    const window = RUNNING_BALANCE_PIPELINE[0]!['$setWindowFields'];
    assert.is(window.partitionBy, '$account_id');
    assert.equal(window.sortBy, { entry_id: 1 });
    // The sort the window needs ({account_id, entry_id} ascending) is the index's key, field for field.
    assert.equal(LEDGER_BY_ACCOUNT_INDEX.key, { account_id: 1, entry_id: 1 });
    assert.equal(Object.keys(window.output), ['live_running_kobo', 'test_running_kobo']);
    for (const [name, mode] of [
      ['live_running_kobo', 'live'],
      ['test_running_kobo', 'test'],
    ] as const) {
      const output = window.output[name];
      assert.equal(output.window, { documents: ['unbounded', 'current'] });
      const [isTest, ifTest, ifLive] = output.$sum.$cond;
      assert.equal(isTest, { $eq: [{ $ifNull: ['$mode', 'live'] }, 'test'] }, 'a missing mode counts as live');
      assert.equal([ifTest, ifLive], mode === 'test' ? ['$amount_kobo', 0] : [0, '$amount_kobo']);
    }
    // Each entry is compared with its own mode's sum.
    assert.equal(RUNNING_BALANCE_PIPELINE[1], {
      $set: {
        running_kobo: {
          $cond: [{ $eq: [{ $ifNull: ['$mode', 'live'] }, 'test'] }, '$test_running_kobo', '$live_running_kobo'],
        },
      },
    });
    // No stage before the window, so the server can answer its sort from the index.
    assert.is(Object.keys(RUNNING_BALANCE_PIPELINE[0]!)[0], '$setWindowFields');
  },
);

audit.run();

const upgrade = suite('mongo review: validators and modes on an existing database');

upgrade(
  'from the previous schema version, step 10 sets every validator with collMod, ' +
    'then gives every row without a mode the live one',
  async () => {
    const db = new RecordingTarget();
    await runSchemaSteps(db, SCHEMA_STEPS.slice(0, 8));
    db.log.length = 0;
    db.updates.length = 0;
    // Every step after the eighth runs, in order (later branches add steps after 11).
    const after8 = SCHEMA_STEPS.slice(8).map((step) => step.version);
    assert.equal(after8.slice(0, 3), [9, 10, 11]);
    assert.equal(await runSchemaSteps(db), after8);
    assert.is(SCHEMA_VERSION, after8[after8.length - 1]);
    const step10 = db.log.slice(db.log.indexOf('record 9') + 1, db.log.indexOf('record 10') + 1);
    assert.equal(step10, [
      `collMod ${COLLECTIONS.accounts}`,
      `collMod ${COLLECTIONS.ledger}`,
      `collMod ${COLLECTIONS.transactions}`,
      `update ${COLLECTIONS.accounts}`,
      `update ${COLLECTIONS.apiKeys}`,
      `update ${COLLECTIONS.ledger}`,
      `update ${COLLECTIONS.transactions}`,
      'record 10',
    ]);
    for (const command of db.commands) {
      assert.is(command['validationLevel'], 'strict');
      assert.is(command['validationAction'], 'error');
    }
    for (const collection of [COLLECTIONS.apiKeys, COLLECTIONS.ledger, COLLECTIONS.transactions]) {
      assert.ok(
        db.updates.some(
          (u) =>
            u.collection === collection &&
            JSON.stringify(u.filter) === '{"mode":{"$exists":false}}' &&
            u.set['mode'] === 'live',
        ),
        `${collection}: rows without a mode become live`,
      );
    }
    // The database now holds the validators this build checks at start.
    assert.equal(checkValidators(await db.collections()), { missing: [], different: [] });
    const transactions = db.validators.get(COLLECTIONS.transactions)!['$jsonSchema'];
    assert.ok(transactions.required.includes('mode'), 'a purchase without a mode is refused');
    assert.equal(transactions.properties.product, { enum: [...PRODUCTS] });
    assert.equal(transactions.properties.status, { enum: [...TRANSACTION_STATUSES] });
    const ledger = db.validators.get(COLLECTIONS.ledger)!['$and'][0]['$jsonSchema'];
    assert.ok(ledger.required.includes('mode'), 'an entry without a mode is refused');
    assert.equal(ledger.properties.kind, { enum: [...LEDGER_KINDS] });
    assert.equal(CURRENT_VALIDATORS[COLLECTIONS.transactions], db.validators.get(COLLECTIONS.transactions));
  },
);

upgrade(
  "the lists frozen into the validators are the domain's: a new product, status or " +
    'kind needs a step that calls refreshValidators',
  () => {
    const message =
      'a list a validator holds changed: append a schema step that calls ' +
      'refreshValidators, then update LISTS_AT_LAST_VALIDATORS_STEP';
    assert.equal([...PRODUCTS], [...LISTS_AT_LAST_VALIDATORS_STEP.products], message);
    assert.equal([...TRANSACTION_STATUSES], [...LISTS_AT_LAST_VALIDATORS_STEP.statuses], message);
    assert.equal([...LEDGER_KINDS], [...LISTS_AT_LAST_VALIDATORS_STEP.kinds], message);
    assert.equal([...ENTRY_KINDS], [...LISTS_AT_LAST_VALIDATORS_STEP.entryKinds], message);
  },
);

upgrade.run();

const reads = suite('mongo review: developer-area reads');

/**
 * Whether an index answers a query without walking more than its matches and without a sort
 * in memory: its first keys are the query's equality fields (in any order), the next ones its
 * sort (as written, or every direction reversed), and its partial filter, if any, is one the
 * query states.
 */
function serves(
  index: IndexDescription,
  query: { equal: string[]; sort: Record<string, 1 | -1>; filter?: Document },
): boolean {
  const keys = Object.entries(index.key as Record<string, 1 | -1>);
  const head = keys.slice(0, query.equal.length).map(([name]) => name);
  if (new Set(head).size !== query.equal.length || !query.equal.every((name) => head.includes(name))) return false;
  const rest = keys.slice(query.equal.length, query.equal.length + Object.keys(query.sort).length);
  const sort = Object.entries(query.sort);
  const forward = sort.every(([name, dir], i) => rest[i]?.[0] === name && rest[i]?.[1] === dir);
  const backward = sort.every(([name, dir], i) => rest[i]?.[0] === name && rest[i]?.[1] === -dir);
  if (!forward && !backward) return false;
  const partial = index.partialFilterExpression as Document | undefined;
  return (
    partial === undefined ||
    Object.entries(partial).every(([field, value]) => JSON.stringify(query.filter?.[field]) === JSON.stringify(value))
  );
}

reads('every developer-area read shape has an index that answers it in order', () => {
  const newest = { created_at: -1, _id: -1 } as const;
  const history = (query: Document) => Object.keys(historySearchFilter('a', 'live', query, undefined));
  const cases: [string, IndexDescription, Parameters<typeof serves>[1]][] = [
    ['history', HISTORY_BY_MODE_INDEX, { equal: history({}), sort: newest }],
    ['history by status', TRANSACTIONS_BY_STATUS_INDEX, { equal: history({ status: 'failed' }), sort: newest }],
    ['history by product', TRANSACTIONS_BY_PRODUCT_INDEX, { equal: history({ product: 'data' }), sort: newest }],
    [
      'history by recipient',
      TRANSACTIONS_BY_RECIPIENT_INDEX,
      { equal: history({ recipient: '08031234567' }), sort: newest },
    ],
    ['pending count', TRANSACTIONS_BY_STATUS_INDEX, { equal: ['account_id', 'mode', 'status'], sort: {} }],
    [
      'failed deliveries',
      FAILED_DELIVERIES_INDEX,
      { equal: ['account_id', 'mode'], sort: { seq: -1 }, filter: deliveriesFilter('a', 'live', true) },
    ],
    [
      'deliveries',
      DELIVERIES_INDEX,
      { equal: ['account_id', 'mode'], sort: { seq: -1 }, filter: deliveriesFilter('a', 'live', false) },
    ],
    ['events feed', EVENTS_SEQ_BY_WALLET_INDEX, { equal: ['account_id', 'mode'], sort: { seq: 1 } }],
    ['ledger pages', LEDGER_BY_WALLET_INDEX, { equal: ['account_id', 'mode'], sort: { entry_id: -1 } }],
  ];
  for (const [what, index, query] of cases) assert.ok(serves(index, query), `${what} is answered by ${index.name}`);
  // The checker itself refuses what no index answers.
  assert.not.ok(
    serves(HISTORY_BY_MODE_INDEX, { equal: history({ status: 'failed' }), sort: newest }),
    'status is not in the history index',
  );
  assert.not.ok(
    serves(DELIVERIES_INDEX, {
      equal: ['account_id', 'mode'],
      sort: { seq: -1 },
      filter: { delivery: { $ne: 'none' } },
    }),
    '$ne does not imply the partial filter',
  );
});

reads('developer-area reads carry a server time limit', () => {
  assert.equal(developerRead(), { maxTimeMS: DEVELOPER_READ_MAX_TIME_MS });
  assert.ok(DEVELOPER_READ_MAX_TIME_MS > 0 && DEVELOPER_READ_MAX_TIME_MS <= 10_000);
});

reads('step 11 builds the developer-area indexes', async () => {
  const db = new RecordingTarget();
  await runSchemaSteps(db);
  for (const index of [TRANSACTIONS_BY_STATUS_INDEX, TRANSACTIONS_BY_PRODUCT_INDEX])
    assert.ok(db.indexes.get(COLLECTIONS.transactions)?.has(index.name!));
  for (const index of [DELIVERIES_INDEX, FAILED_DELIVERIES_INDEX])
    assert.ok(db.indexes.get('events')?.has(index.name!));
});

reads.run();

const leases = suite('mongo review: lease clocks');

leases(
  "a core whose clock is proven more than the bound off the primary's is refused at start, with what to do",
  () => {
    assert.equal(leaseClockVerdict(clockSample(10_000, 10_020, 10_010 + MAX_LEASE_CLOCK_SKEW_MS - 100)), { ok: true });
    const ahead = leaseClockVerdict(clockSample(10_000, 10_020, 10_010 - 30_000));
    assert.is(ahead.ok, false);
    assert.match(ahead.ok ? '' : ahead.reason, /-30\.0 s.*NTP/);
    assert.is(leaseClockVerdict(clockSample(10_000, 10_020, 10_010 + 30_000)).ok, false, 'behind is refused too');
    // A round trip too slow to prove anything passes.
    assert.equal(leaseClockVerdict(clockSample(10_000, 20_000, 15_000 + 6_000)), { ok: true });
  },
);

leases.run();
