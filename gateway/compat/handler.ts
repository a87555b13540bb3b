/**
 * The compatible endpoints' pipeline (docs/compat.md), in the main API's order and with its
 * bounds: client IP, the token (401 in the dialect's shape, failed checks limited per address
 * as key pairs are), the key's 60-a-minute limit shared with the main API (the token acts as
 * its key pair), the route and its method, the key's scopes, the body, then the dialect's
 * route. Every outcome is answered in the dialect's shape.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { performance } from 'node:perf_hooks';
import { allowsScope, scopeDenied } from '../../core/domain/key-controls.js';
import { ClientGoneError, type JsonObject, readBounded, readJsonObject } from '../body.js';
import type { CoreClients } from '../core-client.js';
import { ApiError, invalidParameters, keyScopeDenied, toApiError } from '../errors.js';
import { type Limiter, rateLimitHeaders } from '../limiter.js';
import type { GatewayLogger } from '../log.js';
import type { GatewayMetrics } from '../metrics.js';
import { failureBudgetKey } from '../pipeline.js';
import { sendJson } from '../reply.js';
import { noteError, type RequestFacts } from '../request-facts.js';
import type { CompatAnswer, CompatCaller, Dialect } from './dialect.js';
import { formDataBoundary, readFormData } from './form-data.js';
import type { CompatTokenCheck } from './tokens.js';

export interface CompatDeps {
  core: CoreClients;
  log: GatewayLogger;
  metrics: GatewayMetrics;
  tokens: CompatTokenCheck;
  /** The main API's per-key limiter: a token spends its key pair's quota. */
  perKey: Limiter;
  authFailures: Limiter;
  clientIpOf: (req: IncomingMessage) => string;
  maxBodyBytes: number;
  /** How long a purchase's outcome is waited for (COMPAT_WAIT_S). */
  waitMs: number;
}

/** Answers one request to `segments` (after `api/`) in `dialect`. */
export type CompatHandler = (
  req: IncomingMessage,
  res: ServerResponse,
  dialect: Dialect,
  segments: readonly string[],
  url: URL,
  facts: RequestFacts,
) => Promise<void>;

const EMPTY_BODY: JsonObject = Object.freeze(Object.create(null) as JsonObject);

export function createCompatHandler(deps: CompatDeps): CompatHandler {
  return async (req, res, dialect, segments, url, facts) => {
    const started = performance.now();
    const clientIp = deps.clientIpOf(req);
    facts.clientIp = clientIp;
    facts.action = `compat.${dialect.name}.${segments[0] ?? ''}`;
    const answer = (a: CompatAnswer, headers: Record<string, string> = {}) => sendJson(res, a.status, a.body, headers);
    try {
      const caller = await authenticate(deps, req, dialect, clientIp);
      if (caller === undefined) {
        noteError(facts, new ApiError('INVALID_API_KEY', 'Invalid token.'));
        return answer(dialect.unauthorized(dialect.tokenOf(req.headers) === undefined));
      }
      facts.account = caller.accountId;
      facts.mode = caller.mode;
      facts.publicKey = caller.publicKey;
      const decision = await deps.perKey.consume(caller.publicKey);
      if (decision.kind === 'limited') {
        deps.metrics.rateLimited('per-key');
        return answer(dialect.throttled(decision.resetSeconds), rateLimitHeaders(deps.perKey.policy, decision));
      }
      const route = dialect.route(segments);
      if (route === undefined) return answer(dialect.notFound());
      const method = req.method === 'HEAD' ? 'GET' : req.method;
      if (method !== 'GET' && method !== 'POST') return answer(dialect.methodNotAllowed(req.method ?? ''));
      if (!route.methods.includes(method)) return answer(dialect.methodNotAllowed(method));
      if (route.scope !== '' && !allowsScope(caller.scopes, route.scope)) {
        throw keyScopeDenied(scopeDenied(route.scope).message);
      }
      const body = method === 'POST' ? await readBody(req, res, deps.maxBodyBytes) : EMPTY_BODY;
      const result = await route.handle({
        caller,
        method,
        headers: req.headers,
        segments,
        query: url.searchParams,
        body,
        core: deps.core,
        log: deps.log,
        waitUntilMs: started + deps.waitMs,
      });
      answer(result);
    } catch (error) {
      if (error instanceof ClientGoneError) return;
      const apiError = toApiError(error, deps.log, { clientIp });
      noteError(facts, apiError);
      answer(dialect.refusal(apiError), { ...apiError.headers });
    }
  };
}

/**
 * The caller behind the token, or undefined for a wrong or missing one. A token not cached
 * spends a place in its address's failure budget before the core is asked, given back when it
 * turns out right, as for key pairs (pipeline.ts); an address over its budget is refused
 * without asking.
 */
async function authenticate(
  deps: CompatDeps,
  req: IncomingMessage,
  dialect: Dialect,
  clientIp: string,
): Promise<CompatCaller | undefined> {
  const token = dialect.tokenOf(req.headers);
  if (token === undefined) return undefined;
  const hit = deps.tokens.cached(dialect.name, token, clientIp);
  if (hit !== undefined) return hit;
  if (deps.tokens.passes(dialect.name, token, clientIp)) {
    try {
      return await deps.tokens.verify(dialect.name, token, clientIp);
    } catch (error) {
      const apiError = toApiError(error, deps.log, { clientIp });
      if (apiError.status === 401) return undefined;
      throw apiError;
    }
  }
  const budgetKey = failureBudgetKey(clientIp);
  const reserved = await deps.authFailures.consume(budgetKey);
  if (reserved.kind === 'limited') {
    deps.metrics.rateLimited('auth-failures');
    return undefined;
  }
  try {
    const caller = await deps.tokens.verify(dialect.name, token, clientIp);
    await deps.authFailures.reward(budgetKey);
    return caller;
  } catch (error) {
    const apiError = toApiError(error, deps.log, { clientIp });
    if (apiError.status === 401) return undefined;
    await deps.authFailures.reward(budgetKey);
    throw apiError;
  }
}

/** A multipart form's text fields (form-data.ts); a body too large or not well formed is refused as JSON would be. */
async function readMultipart(
  req: IncomingMessage,
  res: ServerResponse,
  maxBodyBytes: number,
  boundary: string,
): Promise<JsonObject> {
  const raw = await readBounded(req, maxBodyBytes, res);
  if (raw === 'gone') throw new ClientGoneError();
  if (raw === 'too_large') return readJsonObject(req, 0, res);
  const fields = readFormData(raw, boundary);
  if (fields === undefined) {
    throw invalidParameters([{ field: 'body', message: 'The multipart form body is not well formed.' }]);
  }
  return fields;
}

/**
 * A POST's body: JSON whatever the Content-Type says (the family's clients all send JSON, some
 * without the header), or a form when it says so: URL-encoded, or multipart as PHP's cURL
 * sends an array. An empty body is an empty object: the route's field checks then name what
 * is missing.
 */
async function readBody(req: IncomingMessage, res: ServerResponse, maxBodyBytes: number): Promise<JsonObject> {
  const type = (req.headers['content-type'] ?? '').split(';')[0]!.trim().toLowerCase();
  if (type === 'application/x-www-form-urlencoded') {
    const raw = await readBounded(req, maxBodyBytes, res);
    if (raw === 'gone') throw new ClientGoneError();
    if (raw === 'too_large') return readJsonObject(req, 0, res);
    const form = Object.create(null) as JsonObject;
    for (const [name, value] of new URLSearchParams(Buffer.from(raw).toString('utf8'))) form[name] = value;
    return form;
  }
  const boundary = formDataBoundary(req.headers['content-type'] ?? '');
  if (boundary !== undefined) return readMultipart(req, res, maxBodyBytes, boundary);
  if (req.headers['content-length'] === '0') return EMPTY_BODY;
  return readJsonObject(req, maxBodyBytes, res);
}
