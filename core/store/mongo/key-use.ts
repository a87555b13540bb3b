/** When each key pair last authenticated a request, on MongoDB: one document per key that has. */
import type { KeyUseStore } from '../port.js';
import type { MongoContext } from './context.js';
import { KEY_USE_COLLECTION } from './schema.js';

interface KeyUseDoc {
  /** The public key. */
  _id: string;
  last_used_at: Date;
}

export function createKeyUseStore(ctx: MongoContext): KeyUseStore {
  const uses = ctx.db.collection<KeyUseDoc>(KEY_USE_COLLECTION);
  return {
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
