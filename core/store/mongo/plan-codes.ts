/**
 * Each declared upstream's code for our data plans on MongoDB. One document per
 * (upstream, plan), its _id "<upstream>:<plan id>", so each change is one atomic
 * findOneAndReplace or findOneAndDelete that returns the document it replaced.
 */
import type { Collection } from 'mongodb';
import type { PlanCodeRecord } from '../../domain/records.js';
import type { PlanCodeStore } from '../port.js';
import { PLAN_CODES_COLLECTION } from './collections.js';
import type { MongoContext } from './context.js';

interface PlanCodeDoc {
  _id: string;
  plan_id: number;
  upstream: string;
  code: string;
  updated_at: Date;
}

function fromDoc(doc: PlanCodeDoc): PlanCodeRecord {
  return { planId: doc.plan_id, upstream: doc.upstream, code: doc.code, updatedAt: doc.updated_at };
}

const idOf = (planId: number, upstream: string): string => `${upstream}:${planId}`;

export function createPlanCodeStore(ctx: MongoContext): PlanCodeStore {
  const codes = (): Collection<PlanCodeDoc> => {
    ctx.live();
    return ctx.db.collection<PlanCodeDoc>(PLAN_CODES_COLLECTION);
  };
  return {
    async list(filter) {
      const query = filter.upstream === undefined ? {} : { upstream: filter.upstream };
      return (await codes().find(query).sort({ upstream: 1, plan_id: 1 }).toArray()).map(fromDoc);
    },
    async set(record) {
      const before = await codes().findOneAndReplace(
        { _id: idOf(record.planId, record.upstream) },
        { plan_id: record.planId, upstream: record.upstream, code: record.code, updated_at: record.updatedAt },
        { upsert: true, returnDocument: 'before' },
      );
      return before === null ? null : fromDoc(before);
    },
    async clear(planId, upstream) {
      const before = await codes().findOneAndDelete({ _id: idOf(planId, upstream) });
      return before === null ? null : fromDoc(before);
    },
  };
}
