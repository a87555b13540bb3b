/**
 * The paths outside the API: the OpenAPI document, the health check, the Prometheus series
 * and the 404 of everything else. Each answers in JSON (or the format its reader expects)
 * and never reaches the API's pipeline.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { type BlockList, isIP } from 'node:net';
import { HealthCheckResponse_ServingStatus } from '../gen/grpc/health/v1/health_pb.js';
import type { CoreClients } from './core-client.js';
import { errorBody, gatewayError } from './errors.js';
import type { GatewayMetrics } from './metrics.js';
import { OPENAPI_JSON } from './openapi.js';
import { sendJson } from './reply.js';
import type { RequestFacts } from './request-facts.js';

/** The health check must answer quickly or the gateway reports itself unhealthy. */
const HEALTH_TIMEOUT_MS = 2_000;

/** The 405 of a path that takes GET (and HEAD) only. */
export function getOnly(res: ServerResponse, message: string): void {
  const error = gatewayError('METHOD_NOT_ALLOWED', { message });
  sendJson(res, error.status, errorBody(error), { Allow: 'GET, HEAD' });
}

/** The OpenAPI document of this API; public, like the API's documentation. */
export function handleOpenApi(req: IncomingMessage, res: ServerResponse): void {
  if (req.method !== 'GET' && req.method !== 'HEAD') {
    getOnly(res, 'The OpenAPI document takes GET only.');
    return;
  }
  res.writeHead(200, {
    'Content-Type': 'application/json; charset=utf-8',
    'Content-Length': Buffer.byteLength(OPENAPI_JSON),
    'Cache-Control': 'public, max-age=300',
    // Public documentation: browser-based tools (Swagger UI, editors) may fetch it from anywhere.
    'Access-Control-Allow-Origin': '*',
  });
  res.end(req.method === 'HEAD' ? undefined : OPENAPI_JSON);
}

/**
 * How long the core's health answer is reused. A load balancer or a flood polling /healthz
 * then costs the core one health call a second, not one per request, and a change of the
 * core's health shows within a second.
 */
export const HEALTH_CACHE_MS = 1_000;

/** Whether the core is serving, asked at most once per HEALTH_CACHE_MS (concurrent askers share one call). */
export type CoreHealth = () => Promise<boolean>;

export function createCoreHealth(core: CoreClients, now: () => number = Date.now): CoreHealth {
  let known: { serving: boolean; atMs: number } | undefined;
  let asking: Promise<boolean> | undefined;
  const ask = async (): Promise<boolean> => {
    try {
      const answer = await core.health.check({ service: '' }, { timeoutMs: HEALTH_TIMEOUT_MS });
      return answer.status === HealthCheckResponse_ServingStatus.SERVING;
    } catch {
      // Any failure to reach the core is the same answer; the health check is polled, and
      // logging each miss would flood the log during an outage.
      return false;
    }
  };
  return () => {
    if (known !== undefined && now() - known.atMs < HEALTH_CACHE_MS) return Promise.resolve(known.serving);
    asking ??= ask().then((serving) => {
      known = { serving, atMs: now() };
      asking = undefined;
      return serving;
    });
    return asking;
  };
}

/**
 * 200 {"status":"ok"} once the core answers its health check as serving, else 503; 503
 * at once while this gateway is shutting down, so it is taken out of rotation first.
 */
export async function handleHealth(
  req: IncomingMessage,
  res: ServerResponse,
  coreServing: CoreHealth,
  draining: boolean,
): Promise<void> {
  if (req.method !== 'GET' && req.method !== 'HEAD') return getOnly(res, 'The health check takes GET only.');
  if (draining) {
    const error = gatewayError('CORE_UNAVAILABLE', { message: 'The gateway is shutting down.' });
    sendJson(res, error.status, errorBody(error));
    return;
  }
  if (await coreServing()) {
    sendJson(res, 200, { status: 'ok' });
    return;
  }
  const error = gatewayError('CORE_UNAVAILABLE', { message: 'The gateway cannot reach the core.' });
  sendJson(res, error.status, errorBody(error));
}

/** Who may read the series, and from where they come. */
export interface MetricsRoute {
  metrics: GatewayMetrics;
  /** The addresses METRICS_ALLOW names. */
  readers: BlockList;
  clientIpOf: (req: IncomingMessage) => string;
  /** The 404 of an unknown path, given to everyone else. */
  notFound: (res: ServerResponse, facts: RequestFacts) => void;
}

/**
 * The Prometheus series, to the addresses METRICS_ALLOW names; anyone else gets the 404
 * of an unknown path, so the endpoint does not show from outside.
 */
export async function handleMetrics(
  req: IncomingMessage,
  res: ServerResponse,
  facts: RequestFacts,
  route: MetricsRoute,
): Promise<void> {
  const clientIp = route.clientIpOf(req);
  facts.clientIp = clientIp;
  const family = isIP(clientIp) === 6 ? 'ipv6' : 'ipv4';
  if (clientIp === '' || !route.readers.check(clientIp, family)) {
    route.notFound(res, facts);
    return;
  }
  if (req.method !== 'GET' && req.method !== 'HEAD') return getOnly(res, 'The metrics take GET only.');
  const text = await route.metrics.registry.metrics();
  if (res.destroyed) return;
  res.writeHead(200, {
    'Content-Type': route.metrics.registry.contentType,
    'Content-Length': Buffer.byteLength(text),
    'Cache-Control': 'no-store',
  });
  res.end(req.method === 'HEAD' ? undefined : text);
}

/** The 404 of a path nothing is served at, naming where the API is. */
export function notFoundAnswer(basePaths: ReadonlySet<string>): (res: ServerResponse, facts: RequestFacts) => void {
  const paths = [...basePaths].join(' and ');
  const message = `Nothing is served at this path; the API answers at ${paths} with ?action=<action>.`;
  return (res, facts) => {
    facts.action = 'not_found';
    const error = gatewayError('ROUTE_NOT_FOUND', { message });
    sendJson(res, error.status, errorBody(error));
  };
}
