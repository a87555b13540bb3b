/** The pure rules of sign-up: each field's sentence, the Nigerian mobile shapes, and when live money is open. */
import * as assert from 'uvu/assert';
import { DomainError } from '../../../core/domain/errors.js';
import { checkSignUp, liveAllowed, refuseUnverifiedLive } from '../../../core/domain/sign-up.js';
import { suite } from '../../helpers/suite.js';

const test = suite('domain: sign-up');
const GOOD = { name: 'Ade Stores', email: 'Ade@Example.NG ', phone: '0803-123-4567', password: 'twelve chars!' };

test('a good form is kept in one spelling: the email lower case, the phone as 11 digits from 0', () => {
  const checked = checkSignUp(GOOD);
  assert.ok('valid' in checked);
  if ('valid' in checked) assert.equal(checked.valid, { ...GOOD, email: 'ade@example.ng', phone: '08031234567' });
  for (const [phone, kept] of [
    ['+2348031234567', '08031234567'],
    ['2349051234567', '09051234567'],
    ['0701 234 5678', '07012345678'],
  ] as const) {
    const one = checkSignUp({ ...GOOD, phone });
    assert.is('valid' in one && one.valid.phone, kept, phone);
  }
});

test('every bad field is named once, with its own sentence', () => {
  const checked = checkSignUp({ name: 'a\nb', email: `${'x'.repeat(250)}@a.ng`, phone: '0603123456', password: 'x' });
  assert.ok('violations' in checked);
  if ('violations' in checked)
    assert.equal(
      checked.violations.map((v) => v.field),
      ['name', 'email', 'phone', 'password'],
    );
  const blank = checkSignUp({ name: ' ', email: '', phone: '', password: '' });
  if ('violations' in blank) assert.is(blank.violations.length, 4);
  const shapes = ['08031234', '+1 803 123 4567', '06031234567', '080312345678'];
  for (const phone of shapes) assert.ok('violations' in checkSignUp({ ...GOOD, phone }), phone);
});

test('live money waits for both proofs; test mode never does', () => {
  const at = new Date(0);
  assert.is(liveAllowed({ emailVerifiedAt: at, phoneVerifiedAt: at }), true);
  assert.is(liveAllowed({ emailVerifiedAt: at, phoneVerifiedAt: null }), false);
  assert.is(liveAllowed({ emailVerifiedAt: null, phoneVerifiedAt: at }), false);
  refuseUnverifiedLive({ emailVerifiedAt: null, phoneVerifiedAt: null }, 'test');
  try {
    refuseUnverifiedLive({ emailVerifiedAt: at, phoneVerifiedAt: null }, 'live');
    assert.unreachable('refused');
  } catch (error) {
    assert.instance(error, DomainError);
    assert.is((error as DomainError).code, 'VERIFICATION_REQUIRED');
    assert.match((error as DomainError).message, 'Verify your phone number first');
  }
});

test.run();
