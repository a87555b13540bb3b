/**
 * The public HTTP face: `{base_url}?action=...` on node:http. The server routes each request
 * by path: the API's base paths go through the pipeline (pipeline.ts), `/healthz`,
 * `/metrics` and `/openapi.json` to their handlers (routes.ts), upstream callbacks to
 * callbacks.ts, anything else to a 404. The factory builds the server without listening;
 * only gateway/main.ts (and tests, on port 0) call listen.
 *
 * Around every request: one `http.request` log line once it is answered and the request
 * series of gateway/metrics.ts (request-facts.ts), served at GET /metrics to the addresses
 * METRICS_ALLOW names.
 */
import http, { type IncomingMessage, type ServerResponse, STATUS_CODES } from 'node:http';
import { performance } from 'node:perf_hooks';
import type { Duplex } from 'node:stream';
import { addressBudgetKey } from '../core/domain/addresses.js';
import type { Dialect as DialectName } from '../core/domain/compat.js';
import { addressList, createClientIpResolver } from '../runtime/client-ip.js';
import { answerAndClose, applyHttpBounds, boundedServerOptions, type HttpBounds } from '../runtime/http-bounds.js';
import { requestUrl } from '../runtime/url.js';
import { findAction } from './actions/index.js';
import { createKeyAuthenticator } from './auth.js';
import { ClientGoneError } from './body.js';
import { type CallbackHandler, createCallbackHandler } from './callbacks.js';
import { adex } from './compat/adex/index.js';
import type { Dialect } from './compat/dialect.js';
import { createCompatHandler } from './compat/handler.js';
import { msorg } from './compat/msorg/index.js';
import { handleCompatOpenApi } from './compat/openapi.js';
import { createCompatTokenCheck } from './compat/tokens.js';
import { vtpass } from './compat/vtpass/index.js';
import { type GatewayConfig, trustedProxyList } from './config.js';
import type { CoreClients } from './core-client.js';
import { errorBody, gatewayError, toApiError } from './errors.js';
import { createFundingCallbackHandler } from './funding-callbacks.js';
import type { Limiter } from './limiter.js';
import { consoleLogger, type GatewayLogger } from './log.js';
import { createGatewayMetrics, type GatewayMetrics } from './metrics.js';
import { type ApiHandler, createApiHandler } from './pipeline.js';
import { createMemoryLimiter } from './rate-limit.js';
import { sendJson } from './reply.js';
import { newRequestFacts, noteError, type RequestFacts, recordAnswer } from './request-facts.js';
import {
  createCoreHealth,
  handleHealth,
  handleMetrics,
  handleOpenApi,
  type MetricsRoute,
  notFoundAnswer,
} from './routes.js';
import { createSlidingWindowLimiter } from './sliding-window.js';

/** What the gateway is built from. */
export interface GatewayDeps {
  config: GatewayConfig;
  core: CoreClients;
  log?: GatewayLogger;
  /** Limiters to use instead of in-memory ones, for example backed by a shared store. */
  limiters?: { perKey?: Limiter; authFailures?: Limiter };
  /** Where the request series go; a registry of its own when absent. */
  metrics?: GatewayMetrics;
  /** Tighter bounds than runtime/http-bounds.ts's defaults (tests lower the header time-out). */
  bounds?: Partial<HttpBounds>;
}

/** A built gateway: its server (not listening yet) and how to stop it. */
export interface Gateway {
  server: http.Server;
  /** The compatible endpoints' root form (COMPAT_PORT), not listening yet; absent when COMPAT_PORT is not set. */
  compatServer?: http.Server;
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

/** Both rate limits count per minute, as the spec states its limit. */
const WINDOW_SECONDS = 60;
/** Builds the gateway's HTTP server around clients of the core. */
export function createGateway(deps: GatewayDeps): Gateway {
  const log = deps.log ?? consoleLogger;
  const metrics = deps.metrics ?? createGatewayMetrics();
  const state = { draining: false };
  const { route, rootRoute } = createRouter(deps, log, metrics, state);
  const server = serve(deps, route, { log, metrics, state });
  const compatServer =
    deps.config.compatPort === undefined ? undefined : serve(deps, rootRoute, { log, metrics, state });
  return stoppable(server, metrics, state, compatServer);
}

type Route = (req: IncomingMessage, res: ServerResponse, facts: RequestFacts) => Promise<void>;

/** One HTTP server around a router, with the bounds every public port keeps. */
function serve(
  deps: GatewayDeps,
  route: Route,
  { log, metrics, state }: { log: GatewayLogger; metrics: GatewayMetrics; state: { draining: boolean } },
): http.Server {
  const onRequest = (req: IncomingMessage, res: ServerResponse) => {
    if (!bounds.admit(req, res)) return;
    const started = performance.now();
    metrics.started();
    // One object per request, filled as the pipeline learns who called and what came of it.
    const facts = newRequestFacts();
    // While shutting down, every answer closes its connection, so keep-alive clients
    // reconnect to another gateway instead of holding this one open.
    if (state.draining) res.shouldKeepAlive = false;
    void route(req, res, facts)
      .catch((error: unknown) => {
        // route() answers every error itself; reaching here means answering failed too.
        log.error('request.unanswered', { error: error instanceof Error ? error.stack : String(error) });
        res.destroy();
      })
      .finally(() => {
        recordAnswer(req, res, facts, started, { log, metrics });
        // A request that was in flight when the shutdown began leaves a keep-alive connection
        // behind; close it once the answer is out, so close() does not wait for its idle timeout.
        if (state.draining) closeWhenAnswered(server, res);
      });
  };
  const httpBounds = { maxConnectionsPerAddress: deps.config.connectionsPerAddress, ...deps.bounds };
  const server = http.createServer(boundedServerOptions(httpBounds), onRequest);
  // The connection, pipelining, header and idle bounds every public server shares (runtime/http-bounds.ts);
  // one client address holds at most CONNECTIONS_PER_ADDRESS of the connections, a trusted proxy any number.
  const bounds = applyHttpBounds(
    server,
    { budgetKey: addressBudgetKey, trustedProxies: trustedProxyList(deps.config.trustedProxies) },
    httpBounds,
  );
  // Expect: 100-continue is answered by the pipeline once the keys, the limits and the declared
  // length are accepted (body.ts), not by node:http at once; any other expectation is a JSON 417.
  server.on('checkContinue', onRequest);
  server.on('checkExpectation', (_req: IncomingMessage, res: ServerResponse) => {
    const error = gatewayError('EXPECTATION_FAILED');
    sendJson(res, error.status, errorBody(error), { Connection: 'close' });
  });
  server.on('clientError', answerUnreadableRequest);
  return server;
}

/** The router of every path: routes.ts's paths, callbacks, the API's base paths, the 404. */
function createRouter(
  deps: GatewayDeps,
  log: GatewayLogger,
  metrics: GatewayMetrics,
  state: { draining: boolean },
): { route: Route; rootRoute: Route } {
  const { config, core } = deps;
  const clientIpOf = createClientIpResolver(trustedProxyList(config.trustedProxies));
  const basePaths = new Set(config.basePaths);
  const notFound = notFoundAnswer(basePaths);
  const metricsRoute: MetricsRoute = {
    metrics,
    readers: addressList('METRICS_ALLOW', config.metricsAllow),
    clientIpOf,
    notFound,
  };
  const callbacks: CallbackHandler = createCallbackHandler({
    secret: config.vtpassCallbackSecret,
    core,
    log,
    limiter: createMemoryLimiter(
      { name: 'callbacks', quota: config.callbacksPerMinute, windowSeconds: WINDOW_SECONDS },
      log,
    ),
    clientIpOf,
  });
  const fundingCallbacks = createFundingCallbackHandler({
    core,
    log,
    limiter: createMemoryLimiter(
      { name: 'funding_callbacks', quota: config.callbacksPerMinute, windowSeconds: WINDOW_SECONDS },
      log,
    ),
    clientIpOf,
    allow:
      config.fundingCallbackAllow.length === 0
        ? null
        : addressList('FUNDING_CALLBACK_ALLOW', config.fundingCallbackAllow),
  });
  const handleApi = createPipeline(deps, log, metrics, clientIpOf);
  const coreServing = createCoreHealth(core);
  const compat = compatRouter(deps, log, metrics, clientIpOf);
  const rootDialect: Dialect =
    (DIALECTS_BY_NAME as Partial<Record<DialectName, Dialect>>)[config.compatRootDialect] ?? msorg;
  const rootRoute: Route = async (req, res, facts) => {
    const url = requestUrl(req.url);
    const pathname = url?.pathname.replace(/(.)\/+$/, '$1');
    if (pathname === '/healthz') {
      facts.action = 'healthz';
      return handleHealth(req, res, coreServing, state.draining);
    }
    if (url === undefined || pathname === undefined || !(pathname === '/api' || pathname.startsWith('/api/')))
      return notFound(res, facts);
    return compat(req, res, rootDialect, pathname.slice('/api'.length), url, facts);
  };
  const route: Route = async (req, res, facts) => {
    const url = requestUrl(req.url);
    // "/api/v1/" is "/api/v1"; "/" stays "/".
    let pathname = url?.pathname.replace(/(.)\/+$/, '$1');
    // `/api/v1/balance` is `/api/v1?action=balance` (the per-action paths of the OpenAPI
    // document, for typed-client generators); /healthz and /openapi.json are served under
    // every base path too. The action comes from the path; the rest of the request is the same.
    const alias = pathname === undefined ? undefined : baseAlias(basePaths, pathname);
    if (alias !== undefined) {
      if (alias.rest === 'healthz' || alias.rest === 'openapi.json') pathname = `/${alias.rest}`;
      else if (findAction(alias.rest) !== undefined) {
        url!.searchParams.set('action', alias.rest);
        pathname = alias.base;
      }
    }
    if (pathname === '/healthz') {
      facts.action = 'healthz';
      return handleHealth(req, res, coreServing, state.draining);
    }
    if (pathname === '/metrics') {
      facts.action = 'metrics';
      return handleMetrics(req, res, facts, metricsRoute);
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
    if (pathname !== undefined && fundingCallbacks.handles(pathname)) {
      facts.action = 'funding_callback';
      return fundingCallbacks.handle(req, res, pathname);
    }
    if (pathname === '/compat/openapi.json') {
      facts.action = 'compat.openapi';
      return handleCompatOpenApi(req, res);
    }
    // `/compat/<dialect>/api/...`: the compatible endpoints (gateway/compat/).
    const compatPath = pathname === undefined ? null : COMPAT_PATH.exec(pathname);
    if (compatPath !== null && url !== undefined && Object.hasOwn(DIALECTS_BY_NAME, compatPath[1]!)) {
      const dialect = DIALECTS_BY_NAME[compatPath[1] as keyof typeof DIALECTS_BY_NAME];
      return compat(req, res, dialect, compatPath[2] ?? '', url, facts);
    }
    if (url === undefined || pathname === undefined || !basePaths.has(pathname)) return notFound(res, facts);
    try {
      await handleApi(req, res, url, facts);
    } catch (error) {
      if (error instanceof ClientGoneError) return;
      const apiError = toApiError(error, log);
      noteError(facts, apiError);
      sendJson(res, apiError.status, errorBody(apiError), { ...apiError.headers });
    }
  };
  return { route, rootRoute };
}

/** `/compat/<dialect>/api` and what follows it. */
const COMPAT_PATH = /^\/compat\/([a-z]{1,20})\/api(\/.*)?$/;

/** The dialects this build answers, by the name in their paths. */
const DIALECTS_BY_NAME = { msorg, adex, vtpass } as const satisfies Partial<Record<DialectName, Dialect>>;

/**
 * The compatible endpoints' handler, with the main API's limiters' policies: a token spends the
 * per-key quota of its key pair (its own limiter instance, counting the same key), and failed
 * tokens the address's failure budget.
 */
function compatRouter(
  deps: GatewayDeps,
  log: GatewayLogger,
  metrics: GatewayMetrics,
  clientIpOf: (req: IncomingMessage) => string,
): (
  req: IncomingMessage,
  res: ServerResponse,
  dialect: Dialect,
  rest: string,
  url: URL,
  facts: RequestFacts,
) => Promise<void> {
  const { config, core } = deps;
  const handle = createCompatHandler({
    core,
    log,
    metrics,
    tokens: createCompatTokenCheck({ auth: core.auth, ttlMs: config.authCacheTtlMs }),
    perKey: sharedLimiters(deps, log).perKey,
    authFailures: sharedLimiters(deps, log).authFailures,
    clientIpOf,
    maxBodyBytes: config.maxBodyBytes,
    waitMs: config.compatWaitMs,
  });
  return (req, res, dialect, rest, url, facts) =>
    handle(
      req,
      res,
      dialect,
      rest.split('/').filter((segment) => segment !== ''),
      url,
      facts,
    );
}

/** `{base}/{rest}` for one of the base paths, with `rest` a single segment; undefined otherwise. */
function baseAlias(basePaths: ReadonlySet<string>, pathname: string): { base: string; rest: string } | undefined {
  const slash = pathname.lastIndexOf('/');
  if (slash <= 0) return undefined;
  const base = pathname.slice(0, slash);
  return basePaths.has(base) ? { base, rest: pathname.slice(slash + 1) } : undefined;
}

/** The API's pipeline, with in-memory limiters unless the deps bring shared ones. */
function createPipeline(
  deps: GatewayDeps,
  log: GatewayLogger,
  metrics: GatewayMetrics,
  clientIpOf: (req: IncomingMessage) => string,
): ApiHandler {
  const { config, core } = deps;
  const { perKey, authFailures } = sharedLimiters(deps, log);
  const authenticator = createKeyAuthenticator({ auth: core.auth, ttlMs: config.authCacheTtlMs });
  return createApiHandler({
    core,
    log,
    metrics,
    authenticator,
    perKey,
    authFailures,
    clientIpOf,
    maxBodyBytes: config.maxBodyBytes,
  });
}

const LIMITERS = new WeakMap<GatewayDeps, { perKey: Limiter; authFailures: Limiter }>();

/**
 * The per-key and failed-authentication limiters of one gateway, made once: the main API and
 * the compatible endpoints count in the same ones, so a key's 60 a minute are spent by its
 * pair and its tokens together.
 */
function sharedLimiters(deps: GatewayDeps, log: GatewayLogger): { perKey: Limiter; authFailures: Limiter } {
  let limiters = LIMITERS.get(deps);
  if (limiters === undefined) {
    const { config } = deps;
    limiters = {
      perKey:
        deps.limiters?.perKey ??
        createSlidingWindowLimiter({
          name: 'per-key',
          quota: config.rateLimitPerMinute,
          windowSeconds: WINDOW_SECONDS,
        }),
      authFailures:
        deps.limiters?.authFailures ??
        createMemoryLimiter(
          { name: 'auth-failures', quota: config.authFailuresPerMinute, windowSeconds: WINDOW_SECONDS },
          log,
        ),
    };
    LIMITERS.set(deps, limiters);
  }
  return limiters;
}

/** Closes the connection of an answer given while draining, once the answer is out. */
function closeWhenAnswered(server: http.Server, res: ServerResponse): void {
  const closeIdle = () => setImmediate(() => server.closeIdleConnections());
  if (res.writableFinished) closeIdle();
  else res.once('finish', closeIdle);
}

/**
 * A request Node's HTTP parser cannot read at all (bad framing, oversized headers, too
 * slow) never reaches the router; it still gets a JSON error instead of Node's bare 400, and
 * its connection is freed once that is written (answerAndClose).
 */
function answerUnreadableRequest(error: NodeJS.ErrnoException, socket: Duplex): void {
  if (!socket.writable || error.code === 'ECONNRESET') {
    socket.destroy();
    return;
  }
  const key =
    error.code === 'HPE_HEADER_OVERFLOW'
      ? 'HEADERS_TOO_LARGE'
      : error.code === 'ERR_HTTP_REQUEST_TIMEOUT'
        ? 'REQUEST_TIMEOUT'
        : 'MALFORMED_REQUEST';
  const apiError = gatewayError(key);
  const payload = JSON.stringify(errorBody(apiError));
  answerAndClose(
    socket,
    `HTTP/1.1 ${apiError.status} ${STATUS_CODES[apiError.status]}\r\n` +
      'Content-Type: application/json; charset=utf-8\r\n' +
      `Content-Length: ${Buffer.byteLength(payload)}\r\nConnection: close\r\n\r\n${payload}`,
  );
}

/** The built gateway's handle: drain, close, force. */
function stoppable(
  server: http.Server,
  metrics: GatewayMetrics,
  state: { draining: boolean },
  compatServer?: http.Server,
): Gateway {
  let closed: Promise<void> | undefined;
  const closeOne = (one: http.Server) =>
    new Promise<void>((resolve, reject) => {
      if (!one.listening) return resolve();
      one.close((error) => (error ? reject(error) : resolve()));
      one.closeIdleConnections();
    });
  return {
    server,
    ...(compatServer === undefined ? {} : { compatServer }),
    metrics,
    drain() {
      state.draining = true;
    },
    close() {
      state.draining = true;
      closed ??= Promise.all([
        new Promise<void>((resolve, reject) => {
          server.close((error) => (error ? reject(error) : resolve()));
          server.closeIdleConnections();
        }),
        ...(compatServer === undefined ? [] : [closeOne(compatServer)]),
      ]).then(() => undefined);
      return closed;
    },
    forceClose() {
      server.closeAllConnections();
      compatServer?.closeAllConnections();
    },
  };
}
