/**
 * Key caps on MongoDB, inside a reserve's or a refund's transaction (spend counts as the
 * SQLite adapter's spend.ts does). Two reserves of one capped key on one day both write its
 * day's document, so the later one conflicts and is re-run by the driver on a fresh
 * snapshot: no day's cap is passed by concurrent purchases. Nothing here runs for a purchase
 * without a capped key.
 */
import { type ClientSession, Long } from 'mongodb';
import { type CapRefusal, capRefusalOf, hasSpendCaps } from '../../domain/key-controls.js';
import { kobo } from '../../domain/money.js';
import { lagosDay } from '../../domain/people.js';
import type { NewTransaction } from '../../domain/records.js';
import { KEY_DAY_SPEND_COLLECTION } from './collections.js';
import type { MongoContext } from './context.js';
import { keyControlsFromDoc, readInteger, readKobo, type StoredInteger, toLong } from './documents.js';

interface KeyDaySpendDoc {
  /** "<public key> <Lagos day>". */
  _id: string;
  public_key: string;
  day: number;
  spent_kobo: StoredInteger;
}

function spendDays(ctx: MongoContext) {
  ctx.live();
  return ctx.db.collection<KeyDaySpendDoc>(KEY_DAY_SPEND_COLLECTION);
}

const dayId = (publicKey: string, day: number) => `${publicKey} ${day}`;

/**
 * What the key's caps say of this purchase (as the SQLite adapter's capCheck): its refusal,
 * 'count', or 'uncapped' for a key that is not the account's or has no caps.
 */
export async function capCheckIn(
  ctx: MongoContext,
  session: ClientSession,
  publicKey: string,
  tx: NewTransaction,
): Promise<CapRefusal | 'count' | 'uncapped'> {
  const key = await ctx.live().apiKeys.findOne({ _id: publicKey, account_id: tx.accountId }, { session });
  if (key === null || key.controls === undefined) return 'uncapped';
  const controls = keyControlsFromDoc(key.controls);
  if (!hasSpendCaps(controls)) return 'uncapped';
  // Read before the rule runs (it is synchronous), only when the key has a day's cap.
  let spent = kobo(0);
  if (controls.capPerDayKobo > 0) {
    const day = await spendDays(ctx).findOne({ _id: dayId(publicKey, lagosDay(tx.createdAt)) }, { session });
    if (day !== null) spent = readKobo(day.spent_kobo, 'key_day_spend.spent_kobo');
  }
  return capRefusalOf(controls, tx.chargedKobo, () => spent) ?? 'count';
}

/** Counts a reserved purchase against its key's day. */
export async function countSpendIn(
  ctx: MongoContext,
  session: ClientSession,
  publicKey: string,
  tx: NewTransaction,
): Promise<void> {
  const day = lagosDay(tx.createdAt);
  await spendDays(ctx).updateOne(
    { _id: dayId(publicKey, day) },
    {
      $inc: { spent_kobo: toLong(tx.chargedKobo, 'chargedKobo') },
      $setOnInsert: { public_key: publicKey, day },
    },
    { session, upsert: true },
  );
}

/** Gives a refunded purchase's charge back to the day of its key it was counted on. */
export async function giveBackSpendIn(
  ctx: MongoContext,
  session: ClientSession,
  moved: { spend_key?: string; created_at: Date; charged_kobo: StoredInteger },
): Promise<void> {
  if (moved.spend_key === undefined) return;
  const charged = readInteger(moved.charged_kobo, 'transactions.charged_kobo');
  // Never below zero: a day's document made by hand cannot be taken negative by a refund.
  await spendDays(ctx).updateOne(
    { _id: dayId(moved.spend_key, lagosDay(moved.created_at)) },
    [{ $set: { spent_kobo: { $max: [0, { $subtract: ['$spent_kobo', Long.fromNumber(charged)] }] } } }],
    { session },
  );
}

/** What each key's capped purchases charged on `day`. */
export async function spentOnDay(
  ctx: MongoContext,
  publicKeys: readonly string[],
  day: number,
): Promise<Map<string, ReturnType<typeof readKobo>>> {
  if (publicKeys.length === 0) return new Map();
  const docs = await spendDays(ctx)
    .find({ _id: { $in: publicKeys.map((k) => dayId(k, day)) } })
    .toArray();
  return new Map(docs.map((d) => [d.public_key, readKobo(d.spent_kobo, 'key_day_spend.spent_kobo')]));
}
