/**
 * What counts as the goods of a delivery (core/domain/products.ts goodsMissing): a prepaid
 * electricity vend is its token; nothing else a purchase delivers is held back by this rule.
 */
import * as assert from 'uvu/assert';
import { goodsMissing } from '../../../core/domain/products.js';
import { suite } from '../../helpers/suite.js';

const test = suite('products: the goods of a delivery');

test('a prepaid vend without a token is not the goods; with one, and every other product, it is', () => {
  const prepaid = { product: 'electricity' as const, details: { meterType: 'prepaid' as const } };
  assert.match(goodsMissing(prepaid, {}) ?? '', /without its token/);
  assert.match(goodsMissing(prepaid, { token: '' }) ?? '', /without its token/);
  assert.is(goodsMissing(prepaid, { token: '2636-2054-4059-8275-7802' }), null);
  assert.is(goodsMissing({ product: 'electricity', details: { meterType: 'postpaid' } }, {}), null, 'postpaid');
  assert.is(goodsMissing({ product: 'airtime', details: {} }, {}), null);
  assert.is(goodsMissing({ product: 'cable', details: {} }, {}), null);
});

test.run();
