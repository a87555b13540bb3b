/**
 * A database as the MongoDB schema steps see it, in memory: collections with their
 * validators, named indexes, the data updates and collMods sent, and a log of every call in
 * order, so a test can check what a step did and in which order.
 */
import type { CreateCollectionOptions, Document, IndexDescription } from 'mongodb';
import type { CollectionInfo, SchemaTarget } from '../../../core/store/mongo/schema.js';

export class RecordingTarget implements SchemaTarget {
  version = 0;
  readonly validators = new Map<string, Document | undefined>();
  readonly indexes = new Map<string, Map<string, IndexDescription>>();
  readonly updates: { collection: string; filter: Document; set: Document }[] = [];
  readonly commands: Document[] = [];
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
    this.log.push(`indexes ${collection} ${indexes.map((index) => index.name).join(' ')}`);
  }
  async dropIndex(collection: string, name: string) {
    this.indexes.get(collection)?.delete(name);
    this.log.push(`drop ${collection}.${name}`);
  }
  async updateMany(collection: string, filter: Document, set: Document) {
    this.updates.push({ collection, filter, set });
    this.log.push(`update ${collection}`);
  }
  readonly aggregations: { collection: string; pipeline: readonly Document[] }[] = [];
  async aggregate(collection: string, pipeline: readonly Document[]) {
    this.aggregations.push({ collection, pipeline });
    this.log.push(`aggregate ${collection}`);
  }
  /** Understands collMod as the server does: the collection must exist, and its validator is replaced. */
  async command(command: Document) {
    const name = command['collMod'];
    if (typeof name !== 'string' || !this.validators.has(name))
      throw new Error(`collMod of a collection that does not exist: ${JSON.stringify(command)}`);
    this.commands.push(command);
    this.validators.set(name, command['validator'] as Document);
    this.log.push(`collMod ${name}`);
    return { ok: 1 };
  }
}
