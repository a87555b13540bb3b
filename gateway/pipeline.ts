/**
 * The API's request pipeline, in this order (docs/api.md, errors): client IP, key authentication
 * (401, with failed attempts limited per IP), the per-key rate limit (429), the action and
 * its method (422, 405), content type, body and parameters (422), then whatever the core
 * answers. Every outcome, expected or not, ends in a JSON answer.
 */

import type { IncomingHttpHeaders, IncomingMessage, ServerResponse } from 'node:http';
import { addressBudgetKey } from '../core/domain/addresses.js';
import { allowsScope, scopeDenied } from '../core/domain/key-controls.js';
import type { Action, ActionResult } from './actions/action.js';
import { ACTIONS, findAction } from './actions/index.js';
import type { Caller, KeyAuthenticator } from './auth.js';
import { ClientGoneError, isJsonContentType, type JsonObject, readJsonObject } from './body.js';
import type { CoreClients } from './core-client.js';
import { errorBody, gatewayError, keyScopeDenied, toApiError } from './errors.js';
import { type Limiter, rateLimitHeaders } from './limiter.js';
import type { GatewayLogger } from './log.js';
import type { GatewayMetrics } from './metrics.js';
import { EncodedJson, sendJson } from './reply.js';
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
    facts.mode = caller.mode;

    // Counted only after authentication, so nobody can spend another account's quota
    // with its public key alone.
    const decision = await perKey.consume(caller.publicKey);
    const limitHeaders = rateLimitHeaders(perKey.policy, decision);
    try {
      if (decision.kind === 'limited') {
        metrics.rateLimited('per-key');
        throw gatewayError('RATE_LIMITED');
      }
      const result = await dispatch(req, res, url, name, action, caller, deps);
      if (!(result.body instanceof EncodedJson) && typeof result.body['reference'] === 'string')
        facts.reference = result.body['reference'];
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
 * The caller behind the key pair headers, with failed authentications limited per client
 * address (an IPv6 client by its /64, which one subscriber usually holds whole):
 *
 * - A place in the address's failure budget is taken BEFORE the core is asked and given back
 *   when the pair turns out right, so a burst of guesses sent at once reaches the core at
 *   most as often as the budget allows, however many run concurrently.
 * - A pair the gateway has seen verified (auth.ts, "known good"), a pair cached as verified
 *   from this address, and a request that joins a verification already under way for the
 *   same pair and address skip the budget: strangers guessing behind the same NAT or proxy
 *   use the budget up for themselves, not for the partners working there.
 * - An address over its budget is answered 429 for wrong pairs, but a right pair still passes
 *   (one never used before included): its pair is checked, one check per address at a time.
 * - Missing headers cost the core nothing and spend nothing.
 *
 * There is no failure limit per public key: it would let anyone lock any partner out by
 * guessing against its public key, and a secret of 32 random bytes cannot be guessed anyway.
 */
function createKeyCheck(
  deps: PipelineDeps,
): (req: IncomingMessage, clientIp: string, facts: RequestFacts) => Promise<Caller> {
  const { authFailures, authenticator, log, metrics } = deps;
  /** The addresses (budget keys) over their failure budget whose one allowed check is under way. */
  const overBudgetChecks = new Set<string>();
  return async (req, clientIp, facts) => {
    const publicKey = singleHeader(req, 'x-public-key');
    const secretKey = singleHeader(req, 'x-secret-key');
    // The header is logged only in the shape of a public key, cut, since the client wrote it
    // (a partner that swaps the two headers must not get its secret key logged).
    if (typeof publicKey === 'string') facts.publicKey = loggablePublicKey(publicKey);
    if (publicKey === REPEATED) throw repeatedHeader('X-Public-Key');
    if (secretKey === REPEATED) throw repeatedHeader('X-Secret-Key');
    if (publicKey === undefined || secretKey === undefined) throw gatewayError('MISSING_API_KEY');
    // The common case, a pair verified moments ago from here, answers without asking anyone.
    const hit = authenticator.cached(publicKey, secretKey, clientIp);
    if (hit !== undefined) return hit;
    if (authenticator.knownGood(publicKey, secretKey) || authenticator.inFlight(publicKey, secretKey, clientIp)) {
      try {
        return await authenticator.authenticate(publicKey, secretKey, clientIp);
      } catch (error) {
        // Mapped here, with the address: an IP_NOT_ALLOWED must name it on this path too.
        throw toApiError(error, log, { clientIp });
      }
    }
    const budgetKey = failureBudgetKey(clientIp);
    const reserved = await authFailures.consume(budgetKey);
    if (reserved.kind === 'limited') {
      const limited = () => {
        metrics.rateLimited('auth-failures');
        return gatewayError('AUTH_RATE_LIMITED', { headers: rateLimitHeaders(authFailures.policy, reserved) });
      };
      // Over the budget the pair is still checked, one check at a time per address, so a
      // correct pair never used before passes while strangers there are throttled; a wrong
      // one is the 429, and guesses reach the core no faster than one after another.
      if (overBudgetChecks.has(budgetKey)) throw limited();
      overBudgetChecks.add(budgetKey);
      try {
        return await authenticator.authenticate(publicKey, secretKey, clientIp);
      } catch (error) {
        const apiError = toApiError(error, log, { clientIp });
        throw apiError.status === 401 ? limited() : apiError;
      } finally {
        overBudgetChecks.delete(budgetKey);
      }
    }
    try {
      const caller = await authenticator.authenticate(publicKey, secretKey, clientIp);
      await authFailures.reward(budgetKey);
      return caller;
    } catch (error) {
      const apiError = toApiError(error, log, { clientIp });
      // Only a refusal of the keys spends the place; a core that could not answer gives it back.
      if (apiError.status !== 401) {
        await authFailures.reward(budgetKey);
        throw apiError;
      }
      // The failure that uses up the address's allowance is still a 401, so the caller
      // learns its keys are wrong; the next attempt from there is the 429.
      throw apiError.withHeaders(rateLimitHeaders(authFailures.policy, reserved));
    }
  };
}

/** The action named, its method, its body, then the action itself. */
async function dispatch(
  req: IncomingMessage,
  res: ServerResponse,
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
  // HEAD asks what GET would answer, without the body (node:http leaves it out).
  const method = req.method === 'HEAD' && action.method === 'GET' ? 'GET' : req.method;
  if (method !== action.method) {
    throw gatewayError('METHOD_NOT_ALLOWED', {
      message: `This action takes ${action.method} only.`,
      headers: { Allow: action.method === 'GET' ? 'GET, HEAD' : action.method },
    });
  }
  // Before the body is read: a key outside its scopes costs the core nothing.
  if (!allowsScope(caller.scopes, action.scope)) throw keyScopeDenied(scopeDenied(action.scope).message);
  let body = EMPTY_BODY;
  if (action.method === 'POST') {
    if (!isJsonContentType(req.headers['content-type'])) throw gatewayError('INVALID_CONTENT_TYPE');
    body = await readJsonObject(req, deps.maxBodyBytes, res);
  }
  // node:http joins a repeated custom header with commas; the idempotency key's reader gets
  // each value, so that a key sent twice is refused rather than read as "k1, k2".
  const joined = req.headers['idempotency-key'];
  const keys = typeof joined === 'string' && joined.includes(',') ? req.headersDistinct['idempotency-key'] : undefined;
  const headers: IncomingHttpHeaders =
    keys !== undefined && keys.length > 1 ? { ...req.headers, 'idempotency-key': keys } : req.headers;
  return action.handle({ caller, query: url.searchParams, body, headers, core: deps.core });
}

function repeatedHeader(header: string): Error {
  return gatewayError('MISSING_API_KEY', {
    message: `The ${header} header was sent more than once; send it exactly once.`,
  });
}

/** A header sent more than once, which the gateway refuses to guess between. */
const REPEATED = Symbol('repeated');

/** A header given exactly once and not empty; missing or empty is undefined. */
function singleHeader(req: IncomingMessage, name: string): string | undefined | typeof REPEATED {
  const value = req.headers[name];
  if (typeof value !== 'string') return undefined;
  // node:http joins a repeated header with ", "; only then is the (costlier) distinct list read.
  if (value.includes(',') && (req.headersDistinct[name]?.length ?? 0) > 1) return REPEATED;
  const trimmed = value.trim();
  return trimmed === '' ? undefined : trimmed;
}

/** What a public key looks like; anything else in the header is logged only as its length. */
const PUBLIC_KEY_SHAPE = /^pk_[A-Za-z0-9_-]{1,60}$/;

function loggablePublicKey(value: string): string {
  return PUBLIC_KEY_SHAPE.test(value) ? value : `(not a public key: ${value.length} characters)`;
}

/**
 * The failure budget's key: an IPv4 address, or the /64 network of an IPv6 one (the rule the sign-in throttle shares).
 */
export function failureBudgetKey(clientIp: string): string {
  return addressBudgetKey(clientIp);
}
