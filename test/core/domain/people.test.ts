/** The people rules without I/O: emails, passwords, session ends and Africa/Lagos days. */
import * as assert from 'uvu/assert';
import { DomainError } from '../../../core/domain/errors.js';
import {
  checkEmail,
  lagosDate,
  lagosDay,
  lagosDayStart,
  lagosMonthStart,
  parseLagosDate,
  passwordViolations,
  SESSION_ABSOLUTE_MS,
  SESSION_IDLE_MS,
  sessionEndsAt,
} from '../../../core/domain/people.js';
import { suite } from '../../helpers/suite.js';

const test = suite('domain: people');

test('emails are stored lower case and trimmed; what is not an address is refused', () => {
  assert.is(checkEmail('email', '  Ada.Obi@Example.NG '), 'ada.obi@example.ng');
  for (const bad of [
    '',
    'ada',
    'ada@',
    '@example.com',
    'ada@example',
    'a b@example.com',
    `${'a'.repeat(250)}@example.com`,
  ]) {
    assert.throws(
      () => checkEmail('email', bad),
      (e: unknown) => e instanceof DomainError && e.violations[0]?.field === 'email',
      bad,
    );
  }
});

test('a password is at least 12 characters, counted as characters, not UTF-16 units', () => {
  assert.is(passwordViolations('password', 'elevenchars').length, 1);
  assert.equal(passwordViolations('password', 'twelve chars'), []);
  assert.is(passwordViolations('password', '😀'.repeat(11)).length, 1, '22 UTF-16 units are still 11 characters');
  assert.is(passwordViolations('password', 'x'.repeat(201)).length, 1);
});

test('a session ends 30 minutes after its last use or at its absolute end, whichever is first', () => {
  const start = new Date(Date.UTC(2025, 0, 1));
  const absolute = new Date(start.getTime() + SESSION_ABSOLUTE_MS);
  assert.equal(
    sessionEndsAt({ lastSeenAt: start, absoluteExpiresAt: absolute }),
    new Date(start.getTime() + SESSION_IDLE_MS),
  );
  const late = new Date(absolute.getTime() - 60_000);
  assert.equal(sessionEndsAt({ lastSeenAt: late, absoluteExpiresAt: absolute }), absolute);
});

test('Lagos days agree with the time zone database all year', () => {
  const lagos = new Intl.DateTimeFormat('en-CA', {
    timeZone: 'Africa/Lagos',
    year: 'numeric',
    month: '2-digit',
    day: '2-digit',
  });
  for (let ms = Date.UTC(2024, 0, 1); ms < Date.UTC(2027, 0, 1); ms += 7 * 3_600_000 + 13 * 60_000) {
    const at = new Date(ms);
    assert.is(lagosDate(lagosDay(at)), lagos.format(at), at.toISOString());
  }
  // 23:30 UTC is already tomorrow in Lagos; the day starts at 23:00 UTC the evening before.
  assert.is(lagosDate(lagosDay(new Date('2025-03-31T23:30:00Z'))), '2025-04-01');
  assert.equal(lagosDayStart(parseLagosDate('d', '2025-04-01')), new Date('2025-03-31T23:00:00Z'));
  assert.is(lagosDate(lagosMonthStart(parseLagosDate('d', '2025-04-17'))), '2025-04-01');
});

test('a filter date must be a real YYYY-MM-DD day', () => {
  for (const bad of ['2025-02-30', '2025-13-01', '25-01-01', '2025/01/01', 'yesterday', '2025-1-1']) {
    assert.throws(
      () => parseLagosDate('filter.from_date', bad),
      (e: unknown) => e instanceof DomainError,
      bad,
    );
  }
  assert.is(lagosDate(parseLagosDate('d', '2024-02-29')), '2024-02-29');
});

test.run();
