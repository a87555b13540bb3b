/** Password hashing and the sign-in throttle, on their own. */
import * as assert from 'uvu/assert';
import { hashPassword, verifyPassword } from '../../../core/people/passwords.js';
import {
  createSignInThrottle,
  FREE_FAILURES_PER_ADDRESS,
  FREE_FAILURES_PER_USER_ADDRESS,
  MAX_DELAY_MS,
} from '../../../core/people/throttle.js';
import { matchTotp, newTotpSecret, totpCode, totpStep } from '../../../core/people/totp.js';
import { suite } from '../../helpers/suite.js';

const test = suite('people: passwords, throttle, TOTP');

test('scrypt hashes carry their parameters and a fresh salt, and verify only the right password', async () => {
  const one = await hashPassword('correct horse battery');
  const two = await hashPassword('correct horse battery');
  assert.match(one, /^scrypt\$15\$8\$1\$[A-Za-z0-9_-]{22}\$[A-Za-z0-9_-]{43}$/);
  assert.is.not(one, two, 'a new salt every time');
  assert.is(await verifyPassword('correct horse battery', one), true);
  assert.is(await verifyPassword('correct horse batterx', one), false);
  assert.is(
    await verifyPassword('correct horse battery', 'scrypt$30$8$1$c2FsdA$a2V5'),
    false,
    'absurd parameters are refused, not run',
  );
  assert.is(await verifyPassword('x', 'not a hash'), false);
});

test('the throttle slows one (email, address) after 5 failures, with growing waits; others untouched', () => {
  const throttle = createSignInThrottle();
  const t0 = Date.UTC(2025, 0, 1);
  const at = (ms: number) => new Date(t0 + ms);
  for (let i = 0; i < FREE_FAILURES_PER_USER_ADDRESS; i++) {
    assert.is(throttle.waitMs('ada@example.com', '192.0.2.1', at(0)), 0);
    throttle.failed('ada@example.com', '192.0.2.1', at(0));
  }
  assert.is(throttle.waitMs('ada@example.com', '192.0.2.1', at(0)), 1_000);
  throttle.failed('ada@example.com', '192.0.2.1', at(1_000));
  assert.is(throttle.waitMs('ada@example.com', '192.0.2.1', at(1_000)), 2_000);
  assert.is(throttle.waitMs('ada@example.com', '203.0.113.5', at(1_000)), 0, 'the owner at home is not slowed');
  assert.is(
    throttle.waitMs('bayo@example.com', '192.0.2.1', at(1_000)),
    0,
    'another email from the address is not yet slowed',
  );
  for (let i = 0; i < 40; i++) throttle.failed('ada@example.com', '192.0.2.1', at(2_000));
  assert.is(throttle.waitMs('ada@example.com', '192.0.2.1', at(2_000)), MAX_DELAY_MS, 'capped');
  throttle.succeeded('ada@example.com', '192.0.2.1');
  assert.ok(throttle.waitMs('ada@example.com', '192.0.2.1', at(2_000)) > 0, 'the address budget still applies');
  assert.is(throttle.waitMs('ada@example.com', '192.0.2.1', at(2_000 + MAX_DELAY_MS)), 0);
});

test('one address trying many emails is slowed after 30 failures', () => {
  const throttle = createSignInThrottle();
  const now = new Date(Date.UTC(2025, 0, 1));
  for (let i = 0; i < FREE_FAILURES_PER_ADDRESS; i++) throttle.failed(`user${i}@example.com`, '198.51.100.7', now);
  assert.is(throttle.waitMs('fresh@example.com', '198.51.100.7', now), 1_000);
  assert.is(throttle.waitMs('fresh@example.com', '198.51.100.8', now), 0);
});

test('TOTP codes match their step and one step either side, no further', () => {
  const secret = newTotpSecret();
  assert.match(secret, /^[A-Z2-7]{32}$/);
  const now = new Date(Date.UTC(2025, 0, 1, 12, 0, 15));
  const step = totpStep(now);
  assert.is(matchTotp(secret, totpCode(secret, now), now), step);
  assert.is(matchTotp(secret, totpCode(secret, new Date(now.getTime() - 30_000)), now), step - 1);
  assert.is(matchTotp(secret, totpCode(secret, new Date(now.getTime() + 30_000)), now), step + 1);
  assert.is(matchTotp(secret, totpCode(secret, new Date(now.getTime() - 90_000)), now), null);
  assert.is(matchTotp(secret, 'abcdef', now), null);
  // RFC 6238 appendix B, SHA-1, T = 59: 94287082 in 8 digits, so 287082 in 6.
  assert.is(totpCode('GEZDGNBVGY3TQOJQGEZDGNBVGY3TQOJQ', new Date(59_000)), '287082');
});

test.run();
