/**
 * The database as the schema steps see it (SchemaTarget), so that the steps and their runner
 * can be tested without a server, and `schemaTarget`, the real one.
 */
import {
  type CreateCollectionOptions,
  type CreateIndexesOptions,
  type Db,
  type Document,
  type IndexDescription,
  MongoBulkWriteError,
} from 'mongodb';
import { COLLECTIONS } from './collections.js';
import { DUPLICATE_KEY_CODE, NAMESPACE_EXISTS_CODE } from './errors.js';
import type { CollectionInfo } from './validators.js';

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
  /** Runs an aggregation over `collection` for what its last stage ($merge) writes (a data step). */
  aggregate(collection: string, pipeline: readonly Document[]): Promise<void>;
  /** The documents of `collection` that match `filter`, in `sort` order, at most `limit` of them (a data step's batch). */
  find(collection: string, filter: Document, sort?: Document, limit?: number): Promise<Document[]>;
  /**
   * Inserts the documents that are not there yet (by _id): one already there is kept as it
   * is, so a data step run again writes nothing twice. Any other refusal (a validator's) is
   * thrown. Returns how many it inserted.
   */
  insertNew(collection: string, docs: readonly Document[]): Promise<number>;
  /** Runs aggregations that read the same moment (one snapshot), and returns what each found (a step's check). */
  readAtOnce(reads: readonly { collection: string; pipeline: readonly Document[] }[]): Promise<Document[][]>;
}

/**
 * How every index build commits: once a majority of the voting members has built it. The
 * server's default (all voting, data-bearing members) leaves an upgrade that adds an index,
 * and so the core's start, waiting for as long as any voting secondary is down; with a
 * majority the build commits as soon as the members that can acknowledge majority writes
 * have it, and a member that was down builds it when it comes back (as it applies the oplog).
 */
export const INDEX_BUILD_OPTIONS: CreateIndexesOptions = { commitQuorum: 'majority' };

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
      await db.collection(collection).createIndexes(indexes, { ...INDEX_BUILD_OPTIONS });
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
    async aggregate(collection, pipeline) {
      // A $merge stage returns no documents; reading the cursor runs it.
      await db
        .collection(collection)
        .aggregate([...pipeline])
        .toArray();
    },
    async find(collection, filter, sort = { _id: 1 }, limit = 0) {
      return db.collection(collection).find(filter).sort(sort).limit(limit).toArray();
    },
    async insertNew(collection, docs) {
      if (docs.length === 0) return 0;
      try {
        return (await db.collection(collection).insertMany([...docs], { ordered: false })).insertedCount;
      } catch (error) {
        // Unordered: every document was tried; those refused only as duplicates were there already.
        if (!(error instanceof MongoBulkWriteError)) throw error;
        const refusals = [error.writeErrors].flat();
        if (error.result.getWriteConcernError() !== undefined) throw error;
        if (refusals.some((refusal) => refusal.code !== DUPLICATE_KEY_CODE)) throw error;
        return error.insertedCount;
      }
    },
    async readAtOnce(reads) {
      // A snapshot session pins every read to the cluster time of its first (MongoDB 5.0+).
      const session = db.client.startSession({ snapshot: true });
      try {
        const found: Document[][] = [];
        for (const read of reads)
          found.push(
            await db
              .collection(read.collection)
              .aggregate([...read.pipeline], { session, readConcern: { level: 'snapshot' }, allowDiskUse: true })
              .toArray(),
          );
        return found;
      } finally {
        await session.endSession();
      }
    },
  };
}
