/**
 * Money in on MongoDB: virtual accounts, inflows and low-balance thresholds. Crediting an
 * inflow is one transaction: the conditional status change of the inflow, the wallet's credit
 * and its ledger entry (wallet.ts addToWallet) and the `wallet.credited` event. The unique
 * index on (provider, provider_reference) is the exactly-once key; the conditional status
 * change (two credits of one inflow conflict on its document, and the later one is re-run on
 * a fresh snapshot where the status no longer matches) makes a second credit impossible.
 * Each money move of an inflow writes its entry in the books (books.ts) in its transaction:
 * its receipt when first recorded, its credit less the fee, its return when rejected.
 */
import { type ClientSession, type Collection, ObjectId } from 'mongodb';
import { inflowCreditedPostings, inflowReceivedPostings, inflowReturnedPostings } from '../../domain/books.js';
import { creditEvent, newEventId } from '../../domain/events.js';
import {
  creditNowTo,
  type FundingOpeningRecord,
  type FundingProviderName,
  type InflowRecord,
  type InflowStatus,
  type KycKind,
  type NewFundingOpening,
  type NewInflow,
  type VirtualAccountRecord,
} from '../../domain/funding.js';
import { type Kobo, kobo } from '../../domain/money.js';
import { requireAmount, requireLimit } from '../bounds.js';
import type { CreditInflowResult, FundingMoney, FundingStore } from '../port.js';
import { bookIn, entryIdOf, journalIds } from './books.js';
import { followUpRead, type MongoContext } from './context.js';
import { readKobo, readMode, type StoredInteger, toDate, toLong } from './documents.js';
import { isDuplicateKeyOn, isUnknownCommitResult } from './errors.js';
import { deliversTo, writeEventIn } from './events.js';
import { heldOfInflow, keepSplitIn, splitCreditIn } from './level-checks.js';
import { FUNDING_COLLECTIONS, FUNDING_OPENINGS_COLLECTION, INFLOW_REFERENCE_INDEX } from './schema.js';
import { addToWallet } from './wallet.js';

interface VirtualAccountDoc {
  /** provider:account_number */
  _id: string;
  provider: string;
  account_number: string;
  account_id: string;
  mode: string;
  bank_name: string;
  bank_code: string;
  account_name: string;
  provider_customer_ref: string;
  status: string;
  kyc_kind: string;
  kyc_last4: string;
  kyc_hash: string;
  created_at: Date;
}

interface InflowDoc {
  /** The inflow id. */
  _id: string;
  provider: string;
  provider_reference: string;
  account_number: string;
  account_id: string | null;
  mode: string;
  amount_paid_kobo: StoredInteger;
  fee_kobo: StoredInteger;
  credited_kobo: StoredInteger;
  payer_name: string;
  status: string;
  reason: string;
  raw: string;
  credit_reference: string;
  created_at: Date;
  updated_at: Date;
}

function virtualAccountFromDoc(doc: VirtualAccountDoc): VirtualAccountRecord {
  return {
    provider: doc.provider as FundingProviderName,
    accountNumber: doc.account_number,
    accountId: doc.account_id,
    mode: readMode(doc.mode, 'virtual_accounts.mode'),
    bankName: doc.bank_name,
    bankCode: doc.bank_code,
    accountName: doc.account_name,
    providerCustomerRef: doc.provider_customer_ref,
    status: doc.status as 'active' | 'closed',
    kycKind: doc.kyc_kind as KycKind,
    kycLast4: doc.kyc_last4,
    kycHash: doc.kyc_hash,
    createdAt: doc.created_at,
  };
}

interface OpeningDoc {
  /** provider:customer_ref */
  _id: string;
  provider: string;
  customer_ref: string;
  account_id: string;
  mode: string;
  kyc_kind: string;
  kyc_last4: string;
  kyc_hash: string;
  status: string;
  claimed_at: Date | null;
  created_at: Date;
  updated_at: Date;
}

function openingFromDoc(doc: OpeningDoc): FundingOpeningRecord {
  return {
    provider: doc.provider as FundingProviderName,
    customerRef: doc.customer_ref,
    accountId: doc.account_id,
    mode: readMode(doc.mode, 'funding_openings.mode'),
    kycKind: doc.kyc_kind as KycKind,
    kycLast4: doc.kyc_last4,
    kycHash: doc.kyc_hash,
    status: doc.status as FundingOpeningRecord['status'],
    claimedAt: doc.claimed_at,
    createdAt: doc.created_at,
    updatedAt: doc.updated_at,
  };
}

function openingDoc(opening: NewFundingOpening, at: Date): OpeningDoc {
  return {
    _id: `${opening.provider}:${opening.customerRef}`,
    provider: opening.provider,
    customer_ref: opening.customerRef,
    account_id: opening.accountId,
    mode: opening.mode,
    kyc_kind: opening.kycKind,
    kyc_last4: opening.kycLast4,
    kyc_hash: opening.kycHash,
    status: 'pending',
    claimed_at: null,
    created_at: toDate(opening.createdAt, 'createdAt'),
    updated_at: at,
  };
}

function inflowFromDoc(doc: InflowDoc): InflowRecord {
  return {
    inflowId: doc._id,
    provider: doc.provider as FundingProviderName,
    providerReference: doc.provider_reference,
    accountNumber: doc.account_number,
    accountId: doc.account_id,
    mode: readMode(doc.mode, 'inflows.mode'),
    amountPaidKobo: readKobo(doc.amount_paid_kobo, 'inflows.amount_paid_kobo'),
    feeKobo: readKobo(doc.fee_kobo, 'inflows.fee_kobo'),
    creditedKobo: readKobo(doc.credited_kobo, 'inflows.credited_kobo'),
    payerName: doc.payer_name,
    status: doc.status as InflowStatus,
    reason: doc.reason,
    raw: doc.raw,
    creditReference: doc.credit_reference,
    createdAt: doc.created_at,
    updatedAt: doc.updated_at,
  };
}

function collections(ctx: MongoContext): { accounts: Collection<VirtualAccountDoc>; inflows: Collection<InflowDoc> } {
  ctx.live();
  return {
    accounts: ctx.db.collection<VirtualAccountDoc>(FUNDING_COLLECTIONS.virtualAccounts),
    inflows: ctx.db.collection<InflowDoc>(FUNDING_COLLECTIONS.inflows),
  };
}

function openings(ctx: MongoContext): Collection<OpeningDoc> {
  ctx.live();
  return ctx.db.collection<OpeningDoc>(FUNDING_OPENINGS_COLLECTION);
}

/** The account to credit does not exist; thrown to abort the transaction. */
class MissingAccount extends Error {
  constructor() {
    super('store: the account to credit does not exist');
  }
}

/** Whether a credit failed for want of its account (thrown inside its transaction to abort it). */
export function isMissingAccount(error: unknown): boolean {
  return error instanceof MissingAccount;
}

/** The conditional status change of an inflow, its credit, ledger entry and event inside `session`. */
export async function creditIn(
  ctx: MongoContext,
  session: ClientSession,
  inflowId: string,
  credit: { accountId: string; mode: 'live' | 'test'; feeKobo: Kobo; at: Date },
  from: string,
  ids: { entryId: ObjectId; eventId: string },
): Promise<CreditInflowResult> {
  const { inflows } = collections(ctx);
  const at = toDate(credit.at, 'at');
  const current = await inflows.findOne({ _id: inflowId }, { session });
  if (current === null) return { outcome: 'not_found' };
  const inflow = inflowFromDoc(current);
  if (inflow.status !== from)
    return inflow.status === 'credited' ? { outcome: 'already_credited', inflow } : { outcome: 'wrong_status', inflow };
  if (inflow.amountPaidKobo <= credit.feeKobo) return { outcome: 'wrong_status', inflow };
  const creditedKobo = kobo(inflow.amountPaidKobo - credit.feeKobo);
  // Whether the credit's event goes to a webhook, read before the first write to the account.
  const deliver = await deliversTo(ctx, session, credit.accountId, credit.mode);
  // Conditional on the status read above: a concurrent credit that committed first makes
  // this match nothing, and a write conflict makes the driver re-run the whole callback.
  const moved = await inflows.findOneAndUpdate(
    { _id: inflowId, status: from },
    {
      $set: {
        status: 'credited',
        account_id: credit.accountId,
        mode: credit.mode,
        fee_kobo: toLong(credit.feeKobo, 'feeKobo'),
        credited_kobo: toLong(creditedKobo, 'creditedKobo'),
        credit_reference: inflowId,
        reason: '',
        updated_at: at,
      },
    },
    { session, returnDocument: 'after' },
  );
  if (moved === null) throw new Error(`store: inflow ${inflowId} changed inside its own transaction`);
  const done = inflowFromDoc(moved);
  // A live wallet takes what its identity level allows; the rest is held (docs/kyc.md).
  const split =
    credit.mode === 'live'
      ? await splitCreditIn(ctx, session, credit.accountId, creditedKobo)
      : { creditKobo: creditedKobo, heldKobo: 0 };
  if (split === null) throw new MissingAccount();
  const heldKobo = kobo(split.heldKobo);
  const booking = {
    id: journalIds.ofLedgerEntry(ids.entryId),
    entryId: entryIdOf(ids.entryId),
    kind: 'inflow_credited' as const,
    mode: credit.mode,
    reference: inflowId,
    at,
    // The transfer leaves the inflows held for it: the wallet gets it less the platform's fee and what is held.
    postings: inflowCreditedPostings(credit.accountId, done.amountPaidKobo, done.feeKobo, heldKobo),
  };
  // Only the live wallet's inflow counts against its level; the test world is never limited.
  if (credit.mode === 'live')
    await keepSplitIn(ctx, session, { inflowId, accountId: credit.accountId, provider: done.provider, at }, split);
  if (split.creditKobo === 0) {
    // Nothing reaches the wallet: the whole credit is held, no wallet entry (so no ledger entry's id
    // for the journal's) and no event.
    await bookIn(ctx, session, { ...booking, id: journalIds.own('inflow_credited', inflowId) });
    const account = await ctx.live().accounts.findOne({ _id: credit.accountId }, { session });
    return {
      outcome: 'credited',
      inflow: done,
      balanceKobo: readKobo(account!.balance_kobo, 'balance_kobo'),
      heldKobo,
    };
  }
  const entry = await addToWallet(ctx, session, {
    accountId: credit.accountId,
    mode: credit.mode,
    amountKobo: kobo(split.creditKobo),
    kind: 'credit',
    reference: inflowId,
    memo: `Bank transfer via ${done.provider} (${done.providerReference})`,
    at,
    id: ids.entryId,
  });
  if (entry === null) throw new MissingAccount();
  await bookIn(ctx, session, booking);
  const facts = {
    accountId: credit.accountId,
    reference: inflowId,
    amountKobo: kobo(split.creditKobo),
    balanceKobo: entry.balanceAfterKobo,
    memo: entry.memo,
    funding: {
      provider: done.provider,
      providerReference: done.providerReference,
      amountPaidKobo: done.amountPaidKobo,
      feeKobo: done.feeKobo,
      payerName: done.payerName,
    },
  };
  await writeEventIn(ctx, session, creditEvent(facts, credit.mode, at, ids.eventId), deliver);
  return { outcome: 'credited', inflow: done, balanceKobo: entry.balanceAfterKobo, heldKobo };
}

/** An inflow's document, written once per (provider, provider reference); a copy finds the first. */
async function recordInflow(ctx: MongoContext, inflow: NewInflow): Promise<{ inflow: InflowRecord; created: boolean }> {
  requireAmount('amountPaidKobo', inflow.amountPaidKobo, 1);
  const { inflows } = collections(ctx);
  const at = toDate(inflow.createdAt, 'createdAt');
  const doc: InflowDoc = {
    _id: inflow.inflowId,
    provider: inflow.provider,
    provider_reference: inflow.providerReference,
    account_number: inflow.accountNumber,
    account_id: inflow.accountId,
    mode: inflow.mode,
    amount_paid_kobo: toLong(inflow.amountPaidKobo, 'amountPaidKobo'),
    fee_kobo: toLong(0, 'feeKobo'),
    credited_kobo: toLong(0, 'creditedKobo'),
    payer_name: inflow.payerName,
    status: inflow.status,
    reason: inflow.reason,
    raw: inflow.raw,
    credit_reference: '',
    created_at: at,
    updated_at: at,
  };
  const bookId = new ObjectId();
  try {
    // The row and its receipt in the books commit together: a confirmed transfer is at its
    // provider for us from now on, in no wallet yet.
    return await ctx.inTransaction(
      async (session) => {
        await inflows.insertOne(doc, { session });
        await bookIn(ctx, session, {
          id: journalIds.received(inflow.inflowId),
          entryId: entryIdOf(bookId),
          kind: 'inflow_received',
          mode: inflow.mode,
          reference: inflow.inflowId,
          at,
          postings: inflowReceivedPostings(inflow.provider, inflow.amountPaidKobo),
        });
        return { inflow: inflowFromDoc(doc), created: true };
      },
      async (error, session) => {
        // An unknown commit: the row under this inflow's own id proves it committed.
        if (!isUnknownCommitResult(error)) return undefined;
        const mine = await inflows.findOne({ _id: inflow.inflowId }, followUpRead(session));
        return mine === null ? undefined : { inflow: inflowFromDoc(mine), created: true };
      },
    );
  } catch (error) {
    // The unique index answered: another notification, the sweeper or another core
    // recorded this (provider, reference) first. Its row is the one that counts.
    if (!isDuplicateKeyOn(error, INFLOW_REFERENCE_INDEX.name, INFLOW_REFERENCE_INDEX.fields)) throw error;
    const existing = await inflows.findOne({
      provider: inflow.provider,
      provider_reference: inflow.providerReference,
    });
    if (existing === null) throw error;
    return { inflow: inflowFromDoc(existing), created: false };
  }
}

/** An inflow credited in one transaction, its outcome found again after an unknown commit. */
async function creditInflow(
  ctx: MongoContext,
  inflowId: string,
  credit: { accountId: string; mode: 'live' | 'test'; feeKobo: Kobo; at: Date },
  from: string,
): Promise<CreditInflowResult> {
  requireAmount('feeKobo', credit.feeKobo, 0);
  // Fixed before the first attempt, so a retried transaction writes the same entry and event.
  const ids = { entryId: new ObjectId(), eventId: newEventId() };
  try {
    return await ctx.inTransaction(
      (session) => creditIn(ctx, session, inflowId, credit, from, ids),
      async (error, session) => {
        // An unknown commit: the ledger entry, chosen in advance, proves whether it committed.
        if ((await ctx.committedEntry(error, ids.entryId, session)) === null) return undefined;
        const doc = await collections(ctx).inflows.findOne({ _id: inflowId }, followUpRead(session));
        if (doc === null) return undefined;
        const heldKobo = kobo(await heldOfInflow(ctx, session, inflowId));
        return { outcome: 'credited', inflow: inflowFromDoc(doc), balanceKobo: kobo(0), heldKobo };
      },
    );
  } catch (error) {
    if (error instanceof MissingAccount) return { outcome: 'no_account' };
    throw error;
  }
}

/** The virtual accounts a provider opened for an account, kept as the provider answered. */
function virtualAccountStore(
  ctx: MongoContext,
): Pick<
  FundingStore,
  | 'saveVirtualAccount'
  | 'listVirtualAccounts'
  | 'listActiveVirtualAccounts'
  | 'findVirtualAccount'
  | 'closeVirtualAccount'
> {
  return {
    async saveVirtualAccount(account) {
      const doc: VirtualAccountDoc = {
        _id: `${account.provider}:${account.accountNumber}`,
        provider: account.provider,
        account_number: account.accountNumber,
        account_id: account.accountId,
        mode: account.mode,
        bank_name: account.bankName,
        bank_code: account.bankCode,
        account_name: account.accountName,
        provider_customer_ref: account.providerCustomerRef,
        status: account.status,
        kyc_kind: account.kycKind,
        kyc_last4: account.kycLast4,
        kyc_hash: account.kycHash,
        created_at: toDate(account.createdAt, 'createdAt'),
      };
      await collections(ctx).accounts.replaceOne({ _id: doc._id }, doc, { upsert: true });
    },
    async listVirtualAccounts(accountId, mode) {
      const docs = await collections(ctx)
        .accounts.find({ account_id: accountId, mode })
        .sort({ created_at: 1, provider: 1, account_number: 1 })
        .limit(100)
        .toArray();
      return docs.map(virtualAccountFromDoc);
    },
    async listActiveVirtualAccounts(limit) {
      const docs = await collections(ctx)
        .accounts.find({ status: 'active' })
        .sort({ created_at: 1, _id: 1 })
        .limit(requireLimit(limit))
        .toArray();
      return docs.map(virtualAccountFromDoc);
    },
    async findVirtualAccount(provider, accountNumber) {
      const doc = await collections(ctx).accounts.findOne({ _id: `${provider}:${accountNumber}` });
      return doc === null ? null : virtualAccountFromDoc(doc);
    },
    async closeVirtualAccount(provider, accountNumber) {
      const doc = await collections(ctx).accounts.findOneAndUpdate(
        { _id: `${provider}:${accountNumber}` },
        { $set: { status: 'closed' } },
        { returnDocument: 'after' },
      );
      return doc === null ? null : virtualAccountFromDoc(doc);
    },
  };
}

/** Inflows: recorded once, credited once, each credit in one transaction with its entry and event. */
function inflowStore(
  ctx: MongoContext,
): Pick<
  FundingStore & FundingMoney,
  | 'recordInflow'
  | 'recordAndCreditInflow'
  | 'getInflow'
  | 'findInflow'
  | 'creditInflow'
  | 'rejectInflow'
  | 'reconsiderInflow'
  | 'listInflows'
  | 'listAccountInflows'
> {
  return {
    recordInflow: (inflow) => recordInflow(ctx, inflow),
    async recordAndCreditInflow(inflow, credit) {
      // Two steps: the credit is conditional on the row's status, so a crash between them
      // leaves a verified row that the sweeper credits, once.
      const recorded = await recordInflow(ctx, inflow);
      const accountId = creditNowTo(recorded);
      if (accountId === null) return { ...recorded, credit: null };
      const to = { accountId, mode: recorded.inflow.mode, ...credit };
      return { ...recorded, credit: await creditInflow(ctx, recorded.inflow.inflowId, to, 'verified') };
    },
    async getInflow(inflowId) {
      const doc = await collections(ctx).inflows.findOne({ _id: inflowId });
      return doc === null ? null : inflowFromDoc(doc);
    },
    async findInflow(provider, providerReference) {
      const doc = await collections(ctx).inflows.findOne({ provider, provider_reference: providerReference });
      return doc === null ? null : inflowFromDoc(doc);
    },
    async creditInflow(inflowId, credit, from) {
      return creditInflow(ctx, inflowId, credit, from);
    },
    async rejectInflow(inflowId, reason, at) {
      const { inflows } = collections(ctx);
      const updatedAt = toDate(at, 'at');
      const bookId = new ObjectId();
      const doc = await ctx.inTransaction(
        async (session) => {
          const rejected = await inflows.findOneAndUpdate(
            { _id: inflowId, status: { $in: ['verified', 'unmatched'] } },
            { $set: { status: 'rejected', reason, updated_at: updatedAt } },
            { session, returnDocument: 'after' },
          );
          if (rejected === null) return inflows.findOne({ _id: inflowId }, { session });
          // Not ours: what was received for it leaves the books as it came.
          await bookIn(ctx, session, {
            id: journalIds.returned(inflowId),
            entryId: entryIdOf(bookId),
            kind: 'inflow_returned',
            mode: readMode(rejected.mode, 'inflows.mode'),
            reference: inflowId,
            at: updatedAt,
            postings: inflowReturnedPostings(
              rejected.provider,
              readKobo(rejected.amount_paid_kobo, 'amount_paid_kobo'),
            ),
          });
          return rejected;
        },
        async (error, session) => {
          // An unknown commit: the inflow as a majority has it answers (rejected, or as it was).
          if (!isUnknownCommitResult(error)) return undefined;
          return (await inflows.findOne({ _id: inflowId }, followUpRead(session))) ?? undefined;
        },
      );
      return doc === null ? null : inflowFromDoc(doc);
    },
    async reconsiderInflow(inflowId, reason, at) {
      const { inflows } = collections(ctx);
      // One document's conditional update is atomic: a credit or a rejection that won first is left as it is.
      const doc =
        (await inflows.findOneAndUpdate(
          { _id: inflowId, status: 'unmatched' },
          { $set: { reason, updated_at: toDate(at, 'at') } },
          { returnDocument: 'after' },
        )) ?? (await inflows.findOne({ _id: inflowId }));
      return doc === null ? null : inflowFromDoc(doc);
    },
    async listInflows(status, limit) {
      const docs = await collections(ctx)
        .inflows.find({ status })
        .sort({ created_at: 1, _id: 1 })
        .limit(requireLimit(limit))
        .toArray();
      return docs.map(inflowFromDoc);
    },
    async listAccountInflows(accountId, mode, limit) {
      const docs = await collections(ctx)
        .inflows.find({ account_id: accountId, mode })
        .sort({ created_at: -1, _id: -1 })
        .limit(requireLimit(limit))
        .toArray();
      return docs.map(inflowFromDoc);
    },
  };
}

/** Openings of virtual accounts: saved, claimed by one caller at a time, finished. */
function openingStore(
  ctx: MongoContext,
): Pick<FundingStore, 'saveOpening' | 'getOpening' | 'claimOpening' | 'finishOpening'> {
  return {
    async saveOpening(opening) {
      const doc = openingDoc(opening, toDate(opening.createdAt, 'createdAt'));
      // A claim in progress is never replaced: its claimer may be creating the account right now.
      // The filter excludes it, so the upsert then tries an insert on the existing _id, which the
      // server refuses as a duplicate: that refusal is the "left as it is".
      try {
        await openings(ctx).replaceOne({ _id: doc._id, status: { $ne: 'opening' } }, doc, { upsert: true });
      } catch (error) {
        if (!isDuplicateKeyOn(error, '_id_', ['_id'])) throw error;
      }
    },
    async getOpening(provider, customerRef) {
      const doc = await openings(ctx).findOne({ _id: `${provider}:${customerRef}` });
      return doc === null ? null : openingFromDoc(doc);
    },
    async claimOpening(fallback, at, staleBefore) {
      const when = toDate(at, 'at');
      const doc = openingDoc(fallback, when);
      try {
        await openings(ctx).insertOne(doc);
      } catch (error) {
        if (!isDuplicateKeyOn(error, '_id_', ['_id'])) throw error;
      }
      // One document, one atomic conditional update: of several cores, exactly one matches.
      const claimed = await openings(ctx).findOneAndUpdate(
        {
          _id: doc._id,
          $or: [{ status: 'pending' }, { status: 'opening', claimed_at: { $lt: toDate(staleBefore, 'staleBefore') } }],
        },
        { $set: { status: 'opening', claimed_at: when, updated_at: when } },
        { returnDocument: 'after' },
      );
      return claimed === null ? null : openingFromDoc(claimed);
    },
    async finishOpening(provider, customerRef, status, at) {
      await openings(ctx).updateOne(
        { _id: `${provider}:${customerRef}`, status: 'opening' },
        { $set: { status, claimed_at: null, updated_at: toDate(at, 'at') } },
      );
    },
  };
}

/** The low-balance thresholds of an account's two wallets. */
function thresholdStore(ctx: MongoContext): Pick<FundingStore, 'setLowBalanceThreshold' | 'getLowBalanceThreshold'> {
  return {
    async setLowBalanceThreshold(accountId, mode, thresholdKobo) {
      if (thresholdKobo !== null) requireAmount('thresholdKobo', thresholdKobo, 1);
      const field = mode === 'test' ? 'test_low_balance_kobo' : 'low_balance_kobo';
      const value = thresholdKobo === null ? null : toLong(thresholdKobo, 'thresholdKobo');
      const result = await ctx.live().accounts.updateOne({ _id: accountId }, { $set: { [field]: value } });
      return result.matchedCount === 1;
    },
    async getLowBalanceThreshold(accountId, mode) {
      const account = await ctx
        .live()
        .accounts.findOne({ _id: accountId }, { projection: { low_balance_kobo: 1, test_low_balance_kobo: 1 } });
      const value = mode === 'test' ? account?.test_low_balance_kobo : account?.low_balance_kobo;
      return value === undefined || value === null ? null : readKobo(value, 'accounts.low_balance_kobo');
    },
  };
}

export function createFundingStore(ctx: MongoContext): FundingStore & FundingMoney {
  return {
    ...virtualAccountStore(ctx),
    ...inflowStore(ctx),
    ...openingStore(ctx),
    ...thresholdStore(ctx),
  };
}
