/**
 * The MongoDB schema steps and their runner, against a fake of the few database operations
 * a step uses (no server here): a fresh database gets every collection, validator and
 * index; an existing one gets only the steps it has not had, in order, once each; and a
 * later step can change the validator of an existing collection with collMod.
 */

import type { CreateCollectionOptions, Document, IndexDescription } from 'mongodb';
import * as assert from 'uvu/assert';
import { EVENT_COLLECTIONS, EVENT_INDEXES } from '../../../core/store/mongo/event-indexes.js';
import {
  checkFeatureCompatibility,
  explainSchemaFailure,
  UnsuitableDeploymentError,
} from '../../../core/store/mongo/guard.js';
import {
  AUDIT_LOG_COLLECTION,
  COLLECTIONS,
  COMPAT_CALLBACKS_COLLECTION,
  COMPAT_COLLECTIONS,
  type CollectionInfo,
  CREDIT_REFERENCE_INDEX,
  CURRENT_VALIDATORS,
  checkValidators,
  ensureSchema,
  FUNDING_COLLECTIONS,
  FUNDING_INDEXES,
  FUNDING_OPENINGS_COLLECTION,
  INDEXES,
  JOURNAL_COLLECTION,
  JOURNAL_INDEXES,
  KEY_DAY_SPEND_COLLECTION,
  KEY_USE_COLLECTION,
  KEY_VELOCITY_COLLECTION,
  KYC_COLLECTIONS,
  LEDGER_BY_ACCOUNT_INDEX,
  MAIL_COLLECTIONS,
  MAIL_OPT_OUTS_COLLECTION,
  MEMBERSHIPS_COLLECTION,
  MEMBERSHIPS_FROM_USERS,
  MissingValidatorError,
  PEOPLE_COLLECTIONS,
  PEOPLE_INDEXES,
  PLAN_CODES_COLLECTION,
  PROPOSAL_REFERENCE_INDEX,
  RECIPIENT_COLLECTIONS,
  RECONCILE_COLLECTIONS,
  RECONCILE_FINDINGS_COLLECTION,
  REQUEST_ID_INDEX,
  runSchemaSteps,
  SCHEMA_STEPS,
  SCHEMA_VERSION,
  type SchemaStep,
  type SchemaTarget,
  SIGN_UPS_COLLECTION,
  STAFF_COLLECTIONS,
  SUPPLY_COLLECTIONS,
  setValidator,
  TRANSACTIONS_BY_RECIPIENT_INDEX,
  UPGRADE_REQUESTS_COLLECTION,
  UPSTREAM_ANSWERS_COLLECTION,
  VALIDATORS,
} from '../../../core/store/mongo/schema.js';
import { suite } from '../../helpers/suite.js';

/** A database as the steps see it: collections with validators and named indexes, and a log of what was done. */
class FakeDatabase implements SchemaTarget {
  version = 0;
  readonly validators = new Map<string, Document | undefined>();
  readonly indexes = new Map<string, Map<string, IndexDescription>>();
  readonly log: string[] = [];

  async readVersion() {
    return this.version;
  }
  async recordVersion(version: number) {
    this.log.push(`record ${version}`);
    this.version = Math.max(this.version, version);
  }
  async collectionNames() {
    return [...this.validators.keys()];
  }
  async collections(): Promise<CollectionInfo[]> {
    return [...this.validators].map(([name, validator]) => ({
      name,
      options: validator === undefined ? {} : { validator, validationLevel: 'strict', validationAction: 'error' },
    }));
  }
  async createCollection(name: string, options: CreateCollectionOptions) {
    this.log.push(`create ${name}`);
    if (!this.validators.has(name)) this.validators.set(name, options.validator);
  }
  async createIndexes(collection: string, indexes: IndexDescription[]) {
    const existing = this.indexes.get(collection) ?? new Map<string, IndexDescription>();
    for (const index of indexes) existing.set(index.name!, index);
    this.indexes.set(collection, existing);
    this.log.push(`indexes ${collection}`);
  }
  async dropIndex(collection: string, name: string) {
    this.indexes.get(collection)?.delete(name);
    this.log.push(`drop ${collection}.${name}`);
  }
  /** Understands collMod, as the server does: the collection must exist, and its validator is replaced. */
  readonly updates: string[] = [];
  async updateMany(collection: string, filter: Document, set: Document) {
    this.updates.push(`${collection} ${JSON.stringify(filter)} ${JSON.stringify(set)}`);
    this.log.push(`update ${collection}`);
  }
  readonly aggregations: { collection: string; pipeline: readonly Document[] }[] = [];
  async aggregate(collection: string, pipeline: readonly Document[]) {
    this.aggregations.push({ collection, pipeline });
    this.log.push(`aggregate ${collection}`);
  }
  /** An empty database: a data step finds nothing to do (test/core/store/mongo-books.test.ts has data). */
  async find() {
    return [];
  }
  async insertNew(collection: string, docs: readonly Document[]) {
    this.log.push(`insert ${collection} ${docs.length}`);
    return docs.length;
  }
  async readAtOnce(reads: readonly { collection: string; pipeline: readonly Document[] }[]) {
    return reads.map(() => []);
  }
  async command(command: Document) {
    const name = command['collMod'];
    if (typeof name !== 'string' || !this.validators.has(name))
      throw new Error(`fake: unexpected command ${JSON.stringify(command)}`);
    assert.is(command['validationLevel'], 'strict');
    assert.is(command['validationAction'], 'error');
    this.validators.set(name, command['validator'] as Document);
    this.log.push(`collMod ${name}`);
    return { ok: 1 };
  }
}

/** A database brought to the current schema by the real steps, with its log cleared. */
async function current(): Promise<FakeDatabase> {
  const db = new FakeDatabase();
  await runSchemaSteps(db);
  db.log.length = 0;
  return db;
}

const steps = suite('mongo store: schema steps');

steps('a fresh database gets every collection, its validator and its indexes, then records the version', async () => {
  const db = new FakeDatabase();
  assert.equal(
    await runSchemaSteps(db),
    SCHEMA_STEPS.map((step) => step.version),
  );
  assert.equal(
    new Set(await db.collectionNames()),
    new Set([
      ...Object.values(COLLECTIONS),
      ...Object.values(PEOPLE_COLLECTIONS),
      ...Object.values(EVENT_COLLECTIONS),
      KEY_USE_COLLECTION,
      ...Object.values(FUNDING_COLLECTIONS),
      UPGRADE_REQUESTS_COLLECTION,
      AUDIT_LOG_COLLECTION,
      ...Object.values(STAFF_COLLECTIONS),
      MEMBERSHIPS_COLLECTION,
      ...Object.values(MAIL_COLLECTIONS),
      ...Object.values(SUPPLY_COLLECTIONS),
      PLAN_CODES_COLLECTION,
      FUNDING_OPENINGS_COLLECTION,
      UPSTREAM_ANSWERS_COLLECTION,
      KEY_DAY_SPEND_COLLECTION,
      ...Object.values(RECIPIENT_COLLECTIONS),
      JOURNAL_COLLECTION,
      KEY_VELOCITY_COLLECTION,
      RECONCILE_FINDINGS_COLLECTION,
      ...Object.values(RECONCILE_COLLECTIONS),
      SIGN_UPS_COLLECTION,
      ...Object.values(COMPAT_COLLECTIONS),
      COMPAT_CALLBACKS_COLLECTION,
      ...Object.values(KYC_COLLECTIONS),
      MAIL_OPT_OUTS_COLLECTION,
    ]),
  );
  assert.ok(db.indexes.get(KYC_COLLECTIONS.requests)?.has('kyc_requests_one_open'), 'one open level request');
  assert.equal(
    [...(db.indexes.get(JOURNAL_COLLECTION)?.keys() ?? [])],
    [...JOURNAL_INDEXES[JOURNAL_COLLECTION]!.map((index) => index.name), 'journal_by_kind'],
    "the journal's indexes (one kind's entries in a window: the reconciliation's step)",
  );
  assert.ok(db.indexes.get(COLLECTIONS.apiKeys)?.has('api_keys_frozen'), "the console's frozen keys");
  assert.ok(db.indexes.get(RECONCILE_FINDINGS_COLLECTION)?.has('reconcile_findings_open'), 'the open findings');
  assert.ok(db.indexes.get(KEY_VELOCITY_COLLECTION)?.has('key_velocity_days_by_key'), "a key's velocity days");
  assert.ok(
    db.indexes.get(SUPPLY_COLLECTIONS.attempts)?.has('upstream_attempts_reference'),
    "a purchase's attempts in order",
  );
  // Step 9 replaced two of the events' indexes with one unique per wallet.
  const replacedEvents = new Set(['events_seq', 'events_feed']);
  for (const [name, indexes] of Object.entries(EVENT_INDEXES)) {
    for (const index of indexes)
      assert.is(
        db.indexes.get(name)?.has(index.name),
        !replacedEvents.has(index.name),
        `index ${index.name} of ${name}`,
      );
  }
  for (const [name, indexes] of Object.entries(FUNDING_INDEXES)) {
    for (const index of indexes) assert.ok(db.indexes.get(name)?.has(index.name), `index ${index.name} of ${name}`);
  }
  for (const [name, validator] of Object.entries(CURRENT_VALIDATORS))
    assert.equal(db.validators.get(name), validator, `validator of ${name}`);
  // Replaced by step 2 (the ledger's) and step 4 (idempotency and history per mode).
  const replaced = new Set(['ledger_by_account', 'transactions_request_id', 'transactions_history']);
  for (const [name, indexes] of Object.entries(INDEXES)) {
    for (const index of indexes) {
      if (replaced.has(index.name!)) {
        assert.not.ok(db.indexes.get(name)?.has(index.name!), `index ${index.name} was replaced`);
        continue;
      }
      assert.ok(db.indexes.get(name)?.has(index.name!), `index ${index.name} on ${name}`);
    }
  }
  for (const [name, indexes] of Object.entries(PEOPLE_INDEXES)) {
    for (const index of indexes) assert.ok(db.indexes.get(name)?.has(index.name!), `index ${index.name} on ${name}`);
  }
  assert.ok(
    db.indexes.get(COLLECTIONS.transactions)?.has(TRANSACTIONS_BY_RECIPIENT_INDEX.name!),
    'the history-by-recipient index',
  );
  assert.is(db.version, SCHEMA_VERSION);
  assert.is(db.log[db.log.length - 1], `record ${SCHEMA_VERSION}`);
});

steps('step 16 gives every user a membership keyed by person and account, after the indexes', async () => {
  const db = new FakeDatabase();
  await runSchemaSteps(db, SCHEMA_STEPS.slice(0, 15));
  db.log.length = 0;
  await runSchemaSteps(db);
  assert.equal(db.log.slice(0, 5), [
    'create memberships',
    'indexes memberships',
    'indexes invitations',
    'aggregate users',
    'record 16',
  ]);
  assert.equal(
    db.aggregations.filter((one) => one.collection === 'users'),
    [{ collection: 'users', pipeline: MEMBERSHIPS_FROM_USERS }],
  );
  const merge = MEMBERSHIPS_FROM_USERS.at(-1)!['$merge'];
  assert.equal(merge, { into: 'memberships', on: '_id', whenMatched: 'keepExisting', whenNotMatched: 'insert' });
  assert.equal([...db.indexes.get('memberships')!.keys()].sort(), ['memberships_by_account', 'memberships_by_user']);
});

steps('a database at the current version runs nothing', async () => {
  const db = await current();
  assert.equal(await runSchemaSteps(db), []);
  assert.equal(db.log, []);
});

steps(
  'a later step changes the validator of an existing collection with collMod, and only that step runs',
  async () => {
    const db = await current();
    const stricter = { $jsonSchema: { bsonType: 'object', required: ['_id', 'account_id', 'status', 'claimed_by'] } };
    const next: SchemaStep = {
      version: SCHEMA_VERSION + 1,
      description: 'transactions require claimed_by',
      apply: async (target) => void (await target.command(setValidator(COLLECTIONS.transactions, stricter))),
    };
    assert.is.not(db.validators.get(COLLECTIONS.transactions), stricter);
    assert.equal(await runSchemaSteps(db, [...SCHEMA_STEPS, next]), [next.version]);
    assert.equal(db.validators.get(COLLECTIONS.transactions), stricter);
    assert.equal(db.log, [`collMod ${COLLECTIONS.transactions}`, `record ${next.version}`]);
    // A second start finds the step done.
    assert.equal(await runSchemaSteps(db, [...SCHEMA_STEPS, next]), []);
  },
);

steps(
  'steps run once each, in order, each recorded as it finishes; a failed step is run again at the next start',
  async () => {
    const db = new FakeDatabase();
    let failThird = true;
    const list: SchemaStep[] = [1, 2, 3].map((version) => ({
      version,
      description: `step ${version}`,
      async apply() {
        if (version === 3 && failThird) throw new Error('step 3 failed');
        db.log.push(`apply ${version}`);
      },
    }));
    let error: unknown;
    await runSchemaSteps(db, list).catch((e: unknown) => (error = e));
    assert.instance(error, Error);
    assert.equal(db.log, ['apply 1', 'record 1', 'apply 2', 'record 2']);
    assert.is(db.version, 2);
    failThird = false;
    db.log.length = 0;
    assert.equal(await runSchemaSteps(db, list), [3]);
    assert.equal(db.log, ['apply 3', 'record 3']);
  },
);

steps('a database written by a newer build is refused, and a misnumbered step list is a bug', async () => {
  const db = await current();
  db.version = SCHEMA_VERSION + 1;
  let error: unknown;
  await runSchemaSteps(db).catch((e: unknown) => (error = e));
  assert.match(String(error), /newer than this build understands/);
  const skipped: SchemaStep[] = [
    SCHEMA_STEPS[0]!,
    { version: 3, description: 'skips 2', apply: async () => undefined },
  ];
  error = undefined;
  await runSchemaSteps(new FakeDatabase(), skipped).catch((e: unknown) => (error = e));
  assert.match(String(error), /numbered 3/);
});

steps(
  'step 2 replaces the descending ledger index with an ascending one, creating the new one before dropping the old',
  async () => {
    const db = new FakeDatabase();
    await runSchemaSteps(db, SCHEMA_STEPS.slice(0, 1));
    assert.ok(db.indexes.get(COLLECTIONS.ledger)?.has('ledger_by_account'));
    db.log.length = 0;
    await runSchemaSteps(db, SCHEMA_STEPS.slice(0, 2));
    assert.equal(db.log, [`indexes ${COLLECTIONS.ledger}`, `drop ${COLLECTIONS.ledger}.ledger_by_account`, 'record 2']);
    const ledger = db.indexes.get(COLLECTIONS.ledger)!;
    assert.not.ok(ledger.has('ledger_by_account'));
    assert.equal(ledger.get(LEDGER_BY_ACCOUNT_INDEX.name!)?.key, { account_id: 1, entry_id: 1 });
    assert.is(ledger.get(LEDGER_BY_ACCOUNT_INDEX.name!)?.unique, true);
  },
);

steps('step 25 makes a credit reference unique per wallet (account and mode), only for credits', async () => {
  const db = await current();
  const ledger = db.indexes.get(COLLECTIONS.ledger)!;
  const index = ledger.get(CREDIT_REFERENCE_INDEX.name);
  assert.equal(index?.key, { account_id: 1, mode: 1, reference: 1 });
  assert.is(index?.unique, true);
  assert.equal(index?.partialFilterExpression, { kind: 'credit' });
  assert.not.ok(ledger.has('ledger_credit_reference'), "step 3's index per account is gone");
});

steps("step 26 makes a proposal's non-empty reference one proposal per account and kind", async () => {
  const db = await current();
  const index = db.indexes.get(STAFF_COLLECTIONS.proposals)?.get(PROPOSAL_REFERENCE_INDEX.name);
  assert.equal(index?.key, { account_id: 1, kind: 1, reference: 1 });
  assert.is(index?.unique, true);
  assert.equal(
    index?.partialFilterExpression,
    { reference: { $gt: '' } },
    'proposals without a reference are left out',
  );
});

steps(
  'step 4 makes every existing row live, opens empty test wallets, and scopes idempotency and history to the mode',
  async () => {
    const db = new FakeDatabase();
    await runSchemaSteps(db, SCHEMA_STEPS.slice(0, 3));
    db.log.length = 0;
    await runSchemaSteps(db, SCHEMA_STEPS.slice(0, 4));
    // The data first (only documents still without the field), then the validators that name
    // the new fields, then the new idempotency index before the old one is dropped.
    assert.equal(db.updates.length, 4);
    assert.match(
      db.updates[0]!,
      new RegExp(`^${COLLECTIONS.accounts} \\{"test_balance_kobo":\\{"\\$exists":false\\}\\} \\{"test_balance_kobo":`),
    );
    assert.equal(db.updates.slice(1), [
      `${COLLECTIONS.apiKeys} {"mode":{"$exists":false}} {"mode":"live"}`,
      `${COLLECTIONS.ledger} {"mode":{"$exists":false}} {"mode":"live"}`,
      `${COLLECTIONS.transactions} {"mode":{"$exists":false}} {"mode":"live"}`,
    ]);
    const created = db.log.indexOf(`indexes ${COLLECTIONS.transactions}`);
    assert.ok(created >= 0 && created < db.log.indexOf(`drop ${COLLECTIONS.transactions}.transactions_request_id`));
    const transactions = db.indexes.get(COLLECTIONS.transactions)!;
    assert.equal(transactions.get(REQUEST_ID_INDEX.name)?.key, { account_id: 1, mode: 1, request_id: 1 });
    assert.is(transactions.get(REQUEST_ID_INDEX.name)?.unique, true);
    assert.equal(transactions.get(REQUEST_ID_INDEX.name)?.partialFilterExpression, { request_id: { $type: 'string' } });
    assert.equal(transactions.get('transactions_history_by_mode')?.key, {
      account_id: 1,
      mode: 1,
      created_at: -1,
      _id: -1,
    });
    assert.not.ok(transactions.has('transactions_request_id'));
    assert.equal(db.indexes.get(COLLECTIONS.ledger)?.get('ledger_by_wallet')?.key, {
      account_id: 1,
      mode: 1,
      entry_id: 1,
    });
    // The test balance is guarded like the live one; a mode is live or test.
    const accounts = db.validators.get(COLLECTIONS.accounts)!;
    assert.equal(accounts['$jsonSchema'].properties.test_balance_kobo, { bsonType: 'long', minimum: 0 });
    assert.equal(db.validators.get(COLLECTIONS.transactions)!['$jsonSchema'].properties.mode, {
      enum: ['live', 'test'],
    });
    assert.equal(db.validators.get(COLLECTIONS.ledger)!['$and'][0].$jsonSchema.properties.mode, {
      enum: ['live', 'test'],
    });
    // The sign rule of the ledger is kept.
    assert.equal(db.validators.get(COLLECTIONS.ledger)!['$and'][1], VALIDATORS[COLLECTIONS.ledger]!['$and'][1]);
  },
);

steps.run();

const validators = suite('mongo store: validators in force');

validators('a database the steps created has every validator in force', async () => {
  const db = await current();
  assert.equal(checkValidators(await db.collections()), { missing: [], different: [] });
  assert.equal(await ensureSchema(db), { missing: [], different: [] });
});

validators('a collection restored without its validator, or one that only warns, refuses the start', async () => {
  const db = await current();
  // Restored from a dump without collection options (no later step is left to set it again).
  db.validators.set(COLLECTIONS.accounts, undefined);
  let error: unknown;
  await ensureSchema(db).catch((e: unknown) => (error = e));
  assert.instance(error, MissingValidatorError);
  assert.equal((error as MissingValidatorError).collections, [COLLECTIONS.accounts]);
  assert.match(String(error), /collMod/);
  const warnOnly: CollectionInfo[] = [
    {
      name: COLLECTIONS.ledger,
      options: { validator: CURRENT_VALIDATORS[COLLECTIONS.ledger]!, validationAction: 'warn' },
    },
    {
      name: COLLECTIONS.transactions,
      options: { validator: CURRENT_VALIDATORS[COLLECTIONS.transactions]!, validationLevel: 'off' },
    },
  ];
  assert.equal(checkValidators(warnOnly).missing, [COLLECTIONS.ledger, COLLECTIONS.transactions]);
});

validators('a validator edited by hand is reported as different, not refused', () => {
  const edited: CollectionInfo[] = [
    {
      name: COLLECTIONS.accounts,
      options: {
        validator: { $jsonSchema: { bsonType: 'object' } },
        validationLevel: 'strict',
        validationAction: 'error',
      },
    },
  ];
  assert.equal(checkValidators(edited), { missing: [], different: [COLLECTIONS.accounts] });
});

validators.run();

const fcv = suite('mongo store: featureCompatibilityVersion');

fcv('a replica set at FCV 5.0 is refused with what to do; 6.0 and later pass; an unanswered question passes', () => {
  const low = checkFeatureCompatibility({ featureCompatibilityVersion: { version: '5.0' }, ok: 1 });
  assert.is(low.ok, false);
  assert.match(low.ok ? '' : low.reason, /5\.0.*setFeatureCompatibilityVersion: "6\.0"/);
  for (const version of ['6.0', '7.0', '8.0', '10.0'])
    assert.ok(checkFeatureCompatibility({ featureCompatibilityVersion: { version } }).ok, version);
  assert.ok(checkFeatureCompatibility(null).ok);
});

fcv('the index error a low FCV gives is reworded into what to do; any other error is left alone', () => {
  const refused = Object.assign(
    new Error('Error in specification ... unsupported expression in partial index: kind $in [ "debit" "refund" ]'),
    { code: 67 },
  );
  const explained = explainSchemaFailure(refused);
  assert.instance(explained, UnsuitableDeploymentError);
  assert.match(String(explained), /featureCompatibilityVersion below 6\.0/);
  const other = Object.assign(new Error('not authorized'), { code: 13 });
  assert.is(explainSchemaFailure(other), other);
});

fcv.run();
