/**
 * What each upstream says it charged us, read from its answer (each upstream's
 * documentation; docs/upstreams.md): only figures the answer states, to the nearest kobo, never a guess.
 */
import * as assert from 'uvu/assert';
import { kobo } from '../../../core/domain/money.js';
import { classifyClubkonnect } from '../../../core/providers/clubkonnect/codes.js';
import { nairaCostToKobo } from '../../../core/providers/naira-text.js';
import { portedNumberCost } from '../../../core/providers/ported-number/index.js';
import { vtpassCost } from '../../../core/providers/vtpass/codes.js';
import { suite } from '../../helpers/suite.js';

const test = suite('upstream costs');

test('naira costs: strings, numbers, float noise to the nearest kobo; anything else is no cost', () => {
  const cases: [unknown, number | undefined][] = [
    ['96.5', 9_650],
    [96.5, 9_650],
    ['96.49999999992', 9_650],
    ['₦239.0', 23_900],
    ['N200', 20_000],
    [' 1000 ', 100_000],
    ['-5', undefined],
    ['1e3', undefined],
    ['', undefined],
    [null, undefined],
    [Number.NaN, undefined],
    ['100000001', undefined],
  ];
  for (const [value, expected] of cases)
    assert.is(nairaCostToKobo(value), expected === undefined ? undefined : kobo(expected), String(value));
});

test('VTpass: total_amount first, else amount less the commission; nothing stated, no cost', () => {
  const tx = (fields: Record<string, unknown>) => ({ code: '000', content: { transactions: fields } });
  const cases: [Record<string, unknown>, number | undefined][] = [
    [tx({ amount: 100, commission: 3.5, total_amount: 96.5 }), 9_650],
    [tx({ amount: '100', total_amount: '96.5' }), 9_650],
    // A convenience fee is in total_amount: what the wallet paid, even above the face value.
    [tx({ amount: 5000, commission: 50, total_amount: 5050 }), 505_000],
    [tx({ amount: 100, commission: 3 }), 9_700],
    [tx({ amount: 100, commission_details: { amount: 2.5, rate: '2.50', rate_type: 'percent' } }), 9_750],
    [tx({ amount: 100, commission_details: { amount: null, rate: '1.00' } }), undefined],
    [tx({ amount: 100 }), undefined],
    [tx({ amount: 100, commission: 150 }), undefined],
    [{ code: '000', content: {} }, undefined],
    [{ code: '000' }, undefined],
  ];
  for (const [body, expected] of cases)
    assert.is(vtpassCost(body), expected === undefined ? undefined : kobo(expected), JSON.stringify(body));
});

test('ClubKonnect: a completed order carries amountcharged as its cost; one without it has none', () => {
  const answer = (json: unknown) => ({ kind: 'answer' as const, status: 200, json });
  const completed = { orderid: '6501321715', requestid: 'R1', statuscode: '200', status: 'ORDER_COMPLETED' };
  assert.equal(classifyClubkonnect('query', answer({ ...completed, amountcharged: '96.5' }), 'R1'), {
    kind: 'delivered',
    result: { providerReference: '6501321715' },
    costKobo: kobo(9_650),
    upstreamCharge: { chargedKobo: kobo(9_650) },
  });
  // walletbalance, read to the kobo as the balance call reads its balance (rounded down).
  const withBalance = { ...completed, amountcharged: '96.5', walletbalance: '3651.449' };
  assert.equal(classifyClubkonnect('query', answer(withBalance), 'R1').upstreamCharge, {
    chargedKobo: kobo(9_650),
    balanceAfterKobo: kobo(365_144),
  });
  assert.equal(classifyClubkonnect('purchase', answer(completed), 'R1'), {
    kind: 'delivered',
    result: { providerReference: '6501321715' },
  });
  assert.is(
    classifyClubkonnect('query', answer({ ...completed, statuscode: '100', amountcharged: '96.5' }), 'R1').kind,
    'unknown',
    'a cost on a pending order says nothing',
  );
});

test("ported-number: paid_amount, else the main wallet's balance fall; a data balance is not naira", () => {
  const cases: [Record<string, unknown>, number | undefined][] = [
    [{ paid_amount: '97.0', amount: '100', balance_before: '2892.6', balance_after: '2795.6' }, 9_700],
    [{ balance_before: '2698.6', balance_after: '2459.6', plan_amount: '₦239.0' }, 23_900],
    [{ balance_before: '2698.6', balance_after: '2459.6', payment_medium: 'MAIN WALLET' }, 23_900],
    [
      {
        balance_before: '20176.49999999992',
        balance_after: '20175.49999999992',
        payment_medium: 'MTN SME2 DATA BALANCE',
      },
      undefined,
    ],
    [{ balance_before: '100', balance_after: '100' }, undefined],
    [{ balance_before: '100', balance_after: '150' }, undefined],
    [{ plan_amount: '₦239.0' }, undefined],
  ];
  for (const [record, expected] of cases)
    assert.is(portedNumberCost(record), expected === undefined ? undefined : kobo(expected), JSON.stringify(record));
});

test.run();
