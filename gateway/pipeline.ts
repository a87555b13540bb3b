/**
 * The API's request pipeline, in the order DESIGN.md fixes: client IP, key authentication
 * (401, with failed attempts limited per IP), the per-key rate limit (429), the action and
 * its method (422, 405), content type, body and parameters (422), then whatever the core
 * answers. Every outcome, expected or not, ends in a JSON answer.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Action, ActionResult } from './actions/action.js';
import { findAction, ACTIONS } from './actions/index.js';
import type { Caller, KeyAuthenticator } from './auth.js';
import { ClientGoneError, isJsonContentType, readJsonObject, type JsonObject } from './body.js';
import type { CoreClients } from './core-client.js';
import { errorBody, gatewayError, toApiError } from './errors.js';
import type { GatewayLogger } from './log.js';
import type { GatewayMetrics } from './metrics.js';
import { rateLimitHeaders, type Limiter } from './rate-limit.js';
import { sendJson } from './reply.js';
import { noteError, type RequestFacts } from './request-facts.js';

/** What the pipeline is built from. */
export interface PipelineDeps {
  core: CoreClients;
  log: GatewayLogger;
  metrics: GatewayMetrics;
  authenticator: KeyAuthenticator;
  /** Requests per key, counted after authentication. */
  perKey: Limiter;
  /** Failed authentications per client IP. */
  authFailures: Limiter;
  clientIpOf: (req: IncomingMessage) => string;
  maxBodyBytes: number;
}

/** Answers one API request at `url` (a base path). */
export type ApiHandler = (req: IncomingMessage, res: ServerResponse, url: URL, facts: RequestFacts) => Promise<void>;

/** Public keys are 27 characters; a longer header is logged cut, since the client wrote it. */
const MAX_LOGGED_KEY_CHARS = 64;

const EMPTY_BODY: JsonObject = Object.freeze(Object.create(null) as JsonObject);

/** Builds the API's pipeline. */
export function createApiHandler(deps: PipelineDeps): ApiHandler {
  const { log, metrics, perKey } = deps;
  const authenticate = createKeyCheck(deps);
  return async (req, res, url, facts) => {
    const clientIp = deps.clientIpOf(req);
    facts.clientIp = clientIp;
    const name = url.searchParams.get('action');
    const action = findAction(name);
    if (action !== undefined) facts.action = name!;

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
      const result = await dispatch(req, url, name, action, caller, deps);
      if (typeof result.body['reference'] === 'string') facts.reference = result.body['reference'];
      sendJson(res, result.httpStatus, result.body, { ...limitHeaders, ...result.headers });
    } catch (error) {
      if (error instanceof ClientGoneError) return;
      const apiError = toApiError(error, log, { clientIp });
      noteError(facts, apiError);
      sendJson(res, apiError.status, errorBody(apiError), { ...limitHeaders, ...apiError.headers });
    }
  };
}

/**
 * The caller behind the key pair headers. An address that has failed too often is refused
 * before the core is asked anything, so a flood of guesses costs the core nothing; a 401
 * from the core counts against the address.
 */
function createKeyCheck(deps: PipelineDeps): (req: IncomingMessage, clientIp: string, facts: RequestFacts) => Promise<Caller> {
  const { authFailures, authenticator, log, metrics } = deps;
  return async (req, clientIp, facts) => {
    const failures = await authFailures.peek(clientIp);
    if (failures.kind === 'limited') {
      metrics.rateLimited('auth-failures');
      throw gatewayError('AUTH_RATE_LIMITED', { headers: rateLimitHeaders(authFailures.policy, failures) });
    }
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
  };
}

/** The action named, its method, its body, then the action itself. */
async function dispatch(
  req: IncomingMessage,
  url: URL,
  name: string | null,
  action: Action | undefined,
  caller: Caller,
  deps: PipelineDeps,
): Promise<ActionResult> {
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
    body = await readJsonObject(req, deps.maxBodyBytes);
  }
  return action.handle({ caller, query: url.searchParams, body, headers: req.headers, core: deps.core });
}

/** A header given exactly once and not empty; anything else counts as missing. */
function singleHeader(req: IncomingMessage, name: string): string | undefined {
  const value = req.headers[name];
  if (typeof value !== 'string') return undefined;
  const trimmed = value.trim();
  return trimmed === '' ? undefined : trimmed;
}
