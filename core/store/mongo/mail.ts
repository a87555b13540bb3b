/** Password reset links and the notices already mailed, on MongoDB. */
import { type Collection, MongoServerError } from 'mongodb';
import type { HolderMailKind } from '../../domain/holder-mail.js';
import type { PasswordResetRecord } from '../../domain/records.js';
import { requireLimit } from '../bounds.js';
import type { NoticeStore, PasswordResetStore } from '../port.js';
import { MAIL_COLLECTIONS, MAIL_OPT_OUTS_COLLECTION } from './collections.js';
import type { MongoContext } from './context.js';
import { DUPLICATE_KEY_CODE } from './errors.js';
import { eventCollections, eventFromDoc } from './events.js';

interface ResetDoc {
  /** The token's SHA-256. */
  _id: string;
  user_id: string;
  created_at: Date;
  /** A TTL index (step 15) removes the document a day after this. */
  expires_at: Date;
  used_at: Date | null;
}

interface NoticeDoc {
  /** What was mailed, such as `low_balance:<event id>`. */
  _id: string;
  sent_at: Date;
}

function resetFromDoc(doc: ResetDoc): PasswordResetRecord {
  return {
    tokenHash: doc._id,
    userId: doc.user_id,
    createdAt: doc.created_at,
    expiresAt: doc.expires_at,
    usedAt: doc.used_at,
  };
}

export function createPasswordResetStore(ctx: MongoContext): PasswordResetStore {
  const resets = (): Collection<ResetDoc> => {
    ctx.live();
    return ctx.db.collection<ResetDoc>(MAIL_COLLECTIONS.passwordResets);
  };
  return {
    async insert(reset) {
      await resets().insertOne({
        _id: reset.tokenHash,
        user_id: reset.userId,
        created_at: reset.createdAt,
        expires_at: reset.expiresAt,
        used_at: reset.usedAt,
      });
    },
    async find(tokenHash) {
      const doc = await resets().findOne({ _id: tokenHash });
      return doc === null ? null : resetFromDoc(doc);
    },
    async claim(tokenHash, at) {
      const collection = resets();
      return ctx.inTransaction(async (session) => {
        // The filter is the claim: of two requests with one link, only one finds it unused.
        const before = await collection.findOneAndUpdate(
          { _id: tokenHash, used_at: null, expires_at: { $gt: at } },
          { $set: { used_at: at } },
          { session, returnDocument: 'before' },
        );
        if (before === null) return null;
        await collection.updateMany({ user_id: before.user_id, used_at: null }, { $set: { used_at: at } }, { session });
        return resetFromDoc(before);
      });
    },
  };
}

interface OptOutDoc {
  /** The user id. */
  _id: string;
  off: HolderMailKind[];
  at: Date;
}

export function createNoticeStore(ctx: MongoContext): NoticeStore {
  const optOuts = (): Collection<OptOutDoc> => {
    ctx.live();
    return ctx.db.collection<OptOutDoc>(MAIL_OPT_OUTS_COLLECTION);
  };
  return {
    async walletMoneySince(since, limit) {
      requireLimit(limit);
      const docs = await eventCollections(ctx)
        .events.find({
          type: { $in: ['wallet.credited', 'wallet.debited'] },
          mode: 'live',
          created_at: { $gte: since },
        })
        .sort({ created_at: 1, _id: 1 })
        .limit(limit)
        .toArray();
      return docs.map(eventFromDoc);
    },
    async mailOptOuts(userIds) {
      const docs = await optOuts()
        .find({ _id: { $in: [...new Set(userIds)] } })
        .toArray();
      return new Map(docs.filter((doc) => doc.off.length > 0).map((doc) => [doc._id, doc.off]));
    },
    async setMailOptOuts(userId, off, at) {
      await optOuts().updateOne({ _id: userId }, { $set: { off: [...new Set(off)], at } }, { upsert: true });
    },
    async lowBalanceSince(since, limit) {
      requireLimit(limit);
      const docs = await eventCollections(ctx)
        .events.find({ type: 'wallet.low_balance', mode: 'live', created_at: { $gte: since } })
        .sort({ created_at: 1, _id: 1 })
        .limit(limit)
        .toArray();
      return docs.map(eventFromDoc);
    },
    async claimOnce(key, at) {
      ctx.live();
      try {
        await ctx.db.collection<NoticeDoc>(MAIL_COLLECTIONS.noticesSent).insertOne({ _id: key, sent_at: at });
        return true;
      } catch (error) {
        if (error instanceof MongoServerError && error.code === DUPLICATE_KEY_CODE) return false;
        throw error;
      }
    },
  };
}
