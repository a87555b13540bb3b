import * as assert from 'uvu/assert';
import { formatNaira, koboToNaira, MAX_AMOUNT_KOBO, parseNaira, kobo as toKobo } from '../../../core/domain/money.js';
import { suite } from '../../helpers/suite.js';

const parsing = suite('parseNaira: amounts partners send become exact kobo');

/** Values a partner may send and the kobo they must become, exactly. */
const ACCEPTED: ReadonlyArray<readonly [unknown, number, string]> = [
  [100, 100_00, 'a whole number'],
  [100.5, 100_50, 'one decimal'],
  [100.05, 100_05, 'two decimals'],
  [0, 0, 'zero (the minimum check is the product rule, not the parser)'],
  [100.1, 100_10, '100.1 (100.1 * 100 is 10009.999999999998 in floating point)'],
  [4.35, 4_35, '4.35 (4.35 * 100 is 434.99999999999994 in floating point)'],
  [0.29, 29, '0.29 (0.29 * 100 is 28.999999999999996 in floating point)'],
  [0.07, 7, '0.07 (0.07 * 100 is 7.000000000000001 in floating point)'],
  [1_234_567.89, 123_456_789, 'a large amount with decimals'],
  [100_000_000, MAX_AMOUNT_KOBO, 'the largest accepted amount'],
  ['100', 100_00, 'a numeric string'],
  ['100.50', 100_50, 'a numeric string with two decimals'],
  ['100.5', 100_50, 'a numeric string with one decimal'],
  ['4.35', 4_35, 'a numeric string that floats would get wrong'],
  [' 250 ', 250_00, 'a numeric string with surrounding spaces'],
  ['0.01', 1, 'one kobo'],
];

for (const [value, kobo, what] of ACCEPTED) {
  parsing(`accepts ${what}: ${JSON.stringify(value)} -> ${kobo} kobo`, () => {
    assert.equal(parseNaira(value), { ok: true, kobo });
  });
}

/** Values that must be refused, never rounded or guessed, with the gist of the reason. */
const REFUSED: ReadonlyArray<readonly [unknown, RegExp, string]> = [
  [100.123, /at most two decimals/, 'three decimals'],
  ['100.123', /at most two decimals/, 'three decimals in a string'],
  [1.999, /at most two decimals/, 'three decimals that would round up to 2.00'],
  [0.1 + 0.2, /at most two decimals/, '0.1 + 0.2 (0.30000000000000004) instead of becoming 30 kobo'],
  [-5, /negative/, 'a negative number'],
  ['-5', /negative/, 'a negative numeric string'],
  ['-0.50', /negative/, 'a negative string with decimals'],
  [1e21, /out of range/, 'a number JavaScript writes with an exponent'],
  [1e-7, /two decimals/, 'a tiny number written with an exponent'],
  ['1e3', /number in Naira/, 'an exponent in a string'],
  [100_000_000.01, /out of range/, 'one kobo above the largest amount'],
  ['999999999999999', /out of range/, 'a fifteen-digit string'],
  ['99999999999999999999', /number in Naira/, 'a twenty-digit string'],
  [Number.NaN, /finite/, 'NaN'],
  [Number.POSITIVE_INFINITY, /finite/, 'Infinity'],
  ['', /empty/, 'an empty string'],
  ['   ', /empty/, 'a string of spaces'],
  ['abc', /number in Naira/, 'letters'],
  ['12abc', /number in Naira/, 'digits followed by letters'],
  ['1,000', /number in Naira/, 'a thousands separator'],
  ['0x10', /number in Naira/, 'a hexadecimal string'],
  ['Infinity', /number in Naira/, 'the string Infinity'],
  [null, /number in Naira/, 'null'],
  [undefined, /number in Naira/, 'undefined'],
  [true, /number in Naira/, 'a boolean'],
  [{ amount: 100 }, /number in Naira/, 'an object'],
  [[100], /number in Naira/, 'an array'],
  [BigInt(100), /number in Naira/, 'a bigint'],
];

for (const [value, reason, what] of REFUSED) {
  parsing(`refuses ${what}`, () => {
    const parsed = parseNaira(value);
    if (parsed.ok) return assert.unreachable(`${String(value)} was accepted as ${parsed.kobo} kobo`);
    assert.match(parsed.reason, reason);
  });
}

parsing('every amount from 0.00 to 1,000.00 written with two decimals parses to its exact kobo', () => {
  for (let kobo = 0; kobo <= 100_000; kobo += 1) {
    const text = `${Math.floor(kobo / 100)}.${String(kobo % 100).padStart(2, '0')}`;
    const fromString = parseNaira(text);
    const fromNumber = parseNaira(Number(text));
    if (!fromString.ok || fromString.kobo !== kobo)
      assert.unreachable(`"${text}" parsed to ${JSON.stringify(fromString)}`);
    if (!fromNumber.ok || fromNumber.kobo !== kobo)
      assert.unreachable(`${Number(text)} parsed to ${JSON.stringify(fromNumber)}`);
  }
});

parsing.run();

const showing = suite('koboToNaira and formatNaira: kobo shown as Naira');

const AS_NAIRA: ReadonlyArray<readonly [number, number]> = [
  [0, 0],
  [1, 0.01],
  [29, 0.29],
  [100_50, 100.5],
  [97_00, 97],
  [123_456_789, 1_234_567.89],
];

for (const [kobo, naira] of AS_NAIRA) {
  showing(`koboToNaira(${kobo}) is ${naira}`, () => {
    assert.is(koboToNaira(toKobo(kobo)), naira);
  });
}

showing('koboToNaira and parseNaira round-trip every amount up to 1,000 Naira', () => {
  for (let kobo = 0; kobo <= 100_000; kobo += 1) {
    const back = parseNaira(koboToNaira(toKobo(kobo)));
    if (!back.ok || back.kobo !== kobo) assert.unreachable(`${kobo} kobo came back as ${JSON.stringify(back)}`);
  }
});

const FORMATTED: ReadonlyArray<readonly [number, string]> = [
  [0, '0.00'],
  [5, '0.05'],
  [100_50, '100.50'],
  [1_000_00, '1,000.00'],
  [123_456_789, '1,234,567.89'],
  [-2_50, '-2.50'],
];

for (const [kobo, text] of FORMATTED) {
  showing(`formatNaira(${kobo}) is "${text}"`, () => {
    assert.is(formatNaira(toKobo(kobo)), text);
  });
}

showing.run();
