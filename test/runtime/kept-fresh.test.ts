/**
 * A value kept fresh (runtime/kept-fresh.ts): read once for every caller while it is fresh,
 * one read for callers that find it stale at once, and reload() reading now.
 */
import * as assert from 'uvu/assert';
import { keptFresh } from '../../runtime/kept-fresh.js';
import { suite } from '../helpers/suite.js';

const test = suite('runtime: a value kept fresh');

function counted() {
  let ms = 0;
  let reads = 0;
  const kept = keptFresh({
    read: async () => {
      reads += 1;
      return reads;
    },
    freshMs: 5_000,
    clock: () => new Date(ms),
  });
  return { kept, reads: () => reads, advance: (by: number) => (ms += by) };
}

test('read once while fresh, again once it is older than freshMs', async () => {
  const c = counted();
  assert.is(await c.kept.get(), 1);
  c.advance(4_999);
  assert.is(await c.kept.get(), 1, 'still fresh');
  c.advance(1);
  assert.is(await c.kept.get(), 2, 'stale: read again');
  assert.is(c.reads(), 2);
});

test('callers that find it stale at once share one read; reload() reads now', async () => {
  const c = counted();
  const all = await Promise.all([c.kept.get(), c.kept.get(), c.kept.get()]);
  assert.equal(all, [1, 1, 1]);
  assert.is(c.reads(), 1);
  assert.is(await c.kept.reload(), 2);
  assert.is(await c.kept.get(), 2, 'the reloaded value is the one kept');
});

test.run();
