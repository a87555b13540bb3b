/**
 * Sign-ups on MongoDB (schema step 32): the person, the account and its owner membership made
 * in one transaction with the sign-up's document (_id: the account id), and the account's
 * email_verified_at and phone_verified_at set in the transaction that uses the link or the code.
 * Nothing here moves money.
 */

import { type ClientSession, type Collection, type Document, Long, MongoServerError } from 'mongodb';
import { SIGN_UP_LEVEL } from '../../domain/levels.js';
import { LAGOS_OFFSET_MS } from '../../domain/people.js';
import type { AccountRecord, SignUpRecord } from '../../domain/records.js';
import type { NewSignUp, SignUpDayRow, SignUpStore } from '../port.js';
import { MEMBERSHIPS_COLLECTION, PEOPLE_COLLECTIONS, SIGN_UPS_COLLECTION } from './collections.js';
import type { MongoContext } from './context.js';
import { type AccountDoc, accountFromDoc } from './documents.js';
import { DUPLICATE_KEY_CODE } from './errors.js';
import { membershipId, type UserDoc, userToDoc } from './users.js';

interface SignUpDoc {
  _id: string;
  user_id: string;
  phone: string;
  address_key: string;
  email_domain: string;
  created_at: Date;
  email_token_hash: string | null;
  email_token_expires_at: Date | null;
  phone_code_hash: string | null;
  phone_code_expires_at: Date | null;
  phone_code_tries: number;
  phone_code_sent_at: Date | null;
  phone_code_day: number | null;
  phone_codes_today: number;
}

function signUpFromDoc(doc: SignUpDoc): SignUpRecord {
  return {
    accountId: doc._id,
    userId: doc.user_id,
    phone: doc.phone,
    addressKey: doc.address_key,
    emailDomain: doc.email_domain,
    createdAt: doc.created_at,
    emailTokenHash: doc.email_token_hash,
    emailTokenExpiresAt: doc.email_token_expires_at,
    phoneCodeHash: doc.phone_code_hash,
    phoneCodeExpiresAt: doc.phone_code_expires_at,
    phoneCodeTries: doc.phone_code_tries,
    phoneCodeSentAt: doc.phone_code_sent_at,
    phoneCodesToday: doc.phone_codes_today,
  };
}

const DAY_MS = 86_400_000;

/** The email is a person's already: nothing is written. */
class EmailTaken extends Error {}

/** Sets one proof on the account, keeping an earlier one; the account after. */
async function prove(
  accounts: Collection<AccountDoc>,
  accountId: string,
  field: 'email_verified_at' | 'phone_verified_at',
  at: Date,
  session: ClientSession,
): Promise<AccountRecord | null> {
  await accounts.updateOne({ _id: accountId, [field]: null }, { $set: { [field]: at } }, { session });
  const doc = await accounts.findOne({ _id: accountId }, { session });
  return doc === null ? null : accountFromDoc(doc);
}

/** The funnel per Lagos day of sign-up: each sign-up joined with its account, tier, a live credit and a live sale. */
function funnelPipeline(from: Date, until: Date): Document[] {
  const exists = (collection: string, match: Document) => ({
    $lookup: {
      from: collection,
      let: { id: '$_id' },
      pipeline: [
        { $match: { $expr: { $eq: ['$account_id', '$$id'] }, ...match } },
        { $limit: 1 },
        { $project: { _id: 1 } },
      ],
      as: collection,
    },
  });
  return [
    { $match: { created_at: { $gte: from, $lt: until } } },
    { $lookup: { from: 'accounts', localField: '_id', foreignField: '_id', as: 'account' } },
    { $unwind: '$account' },
    { $lookup: { from: 'tiers', localField: 'account.tier_id', foreignField: '_id', as: 'tier' } },
    // Entries and purchases written before test mode have no mode: they are live.
    exists('ledger_entries', { kind: 'credit', mode: { $ne: 'test' } }),
    exists('transactions', { status: 'success', mode: { $ne: 'test' } }),
    {
      $group: {
        _id: { $floor: { $divide: [{ $add: [{ $toLong: '$created_at' }, LAGOS_OFFSET_MS] }, DAY_MS] } },
        signedUp: { $sum: 1 },
        emailVerified: { $sum: { $cond: [{ $ifNull: ['$account.email_verified_at', false] }, 1, 0] } },
        phoneVerified: { $sum: { $cond: [{ $ifNull: ['$account.phone_verified_at', false] }, 1, 0] } },
        funded: { $sum: { $cond: [{ $gt: [{ $size: '$ledger_entries' }, 0] }, 1, 0] } },
        purchased: { $sum: { $cond: [{ $gt: [{ $size: '$transactions' }, 0] }, 1, 0] } },
        // An account without kyc_level is at level 3 (schema step 35).
        level2: { $sum: { $cond: [{ $gte: [{ $ifNull: ['$account.kyc_level', 3] }, 2] }, 1, 0] } },
        apiTier: { $sum: { $cond: [{ $eq: [{ $first: '$tier.api_access' }, true] }, 1, 0] } },
      },
    },
    { $sort: { _id: 1 } },
  ];
}

/** The person, the account, the owner's membership and the sign-up, in one transaction. */
async function insertSignUp(
  ctx: MongoContext,
  { user, account, signUp }: NewSignUp,
): Promise<'created' | 'email_taken'> {
  const signUps = ctx.db.collection<SignUpDoc>(SIGN_UPS_COLLECTION);
  const users = ctx.db.collection<UserDoc>(PEOPLE_COLLECTIONS.users);
  const memberships = ctx.db.collection<{ _id: string } & Document>(MEMBERSHIPS_COLLECTION);
  const { accounts } = ctx.live();
  try {
    return await ctx.inTransaction(async (session) => {
      if ((await users.findOne({ email: user.email }, { session })) !== null) throw new EmailTaken();
      await accounts.insertOne(
        {
          _id: account.accountId,
          name: account.name,
          tier_id: account.tierId,
          balance_kobo: Long.ZERO,
          test_balance_kobo: Long.ZERO,
          ledger_seq: Long.ZERO,
          created_at: account.createdAt,
          email_verified_at: null,
          phone_verified_at: null,
          kyc_level: SIGN_UP_LEVEL,
        },
        { session },
      );
      // The users collection's unique email index stops a second person of the email in a race.
      await users.insertOne(userToDoc(user), { session });
      await memberships.insertOne(
        {
          _id: membershipId(user.userId, account.accountId),
          user_id: user.userId,
          account_id: account.accountId,
          role: 'owner',
          disabled: false,
          created_at: account.createdAt,
        },
        { session },
      );
      await signUps.insertOne(
        {
          _id: signUp.accountId,
          user_id: signUp.userId,
          phone: signUp.phone,
          address_key: signUp.addressKey,
          email_domain: signUp.emailDomain,
          created_at: signUp.createdAt,
          email_token_hash: signUp.emailTokenHash,
          email_token_expires_at: signUp.emailTokenExpiresAt,
          phone_code_hash: signUp.phoneCodeHash,
          phone_code_expires_at: signUp.phoneCodeExpiresAt,
          phone_code_tries: signUp.phoneCodeTries,
          phone_code_sent_at: signUp.phoneCodeSentAt,
          phone_code_day: null,
          phone_codes_today: signUp.phoneCodesToday,
        },
        { session },
      );
      return 'created' as const;
    });
  } catch (error) {
    if (error instanceof EmailTaken) return 'email_taken';
    if (error instanceof MongoServerError && error.code === DUPLICATE_KEY_CODE) return 'email_taken';
    throw error;
  }
}

export function createSignUpStore(ctx: MongoContext): SignUpStore {
  const signUps = ctx.db.collection<SignUpDoc>(SIGN_UPS_COLLECTION);
  const live = () => ctx.live();
  return {
    create: (signUp) => insertSignUp(ctx, signUp),
    async get(accountId) {
      live();
      const doc = await signUps.findOne({ _id: accountId });
      return doc === null ? null : signUpFromDoc(doc);
    },
    async unverifiedFrom(addressKey, since) {
      live();
      const [row] = await signUps
        .aggregate<{ n: number }>([
          { $match: { address_key: addressKey, created_at: { $gte: since } } },
          { $lookup: { from: 'accounts', localField: '_id', foreignField: '_id', as: 'account' } },
          { $unwind: '$account' },
          { $match: { $or: [{ 'account.email_verified_at': null }, { 'account.phone_verified_at': null }] } },
          { $count: 'n' },
        ])
        .toArray();
      return row?.n ?? 0;
    },
    async setEmailLink(accountId, tokenHash, expiresAt) {
      live();
      const result = await signUps.updateOne(
        { _id: accountId },
        { $set: { email_token_hash: tokenHash, email_token_expires_at: expiresAt } },
      );
      return result.matchedCount > 0;
    },
    async claimEmailLink(tokenHash, at) {
      const { accounts } = live();
      return ctx.inTransaction(async (session) => {
        const used = await signUps.findOneAndUpdate(
          { email_token_hash: tokenHash, email_token_expires_at: { $gt: at } },
          { $set: { email_token_hash: null, email_token_expires_at: null } },
          { session },
        );
        return used === null ? null : prove(accounts, used._id, 'email_verified_at', at, session);
      });
    },
    async setPhoneCode(accountId, code) {
      live();
      // A pipeline update: the day's count restarts at one on a new Lagos day, in the same write.
      const result = await signUps.updateOne({ _id: accountId }, [
        {
          $set: {
            phone_code_hash: code.hash,
            phone_code_expires_at: code.expiresAt,
            phone_code_tries: 0,
            phone_code_sent_at: code.sentAt,
            phone_codes_today: {
              $cond: [{ $eq: ['$phone_code_day', code.day] }, { $add: ['$phone_codes_today', 1] }, 1],
            },
            phone_code_day: code.day,
          },
        },
      ]);
      return result.matchedCount > 0;
    },
    async phoneCodeMissed(accountId) {
      live();
      const doc = await signUps.findOneAndUpdate(
        { _id: accountId },
        { $inc: { phone_code_tries: 1 } },
        { returnDocument: 'after' },
      );
      return doc?.phone_code_tries ?? 0;
    },
    async claimPhoneCode(accountId, codeHash, maxTries, at) {
      const { accounts } = live();
      return ctx.inTransaction(async (session) => {
        const used = await signUps.findOneAndUpdate(
          {
            _id: accountId,
            phone_code_hash: codeHash,
            phone_code_tries: { $lt: maxTries },
            phone_code_expires_at: { $gt: at },
          },
          { $set: { phone_code_hash: null, phone_code_expires_at: null } },
          { session },
        );
        return used === null ? null : prove(accounts, accountId, 'phone_verified_at', at, session);
      });
    },
    async funnel(fromDay, toDay) {
      live();
      const from = new Date(fromDay * DAY_MS - LAGOS_OFFSET_MS);
      const until = new Date((toDay + 1) * DAY_MS - LAGOS_OFFSET_MS);
      const rows = await signUps
        .aggregate<Omit<SignUpDayRow, 'day'> & { _id: number }>(funnelPipeline(from, until))
        .toArray();
      return rows.map(({ _id, ...counts }) => ({ day: Number(_id), ...counts }));
    },
  };
}
