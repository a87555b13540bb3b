/**
 * The MongoDB schema as an ordered list of steps, like the SQLite adapter's migrations: a
 * schema document in the `meta` collection records the last step that ran, and opening
 * the store runs the missing ones, in order, each once. A later change (a new collection,
 * a new index, a changed validator) appends a step here and never edits a shipped one, so
 * that an existing deployment is brought up to date instead of only a fresh one. A
 * database written by a newer build is refused, as the SQLite adapter refuses a newer file.
 *
 * Several cores may start at once against the same database, so every step must be
 * idempotent: creating a collection that another core has just created is accepted, an
 * index that exists with the same definition is left alone by the server, collMod sets
 * the same validator twice to the same effect, and dropping an index that is gone is
 * accepted. The schema document only ever moves forward ($max).
 *
 * The validators are the counterpart of the SQLite CHECK constraints on money: a balance
 * is a non-negative int64, a ledger amount's sign follows its kind, a transaction's status
 * is one of four. They apply to every writer, mongosh included. Changing one on an
 * existing collection takes a step that sends collMod (see `setValidator`), which needs
 * the collMod privilege on the store's database only while that step runs.
 */
import { type CreateCollectionOptions, type Db, type Document, type IndexDescription, Long } from 'mongodb';
import { PRODUCTS } from '../../domain/products.js';
import { NAMESPACE_EXISTS_CODE } from './errors.js';
import { EVENT_COLLECTIONS, EVENT_INDEXES, EVENTS_DUE_BY_DESTINATION_INDEX } from './events.js';

/** Collection names. */
export const COLLECTIONS = {
  accounts: 'accounts',
  apiKeys: 'api_keys',
  tiers: 'tiers',
  plans: 'plans',
  cablePackages: 'cable_packages',
  settings: 'settings',
  counters: 'counters',
  ledger: 'ledger_entries',
  transactions: 'transactions',
  meta: 'meta',
} as const;

/** Step 1's idempotency index, single-use per account; step 4 replaced it with REQUEST_ID_INDEX. */
const ACCOUNT_REQUEST_ID_INDEX_NAME = 'transactions_request_id';

/**
 * The unique index that makes an idempotency key single-use per account and mode: a key used
 * with a live key pair is new to a test one. Partial on a string request_id, because a unique
 * index would otherwise also count every null as the same key.
 */
export const REQUEST_ID_INDEX = {
  name: 'transactions_request_id_by_mode',
  fields: ['account_id', 'mode', 'request_id'],
  description: {
    name: 'transactions_request_id_by_mode',
    key: { account_id: 1, mode: 1, request_id: 1 },
    unique: true,
    partialFilterExpression: { request_id: { $type: 'string' } },
  },
} as const;

/** A wallet's history (account and mode), newest first: what ?action=transactions pages through. */
export const HISTORY_BY_MODE_INDEX: IndexDescription = { name: 'transactions_history_by_mode', key: { account_id: 1, mode: 1, created_at: -1, _id: -1 } };

/** A wallet's ledger in entry order: what the ledger pages read (backwards). */
export const LEDGER_BY_WALLET_INDEX: IndexDescription = { name: 'ledger_by_wallet', key: { account_id: 1, mode: 1, entry_id: 1 } };

/** The last use of each key pair (key-use.ts), one document per used key keyed by public key; created by step 7. */
export const KEY_USE_COLLECTION = 'api_key_use';
/** Requests for API access (upgrades.ts), one document per account. */
export const UPGRADE_REQUESTS_COLLECTION = 'upgrade_requests';

/** Collection names of the people sub-port (users.ts), created by step 5. */
export const PEOPLE_COLLECTIONS = { users: 'users', invitations: 'invitations', sessions: 'sessions' } as const;

/**
 * The ledger by account in entry order, ascending: the order the audit's running balance
 * reads (a descending index made it sort the whole ledger in memory, and the history pages
 * read it backwards just as well). Unique, because entry ids are a sequence per account.
 */
export const LEDGER_BY_ACCOUNT_INDEX: IndexDescription = { name: 'ledger_by_account_asc', key: { account_id: 1, entry_id: 1 }, unique: true };

/**
 * The unique index that makes an operator's credit reference single-use per account, so a
 * credit retried after an unknown outcome cannot be applied twice.
 */
export const CREDIT_REFERENCE_INDEX = {
  name: 'ledger_credit_reference',
  fields: ['account_id', 'reference'],
  description: { name: 'ledger_credit_reference', key: { account_id: 1, reference: 1 }, unique: true, partialFilterExpression: { kind: 'credit' } },
} as const;

/** The unique index that allows one debit and one refund entry per purchase. */
export const ONCE_PER_PURCHASE_INDEX = { name: 'ledger_once_per_purchase', fields: ['reference', 'kind'] } as const;

const int64 = (minimum: number) => ({ bsonType: 'long', minimum });

export const VALIDATORS: Partial<Record<string, Document>> = {
  [COLLECTIONS.accounts]: {
    $jsonSchema: {
      bsonType: 'object',
      required: ['_id', 'name', 'tier_id', 'balance_kobo', 'ledger_seq', 'created_at'],
      properties: {
        _id: { bsonType: 'string' },
        balance_kobo: int64(0),
        ledger_seq: int64(0),
        created_at: { bsonType: 'date' },
      },
    },
  },
  [COLLECTIONS.ledger]: {
    $and: [
      {
        $jsonSchema: {
          bsonType: 'object',
          required: ['account_id', 'entry_id', 'amount_kobo', 'balance_after_kobo', 'kind', 'reference', 'memo', 'created_at'],
          properties: {
            entry_id: int64(1),
            amount_kobo: { bsonType: 'long' },
            balance_after_kobo: int64(0),
            kind: { enum: ['credit', 'debit', 'refund'] },
            created_at: { bsonType: 'date' },
          },
        },
      },
      // The sign of an amount follows its kind, as the SQLite CHECK has it.
      {
        $or: [
          { kind: 'debit', amount_kobo: { $lt: 0 } },
          { kind: { $in: ['credit', 'refund'] }, amount_kobo: { $gt: 0 } },
        ],
      },
    ],
  },
  [COLLECTIONS.transactions]: {
    $jsonSchema: {
      bsonType: 'object',
      required: [
        '_id',
        'account_id',
        'product',
        'status',
        'face_value_kobo',
        'charged_kobo',
        'balance_after_kobo',
        'attempts',
        'next_attempt_at',
        'needs_attention',
        'created_at',
        'updated_at',
      ],
      properties: {
        product: { enum: [...PRODUCTS] },
        status: { enum: ['pending', 'success', 'failed', 'reversed'] },
        face_value_kobo: int64(0),
        charged_kobo: int64(1),
        balance_after_kobo: int64(0),
        request_id: { bsonType: ['string', 'null'] },
        attempts: { bsonType: ['int', 'long'], minimum: 0 },
        next_attempt_at: { bsonType: 'date' },
        needs_attention: { bsonType: 'bool' },
        created_at: { bsonType: 'date' },
        updated_at: { bsonType: 'date' },
      },
    },
  },
};

const MODE_PROPERTY = { enum: ['live', 'test'] };

/** A validator with more properties in its (first) $jsonSchema. */
function withProperties(validator: Document, properties: Document): Document {
  const extend = (schema: Document) => ({
    ...schema,
    $jsonSchema: { ...schema['$jsonSchema'], properties: { ...schema['$jsonSchema'].properties, ...properties } },
  });
  if (Array.isArray(validator['$and'])) {
    const [first, ...rest] = validator['$and'] as Document[];
    return { $and: [extend(first!), ...rest] };
  }
  return extend(validator);
}

/**
 * Step 4's validators: the test wallet's balance is a non-negative int64 like the live one,
 * and a ledger entry's or purchase's mode is live or test. The mode is not required, so that
 * a core of the previous build still writing during a rolling upgrade is not refused (its
 * rows are live, and every reader takes a missing mode as live).
 */
export const VALIDATORS_V4: Partial<Record<string, Document>> = {
  [COLLECTIONS.accounts]: withProperties(VALIDATORS[COLLECTIONS.accounts]!, { test_balance_kobo: int64(0) }),
  [COLLECTIONS.ledger]: withProperties(VALIDATORS[COLLECTIONS.ledger]!, { mode: MODE_PROPERTY }),
  [COLLECTIONS.transactions]: withProperties(VALIDATORS[COLLECTIONS.transactions]!, { mode: MODE_PROPERTY }),
};

/** Every index besides _id, by collection, as step 1 created them. Names are explicit so that errors can name them. */
export const INDEXES: Readonly<Record<string, readonly IndexDescription[]>> = {
  [COLLECTIONS.apiKeys]: [{ name: 'api_keys_by_account', key: { account_id: 1, created_at: -1, _id: -1 } }],
  [COLLECTIONS.plans]: [{ name: 'plans_by_network', key: { network: 1, _id: 1 } }],
  [COLLECTIONS.cablePackages]: [{ name: 'cable_packages_key', key: { provider: 1, package_code: 1 }, unique: true }],
  [COLLECTIONS.ledger]: [
    // Entry ids are a sequence per account: unique, and the order the ledger pages in.
    { name: 'ledger_by_account', key: { account_id: 1, entry_id: -1 }, unique: true },
    // A purchase has at most one debit and at most one refund, whatever the code above
    // does: the last line of defence against refunding twice. Credits are left out: their
    // references are unique per account instead (step 3, CREDIT_REFERENCE_INDEX).
    {
      name: ONCE_PER_PURCHASE_INDEX.name,
      key: { reference: 1, kind: 1 },
      unique: true,
      partialFilterExpression: { kind: { $in: ['debit', 'refund'] } },
    },
  ],
  [COLLECTIONS.transactions]: [
    // The idempotency record. Partial on a string request_id, because a unique index would
    // otherwise also count every null as the same key.
    {
      name: ACCOUNT_REQUEST_ID_INDEX_NAME,
      key: { account_id: 1, request_id: 1 },
      unique: true,
      partialFilterExpression: { request_id: { $type: 'string' } },
    },
    { name: 'transactions_history', key: { account_id: 1, created_at: -1, _id: -1 } },
    // Partial, so the recovery worker's scan and the attention list only ever touch pending
    // transactions; the trailing fields give the scans their order without a sort in memory.
    { name: 'transactions_due', key: { status: 1, next_attempt_at: 1, created_at: 1, _id: 1 }, partialFilterExpression: { status: 'pending' } },
    { name: 'transactions_pending_by_age', key: { status: 1, created_at: 1, _id: 1 }, partialFilterExpression: { status: 'pending' } },
  ],
};

/** The people collections' indexes (step 5). */
export const PEOPLE_INDEXES: Readonly<Record<string, readonly IndexDescription[]>> = {
  // One user per email across the store: sign-in names a user by email alone.
  [PEOPLE_COLLECTIONS.users]: [
    { name: 'users_email', key: { email: 1 }, unique: true },
    { name: 'users_by_account', key: { account_id: 1, created_at: 1, _id: 1 } },
  ],
  [PEOPLE_COLLECTIONS.sessions]: [
    { name: 'sessions_by_user', key: { user_id: 1 } },
    // MongoDB removes a session once its absolute expiry has passed; the core checks expiry on
    // every read anyway, so the TTL monitor's delay (up to a minute) never extends one.
    { name: 'sessions_expiry', key: { absolute_expires_at: 1 }, expireAfterSeconds: 0 },
  ],
};

/** The holder's search by recipient without reading the account's whole history (step 5). */
export const TRANSACTIONS_BY_RECIPIENT_INDEX: IndexDescription = {
  name: 'transactions_by_recipient',
  key: { account_id: 1, mode: 1, recipient: 1, created_at: -1, _id: -1 },
};

/**
 * The parts of the database a schema step uses, so that the steps and their runner can be
 * tested without a server (test/core/store/mongo-schema.test.ts). `schemaTarget` is the
 * real one.
 */
export interface SchemaTarget {
  /** The version in the schema document; 0 for a database no step has run on. */
  readVersion(): Promise<number>;
  /** Records that the steps up to `version` have run; never moves the version back. */
  recordVersion(version: number): Promise<void>;
  collectionNames(): Promise<string[]>;
  /** Every collection with its options (validator, validation level and action). */
  collections(): Promise<CollectionInfo[]>;
  /** Creates a collection; one that exists already (another core got there first) is accepted. */
  createCollection(name: string, options: CreateCollectionOptions): Promise<void>;
  createIndexes(collection: string, indexes: IndexDescription[]): Promise<void>;
  /** Drops an index by name; one that is gone already is accepted. */
  dropIndex(collection: string, name: string): Promise<void>;
  /** A database command, for what has no helper (collMod). */
  command(command: Document): Promise<Document>;
  /** Sets fields on every document of `collection` that matches `filter` (a data step). */
  updateMany(collection: string, filter: Document, set: Document): Promise<void>;
}

/** One schema step; `version` is what the schema document says once it ran. */
export interface SchemaStep {
  version: number;
  description: string;
  apply(target: SchemaTarget): Promise<void>;
}

/** A strict validator that refuses bad writes, as every collection with a validator has. */
function validatorOptions(validator: Document): CreateCollectionOptions {
  return { validator, validationLevel: 'strict', validationAction: 'error' };
}

/** The collMod that replaces the validator of an existing collection (documents already there are not re-checked). */
export function setValidator(collection: string, validator: Document): Document {
  return { collMod: collection, ...validatorOptions(validator) };
}

/** Creates every collection in `names` that is missing, with its validator from `validators`. */
async function createMissingCollections(target: SchemaTarget, names: readonly string[], validators: Partial<Record<string, Document>>): Promise<void> {
  const existing = new Set(await target.collectionNames());
  for (const name of names) {
    if (existing.has(name)) continue;
    const validator = validators[name];
    await target.createCollection(name, validator === undefined ? {} : validatorOptions(validator));
  }
}

export const SCHEMA_STEPS: readonly SchemaStep[] = [
  {
    version: 1,
    description: 'accounts, keys, catalog, ledger and transactions, with their validators and indexes',
    async apply(target) {
      await createMissingCollections(target, Object.values(COLLECTIONS), VALIDATORS);
      for (const [name, indexes] of Object.entries(INDEXES)) await target.createIndexes(name, [...indexes]);
    },
  },
  {
    version: 2,
    description: 'the ledger by account in ascending entry order, for the audit',
    async apply(target) {
      // The new index first, so that (account_id, entry_id) stays unique throughout.
      await target.createIndexes(COLLECTIONS.ledger, [LEDGER_BY_ACCOUNT_INDEX]);
      await target.dropIndex(COLLECTIONS.ledger, 'ledger_by_account');
    },
  },
  {
    version: 3,
    description: 'credit references unique per account',
    async apply(target) {
      await target.createIndexes(COLLECTIONS.ledger, [{ ...CREDIT_REFERENCE_INDEX.description }]);
    },
  },
  {
    version: 4,
    description: 'test mode: a test wallet per account; the mode of every key, entry and purchase; idempotency and history per mode',
    async apply(target) {
      // Everything written before test mode is live, and every account's test wallet starts
      // empty. Each update matches only documents still without the field, so a step
      // interrupted half-way (or run by two cores at once) finishes the same.
      await target.updateMany(COLLECTIONS.accounts, { test_balance_kobo: { $exists: false } }, { test_balance_kobo: Long.ZERO });
      for (const collection of [COLLECTIONS.apiKeys, COLLECTIONS.ledger, COLLECTIONS.transactions]) {
        await target.updateMany(collection, { mode: { $exists: false } }, { mode: 'live' });
      }
      for (const [collection, validator] of Object.entries(VALIDATORS_V4)) await target.command(setValidator(collection, validator!));
      // The new idempotency index first, so that a key stays single-use throughout.
      await target.createIndexes(COLLECTIONS.transactions, [{ ...REQUEST_ID_INDEX.description }, HISTORY_BY_MODE_INDEX]);
      await target.dropIndex(COLLECTIONS.transactions, ACCOUNT_REQUEST_ID_INDEX_NAME);
      await target.dropIndex(COLLECTIONS.transactions, 'transactions_history');
      await target.createIndexes(COLLECTIONS.ledger, [LEDGER_BY_WALLET_INDEX]);
    },
  },
  {
    version: 5,
    description: 'users, invitations and sessions of the developer area; history by recipient',
    async apply(target) {
      await createMissingCollections(target, Object.values(PEOPLE_COLLECTIONS), {});
      for (const [name, indexes] of Object.entries(PEOPLE_INDEXES)) await target.createIndexes(name, [...indexes]);
      await target.createIndexes(COLLECTIONS.transactions, [TRANSACTIONS_BY_RECIPIENT_INDEX]);
    },
  },
  {
    version: 6,
    description: 'events (the outbox of webhooks and the events feed) and webhook endpoints',
    async apply(target) {
      await createMissingCollections(target, Object.values(EVENT_COLLECTIONS), {});
      for (const [name, indexes] of Object.entries(EVENT_INDEXES))
        if (indexes.length > 0)
          await target.createIndexes(
            name,
            indexes.map((index) => ({ ...index })),
          );
    },
  },
  {
    version: 7,
    description: 'when each key pair last authenticated a request',
    async apply(target) {
      await createMissingCollections(target, [KEY_USE_COLLECTION], {});
    },
  },
  {
    version: 8,
    description: 'due events by destination, for the webhook worker',
    async apply(target) {
      await target.createIndexes(EVENT_COLLECTIONS.events, [{ ...EVENTS_DUE_BY_DESTINATION_INDEX }]);
    },
  },
  {
    version: 9,
    description: 'requests for API access, one per account',
    async apply(target) {
      await createMissingCollections(target, [UPGRADE_REQUESTS_COLLECTION], {});
      await target.createIndexes(UPGRADE_REQUESTS_COLLECTION, [
        { name: 'upgrade_requests_pending', key: { created_at: 1, _id: 1 }, partialFilterExpression: { status: 'pending' } },
      ]);
    },
  },
];

/**
 * The validator every collection that has one must have now. A step that changes a
 * validator (collMod) changes it here too, so the start-up check below compares against
 * what the latest step set.
 */
export const CURRENT_VALIDATORS: Readonly<Partial<Record<string, Document>>> = VALIDATORS_V4;

/** A collection as listCollections describes it; only the validation options are read. */
export interface CollectionInfo {
  name: string;
  options?: { validator?: Document; validationLevel?: string; validationAction?: string };
}

/** What the validator check found: collections that run without the money guards, and ones whose guards differ from ours. */
export interface ValidatorReport {
  missing: string[];
  different: string[];
}

/**
 * Compares the collections' validators with CURRENT_VALIDATORS. A collection restored from
 * a dump without its options, or created by hand, has no validator (or one that only
 * warns), and would take a negative balance silently: that is `missing`, and the store
 * refuses to start. A validator that is there but not ours (edited by hand, or a newer
 * build's) is `different`, and is reported loudly without stopping the core.
 */
export function checkValidators(found: readonly CollectionInfo[], expected: Readonly<Partial<Record<string, Document>>> = CURRENT_VALIDATORS): ValidatorReport {
  const report: ValidatorReport = { missing: [], different: [] };
  const byName = new Map(found.map((info) => [info.name, info.options ?? {}]));
  for (const [name, validator] of Object.entries(expected)) {
    const options = byName.get(name);
    if (options === undefined || validator === undefined) continue;
    const enforced = options.validator !== undefined && (options.validationAction ?? 'error') === 'error' && (options.validationLevel ?? 'strict') !== 'off';
    if (!enforced) report.missing.push(name);
    else if (JSON.stringify(options.validator) !== JSON.stringify(validator) || (options.validationLevel ?? 'strict') !== 'strict') report.different.push(name);
  }
  return report;
}

/** The schema version this build writes. */
export const SCHEMA_VERSION = SCHEMA_STEPS[SCHEMA_STEPS.length - 1]!.version;

/**
 * Runs the steps the database has not had yet, in order, recording each one as it
 * finishes (so a core that stops half-way resumes at the step it was in). Returns the
 * versions it ran.
 */
export async function runSchemaSteps(target: SchemaTarget, steps: readonly SchemaStep[] = SCHEMA_STEPS): Promise<number[]> {
  steps.forEach((step, i) => {
    if (step.version !== i + 1) throw new Error(`schema step ${i + 1} is numbered ${step.version}; steps run 1, 2, 3, ...`);
  });
  const latest = steps.length;
  const found = await target.readVersion();
  if (found > latest) {
    // A newer build wrote this database; running old code against it could corrupt money.
    throw new Error(`store schema version ${found} is newer than this build understands (${latest})`);
  }
  const ran: number[] = [];
  for (const step of steps.slice(found)) {
    await step.apply(target);
    await target.recordVersion(step.version);
    ran.push(step.version);
  }
  return ran;
}

/** The document that records which schema version wrote the database. */
interface MetaDoc {
  _id: string;
  version: number;
}

const SCHEMA_META_ID = 'schema';

/** The server's code for dropping an index that does not exist. */
const INDEX_NOT_FOUND_CODE = 27;

function hasCode(error: unknown, code: number): boolean {
  return typeof error === 'object' && error !== null && 'code' in error && error.code === code;
}

/** The real database as a schema target. */
export function schemaTarget(db: Db): SchemaTarget {
  const meta = db.collection<MetaDoc>(COLLECTIONS.meta);
  return {
    async readVersion() {
      return (await meta.findOne({ _id: SCHEMA_META_ID }))?.version ?? 0;
    },
    async recordVersion(version) {
      await meta.updateOne({ _id: SCHEMA_META_ID }, { $max: { version } }, { upsert: true });
    },
    async collectionNames() {
      return (await db.listCollections({}, { nameOnly: true }).toArray()).map((collection) => collection.name);
    },
    async collections() {
      return (await db.listCollections({}).toArray()).map((info) => ({
        name: info.name,
        options: 'options' in info ? (info.options as CollectionInfo['options']) : {},
      }));
    },
    async createCollection(name, options) {
      try {
        await db.createCollection(name, options);
      } catch (error) {
        if (!hasCode(error, NAMESPACE_EXISTS_CODE)) throw error;
      }
    },
    async createIndexes(collection, indexes) {
      await db.collection(collection).createIndexes(indexes);
    },
    async dropIndex(collection, name) {
      try {
        await db.collection(collection).dropIndex(name);
      } catch (error) {
        if (!hasCode(error, INDEX_NOT_FOUND_CODE)) throw error;
      }
    },
    async command(command) {
      return db.command(command);
    },
    async updateMany(collection, filter, set) {
      await db.collection(collection).updateMany(filter, { $set: set });
    },
  };
}

/**
 * Brings the database up to SCHEMA_VERSION (see the header), then checks that every
 * validator is in force: returns the report, and throws when a collection runs without
 * its money guards.
 */
export async function ensureSchema(target: SchemaTarget): Promise<ValidatorReport> {
  await runSchemaSteps(target);
  const report = checkValidators(await target.collections());
  if (report.missing.length > 0) {
    throw new MissingValidatorError(report.missing);
  }
  return report;
}

/** Collections without their validator; the message says how to put it back. */
export class MissingValidatorError extends Error {
  constructor(readonly collections: string[]) {
    super(
      `the MongoDB collection(s) ${collections.join(', ')} have no validator in force (restored from a dump without ` +
        'its options, or created by hand), so nothing in the database would refuse a negative balance. Restore them ' +
        'with `mongorestore` keeping collection options, or set the validators with collMod (see core/store/mongo/schema.ts, ' +
        'CURRENT_VALIDATORS), then start again.',
    );
    this.name = 'MissingValidatorError';
  }
}
