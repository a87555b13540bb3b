/**
 * The MongoDB schema: collections, their validators and their indexes, created when the
 * store opens. Creating is idempotent (an index that exists with the same definition is
 * left alone), so every core process runs it at start. A later change appends to this
 * file and raises SCHEMA_VERSION; a database written by a newer build is refused, as the
 * SQLite adapter refuses a newer file.
 *
 * The validators are the counterpart of the SQLite CHECK constraints on money: a balance
 * is a non-negative int64, a ledger amount's sign follows its kind, a transaction's status
 * is one of four. They apply to every writer, mongosh included. They are set when a
 * collection is created and not changed afterwards, so that starting a core never needs
 * the collMod privilege.
 */
import type { Db, Document, IndexDescription } from 'mongodb';
import { PRODUCTS } from '../../domain/products.js';
import { NAMESPACE_EXISTS_CODE } from './errors.js';

/** The schema version this build writes. */
export const SCHEMA_VERSION = 1;

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

/** The unique index that makes an idempotency key single-use per account. */
export const REQUEST_ID_INDEX = { name: 'transactions_request_id', fields: ['account_id', 'request_id'] } as const;

/** The unique index that allows one debit and one refund entry per purchase. */
export const ONCE_PER_PURCHASE_INDEX = { name: 'ledger_once_per_purchase', fields: ['reference', 'kind'] } as const;

const int64 = (minimum: number) => ({ bsonType: 'long', minimum });

const VALIDATORS: Partial<Record<string, Document>> = {
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
      { $or: [{ kind: 'debit', amount_kobo: { $lt: 0 } }, { kind: { $in: ['credit', 'refund'] }, amount_kobo: { $gt: 0 } }] },
    ],
  },
  [COLLECTIONS.transactions]: {
    $jsonSchema: {
      bsonType: 'object',
      required: ['_id', 'account_id', 'product', 'status', 'face_value_kobo', 'charged_kobo', 'balance_after_kobo', 'attempts', 'next_attempt_at', 'needs_attention', 'created_at', 'updated_at'],
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

/** Every index besides _id, by collection. Names are explicit so that errors can name them. */
export const INDEXES: Readonly<Record<string, readonly IndexDescription[]>> = {
  [COLLECTIONS.apiKeys]: [{ name: 'api_keys_by_account', key: { account_id: 1, created_at: -1, _id: -1 } }],
  [COLLECTIONS.plans]: [{ name: 'plans_by_network', key: { network: 1, _id: 1 } }],
  [COLLECTIONS.cablePackages]: [{ name: 'cable_packages_key', key: { provider: 1, package_code: 1 }, unique: true }],
  [COLLECTIONS.ledger]: [
    // Entry ids are a sequence per account: unique, and the order the ledger pages in.
    { name: 'ledger_by_account', key: { account_id: 1, entry_id: -1 }, unique: true },
    // A purchase has at most one debit and at most one refund, whatever the code above
    // does: the last line of defence against refunding twice. Credits are left out so
    // that an admin's credit references need not be unique.
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
      name: REQUEST_ID_INDEX.name,
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

/** The document that records which schema version wrote the database. */
interface MetaDoc {
  _id: string;
  version: number;
}

const SCHEMA_META_ID = 'schema';

/**
 * Brings the database up to SCHEMA_VERSION: collections (with validators) and indexes.
 * Safe to run from several processes at once: a collection another process has just
 * created is accepted, and creating an existing index is a no-op on the server.
 */
export async function ensureSchema(db: Db): Promise<void> {
  const meta = db.collection<MetaDoc>(COLLECTIONS.meta);
  const found = await meta.findOne({ _id: SCHEMA_META_ID });
  if (found !== null && found.version > SCHEMA_VERSION) {
    // A newer build wrote this database; running old code against it could corrupt money.
    throw new Error(`store schema version ${found.version} is newer than this build understands (${SCHEMA_VERSION})`);
  }

  const existing = new Set(
    (await db.listCollections({}, { nameOnly: true }).toArray()).map((collection) => collection.name),
  );
  for (const name of Object.values(COLLECTIONS)) {
    if (existing.has(name)) continue;
    const validator = VALIDATORS[name];
    try {
      await db.createCollection(name, validator === undefined ? {} : { validator, validationLevel: 'strict', validationAction: 'error' });
    } catch (error) {
      if (!(typeof error === 'object' && error !== null && 'code' in error && error.code === NAMESPACE_EXISTS_CODE)) throw error;
    }
  }
  for (const [name, indexes] of Object.entries(INDEXES)) {
    await db.collection(name).createIndexes([...indexes]);
  }
  await meta.updateOne({ _id: SCHEMA_META_ID }, { $max: { version: SCHEMA_VERSION } }, { upsert: true });
}
