/**
 * Compatible tokens and plan aliases on MongoDB (docs/compat.md). A token's _id is its id and
 * its hash has a unique index (step 33); a callback's _id is "<account> <dialect>" (step 34); an alias's _id is "<account> <dialect> <alias id>", so
 * each change is one atomic single-document operation. Nothing here moves money.
 */
import type { Collection } from 'mongodb';
import type { Dialect, InFlightWord } from '../../domain/compat.js';
import type { Mode } from '../../domain/mode.js';
import type { CompatCallbackRecord, CompatTokenRecord, PlanAliasRecord } from '../../domain/records.js';
import type { CompatStore } from '../port.js';
import { COMPAT_CALLBACKS_COLLECTION, COMPAT_COLLECTIONS } from './collections.js';
import type { MongoContext } from './context.js';

interface TokenDoc {
  _id: string;
  token_hash: string;
  last_four: string;
  dialect: string;
  in_flight: string;
  public_key: string;
  account_id: string;
  mode: string;
  created_at: Date;
  revoked_at: Date | null;
}

interface AliasDoc {
  _id: string;
  account_id: string;
  dialect: string;
  alias_id: string;
  plan_id: number;
  updated_at: Date;
}

function tokenOf(doc: TokenDoc): CompatTokenRecord {
  const record: CompatTokenRecord = {
    tokenId: doc._id,
    tokenHash: doc.token_hash,
    lastFour: doc.last_four,
    dialect: doc.dialect as Dialect,
    inFlight: doc.in_flight as InFlightWord,
    publicKey: doc.public_key,
    accountId: doc.account_id,
    mode: doc.mode as Mode,
    createdAt: doc.created_at,
  };
  if (doc.revoked_at !== null) record.revokedAt = doc.revoked_at;
  return record;
}

function aliasOf(doc: AliasDoc): PlanAliasRecord {
  return {
    accountId: doc.account_id,
    dialect: doc.dialect as Dialect,
    aliasId: doc.alias_id,
    // Numbers written from JavaScript come back as doubles (or Int32): a plan id is a safe integer.
    planId: Number(doc.plan_id),
    updatedAt: doc.updated_at,
  };
}

interface CallbackDoc {
  _id: string;
  account_id: string;
  dialect: string;
  url: string;
  updated_at: Date;
}

function callbackOf(doc: CallbackDoc): CompatCallbackRecord {
  return { accountId: doc.account_id, dialect: doc.dialect as Dialect, url: doc.url, updatedAt: doc.updated_at };
}

const aliasKey = (accountId: string, dialect: string, aliasId: string) => `${accountId} ${dialect} ${aliasId}`;

export function createCompatStore(ctx: MongoContext): CompatStore {
  const tokens = (): Collection<TokenDoc> => {
    ctx.live();
    return ctx.db.collection<TokenDoc>(COMPAT_COLLECTIONS.tokens);
  };
  const aliases = (): Collection<AliasDoc> => {
    ctx.live();
    return ctx.db.collection<AliasDoc>(COMPAT_COLLECTIONS.aliases);
  };
  const callbacks = (): Collection<CallbackDoc> => {
    ctx.live();
    return ctx.db.collection<CallbackDoc>(COMPAT_CALLBACKS_COLLECTION);
  };
  const callbackKey = (accountId: string, dialect: string) => `${accountId} ${dialect}`;
  return {
    async setCallback(record) {
      const before = await callbacks().findOneAndReplace(
        { _id: callbackKey(record.accountId, record.dialect) },
        { account_id: record.accountId, dialect: record.dialect, url: record.url, updated_at: record.updatedAt },
        { upsert: true, returnDocument: 'before' },
      );
      return before === null ? null : callbackOf(before);
    },
    async clearCallback(accountId, dialect) {
      const before = await callbacks().findOneAndDelete({ _id: callbackKey(accountId, dialect) });
      return before === null ? null : callbackOf(before);
    },
    async getCallback(accountId, dialect) {
      const doc = await callbacks().findOne({ _id: callbackKey(accountId, dialect) });
      return doc === null ? null : callbackOf(doc);
    },
    async insertToken(record) {
      await tokens().insertOne({
        _id: record.tokenId,
        token_hash: record.tokenHash,
        last_four: record.lastFour,
        dialect: record.dialect,
        in_flight: record.inFlight,
        public_key: record.publicKey,
        account_id: record.accountId,
        mode: record.mode,
        created_at: record.createdAt,
        revoked_at: record.revokedAt ?? null,
      });
    },
    async findToken(tokenHash) {
      const doc = await tokens().findOne({ token_hash: tokenHash });
      return doc === null ? null : tokenOf(doc);
    },
    async getToken(tokenId) {
      const doc = await tokens().findOne({ _id: tokenId });
      return doc === null ? null : tokenOf(doc);
    },
    async listTokens(accountId) {
      const docs = await tokens().find({ account_id: accountId }).sort({ created_at: -1, _id: -1 }).toArray();
      return docs.map(tokenOf);
    },
    async revokeToken(tokenId, at) {
      const doc = await tokens().findOneAndUpdate(
        { _id: tokenId, revoked_at: null },
        { $set: { revoked_at: at } },
        { returnDocument: 'after' },
      );
      return doc === null ? null : tokenOf(doc);
    },
    async setAlias(record) {
      const before = await aliases().findOneAndReplace(
        { _id: aliasKey(record.accountId, record.dialect, record.aliasId) },
        {
          account_id: record.accountId,
          dialect: record.dialect,
          alias_id: record.aliasId,
          plan_id: record.planId,
          updated_at: record.updatedAt,
        },
        { upsert: true, returnDocument: 'before' },
      );
      return before === null ? null : aliasOf(before);
    },
    async clearAliases(accountId, dialect, aliasId) {
      const filter =
        aliasId === undefined ? { account_id: accountId, dialect } : { _id: aliasKey(accountId, dialect, aliasId) };
      return (await aliases().deleteMany(filter)).deletedCount;
    },
    async listAliases(accountId, dialect) {
      const filter = dialect === undefined ? { account_id: accountId } : { account_id: accountId, dialect };
      return (await aliases().find(filter).sort({ dialect: 1, alias_id: 1 }).toArray()).map(aliasOf);
    },
  };
}
