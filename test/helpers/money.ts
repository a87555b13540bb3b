/**
 * Amounts for tests of the guards behind the Kobo type: a number that is not whole kobo
 * (a fraction, NaN), handed to a store or a rule the way a bug would hand it, to prove the
 * run-time guard still refuses it. Everything else in the tests makes kobo with `kobo()`.
 */
import type { Kobo } from '../../core/domain/money.js';

export function unchecked(value: number): Kobo {
  return value as Kobo;
}
