/**
 * The ledger checker on MongoDB: the SQLite adapter's five audit queries as aggregation
 * pipelines, run in one snapshot session so that every check sees the same moment of the
 * money (a purchase committed half-way through the audit cannot look like a violation).
 *
 * Each pipeline emits only violations, so the adapter streams them into the shared
 * collector (core/store/audit.ts), which classifies them and keeps the first
 * MAX_AUDIT_VIOLATIONS. Joins go through the indexes in schema.ts: ledger entries by
 * (account_id, entry_id) and by (reference, kind), transactions by _id.
 *
 * The running balance reads the ledger in index order (RUNNING_BALANCE_PIPELINE says how),
 * and the conformance suite's explain check on a replica set proves the plan uses the index.
 *
 * The books' proofs (docs/money.md, The books) read the journal (books.ts) in the same
 * snapshot: each mode's trial balance, every entry balanced, every wallet equal to minus the
 * sum of its postings, each purchase's entries as its status needs, every applied proposal
 * booked and audited.
 *
 * A snapshot read must finish within the server's minSnapshotHistoryWindowInSeconds
 * (300 s by default) or it fails with SnapshotTooOld; a ledger large enough to take
 * longer needs that window raised on the servers, never a weaker read.
 */
import type { ClientSession, Db, Document } from 'mongodb';
import type { LedgerAudit } from '../../domain/audit.js';
import { REFUNDED_STATUSES } from '../../domain/transactions.js';
import { AuditCollector } from '../audit.js';
import { readInteger, readKobo, readMode } from './documents.js';
import { AUDIT_LOG_COLLECTION, COLLECTIONS, JOURNAL_COLLECTION, STAFF_COLLECTIONS } from './schema.js';

/** A document's mode: written before test mode (no field) means live. */
const MODE_OF = { $ifNull: ['$mode', 'live'] };

/** One group's value among a join's groups (`$entries`' sum for a mode, by default), or 0 when there is none. */
function entriesOf(id: string, groups = '$entries', value = '$$this.sum'): Document {
  return {
    $ifNull: [
      { $first: { $map: { input: { $filter: { input: groups, cond: { $eq: ['$$this._id', id] } } }, in: value } } },
      0,
    ],
  };
}

/** Wallets (account and mode) whose balance differs from the sum of their entries, or is negative. */
const BALANCE_PIPELINE: Document[] = [
  {
    $lookup: {
      from: COLLECTIONS.ledger,
      localField: '_id',
      foreignField: 'account_id',
      // Summed inside the join, so an account with a million entries still yields one number per wallet.
      pipeline: [{ $group: { _id: MODE_OF, sum: { $sum: '$amount_kobo' } } }],
      as: 'entries',
    },
  },
  {
    $project: {
      wallets: [
        { mode: 'live', balance_kobo: '$balance_kobo', entries_kobo: entriesOf('live') },
        { mode: 'test', balance_kobo: { $ifNull: ['$test_balance_kobo', 0] }, entries_kobo: entriesOf('test') },
      ],
    },
  },
  { $unwind: '$wallets' },
  { $project: { mode: '$wallets.mode', balance_kobo: '$wallets.balance_kobo', entries_kobo: '$wallets.entries_kobo' } },
  { $match: { $expr: { $or: [{ $ne: ['$balance_kobo', '$entries_kobo'] }, { $lt: ['$balance_kobo', 0] }] } } },
];

/** Whether a document is of the test world (one without a mode is live). */
const IS_TEST = { $eq: [MODE_OF, 'test'] };

/** A running sum of the amounts of one mode's entries, over an account's entries up to the current one. */
function runningSumOf(mode: 'live' | 'test'): Document {
  const amount = mode === 'test' ? { $cond: [IS_TEST, '$amount_kobo', 0] } : { $cond: [IS_TEST, 0, '$amount_kobo'] };
  return { $sum: amount, window: { documents: ['unbounded', 'current'] } };
}

/**
 * Entries whose recorded balance is not the running sum of their wallet's entries up to them.
 *
 * Partitioned by the plain field `$account_id` and sorted by entry_id, so that the server
 * reads the ledger in the order of the ledger_by_account_asc index (account_id, entry_id)
 * instead of sorting it (a computed partition, such as an object of account and mode, cannot
 * use an index, and sorted the whole ledger on the primary inside the audit's snapshot). The
 * two wallets of an account share its entry sequence, so each entry carries one conditional
 * running sum per mode, and is compared with its own mode's.
 */
export const RUNNING_BALANCE_PIPELINE: Document[] = [
  {
    $setWindowFields: {
      partitionBy: '$account_id',
      sortBy: { entry_id: 1 },
      output: { live_running_kobo: runningSumOf('live'), test_running_kobo: runningSumOf('test') },
    },
  },
  { $set: { running_kobo: { $cond: [IS_TEST, '$test_running_kobo', '$live_running_kobo'] } } },
  { $match: { $expr: { $or: [{ $ne: ['$balance_after_kobo', '$running_kobo'] }, { $lt: ['$running_kobo', 0] }] } } },
  { $project: { account_id: 1, mode: MODE_OF, entry_id: 1, reference: 1, balance_after_kobo: 1, running_kobo: 1 } },
];

/**
 * Purchases without exactly one debit of their charge; failed and reversed ones without
 * exactly one refund of it; any other with a refund.
 */
const PURCHASE_PIPELINE: Document[] = [
  {
    $lookup: {
      from: COLLECTIONS.ledger,
      localField: '_id',
      foreignField: 'reference',
      // Only the entries of the purchase's own wallet count; any other is the orphan check's.
      let: { account: '$account_id', mode: MODE_OF },
      pipeline: [
        {
          $match: {
            kind: { $in: ['debit', 'refund'] },
            $expr: { $and: [{ $eq: ['$account_id', '$$account'] }, { $eq: [MODE_OF, '$$mode'] }] },
          },
        },
        { $group: { _id: '$kind', n: { $sum: 1 }, kobo: { $sum: '$amount_kobo' } } },
      ],
      as: 'entries',
    },
  },
  {
    $project: {
      account_id: 1,
      mode: MODE_OF,
      status: 1,
      charged_kobo: 1,
      debit: { $first: { $filter: { input: '$entries', cond: { $eq: ['$$this._id', 'debit'] } } } },
      refund: { $first: { $filter: { input: '$entries', cond: { $eq: ['$$this._id', 'refund'] } } } },
    },
  },
  {
    $project: {
      account_id: 1,
      mode: 1,
      status: 1,
      charged_kobo: 1,
      debits: { $ifNull: ['$debit.n', 0] },
      debit_kobo: { $multiply: [{ $ifNull: ['$debit.kobo', 0] }, -1] },
      refunds: { $ifNull: ['$refund.n', 0] },
      refund_kobo: { $ifNull: ['$refund.kobo', 0] },
      refundable: { $in: ['$status', [...REFUNDED_STATUSES]] },
    },
  },
  {
    $match: {
      $expr: {
        $or: [
          { $ne: ['$debits', 1] },
          { $ne: ['$debit_kobo', '$charged_kobo'] },
          { $and: ['$refundable', { $or: [{ $ne: ['$refunds', 1] }, { $ne: ['$refund_kobo', '$charged_kobo'] }] }] },
          { $and: [{ $not: ['$refundable'] }, { $ne: ['$refunds', 0] }] },
        ],
      },
    },
  },
];

/** Debit and refund entries with no purchase of the same account and mode behind them. */
const ORPHAN_PIPELINE: Document[] = [
  { $match: { kind: { $in: ['debit', 'refund'] } } },
  {
    $lookup: {
      from: COLLECTIONS.transactions,
      localField: 'reference',
      foreignField: '_id',
      pipeline: [{ $project: { account_id: 1, mode: MODE_OF } }],
      as: 'purchase',
    },
  },
  {
    $match: {
      $expr: {
        $or: [
          { $ne: [{ $first: '$purchase.account_id' }, '$account_id'] },
          { $ne: [{ $first: '$purchase.mode' }, MODE_OF] },
        ],
      },
    },
  },
  { $project: { account_id: 1, mode: MODE_OF, reference: 1, kind: 1 } },
];

/** Each mode's sum of every posting: its trial balance, zero when the books balance. */
const TRIAL_BALANCE_PIPELINE: Document[] = [
  { $unwind: '$postings' },
  { $group: { _id: '$mode', sum: { $sum: '$postings.amountKobo' } } },
];

/** Entries whose postings do not sum to zero: the validator refuses them, so one here was written around it. */
const UNBALANCED_ENTRIES_PIPELINE: Document[] = [
  { $match: { $expr: { $ne: [{ $sum: '$postings.amountKobo' }, 0] } } },
  { $project: { entryId: 1, mode: 1, reference: 1, sum: { $sum: '$postings.amountKobo' } } },
];

/**
 * Wallets whose balance is not minus the sum of their postings. The join goes through the
 * journal's multikey index on postings.account (its foreign field), and sums inside it only
 * the lines of that wallet, per mode.
 */
const WALLET_BOOKS_PIPELINE: Document[] = [
  { $set: { wallet_account: { $concat: ['wallet:', '$_id'] } } },
  {
    $lookup: {
      from: JOURNAL_COLLECTION,
      localField: 'wallet_account',
      foreignField: 'postings.account',
      let: { account: '$wallet_account' },
      pipeline: [
        { $unwind: '$postings' },
        { $match: { $expr: { $eq: ['$postings.account', '$$account'] } } },
        { $group: { _id: '$mode', sum: { $sum: '$postings.amountKobo' } } },
      ],
      as: 'books',
    },
  },
  {
    $project: {
      wallets: [
        {
          mode: 'live',
          balance_kobo: '$balance_kobo',
          postings_kobo: { $multiply: [entriesOf('live', '$books'), -1] },
        },
        {
          mode: 'test',
          balance_kobo: { $ifNull: ['$test_balance_kobo', 0] },
          postings_kobo: { $multiply: [entriesOf('test', '$books'), -1] },
        },
      ],
    },
  },
  { $unwind: '$wallets' },
  {
    $project: { mode: '$wallets.mode', balance_kobo: '$wallets.balance_kobo', postings_kobo: '$wallets.postings_kobo' },
  },
  { $match: { $expr: { $ne: ['$balance_kobo', '$postings_kobo'] } } },
];

/** How many entries of `kind` a purchase's join found. */
const entriesOfKind = (kind: string): Document => entriesOf(kind, '$books', '$$this.n');

/**
 * Purchases whose entries are not what their status needs: one reserve always, one settle once
 * delivered (success, reversed), one refund once failed, one reversal once reversed. The rule
 * is the collector's (core/store/audit.ts), which checks every row again; it is repeated here
 * only so that the pipeline emits the wrong purchases alone, not every purchase.
 */
const PURCHASE_BOOKS_PIPELINE: Document[] = [
  {
    $lookup: {
      from: JOURNAL_COLLECTION,
      localField: '_id',
      foreignField: 'reference',
      pipeline: [
        { $match: { kind: { $in: ['reserve', 'settle', 'refund', 'reverse'] } } },
        { $group: { _id: '$kind', n: { $sum: 1 } } },
      ],
      as: 'books',
    },
  },
  {
    $project: {
      account_id: 1,
      mode: MODE_OF,
      status: 1,
      reserves: entriesOfKind('reserve'),
      settles: entriesOfKind('settle'),
      refunds: entriesOfKind('refund'),
      reverses: entriesOfKind('reverse'),
    },
  },
  {
    $match: {
      $expr: {
        $or: [
          { $ne: ['$reserves', 1] },
          { $ne: ['$settles', { $cond: [{ $in: ['$status', ['success', 'reversed']] }, 1, 0] }] },
          { $ne: ['$refunds', { $cond: [{ $eq: ['$status', 'failed'] }, 1, 0] }] },
          { $ne: ['$reverses', { $cond: [{ $eq: ['$status', 'reversed'] }, 1, 0] }] },
        ],
      },
    },
  },
];

/**
 * Proposals marked applied whose move has no entry in the books, or whose approval is not in
 * the audit log. What each kind's move books, under which reference (core/staff/desk.ts
 * applies them): a credit or debit its own kind under the proposal's reference (its id, for
 * one made before references), a refund the purchase's reversal, a pending purchase failed
 * its refund, an assigned inflow its credit (under the inflow's id, its credit reference here),
 * an upstream's top-up or a provider's settlement its own entry under the proposal's reference,
 * a held credit returned its inflow_returned entry under `<inflow id>:returned`.
 */
const PROPOSAL_BOOKS_PIPELINE: Document[] = [
  { $match: { applied_at: { $ne: null } } },
  {
    $set: {
      books_reference: {
        $cond: [
          { $in: ['$kind', ['credit', 'debit', 'upstream_topup', 'provider_settlement']] },
          { $cond: [{ $gt: [{ $ifNull: ['$reference', ''] }, ''] }, '$reference', '$_id'] },
          { $cond: [{ $eq: ['$kind', 'hold_return'] }, { $concat: ['$target', ':returned'] }, '$target'] },
        ],
      },
      books_kind: {
        $cond: [
          { $eq: ['$kind', 'refund'] },
          'reverse',
          {
            $cond: [
              { $eq: ['$kind', 'pending_failed'] },
              'refund',
              {
                $cond: [
                  { $eq: ['$kind', 'inflow_assign'] },
                  'inflow_credited',
                  {
                    $cond: [
                      { $eq: ['$kind', 'upstream_topup'] },
                      'upstream_funded',
                      {
                        $cond: [
                          { $eq: ['$kind', 'provider_settlement'] },
                          'provider_settled',
                          { $cond: [{ $eq: ['$kind', 'hold_return'] }, 'inflow_returned', '$kind'] },
                        ],
                      },
                    ],
                  },
                ],
              },
            ],
          },
        ],
      },
    },
  },
  {
    $lookup: {
      from: JOURNAL_COLLECTION,
      localField: 'books_reference',
      foreignField: 'reference',
      let: { kind: '$books_kind' },
      pipeline: [{ $match: { $expr: { $eq: ['$kind', '$$kind'] } } }, { $limit: 1 }, { $project: { _id: 1 } }],
      as: 'booked',
    },
  },
  {
    $lookup: {
      from: AUDIT_LOG_COLLECTION,
      localField: '_id',
      foreignField: 'target',
      pipeline: [{ $match: { action: 'proposal.approve' } }, { $limit: 1 }, { $project: { _id: 1 } }],
      as: 'audited',
    },
  },
  {
    $project: {
      account_id: 1,
      kind: 1,
      booked: { $gt: [{ $size: '$booked' }, 0] },
      audited: { $gt: [{ $size: '$audited' }, 0] },
    },
  },
  { $match: { $or: [{ booked: false }, { audited: false }] } },
];

/** Every proof of the books, in the audit's snapshot session, into the collector. */
async function proveBooks(db: Db, options: Document, collector: AuditCollector, signal?: AbortSignal): Promise<void> {
  const journal = db.collection(JOURNAL_COLLECTION);
  for await (const row of journal.aggregate(TRIAL_BALANCE_PIPELINE, options))
    collector.unbalanced({
      mode: readMode(row['_id'], 'mode'),
      entryId: null,
      reference: '',
      sumKobo: readInteger(row['sum'], 'sum'),
    });
  for await (const row of journal.aggregate(UNBALANCED_ENTRIES_PIPELINE, options)) {
    signal?.throwIfAborted();
    collector.unbalanced({
      mode: readMode(row['mode'], 'mode'),
      entryId: String(row['entryId']),
      reference: String(row['reference']),
      sumKobo: readInteger(row['sum'], 'sum'),
    });
  }
  for await (const row of db.collection(COLLECTIONS.accounts).aggregate(WALLET_BOOKS_PIPELINE, options)) {
    signal?.throwIfAborted();
    collector.walletBooks({
      accountId: String(row['_id']),
      mode: readMode(row['mode'], 'mode'),
      balanceKobo: readInteger(row['balance_kobo'], 'balance_kobo'),
      postingsKobo: readInteger(row['postings_kobo'], 'postings'),
    });
  }
  for await (const row of db.collection(COLLECTIONS.transactions).aggregate(PURCHASE_BOOKS_PIPELINE, options)) {
    signal?.throwIfAborted();
    collector.purchaseBooks({
      accountId: String(row['account_id']),
      mode: readMode(row['mode'], 'mode'),
      reference: String(row['_id']),
      status: String(row['status']),
      reserves: readInteger(row['reserves'], 'reserves'),
      settles: readInteger(row['settles'], 'settles'),
      refunds: readInteger(row['refunds'], 'refunds'),
      reverses: readInteger(row['reverses'], 'reverses'),
    });
  }
  for await (const row of db.collection(STAFF_COLLECTIONS.proposals).aggregate(PROPOSAL_BOOKS_PIPELINE, options)) {
    signal?.throwIfAborted();
    collector.proposalBooks({
      proposalId: String(row['_id']),
      accountId: String(row['account_id']),
      kind: String(row['kind']),
      booked: row['booked'] === true,
      audited: row['audited'] === true,
    });
  }
}

interface BalanceRow {
  _id: string;
  mode: string;
  balance_kobo: unknown;
  entries_kobo: unknown;
}

interface RunningRow {
  account_id: string;
  mode: string;
  entry_id: unknown;
  reference: string;
  balance_after_kobo: unknown;
  running_kobo: unknown;
}

interface PurchaseRow {
  _id: string;
  account_id: string;
  mode: string;
  status: string;
  charged_kobo: unknown;
  debits: number;
  debit_kobo: unknown;
  refunds: number;
  refund_kobo: unknown;
}

interface OrphanRow {
  account_id: string;
  mode: string;
  reference: string;
  kind: string;
}

/** Runs every check in `session` (a snapshot session) and gathers the violations. */
/** `signal` ends the check between two rows (the cursors close as the loop is left). */
export async function auditLedger(db: Db, session: ClientSession, signal?: AbortSignal): Promise<LedgerAudit> {
  // The store's database handle reads at majority; a snapshot session needs every read to
  // say snapshot instead (the driver then pins them all to the first read's cluster time).
  const readConcern = { level: 'snapshot' } as const;
  // allowDiskUse: the window and the joins may need more than the 100 MB an in-memory stage gets.
  const options = { session, readConcern, allowDiskUse: true };
  const count = (collection: string, filter: Document = {}) =>
    db.collection(collection).countDocuments(filter, { session, readConcern });
  const all = {
    transactionsChecked: await count(COLLECTIONS.transactions),
    entriesChecked: await count(COLLECTIONS.ledger),
    pendingCount: await count(COLLECTIONS.transactions, { status: 'pending' }),
    needsAttentionCount: await count(COLLECTIONS.transactions, { status: 'pending', needs_attention: true }),
  };
  // Test rows say so; everything else (a document without a mode included) is live.
  const test = {
    transactionsChecked: await count(COLLECTIONS.transactions, { mode: 'test' }),
    entriesChecked: await count(COLLECTIONS.ledger, { mode: 'test' }),
    pendingCount: await count(COLLECTIONS.transactions, { status: 'pending', mode: 'test' }),
    needsAttentionCount: await count(COLLECTIONS.transactions, {
      status: 'pending',
      needs_attention: true,
      mode: 'test',
    }),
  };
  const live = {
    transactionsChecked: all.transactionsChecked - test.transactionsChecked,
    entriesChecked: all.entriesChecked - test.entriesChecked,
    pendingCount: all.pendingCount - test.pendingCount,
    needsAttentionCount: all.needsAttentionCount - test.needsAttentionCount,
  };
  const counts = { accountsChecked: await count(COLLECTIONS.accounts), ...all, modes: { live, test } };
  const collector = new AuditCollector();
  for await (const row of db.collection(COLLECTIONS.accounts).aggregate<BalanceRow>(BALANCE_PIPELINE, options)) {
    signal?.throwIfAborted();
    collector.balance({
      accountId: row._id,
      mode: readMode(row.mode, 'mode'),
      balanceKobo: readKobo(row.balance_kobo, 'accounts.balance_kobo'),
      entriesKobo: readKobo(row.entries_kobo, 'sum of entries'),
    });
  }
  for await (const row of db.collection(COLLECTIONS.ledger).aggregate<RunningRow>(RUNNING_BALANCE_PIPELINE, options)) {
    signal?.throwIfAborted();
    collector.runningBalance({
      accountId: row.account_id,
      mode: readMode(row.mode, 'mode'),
      entryId: readInteger(row.entry_id, 'entry_id'),
      reference: row.reference,
      balanceAfterKobo: readKobo(row.balance_after_kobo, 'balance_after_kobo'),
      runningKobo: readKobo(row.running_kobo, 'running sum'),
    });
  }
  for await (const row of db.collection(COLLECTIONS.transactions).aggregate<PurchaseRow>(PURCHASE_PIPELINE, options)) {
    signal?.throwIfAborted();
    collector.purchase({
      accountId: row.account_id,
      mode: readMode(row.mode, 'mode'),
      reference: row._id,
      status: row.status,
      chargedKobo: readKobo(row.charged_kobo, 'charged_kobo'),
      debits: row.debits,
      debitKobo: readKobo(row.debit_kobo, 'debits'),
      refunds: row.refunds,
      refundKobo: readKobo(row.refund_kobo, 'refunds'),
    });
  }
  for await (const row of db.collection(COLLECTIONS.ledger).aggregate<OrphanRow>(ORPHAN_PIPELINE, options)) {
    signal?.throwIfAborted();
    collector.orphan({
      accountId: row.account_id,
      mode: readMode(row.mode, 'mode'),
      reference: row.reference,
      kind: row.kind,
    });
  }
  await proveBooks(db, options, collector, signal);
  return collector.result(counts);
}
