/**
 * The reconciliation's findings on MongoDB (schema step 30): one document per day, upstream,
 * reference and class, whose _id names those four, so a rerun of a day upserts nothing new
 * ($setOnInsert: a kept finding is never rewritten); a finding resolved keeps who, why and the
 * proposal that corrected it. Beside them what the daily run stands on (step 31): the last day
 * it finished per upstream (`reconcile_days`, _id the upstream) and the balances the float
 * poller read (`float_readings`, _id the upstream and instant). Nothing here moves money.
 */
import type { AnyBulkWriteOperation, Collection } from 'mongodb';
import { kobo } from '../../domain/money.js';
import type { FindingKey } from '../../domain/reconcile.js';
import type { ReconcileFindingRecord } from '../../domain/records.js';
import { READINGS_KEPT_DAYS, requireAmount, requireLimit } from '../bounds.js';
import type { ReconcileFindingStore } from '../port.js';
import { RECONCILE_COLLECTIONS, RECONCILE_FINDINGS_COLLECTION } from './collections.js';
import { bounded, MAX_LIST_ITEMS, type MongoContext } from './context.js';
import { readInteger } from './documents.js';
import { DUPLICATE_KEY_CODE } from './errors.js';

const isDuplicateKey = (error: unknown): boolean =>
  typeof error === 'object' && error !== null && 'code' in error && error.code === DUPLICATE_KEY_CODE;

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
  /** Absent on a finding never resolved (and on every one kept before step 31). */
  resolved_by?: string;
  resolution?: string;
  corrected_by?: string | null;
}

interface DayDoc {
  _id: string;
  day: string;
  at: Date;
}

interface ReadingDoc {
  _id: string;
  upstream: string;
  at: Date;
  balance_kobo: number;
}

const idOf = (f: FindingKey): string => JSON.stringify([f.day, f.upstream, f.reference, f.class]);

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
    ...(doc.resolved_at === null || doc.resolved_at === undefined
      ? {}
      : {
          resolution: {
            at: doc.resolved_at,
            by: doc.resolved_by ?? '',
            note: doc.resolution ?? '',
            correctedBy: doc.corrected_by ?? null,
          },
        }),
  };
}

export function createFindingStore(ctx: MongoContext): ReconcileFindingStore {
  const findings = (): Collection<FindingDoc> => {
    ctx.live();
    return ctx.db.collection<FindingDoc>(RECONCILE_FINDINGS_COLLECTION);
  };
  const days = (): Collection<DayDoc> => {
    ctx.live();
    return ctx.db.collection<DayDoc>(RECONCILE_COLLECTIONS.days);
  };
  const readings = (): Collection<ReadingDoc> => {
    ctx.live();
    return ctx.db.collection<ReadingDoc>(RECONCILE_COLLECTIONS.floatReadings);
  };
  return {
    async list(openOnly, limit) {
      const docs = await findings()
        .find(openOnly ? { resolved_at: null } : {})
        .sort({ day: -1, upstream: 1, reference: 1, class: 1 })
        .limit(requireLimit(limit))
        .toArray();
      return docs.map(fromDoc);
    },
    async resolve(key, resolution) {
      const _id = idOf(key);
      // One document, one update: only an open finding takes a resolution, and the first is kept.
      const resolved = await findings().findOneAndUpdate(
        { _id, resolved_at: null },
        {
          $set: {
            resolved_at: resolution.at,
            resolved_by: resolution.by,
            resolution: resolution.note,
            corrected_by: resolution.correctedBy,
          },
        },
        { returnDocument: 'after' },
      );
      if (resolved !== null) return { finding: fromDoc(resolved), changed: true };
      const doc = await findings().findOne({ _id });
      return doc === null ? null : { finding: fromDoc(doc), changed: false };
    },
    async lastDay(upstream) {
      return (await days().findOne({ _id: upstream }))?.day ?? null;
    },
    async markDay(upstream, day, at) {
      // Only forward: a day earlier than the one kept matches nothing, and its upsert is a
      // duplicate _id, which says the kept day stands.
      try {
        await days().updateOne({ _id: upstream, day: { $lt: day } }, { $set: { day, at } }, { upsert: true });
      } catch (error) {
        if (!isDuplicateKey(error)) throw error;
      }
    },
    async keepReading(upstream, reading) {
      requireAmount('balance', reading.balanceKobo, Number.MIN_SAFE_INTEGER);
      const at = reading.at;
      await readings().updateOne(
        { _id: JSON.stringify([upstream, at.getTime()]) },
        { $setOnInsert: { upstream, at, balance_kobo: reading.balanceKobo } },
        { upsert: true },
      );
      await readings().deleteMany({ upstream, at: { $lt: new Date(at.getTime() - READINGS_KEPT_DAYS * 86_400_000) } });
    },
    async readingsBetween(upstream, from, until, limit) {
      const docs = await readings()
        .find({ upstream, at: { $gte: from, $lt: until } })
        .sort({ at: 1 })
        .limit(requireLimit(limit))
        .toArray();
      return docs.map((doc) => ({ at: doc.at, balanceKobo: kobo(readInteger(doc.balance_kobo, 'balance_kobo')) }));
    },
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
