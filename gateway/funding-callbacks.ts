/**
 * Funding notifications on the public HTTP face, outside the API's base paths like the VTpass
 * callback: `POST /callbacks/paystack` and `POST /callbacks/monnify`. The gateway holds no rule
 * and no provider secret: it bounds the body, limits the rate per source address, optionally
 * checks FUNDING_CALLBACK_ALLOW, and hands the raw bytes and the signature header to the core,
 * which checks the signature byte-exact in constant time, re-queries the provider, and credits
 * only what the provider confirms.
 *
 * Answers: 401 for a bad or missing signature (nothing changed), 400 for a body that is not
 * the provider's JSON, 200 for everything the core dealt with (an event type not handled
 * included, so the provider stops retrying), 503 when the core or the provider could not give
 * a certain answer, so the provider sends it again.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { type BlockList, isIPv6 } from 'node:net';
import { Code, ConnectError } from '@connectrpc/connect';
import { readBounded } from './body.js';
import type { CoreClients } from './core-client.js';
import { type Limiter, rateLimitHeaders } from './limiter.js';
import type { GatewayLogger } from './log.js';
import { sendJson } from './reply.js';

/** Where each provider posts, and the header its signature comes in. */
const FUNDING_CALLBACKS: Readonly<Record<string, { provider: string; header: string }>> = {
  '/callbacks/paystack': { provider: 'paystack', header: 'x-paystack-signature' },
  '/callbacks/monnify': { provider: 'monnify', header: 'monnify-signature' },
};
/** A transfer notification is a few KB (Paystack's and Monnify's documented samples are under 3 KB); 64 KiB is ample. */
const FUNDING_CALLBACK_MAX_BODY_BYTES = 64 * 1024;
/** The core re-queries the provider (15 s at most) before answering; this only stops a stuck core. */
const FUNDING_CALL_TIMEOUT_MS = 60_000;

export interface FundingCallbackHandler {
  handles(pathname: string): boolean;
  handle(req: IncomingMessage, res: ServerResponse, pathname: string): Promise<void>;
}

export function createFundingCallbackHandler(deps: {
  core: CoreClients;
  log: GatewayLogger;
  limiter: Limiter;
  clientIpOf: (req: IncomingMessage) => string;
  /** Null: any address. */
  allow: BlockList | null;
}): FundingCallbackHandler {
  return {
    handles: (pathname) => Object.hasOwn(FUNDING_CALLBACKS, pathname),
    async handle(req, res, pathname) {
      const route = FUNDING_CALLBACKS[pathname]!;
      if (req.method !== 'POST') {
        req.resume();
        sendJson(res, 405, { status: 'error', message: 'Notifications are POST only.' }, { Allow: 'POST' });
        return;
      }
      const ip = deps.clientIpOf(req);
      if (deps.allow !== null && (ip === '' || !deps.allow.check(ip, isIPv6(ip) ? 'ipv6' : 'ipv4'))) {
        req.resume();
        deps.log.error('funding_callback.refused', {
          provider: route.provider,
          reason: 'source address not in FUNDING_CALLBACK_ALLOW',
        });
        sendJson(res, 403, { status: 'error', message: 'This address may not post notifications.' });
        return;
      }
      const decision = await deps.limiter.consume(ip);
      if (decision.kind === 'limited') {
        req.resume();
        deps.log.error('funding_callback.rate_limited', { provider: route.provider });
        sendJson(
          res,
          429,
          { status: 'error', message: 'Too many notifications; send this one again later.' },
          rateLimitHeaders(deps.limiter.policy, decision),
        );
        return;
      }
      const body = await readBounded(req, FUNDING_CALLBACK_MAX_BODY_BYTES, res);
      if (body === 'gone') return;
      if (body === 'too_large') {
        sendJson(
          res,
          413,
          { status: 'error', message: 'The notification body is too large.' },
          { Connection: 'close' },
        );
        return;
      }
      const header = req.headers[route.header];
      const signature = typeof header === 'string' ? header : '';
      try {
        const { disposition } = await deps.core.funding.applyFundingNotification(
          { provider: route.provider, body, signature },
          { timeoutMs: FUNDING_CALL_TIMEOUT_MS },
        );
        deps.log.info('funding_callback.received', { provider: route.provider, disposition });
        if (disposition === 'bad_signature')
          return sendJson(res, 401, { status: 'error', message: 'The signature does not match this body.' });
        if (disposition === 'bad_body')
          return sendJson(res, 400, { status: 'error', message: 'The body is not a notification of this provider.' });
        if (disposition === 'unknown')
          return sendJson(res, 503, {
            status: 'retry',
            message: 'The transfer could not be confirmed yet; send it again later.',
          });
        sendJson(res, 200, { status: 'success' });
      } catch (error) {
        const code = error instanceof ConnectError ? Code[error.code] : 'unexpected';
        deps.log.error('funding_callback.failed', { provider: route.provider, code });
        sendJson(res, 503, {
          status: 'retry',
          message: 'The notification could not be processed now; send it again later.',
        });
      }
    },
  };
}
