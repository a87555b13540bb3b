/**
 * The reconciliation's findings on MongoDB (schema step 30): one document per day, upstream,
 * reference and class, whose _id names those four, so a rerun of a day upserts nothing new
 * ($setOnInsert: a kept finding is never rewritten). Nothing here moves money.
 */
import type { AnyBulkWriteOperation, Collection } from 'mongodb';
import type { ReconcileFindingRecord } from '../../domain/records.js';
import type { ReconcileFindingStore } from '../port.js';
import { RECONCILE_FINDINGS_COLLECTION } from './collections.js';
import { bounded, MAX_LIST_ITEMS, type MongoContext } from './context.js';
import { readInteger } from './documents.js';

interface FindingDoc {
  _id: string;
  day: string;
  upstream: string;
  reference: string;
  class: string;
  at_stake_kobo: number;
  our_cost_kobo: number | null;
  their_charged_kobo: number | null;
  outcome: string;
  their_status: string;
  their_charges: number | null;
  reason: string | null;
  evidence: string | null;
  found_at: Date;
  resolved_at: Date | null;
}

const idOf = (f: Pick<ReconcileFindingRecord, 'day' | 'upstream' | 'reference' | 'class'>): string =>
  JSON.stringify([f.day, f.upstream, f.reference, f.class]);

function docOf(f: ReconcileFindingRecord): FindingDoc {
  return {
    _id: idOf(f),
    day: f.day,
    upstream: f.upstream,
    reference: f.reference,
    class: f.class,
    at_stake_kobo: f.atStakeKobo,
    our_cost_kobo: f.ourCostKobo,
    their_charged_kobo: f.theirChargedKobo,
    outcome: f.outcome,
    their_status: f.theirStatus,
    their_charges: f.theirCharges,
    reason: f.reason,
    evidence: f.evidence,
    found_at: f.foundAt,
    resolved_at: null,
  };
}

const orNull = (value: unknown, field: string): number | null =>
  value === null || value === undefined ? null : readInteger(value, field);

function fromDoc(doc: FindingDoc): ReconcileFindingRecord {
  return {
    day: doc.day,
    upstream: doc.upstream,
    reference: doc.reference,
    class: doc.class as ReconcileFindingRecord['class'],
    atStakeKobo: readInteger(doc.at_stake_kobo, 'at_stake_kobo') as ReconcileFindingRecord['atStakeKobo'],
    ourCostKobo: orNull(doc.our_cost_kobo, 'our_cost_kobo') as ReconcileFindingRecord['ourCostKobo'],
    theirChargedKobo: orNull(
      doc.their_charged_kobo,
      'their_charged_kobo',
    ) as ReconcileFindingRecord['theirChargedKobo'],
    outcome: doc.outcome as ReconcileFindingRecord['outcome'],
    theirStatus: doc.their_status as ReconcileFindingRecord['theirStatus'],
    theirCharges: orNull(doc.their_charges, 'their_charges'),
    reason: doc.reason,
    evidence: doc.evidence,
    foundAt: doc.found_at,
  };
}

export function createFindingStore(ctx: MongoContext): ReconcileFindingStore {
  const findings = (): Collection<FindingDoc> => {
    ctx.live();
    return ctx.db.collection<FindingDoc>(RECONCILE_FINDINGS_COLLECTION);
  };
  return {
    async record(list) {
      if (list.length === 0) return 0;
      const operations: AnyBulkWriteOperation<FindingDoc>[] = list.map((f) => {
        const { _id, ...fields } = docOf(f);
        return { updateOne: { filter: { _id }, update: { $setOnInsert: fields }, upsert: true } };
      });
      const result = await findings().bulkWrite(operations, { ordered: false });
      return result.upsertedCount;
    },
    async listOpen(limit) {
      const docs = await findings()
        .find({ resolved_at: null })
        .sort({ resolved_at: 1, day: 1, upstream: 1, reference: 1 })
        .limit(limit)
        .toArray();
      return docs.map(fromDoc);
    },
    async listDay(day, upstream) {
      const docs = await findings()
        .find({ day, ...(upstream === undefined ? {} : { upstream }) })
        .sort({ day: 1, upstream: 1, reference: 1, class: 1 })
        .limit(MAX_LIST_ITEMS + 1)
        .toArray();
      return bounded(docs, `findings of ${day}`).map(fromDoc);
    },
  };
}
