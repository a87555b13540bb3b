/**
 * The gateway's Prometheus series, served at `GET /metrics` (server.ts). Every series is
 * created once, with the gateway; a request only increments a counter and observes a
 * histogram, so measuring costs well under a microsecond of the request's time.
 *
 *   prepaid_gateway_http_requests_total{action,status,mode}       answered requests
 *   prepaid_gateway_http_request_duration_seconds{action,status}  time to answer (histogram)
 *   prepaid_gateway_http_requests_in_flight                       requests being answered now
 *   prepaid_gateway_rate_limited_total{policy}                    429s by limit (per-key, auth-failures)
 *
 * `action` is one of the API's actions, `unknown` for an API request without a known
 * action, or the route of a request outside the API: `healthz`, `metrics`, `openapi`,
 * `callback`, `not_found`. `mode` is the verified key pair's, live or test, and `none` for a
 * request no key pair was verified for, so that test traffic is never read as live. Labels
 * come from closed sets, never from what a client sent.
 */
import { Counter, Gauge, Histogram, Registry } from 'prom-client';
import { collectProcessMetrics } from '../runtime/metrics.js';

/** The mode of the key pair a request was answered for; none when no pair was verified. */
type RequestMode = 'live' | 'test' | 'none';

/** The two rate limits, as the RateLimit-Policy header names them. */
type LimitPolicyName = 'per-key' | 'auth-failures';

/** What the gateway measures. */
export interface GatewayMetrics {
  readonly registry: Registry;
  /** A request started being answered. */
  started(): void;
  /** A request was answered with `status` after `seconds`, for a key pair of `mode` (none: no pair verified). */
  answered(action: string, status: number, seconds: number, mode: RequestMode): void;
  /** A request was refused by a rate limit. */
  rateLimited(policy: LimitPolicyName): void;
}

/**
 * Latency buckets in seconds: a cached balance answers in about a millisecond, a purchase
 * waits for its provider (15 s by default before it counts as pending).
 */
const HTTP_DURATION_BUCKETS = [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 20, 30];

/**
 * A registry with the gateway's series. `defaultMetrics` adds Node's own (CPU, memory,
 * event-loop lag, GC): one process wants them once, so only gateway/main.ts asks.
 */
export function createGatewayMetrics(options: { defaultMetrics?: boolean } = {}): GatewayMetrics {
  const registry = new Registry();
  if (options.defaultMetrics) collectProcessMetrics(registry);
  const requests = new Counter({
    name: 'prepaid_gateway_http_requests_total',
    help:
      'HTTP requests answered, by action (or route), status and the key pair mode ' +
      '(live, test, or none when no pair was verified).',
    labelNames: ['action', 'status', 'mode'] as const,
    registers: [registry],
  });
  const duration = new Histogram({
    name: 'prepaid_gateway_http_request_duration_seconds',
    help: 'Time from the request to its answer, by action (or route) and status.',
    labelNames: ['action', 'status'] as const,
    buckets: HTTP_DURATION_BUCKETS,
    registers: [registry],
  });
  const inFlight = new Gauge({
    name: 'prepaid_gateway_http_requests_in_flight',
    help: 'HTTP requests being answered now.',
    registers: [registry],
  });
  const limited = new Counter({
    name: 'prepaid_gateway_rate_limited_total',
    help:
      'Requests refused with 429, by limit: per-key (60 a minute per key) or ' +
      'auth-failures (failed authentications per client IP).',
    labelNames: ['policy'] as const,
    registers: [registry],
  });
  // Both policies show from the first scrape, at 0, so an alert on their rate has a series.
  limited.inc({ policy: 'per-key' }, 0);
  limited.inc({ policy: 'auth-failures' }, 0);

  return {
    registry,
    started: () => inFlight.inc(),
    answered(action, status, seconds, mode) {
      inFlight.dec();
      const labels = { action, status: String(status) };
      requests.inc({ ...labels, mode });
      duration.observe(labels, seconds);
    },
    rateLimited: (policy) => limited.inc({ policy }),
  };
}
