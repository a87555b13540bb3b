/** A purchase's life as pure rules: the moves between states, the retry schedule, the first answer. */
import * as assert from 'uvu/assert';
import { kobo } from '../../../core/domain/money.js';
import type { TransactionRecord } from '../../../core/domain/records.js';
import {
  canMove,
  DEFAULT_RETRY_SCHEDULE,
  firstAnswer,
  isRefunded,
  nextAttempt,
} from '../../../core/domain/transactions.js';
import { suite } from '../../helpers/suite.js';

const test = suite('transaction states');

test('pending settles or fails; only a success is reversed; final states stay final', () => {
  assert.ok(canMove('pending', 'success'));
  assert.ok(canMove('pending', 'failed'));
  assert.ok(canMove('success', 'reversed'));
  for (const [from, to] of [
    ['pending', 'reversed'],
    ['failed', 'success'],
    ['reversed', 'success'],
    ['success', 'failed'],
    ['failed', 'pending'],
  ] as const) {
    assert.not.ok(canMove(from, to), `${from} -> ${to}`);
  }
  assert.equal((['pending', 'success', 'failed', 'reversed'] as const).filter(isRefunded), ['failed', 'reversed']);
});

test('re-queries double from 15 s to at most 15 min, and a day-old purchase asks for a person', () => {
  const at = new Date(Date.UTC(2025, 0, 2));
  const made = { createdAt: new Date(at.getTime() - 60_000) };
  assert.equal(nextAttempt(made, 0, at), {
    attempts: 1,
    nextAttemptAt: new Date(at.getTime() + 15_000),
    needsAttention: false,
    at,
  });
  assert.is(nextAttempt(made, 3, at).nextAttemptAt.getTime() - at.getTime(), 120_000);
  assert.is(DEFAULT_RETRY_SCHEDULE.delayMs(30), 15 * 60_000);
  assert.ok(nextAttempt({ createdAt: new Date(at.getTime() - 86_400_000) }, 40, at).needsAttention);
});

test('a replay repeats the first answer: pending when the first call had no outcome', () => {
  const tx = {
    reference: 'T1',
    status: 'success',
    attempts: 0,
    result: { providerReference: 'P' },
    failureReason: null,
    chargedKobo: kobo(100),
  } as unknown as TransactionRecord;
  assert.is(firstAnswer(tx).status, 'success');
  assert.is(firstAnswer({ ...tx, attempts: 2 }).status, 'pending');
  assert.is(firstAnswer({ ...tx, attempts: 2 }).result, null);
  assert.is(firstAnswer({ ...tx, status: 'reversed', failureReason: 'undone' }).status, 'success');
});

test.run();
