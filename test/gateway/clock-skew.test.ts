/**
 * The bound on a gateway's clock skew for the shared auth-failure counters (docs/mongodb.md):
 * what a comparison with the primary proves, and that a gateway proven too far off
 * counts in its own memory until its clock is back within the bound.
 */
import * as assert from 'uvu/assert';
import {
  beyondBound,
  clockSample,
  createClockWatch,
  MAX_CLOCK_SKEW_MS,
  skewGuarded,
} from '../../gateway/clock-skew.js';
import type { LimitDecision, Limiter } from '../../gateway/limiter.js';
import { suite } from '../helpers/suite.js';

const skew = suite('clock skew of the shared auth-failure counters');

skew(
  'the offset is measured against the middle of the round trip, and only a proven skew beyond the bound counts',
  () => {
    assert.equal(clockSample(1_000, 1_200, 7_100), { offsetMs: 6_000, uncertaintyMs: 100 });
    assert.is(beyondBound(clockSample(1_000, 1_200, 7_100)), true, '6 s ahead, known to 0.1 s');
    assert.is(beyondBound(clockSample(1_000, 1_200, 1_100 - 6_000)), true, 'behind counts too');
    assert.is(beyondBound(clockSample(1_000, 1_200, 1_100 + MAX_CLOCK_SKEW_MS)), false, 'at the bound');
    // A slow answer proves nothing: 6 s off, but the round trip took 4 s.
    assert.is(beyondBound(clockSample(1_000, 5_000, 3_000 + 6_000)), false);
  },
);

skew(
  'a gateway proven skewed counts in memory, and returns to the shared counters once its clock is back',
  async () => {
    let serverMs = 0;
    const localMs = 0;
    const changes: boolean[] = [];
    const watch = createClockWatch(
      async () => new Date(serverMs),
      (skewed) => changes.push(skewed),
      () => localMs,
      3_600_000,
    );
    const limiter = (name: string): Limiter & { used: string[] } => {
      const used: string[] = [];
      const allowed: LimitDecision = { kind: 'allowed', remaining: 1, resetSeconds: 60 };
      return {
        used,
        policy: { name, quota: 10, windowSeconds: 60 },
        consume: async () => {
          used.push(name);
          return allowed;
        },
        peek: async () => allowed,
        reward: async () => undefined,
      };
    };
    const shared = limiter('shared');
    const local = limiter('local');
    const guarded = skewGuarded(shared, local, watch);
    await watch.check();
    await guarded.consume('198.51.100.7');
    serverMs = 60_000;
    await watch.check();
    assert.is(watch.skewed(), true);
    await guarded.consume('198.51.100.7');
    serverMs = 1_000;
    await watch.check();
    await guarded.consume('198.51.100.7');
    assert.equal(shared.used, ['shared', 'shared']);
    assert.equal(local.used, ['local']);
    assert.equal(changes, [true, false]);
    watch.stop();
  },
);

skew.run();
