/**
 * A database as the MongoDB schema steps see it, in memory: collections with their
 * validators, named indexes, the data updates and collMods sent, and a log of every call in
 * order, so a test can check what a step did and in which order. Its documents (`data`)
 * answer a data step's finds and reads with the few query and pipeline operators the steps
 * use ($in, $gt, $ne, $regex, $size; $match, $set with $concat, $lookup on fields, $limit, $unwind,
 * $group with $sum, $project).
 */
import { type CreateCollectionOptions, type Document, type IndexDescription, ObjectId } from 'mongodb';
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
  readonly data = new Map<string, Document[]>();
  /** Fails the next `insertNew` calls after this many succeeded (an interrupted step); null never. */
  failInsertsAfter: number | null = null;
  async find(collection: string, filter: Document, sort: Document = { _id: 1 }, limit = 0) {
    const found = (this.data.get(collection) ?? []).filter((doc) => matches(doc, filter));
    found.sort((a, b) => {
      for (const [field, direction] of Object.entries(sort)) {
        const order = compare(valueAt(a, field), valueAt(b, field));
        if (order !== 0) return order * (direction as number);
      }
      return 0;
    });
    return limit > 0 ? found.slice(0, limit) : found;
  }
  async insertNew(collection: string, docs: readonly Document[]) {
    if (this.failInsertsAfter !== null && this.failInsertsAfter-- <= 0)
      throw new Error('fake: the step was interrupted');
    const kept = this.data.get(collection) ?? [];
    let inserted = 0;
    for (const doc of docs) {
      if (kept.some((other) => compare(other['_id'], doc['_id']) === 0)) continue;
      kept.push(doc);
      inserted += 1;
    }
    this.data.set(collection, kept);
    this.log.push(`insert ${collection} ${inserted}`);
    return inserted;
  }
  async readAtOnce(reads: readonly { collection: string; pipeline: readonly Document[] }[]) {
    return reads.map((read) => runPipeline(this.data.get(read.collection) ?? [], read.pipeline, this.data));
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

function key(value: unknown): unknown {
  if (value instanceof ObjectId) return value.toHexString();
  if (value instanceof Date) return value.getTime();
  if (typeof value === 'object' && value !== null && 'toNumber' in value)
    return (value as { toNumber(): number }).toNumber();
  return value;
}

function compare(a: unknown, b: unknown): number {
  const [x, y] = [key(a), key(b)] as [never, never];
  return x < y ? -1 : x > y ? 1 : 0;
}

function valueAt(doc: Document, path: string): unknown {
  let value: unknown = doc;
  for (const part of path.split('.')) {
    if (Array.isArray(value)) value = value.map((item) => (item as Document)?.[part]);
    else value = (value as Document | undefined)?.[part];
  }
  return value;
}

/** Whether one value (or, for an array, any of its elements) meets a condition. */
function meets(value: unknown, condition: unknown): boolean {
  const onWhole = typeof condition === 'object' && condition !== null && '$size' in condition;
  if (Array.isArray(value) && !onWhole)
    return value.some((item) => meets(item, condition)) || meetsOne(value, condition);
  return meetsOne(value, condition);
}

function meetsOne(value: unknown, condition: unknown): boolean {
  const isOperators =
    typeof condition === 'object' &&
    condition !== null &&
    !(condition instanceof ObjectId) &&
    !(condition instanceof Date) &&
    Object.keys(condition).every((k) => k.startsWith('$'));
  if (!isOperators) return compare(value ?? null, condition) === 0;
  return Object.entries(condition as Document).every(([op, operand]) => {
    if (op === '$in') return (operand as unknown[]).some((item) => compare(value ?? null, item) === 0);
    if (op === '$gt') return value !== undefined && compare(value, operand) > 0;
    if (op === '$ne') return compare(value ?? null, operand) !== 0;
    if (op === '$regex') return typeof value === 'string' && new RegExp(operand as string).test(value);
    if (op === '$size') return Array.isArray(value) && value.length === operand;
    throw new Error(`fake: no query operator ${op}`);
  });
}

function matches(doc: Document, filter: Document): boolean {
  return Object.entries(filter).every(([path, condition]) => {
    const value = valueAt(doc, path);
    // A negation holds for an array only when no element matches.
    if (Array.isArray(value) && typeof condition === 'object' && condition !== null && '$ne' in condition)
      return value.every((item) => meetsOne(item, condition));
    return meets(value, condition);
  });
}

function evaluate(doc: Document, expression: unknown): unknown {
  if (typeof expression === 'string' && expression.startsWith('$')) return valueAt(doc, expression.slice(1));
  if (typeof expression === 'object' && expression !== null && '$concat' in expression)
    return ((expression as Document)['$concat'] as unknown[]).map((part) => evaluate(doc, part)).join('');
  if (typeof expression === 'object' && expression !== null)
    return Object.fromEntries(Object.entries(expression).map(([k, v]) => [k, evaluate(doc, v)]));
  return expression;
}

/** The pipeline stages the schema steps' reads use, over documents in memory (`data` for a $lookup). */
function runPipeline(
  docs: readonly Document[],
  pipeline: readonly Document[],
  data: ReadonlyMap<string, Document[]>,
): Document[] {
  let rows: Document[] = [...docs];
  for (const stage of pipeline) {
    const [name, spec] = Object.entries(stage)[0]!;
    if (name === '$match') rows = rows.filter((row) => matches(row, spec));
    else if (name === '$set') rows = rows.map((row) => ({ ...row, ...(evaluate(row, spec) as Document) }));
    else if (name === '$limit') rows = rows.slice(0, spec as number);
    else if (name === '$lookup')
      rows = rows.map((row) => ({
        ...row,
        [spec.as]: (data.get(spec.from) ?? []).filter(
          (other) => compare(valueAt(other, spec.foreignField), row[spec.localField]) === 0,
        ),
      }));
    else if (name === '$unwind') {
      const field = (spec as string).slice(1);
      rows = rows.flatMap((row) => (row[field] as unknown[]).map((item) => ({ ...row, [field]: item })));
    } else if (name === '$project')
      rows = rows.map((row) => Object.fromEntries(['_id', ...Object.keys(spec)].map((k) => [k, row[k]])));
    else if (name === '$group') {
      const groups = new Map<string, Document>();
      for (const row of rows) {
        const id = evaluate(row, spec._id);
        const group = groups.get(JSON.stringify(id)) ?? { _id: id, sum: 0 };
        group['sum'] += Number(key(evaluate(row, spec.sum.$sum)) ?? 0);
        groups.set(JSON.stringify(id), group);
      }
      rows = [...groups.values()];
    } else throw new Error(`fake: no pipeline stage ${name}`);
  }
  return rows;
}
