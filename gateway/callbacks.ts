/**
 * Upstream callbacks on the public HTTP face: VTpass posts transaction updates and
 * variations-update pushes (its plans changed) to
 * `POST /callbacks/vtpass/<VTPASS_CALLBACK_SECRET>`, the URL set in its dashboard (VTpass
 * cannot add headers of ours, so the shared secret is a path segment). The gateway holds no
 * rule about them: it checks the secret (in constant time), bounds the body, and hands the
 * bytes to the core's ApplyProviderCallback, which confirms the update with a requery
 * before it settles, refunds or reverses anything.
 *
 * Answers: `{"response":"success"}` (200) once the core has dealt with it, including
 * updates about references it does not know and bodies it does not understand (retrying
 * those cannot help); 503 `{"response":"retry"}` when the core could not get a final answer
 * from VTpass yet or could not be reached, so that VTpass sends it again (it retries up to
 * five times). A wrong secret, or none configured, is the same 404 as any unknown path.
 * The path is never logged, since it holds the secret.
 */
import { createHash, timingSafeEqual } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { Code, ConnectError } from '@connectrpc/connect';
import { CallbackDisposition } from '../gen/prepaid/v1/purchase_pb.js';
import { TransactionStatus } from '../gen/prepaid/v1/types_pb.js';
import { readBounded } from './body.js';
import type { CoreClients } from './core-client.js';
import { type Limiter, rateLimitHeaders } from './limiter.js';
import type { GatewayLogger } from './log.js';
import { sendJson } from './reply.js';

/** Where VTpass posts; the secret follows. */
const VTPASS_CALLBACK_PREFIX = '/callbacks/vtpass/';
/**
 * A transaction update carries one transaction in the requery shape, a few KB; a
 * variations-update carries a service's whole list of plans twice (`variations` and the old
 * spelling `varations`), a few hundred entries of about 150 bytes each: 1 MiB is ample.
 */
const CALLBACK_MAX_BODY_BYTES = 1024 * 1024;
/**
 * The core asks VTpass before answering (bounded there by PROVIDER_TIMEOUT_MS, 15 s by
 * default, with up to three tries); this only stops a callback from hanging on a stuck core.
 */
const CALLBACK_CALL_TIMEOUT_MS = 60_000;

/** The callback endpoint as server.ts's route() uses it. */
export interface CallbackHandler {
  /** True when this path is the callback URL (configured, and the secret matches). */
  handles(pathname: string): boolean;
  /** Answers a callback request; never rejects. */
  handle(req: IncomingMessage, res: ServerResponse): Promise<void>;
}

/** The VTpass callback endpoint; off when `secret` is undefined. */
export function createCallbackHandler(deps: {
  secret: string | undefined;
  core: CoreClients;
  log: GatewayLogger;
  /** Callbacks per client address (CALLBACKS_PER_MINUTE). */
  limiter: Limiter;
  clientIpOf: (req: IncomingMessage) => string;
}): CallbackHandler {
  const expected = deps.secret === undefined ? undefined : digest(`${VTPASS_CALLBACK_PREFIX}${deps.secret}`);

  return {
    handles(pathname) {
      if (expected === undefined || !pathname.startsWith(VTPASS_CALLBACK_PREFIX)) return false;
      // Hashes of equal length, so neither the secret's length nor a common prefix shows in the time taken.
      return timingSafeEqual(digest(pathname), expected);
    },

    async handle(req, res) {
      if (req.method !== 'POST') {
        req.resume();
        sendJson(res, 405, { response: 'error', message: 'Callbacks are POST only.' }, { Allow: 'POST' });
        return;
      }
      const decision = await deps.limiter.consume(deps.clientIpOf(req));
      if (decision.kind === 'limited') {
        req.resume();
        deps.log.error('callback.rate_limited', { provider: 'vtpass' });
        sendJson(
          res,
          429,
          { response: 'retry', message: 'Too many callbacks; send this one again later.' },
          rateLimitHeaders(deps.limiter.policy, decision),
        );
        return;
      }
      const body = await readBounded(req, CALLBACK_MAX_BODY_BYTES, res);
      if (body === 'gone') return;
      if (body === 'too_large') {
        deps.log.error('callback.rejected', {
          provider: 'vtpass',
          reason: `body larger than ${CALLBACK_MAX_BODY_BYTES} bytes`,
        });
        sendJson(res, 413, { response: 'error', message: 'The callback body is too large.' }, { Connection: 'close' });
        return;
      }
      try {
        const answer = await deps.core.purchase.applyProviderCallback(
          { provider: 'vtpass', body },
          { timeoutMs: CALLBACK_CALL_TIMEOUT_MS },
        );
        deps.log.info('callback.received', {
          provider: 'vtpass',
          disposition: CallbackDisposition[answer.disposition],
          reference: answer.reference || null,
          status: answer.status === TransactionStatus.UNSPECIFIED ? null : TransactionStatus[answer.status],
        });
        if (answer.disposition === CallbackDisposition.RETRY_LATER) {
          sendJson(res, 503, {
            response: 'retry',
            message: 'The transaction has no final state yet; send the update again later.',
          });
          return;
        }
        sendJson(res, 200, { response: 'success' });
      } catch (error) {
        const code = error instanceof ConnectError ? Code[error.code] : 'unexpected';
        deps.log.error('callback.failed', {
          provider: 'vtpass',
          code,
          error: error instanceof Error ? error.message : String(error),
        });
        sendJson(res, 503, {
          response: 'retry',
          message: 'The update could not be processed now; send it again later.',
        });
      }
    },
  };
}

function digest(text: string): Buffer {
  return createHash('sha256').update(text).digest();
}
