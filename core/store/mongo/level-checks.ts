/**
 * The identity levels' checks inside MongoDB's money transactions (docs/kyc.md), as on SQLite
 * (sqlite/levels.ts). Concurrency holds because every check reads the account's document in the
 * transaction's snapshot and every move that passes it writes that document (the credit's
 * inflow count, the reserve's debit): two moves of one wallet conflict there, and the later one
 * re-runs on a fresh snapshot. The level change and the store are levels.ts.
 */
import type { ClientSession } from 'mongodb';
import {
  creditRoom,
  DEFAULT_LEVEL_LIMITS,
  type HoldRecord,
  type Level,
  type LevelLimits,
  type LevelRequestRecord,
  OPERATOR_LEVEL,
  type SpendRefusal,
  spendRefusal,
} from '../../domain/levels.js';
import { lagosDay, lagosDayStart } from '../../domain/people.js';
import type { NewTransaction } from '../../domain/records.js';
import { REFUNDED_STATUSES } from '../../domain/transactions.js';
import { KYC_COLLECTIONS } from './collections.js';
import type { MongoContext } from './context.js';
import { type AccountDoc, readKobo, type StoredInteger, toLong } from './documents.js';

export interface LevelDoc {
  _id: number;
  max_balance_kobo: StoredInteger | null;
  max_inflow_kobo: StoredInteger | null;
  max_daily_spend_kobo: StoredInteger | null;
  updated_at: Date;
}

export interface HoldDoc {
  _id: string;
  account_id: string;
  provider: string;
  amount_kobo: StoredInteger;
  status: 'held' | 'released' | 'returned';
  created_at: Date;
  updated_at: Date;
}

export interface RequestDoc {
  _id: string;
  account_id: string;
  level: number;
  kind: string;
  number_last4: string;
  number_hash: string;
  document_reference: string;
  requested_by: string;
  status: 'pending' | 'approved' | 'refused';
  created_at: Date;
  decided_at: Date | null;
  decided_by: string | null;
  note: string;
}

const limitOf = (value: StoredInteger | null | undefined, field: string) =>
  value === null || value === undefined ? null : readKobo(value, field);

export function limitsFromDoc(doc: LevelDoc): LevelLimits {
  return {
    level: doc._id as Level,
    maxBalanceKobo: limitOf(doc.max_balance_kobo, 'max_balance_kobo'),
    maxInflowKobo: limitOf(doc.max_inflow_kobo, 'max_inflow_kobo'),
    maxDailySpendKobo: limitOf(doc.max_daily_spend_kobo, 'max_daily_spend_kobo'),
  };
}

/** A level's document as step 35 seeds it. */
export function levelToDoc(limits: LevelLimits, at: Date): LevelDoc {
  const long = (value: number | null, field: string) => (value === null ? null : toLong(value, field));
  return {
    _id: limits.level,
    max_balance_kobo: long(limits.maxBalanceKobo, 'maxBalanceKobo'),
    max_inflow_kobo: long(limits.maxInflowKobo, 'maxInflowKobo'),
    max_daily_spend_kobo: long(limits.maxDailySpendKobo, 'maxDailySpendKobo'),
    updated_at: at,
  };
}

export function holdFromDoc(doc: HoldDoc): HoldRecord {
  return {
    inflowId: doc._id,
    accountId: doc.account_id,
    provider: doc.provider,
    amountKobo: readKobo(doc.amount_kobo, 'kyc_holds.amount_kobo'),
    status: doc.status,
    createdAt: doc.created_at,
    updatedAt: doc.updated_at,
  };
}

export function requestFromDoc(doc: RequestDoc): LevelRequestRecord {
  return {
    requestId: doc._id,
    accountId: doc.account_id,
    level: doc.level as Level,
    kind: doc.kind as LevelRequestRecord['kind'],
    numberLast4: doc.number_last4,
    numberHash: doc.number_hash,
    documentReference: doc.document_reference,
    requestedBy: doc.requested_by,
    status: doc.status,
    createdAt: doc.created_at,
    decidedAt: doc.decided_at,
    decidedBy: doc.decided_by,
    note: doc.note,
  };
}

export function kyc(ctx: MongoContext) {
  ctx.live();
  return {
    levels: ctx.db.collection<LevelDoc>(KYC_COLLECTIONS.levels),
    holds: ctx.db.collection<HoldDoc>(KYC_COLLECTIONS.holds),
    requests: ctx.db.collection<RequestDoc>(KYC_COLLECTIONS.requests),
  };
}

export const levelOfDoc = (doc: AccountDoc): Level => (doc.kyc_level ?? OPERATOR_LEVEL) as Level;
export const inflowOfDoc = (doc: AccountDoc) => readKobo(doc.kyc_inflow_kobo ?? 0, 'accounts.kyc_inflow_kobo');

async function limitsIn(ctx: MongoContext, session: ClientSession, level: Level): Promise<LevelLimits> {
  const doc = await kyc(ctx).levels.findOne({ _id: level }, { session });
  return doc === null ? DEFAULT_LEVEL_LIMITS.find((l) => l.level === level)! : limitsFromDoc(doc);
}

/** A live funding credit split by the wallet's level, read in the transaction's snapshot; null without the account. */
export async function splitCreditIn(
  ctx: MongoContext,
  session: ClientSession,
  accountId: string,
  amountKobo: number,
): Promise<{ creditKobo: number; heldKobo: number } | null> {
  const account = await ctx.live().accounts.findOne({ _id: accountId }, { session });
  if (account === null) return null;
  const limits = await limitsIn(ctx, session, levelOfDoc(account));
  const balance = readKobo(account.balance_kobo, 'accounts.balance_kobo');
  const creditKobo = creditRoom(limits, balance, inflowOfDoc(account), amountKobo);
  return { creditKobo, heldKobo: amountKobo - creditKobo };
}

/**
 * Counts what reached the live wallet and keeps what was held. The count writes the account's
 * document even for nothing credited, so a concurrent credit of the wallet conflicts with it.
 */
export async function keepSplitIn(
  ctx: MongoContext,
  session: ClientSession,
  hold: { inflowId: string; accountId: string; provider: string; at: Date },
  split: { creditKobo: number; heldKobo: number },
): Promise<void> {
  await ctx
    .live()
    .accounts.updateOne(
      { _id: hold.accountId },
      { $inc: { kyc_inflow_kobo: toLong(split.creditKobo, 'creditKobo') } },
      { session },
    );
  if (split.heldKobo > 0)
    await kyc(ctx).holds.insertOne(
      {
        _id: hold.inflowId,
        account_id: hold.accountId,
        provider: hold.provider,
        amount_kobo: toLong(split.heldKobo, 'heldKobo'),
        status: 'held',
        created_at: hold.at,
        updated_at: hold.at,
      },
      { session },
    );
}

/** What of an inflow was held, for the answer found again after an unknown commit. */
export async function heldOfInflow(ctx: MongoContext, session: ClientSession, inflowId: string): Promise<number> {
  const doc = await kyc(ctx).holds.findOne({ _id: inflowId }, { session });
  return doc === null ? 0 : readKobo(doc.amount_kobo, 'kyc_holds.amount_kobo');
}

/** Whether a live purchase passes its account's daily spend limit, read in the reserve's transaction. */
export async function levelSpendCheckIn(
  ctx: MongoContext,
  session: ClientSession,
  tx: NewTransaction,
): Promise<SpendRefusal | null> {
  if (tx.mode !== 'live') return null;
  const c = ctx.live();
  const account = await c.accounts.findOne({ _id: tx.accountId }, { session, projection: { kyc_level: 1 } });
  if (account === null) return null;
  const limits = await limitsIn(ctx, session, levelOfDoc(account as AccountDoc));
  if (limits.maxDailySpendKobo === null) return null;
  const day = lagosDay(tx.createdAt);
  // transactions_history_by_mode (account_id, mode, created_at, _id) holds the day's range.
  const [sum] = await c.transactions
    .aggregate<{ spent: StoredInteger }>(
      [
        {
          $match: {
            account_id: tx.accountId,
            mode: 'live',
            created_at: { $gte: lagosDayStart(day), $lt: lagosDayStart(day + 1) },
            status: { $nin: [...REFUNDED_STATUSES] },
          },
        },
        { $group: { _id: null, spent: { $sum: '$charged_kobo' } } },
      ],
      { session },
    )
    .toArray();
  const spent = sum === undefined ? 0 : readKobo(sum.spent, 'spent');
  return spendRefusal(limits.maxDailySpendKobo, spent, tx.chargedKobo);
}
