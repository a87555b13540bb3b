/**
 * The books: the platform's chart of accounts and the postings every money move makes in it
 * (docs/money.md, The books). Pure rules: each adapter writes exactly the postings these
 * functions return, in the transaction of the move, and its store refuses an entry whose
 * postings do not sum to zero.
 *
 * Postings are signed the accountant's way: a debit is positive, a credit negative, and every
 * entry sums to zero. Assets (an upstream's float, a funding provider's clearing, the bank)
 * and expenses (cost of sales, fees) carry debit balances; what the platform owes (a holder's
 * wallet, money held for purchases or waiting for a person) and what it earned carry credit
 * balances. A holder's balance is therefore minus the sum of its wallet's postings.
 */
import type { Kobo } from './money.js';

/** The accounts of the chart. Every one exists once per mode: the test world has books of its own. */
type BookAccount =
  /** What the platform owes one holder: their wallet. */
  | `wallet:${string}`
  /** Charges reserved for purchases that are not final yet (pending). */
  | 'held:purchases'
  /** Transfers a funding provider confirmed that are in no wallet yet (verified, unmatched). */
  | 'held:inflows'
  /** Credits over a wallet's identity level limits, held until the level rises or staff return them (docs/kyc.md). */
  | 'held:over_limit'
  /** Charges of delivered purchases whose cost is known. */
  | 'revenue:sales'
  /** Charges of delivered purchases whose cost nobody recorded (before the books, or an upstream that did not say). */
  | 'revenue:sales_cost_unknown'
  /** The platform's funding fee on inflows. */
  | 'revenue:funding_fees'
  /** What we prepaid at one upstream instance and have not spent there: its float. */
  | `upstream:${string}:float`
  /** What delivered purchases cost at one upstream instance. */
  | `upstream:${string}:cost`
  /** Money a funding provider received for us and has not settled to our bank. */
  | `funding:${string}:clearing`
  /** What a funding provider kept of it: its own fees. */
  | `funding:${string}:fees`
  /** The other side of the operator's manual credits and debits. */
  | 'adjustments:manual'
  /** Our bank account: settlements in, upstream top-ups out. */
  | 'world:bank';

export type BookAccountKind = 'asset' | 'liability' | 'revenue' | 'expense' | 'equity';

/** One line of an entry: an account and a signed amount (debit positive). */
export interface Posting {
  account: BookAccount;
  amountKobo: number;
}

/** The account of one holder's wallet. */
function walletAccount(accountId: string): BookAccount {
  return `wallet:${accountId}`;
}

function floatAccount(upstream: string): BookAccount {
  return `upstream:${upstream}:float`;
}

function costAccount(upstream: string): BookAccount {
  return `upstream:${upstream}:cost`;
}

function clearingAccount(provider: string): BookAccount {
  return `funding:${provider}:clearing`;
}

function feesAccount(provider: string): BookAccount {
  return `funding:${provider}:fees`;
}

/** What kind an account is, read from its name; null for a name outside the chart. */
export function accountKind(account: string): BookAccountKind | null {
  if (account.startsWith('wallet:') && account.length > 'wallet:'.length) return 'liability';
  if (account === 'held:purchases' || account === 'held:inflows' || account === 'held:over_limit') return 'liability';
  if (account === 'revenue:sales' || account === 'revenue:sales_cost_unknown' || account === 'revenue:funding_fees')
    return 'revenue';
  if (account === 'adjustments:manual') return 'equity';
  if (account === 'world:bank') return 'asset';
  const parts = account.split(':');
  if (parts.length !== 3 || parts[1] === '') return null;
  if (parts[0] === 'upstream') return parts[2] === 'float' ? 'asset' : parts[2] === 'cost' ? 'expense' : null;
  if (parts[0] === 'funding') return parts[2] === 'clearing' ? 'asset' : parts[2] === 'fees' ? 'expense' : null;
  return null;
}

/** Whether the postings make an entry the store may keep: two lines or more, whole kobo, summing to zero. */
export function isBalanced(postings: readonly Posting[]): boolean {
  if (postings.length < 2) return false;
  let sum = 0;
  for (const posting of postings) {
    if (!Number.isSafeInteger(posting.amountKobo) || posting.amountKobo === 0) return false;
    if (accountKind(posting.account) === null) return false;
    sum += posting.amountKobo;
  }
  return sum === 0;
}

/**
 * An entry's postings, with the lines of zero left out (a fee of nothing) and checked: a rule
 * below that produced an unbalanced entry is a programmer's error, thrown before any write.
 */
function entry(...postings: Posting[]): Posting[] {
  const lines = postings.filter((posting) => posting.amountKobo !== 0);
  if (!isBalanced(lines)) throw new RangeError(`books: unbalanced entry ${JSON.stringify(lines)}`);
  return lines;
}

/** The kinds of entry the journal writes, one per money move (docs/money.md lists what each posts). */
export type EntryKind =
  | 'reserve'
  | 'settle'
  | 'refund'
  | 'reverse'
  | 'cost_known'
  | 'credit'
  | 'debit'
  | 'inflow_received'
  | 'inflow_credited'
  | 'inflow_returned'
  | 'upstream_funded'
  | 'provider_settled';

/** A purchase's reserve: its charge leaves the wallet and is held until the purchase is final. */
export function reservePostings(accountId: string, chargedKobo: Kobo): Posting[] {
  return entry(
    { account: walletAccount(accountId), amountKobo: chargedKobo },
    { account: 'held:purchases', amountKobo: -chargedKobo },
  );
}

/** What a delivered purchase cost, where an upstream said: booked against that upstream's float. */
export interface DeliveredCost {
  upstream: string;
  costKobo: Kobo;
}

/**
 * A delivered purchase: the held charge becomes revenue, and its cost moves out of the float of
 * the upstream that delivered it. With no cost known the charge is revenue of unknown cost, so a
 * margin is never claimed for it, and the float moves when the cost is learnt (costKnownPostings).
 */
export function settlePostings(chargedKobo: Kobo, cost: DeliveredCost | null): Posting[] {
  if (cost === null)
    return entry(
      { account: 'held:purchases', amountKobo: chargedKobo },
      { account: 'revenue:sales_cost_unknown', amountKobo: -chargedKobo },
    );
  return entry(
    { account: 'held:purchases', amountKobo: chargedKobo },
    { account: 'revenue:sales', amountKobo: -chargedKobo },
    { account: costAccount(cost.upstream), amountKobo: cost.costKobo },
    { account: floatAccount(cost.upstream), amountKobo: -cost.costKobo },
  );
}

/** A delivered purchase's cost learnt after it was settled without one. */
export function costKnownPostings(chargedKobo: Kobo, cost: DeliveredCost): Posting[] {
  return entry(
    { account: 'revenue:sales_cost_unknown', amountKobo: chargedKobo },
    { account: 'revenue:sales', amountKobo: -chargedKobo },
    { account: costAccount(cost.upstream), amountKobo: cost.costKobo },
    { account: floatAccount(cost.upstream), amountKobo: -cost.costKobo },
  );
}

/** A purchase that failed: its held charge goes back to the wallet. */
export function refundPostings(accountId: string, chargedKobo: Kobo): Posting[] {
  return entry(
    { account: 'held:purchases', amountKobo: chargedKobo },
    { account: walletAccount(accountId), amountKobo: -chargedKobo },
  );
}

/**
 * A delivered purchase the upstream undid: what its settle booked, and the cost_known entry
 * after it if its cost was learnt later, is taken back (the revenue to the wallet, its cost back
 * into the upstream's float). `booked` is those entries' postings; they are netted per account
 * first, so a charge moved from revenue of unknown cost to revenue leaves the one it is in now.
 */
export function reversePostings(accountId: string, booked: readonly Posting[]): Posting[] {
  const net = new Map<BookAccount, number>();
  for (const p of booked)
    if (p.account.startsWith('revenue:sales') || p.account.startsWith('upstream:'))
      net.set(p.account, (net.get(p.account) ?? 0) + p.amountKobo);
  const revenue = [...net].filter(([account, sum]) => account.startsWith('revenue:') && sum !== 0);
  if (revenue.length === 0) throw new RangeError('books: a reversal needs the settle it undoes');
  const charged = -revenue.reduce((sum, [, amount]) => sum + amount, 0);
  const cost = [...net].filter(([account]) => account.startsWith('upstream:'));
  return entry(
    ...revenue.map(([account, amount]) => ({ account, amountKobo: -amount })),
    { account: walletAccount(accountId), amountKobo: -charged },
    ...cost.map(([account, amount]) => ({ account, amountKobo: -amount })),
  );
}

/** The operator's credit of a wallet (money that reached us outside the funding providers). */
export function manualCreditPostings(accountId: string, amountKobo: Kobo): Posting[] {
  return entry(
    { account: 'adjustments:manual', amountKobo },
    { account: walletAccount(accountId), amountKobo: -amountKobo },
  );
}

/** The operator's debit of a wallet. */
export function manualDebitPostings(accountId: string, amountKobo: Kobo): Posting[] {
  return entry(
    { account: walletAccount(accountId), amountKobo },
    { account: 'adjustments:manual', amountKobo: -amountKobo },
  );
}

/** A transfer a funding provider confirmed: at the provider for us, in no wallet yet. */
export function inflowReceivedPostings(provider: string, amountPaidKobo: Kobo): Posting[] {
  return entry(
    { account: clearingAccount(provider), amountKobo: amountPaidKobo },
    { account: 'held:inflows', amountKobo: -amountPaidKobo },
  );
}

/**
 * A confirmed transfer credited to its wallet, less the platform's funding fee; `heldKobo` of it,
 * over the wallet's level limits, goes to held:over_limit instead of the wallet (docs/kyc.md).
 */
export function inflowCreditedPostings(
  accountId: string,
  amountPaidKobo: Kobo,
  feeKobo: Kobo,
  heldKobo: Kobo = 0 as Kobo,
): Posting[] {
  return entry(
    { account: 'held:inflows', amountKobo: amountPaidKobo },
    { account: walletAccount(accountId), amountKobo: -(amountPaidKobo - feeKobo - heldKobo) },
    { account: 'held:over_limit', amountKobo: -heldKobo },
    { account: 'revenue:funding_fees', amountKobo: -feeKobo },
  );
}

/** A credit held over the limits that staff decided to return: it leaves the books through the provider it came by. */
export function heldReturnedPostings(provider: string, amountKobo: Kobo): Posting[] {
  return entry(
    { account: 'held:over_limit', amountKobo },
    { account: clearingAccount(provider), amountKobo: -amountKobo },
  );
}

/** A credit held over the limits released to its wallet once the level allows it (an inflow_credited entry). */
export function heldReleasedPostings(accountId: string, amountKobo: Kobo): Posting[] {
  return entry(
    { account: 'held:over_limit', amountKobo },
    { account: walletAccount(accountId), amountKobo: -amountKobo },
  );
}

/** A confirmed transfer a person decided is not ours: it leaves the books as it came. */
export function inflowReturnedPostings(provider: string, amountPaidKobo: Kobo): Posting[] {
  return entry(
    { account: 'held:inflows', amountKobo: amountPaidKobo },
    { account: clearingAccount(provider), amountKobo: -amountPaidKobo },
  );
}

/** The operator's top-up of an upstream's float from our bank. */
export function upstreamFundedPostings(upstream: string, amountKobo: Kobo): Posting[] {
  return entry({ account: floatAccount(upstream), amountKobo }, { account: 'world:bank', amountKobo: -amountKobo });
}

/**
 * A funding provider's settlement to our bank: what it received for us leaves its clearing, the
 * bank gets the amount paid out, and what the provider kept is its fee (the line left out at 0).
 */
export function providerSettledPostings(provider: string, amountKobo: Kobo, feeKobo: Kobo): Posting[] {
  return entry(
    { account: 'world:bank', amountKobo },
    { account: feesAccount(provider), amountKobo: feeKobo },
    { account: clearingAccount(provider), amountKobo: -(amountKobo + feeKobo) },
  );
}
