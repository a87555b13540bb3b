/**
 * A funding provider's settlement in the books: the bank gets what was paid out, the provider's
 * fees what it kept, and its clearing gives up both; a fee of nothing has no line.
 */
import * as assert from 'uvu/assert';
import { accountKind, isBalanced, providerSettledPostings } from '../../../core/domain/books.js';
import { kobo } from '../../../core/domain/money.js';
import { suite } from '../../helpers/suite.js';

const test = suite('domain: a provider settlement in the books');

test('the bank and the fees are debited, the clearing credited with both, and the entry balances', () => {
  const postings = providerSettledPostings('paystack', kobo(985_000), kobo(15_000));
  assert.equal(postings, [
    { account: 'world:bank', amountKobo: 985_000 },
    { account: 'funding:paystack:fees', amountKobo: 15_000 },
    { account: 'funding:paystack:clearing', amountKobo: -1_000_000 },
  ]);
  assert.ok(isBalanced(postings));
  assert.equal(
    postings.map((p) => accountKind(p.account)),
    ['asset', 'expense', 'asset'],
  );
});

test('a fee of nothing leaves its line out', () => {
  assert.equal(providerSettledPostings('monnify', kobo(100), kobo(0)), [
    { account: 'world:bank', amountKobo: 100 },
    { account: 'funding:monnify:clearing', amountKobo: -100 },
  ]);
});

test.run();
