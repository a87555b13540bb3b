/**
 * The one periodic runner of the core's workers (runtime/periodic.ts): passes never overlap,
 * `join` and `queue` as documented, a failed pass is reported and the schedule goes on, and
 * stop() waits for the pass in progress.
 */
import * as assert from 'uvu/assert';
import { createPeriodicRunner } from '../../runtime/periodic.js';
import { suite } from '../helpers/suite.js';

const test = suite('runtime: the periodic runner');

/** A pass the test ends by hand, counting how many run at once. */
function controlledPasses() {
  const ends: Array<() => void> = [];
  let active = 0;
  let most = 0;
  let started = 0;
  const pass = (label?: string) => {
    started += 1;
    active += 1;
    most = Math.max(most, active);
    return new Promise<string>((resolve) => {
      ends.push(() => {
        active -= 1;
        resolve(label ?? `pass ${started}`);
      });
    });
  };
  return { pass, ends, stats: () => ({ active, most, started }) };
}

const turn = () => new Promise((resolve) => setImmediate(resolve));

test('join: a call while a pass runs gets that pass, and no second pass starts', async () => {
  const c = controlledPasses();
  const runner = createPeriodicRunner<[label?: string], string>({
    pass: (label?: string) => c.pass(label),
    intervalMs: 60_000,
    overlap: 'join',
    onError: () => assert.unreachable('no error'),
  });
  const first = runner.runOnce('a');
  const second = runner.runOnce('b');
  await turn();
  assert.is(c.stats().started, 1);
  c.ends.shift()!();
  assert.is(await first, 'a');
  assert.is(await second, 'a');
});

test('queue: a call while a pass runs waits for it, then runs its own; never two at once', async () => {
  const c = controlledPasses();
  const runner = createPeriodicRunner<[label?: string], string>({
    pass: (label?: string) => c.pass(label),
    intervalMs: 60_000,
    overlap: 'queue',
    onError: () => assert.unreachable('no error'),
  });
  const first = runner.runOnce('a');
  const second = runner.runOnce('b');
  await turn();
  assert.is(c.stats().started, 1, 'the second waits');
  c.ends.shift()!();
  assert.is(await first, 'a');
  await turn();
  assert.is(c.stats().started, 2);
  c.ends.shift()!();
  assert.is(await second, 'b');
  assert.is(c.stats().most, 1);
});

test('the schedule: a failed pass goes to onError, the next still comes; stop() waits for a running pass', async () => {
  const errors: unknown[] = [];
  let passes = 0;
  let release: (() => void) | undefined;
  const runner = createPeriodicRunner<[], number>({
    pass: async () => {
      passes += 1;
      if (passes === 1) throw new Error('first pass fails');
      if (passes === 3) await new Promise<void>((resolve) => (release = resolve));
      return passes;
    },
    intervalMs: 5,
    overlap: 'join',
    onError: (error) => errors.push(error),
  });
  runner.start();
  while (release === undefined) await new Promise((resolve) => setTimeout(resolve, 5));
  assert.is(errors.length, 1);
  assert.is((errors[0] as Error).message, 'first pass fails');
  let stopped = false;
  const stopping = runner.stop().then(() => (stopped = true));
  await new Promise((resolve) => setTimeout(resolve, 20));
  assert.not.ok(stopped, 'stop() waits for the third pass');
  release();
  await stopping;
  await new Promise((resolve) => setTimeout(resolve, 30));
  assert.is(passes, 3, 'nothing runs after stop()');
});

test.run();
