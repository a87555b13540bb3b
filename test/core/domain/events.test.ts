import * as assert from 'uvu/assert';
import { newEventId } from '../../../core/domain/events.js';
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

test.run();
