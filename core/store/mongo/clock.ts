/**
 * The core's clock against the primary's, for the leases it takes in the store.
 *
 * A webhook delivery's lease and a recovery attempt's lease are times written by the core
 * that takes them (now + the lease), and read as expired by every other core against its own
 * clock. Two cores whose clocks differ by S see one lease last S longer or shorter; a core
 * far enough behind could take a lease that the others already consider expired, and the
 * same event or purchase would be worked twice at once (its bookkeeping stays exact: an
 * attempt is recorded only by the lease's owner, and a settle happens once, but a receiver
 * would get the event twice and a provider a second re-query).
 *
 * So the store measures the core's clock against the primary's when it opens (hello's
 * localTime, halfway through the round trip) and refuses to start when it is proven more than
 * MAX_LEASE_CLOCK_SKEW_MS off. Between any two cores the difference is then at most twice
 * that, well inside every lease (a delivery's lease is four attempt time-outs, a recovery's
 * one provider time-out and more); keep the hosts' clocks synchronised (NTP) so that it stays
 * so while they run.
 */
import type { MongoClient } from 'mongodb';
import { beyondBound, type ClockSample, clockSample, helloTime } from '../../../runtime/clock-skew.js';

/** The largest difference with the primary's clock a core may start with. */
export const MAX_LEASE_CLOCK_SKEW_MS = 2_000;

/** One comparison of this process's clock with the primary's. */
export async function measureClock(client: MongoClient, now: () => number = Date.now): Promise<ClockSample> {
  const sent = now();
  const server = helloTime(await client.db('admin').command({ hello: 1 }));
  return clockSample(sent, now(), server.getTime());
}

/** Whether a core with this clock may take leases, and if not, why. */
export function leaseClockVerdict(sample: ClockSample): { ok: true } | { ok: false; reason: string } {
  if (!beyondBound(sample, MAX_LEASE_CLOCK_SKEW_MS)) return { ok: true };
  const seconds = (sample.offsetMs / 1000).toFixed(1);
  return {
    ok: false,
    reason:
      `this host's clock differs from the MongoDB primary's by ${seconds} s (more than ` +
      `${MAX_LEASE_CLOCK_SKEW_MS / 1000} s): ` +
      'webhook and recovery leases would not hold between cores. Synchronise the clock (NTP) and start again.',
  };
}
