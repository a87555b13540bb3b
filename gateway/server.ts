/**
 * The public HTTP face: `{base_url}?action=...` on node:http. One pipeline, in the order
 * DESIGN.md fixes: path, client IP, key authentication (401, with failed attempts limited
 * per IP), the per-key rate limit (429), the action and its method (422, 405), content type,
 * body and parameters (422), then whatever the core answers. The factory builds the server
 * without listening; only gateway/main.ts (and tests, on port 0) call listen.
 *
 * Around every request: one `http.request` log line once it is answered (action, account,
 * reference of a purchase, status, latency, client IP; never a key or a path, since a
 * callback's path holds a secret) and the request series of gateway/metrics.ts, served at
 * GET /metrics to the addresses METRICS_ALLOW names.
 */
import http, { STATUS_CODES, type IncomingMessage, type ServerResponse } from 'node:http';
import { isIP } from 'node:net';
import { performance } from 'node:perf_hooks';
import type { Duplex } from 'node:stream';
import { HealthCheckResponse_ServingStatus } from '../gen/grpc/health/v1/health_pb.js';
import { findAction, ACTIONS } from './actions/index.js';
import { createKeyAuthenticator, type Caller, type KeyAuthenticator } from './auth.js';
import { ClientGoneError, isJsonContentType, readJsonObject, type JsonObject } from './body.js';
import { createCallbackHandler } from './callbacks.js';
import { createClientIpResolver, normalizeAddress } from './client-ip.js';
import { addressList, trustedProxyList, type GatewayConfig } from './config.js';
import type { CoreClients } from './core-client.js';
import { errorBody, gatewayError, toApiError } from './errors.js';
import { consoleLogger, type GatewayLogger } from './log.js';
import { createGatewayMetrics, type GatewayMetrics } from './metrics.js';
import { OPENAPI_JSON } from './openapi.js';
import { sendJson } from './reply.js';
import { createMemoryLimiter, rateLimitHeaders, type Limiter } from './rate-limit.js';

/** What the gateway is built from. */
export interface GatewayDeps {
  config: GatewayConfig;
  core: CoreClients;
  log?: GatewayLogger;
  /** Limiters to use instead of in-memory ones, for example backed by a shared store. */
  limiters?: { perKey?: Limiter; authFailures?: Limiter };
  /** Where the request series go; a registry of its own when absent. */
  metrics?: GatewayMetrics;
}

/** A built gateway: its server (not listening yet) and how to stop it. */
export interface Gateway {
  server: http.Server;
  metrics: GatewayMetrics;
  /**
   * The first step of a shutdown: /healthz answers 503 so load balancers stop sending, and
   * every answer from now on closes its connection. Requests are still served.
   */
  drain(): void;
  /** drain(), then stops accepting connections and waits for open requests to finish. */
  close(): Promise<void>;
  /** Past the shutdown deadline: drops every connection still open. */
  forceClose(): void;
}

/** What one request's log line and series say, filled in as the pipeline learns it. */
interface RequestFacts {
  /** An API action, `unknown`, or the route outside the API (healthz, metrics, ...). */
  action: string;
  clientIp: string | undefined;
  account: string | undefined;
  /** The public key the request presented (never the secret), bounded: it is the client's text. */
  publicKey: string | undefined;
  /** The transaction a purchase made (or an error names). */
  reference: string | undefined;
  /** The public error code of an error answer. */
  code: string | undefined;
  errorId: string | undefined;
}

/** Both rate limits count per minute, as the spec states its limit. */
const WINDOW_SECONDS = 60;
/** The health check must answer quickly or the gateway reports itself unhealthy. */
const HEALTH_TIMEOUT_MS = 2_000;
/** A client gets this long to send its headers, and its whole request, before it is dropped. */
const HEADERS_TIMEOUT_MS = 10_000;
const REQUEST_TIMEOUT_MS = 30_000;

/** Public keys are 27 characters; a longer header is logged cut, since the client wrote it. */
const MAX_LOGGED_KEY_CHARS = 64;

const EMPTY_BODY: JsonObject = Object.freeze(Object.create(null) as JsonObject);

/** Builds the gateway's HTTP server around clients of the core. */
export function createGateway(deps: GatewayDeps): Gateway {
  const { config, core } = deps;
  const log = deps.log ?? consoleLogger;
  const metrics = deps.metrics ?? createGatewayMetrics();
  const metricsReaders = addressList('METRICS_ALLOW', config.metricsAllow);
  let draining = false;
  const callbacks = createCallbackHandler({ secret: config.vtpassCallbackSecret, core, log });
  const basePaths = new Set(config.basePaths);
  const clientIpOf = createClientIpResolver(trustedProxyList(config.trustedProxies));
  const authenticator: KeyAuthenticator = createKeyAuthenticator({ auth: core.auth, ttlMs: config.authCacheTtlMs });
  const perKey =
    deps.limiters?.perKey ??
    createMemoryLimiter({ name: 'per-key', quota: config.rateLimitPerMinute, windowSeconds: WINDOW_SECONDS }, log);
  const authFailures =
    deps.limiters?.authFailures ??
    createMemoryLimiter({ name: 'auth-failures', quota: config.authFailuresPerMinute, windowSeconds: WINDOW_SECONDS }, log);

  /** Answers an API request; every outcome, expected or not, ends in a JSON answer. */
  async function handleApi(req: IncomingMessage, res: ServerResponse, url: URL, facts: RequestFacts): Promise<void> {
    const clientIp = clientIpOf(req);
    facts.clientIp = clientIp;
    const name = url.searchParams.get('action');
    const action = findAction(name);
    if (action !== undefined) facts.action = name!;

    // Keys first. An address that has failed too often is refused before the core is
    // asked anything, so a flood of guesses costs the core nothing.
    const failures = await authFailures.peek(clientIp);
    if (failures.kind === 'limited') {
      metrics.rateLimited('auth-failures');
      throw gatewayError('AUTH_RATE_LIMITED', { headers: rateLimitHeaders(authFailures.policy, failures) });
    }
    const caller = await authenticate(req, clientIp, facts);
    facts.account = caller.accountId;

    // Counted only after authentication, so nobody can spend another account's quota
    // with its public key alone.
    const decision = await perKey.consume(caller.publicKey);
    const limitHeaders = rateLimitHeaders(perKey.policy, decision);
    try {
      if (decision.kind === 'limited') {
        metrics.rateLimited('per-key');
        throw gatewayError('RATE_LIMITED');
      }

      if (action === undefined) {
        const known = Object.keys(ACTIONS).join(', ');
        const message =
          name === null || name === ''
            ? `The action query parameter is required; it is one of ${known}.`
            : `There is no action "${name.slice(0, 40)}"; it is one of ${known}.`;
        throw gatewayError('UNKNOWN_ACTION', { message });
      }
      if (req.method !== action.method) {
        throw gatewayError('METHOD_NOT_ALLOWED', {
          message: `This action takes ${action.method} only.`,
          headers: { Allow: action.method },
        });
      }

      let body = EMPTY_BODY;
      if (action.method === 'POST') {
        if (!isJsonContentType(req.headers['content-type'])) throw gatewayError('INVALID_CONTENT_TYPE');
        body = await readJsonObject(req, config.maxBodyBytes);
      }

      const result = await action.handle({ caller, query: url.searchParams, body, headers: req.headers, core });
      if (typeof result.body['reference'] === 'string') facts.reference = result.body['reference'];
      sendJson(res, result.httpStatus, result.body, { ...limitHeaders, ...result.headers });
    } catch (error) {
      if (error instanceof ClientGoneError) return;
      const apiError = toApiError(error, log, { clientIp });
      noteError(facts, apiError);
      sendJson(res, apiError.status, errorBody(apiError), { ...limitHeaders, ...apiError.headers });
    }
  }

  /** The caller behind the key pair headers, or a 401 that also counts against the address. */
  async function authenticate(req: IncomingMessage, clientIp: string, facts: RequestFacts): Promise<Caller> {
    const publicKey = singleHeader(req, 'x-public-key');
    const secretKey = singleHeader(req, 'x-secret-key');
    if (publicKey !== undefined) facts.publicKey = publicKey.slice(0, MAX_LOGGED_KEY_CHARS);
    // Missing headers cost the core nothing, so they do not spend the address's allowance:
    // a partner still wiring up its client should not lock itself out.
    if (publicKey === undefined || secretKey === undefined) throw gatewayError('MISSING_API_KEY');
    try {
      return await authenticator.authenticate(publicKey, secretKey, clientIp);
    } catch (error) {
      const apiError = toApiError(error, log, { clientIp });
      if (apiError.status !== 401) throw apiError;
      // The failure that uses up the address's allowance is still a 401, so the caller
      // learns its keys are wrong; the next attempt from there is the 429.
      const failures = await authFailures.consume(clientIp);
      throw apiError.withHeaders(rateLimitHeaders(authFailures.policy, failures));
    }
  }

  /** The OpenAPI document of this API; public, like the API's documentation. */
  function handleOpenApi(req: IncomingMessage, res: ServerResponse): void {
    if (req.method !== 'GET' && req.method !== 'HEAD') {
      const error = gatewayError('METHOD_NOT_ALLOWED', { message: 'The OpenAPI document takes GET only.' });
      sendJson(res, error.status, errorBody(error), { Allow: 'GET, HEAD' });
      return;
    }
    res.writeHead(200, {
      'Content-Type': 'application/json; charset=utf-8',
      'Content-Length': Buffer.byteLength(OPENAPI_JSON),
      'Cache-Control': 'public, max-age=300',
    });
    res.end(req.method === 'HEAD' ? undefined : OPENAPI_JSON);
  }

  /**
   * 200 {"status":"ok"} once the core answers its health check as serving, else 503; 503
   * at once while this gateway is shutting down, so it is taken out of rotation first.
   */
  async function handleHealth(req: IncomingMessage, res: ServerResponse): Promise<void> {
    if (req.method !== 'GET' && req.method !== 'HEAD') {
      const error = gatewayError('METHOD_NOT_ALLOWED', { message: 'The health check takes GET only.' });
      sendJson(res, error.status, errorBody(error), { Allow: 'GET, HEAD' });
      return;
    }
    if (draining) {
      const error = gatewayError('CORE_UNAVAILABLE', { message: 'The gateway is shutting down.' });
      sendJson(res, error.status, errorBody(error));
      return;
    }
    try {
      const answer = await core.health.check({ service: '' }, { timeoutMs: HEALTH_TIMEOUT_MS });
      if (answer.status === HealthCheckResponse_ServingStatus.SERVING) {
        sendJson(res, 200, { status: 'ok' });
        return;
      }
    } catch {
      // Any failure to reach the core is the same answer; the health check is polled, and
      // logging each miss would flood the log during an outage.
    }
    const error = gatewayError('CORE_UNAVAILABLE', { message: 'The gateway cannot reach the core.' });
    sendJson(res, error.status, errorBody(error));
  }

  /**
   * The Prometheus series, to the addresses METRICS_ALLOW names; anyone else gets the 404
   * of an unknown path, so the endpoint does not show from outside.
   */
  async function handleMetrics(req: IncomingMessage, res: ServerResponse, facts: RequestFacts): Promise<void> {
    const clientIp = clientIpOf(req);
    facts.clientIp = clientIp;
    const family = isIP(clientIp) === 6 ? 'ipv6' : 'ipv4';
    if (clientIp === '' || !metricsReaders.check(clientIp, family)) {
      notFound(res, facts);
      return;
    }
    if (req.method !== 'GET' && req.method !== 'HEAD') {
      const error = gatewayError('METHOD_NOT_ALLOWED', { message: 'The metrics take GET only.' });
      sendJson(res, error.status, errorBody(error), { Allow: 'GET, HEAD' });
      return;
    }
    const text = await metrics.registry.metrics();
    if (res.destroyed) return;
    res.writeHead(200, {
      'Content-Type': metrics.registry.contentType,
      'Content-Length': Buffer.byteLength(text),
      'Cache-Control': 'no-store',
    });
    res.end(req.method === 'HEAD' ? undefined : text);
  }

  /** The 404 of a path nothing is served at. */
  function notFound(res: ServerResponse, facts: RequestFacts): void {
    facts.action = 'not_found';
    const error = gatewayError('ROUTE_NOT_FOUND', {
      message: `Nothing is served at this path; the API answers at ${[...basePaths].join(' and ')} with ?action=<action>.`,
    });
    sendJson(res, error.status, errorBody(error));
  }

  const server = http.createServer(
    { headersTimeout: HEADERS_TIMEOUT_MS, requestTimeout: REQUEST_TIMEOUT_MS },
    (req, res) => {
      const started = performance.now();
      metrics.started();
      // One object per request, filled as the pipeline learns who called and what came of it.
      const facts: RequestFacts = { action: 'unknown', clientIp: undefined, account: undefined, publicKey: undefined, reference: undefined, code: undefined, errorId: undefined };
      // While shutting down, every answer closes its connection, so keep-alive clients
      // reconnect to another gateway instead of holding this one open.
      if (draining) res.shouldKeepAlive = false;
      void route(req, res, facts)
        .catch((error: unknown) => {
          // route() answers every error itself; reaching here means answering failed too.
          log.error('request.unanswered', { error: error instanceof Error ? error.stack : String(error) });
          res.destroy();
        })
        .finally(() => answered(req, res, facts, started));
    },
  );

  /** The request's series and its log line, once it is answered. */
  function answered(req: IncomingMessage, res: ServerResponse, facts: RequestFacts, started: number): void {
    const seconds = (performance.now() - started) / 1000;
    // 499 (nginx's "client closed request") when the client left before any answer.
    const status = res.headersSent ? res.statusCode : 499;
    metrics.answered(facts.action, status, seconds);
    const fields = {
      method: req.method,
      action: facts.action,
      status,
      latency_ms: Math.round(seconds * 10_000) / 10,
      client_ip: facts.clientIp ?? normalizedPeer(req),
      ...(facts.account === undefined ? {} : { account: facts.account }),
      ...(facts.publicKey === undefined ? {} : { public_key: facts.publicKey }),
      ...(facts.reference === undefined ? {} : { reference: facts.reference }),
      ...(facts.code === undefined ? {} : { code: facts.code }),
      ...(facts.errorId === undefined ? {} : { error_id: facts.errorId }),
    };
    // Probes come every few seconds; they are only worth a line while debugging.
    if (facts.action === 'healthz' || facts.action === 'metrics') log.debug?.('http.request', fields);
    else log.info('http.request', fields);
    // A request that was in flight when the shutdown began leaves a keep-alive connection
    // behind; close it once the answer is out, so close() does not wait for its idle timeout.
    if (draining) {
      const closeIdle = () => setImmediate(() => server.closeIdleConnections());
      if (res.writableFinished) closeIdle();
      else res.once('finish', closeIdle);
    }
  }

  // A request Node's HTTP parser cannot read at all (bad framing, oversized headers, too
  // slow) never reaches route(); it still gets a JSON error instead of Node's bare 400.
  server.on('clientError', (error: NodeJS.ErrnoException, socket: Duplex) => {
    if (!socket.writable || error.code === 'ECONNRESET') {
      socket.destroy();
      return;
    }
    const key =
      error.code === 'HPE_HEADER_OVERFLOW' ? 'HEADERS_TOO_LARGE' : error.code === 'ERR_HTTP_REQUEST_TIMEOUT' ? 'REQUEST_TIMEOUT' : 'MALFORMED_REQUEST';
    const apiError = gatewayError(key);
    const payload = JSON.stringify(errorBody(apiError));
    socket.end(
      `HTTP/1.1 ${apiError.status} ${STATUS_CODES[apiError.status]}\r\n` +
        'Content-Type: application/json; charset=utf-8\r\n' +
        `Content-Length: ${Buffer.byteLength(payload)}\r\nConnection: close\r\n\r\n${payload}`,
    );
  });

  async function route(req: IncomingMessage, res: ServerResponse, facts: RequestFacts): Promise<void> {
    const url = requestUrl(req.url);
    // "/api/v1/" is "/api/v1"; "/" stays "/".
    const pathname = url?.pathname.replace(/(.)\/+$/, '$1');
    if (pathname === '/healthz') {
      facts.action = 'healthz';
      return handleHealth(req, res);
    }
    if (pathname === '/metrics') {
      facts.action = 'metrics';
      return handleMetrics(req, res, facts);
    }
    if (pathname === '/openapi.json') {
      facts.action = 'openapi';
      return handleOpenApi(req, res);
    }
    // Upstream callbacks (callbacks.ts) carry no API keys; anything else falls through to the 404.
    if (pathname !== undefined && callbacks.handles(pathname)) {
      facts.action = 'callback';
      return callbacks.handle(req, res);
    }
    if (url === undefined || pathname === undefined || !basePaths.has(pathname)) {
      notFound(res, facts);
      return;
    }
    try {
      await handleApi(req, res, url, facts);
    } catch (error) {
      if (error instanceof ClientGoneError) return;
      const apiError = toApiError(error, log);
      noteError(facts, apiError);
      sendJson(res, apiError.status, errorBody(apiError), { ...apiError.headers });
    }
  }

  let closed: Promise<void> | undefined;
  return {
    server,
    metrics,
    drain() {
      draining = true;
    },
    close() {
      draining = true;
      closed ??= new Promise<void>((resolve, reject) => {
        server.close((error) => (error ? reject(error) : resolve()));
        server.closeIdleConnections();
      });
      return closed;
    },
    forceClose() {
      server.closeAllConnections();
    },
  };
}

/** What an error answer adds to the request's log line. */
function noteError(facts: RequestFacts, error: { code: string; reference: string | undefined; errorId: string | undefined }): void {
  facts.code = error.code;
  if (error.reference !== undefined) facts.reference = error.reference;
  if (error.errorId !== undefined) facts.errorId = error.errorId;
}

/** The socket's peer, as the IP locks write it, for requests that never reached the pipeline. */
function normalizedPeer(req: IncomingMessage): string | undefined {
  return req.socket.remoteAddress === undefined ? undefined : (normalizeAddress(req.socket.remoteAddress) ?? req.socket.remoteAddress);
}

/**
 * The request target as a URL. It is appended to a fixed origin rather than resolved
 * against one, so that a target like "//other.host/api/v1" stays a path (and matches no base
 * path) instead of becoming another host. Undefined when it cannot be parsed at all.
 */
function requestUrl(target: string | undefined): URL | undefined {
  if (target === undefined || !target.startsWith('/')) return undefined;
  try {
    return new URL(`http://gateway.invalid${target}`);
  } catch {
    return undefined;
  }
}

/** A header given exactly once and not empty; anything else counts as missing. */
function singleHeader(req: IncomingMessage, name: string): string | undefined {
  const value = req.headers[name];
  if (typeof value !== 'string') return undefined;
  const trimmed = value.trim();
  return trimmed === '' ? undefined : trimmed;
}
