/**
 * Schema step 28's data step: the history before the books, as entries of the journal
 * (books.ts), booked exactly as SQLite's step 35 books it (sqlite/migrations-books.ts): the
 * same accounts and amounts for every ledger entry, purchase and inflow.
 *
 * - A purchase's debit is its reserve (the wallet into held:purchases); a purchase that is
 *   delivered (or was, and is reversed) is settled right after it: the charge to revenue, and
 *   the cost its delivered attempt recorded (the last one that did) against that upstream's
 *   float, or to revenue of unknown cost where none was recorded, never as a cost of zero.
 * - A purchase's refund gives back what was held (a failed one) or what its settle booked
 *   (a reversed one).
 * - A credit from a bank transfer (its inflow credited to that wallet under that reference) is
 *   the transfer's receipt at the provider's clearing, then its credit less the platform's fee;
 *   every other credit, and every manual debit, is the operator's (adjustments:manual).
 * - A confirmed transfer in no wallet yet (verified, unmatched) is received and held.
 *
 * Resumable: it reads the ledger in _id order in batches and writes each entry under the
 * _id a live move would give it (books.ts), keeping an entry that is there already, so a step
 * interrupted and run again (or run by two cores at once, or beside a core already serving)
 * books nothing twice. Checked at the end: every wallet's balance is minus the sum of its
 * postings, each mode's postings sum to zero (each entry does: the validator refuses any
 * other), and every delivered purchase has its settle, or the step stops and says which.
 */
import { type Document, ObjectId } from 'mongodb';
import type { Posting } from '../../domain/books.js';
import type { Mode } from '../../domain/mode.js';
import { entryIdOf, type JournalDoc, journalDoc, journalIds } from './books.js';
import { COLLECTIONS, FUNDING_COLLECTIONS, JOURNAL_COLLECTION, SUPPLY_COLLECTIONS } from './collections.js';
import { readInteger, readMode } from './documents.js';
import type { SchemaTarget } from './schema-target.js';

/** Ledger entries read per batch (and the purchases, costs and inflows behind them, one read each). */
const HISTORY_BATCH = 1_000;

/** A ledger entry as the step reads it. */
interface HistoryLedgerRow {
  _id: ObjectId;
  account_id: string;
  mode?: string;
  amount_kobo: unknown;
  kind: string;
  reference: string;
  created_at: Date;
}

/** A purchase as the step reads it. */
interface HistoryPurchase {
  _id: string;
  mode?: string;
  status: string;
  charged_kobo: unknown;
  created_at: Date;
  updated_at: Date;
}

/** An inflow as the step reads it. */
interface HistoryInflow {
  _id: string;
  provider: string;
  account_id: string | null;
  mode?: string;
  amount_paid_kobo: unknown;
  status: string;
  credit_reference: string;
  created_at: Date;
}

/** What one batch of ledger entries needs besides itself. */
interface HistoryFacts {
  /** The purchases the entries name, by reference. */
  purchases: ReadonlyMap<string, HistoryPurchase>;
  /** Each purchase's debit entry's _id, for its refund's place after it. */
  debits: ReadonlyMap<string, ObjectId>;
  /** The cost of each delivered purchase's delivered attempt, where one was recorded. */
  costs: ReadonlyMap<string, { upstream: string; costKobo: number }>;
  /** The credited inflows, by credit reference (on MongoDB an inflow's credit reference is its id: funding.ts). */
  inflows: ReadonlyMap<string, HistoryInflow>;
}

const lines = (...postings: Posting[]): Posting[] => postings.filter((posting) => posting.amountKobo !== 0);
const wallet = (accountId: string): Posting['account'] => `wallet:${accountId}`;

/** A delivered purchase's revenue account and cost lines, as its settle booked them (sign +1) or its reversal (-1). */
function saleLines(cost: { upstream: string; costKobo: number } | undefined, chargedKobo: number, sign: 1 | -1) {
  const revenue: Posting['account'] = cost === undefined ? 'revenue:sales_cost_unknown' : 'revenue:sales';
  const costLines: Posting[] =
    cost === undefined || cost.costKobo <= 0
      ? []
      : [
          { account: `upstream:${cost.upstream}:cost`, amountKobo: sign * cost.costKobo },
          { account: `upstream:${cost.upstream}:float`, amountKobo: -sign * cost.costKobo },
        ];
  return { revenue: { account: revenue, amountKobo: -sign * chargedKobo }, costLines };
}

/** A purchase's debit (`amount`: its charge, positive): its reserve, and its settle right after it when delivered. */
function purchaseEntries(row: HistoryLedgerRow, mode: Mode, amount: number, facts: HistoryFacts): JournalDoc[] {
  const docs = [
    journalDoc({
      id: journalIds.ofLedgerEntry(row._id),
      entryId: entryIdOf(row._id, 0),
      kind: 'reserve',
      mode,
      reference: row.reference,
      at: row.created_at,
      postings: lines(
        { account: wallet(row.account_id), amountKobo: amount },
        { account: 'held:purchases', amountKobo: -amount },
      ),
    }),
  ];
  const purchase = facts.purchases.get(row.reference);
  if (purchase === undefined || (purchase.status !== 'success' && purchase.status !== 'reversed')) return docs;
  const charged = readInteger(purchase.charged_kobo, 'transactions.charged_kobo');
  const sale = saleLines(facts.costs.get(row.reference), charged, 1);
  docs.push(
    journalDoc({
      id: journalIds.settle(row.reference),
      entryId: entryIdOf(row._id, 1),
      kind: 'settle',
      mode: readMode(purchase.mode, 'transactions.mode'),
      reference: row.reference,
      at: purchase.status === 'success' ? purchase.updated_at : purchase.created_at,
      postings: lines({ account: 'held:purchases', amountKobo: charged }, sale.revenue, ...sale.costLines),
    }),
  );
  return docs;
}

/** A purchase's refund: what was held back to the wallet, or (reversed) what its settle booked. */
function refundEntry(row: HistoryLedgerRow, mode: Mode, amount: number, facts: HistoryFacts): JournalDoc | null {
  const purchase = facts.purchases.get(row.reference);
  if (purchase === undefined) return null;
  const debit = facts.debits.get(row.reference);
  const common = {
    id: journalIds.ofLedgerEntry(row._id),
    // Right after the purchase's reserve and settle, whichever core wrote them.
    entryId: debit === undefined ? entryIdOf(row._id, 0) : entryIdOf(debit, 2),
    mode,
    reference: row.reference,
    at: row.created_at,
  };
  if (purchase.status !== 'reversed')
    return journalDoc({
      ...common,
      kind: 'refund',
      postings: lines(
        { account: 'held:purchases', amountKobo: amount },
        { account: wallet(row.account_id), amountKobo: -amount },
      ),
    });
  const sale = saleLines(facts.costs.get(row.reference), amount, -1);
  return journalDoc({
    ...common,
    kind: 'reverse',
    postings: lines(sale.revenue, { account: wallet(row.account_id), amountKobo: -amount }, ...sale.costLines),
  });
}

/** A credit: a bank transfer's receipt and credit less the fee, or the operator's. */
function creditEntries(row: HistoryLedgerRow, mode: Mode, amount: number, facts: HistoryFacts): JournalDoc[] {
  const inflow = facts.inflows.get(row.reference);
  const common = { mode, reference: row.reference, at: row.created_at };
  if (
    inflow === undefined ||
    inflow.status !== 'credited' ||
    inflow.account_id !== row.account_id ||
    readMode(inflow.mode, 'inflows.mode') !== mode
  )
    return [
      journalDoc({
        ...common,
        id: journalIds.ofLedgerEntry(row._id),
        entryId: entryIdOf(row._id, 0),
        kind: 'credit',
        postings: lines(
          { account: 'adjustments:manual', amountKobo: amount },
          { account: wallet(row.account_id), amountKobo: -amount },
        ),
      }),
    ];
  const paid = Math.max(readInteger(inflow.amount_paid_kobo, 'inflows.amount_paid_kobo'), amount);
  return [
    journalDoc({
      ...common,
      id: journalIds.received(inflow._id),
      entryId: entryIdOf(row._id, 0),
      kind: 'inflow_received',
      postings: lines(
        { account: `funding:${inflow.provider}:clearing`, amountKobo: paid },
        { account: 'held:inflows', amountKobo: -paid },
      ),
    }),
    journalDoc({
      ...common,
      id: journalIds.ofLedgerEntry(row._id),
      entryId: entryIdOf(row._id, 1),
      kind: 'inflow_credited',
      postings: lines(
        { account: 'held:inflows', amountKobo: paid },
        { account: wallet(row.account_id), amountKobo: -amount },
        { account: 'revenue:funding_fees', amountKobo: amount - paid },
      ),
    }),
  ];
}

/** The entries of one batch of ledger entries (pure: the step's reads are its arguments). */
function historyEntries(rows: readonly HistoryLedgerRow[], facts: HistoryFacts): JournalDoc[] {
  const docs: JournalDoc[] = [];
  for (const row of rows) {
    const mode = readMode(row.mode, 'ledger_entries.mode');
    const amount = readInteger(row.amount_kobo, 'ledger_entries.amount_kobo');
    if (row.kind === 'debit') docs.push(...purchaseEntries(row, mode, -amount, facts));
    else if (row.kind === 'refund') {
      const refund = refundEntry(row, mode, amount, facts);
      if (refund !== null) docs.push(refund);
    } else if (row.kind === 'credit') docs.push(...creditEntries(row, mode, amount, facts));
    else if (row.kind === 'manual_debit')
      docs.push(
        journalDoc({
          id: journalIds.ofLedgerEntry(row._id),
          entryId: entryIdOf(row._id, 0),
          kind: 'debit',
          mode,
          reference: row.reference,
          at: row.created_at,
          postings: lines(
            { account: wallet(row.account_id), amountKobo: -amount },
            { account: 'adjustments:manual', amountKobo: amount },
          ),
        }),
      );
  }
  return docs;
}

/** A confirmed transfer in no wallet yet: received at its provider, held for a person. */
function waitingInflowEntry(inflow: HistoryInflow): JournalDoc {
  const paid = readInteger(inflow.amount_paid_kobo, 'inflows.amount_paid_kobo');
  // At its second: an ObjectId made of a time alone sorts before every other one of that second.
  const second = ObjectId.createFromTime(Math.floor(inflow.created_at.getTime() / 1000));
  return journalDoc({
    id: journalIds.received(inflow._id),
    entryId: `${entryIdOf(second, 9)}:${inflow._id}`,
    kind: 'inflow_received',
    mode: readMode(inflow.mode, 'inflows.mode'),
    reference: inflow._id,
    at: inflow.created_at,
    postings: lines(
      { account: `funding:${inflow.provider}:clearing`, amountKobo: paid },
      { account: 'held:inflows', amountKobo: -paid },
    ),
  });
}

/** The facts one batch needs, one read per collection. */
async function factsOf(target: SchemaTarget, rows: readonly HistoryLedgerRow[]): Promise<HistoryFacts> {
  const references = [...new Set(rows.filter((r) => r.kind !== 'credit').map((r) => r.reference))];
  const refunded = [...new Set(rows.filter((r) => r.kind === 'refund').map((r) => r.reference))];
  const credited = [...new Set(rows.filter((r) => r.kind === 'credit').map((r) => r.reference))];
  const purchases = (await target.find(COLLECTIONS.transactions, { _id: { $in: references } })) as HistoryPurchase[];
  const delivered = purchases.filter((p) => p.status === 'success' || p.status === 'reversed').map((p) => p._id);
  const debits = await target.find(COLLECTIONS.ledger, { reference: { $in: refunded }, kind: 'debit' });
  // The last attempt of each purchase that recorded a cost: sorted by seq, the later ones win.
  const attempts = await target.find(
    SUPPLY_COLLECTIONS.attempts,
    { reference: { $in: delivered }, outcome: 'delivered', cost_kobo: { $ne: null } },
    { reference: 1, seq: 1 },
  );
  const costs = new Map<string, { upstream: string; costKobo: number }>();
  for (const a of attempts)
    costs.set(a['reference'] as string, { upstream: a['upstream'] as string, costKobo: Number(a['cost_kobo']) });
  // Read by _id (a credited inflow's credit reference is its id), then matched on the credit reference itself.
  const inflows = (await target.find(FUNDING_COLLECTIONS.inflows, {
    _id: { $in: credited },
    status: 'credited',
  })) as HistoryInflow[];
  return {
    purchases: new Map(purchases.map((p) => [p._id, p])),
    debits: new Map(debits.map((d) => [d['reference'] as string, d['_id'] as ObjectId])),
    costs,
    inflows: new Map(inflows.map((i) => [i.credit_reference, i])),
  };
}

/** Books the whole history, batch by batch; returns how many entries it wrote (those already there are kept). */
export async function migrateHistory(target: SchemaTarget, batch = HISTORY_BATCH): Promise<number> {
  let written = 0;
  let after: ObjectId | null = null;
  for (;;) {
    const filter: Document = after === null ? {} : { _id: { $gt: after } };
    const rows = (await target.find(COLLECTIONS.ledger, filter, { _id: 1 }, batch)) as HistoryLedgerRow[];
    if (rows.length === 0) break;
    written += await target.insertNew(JOURNAL_COLLECTION, historyEntries(rows, await factsOf(target, rows)));
    after = rows[rows.length - 1]!._id;
  }
  let afterInflow: string | null = null;
  for (;;) {
    const filter: Document = { status: { $in: ['verified', 'unmatched'] } };
    if (afterInflow !== null) filter['_id'] = { $gt: afterInflow };
    const inflows = (await target.find(FUNDING_COLLECTIONS.inflows, filter, { _id: 1 }, batch)) as HistoryInflow[];
    if (inflows.length === 0) break;
    written += await target.insertNew(JOURNAL_COLLECTION, inflows.map(waitingInflowEntry));
    afterInflow = inflows[inflows.length - 1]!._id;
  }
  return written;
}

/** Each wallet's sum of postings, per account and mode. */
const WALLET_SUMS: Document[] = [
  { $match: { 'postings.account': { $regex: '^wallet:' } } },
  { $unwind: '$postings' },
  { $match: { 'postings.account': { $regex: '^wallet:' } } },
  { $group: { _id: { account: '$postings.account', mode: '$mode' }, sum: { $sum: '$postings.amountKobo' } } },
];
const MODE_SUMS: Document[] = [
  { $unwind: '$postings' },
  { $group: { _id: '$mode', sum: { $sum: '$postings.amountKobo' } } },
];
const BALANCES: Document[] = [{ $project: { balance_kobo: 1, test_balance_kobo: 1 } }];
/**
 * Delivered purchases whose settle is not in the books (a settle moves no wallet, so the
 * wallets cannot show one a core of the earlier build made during the step): the first few.
 */
const UNSETTLED: Document[] = [
  { $match: { status: { $in: ['success', 'reversed'] } } },
  { $set: { settle_id: { $concat: ['settle:', '$_id'] } } },
  { $lookup: { from: JOURNAL_COLLECTION, localField: 'settle_id', foreignField: '_id', as: 'settles' } },
  { $match: { settles: { $size: 0 } } },
  { $limit: 5 },
  { $project: { status: 1 } },
];

/** What the check found wrong, one sentence each; empty when the books agree with every wallet. */
export function historyDisagreements(
  balances: readonly Document[],
  walletSums: readonly Document[],
  modeSums: readonly Document[],
  unsettled: readonly Document[] = [],
): string[] {
  const found: string[] = [];
  for (const row of unsettled) found.push(`the ${String(row['status'])} purchase ${String(row['_id'])} has no settle`);
  for (const row of modeSums) {
    const sum = readInteger(row['sum'], 'sum of postings');
    if (sum !== 0) found.push(`the ${String(row['_id'])} postings sum to ${sum} kobo, not zero`);
  }
  const sums = new Map<string, number>();
  for (const row of walletSums)
    sums.set(`${row['_id'].account} ${row['_id'].mode}`, readInteger(row['sum'], 'sum of postings'));
  for (const account of balances) {
    for (const mode of ['live', 'test'] as const) {
      const balance = readInteger(account[mode === 'live' ? 'balance_kobo' : 'test_balance_kobo'] ?? 0, 'balance');
      const postings = -(sums.get(`wallet:${String(account['_id'])} ${mode}`) ?? 0);
      if (balance !== postings)
        found.push(`the ${mode} wallet of ${String(account['_id'])} holds ${balance} kobo, its postings ${postings}`);
    }
  }
  return found;
}

/**
 * The check at the end of the step: in one snapshot, every wallet against its postings, each
 * mode's sum, and every delivered purchase's settle.
 */
export async function checkHistory(target: SchemaTarget): Promise<void> {
  const [balances, walletSums, modeSums, unsettled] = await target.readAtOnce([
    { collection: COLLECTIONS.accounts, pipeline: BALANCES },
    { collection: JOURNAL_COLLECTION, pipeline: WALLET_SUMS },
    { collection: JOURNAL_COLLECTION, pipeline: MODE_SUMS },
    { collection: COLLECTIONS.transactions, pipeline: UNSETTLED },
  ]);
  const found = historyDisagreements(balances ?? [], walletSums ?? [], modeSums ?? [], unsettled ?? []);
  if (found.length === 0) return;
  throw new Error(
    `schema step 28 (the books): after booking the history, ${found.length} disagreement(s): ` +
      `${found.slice(0, 5).join('; ')}${found.length > 5 ? '; ...' : ''}. A core of an earlier build still ` +
      'writing money moves without their entries causes this: stop every such core and start again (the step ' +
      'resumes and books what they wrote); otherwise run `npx prepaid ledger check` and see docs/money.md.',
  );
}
