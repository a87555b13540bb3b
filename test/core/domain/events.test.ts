import * as assert from 'uvu/assert';
import { initialDelivery, newEventId, nextDueAfter } from '../../../core/domain/events.js';
import { suite } from '../../helpers/suite.js';

const test = suite('event ids');

test('an id is evt_ and 24 hex digits, and ids made later sort later', () => {
  const start = Date.UTC(2026, 10, 24, 12, 0, 0, 0);
  const ids = Array.from({ length: 100 }, (_, i) => newEventId(start + i));
  for (const id of ids) assert.match(id, /^evt_[0-9a-f]{24}$/);
  // The store's unique index on event ids grows at its end only if ids follow the clock.
  assert.equal([...ids].sort(), ids);
});

test('ids of the same millisecond differ', () => {
  const at = Date.UTC(2026, 10, 24, 12, 0, 0, 0);
  const ids = new Set(Array.from({ length: 1_000 }, () => newEventId(at)));
  assert.is(ids.size, 1_000);
});

test('an event is queued at once when the webhook is on or delivery is forced, else kept for the feed only', () => {
  const at = new Date(Date.UTC(2026, 0, 1));
  assert.equal(initialDelivery(true, false, at), { delivery: 'pending', nextAttemptAt: at });
  assert.equal(initialDelivery(false, true, at), { delivery: 'pending', nextAttemptAt: at });
  assert.equal(initialDelivery(false, false, at), { delivery: 'none', nextAttemptAt: null });
});

test('after an attempt an event is due again only while pending: at the chosen time, or at once', () => {
  const at = new Date(Date.UTC(2026, 0, 1));
  const later = new Date(at.getTime() + 60_000);
  assert.equal(nextDueAfter({ delivery: 'pending', status: 500, error: 'x', at, nextAttemptAt: later }), later);
  assert.equal(nextDueAfter({ delivery: 'pending', status: 0, error: 'x', at, nextAttemptAt: null }), at);
  assert.is(nextDueAfter({ delivery: 'delivered', status: 200, error: null, at, nextAttemptAt: later }), null);
  assert.is(nextDueAfter({ delivery: 'failed', status: 410, error: 'gone', at, nextAttemptAt: later }), null);
});

test.run();
