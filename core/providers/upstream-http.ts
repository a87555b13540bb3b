/**
 * How every upstream adapter (VTpass, ClubKonnect, the ported-number family) talks HTTP: through
 * the platform's one outbound client (runtime/outbound-http.ts: no redirects, bounded time and
 * size, one reading of why no answer came), with the upstreams' own rules added here: JSON in and
 * out, a parse that cannot throw, and reasons worded for the operator. It never logs and never puts
 * a header into a reason, so no credential can leave through it.
 */

import { type Fetch, type NoAnswerCause, type OutboundClient, outboundClient } from '../../runtime/outbound-http.js';
import type { ProviderOutcome } from './port.js';

export type { Fetch };

/** What came back from one HTTP exchange. */
export type HttpAnswer =
  /** The upstream answered. `json` is undefined when the body was not JSON or too large. */
  | { kind: 'answer'; status: number; json: unknown; problem?: string; text?: string }
  /**
   * No answer: timeout, reset, refused; `cause` is what the failover rules read (failover.ts).
   * `delivered` is false only when the request may be sent again at the same upstream (`resent`).
   */
  | { kind: 'no_answer'; reason: string; delivered: boolean; cause: NoAnswerCause };

/** One request to send. */
export interface HttpRequest {
  url: URL;
  method: 'GET' | 'POST';
  headers: Record<string, string>;
  /** Sent as JSON. */
  body?: unknown;
  signal: AbortSignal;
  /** The largest answer read; anything longer is cut off and counts as malformed. */
  maxBytes: number;
}

/** Connections at most to one upstream's host; idle ones are kept for the next call. */
const MAX_CONNECTIONS_PER_UPSTREAM = 64;

/**
 * The bound on each phase of a call behind the caller's signal (PROVIDER_TIMEOUT_MS, at most
 * 120 s), which is the one that ends a purchase's call: this only makes sure no phase outlives it.
 */
const PHASE_BOUND_MS = 125_000;

/** The one client every upstream adapter shares. */
const UPSTREAMS = outboundClient({ connections: MAX_CONNECTIONS_PER_UPSTREAM, timeoutMs: PHASE_BOUND_MS });

/** The client of an adapter: the shared one, or one through the `fetch` a test passes. */
export function upstreamClient(fetchImpl: Fetch | undefined): OutboundClient {
  return fetchImpl === undefined
    ? UPSTREAMS
    : outboundClient({ connections: 1, timeoutMs: PHASE_BOUND_MS, fetch: fetchImpl });
}

/**
 * Whether a request that got no answer may be sent again at the same upstream: only when the
 * connection was refused or the host name did not resolve, so it provably never arrived. A TLS
 * failure is never written either (failover moves on from it) but is not sent again: a
 * certificate does not heal in a second.
 */
function resent(cause: NoAnswerCause): boolean {
  return cause === 'refused' || cause === 'dns';
}

/**
 * The outcome with the answer's body beside it (`raw`), for the operator: as it
 * came; core/domain/raw-answers.ts cleans it before it is stored.
 */
export function withRaw(outcome: ProviderOutcome, answer: HttpAnswer): ProviderOutcome {
  if (answer.kind !== 'answer') return outcome;
  return { ...outcome, raw: { httpStatus: answer.status, body: answer.text ?? `(${answer.problem ?? 'no body'})` } };
}

/** Sends one request and reads a bounded JSON answer. Never rejects. */
export async function exchange(request: HttpRequest, client: OutboundClient = UPSTREAMS): Promise<HttpAnswer> {
  const answer = await client.send({
    url: request.url,
    method: request.method,
    headers: {
      accept: 'application/json',
      ...(request.body === undefined ? {} : { 'content-type': 'application/json' }),
      ...request.headers,
    },
    ...(request.body === undefined ? {} : { body: JSON.stringify(request.body) }),
    signal: request.signal,
    maxBytes: request.maxBytes,
  });
  switch (answer.kind) {
    case 'no_answer':
      return {
        kind: 'no_answer',
        reason: noAnswerReason(answer.code, request.signal),
        delivered: !resent(answer.cause),
        cause: answer.cause,
      };
    case 'redirect':
      // Not followed: the request did arrive somewhere, so this proves nothing.
      return {
        kind: 'no_answer',
        reason: noAnswerReason(`redirect ${answer.status} refused`, request.signal),
        delivered: true,
        cause: 'other',
      };
    case 'too_large':
      return {
        kind: 'answer',
        status: answer.status,
        json: undefined,
        problem: `answer larger than ${request.maxBytes} bytes`,
      };
    case 'answer':
      try {
        return { kind: 'answer', status: answer.status, json: JSON.parse(answer.text) as unknown, text: answer.text };
      } catch {
        return {
          kind: 'answer',
          status: answer.status,
          json: undefined,
          problem: 'answer is not JSON',
          text: answer.text,
        };
      }
  }
}

/** A short reason for logs and pending transactions; a URL, header or key is never in it. */
function noAnswerReason(code: string, signal: AbortSignal): string {
  if (signal.aborted) {
    const reason = signal.reason instanceof Error ? signal.reason.message : 'the call was cancelled';
    return `no answer from the provider: ${reason}`;
  }
  return `no answer from the provider (${code})`;
}

/**
 * Waits `ms` unless the signal aborts first, for the pause between two attempts. Resolves
 * false when the signal aborted, so the caller stops retrying instead of throwing.
 */
export function pause(ms: number, signal: AbortSignal): Promise<boolean> {
  if (signal.aborted) return Promise.resolve(false);
  return new Promise((resolve) => {
    const onAbort = (): void => {
      clearTimeout(timer);
      resolve(false);
    };
    const timer = setTimeout(() => {
      signal.removeEventListener('abort', onAbort);
      resolve(true);
    }, ms);
    signal.addEventListener('abort', onAbort, { once: true });
  });
}
