/**
 * What key pairs do, kept in the background, on MongoDB: when each last authenticated a request
 * (one document per key that has), and what the velocity brake counted of each per Lagos day
 * (one document per key and day, keyed "<public key> <day>").
 */
import type { KeyUseStore } from '../port.js';
import { KEY_VELOCITY_COLLECTION } from './collections.js';
import type { MongoContext } from './context.js';
import { readInteger, readKobo, type StoredInteger, toLong } from './documents.js';
import { KEY_USE_COLLECTION } from './schema.js';

interface KeyVelocityDoc {
  /** "<public key> <Lagos day>". */
  _id: string;
  public_key: string;
  day: number;
  spent_kobo: StoredInteger;
  peak_new_recipients: number;
}

interface KeyUseDoc {
  /** The public key. */
  _id: string;
  last_used_at: Date;
}

export function createKeyUseStore(ctx: MongoContext): KeyUseStore {
  const uses = ctx.db.collection<KeyUseDoc>(KEY_USE_COLLECTION);
  const velocity = ctx.db.collection<KeyVelocityDoc>(KEY_VELOCITY_COLLECTION);
  return {
    async recordVelocity(days) {
      if (days.length === 0) return;
      ctx.live();
      // $inc adds and $max only moves the peak up, so cores writing the same day add up.
      await velocity.bulkWrite(
        days.map((d) => ({
          updateOne: {
            filter: { _id: `${d.publicKey} ${d.day}` },
            update: {
              $setOnInsert: { public_key: d.publicKey, day: d.day },
              $inc: { spent_kobo: toLong(d.addKobo, 'addKobo') },
              $max: { peak_new_recipients: d.peakNewRecipients },
            },
            upsert: true,
          },
        })),
        { ordered: false },
      );
    },
    async velocityDays(publicKey, fromDay, toDay) {
      ctx.live();
      const docs = await velocity
        .find({ public_key: publicKey, day: { $gte: fromDay, $lt: toDay } })
        .sort({ day: 1 })
        .toArray();
      return docs.map((doc) => ({
        day: readInteger(doc.day, 'key_velocity_days.day'),
        spentKobo: readKobo(doc.spent_kobo, 'key_velocity_days.spent_kobo'),
        peakNewRecipients: readInteger(doc.peak_new_recipients, 'key_velocity_days.peak_new_recipients'),
      }));
    },
    async recordUses(found) {
      if (found.size === 0) return;
      ctx.live();
      // $max only ever moves a time forward, so two cores flushing at once agree; an upsert
      // that races another on _id is retried by the server.
      await uses.bulkWrite(
        [...found].map(([publicKey, at]) => ({
          updateOne: { filter: { _id: publicKey }, update: { $max: { last_used_at: at } }, upsert: true },
        })),
        { ordered: false },
      );
    },
    async lastUses(publicKeys) {
      if (publicKeys.length === 0) return new Map();
      ctx.live();
      const docs = await uses.find({ _id: { $in: [...publicKeys] } }).toArray();
      return new Map(docs.map((doc) => [doc._id, doc.last_used_at]));
    },
  };
}
