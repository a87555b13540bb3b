/** The dashboard's once-box: a secret held between a POST and its redirect is shown once, to its session only. */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { OnceBox } from '../../dashboard/once.js';

test('a held value is taken once, by the session that put it; another session and a second take get nothing', () => {
  const box = new OnceBox<string>();
  const handle = box.put('session-a', 'sk_secret');
  assert.match(handle, /^[A-Za-z0-9_-]{22}$/);
  assert.is(box.take('session-b', handle), undefined, 'another session gets nothing');
  assert.is(box.take('session-a', handle), 'sk_secret');
  assert.is(box.take('session-a', handle), undefined, 'shown once');
  assert.is(box.take('session-a', 'made-up'), undefined);
});

test('an unclaimed value expires after five minutes', () => {
  let now = 1_000_000;
  const box = new OnceBox<string>(() => now);
  const handle = box.put('session-a', 'sk_secret');
  now += 5 * 60_000;
  assert.is(box.take('session-a', handle), undefined);
});

test('the box is bounded: the oldest held value goes first', () => {
  const box = new OnceBox<number>();
  const first = box.put('s', 0);
  let last = '';
  for (let i = 1; i <= 1_000; i++) last = box.put('s', i);
  assert.is(box.take('s', first), undefined, 'the oldest was dropped');
  assert.is(box.take('s', last), 1_000);
});

test.run();
