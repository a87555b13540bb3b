/**
 * A varied stretch of business for the reports' tests, written through the store's one door as
 * the flow writes it: purchases of every product by accounts of three tiers, ended every way a
 * purchase ends (delivered at a known cost, delivered at an unknown cost and the cost learnt
 * later or never, delivered after a failover, failed, left pending, reversed after either kind
 * of settle, and a cost learnt only after the reversal), inflows credited with a fee, left
 * verified, unmatched, assigned by a person or rejected, the operator's own entries, and test
 * mode beside all of it. Drawn from a seeded generator, so a failure can be replayed.
 */

import { providerSettledPostings, upstreamFundedPostings } from '../../core/domain/books.js';
import { newInflowId } from '../../core/domain/funding.js';
import type { Mode } from '../../core/domain/mode.js';
import { type Kobo, kobo } from '../../core/domain/money.js';
import { PRODUCTS } from '../../core/domain/products.js';
import type { Store } from '../../core/store/port.js';
import { airtimePurchase } from './purchases.js';

/** A small deterministic generator (a linear congruence), so a failure replays from its seed. */
export function generator(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state * 1_664_525 + 1_013_904_223) >>> 0;
    return state / 2 ** 32;
  };
}

/**
 * The stretch runs over Lagos 30 and 31 March and 1 April 2031 (a month's end inside it), each
 * instant drawn so that many fall in the last and first hour of a Lagos day (23:00 UTC is
 * Lagos midnight), where a day's bucketing is easiest to get wrong.
 */
export const ACTIVITY_WINDOW = {
  from: new Date(Date.UTC(2031, 2, 29, 23)),
  until: new Date(Date.UTC(2031, 3, 1, 23)),
};
/** The Lagos dates of that window, as a report asks for them. */
export const ACTIVITY_DAYS = { from: '2031-03-30', to: '2031-04-01' };

const UPSTREAMS = ['vtpass', 'clubkonnect', 'ported'] as const;
const TIERS = ['standard', 'api', 'gold'] as const;
const ENDINGS = [
  'known',
  'known',
  'unknown',
  'learnt',
  'failover',
  'failed',
  'pending',
  'unattempted',
  'reverse_known',
  'reverse_learnt',
  'learnt_after_reverse',
] as const;

interface Activity {
  /** How many live purchases ended each way, so a test can show the sums are not empty. */
  endings: Map<string, number>;
  accountIds: string[];
}

export async function fillReportActivity(store: Store, seed: number, purchases = 160): Promise<Activity> {
  const random = generator(seed);
  const pick = <T>(items: readonly T[]): T => items[Math.floor(random() * items.length)]!;
  const span = ACTIVITY_WINDOW.until.getTime() - ACTIVITY_WINDOW.from.getTime();
  // A third of the instants within 40 minutes of a Lagos midnight, the rest anywhere; and a
  // few just outside the window, which no report of it may count.
  const instant = (): Date => {
    const roll = random();
    if (roll < 0.05) return new Date(ACTIVITY_WINDOW.from.getTime() - 1 - Math.floor(random() * 3_600_000));
    if (roll < 0.1) return new Date(ACTIVITY_WINDOW.until.getTime() + Math.floor(random() * 3_600_000));
    if (roll < 0.4) {
      const midnight = ACTIVITY_WINDOW.from.getTime() + Math.floor(random() * 4) * 86_400_000;
      return new Date(midnight - 2_400_000 + Math.floor(random() * 4_800_000));
    }
    return new Date(ACTIVITY_WINDOW.from.getTime() + Math.floor(random() * span));
  };
  const accountIds: string[] = [];
  for (const [i, tierId] of TIERS.entries()) {
    const accountId = `acct-report-${seed}-${i}`;
    await store.accounts.create({ accountId, name: `Report ${tierId}`, tierId, createdAt: new Date(0) });
    for (const mode of ['live', 'test'] as const)
      await store.ledger.post({
        kind: 'credit',
        credit: {
          accountId,
          mode,
          amountKobo: kobo(100_000_000),
          reference: `fund-${accountId}-${mode}`,
          memo: 'float',
          at: new Date(0),
        },
      });
    accountIds.push(accountId);
  }
  const endings = new Map<string, number>();
  for (let n = 0; n < purchases; n++) {
    const mode: Mode = random() < 0.15 ? 'test' : 'live';
    const ending = pick(ENDINGS);
    await purchase(store, {
      reference: `TX-${seed}-${n}`,
      accountId: pick(accountIds),
      mode,
      product: pick(PRODUCTS),
      chargedKobo: kobo(100 + Math.floor(random() * 500_000)),
      costKobo: kobo(Math.floor(random() * 400_000)),
      upstreams: [pick(UPSTREAMS), pick(UPSTREAMS)],
      ending,
      at: instant(),
    });
    if (mode === 'live') endings.set(ending, (endings.get(ending) ?? 0) + 1);
  }
  await inflows(store, accountIds, random, instant, () => (random() < 0.15 ? 'test' : 'live'));
  await ownEntries(store, seed);
  return { endings, accountIds };
}

/** More of the same in test mode alone, every ending of it, inside the window: no report may move. */
export async function fillTestMode(store: Store, accountIds: readonly string[], seed: number): Promise<void> {
  const random = generator(seed + 1);
  const instant = () => new Date(ACTIVITY_WINDOW.from.getTime() + 60_000 + Math.floor(random() * 86_400_000));
  for (const [n, ending] of ENDINGS.entries())
    await purchase(store, {
      reference: `TX-T-${seed}-${n}`,
      accountId: accountIds[n % accountIds.length]!,
      mode: 'test',
      product: PRODUCTS[n % PRODUCTS.length]!,
      chargedKobo: kobo(10_000 + n),
      costKobo: kobo(9_000),
      upstreams: ['vtpass', 'clubkonnect'],
      ending,
      at: instant(),
    });
  await inflows(store, accountIds, random, instant, () => 'test');
}

interface Purchase {
  reference: string;
  accountId: string;
  mode: Mode;
  product: (typeof PRODUCTS)[number];
  chargedKobo: Kobo;
  costKobo: Kobo;
  upstreams: readonly [string, string];
  ending: (typeof ENDINGS)[number];
  at: Date;
}

/** One purchase, its attempts and its end, as the flow and the recovery worker write them. */
async function purchase(store: Store, p: Purchase): Promise<void> {
  const { reference, at } = p;
  const tx = airtimePurchase(reference, {
    accountId: p.accountId,
    mode: p.mode,
    product: p.product,
    chargedKobo: p.chargedKobo,
    createdAt: at,
    nextAttemptAt: new Date(at.getTime() + 60_000),
  });
  const first = p.ending === 'unattempted' ? undefined : { upstream: p.upstreams[0] };
  const reserved = await store.ledger.post({ kind: 'reserve', tx, ...(first === undefined ? {} : { first }) });
  if (reserved.outcome !== 'reserved') throw new Error(`report activity: ${reference} was ${reserved.outcome}`);
  const delivered = (seq: number, costKobo: Kobo | null) => ({
    seq,
    outcome: 'delivered' as const,
    evidence: null,
    costKobo,
  });
  const settle = (attempt?: ReturnType<typeof delivered>) =>
    store.ledger.post({
      kind: 'settle',
      reference,
      result: { providerReference: 'P' },
      at,
      ...(attempt ? { attempt } : {}),
    });
  const unknownThenLearnt = async () => {
    await store.supply.endAttempt(reference, 1, { outcome: 'pending', evidence: null, costKobo: null, at });
    await settle();
  };
  const learn = () => store.ledger.post({ kind: 'cost_learnt', reference, seq: 1, costKobo: p.costKobo, at });
  const reverse = () => store.ledger.post({ kind: 'reverse', reference, reason: 'undone upstream', at });
  switch (p.ending) {
    case 'known':
      await settle(delivered(1, p.costKobo));
      break;
    case 'unknown':
      await settle(delivered(1, null));
      break;
    case 'unattempted':
      await settle();
      break;
    case 'learnt':
      await unknownThenLearnt();
      await learn();
      break;
    case 'failover':
      await store.supply.endAttempt(reference, 1, { outcome: 'not_delivered', evidence: null, costKobo: null, at });
      await store.supply.beginAttempt({ reference, seq: 2, upstream: p.upstreams[1], at });
      await settle(delivered(2, p.costKobo));
      break;
    case 'failed':
      await store.ledger.post({
        kind: 'refund',
        reference,
        reason: 'refused upstream',
        at,
        attempt: { seq: 1, outcome: 'failed', evidence: null, costKobo: null },
      });
      break;
    case 'pending':
      await store.supply.endAttempt(reference, 1, { outcome: 'pending', evidence: null, costKobo: null, at });
      break;
    case 'reverse_known':
      await settle(delivered(1, p.costKobo));
      await reverse();
      break;
    case 'reverse_learnt':
      await unknownThenLearnt();
      await learn();
      await reverse();
      break;
    case 'learnt_after_reverse':
      await unknownThenLearnt();
      await reverse();
      await learn();
      break;
  }
}

/** Transfers in: credited with a fee, left verified, unmatched, assigned by a person, rejected; some in test mode. */
async function inflows(
  store: Store,
  accountIds: readonly string[],
  random: () => number,
  instant: () => Date,
  modeOf: () => Mode,
): Promise<void> {
  for (let n = 0; n < 40; n++) {
    const inflowId = newInflowId();
    const fate = ['credited', 'credited', 'verified', 'unmatched', 'assigned', 'rejected'][Math.floor(random() * 6)]!;
    const mode = modeOf();
    const accountId = accountIds[Math.floor(random() * accountIds.length)]!;
    const matched = fate === 'credited' || fate === 'verified';
    const createdAt = instant();
    const amountPaidKobo = kobo(1_000 + Math.floor(random() * 2_000_000));
    await store.ledger.post({
      kind: 'inflow_record',
      inflow: {
        inflowId,
        provider: random() < 0.5 ? 'paystack' : 'monnify',
        providerReference: `REF-${inflowId}`,
        accountNumber: matched ? '9930000737' : '',
        accountId: matched ? accountId : null,
        mode,
        amountPaidKobo,
        payerName: 'ADA OBI',
        status: matched ? 'verified' : 'unmatched',
        reason: matched ? '' : 'no wallet has this account number',
        raw: '{}',
        createdAt,
      },
      credit: null,
    });
    const at = new Date(createdAt.getTime() + 60_000);
    const feeKobo = kobo(Math.floor(amountPaidKobo / 100));
    if (fate === 'credited' || fate === 'assigned')
      await store.ledger.post({
        kind: 'inflow_credit',
        inflowId,
        credit: { accountId, mode, feeKobo, at },
        from: fate === 'credited' ? 'verified' : 'unmatched',
      });
    if (fate === 'rejected') await store.ledger.post({ kind: 'inflow_reject', inflowId, reason: 'not ours', at });
  }
}

/** The operator's top-up of a float and a provider's settlement: in the books, in no report. */
async function ownEntries(store: Store, seed: number): Promise<void> {
  const audit = { actor: 'cli', action: 'books.own', target: 't', before: null, after: null, address: null, note: '' };
  const at = new Date(ACTIVITY_WINDOW.from.getTime() + 3_600_000);
  await store.ledger.post({
    kind: 'own_entry',
    entry: {
      kind: 'upstream_funded',
      mode: 'live',
      reference: `TOPUP-${seed}`,
      at,
      postings: upstreamFundedPostings('vtpass', kobo(50_000_000)),
    },
    audit: { ...audit, at },
  });
  await store.ledger.post({
    kind: 'own_entry',
    entry: {
      kind: 'provider_settled',
      mode: 'live',
      reference: `SETTLE-${seed}`,
      at,
      postings: providerSettledPostings('paystack', kobo(100_000), kobo(500)),
    },
    audit: { ...audit, at },
  });
}
