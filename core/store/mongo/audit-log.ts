/** The audit log on MongoDB: one document per staff action or admin call, only ever inserted. */
import type { ClientSession, Filter } from 'mongodb';
import type { AuditEntryRecord } from '../../domain/records.js';
import { auditEntryId } from '../audit-ids.js';
import type { AuditLogStore } from '../port.js';
import { AUDIT_LOG_COLLECTION } from './collections.js';
import type { MongoContext } from './context.js';

interface AuditDoc {
  /** The entry's id (audit-ids.ts): sortable by time. */
  _id: string;
  at: Date;
  actor: string;
  action: string;
  target: string;
  before: string | null;
  after: string | null;
  address: string | null;
  note: string;
}

function fromDoc(doc: AuditDoc): AuditEntryRecord {
  return {
    id: doc._id,
    at: doc.at,
    actor: doc.actor,
    action: doc.action,
    target: doc.target,
    before: doc.before,
    after: doc.after,
    address: doc.address,
    note: doc.note,
  };
}

/** A literal prefix as a regular expression: an action area is text, never a pattern. */
function prefixPattern(prefix: string): RegExp {
  return new RegExp(`^${prefix.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}`);
}

function toDoc(entry: Omit<AuditEntryRecord, 'id'>): AuditDoc {
  return {
    _id: auditEntryId(entry.at),
    at: entry.at,
    actor: entry.actor,
    action: entry.action,
    target: entry.target,
    before: entry.before,
    after: entry.after,
    address: entry.address,
    note: entry.note,
  };
}

/** Appends one row inside the caller's transaction (a key's freeze writes its row with the freeze). */
export async function appendAuditIn(
  ctx: MongoContext,
  session: ClientSession,
  entry: Omit<AuditEntryRecord, 'id'>,
): Promise<void> {
  ctx.live();
  await ctx.db.collection<AuditDoc>(AUDIT_LOG_COLLECTION).insertOne(toDoc(entry), { session });
}

export function createAuditLogStore(ctx: MongoContext): AuditLogStore {
  const entries = ctx.db.collection<AuditDoc>(AUDIT_LOG_COLLECTION);
  return {
    async append(entry) {
      ctx.live();
      const doc = toDoc(entry);
      await entries.insertOne(doc);
      return fromDoc(doc);
    },
    async list(filter) {
      ctx.live();
      const query: Filter<AuditDoc> = {};
      if (filter.actor !== undefined) query.actor = filter.actor;
      if (filter.action !== undefined)
        query.action = filter.action.endsWith('.') ? prefixPattern(filter.action) : filter.action;
      if (filter.target !== undefined) query.target = filter.target;
      if (filter.beforeId !== undefined) query._id = { $lt: filter.beforeId };
      return (await entries.find(query).sort({ _id: -1 }).limit(filter.limit).toArray()).map(fromDoc);
    },
  };
}
