import * as assert from 'uvu/assert';
import { kobo } from '../../../core/domain/money.js';
import {
  balanceChain,
  classifyMatch,
  type FloatMovement,
  type PurchaseMovement,
} from '../../../core/domain/reconcile.js';
import { suite } from '../../helpers/suite.js';

const test = suite('reconciliation: the balance chain and the daily match');

const at = (minute: number) => new Date(Date.UTC(2026, 11, 1, 9, minute));
const bought = (
  reference: string,
  minute: number,
  costKobo: number,
  reported: { before?: number; after?: number } = {},
  outcome: PurchaseMovement['outcome'] = 'success',
): PurchaseMovement => ({
  kind: 'purchase',
  reference,
  at: at(minute),
  outcome,
  bookedCostKobo: kobo(costKobo),
  ...(reported.before === undefined ? {} : { reportedBeforeKobo: kobo(reported.before) }),
  ...(reported.after === undefined ? {} : { reportedAfterKobo: kobo(reported.after) }),
});
const refs = (moves: readonly FloatMovement[]) => moves.map((m) => m.reference);

test('every balance told agrees with the books: no drift, nothing between', () => {
  // The ported-number family's balance_before/balance_after on each record (the family's samples).
  const chain = balanceChain(
    kobo(269_860),
    [bought('A', 1, 23_900, { before: 269_860, after: 245_960 }), bought('B', 2, 9_700, { before: 245_960 })],
    [{ at: at(3), balanceKobo: kobo(236_260) }],
  );
  assert.is(chain.checkpoints.length, 4);
  assert.is(chain.driftKobo, 0);
  assert.is(chain.firstDisagreeing, undefined);
  assert.equal(chain.between, []);
  assert.equal(chain.steps, []);
  assert.is(chain.closingExpectedKobo, 236_260);
});

test('a purchase charged more than booked: the chain breaks across it alone', () => {
  const chain = balanceChain(
    kobo(100_000),
    [
      bought('A', 1, 10_000, { before: 100_000, after: 90_000 }),
      bought('B', 2, 10_000, { before: 90_000, after: 79_000 }),
      bought('C', 3, 10_000, { before: 79_000, after: 69_000 }),
    ],
    [],
  );
  assert.is(chain.lastAgreeing?.source, 'before');
  assert.is(chain.lastAgreeing?.reference, 'B');
  assert.is(chain.firstDisagreeing?.source, 'after');
  assert.is(chain.firstDisagreeing?.reference, 'B');
  assert.is(chain.firstDisagreeing?.driftKobo, -1_000, 'the upstream holds 10 naira less than the books');
  assert.equal(refs(chain.between), ['B']);
  assert.is(chain.driftKobo, -1_000, 'the drift stays to the end');
  assert.is(chain.steps.length, 1);
});

test('periodic readings only: the purchases between the last agreeing reading and the first that does not', () => {
  // VTpass tells its balance only through `GET balance` (numeric `contents.balance`).
  const chain = balanceChain(
    kobo(500_000),
    [bought('A', 1, 10_000), bought('B', 5, 20_000), bought('C', 6, 30_000), bought('D', 9, 5_000)],
    [
      { at: at(2), balanceKobo: kobo(490_000) },
      { at: at(7), balanceKobo: kobo(430_000) },
      { at: at(10), balanceKobo: kobo(425_000) },
    ],
  );
  assert.is(chain.lastAgreeing?.at.getTime(), at(2).getTime());
  assert.is(chain.firstDisagreeing?.at.getTime(), at(7).getTime());
  assert.is(chain.firstDisagreeing?.expectedKobo, 440_000);
  assert.is(chain.firstDisagreeing?.driftKobo, -10_000);
  assert.equal(refs(chain.between), ['B', 'C']);
  assert.is(chain.driftKobo, -10_000);
});

test('a drift with no purchase between: money moved at the upstream outside our purchases', () => {
  const chain = balanceChain(
    kobo(100_000),
    [bought('A', 1, 10_000, { before: 100_000, after: 90_000 }), bought('B', 3, 10_000, { before: 85_000 })],
    [],
  );
  assert.is(chain.lastAgreeing?.reference, 'A');
  assert.is(chain.firstDisagreeing?.reference, 'B');
  assert.is(chain.firstDisagreeing?.source, 'before');
  assert.equal(chain.between, [], 'between A after and B before there is nothing of ours');
});

test('a top-up our books have moves the expected float; a failed or pending purchase books no cost', () => {
  const chain = balanceChain(
    kobo(10_000),
    [
      { kind: 'top_up', reference: 'T1', at: at(1), amountKobo: kobo(100_000) },
      bought('F', 2, 0, { before: 110_000, after: 110_000 }, 'failed'),
      // A pending purchase: VTpass says a pending one is already charged, our books hold it.
      bought('P', 3, 0, {}, 'pending'),
    ],
    [{ at: at(4), balanceKobo: kobo(100_000) }],
  );
  assert.is(chain.lastAgreeing?.reference, 'F');
  assert.is(chain.firstDisagreeing?.source, 'reading');
  assert.equal(refs(chain.between), ['P'], 'the pending purchase is the one to look at');
});

test('the first point already disagrees: nothing agreed before it, every movement up to it is between', () => {
  const chain = balanceChain(
    kobo(50_000),
    [bought('A', 1, 1_000), bought('B', 2, 1_000)],
    [{ at: at(3), balanceKobo: kobo(47_500) }],
  );
  assert.is(chain.lastAgreeing, undefined);
  assert.equal(refs(chain.between), ['A', 'B']);
  assert.is(chain.steps[0]?.from, undefined);
  assert.is(chain.steps[0]?.changeKobo, -500);
});

test('two breaks: each change of the drift is a step with its own purchases between', () => {
  const chain = balanceChain(
    kobo(100_000),
    [
      bought('A', 1, 10_000, { before: 100_000, after: 89_000 }),
      bought('B', 2, 10_000, { before: 89_000, after: 79_000 }),
      bought('C', 3, 10_000, { before: 79_000, after: 68_000 }),
    ],
    [],
  );
  assert.equal(
    chain.steps.map((s) => [s.changeKobo, refs(s.between)]),
    [
      [-1_000, ['A']],
      [-1_000, ['C']],
    ],
  );
  assert.is(chain.driftKobo, -2_000);
});

test('ClubKonnect tells only the balance after each order (walletbalance; unsure whether after the order or at the query)', () => {
  const chain = balanceChain(
    kobo(365_145),
    [bought('A', 1, 9_650, { after: 355_495 }), bought('B', 2, 9_650, { after: 345_845 })],
    [],
  );
  assert.is(chain.driftKobo, 0);
  assert.is(chain.checkpoints.length, 2);
});

test('a reading at the same instant as a purchase comes after it', () => {
  const chain = balanceChain(kobo(1_000), [bought('A', 1, 100)], [{ at: at(1), balanceKobo: kobo(900) }]);
  assert.is(chain.driftKobo, 0);
});

const cost = kobo(9_650);

test('match: delivered here and there at the same cost agrees', () => {
  assert.equal(classifyMatch({ outcome: 'success', costKobo: cost }, { status: 'delivered', chargedKobo: cost }), {
    class: 'agrees',
    atStakeKobo: 0,
    ourCostKobo: cost,
    theirChargedKobo: cost,
  });
});

test('match: delivered here, failed there: the upstream kept the cost the books took (a gain there; the customer paid)', () => {
  const match = classifyMatch({ outcome: 'success', costKobo: cost }, { status: 'failed' });
  assert.is(match.class, 'delivered_here_failed_there');
  assert.is(match.atStakeKobo, 9_650);
});

test('match: failed or reversed here, delivered there: the charge is lost', () => {
  for (const outcome of ['failed', 'reversed'] as const) {
    const match = classifyMatch({ outcome }, { status: 'delivered', chargedKobo: cost });
    assert.is(match.class, 'failed_here_delivered_there', outcome);
    assert.is(match.atStakeKobo, -9_650, outcome);
  }
});

test('match: two charges for one order there (the ported-number history by ident) is charged twice, one charge lost', () => {
  const match = classifyMatch(
    { outcome: 'success', costKobo: cost },
    { status: 'delivered', chargedKobo: cost, charges: 2 },
  );
  assert.is(match.class, 'charged_twice_there');
  assert.is(match.atStakeKobo, -9_650);
  // Even for a purchase still pending here.
  assert.is(
    classifyMatch({ outcome: 'pending' }, { status: 'delivered', chargedKobo: cost, charges: 3 }).atStakeKobo,
    -19_300,
  );
});

test('match: a cost that differs, signed as the platform gains or loses', () => {
  const more = classifyMatch(
    { outcome: 'success', costKobo: cost },
    { status: 'delivered', chargedKobo: kobo(10_000) },
  );
  assert.is(more.class, 'cost_differs');
  assert.is(more.atStakeKobo, -350, 'charged 3.50 naira more than booked');
  const less = classifyMatch({ outcome: 'success', costKobo: cost }, { status: 'delivered', chargedKobo: kobo(9_000) });
  assert.is(less.atStakeKobo, 650);
  // No charged amount there (VTpass's cost fields are unsure): nothing to compare.
  assert.is(classifyMatch({ outcome: 'success', costKobo: cost }, { status: 'delivered' }).class, 'agrees');
});

test('match: unknown there', () => {
  const delivered = classifyMatch({ outcome: 'success', costKobo: cost }, { status: 'unknown' });
  assert.is(delivered.class, 'unknown_there');
  assert.is(delivered.atStakeKobo, -9_650);
  assert.is(classifyMatch({ outcome: 'success', costKobo: cost }, { status: 'not_found' }).class, 'unknown_there');
  // A failure here was proven; an upstream that cannot tell or never heard of it adds nothing.
  assert.is(classifyMatch({ outcome: 'failed' }, { status: 'unknown' }).class, 'agrees');
  assert.is(classifyMatch({ outcome: 'reversed' }, { status: 'unknown' }).class, 'agrees');
  assert.is(classifyMatch({ outcome: 'failed' }, { status: 'not_found' }).class, 'agrees');
  assert.is(classifyMatch({ outcome: 'failed' }, { status: 'failed' }).class, 'agrees');
});

test('match: a purchase pending here is the recovery worker’s', () => {
  for (const status of ['delivered', 'failed', 'unknown', 'not_found'] as const)
    assert.is(classifyMatch({ outcome: 'pending' }, { status }).class, 'agrees', status);
});

test.run();
