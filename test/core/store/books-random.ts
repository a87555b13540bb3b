/**
 * The books' generated property, adapter-neutral (run by conformance.ts, "the books", on every
 * adapter): a seeded sequence of random money moves through the store's one door, every kind
 * the core posts (credits, manual debits, purchases reserved, settled at a known or unknown
 * cost, the cost learnt later, refunded, reversed; inflows recorded, credited with a fee, left
 * unmatched, assigned or rejected; staff proposals approved; top-ups of an upstream's float and
 * a provider's settlements), and after each step: each mode's trial balance is zero, every
 * wallet equals minus its postings, and no wallet is negative. BOOKS_SEED replays a failure,
 * BOOKS_STEPS changes the length (2,000 by default).
 */
import * as assert from 'uvu/assert';
import { providerSettledPostings, upstreamFundedPostings } from '../../../core/domain/books.js';
import { newInflowId } from '../../../core/domain/funding.js';
import type { Mode } from '../../../core/domain/mode.js';
import { type Kobo, kobo } from '../../../core/domain/money.js';
import type { ProposalKind } from '../../../core/domain/staff.js';
import type { ProposedMove } from '../../../core/store/moves.js';
import type { Store } from '../../../core/store/port.js';
import { airtimePurchase } from '../../helpers/purchases.js';
import { generator } from '../../helpers/report-activity.js';

/** What the property needs of the conformance harness: the store, a new account, a unique name. */
export interface RandomMovesHost {
  store: Store;
  account(): Promise<string>;
  unique(kind: string): string;
}

const MOVES = [
  'credit',
  'debit',
  'buy',
  'buy',
  'settle',
  'refund',
  'reverse',
  'inflow',
  'assign',
  'reject',
  'approve',
  'top_up',
  'settlement',
] as const;

/** The state the sequence keeps between steps: purchases and inflows waiting for their next move. */
interface Open {
  pending: { reference: string; mode: Mode }[];
  delivered: { reference: string; mode: Mode }[];
  waiting: { inflowId: string; mode: Mode }[];
}

export async function randomMoves(host: RandomMovesHost): Promise<void> {
  const seed = Number(process.env['BOOKS_SEED'] ?? 20261202);
  const steps = Number(process.env['BOOKS_STEPS'] ?? 2_000);
  const random = generator(seed);
  const pick = <T>(items: readonly T[]): T => items[Math.floor(random() * items.length)]!;
  const take = <T>(items: T[]): T | undefined =>
    items.length === 0 ? undefined : items.splice(Math.floor(random() * items.length), 1)[0];
  const { store } = host;
  const accounts = [await host.account(), await host.account(), await host.account()];
  const open: Open = { pending: [], delivered: [], waiting: [] };
  const at = (step: number) => new Date(Date.UTC(2026, 10, 1, 9) + step * 1000);
  for (let step = 0; step < steps; step++) {
    const move = pick(MOVES);
    const context = {
      host,
      random,
      pick,
      take,
      open,
      accountId: pick(accounts),
      mode: (random() < 0.2 ? 'test' : 'live') as Mode,
      amountKobo: kobo(1 + Math.floor(random() * 20_000)),
      reference: host.unique(`R${step}`),
      at: at(step),
    };
    await STEP[move](context);
    await balanced(store, accounts, `seed ${seed}, step ${step} (${move})`);
  }
}

type Step = {
  host: RandomMovesHost;
  random: () => number;
  pick: <T>(items: readonly T[]) => T;
  take: <T>(items: T[]) => T | undefined;
  open: Open;
  accountId: string;
  mode: Mode;
  amountKobo: Kobo;
  reference: string;
  at: Date;
};

/** One random move of each kind; a move with nothing to act on does nothing. */
const STEP: Readonly<Record<(typeof MOVES)[number], (s: Step) => Promise<void>>> = {
  async credit({ host, accountId, mode, amountKobo, reference, at }) {
    await host.store.ledger.post({ kind: 'credit', credit: { accountId, mode, amountKobo, reference, memo: 'm', at } });
  },
  async debit({ host, accountId, mode, amountKobo, reference, at }) {
    await host.store.ledger.post({ kind: 'debit', debit: { accountId, mode, amountKobo, reference, reason: 'r', at } });
  },
  async buy({ host, pick, open, accountId, mode, amountKobo, reference, at }) {
    const tx = airtimePurchase(reference, { accountId, mode, chargedKobo: amountKobo, requestId: null, createdAt: at });
    const first = { upstream: pick(['vtpass', 'clubkonnect']) };
    if ((await host.store.ledger.post({ kind: 'reserve', tx, first })).outcome === 'reserved')
      open.pending.push({ reference, mode });
  },
  async settle({ host, random, take, open, at }) {
    const purchase = take(open.pending);
    if (purchase === undefined) return;
    const cost = random() < 0.7 ? kobo(Math.floor(random() * 9_000)) : null;
    const attempt =
      cost === null ? undefined : { seq: 1, outcome: 'delivered' as const, evidence: null, costKobo: cost };
    await host.store.ledger.post({ kind: 'settle', reference: purchase.reference, result: {}, at, attempt });
    if (cost === null && random() < 0.5)
      await host.store.ledger.post({
        kind: 'cost_learnt',
        reference: purchase.reference,
        seq: 1,
        costKobo: kobo(500),
        at,
      });
    open.delivered.push(purchase);
  },
  async refund({ host, take, open, at }) {
    const purchase = take(open.pending);
    if (purchase !== undefined)
      await host.store.ledger.post({ kind: 'refund', reference: purchase.reference, reason: 'x', at });
  },
  async reverse({ host, random, take, open, at }) {
    const purchase = take(open.delivered);
    if (purchase === undefined) return;
    await host.store.ledger.post({ kind: 'reverse', reference: purchase.reference, reason: 'x', at });
    // A late answer that the undone delivery had a cost: nothing more to book.
    if (random() < 0.3)
      await host.store.ledger.post({
        kind: 'cost_learnt',
        reference: purchase.reference,
        seq: 1,
        costKobo: kobo(7),
        at,
      });
  },
  async inflow({ host, random, pick, open, accountId, mode, amountKobo, reference, at }) {
    const inflowId = newInflowId();
    const unmatched = random() < 0.5;
    await host.store.ledger.post({
      kind: 'inflow_record',
      inflow: {
        inflowId,
        provider: pick(['paystack', 'monnify'] as const),
        providerReference: reference,
        accountNumber: '',
        accountId: unmatched ? null : accountId,
        mode,
        amountPaidKobo: amountKobo,
        payerName: 'P',
        status: unmatched ? 'unmatched' : 'verified',
        reason: unmatched ? 'no wallet' : '',
        raw: '{}',
        createdAt: at,
      },
      credit: null,
    });
    if (unmatched) open.waiting.push({ inflowId, mode });
    else
      await host.store.ledger.post({
        kind: 'inflow_credit',
        inflowId,
        credit: { accountId, mode, feeKobo: kobo(Math.floor(amountKobo / 100)), at },
        from: 'verified',
      });
  },
  async assign({ host, take, open, accountId, at }) {
    const inflow = take(open.waiting);
    if (inflow !== undefined)
      await host.store.ledger.post({
        kind: 'inflow_credit',
        inflowId: inflow.inflowId,
        credit: { accountId, mode: inflow.mode, feeKobo: kobo(0), at },
        from: 'unmatched',
      });
  },
  async reject({ host, take, open, at }) {
    const inflow = take(open.waiting);
    if (inflow !== undefined)
      await host.store.ledger.post({ kind: 'inflow_reject', inflowId: inflow.inflowId, reason: 'not ours', at });
  },
  approve: approveStep,
  async top_up({ host, pick, amountKobo, reference, at }) {
    const upstream = pick(['vtpass', 'clubkonnect']);
    await host.store.ledger.post({
      kind: 'own_entry',
      entry: {
        kind: 'upstream_funded',
        mode: 'live',
        reference,
        at,
        postings: upstreamFundedPostings(upstream, amountKobo),
      },
      audit: {
        at,
        actor: 'cli',
        action: 'upstreams.fund',
        target: upstream,
        before: null,
        after: null,
        address: null,
        note: '',
      },
    });
  },
  async settlement({ host, random, pick, reference, at }) {
    // What the provider holds for us, paid out less a fee it keeps: never more than it holds.
    const provider = pick(['paystack', 'monnify'] as const);
    const clearing = await host.store.books.sumOf(`funding:${provider}:clearing`, 'live');
    if (clearing < 2) return;
    const feeKobo = kobo(Math.floor(random() * Math.min(clearing / 2, 1_000)));
    const amountKobo = kobo(1 + Math.floor(random() * (clearing - feeKobo - 1)));
    await host.store.ledger.post({
      kind: 'own_entry',
      entry: {
        kind: 'provider_settled',
        mode: 'live',
        reference,
        at,
        postings: providerSettledPostings(provider, amountKobo, feeKobo),
      },
      audit: {
        at,
        actor: 'cli',
        action: 'books.settle',
        target: provider,
        before: null,
        after: null,
        address: null,
        note: '',
      },
    });
  },
};

/** A staff proposal (live money only) approved by a second person: a credit, a debit, a pending purchase failed, a delivery refunded, an inflow assigned. */
async function approveStep({ host, pick, open, accountId, amountKobo, reference, at }: Step): Promise<void> {
  const kind = pick<ProposalKind>(['credit', 'debit', 'pending_failed', 'refund', 'inflow_assign']);
  const live = <T extends { mode: Mode }>(items: T[]): T | undefined => {
    const found = items.findIndex((item) => item.mode === 'live');
    return found < 0 ? undefined : items.splice(found, 1)[0];
  };
  let move: ProposedMove | undefined;
  let target = accountId;
  if (kind === 'credit')
    move = { kind: 'credit', credit: { accountId, mode: 'live', amountKobo, reference, memo: 'Manual credit', at } };
  if (kind === 'debit')
    move = { kind: 'debit', debit: { accountId, mode: 'live', amountKobo, reference, reason: 'fee', at } };
  if (kind === 'pending_failed' || kind === 'refund') {
    const purchase = live(kind === 'pending_failed' ? open.pending : open.delivered);
    if (purchase === undefined) return;
    target = purchase.reference;
    const reason = 'Resolved by staff';
    move = { kind: kind === 'refund' ? 'reverse' : 'refund', reference: purchase.reference, reason, at };
  }
  if (kind === 'inflow_assign') {
    const inflow = live(open.waiting);
    if (inflow === undefined) return;
    target = inflow.inflowId;
    move = {
      kind: 'inflow_credit',
      inflowId: inflow.inflowId,
      credit: { accountId, mode: 'live', feeKobo: kobo(0), at },
      from: 'unmatched',
    };
  }
  if (move === undefined) return;
  const proposalId = host.unique('prp');
  await host.store.proposals.insert({
    proposalId,
    kind,
    accountId,
    target,
    amountKobo,
    feeKobo: kobo(0),
    note: 'random',
    reference: kind === 'credit' || kind === 'debit' ? reference : '',
    memo: '',
    proposedBy: 'staff:ada@example.ng',
    proposedAt: at,
    expiresAt: new Date(at.getTime() + 86_400_000),
    status: 'pending',
    decidedBy: null,
    decidedAt: null,
    appliedAt: null,
  });
  const approved = await host.store.ledger.post({
    kind: 'approve',
    proposalId,
    by: 'staff:bob@example.ng',
    at,
    move,
    audit: { actor: 'staff:bob@example.ng', address: null, note: '', before: null, afterExtra: {} },
  });
  // Only a debit the wallet cannot cover is not applied, and then nothing was written.
  assert.ok(
    approved.outcome === 'applied' || (kind === 'debit' && approved.outcome === 'not_applied'),
    `the ${kind} proposal was ${approved.outcome}`,
  );
}

/** After every step: each mode's trial balance is zero, and every wallet is minus its postings and not negative. */
async function balanced(store: Store, accounts: readonly string[], where: string): Promise<void> {
  const sums = await store.books.sums();
  for (const mode of ['live', 'test'] as const) {
    const total = sums.filter((row) => row.mode === mode).reduce((sum, row) => sum + row.sumKobo, 0);
    assert.is(total, 0, `${where}: the ${mode} trial balance is zero`);
  }
  for (const id of accounts) {
    const account = (await store.accounts.get(id))!;
    for (const mode of ['live', 'test'] as const) {
      const wallet = sums.find((row) => row.account === `wallet:${id}` && row.mode === mode)?.sumKobo ?? 0;
      const balance = mode === 'live' ? account.balanceKobo : account.testBalanceKobo;
      assert.ok(balance >= 0, `${where}: no wallet is negative`);
      assert.is(-wallet, balance, `${where}: ${id}'s ${mode} wallet equals its postings`);
    }
  }
}
