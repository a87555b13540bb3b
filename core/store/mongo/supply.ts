/**
 * Supply on MongoDB: upstream attempts, the route table and upstream settings.
 * Each operation touches one document, so each is atomic without a transaction (but a cost
 * learnt after the settle, whose entry in the books commits with it in one): an attempt
 * is inserted under its own _id ("<reference>:<seq>", a duplicate key means it exists), ended
 * only while it has no outcome, and a route or a setting is replaced or deleted with the
 * document it had returned in the same step.
 */
import { type ClientSession, type Collection, type Filter, ObjectId } from 'mongodb';
import { costKnownPostings, type DeliveredCost } from '../../domain/books.js';
import { type Kobo, kobo } from '../../domain/money.js';
import type { ProductName } from '../../domain/products.js';
import { RAW_ANSWERS_PER_PURCHASE } from '../../domain/raw-answers.js';
import type {
  RouteRecord,
  UpstreamAnswerRecord,
  UpstreamAnswerSource,
  UpstreamAttemptOutcome,
  UpstreamAttemptRecord,
  UpstreamSettingsRecord,
} from '../../domain/records.js';
import type { AttemptEnd, NewUpstreamAnswer, RouteKey, SupplyMoney, SupplyStore } from '../port.js';
import { bookIn, entryIdOf, journalIds, journalOf, postingsFromDoc } from './books.js';
import { SUPPLY_COLLECTIONS, UPSTREAM_ANSWERS_COLLECTION } from './collections.js';
import type { MongoContext } from './context.js';

/** The server's duplicate-key error. */
const DUPLICATE_KEY = 11000;

interface AttemptDoc {
  _id: string;
  reference: string;
  seq: number;
  upstream: string;
  started_at: Date;
  outcome: UpstreamAttemptOutcome | null;
  evidence: string | null;
  cost_kobo: number | null;
  /** Absent on attempts written before it was kept: read as null. */
  upstream_reference?: string | null;
  ended_at: Date | null;
}

interface AnswerDoc {
  /** "<reference>:<n>" */
  _id: string;
  reference: string;
  n: number;
  upstream: string;
  source: UpstreamAnswerSource;
  body: string;
  at: Date;
}

interface RouteDoc {
  /** product, network, plan type and disco joined by "|" (none of them holds one). */
  _id: string;
  product: string;
  network: string;
  plan_type: string;
  disco: string;
  upstreams: string[];
  updated_at: Date;
}

interface SettingsDoc {
  _id: string;
  float_alert_kobo: number | null;
  updated_at: Date;
}

function attemptFromDoc(doc: AttemptDoc): UpstreamAttemptRecord {
  return {
    reference: doc.reference,
    seq: doc.seq,
    upstream: doc.upstream,
    startedAt: doc.started_at,
    outcome: doc.outcome,
    evidence: doc.evidence,
    costKobo: doc.cost_kobo === null ? null : kobo(doc.cost_kobo),
    upstreamReference: doc.upstream_reference ?? null,
    endedAt: doc.ended_at,
  };
}

function routeFromDoc(doc: RouteDoc): RouteRecord {
  return {
    product: doc.product as ProductName,
    network: doc.network,
    planType: doc.plan_type,
    disco: doc.disco,
    upstreams: doc.upstreams,
    updatedAt: doc.updated_at,
  };
}

function settingsFromDoc(doc: SettingsDoc): UpstreamSettingsRecord {
  return {
    upstream: doc._id,
    floatAlertKobo: doc.float_alert_kobo === null ? null : kobo(doc.float_alert_kobo),
    updatedAt: doc.updated_at,
  };
}

function routeId(key: RouteKey): string {
  return [key.product, key.network, key.planType, key.disco].join('|');
}

function isDuplicateKey(error: unknown): boolean {
  return typeof error === 'object' && error !== null && (error as { code?: unknown }).code === DUPLICATE_KEY;
}

function koboOrNull(value: Kobo | null): number | null {
  return value === null ? null : Number(value);
}

function attemptsOf(ctx: MongoContext): Collection<AttemptDoc> {
  ctx.live();
  return ctx.db.collection<AttemptDoc>(SUPPLY_COLLECTIONS.attempts);
}

/** A new attempt's document: begun, not ended. */
function newAttemptDoc(attempt: { reference: string; seq: number; upstream: string; at: Date }): AttemptDoc {
  return {
    _id: `${attempt.reference}:${attempt.seq}`,
    reference: attempt.reference,
    seq: attempt.seq,
    upstream: attempt.upstream,
    started_at: attempt.at,
    outcome: null,
    evidence: null,
    cost_kobo: null,
    upstream_reference: null,
    ended_at: null,
  };
}

/**
 * A purchase's first attempt, inside the reserve's transaction. Its _id is the
 * reference's, new with the reserve, so it cannot exist yet; a retried transaction starts
 * over from nothing.
 */
export async function beginFirstAttemptIn(
  ctx: MongoContext,
  session: ClientSession,
  reference: string,
  upstream: string,
  at: Date,
): Promise<void> {
  await attemptsOf(ctx).insertOne(newAttemptDoc({ reference, seq: 1, upstream, at }), { session });
}

/** An attempt's outcome, once: one ended already is left as it is. In `session` when given. */
export async function endAttemptIn(
  ctx: MongoContext,
  session: ClientSession | undefined,
  reference: string,
  end: AttemptEnd,
  at: Date,
): Promise<void> {
  await attemptsOf(ctx).updateOne(
    { _id: `${reference}:${end.seq}`, outcome: null },
    {
      $set: {
        outcome: end.outcome,
        evidence: end.evidence,
        cost_kobo: koboOrNull(end.costKobo),
        ended_at: at,
        // Written when given, as SQLite's COALESCE: a null keeps what the attempt has.
        ...(end.upstreamReference === undefined || end.upstreamReference === null
          ? {}
          : { upstream_reference: end.upstreamReference }),
      },
    },
    session === undefined ? {} : { session },
  );
}

/**
 * What a purchase's delivered attempt cost at its upstream, where the upstream said (the last
 * attempt that recorded a cost), read in the settle's transaction; null otherwise.
 */
export async function deliveredCostIn(
  ctx: MongoContext,
  session: ClientSession,
  reference: string,
): Promise<DeliveredCost | null> {
  const [doc] = await attemptsOf(ctx)
    .find({ reference, outcome: 'delivered', cost_kobo: { $ne: null } }, { session })
    .sort({ seq: -1 })
    .limit(1)
    .toArray();
  return doc === undefined || doc.cost_kobo === null ? null : { upstream: doc.upstream, costKobo: kobo(doc.cost_kobo) };
}

/**
 * A delivered purchase settled before its cost was known, whose cost is learnt now: its
 * revenue of unknown cost becomes revenue, and the cost leaves that upstream's float, once.
 */
async function bookLearntCostIn(
  ctx: MongoContext,
  session: ClientSession,
  learnt: { reference: string; seq: number; costKobo: Kobo; at: Date; bookId: ObjectId },
): Promise<void> {
  const { reference } = learnt;
  const journal = journalOf(ctx);
  const settled = await journal.findOne({ _id: journalIds.settle(reference) }, { session });
  const unknown = settled === null ? undefined : postingsFromDoc(settled).find(isUnknownCost);
  if (settled === null || unknown === undefined) return;
  if ((await journal.findOne({ _id: journalIds.costKnown(reference) }, { session })) !== null) return;
  // A delivery the upstream already undid has no cost to book: its reversal gave everything back
  // (journal_by_reference finds it).
  if ((await journal.findOne({ reference, kind: 'reverse' }, { session })) !== null) return;
  const attempt = await attemptsOf(ctx).findOne({ _id: `${reference}:${learnt.seq}` }, { session });
  if (attempt === null) return;
  await bookIn(ctx, session, {
    id: journalIds.costKnown(reference),
    entryId: entryIdOf(learnt.bookId),
    kind: 'cost_known',
    mode: settled.mode,
    reference,
    at: learnt.at,
    postings: costKnownPostings(kobo(-unknown.amountKobo), { upstream: attempt.upstream, costKobo: learnt.costKobo }),
  });
}

const isUnknownCost = (posting: { account: string }): boolean => posting.account === 'revenue:sales_cost_unknown';

function answersOf(ctx: MongoContext): Collection<AnswerDoc> {
  ctx.live();
  return ctx.db.collection<AnswerDoc>(UPSTREAM_ANSWERS_COLLECTION);
}

function answerFromDoc(doc: AnswerDoc): UpstreamAnswerRecord {
  return { reference: doc.reference, n: doc.n, upstream: doc.upstream, source: doc.source, body: doc.body, at: doc.at };
}

/**
 * Keeps an upstream's answer about a purchase, in the caller's transaction: not again when it
 * equals the last one kept; past the bound, in the last one's place (as the SQLite store).
 */
export async function keepAnswerIn(
  ctx: MongoContext,
  session: ClientSession,
  reference: string,
  answers: readonly NewUpstreamAnswer[] | undefined,
  at: Date,
): Promise<void> {
  const kept = answersOf(ctx);
  for (const answer of answers ?? []) {
    const last = await kept.find({ reference }, { session }).sort({ n: -1 }).limit(1).next();
    if (last !== null && last.source === answer.source && last.body === answer.body) continue;
    const n = last === null ? 1 : Math.min(last.n + 1, RAW_ANSWERS_PER_PURCHASE);
    await kept.replaceOne(
      { _id: `${reference}:${n}` },
      { reference, n, upstream: answer.upstream, source: answer.source, body: answer.body, at },
      { session, upsert: true },
    );
  }
}

export function createSupplyStore(ctx: MongoContext): SupplyStore & SupplyMoney {
  const attempts = (): Collection<AttemptDoc> => attemptsOf(ctx);
  const routes = (): Collection<RouteDoc> => {
    ctx.live();
    return ctx.db.collection<RouteDoc>(SUPPLY_COLLECTIONS.routes);
  };
  const settings = (): Collection<SettingsDoc> => {
    ctx.live();
    return ctx.db.collection<SettingsDoc>(SUPPLY_COLLECTIONS.upstreamSettings);
  };
  return {
    async beginAttempt(attempt) {
      try {
        await attempts().insertOne(newAttemptDoc(attempt));
        return true;
      } catch (error) {
        if (isDuplicateKey(error)) return false;
        throw error;
      }
    },
    async endAttempt(reference, seq, end) {
      const { answers } = end;
      if (answers === undefined || answers.length === 0) {
        await endAttemptIn(ctx, undefined, reference, { ...end, seq }, end.at);
        return;
      }
      await ctx.inTransaction(async (session) => {
        await endAttemptIn(ctx, session, reference, { ...end, seq }, end.at);
        await keepAnswerIn(ctx, session, reference, answers, end.at);
      });
    },
    async deliveredLater(reference, seq, costKobo, at) {
      const filter: Filter<AttemptDoc> = { _id: `${reference}:${seq}`, outcome: { $in: [null, 'pending'] } };
      // An update pipeline, so an end time already recorded (the pending answer's) is kept.
      const update = [
        { $set: { outcome: 'delivered', cost_kobo: koboOrNull(costKobo), ended_at: { $ifNull: ['$ended_at', at] } } },
      ];
      if (costKobo === null) return (await attempts().updateOne(filter, update)).modifiedCount === 1;
      // With a cost, its entry in the books commits with the attempt's end.
      const bookId = new ObjectId();
      return ctx.inTransaction(async (session) => {
        if ((await attempts().updateOne(filter, update, { session })).modifiedCount !== 1) return false;
        await bookLearntCostIn(ctx, session, { reference, seq, costKobo, at, bookId });
        return true;
      });
    },
    async attemptsOf(reference) {
      return (await attempts().find({ reference }).sort({ seq: 1 }).toArray()).map(attemptFromDoc);
    },
    async answersOf(reference) {
      return (await answersOf(ctx).find({ reference }).sort({ n: 1 }).toArray()).map(answerFromDoc);
    },
    async attemptsBetween(from, to, limit) {
      const docs = await attempts()
        .find({ started_at: { $gte: from, $lt: to } })
        .sort({ started_at: 1, reference: 1, seq: 1 })
        .limit(limit)
        .toArray();
      return docs.map(attemptFromDoc);
    },
    async listRoutes() {
      const docs = await routes().find({}).sort({ product: 1, network: 1, plan_type: 1, disco: 1 }).toArray();
      return docs.map(routeFromDoc);
    },
    async setRoute(route) {
      const before = await routes().findOneAndReplace(
        { _id: routeId(route) },
        {
          product: route.product,
          network: route.network,
          plan_type: route.planType,
          disco: route.disco,
          upstreams: [...route.upstreams],
          updated_at: route.updatedAt,
        },
        { upsert: true, returnDocument: 'before' },
      );
      return before === null ? null : routeFromDoc(before);
    },
    async clearRoute(key) {
      const before = await routes().findOneAndDelete({ _id: routeId(key) });
      return before === null ? null : routeFromDoc(before);
    },
    async listUpstreamSettings() {
      return (await settings().find({}).sort({ _id: 1 }).toArray()).map(settingsFromDoc);
    },
    async setUpstreamSettings(next) {
      const before = await settings().findOneAndReplace(
        { _id: next.upstream },
        { float_alert_kobo: koboOrNull(next.floatAlertKobo), updated_at: next.updatedAt },
        { upsert: true, returnDocument: 'before' },
      );
      return before === null ? null : settingsFromDoc(before);
    },
  };
}
