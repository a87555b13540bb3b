/**
 * Node's own Prometheus series (CPU, memory, event-loop lag, GC, handles), for every
 * process of the platform, made to pass Prometheus' own checker (`promtool check metrics`).
 */
import { collectDefaultMetrics, type Registry } from 'prom-client';

/**
 * prom-client's gauges named like counters. Each repeats the sum of the gauge of the same
 * name without `_total` (which has a `type` label), so nothing is lost: sum() gives it.
 */
const COUNTER_NAMED_GAUGES = [
  'nodejs_active_handles_total',
  'nodejs_active_requests_total',
  'nodejs_active_resources_total',
] as const;

/** Adds the process series to `registry`, without the gauges a counter-style name would misname. */
export function collectProcessMetrics(registry: Registry): void {
  collectDefaultMetrics({ register: registry });
  for (const name of COUNTER_NAMED_GAUGES) registry.removeSingleMetric(name);
}
