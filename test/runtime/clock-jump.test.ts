/**
 * A jump of the wall clock is seen (runtime/clock-jump.ts): the periodic check compares the
 * wall clock's move with the monotonic clock's, warns in the log, counts it in a metric, and the
 * console's attention queue shows it. Clocks injected: the test's wall clock is moved an hour on.
 */
import * as assert from 'uvu/assert';
import { createCoreMetrics } from '../../core/metrics.js';
import { CLOCK_JUMP_BOUND_MS, createClockJumpWatch } from '../../runtime/clock-jump.js';
import { startCore } from '../helpers/core.js';
import { consoleClients, signedInStaff, TestClock } from '../helpers/staff.js';
import { suite } from '../helpers/suite.js';

const test = suite('clock jumps');

const HOUR_MS = 3_600_000;

test('a wall clock that moves with the monotonic one is no jump; one set an hour ahead is, and back too', async () => {
  let wallMs = Date.parse('2026-12-01T10:00:00Z');
  let monotonicMs = 1_000;
  const logged: Array<[string, Record<string, unknown>]> = [];
  const observed: number[] = [];
  const watch = createClockJumpWatch({
    wall: () => new Date(wallMs),
    monotonicMs: () => monotonicMs,
    log: (event, fields) => logged.push([event, fields]),
    observe: (jumpMs) => observed.push(jumpMs),
  });
  // Both move 30 s, and NTP's slewing adds a little: no jump.
  wallMs += 30_000 + 15;
  monotonicMs += 30_000;
  assert.is(await watch.runOnce(), null);
  wallMs += CLOCK_JUMP_BOUND_MS;
  assert.is(await watch.runOnce(), null, 'at the bound, still none');
  assert.equal(logged, []);
  assert.is(watch.last(), null);

  wallMs += 30_000 + HOUR_MS;
  monotonicMs += 30_000;
  const jump = await watch.runOnce();
  assert.equal(jump, { at: new Date(wallMs), jumpMs: HOUR_MS });
  assert.equal(watch.last(), jump);
  assert.equal(observed, [HOUR_MS]);
  assert.is(logged.length, 1);
  assert.is(logged[0]![0], 'clock.jump_warning', 'a warning, by its name');
  assert.is(logged[0]![1]['jump_seconds'], 3600);

  // Set right again: a jump back, counted and shown as the last.
  wallMs -= HOUR_MS;
  assert.is((await watch.runOnce())?.jumpMs, -HOUR_MS);
  assert.equal(observed, [HOUR_MS, -HOUR_MS]);
  assert.is(watch.last()?.jumpMs, -HOUR_MS);
});

test("the core's jump is in its log, its metrics and the console's attention queue", async () => {
  const clock = new TestClock();
  const logged: string[] = [];
  const metrics = createCoreMetrics();
  const core = await startCore({
    clock: clock.now,
    metrics,
    log: (event, fields) => logged.push(JSON.stringify({ event, ...fields })),
  });
  try {
    const staff = await signedInStaff(core, clock, 'support');
    const { console } = consoleClients(core);
    // A baseline after the set-up's codes moved the test's clock on.
    await core.core.clockWatch.runOnce();
    const before = await console.getAttention({ sessionToken: staff.token, clientAddress: '127.0.0.1' });
    const jumpsBefore = logged.filter((line) => line.includes('clock.jump_warning')).length;

    clock.advance(HOUR_MS);
    const jump = await core.core.clockWatch.runOnce();
    assert.ok(jump !== null && Math.abs(jump.jumpMs - HOUR_MS) < 1_000, `jump ${jump?.jumpMs}`);
    assert.is(logged.filter((line) => line.includes('clock.jump_warning')).length, jumpsBefore + 1);
    const text = await metrics.registry.metrics();
    assert.match(text, /prepaid_core_clock_jumps_total [1-9]/);
    assert.match(text, /prepaid_core_clock_last_jump_seconds 3(599|600)[.\d]*\n/);
    // The session from before has ended (an hour passed by this clock, as staff saw in the attack); a fresh one
    // reads the queue.
    const fresh = await signedInStaff(core, clock, 'support');
    const queue = await console.getAttention({ sessionToken: fresh.token, clientAddress: '127.0.0.1' });
    assert.ok(before.clockJump === undefined || before.clockJump.jumpMs < BigInt(HOUR_MS));
    assert.ok(queue.clockJump !== undefined, 'the queue shows the jump');
    assert.ok(Number(queue.clockJump.jumpMs) > HOUR_MS - 1_000, `shown ${queue.clockJump.jumpMs}`);
  } finally {
    await core.close();
  }
});

test.run();
