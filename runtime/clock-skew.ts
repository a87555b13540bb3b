/**
 * Comparing this process's clock with MongoDB's: the gateway's shared auth-failure counters
 * (gateway/clock-skew.ts) and the core's delivery and recovery leases (core/store/mongo/clock.ts)
 * both rely on clocks that agree with the primary's within a bound.
 */

/** One comparison: the server's time against the middle of the round trip that fetched it. */
export interface ClockSample {
  /** Server time minus this process's time (positive: the server is ahead). */
  offsetMs: number;
  /** Half the round trip: the offset is known to within this much. */
  uncertaintyMs: number;
}

export function clockSample(sentMs: number, receivedMs: number, serverMs: number): ClockSample {
  return { offsetMs: serverMs - (sentMs + receivedMs) / 2, uncertaintyMs: (receivedMs - sentMs) / 2 };
}

/** Whether the sample proves a skew beyond `boundMs` (a slow round trip proves nothing). */
export function beyondBound(sample: ClockSample, boundMs: number): boolean {
  return Math.abs(sample.offsetMs) - sample.uncertaintyMs > boundMs;
}

/** Reads the server's clock from a `hello` reply (its localTime). */
export function helloTime(hello: Record<string, unknown>): Date {
  const time = hello['localTime'];
  if (!(time instanceof Date)) throw new Error('hello gave no localTime');
  return time;
}
