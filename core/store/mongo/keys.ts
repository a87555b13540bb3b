/** API keys on MongoDB: one document per key pair, keyed by the public key. */
import { requireLimit } from '../bounds.js';
import { type FreezeChange, freezeApplies, freezeRecords } from '../key-freezes.js';
import type { KeyFreezeActor, KeyFreezeChange, KeyStore } from '../port.js';
import { appendAuditIn, auditDocOf } from './audit-log.js';
import { bounded, MAX_LIST_ITEMS, type MongoContext } from './context.js';
import { apiKeyFromDoc, apiKeyToDoc, keyControlsToDoc, keyFreezeToDoc, toDate } from './documents.js';
import { deliversTo, writeEventIn } from './events.js';
import { spentOnDay } from './spend.js';

/**
 * A freeze or an unfreeze with its event and audit row, in one transaction. The key's
 * document is written in it, so two changes of one key at once conflict and the driver
 * re-runs the later one on a fresh snapshot, where it finds the key already changed.
 */
function changeFreeze(
  ctx: MongoContext,
  publicKey: string,
  asked: FreezeChange,
  who: KeyFreezeActor,
): Promise<KeyFreezeChange | null> {
  return ctx.inTransaction(async (session) => {
    const c = ctx.live();
    const doc = await c.apiKeys.findOne({ _id: publicKey }, { session });
    if (doc === null) return null;
    const before = apiKeyFromDoc(doc);
    if (!freezeApplies(before, asked)) return { key: before, changed: false };
    const { event, audit } = freezeRecords(before, asked, who);
    const updated = await c.apiKeys.findOneAndUpdate(
      { _id: publicKey },
      asked.kind === 'freeze' ? { $set: { frozen: keyFreezeToDoc(asked.freeze) } } : { $unset: { frozen: '' } },
      { session, returnDocument: 'after' },
    );
    if (updated === null) return null;
    await writeEventIn(ctx, session, event, await deliversTo(ctx, session, before.accountId, before.mode));
    await appendAuditIn(ctx, session, auditDocOf(audit));
    return { key: apiKeyFromDoc(updated), changed: true };
  });
}

export function createKeyStore(ctx: MongoContext): KeyStore {
  const { live } = ctx;
  return {
    async insert(key) {
      await live().apiKeys.insertOne(apiKeyToDoc(key));
    },
    async find(publicKey) {
      const doc = await live().apiKeys.findOne({ _id: publicKey });
      return doc === null ? null : apiKeyFromDoc(doc);
    },
    async findByPrefix(prefix, limit) {
      requireLimit(limit);
      if (prefix === '') return [];
      // A range on _id (the public key), not a regular expression: nothing in the prefix is a pattern.
      const docs = await live()
        .apiKeys.find({ _id: { $gte: prefix, $lt: `${prefix}\uffff` } })
        .sort({ _id: 1 })
        .limit(limit)
        .toArray();
      return docs.map(apiKeyFromDoc);
    },
    async listByAccount(accountId) {
      const docs = await live()
        .apiKeys.find({ account_id: accountId })
        .sort({ created_at: -1, _id: -1 })
        .limit(MAX_LIST_ITEMS + 1)
        .toArray();
      return bounded(docs, `keys of account ${accountId}`).map(apiKeyFromDoc);
    },
    async revoke(publicKey) {
      const doc = await live().apiKeys.findOneAndUpdate(
        { _id: publicKey },
        { $set: { revoked: true } },
        { returnDocument: 'after' },
      );
      return doc === null ? null : apiKeyFromDoc(doc);
    },
    async setAllowedIps(publicKey, ips) {
      const doc = await live().apiKeys.findOneAndUpdate(
        { _id: publicKey },
        { $set: { allowed_ips: [...ips] } },
        { returnDocument: 'after' },
      );
      return doc === null ? null : apiKeyFromDoc(doc);
    },
    async setControls(publicKey, controls) {
      const doc = await live().apiKeys.findOneAndUpdate(
        { _id: publicKey },
        controls === null ? { $unset: { controls: '' } } : { $set: { controls: keyControlsToDoc(controls) } },
        { returnDocument: 'after' },
      );
      return doc === null ? null : apiKeyFromDoc(doc);
    },
    spentOn: (publicKeys, day) => spentOnDay(ctx, publicKeys, day),
    freeze: (publicKey, freeze, who) => changeFreeze(ctx, publicKey, { kind: 'freeze', freeze }, who),
    unfreeze: (publicKey, unfreeze, who) => changeFreeze(ctx, publicKey, { kind: 'unfreeze', unfreeze }, who),
    async listFrozen(limit) {
      requireLimit(limit);
      // Served by the partial index api_keys_frozen (schema step 29).
      const docs = await live()
        .apiKeys.find({ frozen: { $exists: true } })
        .sort({ 'frozen.at': 1, _id: 1 })
        .limit(limit)
        .toArray();
      return docs.map(apiKeyFromDoc);
    },
    async roll(publicKey, next, oldExpiresAt) {
      const until = toDate(oldExpiresAt, 'oldExpiresAt');
      return ctx.inTransaction(async (session) => {
        const c = live();
        const old = await c.apiKeys.findOne({ _id: publicKey }, { session });
        if (old === null) return null;
        // An end already sooner stays (as the SQLite adapter's MIN).
        const ends = old.expires_at !== undefined && old.expires_at < until ? old.expires_at : until;
        const ended = await c.apiKeys.findOneAndUpdate(
          { _id: publicKey },
          { $set: { expires_at: ends } },
          { session, returnDocument: 'after' },
        );
        await c.apiKeys.insertOne(apiKeyToDoc(next), { session });
        return ended === null ? null : apiKeyFromDoc(ended);
      });
    },
  };
}
