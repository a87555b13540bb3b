/**
 * Recipient controls on MongoDB (as the SQLite adapter's recipients.ts): the blocklists and
 * each account's limits, and their checks inside a reserve's or a refund's transaction. Two
 * reserves to one controlled recipient on one day both write its day's document, so the later
 * one conflicts and is re-run by the driver on a fresh snapshot. Nothing here runs for a
 * purchase of an account without controls.
 */
import { type ClientSession, Long } from 'mongodb';
import { kobo } from '../../domain/money.js';
import { lagosDay } from '../../domain/people.js';
import { type RecipientRefusal, recipientLimitRefusal } from '../../domain/recipient-controls.js';
import type { NewTransaction, ReserveChecks } from '../../domain/records.js';
import { requireLimit } from '../bounds.js';
import type { RecipientStore } from '../port.js';
import { RECIPIENT_COLLECTIONS } from './collections.js';
import type { MongoContext } from './context.js';
import { accountFromDoc, readInteger, readKobo, type StoredInteger, toDate, toLong } from './documents.js';

interface BlockDoc {
  /** "<account id> <value>"; the platform's account id is "". */
  _id: string;
  account_id: string;
  value: string;
  reason: string;
  by: string;
  created_at: Date;
}

interface DayDoc {
  /** "<account> <mode> <recipient> <day>". */
  _id: string;
  count: number;
  spent_kobo: StoredInteger;
}

interface LastDoc {
  /** "<account> <mode> <product> <recipient> <face value>". */
  _id: string;
  reference: string;
  at: Date;
}

function collections(ctx: MongoContext) {
  ctx.live();
  return {
    blocks: ctx.db.collection<BlockDoc>(RECIPIENT_COLLECTIONS.blocks),
    days: ctx.db.collection<DayDoc>(RECIPIENT_COLLECTIONS.days),
    last: ctx.db.collection<LastDoc>(RECIPIENT_COLLECTIONS.last),
  };
}

const blockId = (accountId: string, value: string) => `${accountId} ${value}`;
const dayId = (t: { accountId: string; mode: string; recipient: string }, day: number) =>
  `${t.accountId} ${t.mode} ${t.recipient} ${day}`;
const lastId = (tx: { accountId: string; mode: string; product: string; recipient: string; faceValueKobo: number }) =>
  `${tx.accountId} ${tx.mode} ${tx.product} ${tx.recipient} ${tx.faceValueKobo}`;

const limited = (checks: NonNullable<ReserveChecks['recipient']>) =>
  checks.controls.perDayCount > 0 || checks.controls.perDayKobo > 0;

/** Why the account's recipient controls refuse this purchase, if they do (nothing is written). */
export async function recipientCheckIn(
  ctx: MongoContext,
  session: ClientSession,
  tx: NewTransaction,
  checks: NonNullable<ReserveChecks['recipient']>,
): Promise<RecipientRefusal | null> {
  const c = collections(ctx);
  const { controls, duplicateWindowMs } = checks;
  if (controls.blocklist && (await c.blocks.findOne({ _id: blockId(tx.accountId, tx.recipient) }, { session }))) {
    return { kind: 'blocked' };
  }
  if (controls.duplicateGuard && tx.requestId === null && duplicateWindowMs > 0) {
    const last = await c.last.findOne({ _id: lastId(tx) }, { session });
    if (last !== null && tx.createdAt.getTime() - last.at.getTime() < duplicateWindowMs) {
      return { kind: 'duplicate', reference: last.reference };
    }
  }
  if (!limited(checks)) return null;
  const day = await c.days.findOne({ _id: dayId(tx, lagosDay(tx.createdAt)) }, { session });
  const seen = {
    count: day === null ? 0 : readInteger(day.count, 'recipient_days.count'),
    kobo: day === null ? kobo(0) : readKobo(day.spent_kobo, 'recipient_days.spent_kobo'),
  };
  return recipientLimitRefusal(controls, seen, tx.chargedKobo);
}

/** Counts a reserved purchase against its recipient's day (marked on the purchase) and for the duplicate guard. */
export async function countRecipientIn(
  ctx: MongoContext,
  session: ClientSession,
  tx: NewTransaction,
  checks: NonNullable<ReserveChecks['recipient']>,
): Promise<number | undefined> {
  const c = collections(ctx);
  if (checks.controls.duplicateGuard) {
    await c.last.updateOne(
      { _id: lastId(tx) },
      { $set: { reference: tx.reference, at: toDate(tx.createdAt, 'createdAt') } },
      { session, upsert: true },
    );
  }
  if (!limited(checks)) return undefined;
  const day = lagosDay(tx.createdAt);
  await c.days.updateOne(
    { _id: dayId(tx, day) },
    { $inc: { count: 1, spent_kobo: toLong(tx.chargedKobo, 'chargedKobo') } },
    { session, upsert: true },
  );
  return day;
}

/** Gives a refunded purchase back to its recipient's day, and lets the same purchase be sent again at once. */
export async function giveBackRecipientIn(
  ctx: MongoContext,
  session: ClientSession,
  moved: {
    _id: string;
    account_id: string;
    mode?: string;
    product: string;
    recipient: string;
    face_value_kobo: StoredInteger;
    charged_kobo: StoredInteger;
    recipient_day?: number;
    recipient_guarded?: boolean;
  },
): Promise<void> {
  const c = collections(ctx);
  if (moved.recipient_guarded === true) {
    const key = {
      accountId: moved.account_id,
      mode: moved.mode ?? 'live',
      product: moved.product as NewTransaction['product'],
      recipient: moved.recipient,
      faceValueKobo: readKobo(moved.face_value_kobo, 'transactions.face_value_kobo'),
    };
    await c.last.deleteOne({ _id: lastId(key), reference: moved._id }, { session });
  }
  if (moved.recipient_day === undefined) return;
  const charged = readInteger(moved.charged_kobo, 'transactions.charged_kobo');
  const target = { accountId: moved.account_id, mode: moved.mode ?? 'live', recipient: moved.recipient };
  await c.days.updateOne(
    { _id: dayId(target, moved.recipient_day) },
    [
      {
        $set: {
          count: { $max: [0, { $subtract: ['$count', 1] }] },
          spent_kobo: { $max: [0, { $subtract: ['$spent_kobo', Long.fromNumber(charged)] }] },
        },
      },
    ],
    { session },
  );
}

export function createRecipientStore(ctx: MongoContext): RecipientStore {
  return {
    async block(block) {
      const c = collections(ctx);
      await ctx.inTransaction(async (session) => {
        await c.blocks.updateOne(
          { _id: blockId(block.accountId, block.value) },
          {
            $set: { reason: block.reason, by: block.by },
            $setOnInsert: { account_id: block.accountId, value: block.value, created_at: toDate(block.at, 'at') },
          },
          { session, upsert: true },
        );
        if (block.accountId !== '') {
          // The first block of an account starts its controls with nothing else on.
          await ctx.live().accounts.updateOne(
            { _id: block.accountId, recipient_controls: { $exists: false } },
            {
              $set: {
                recipient_controls: {
                  blocklist: true,
                  per_day_count: 0,
                  per_day_kobo: Long.ZERO,
                  duplicate_guard: false,
                },
              },
            },
            { session },
          );
          await ctx
            .live()
            .accounts.updateOne(
              { _id: block.accountId },
              { $set: { 'recipient_controls.blocklist': true } },
              { session },
            );
        }
      });
    },
    async unblock(accountId, value) {
      const result = await collections(ctx).blocks.deleteOne({ _id: blockId(accountId, value) });
      return result.deletedCount > 0;
    },
    async listBlocks(accountId, limit) {
      requireLimit(limit);
      const docs = await collections(ctx)
        .blocks.find({ account_id: accountId })
        .sort({ created_at: -1, value: 1 })
        .limit(limit)
        .toArray();
      return docs.map((d) => ({
        accountId: d.account_id,
        value: d.value,
        reason: d.reason,
        by: d.by,
        at: d.created_at,
      }));
    },
    async platformValues(limit) {
      const docs = await collections(ctx).blocks.find({ account_id: '' }).limit(limit).toArray();
      return docs.map((d) => d.value);
    },
    async setLimits(accountId, limits) {
      const doc = await ctx.live().accounts.findOneAndUpdate(
        { _id: accountId },
        {
          $set: {
            'recipient_controls.per_day_count': limits.perDayCount,
            'recipient_controls.per_day_kobo': toLong(limits.perDayKobo, 'perDayKobo'),
            'recipient_controls.duplicate_guard': limits.duplicateGuard,
          },
        },
        { returnDocument: 'after' },
      );
      return doc === null ? null : accountFromDoc(doc);
    },
  };
}
