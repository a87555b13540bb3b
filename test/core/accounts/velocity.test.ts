/**
 * The velocity brake in memory, over a store double of its two reads and writes: a key is
 * judged once its history is read; a new key by the new key's allowance, a key with history by
 * its median day (never below the allowance); too many recipients new today trip it as too
 * much money does; a freeze is asked once and refuses the key's next purchase on this core; an
 * unfreeze forgets both; counts reach the store as each key's day, adding up.
 */
import * as assert from 'uvu/assert';
import { createVelocityBrake } from '../../../core/accounts/velocity.js';
import { type Kobo, kobo } from '../../../core/domain/money.js';
import { lagosDay } from '../../../core/domain/people.js';
import { type VelocityDay, velocityLimits } from '../../../core/domain/velocity.js';
import type { VelocityDayDelta } from '../../../core/store/port.js';
import { suite } from '../../helpers/suite.js';

const test = suite('velocity brake');
const settings = { enabled: true, windowMin: 10, factor: 5, newKeyWindowKobo: kobo(2_000_000) };
const start = Date.UTC(2026, 10, 30, 9, 0, 0);

function brake(history: VelocityDay[] = [], enabled = true) {
  let now = start;
  const frozen: { publicKey: string; reason: string }[] = [];
  const written: VelocityDayDelta[][] = [];
  const b = createVelocityBrake({
    store: {
      velocityDays: async () => history,
      recordVelocity: async (days) => {
        written.push(days.map((d) => ({ ...d })));
      },
    },
    settings: { ...settings, enabled },
    clock: () => new Date(now),
    log: () => {},
    freeze: async (publicKey, reason) => {
      frozen.push({ publicKey, reason });
    },
    intervalMs: 60_000,
  });
  return {
    b,
    frozen,
    written,
    at: () => new Date(now),
    advance: (ms: number) => {
      now += ms;
    },
  };
}

const settle = () => new Promise((resolve) => setImmediate(resolve));

test("a day's history sets the window's limit: factor times the median day's share, never under a new key's", () => {
  const today = lagosDay(new Date(start));
  const day = (back: number, spentKobo: number, peak = 0) => ({
    day: today - back,
    spentKobo: kobo(spentKobo),
    peakNewRecipients: peak,
  });
  assert.equal(velocityLimits([day(1, 500_000_000), day(2, 9)], settings).basis, 'new_key', 'two days are no history');
  // Median of ₦1.44m, ₦2.88m, ₦14.4m is ₦2.88m a day: ₦20,000 a 10-minute window, times 5.
  const busy = velocityLimits([day(1, 144_000_000), day(2, 288_000_000, 40), day(3, 1_440_000_000, 12)], settings);
  assert.equal(busy, { windowKobo: 10_000_000, newRecipients: 40, basis: 'history' });
  const quiet = velocityLimits([day(1, 1_000), day(2, 2_000), day(3, 3_000)], settings);
  assert.equal(quiet, { windowKobo: 2_000_000, newRecipients: 10, basis: 'history' }, 'the floor holds');
});

test('a new key is frozen once past its allowance, refused here at once, and forgotten when unfrozen', async () => {
  const { b, frozen, at, advance } = brake();
  b.noteReserve('pk_a', kobo(1_000_000) as Kobo, '08030000001', at());
  await settle();
  b.noteReserve('pk_a', kobo(1_000_000) as Kobo, '08030000001', at());
  b.refuseIfFrozen('pk_a');
  assert.equal(frozen, [], '₦20,000 is the allowance, not over it');
  advance(60_000);
  b.noteReserve('pk_a', kobo(100) as Kobo, '08030000001', at());
  assert.is(frozen.length, 1);
  assert.match(
    frozen[0]!.reason,
    /20,001\.00 Naira spent in 10 minutes, over the 20,000\.00 Naira a new key is allowed/,
  );
  assert.throws(() => b.refuseIfFrozen('pk_a'), /frozen/);
  b.refuseIfFrozen('pk_b');
  b.noteReserve('pk_a', kobo(100) as Kobo, '08030000001', at());
  assert.is(frozen.length, 1, 'asked once');
  b.unfrozen('pk_a');
  b.refuseIfFrozen('pk_a');
  await settle();
  b.noteReserve('pk_a', kobo(100) as Kobo, '08030000001', at());
  assert.is(frozen.length, 1, 'judged afresh after the unfreeze');
  await b.stop();
});

test('spending spread past the window does not add up; new recipients do trip it', async () => {
  const { b, frozen, at, advance } = brake();
  for (let i = 0; i < 30; i++) {
    b.noteReserve('pk_slow', kobo(1_000_000) as Kobo, '08030000001', at());
    await settle();
    advance(10 * 60_000);
  }
  assert.equal(frozen, [], 'one ₦10,000 a window, for five hours');
  for (let i = 0; i < 10; i++) b.noteReserve('pk_spray', kobo(100) as Kobo, `0803000${1000 + i}`, at());
  await settle();
  b.noteReserve('pk_spray', kobo(100) as Kobo, '08030001000', at());
  assert.equal(frozen, [], 'ten new recipients, and one of them again');
  b.noteReserve('pk_spray', kobo(100) as Kobo, '08039999999', at());
  assert.equal(
    frozen.map((f) => [f.publicKey, f.reason]),
    [['pk_spray', '11 new recipients in 10 minutes, over the 10 a new key is allowed']],
  );
  await b.stop();
});

test("counts reach the store as each key's day, added up, with the day's peak of new recipients", async () => {
  const { b, written, at, advance } = brake();
  b.noteReserve('pk_a', kobo(500) as Kobo, '1', at());
  b.noteReserve('pk_a', kobo(700) as Kobo, '2', at());
  advance(60_000);
  b.noteReserve('pk_b', kobo(300) as Kobo, '1', at());
  await b.flush();
  const day = lagosDay(new Date(start));
  assert.equal(written, [
    [
      { publicKey: 'pk_a', day, addKobo: 1_200, peakNewRecipients: 2 },
      { publicKey: 'pk_b', day, addKobo: 300, peakNewRecipients: 1 },
    ],
  ]);
  await b.flush();
  assert.is(written.length, 1, 'nothing new, nothing written');
  await b.stop();
});

test('with the brake off nothing is counted or frozen', async () => {
  const { b, frozen, written, at } = brake([], false);
  for (let i = 0; i < 50; i++) b.noteReserve('pk_a', kobo(1_000_000) as Kobo, `${i}`, at());
  await b.stop();
  assert.equal([frozen, written], [[], []]);
});

test.run();
