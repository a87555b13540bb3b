/**
 * Identity levels on MongoDB (docs/kyc.md), as on SQLite (sqlite/levels.ts): the level change
 * that releases held credits, in one transaction, and the store of limits, requests and holds.
 * The checks inside the money transactions are level-checks.ts.
 */

import { type ClientSession, Long, MongoServerError, ObjectId } from 'mongodb';
import { heldReleasedPostings, heldReturnedPostings } from '../../domain/books.js';
import { creditEvent, newEventId } from '../../domain/events.js';
import type { AccountLevel, HoldRecord, Level, LevelRequestRecord } from '../../domain/levels.js';
import type { KycStore, LevelChanged, LevelDecision } from '../port.js';
import { appendAuditIn, auditDocOf } from './audit-log.js';
import { bookIn, entryIdOf, journalIds } from './books.js';
import type { MongoContext } from './context.js';
import { readKobo } from './documents.js';
import { DUPLICATE_KEY_CODE } from './errors.js';
import { deliversTo, writeEventIn } from './events.js';
import {
  type HoldDoc,
  holdFromDoc,
  inflowOfDoc,
  kyc,
  levelOfDoc,
  levelToDoc,
  limitsFromDoc,
  type RequestDoc,
  requestFromDoc,
  splitCreditIn,
} from './level-checks.js';
import { addToWallet } from './wallet.js';

/** A level change in one transaction (the `level_change` move): see sqlite/levels.ts changeLevel. */
export async function changeLevelMongo(
  ctx: MongoContext,
  move: { accountId: string; level: Level; decision: LevelDecision },
): Promise<LevelChanged> {
  const { decision } = move;
  // Fixed before the first attempt, so a retried transaction writes the same rows.
  const auditDoc = auditDocOf({
    at: decision.at,
    actor: decision.actor,
    action: 'kyc.level',
    target: move.accountId,
    before: null,
    after: null,
    address: decision.address,
    note: decision.note,
  });
  return ctx.inTransaction(async (session) => {
    const c = ctx.live();
    const before = await c.accounts.findOneAndUpdate(
      { _id: move.accountId },
      { $set: { kyc_level: move.level } },
      { session, returnDocument: 'before' },
    );
    if (before === null) return { outcome: 'no_account' as const };
    const request = await kyc(ctx).requests.findOneAndUpdate(
      { account_id: move.accountId, status: 'pending' },
      { $set: { status: 'approved', decided_at: decision.at, decided_by: decision.actor, note: decision.note } },
      { session, returnDocument: 'after' },
    );
    const released: HoldRecord[] = [];
    const held = await kyc(ctx)
      .holds.find({ account_id: move.accountId, status: 'held' }, { session, sort: { created_at: 1, _id: 1 } })
      .toArray();
    for (const hold of held) {
      const split = await splitCreditIn(ctx, session, move.accountId, readKobo(hold.amount_kobo, 'amount_kobo'));
      if (split === null || split.heldKobo > 0) continue;
      released.push(await releaseIn(ctx, session, hold, decision.at));
    }
    const after = (await c.accounts.findOne({ _id: move.accountId }, { session }))!;
    await appendAuditIn(ctx, session, {
      ...auditDoc,
      before: JSON.stringify({ level: levelOfDoc(before) }),
      after: JSON.stringify({
        level: move.level,
        request: request?._id ?? null,
        released_kobo: released.reduce((sum, h) => sum + h.amountKobo, 0),
      }),
    });
    const level: AccountLevel = { accountId: move.accountId, level: move.level, inflowKobo: inflowOfDoc(after) };
    return {
      outcome: 'changed' as const,
      before: levelOfDoc(before),
      level,
      request: request === null ? null : requestFromDoc(request),
      released,
    };
  });
}

/**
 * A held credit returned to its payer (a staff proposal approved), in the caller's transaction:
 * held -> returned, once, and booked held:over_limit -> the provider's clearing.
 */
export async function returnHoldIn(
  ctx: MongoContext,
  session: ClientSession,
  inflowId: string,
  at: Date,
): Promise<HoldRecord | null> {
  const hold = await kyc(ctx).holds.findOneAndUpdate(
    { _id: inflowId, status: 'held' },
    { $set: { status: 'returned', updated_at: at } },
    { session, returnDocument: 'after' },
  );
  if (hold === null) return null;
  const reference = `${inflowId}:returned`;
  await bookIn(ctx, session, {
    id: journalIds.own('inflow_returned', reference),
    entryId: entryIdOf(new ObjectId()),
    kind: 'inflow_returned',
    mode: 'live',
    reference,
    at,
    postings: heldReturnedPostings(hold.provider, readKobo(hold.amount_kobo, 'amount_kobo')),
  });
  return holdFromDoc(hold);
}

async function releaseIn(ctx: MongoContext, session: ClientSession, hold: HoldDoc, at: Date): Promise<HoldRecord> {
  const amountKobo = readKobo(hold.amount_kobo, 'amount_kobo');
  const reference = `${hold._id}:released`;
  const memo = `Held bank transfer released (${hold.provider})`;
  const entryId = new ObjectId();
  const deliver = await deliversTo(ctx, session, hold.account_id, 'live');
  const entry = await addToWallet(ctx, session, {
    accountId: hold.account_id,
    mode: 'live',
    amountKobo,
    kind: 'credit',
    reference,
    memo,
    at,
    id: entryId,
  });
  if (entry === null) throw new Error(`store: the account of held credit ${hold._id} vanished`);
  await ctx
    .live()
    .accounts.updateOne(
      { _id: hold.account_id },
      { $inc: { kyc_inflow_kobo: Long.fromNumber(amountKobo) } },
      { session },
    );
  await bookIn(ctx, session, {
    id: journalIds.ofLedgerEntry(entryId),
    entryId: entryIdOf(entryId),
    kind: 'inflow_credited',
    mode: 'live',
    reference,
    at,
    postings: heldReleasedPostings(hold.account_id, amountKobo),
  });
  await kyc(ctx).holds.updateOne(
    { _id: hold._id, status: 'held' },
    { $set: { status: 'released', updated_at: at } },
    { session },
  );
  const facts = {
    accountId: hold.account_id,
    reference,
    amountKobo,
    balanceKobo: entry.balanceAfterKobo,
    memo,
    funding: undefined,
  };
  await writeEventIn(ctx, session, creditEvent(facts, 'live', at, newEventId()), deliver);
  return { ...holdFromDoc(hold), status: 'released', updatedAt: at };
}

/** The levels' limits, requests and holds on MongoDB. */
export function createKycStore(ctx: MongoContext): KycStore {
  const cols = () => kyc(ctx);
  return {
    async levels() {
      const docs = await cols()
        .levels.find({}, { sort: { _id: 1 } })
        .toArray();
      return docs.map(limitsFromDoc);
    },
    async setLimits(limits, audit) {
      const doc = auditDocOf({
        ...audit,
        action: 'kyc.set_level',
        target: `level:${limits.level}`,
        before: null,
        after: null,
      });
      return ctx.inTransaction(async (session) => {
        const before = await cols().levels.findOneAndReplace({ _id: limits.level }, levelToDoc(limits, audit.at), {
          session,
          returnDocument: 'before',
        });
        if (before === null) return null;
        await appendAuditIn(ctx, session, {
          ...doc,
          before: JSON.stringify(limitsFromDoc(before)),
          after: JSON.stringify(limits),
        });
        return limits;
      });
    },
    async levelOf(accountId) {
      const doc = await ctx.live().accounts.findOne({ _id: accountId });
      return doc === null ? null : { accountId, level: levelOfDoc(doc), inflowKobo: inflowOfDoc(doc) };
    },
    async openRequest(request) {
      try {
        await cols().requests.insertOne(requestToDoc(request));
        return { opened: true, request };
      } catch (error) {
        // The unique partial index on (account_id) of open requests: one is open already.
        if (!(error instanceof MongoServerError && error.code === DUPLICATE_KEY_CODE)) throw error;
        const open = await cols().requests.findOne({ account_id: request.accountId, status: 'pending' });
        if (open === null) throw error;
        return { opened: false, request: requestFromDoc(open) };
      }
    },
    async requestsOf(accountId, limit) {
      const docs = await cols()
        .requests.find({ account_id: accountId }, { sort: { created_at: -1, _id: 1 }, limit })
        .toArray();
      return docs.map(requestFromDoc);
    },
    async pendingRequests(limit) {
      const docs = await cols()
        .requests.find({ status: 'pending' }, { sort: { created_at: 1, _id: 1 }, limit })
        .toArray();
      return docs.map(requestFromDoc);
    },
    async refuse(accountId, decision) {
      const doc = auditDocOf({ ...decision, action: 'kyc.refuse', target: accountId, before: null, after: null });
      return ctx.inTransaction(async (session) => {
        const row = await cols().requests.findOneAndUpdate(
          { account_id: accountId, status: 'pending' },
          { $set: { status: 'refused', decided_at: decision.at, decided_by: decision.actor, note: decision.note } },
          { session, returnDocument: 'after' },
        );
        if (row === null) return null;
        await appendAuditIn(ctx, session, {
          ...doc,
          before: JSON.stringify({ request: row._id, status: 'pending' }),
          after: JSON.stringify({ request: row._id, status: 'refused' }),
        });
        return requestFromDoc(row);
      });
    },
    async holdsOf(accountId, limit) {
      const docs = await cols()
        .holds.find({ account_id: accountId }, { sort: { created_at: -1, _id: 1 }, limit })
        .toArray();
      return docs.map(holdFromDoc);
    },
    async heldCredits(limit) {
      const docs = await cols()
        .holds.find({ status: 'held' }, { sort: { created_at: 1, _id: 1 }, limit })
        .toArray();
      return docs.map(holdFromDoc);
    },
  };
}

function requestToDoc(request: LevelRequestRecord): RequestDoc {
  return {
    _id: request.requestId,
    account_id: request.accountId,
    level: request.level,
    kind: request.kind,
    number_last4: request.numberLast4,
    number_hash: request.numberHash,
    document_reference: request.documentReference,
    requested_by: request.requestedBy,
    status: 'pending',
    created_at: request.createdAt,
    decided_at: null,
    decided_by: null,
    note: '',
  };
}
