import * as assert from 'uvu/assert';
import { randomChars } from '../../../core/domain/random.js';
import { suite } from '../../helpers/suite.js';

const test = suite('random characters');

test('only characters of the alphabet, as many as asked, across pool refills', () => {
  // 4,096 bytes a pool: 2,000 draws of 7 cross several refills.
  for (let i = 0; i < 2_000; i += 1) assert.match(randomChars('ABCDEFGH', 7), /^[A-H]{7}$/);
});

test('every character of the alphabet turns up, none far more often than the others', () => {
  const counts = new Map<string, number>();
  for (const c of randomChars('0123456789abcdef', 4_000)) counts.set(c, (counts.get(c) ?? 0) + 1);
  assert.is(counts.size, 16);
  // 250 expected each; a biased mapping of bytes (e.g. modulo 10 of 16) would leave some near 0.
  for (const [c, n] of counts) assert.ok(n > 150 && n < 350, `${c} came ${n} times in 4,000`);
});

test('an alphabet whose size is not a power of two is refused: its characters would not be uniform', () => {
  assert.throws(() => randomChars('0123456789', 4), /alphabet/);
  assert.throws(() => randomChars('x'.repeat(512), 4), /alphabet/);
});

test.run();
