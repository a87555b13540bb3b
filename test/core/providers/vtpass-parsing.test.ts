/**
 * The VTpass answer readers on their own: tokens and units in every spelling seen, amounts,
 * plan lists and callback bodies. Each reader refuses what it cannot read exactly.
 */
import * as assert from 'uvu/assert';
import { parseVtpassCallback } from '../../../core/providers/vtpass/callback.js';
import { electricityResult, kwh, stsToken } from '../../../core/providers/vtpass/electricity.js';
import { readVariations } from '../../../core/providers/vtpass/variations.js';
import { naira } from '../../../core/providers/vtpass/verify.js';
import { suite } from '../../helpers/suite.js';

const test = suite('VTpass answer readers');

test('tokens: labelled, spaced, dashed or bare; the bonus token is not the token; a JSON number is refused', () => {
  assert.is(
    stsToken('Token : 4216 1234 5678 9012 3456 Bonus Token : 1111 2222 3333 4444 5555'),
    '4216-1234-5678-9012-3456',
  );
  assert.is(stsToken('42161234567890123456'), '4216-1234-5678-9012-3456');
  assert.is(stsToken('4216-1234-5678-9012-3456'), '4216-1234-5678-9012-3456');
  assert.is(stsToken('Token : 4216 1234 5678 9012 345'), undefined, '19 digits');
  // biome-ignore lint/correctness/noPrecisionLoss: the point of the test is a number that lost its digits in JSON.
  assert.is(stsToken(42161234567890123456), undefined, 'precision already lost');
  assert.is(stsToken(''), undefined);
});

test('units: numbers and texts become "<n> kWh"', () => {
  assert.is(kwh(16.9), '16.9 kWh');
  assert.is(kwh('32.6'), '32.6 kWh');
  assert.is(kwh('79.9 kWh'), '79.9 kWh');
  assert.is(kwh('12kwh'), '12 kWh');
  assert.is(kwh('n/a'), undefined);
  assert.is(kwh(-3), undefined);
});

test('an electricity result reads the top level, then content; postpaid has neither token nor units', () => {
  assert.equal(electricityResult({ content: { token: '42161234567890123456', units: 5 } }, 'prepaid'), {
    token: '4216-1234-5678-9012-3456',
    units: '5 kWh',
  });
  assert.equal(electricityResult({ mainToken: '42161234567890123456', mainTokenUnits: 16.9 }, 'postpaid'), {});
});

test('amounts in Naira: numbers, strings with commas; empty and zero are absent', () => {
  assert.is(naira(17400), 17_400_00);
  assert.is(naira('1,250.50'), 1_250_50);
  assert.is(naira(''), undefined);
  assert.is(naira('0'), undefined);
  assert.is(naira('12.345'), undefined);
});

test('plan lists: a missing or malformed list is an error, never an empty catalog', () => {
  const answer = (json: unknown) => ({ kind: 'answer' as const, status: 200, json });
  assert.equal(readVariations(answer({ content: {} })).ok, false);
  assert.equal(readVariations(answer({ content: { variations: 'x' } })).ok, false);
  assert.equal(readVariations(answer({ code: '012' })).ok, false);
  assert.equal(readVariations({ kind: 'no_answer', reason: 'timeout', delivered: true, cause: 'timeout' }).ok, false);
  const read = readVariations(
    answer({
      content: {
        variations: [
          { variation_code: 'a', name: 'A - 1 day', variation_amount: '10' },
          { variation_code: 'a', name: 'dup', variation_amount: '10' },
        ],
      },
    }),
  );
  assert.equal(read, { ok: true, plans: [{ code: 'a', name: 'A - 1 day', amountKobo: 10_00 }], skipped: 1 });
});

test('callbacks: only a transaction-update with a request id names a reference', () => {
  const bytes = (value: unknown) => new TextEncoder().encode(typeof value === 'string' ? value : JSON.stringify(value));
  assert.equal(
    parseVtpassCallback(bytes({ type: 'transaction-update', data: { requestId: '202601011200ABCDEFGHJK' } })),
    {
      ok: true,
      reference: '202601011200ABCDEFGHJK',
    },
  );
  for (const body of [
    '{',
    '[]',
    { type: 'other', data: { requestId: 'x' } },
    { type: 'transaction-update', data: {} },
    { type: 'transaction-update', data: { requestId: 'has spaces' } },
  ]) {
    assert.is(parseVtpassCallback(bytes(body)).ok, false, JSON.stringify(body));
  }
});

test.run();
