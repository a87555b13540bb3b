/**
 * Watching the wall clock for jumps. Sessions, reset links, invitations and two-step codes are
 * all times compared with the wall clock: set an hour ahead while the core runs, every session
 * and link ends at once and every code is refused, and nothing else says why. So the core
 * compares, every CLOCK_CHECK_INTERVAL_MS, how far its wall clock moved with how far the
 * monotonic clock (which no one can set) moved; a difference past CLOCK_JUMP_BOUND_MS is a
 * jump: a warning in the log (`clock.jump_warning`), a metric, and the console's attention queue
 * shows the last one. NTP's slow corrections (at most half a millisecond a second) stay far
 * inside the bound.
 */
import { performance } from 'node:perf_hooks';
import type { Logger } from './log.js';
import { createPeriodicRunner, type PeriodicRunner } from './periodic.js';

/** How often the two clocks are compared. */
const CLOCK_CHECK_INTERVAL_MS = 30_000;
/**
 * A difference past this is a jump: a two-step code lasts 30 s, so a clock off by more turns
 * codes down, while NTP's slewing moves the clock by a few milliseconds in a check's interval.
 */
export const CLOCK_JUMP_BOUND_MS = 5_000;

/** The last jump seen: when (by the wall clock after it) and by how much (positive: forward). */
export interface ClockJump {
  at: Date;
  jumpMs: number;
}

export interface ClockJumpWatch extends PeriodicRunner<[], ClockJump | null> {
  /** The last jump since the process started; null when none. */
  last(): ClockJump | null;
}

export function createClockJumpWatch(options: {
  /** The wall clock the process decides by (the core's clock). */
  wall: () => Date;
  /** A clock no one can set; performance.now() unless a test stands one in. */
  monotonicMs?: () => number;
  log: Logger;
  /** Told each jump, in milliseconds (the metric). */
  observe?: (jumpMs: number) => void;
  intervalMs?: number;
  boundMs?: number;
}): ClockJumpWatch {
  const monotonic = options.monotonicMs ?? (() => performance.now());
  const bound = options.boundMs ?? CLOCK_JUMP_BOUND_MS;
  let previous = { wallMs: options.wall().getTime(), monotonicMs: monotonic() };
  let last: ClockJump | null = null;
  const runner = createPeriodicRunner<[], ClockJump | null>({
    async pass() {
      const now = { wallMs: options.wall().getTime(), monotonicMs: monotonic() };
      const jumpMs = Math.round(now.wallMs - previous.wallMs - (now.monotonicMs - previous.monotonicMs));
      previous = now;
      if (Math.abs(jumpMs) <= bound) return null;
      last = { at: new Date(now.wallMs), jumpMs };
      options.log('clock.jump_warning', {
        jump_seconds: Math.round(jumpMs / 1000),
        now: last.at.toISOString(),
        effect: 'sessions, reset links, invitations and two-step codes are judged by the new time',
      });
      options.observe?.(jumpMs);
      return last;
    },
    intervalMs: options.intervalMs ?? CLOCK_CHECK_INTERVAL_MS,
    onError: () => undefined,
    overlap: 'join',
  });
  return { ...runner, last: () => last };
}
